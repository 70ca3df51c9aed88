//! Prometheus metrics served at `/metrics`.

use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder};

/// The process's metrics.
pub struct Metrics {
    registry: Registry,
    /// Requests by method, route and status.
    pub requests: IntCounterVec,
    /// Request durations by method and route, seconds.
    pub durations: HistogramVec,
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
        registry.register(Box::new(requests.clone())).expect("register");
        registry.register(Box::new(durations.clone())).expect("register");
        Metrics { registry, requests, durations }
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
