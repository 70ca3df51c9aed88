//! Spectator counts: the open live streams on each table and gathering by viewers who hold no
//! seat there, counted in this process. A count is public: it depends only on who opened a
//! stream, never on the game.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Open spectator streams by stream id (`table-…`, `gathering-…`).
#[derive(Debug, Default)]
pub struct Watchers(Mutex<HashMap<String, u32>>);

/// One open spectator stream; dropping it (the stream closed) counts it out.
#[derive(Debug)]
pub struct Watch {
    watchers: Arc<Watchers>,
    stream: String,
}

impl Watchers {
    /// Counts a spectator stream on `stream` in until the returned guard drops.
    pub fn watch(self: &Arc<Self>, stream: &str) -> Watch {
        *self.0.lock().expect("watchers").entry(stream.to_string()).or_default() += 1;
        Watch { watchers: self.clone(), stream: stream.to_string() }
    }

    /// The spectator streams open on `stream` now.
    pub fn count(&self, stream: &str) -> u32 {
        self.0.lock().expect("watchers").get(stream).copied().unwrap_or(0)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut m = self.watchers.0.lock().expect("watchers");
        if let Some(n) = m.get_mut(&self.stream) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                m.remove(&self.stream);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_counts_until_dropped() {
        let w = Arc::new(Watchers::default());
        let a = w.watch("table-1");
        let b = w.watch("table-1");
        assert_eq!((w.count("table-1"), w.count("table-2")), (2, 0));
        drop(a);
        assert_eq!(w.count("table-1"), 1);
        drop(b);
        assert_eq!(w.count("table-1"), 0);
    }
}
