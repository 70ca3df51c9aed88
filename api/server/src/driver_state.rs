//! What the table driver (`driver`) keeps in the process: its running table tasks, gathering
//! reconcile locks, the live set, readiness and the store's outages. The server state holds it;
//! it names neither the state nor the driver's workers.

use crate::store::{self, StoredEvent};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// Running table tasks (table id -> change signal), gathering reconcile locks, what is live,
/// readiness and the store's outages.
#[derive(Default)]
pub struct Driver {
    pub(crate) tasks: Mutex<HashMap<String, watch::Sender<()>>>,
    /// Each gathering's manager runs in this process ([`GatheringRuns`]).
    pub(crate) reconciling: Mutex<HashMap<String, Arc<GatheringRuns>>>,
    /// The tables still playing and the gatherings still running, as of the log read so far.
    pub(crate) live: Mutex<Live>,
    /// the driver has caught up with the log and drives every live table.
    pub(crate) caught_up: AtomicBool,
    pub(crate) outages: Mutex<Outages>,
    /// The threads the table tasks and gathering runs use ([`Workers`]).
    pub(crate) workers: Workers,
}

/// One gathering's manager runs in this process: one at a time, what the manager remembers
/// between them, and what the runs asked for meanwhile (the next run takes them all, so triggers
/// that come while one waits add no run).
#[derive(Default)]
pub(crate) struct GatheringRuns {
    /// Held by the run in progress.
    pub(crate) known: tokio::sync::Mutex<flicker_platform::gatherings::manager::Known>,
    /// Asked for since the last run began.
    pub(crate) asked: Mutex<Asked>,
    /// A run is spawned and has not yet taken [`GatheringRuns::asked`].
    pub(crate) queued: AtomicBool,
}

/// What triggers asked of a gathering's next manager run.
#[derive(Debug, Default)]
pub(crate) struct Asked {
    /// Read every circle table of the current stage.
    pub(crate) all: bool,
    /// Circle tables whose game ended.
    pub(crate) ended: Vec<String>,
}

/// A multi-threaded runtime of its own for the driver's table tasks and gathering runs, one
/// worker thread a core, started on first use: built-in bots, clocks and the gathering manager
/// use every core instead of the one thread of the actix system that serves no request. It
/// stops (its tasks dropped) with the driver.
#[derive(Default)]
pub(crate) struct Workers {
    rt: Mutex<Option<tokio::runtime::Runtime>>,
}

impl Workers {
    /// Spawns `fut` on the driver's threads.
    pub(crate) fn spawn<F>(&self, fut: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let mut rt = self.rt.lock().expect("workers");
        let rt = rt.get_or_insert_with(|| {
            tokio::runtime::Builder::new_multi_thread()
                .thread_name("flicker-driver")
                .enable_all()
                .build()
                .expect("the driver's runtime starts")
        });
        drop(rt.spawn(fut));
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which an async context forbids; this does not.
        if let Some(rt) = self.rt.get_mut().ok().and_then(Option::take) {
            rt.shutdown_background();
        }
    }
}

/// The live set: what a checkpoint stores.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Live {
    /// Table ids (without `table-`) whose game has not ended.
    pub(crate) tables: BTreeSet<String>,
    /// Gathering ids (without `gathering-`) started and not ended or cancelled.
    pub(crate) gatherings: BTreeSet<String>,
}

/// Store outages this process knows of.
#[derive(Debug, Default)]
pub(crate) struct Outages {
    /// Recorded outages (`from`, `to`), by their version in [`crate::driver::OUTAGES`] (read from the log, so
    /// every process and every restart sees the same ones).
    pub(crate) recorded: BTreeMap<store::StreamVersion, (DateTime<Utc>, DateTime<Utc>)>,
    /// This process's outage still open: since the last moment the store was known to answer.
    pub(crate) open: Option<DateTime<Utc>>,
    /// The last moment the store answered this process's probe.
    pub(crate) last_ok: Option<DateTime<Utc>>,
}

impl Driver {
    /// whether the driver drives every live table: it has caught up with the log
    /// and no store outage is open (part of `/readyz`).
    pub fn ready(&self) -> bool {
        self.caught_up.load(Ordering::SeqCst) && self.outages.lock().expect("outages").open.is_none()
    }

    /// `pauses` (a gathering's) with the store's outages added, merged so that
    /// overlapping spans count once: every decision point open during an outage has its
    /// deadline, bot delay and minimum window moved back by the overlap, like a gathering
    /// pause; an outage still open stops every clock (`to = None`).
    pub fn with_outages(
        &self,
        pauses: &[(DateTime<Utc>, Option<DateTime<Utc>>)],
    ) -> Vec<(DateTime<Utc>, Option<DateTime<Utc>>)> {
        let o = self.outages.lock().expect("outages");
        if o.recorded.is_empty() && o.open.is_none() {
            return pauses.to_vec();
        }
        let mut spans: Vec<_> = pauses.to_vec();
        spans.extend(o.recorded.values().map(|&(f, t)| (f, Some(t))));
        spans.extend(o.open.map(|f| (f, None)));
        merge_spans(spans)
    }

    /// Opens an outage (unless one is open) from the last moment the store was known to work.
    pub(crate) fn store_failed(&self, now: DateTime<Utc>) {
        let mut o = self.outages.lock().expect("outages");
        if o.open.is_none() {
            let from = o.last_ok.unwrap_or(now).min(now);
            tracing::warn!(%from, "the event store is failing: clocks stop until it answers again");
            o.open = Some(from);
        }
    }

    pub(crate) fn note_outage(&self, e: &StoredEvent) {
        let span = |k: &str| e.payload[k].as_str().and_then(|t| DateTime::parse_from_rfc3339(t).ok());
        if let (Some(from), Some(to)) = (span("from"), span("to")) {
            self.outages.lock().expect("outages").recorded.insert(e.stream_version, (from.to_utc(), to.to_utc()));
        }
    }

    pub(crate) fn live(&self) -> Live {
        self.live.lock().expect("live").clone()
    }
}

/// Sorts and merges spans (`to = None`: open, covering everything after `from`).
pub(crate) fn merge_spans(
    mut spans: Vec<(DateTime<Utc>, Option<DateTime<Utc>>)>,
) -> Vec<(DateTime<Utc>, Option<DateTime<Utc>>)> {
    spans.sort_by_key(|s| s.0);
    let mut out: Vec<(DateTime<Utc>, Option<DateTime<Utc>>)> = Vec::new();
    for (from, to) in spans {
        if let Some(last) = out.last_mut() {
            match last.1 {
                None => continue,
                Some(end) if from <= end => {
                    last.1 = to.map(|t| t.max(end));
                    continue;
                }
                Some(_) => {}
            }
        }
        out.push((from, to));
    }
    out
}
