//! Prometheus metrics served at `/metrics`.

use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, Opts, Registry, TextEncoder};

/// The process's metrics.
pub struct Metrics {
    registry: Registry,
    /// Requests by method, route and status.
    pub requests: IntCounterVec,
    /// Request durations by method and route, seconds.
    pub durations: HistogramVec,
    /// The table driver's actions stored by this process, by kind (`bot_chain`: built-in bots'
    /// answers in one append; `clock`: a window's close, a time-out's defaults or an
    /// abandonment; `auto_pass`).
    pub driver_actions: IntCounterVec,
    /// The driver's actions this process computed but the store refused because another writer
    /// had appended first (work done twice), by kind as above.
    pub driver_conflicts: IntCounterVec,
    /// Leases this process holds (tables and gatherings it drives; 0 on a store one process
    /// serves, where it drives everything).
    pub leases_held: IntGauge,
}

impl Metrics {
    /// Registers the metrics.
    pub fn new() -> Self {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new("flicker_http_requests_total", "HTTP requests by method, route and status"),
            &["method", "route", "status"],
        )
        .expect("metric");
        let durations = HistogramVec::new(
            HistogramOpts::new("flicker_http_request_duration_seconds", "HTTP request durations"),
            &["method", "route"],
        )
        .expect("metric");
        let driver_actions = IntCounterVec::new(
            Opts::new("flicker_driver_actions_total", "Table driver actions stored by this process, by kind"),
            &["kind"],
        )
        .expect("metric");
        let driver_conflicts = IntCounterVec::new(
            Opts::new(
                "flicker_driver_conflicts_total",
                "Table driver actions computed by this process but refused because another writer appended first",
            ),
            &["kind"],
        )
        .expect("metric");
        let leases_held =
            IntGauge::new("flicker_leases_held", "Leases (tables and gatherings driven) this process holds")
                .expect("metric");
        // Every kind from the start, so that a count still at 0 is shown as 0.
        for kind in ["bot_chain", "clock", "auto_pass"] {
            driver_actions.with_label_values(&[kind]);
            driver_conflicts.with_label_values(&[kind]);
        }
        registry.register(Box::new(requests.clone())).expect("register");
        registry.register(Box::new(durations.clone())).expect("register");
        registry.register(Box::new(driver_actions.clone())).expect("register");
        registry.register(Box::new(driver_conflicts.clone())).expect("register");
        registry.register(Box::new(leases_held.clone())).expect("register");
        Metrics { registry, requests, durations, driver_actions, driver_conflicts, leases_held }
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        TextEncoder::new().encode(&self.registry.gather(), &mut buf).expect("encode");
        String::from_utf8(buf).expect("utf8")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
