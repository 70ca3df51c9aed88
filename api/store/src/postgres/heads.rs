//! The stream heads a PostgreSQL process knows without asking the database, and when it may
//! trust them (see docs/scaling.md, "Skipping the tail read").
//!
//! Several processes append to one database, so a head learnt here may be behind the database
//! (never ahead: every head comes from a commit or a read). A read of a stream from past its
//! known head ([`Heads::current`]) answers empty without a query only when:
//!
//! 1. this process's log followers have read the global log at least as far as every position
//!    another process has announced by NOTIFY since this process started listening (and no
//!    notification may have been missed: after the LISTEN connection is lost nothing is trusted
//!    until it listens again and the followers have read past the log's end as of then);
//! 2. the head was learnt within [`TRUSTED_FOR`] (a commit that lands in a gap the followers
//!    already passed, more than 1.5 s after it took its position, or whose NOTIFY was lost with
//!    its process, is read at the latest then);
//! 3. the caller did not ask for fresh reads ([`crate::fresh`]).
//!
//! A head trusted wrongly can only make a command decide on a table that is behind: its
//! expected-version append then conflicts (the conflict raises the head to the version found)
//! and the command is decided again on the table read afresh.

use crate::StoredEvent;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

/// How long a head learnt here is trusted without news of it.
pub(super) const TRUSTED_FOR: Duration = Duration::from_secs(2);

/// Streams whose heads are remembered; past it the map starts afresh (a stream not in it is
/// read).
const KEPT: usize = 500_000;

/// One stream's head: its version, and when it was learnt.
struct Head {
    version: i64,
    at: Instant,
}

/// Stream heads and how far this process has followed the log.
#[derive(Default)]
pub(super) struct Heads {
    map: Mutex<HashMap<String, Head>>,
    /// The highest position other processes have announced (`i64::MAX` while notifications may
    /// have been missed).
    announced: AtomicI64,
    /// Every position up to this one has been read by a log follower (or passed as a gap).
    followed: AtomicI64,
    /// The highest position this process has committed.
    committed: AtomicI64,
}

impl Heads {
    /// Raises `stream`'s head to `version` (never lowers it), learnt now.
    pub(super) fn raise(&self, stream: &str, version: i64) {
        let mut map = self.map.lock().expect("heads");
        Self::raise_in(&mut map, stream, version, Instant::now());
    }

    /// Raises the head of each event's stream.
    pub(super) fn raise_all(&self, events: &[StoredEvent]) {
        if events.is_empty() {
            return;
        }
        let now = Instant::now();
        let mut map = self.map.lock().expect("heads");
        for e in events {
            Self::raise_in(&mut map, &e.stream_id, i64::from(e.stream_version), now);
        }
    }

    fn raise_in(map: &mut HashMap<String, Head>, stream: &str, version: i64, now: Instant) {
        if map.len() >= KEPT && !map.contains_key(stream) {
            map.clear();
        }
        match map.get_mut(stream) {
            Some(h) if h.version > version => {}
            Some(h) => *h = Head { version, at: now },
            None => {
                map.insert(stream.to_string(), Head { version, at: now });
            }
        }
    }

    /// A query found nothing in `stream` past `version`: a head known at exactly `version` is
    /// current as of now. (A head not known is not learnt from this: the caller's `version` may
    /// be any number.)
    pub(super) fn confirm(&self, stream: &str, version: i64) {
        if let Some(h) = self.map.lock().expect("heads").get_mut(stream)
            && h.version == version
        {
            h.at = Instant::now();
        }
    }

    /// Whether a read of `stream` from version `from` may answer empty without a query (see
    /// the module's documentation).
    pub(super) fn current(&self, stream: &str, from: i64) -> bool {
        if crate::fresh_reads() || self.followed.load(Ordering::SeqCst) < self.announced.load(Ordering::SeqCst) {
            return false;
        }
        self.map.lock().expect("heads").get(stream).is_some_and(|h| h.version < from && h.at.elapsed() < TRUSTED_FOR)
    }

    /// Another process announced `position` (or, after notifications may have been missed,
    /// the log's end as then read): trust waits for the followers to reach it.
    pub(super) fn announce(&self, position: i64) {
        self.announced.store(position, Ordering::SeqCst);
    }

    /// Notifications may have been missed: nothing is trusted until [`Heads::announce`].
    pub(super) fn distrust(&self) {
        self.announced.store(i64::MAX, Ordering::SeqCst);
    }

    /// A log follower has read every position up to `position`.
    pub(super) fn followed(&self, position: i64) {
        self.followed.fetch_max(position, Ordering::SeqCst);
    }

    /// This process has committed up to `position`.
    pub(super) fn committed(&self, position: i64) {
        self.committed.fetch_max(position, Ordering::SeqCst);
    }

    /// The position in a client's token: everything this process has committed or followed.
    pub(super) fn token(&self) -> i64 {
        self.committed.load(Ordering::SeqCst).max(self.followed.load(Ordering::SeqCst))
    }

    /// Whether the followers have read the log up to `position`.
    pub(super) fn has_followed(&self, position: i64) -> bool {
        self.followed.load(Ordering::SeqCst) >= position
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_is_trusted_only_past_it_with_the_log_followed() {
        let h = Heads::default();
        assert!(!h.current("s", 3), "unknown");
        h.raise("s", 2);
        assert!(h.current("s", 3));
        assert!(!h.current("s", 2), "the event at 2 is read");
        h.raise("s", 1);
        assert!(h.current("s", 3), "never lowered");
        // Another process announced a position the followers have not read.
        h.announce(10);
        assert!(!h.current("s", 3));
        h.followed(9);
        assert!(!h.current("s", 3));
        h.followed(10);
        assert!(h.current("s", 3));
        h.distrust();
        h.followed(1_000);
        assert!(!h.current("s", 3), "notifications may have been missed");
        h.announce(1_000);
        assert!(h.current("s", 3));
    }

    #[tokio::test]
    async fn fresh_reads_trust_nothing() {
        let h = Heads::default();
        h.raise("s", 2);
        assert!(crate::fresh(async { !h.current("s", 3) }).await);
        assert!(h.current("s", 3));
    }

    #[test]
    fn a_confirmation_renews_only_the_same_head() {
        let h = Heads::default();
        h.confirm("s", 4);
        assert!(!h.current("s", 5), "a caller's number is not a head");
        h.raise("s", 4);
        h.map.lock().unwrap().get_mut("s").unwrap().at = Instant::now().checked_sub(TRUSTED_FOR).unwrap();
        assert!(!h.current("s", 5), "too old");
        h.confirm("s", 3);
        assert!(!h.current("s", 5));
        h.confirm("s", 4);
        assert!(h.current("s", 5));
    }

    #[test]
    fn the_token_covers_commits_and_the_followed_log() {
        let h = Heads::default();
        h.committed(7);
        h.followed(5);
        assert_eq!(h.token(), 7);
        assert!(h.has_followed(5) && !h.has_followed(6));
    }
}
