//! The server clock, injected (R10.7.3: deadlines come from the server clock; the fold never
//! reads one). Production uses [`SystemClock`]; tests use [`TokioClock`], which follows tokio's
//! clock, so a test under `tokio::time::pause()` moves deadlines, delays and windows by
//! `tokio::time::advance` (or by auto-advance while every task sleeps) without waiting.

use chrono::{DateTime, Utc};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A source of the current time (UTC). Everything the server decides by time (deadlines,
/// minimum windows, spectator delays in seconds, outage lengths) reads it through this trait.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;

    /// Resolves once `now() >= at` (at once if it is already). The default sleeps on tokio's
    /// clock for the difference, which suits the wall clock and [`TokioClock`]; a clock moved
    /// by hand wakes its sleepers when it is moved.
    fn sleep_until(&self, at: DateTime<Utc>) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let wait = (at - self.now()).to_std().unwrap_or_default();
        Box::pin(tokio::time::sleep(wait))
    }
}

/// The shared clock handle kept in the app state.
pub type SharedClock = Arc<dyn Clock>;

/// The operating system's wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that follows tokio's clock from a fixed start: `now() = start + (tokio now - tokio
/// then)`. Under `tokio::time::pause()` it stands still until tokio's clock is advanced, so
/// `tokio::time::sleep` and this clock always agree.
#[derive(Debug, Clone, Copy)]
pub struct TokioClock {
    start: DateTime<Utc>,
    then: tokio::time::Instant,
}

impl TokioClock {
    /// A clock reading `start` now.
    pub fn starting_at(start: DateTime<Utc>) -> Self {
        TokioClock { start, then: tokio::time::Instant::now() }
    }
}

impl Clock for TokioClock {
    fn now(&self) -> DateTime<Utc> {
        let elapsed = tokio::time::Instant::now().saturating_duration_since(self.then);
        self.start + chrono::Duration::from_std(elapsed).unwrap_or(chrono::Duration::MAX)
    }
}

/// A clock that moves only when a test moves it ([`ManualClock::set`], [`ManualClock::advance`]),
/// waking the sleepers whose time has come. Unlike tokio's paused clock it never jumps by itself
/// while the store does I/O, so a test decides exactly when each answer arrives. It knows its
/// sleepers, so a test can run it from one due time to the next ([`ManualClock::next_wake`]).
#[derive(Debug)]
pub struct ManualClock {
    now: std::sync::Mutex<DateTime<Utc>>,
    moved: tokio::sync::watch::Sender<()>,
    sleepers: std::sync::Mutex<Vec<(u64, DateTime<Utc>)>>,
    ids: std::sync::atomic::AtomicU64,
}

impl ManualClock {
    /// A clock reading `start` until moved.
    pub fn starting_at(start: DateTime<Utc>) -> Arc<Self> {
        Arc::new(ManualClock {
            now: std::sync::Mutex::new(start),
            moved: tokio::sync::watch::channel(()).0,
            sleepers: Default::default(),
            ids: Default::default(),
        })
    }

    /// Sets the clock to `t` (tests may move it back too) and wakes the sleepers due by then.
    pub fn set(&self, t: DateTime<Utc>) {
        {
            let mut now = self.now.lock().expect("clock");
            *now = t;
        }
        self.moved.send_replace(());
    }

    /// A clock reading `at` until moved (the same as [`ManualClock::starting_at`]).
    pub fn at(at: DateTime<Utc>) -> Arc<Self> {
        Self::starting_at(at)
    }

    /// Moves the clock on by `d`.
    pub fn advance(&self, d: chrono::Duration) {
        let t = self.now() + d;
        self.set(t);
    }

    /// The earliest time a sleeper waits for, if any sleeps.
    pub fn next_wake(&self) -> Option<DateTime<Utc>> {
        self.sleepers.lock().expect("sleepers").iter().map(|(_, at)| *at).min()
    }

    /// How many sleepers wait now.
    pub fn sleeping(&self) -> usize {
        self.sleepers.lock().expect("sleepers").len()
    }
}

struct Sleeper<'a>(&'a ManualClock, u64);

impl Drop for Sleeper<'_> {
    fn drop(&mut self) {
        self.0.sleepers.lock().expect("sleepers").retain(|(id, _)| *id != self.1);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().expect("clock")
    }

    fn sleep_until(&self, at: DateTime<Utc>) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            let mut moved = self.moved.subscribe();
            let id = self.ids.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.sleepers.lock().expect("sleepers").push((id, at));
            let _registered = Sleeper(self, id);
            while self.now() < at {
                if moved.changed().await.is_err() {
                    return;
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn tokio_clock_moves_with_paused_time() {
        let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().with_timezone(&Utc);
        let c = TokioClock::starting_at(start);
        assert_eq!(c.now(), start);
        tokio::time::advance(std::time::Duration::from_millis(1500)).await;
        assert_eq!(c.now(), start + chrono::Duration::milliseconds(1500));
        tokio::time::sleep(std::time::Duration::from_secs(10)).await;
        assert_eq!(c.now(), start + chrono::Duration::milliseconds(11_500));
    }
}
