//! The server clock, injected (R10.7.3: deadlines come from the server clock; the fold never
//! reads one). Production uses [`SystemClock`]; tests use [`TokioClock`], which follows tokio's
//! clock, so a test under `tokio::time::pause()` moves deadlines, delays and windows by
//! `tokio::time::advance` (or by auto-advance while every task sleeps) without waiting.

use chrono::{DateTime, Utc};
use std::sync::Arc;

/// A source of the current time (UTC). Everything the server decides by time (deadlines,
/// minimum windows, spectator delays in seconds, outage lengths) reads it through this trait.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;
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

#[cfg(test)]
/// A clock that follows tokio's clock from a fixed start: `now() = start + (tokio now - tokio
/// then)`. Under `tokio::time::pause()` it stands still until tokio's clock is advanced, so
/// `tokio::time::sleep` and this clock always agree.
#[derive(Debug, Clone, Copy)]
pub struct TokioClock {
    start: DateTime<Utc>,
    then: tokio::time::Instant,
}

#[cfg(test)]
impl TokioClock {
    /// A clock reading `start` now.
    pub fn starting_at(start: DateTime<Utc>) -> Self {
        TokioClock { start, then: tokio::time::Instant::now() }
    }
}

#[cfg(test)]
impl Clock for TokioClock {
    fn now(&self) -> DateTime<Utc> {
        let elapsed = tokio::time::Instant::now().saturating_duration_since(self.then);
        self.start + chrono::Duration::from_std(elapsed).unwrap_or(chrono::Duration::MAX)
    }
}

#[cfg(test)]
/// A clock that reads what the test set (for tests whose times come from stored events, such
/// as spectator delays in seconds).
#[derive(Debug)]
pub struct ManualClock(std::sync::Mutex<DateTime<Utc>>);

#[cfg(test)]
impl ManualClock {
    /// A clock reading `at`.
    pub fn at(at: DateTime<Utc>) -> Arc<Self> {
        Arc::new(ManualClock(std::sync::Mutex::new(at)))
    }
    /// Sets the time.
    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().expect("clock") = at;
    }
}

#[cfg(test)]
impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().expect("clock")
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
