//! Slows repeated failed logins without letting anyone lock an account's owner out.
//!
//! Failures are counted per (account name, address) pair and per address, never per account
//! alone: someone guessing an account's password from one address slows only that address (for
//! that name, and for every name once it has failed often), and the owner still logs in from
//! any other address. The numbers:
//!
//! - a pair has [`PAIR_FREE`] free failures, an address [`ADDR_FREE`] (over all names);
//! - each failure past them refuses that pair (or address) for a wait that starts at
//!   [`FIRST_WAIT_SECS`] and doubles with each further failure, up to [`MAX_WAIT_SECS`];
//! - a count is forgotten [`FORGET_AFTER_SECS`] after its last failure; a successful login
//!   clears its pair's count (not the address's, so one known password does not reset it).
//!
//! A refused attempt is answered 429 with `Retry-After` before the password is checked, and does
//! not count as a failure. Unknown names count like known ones (no oracle). Times are the
//! server clock's ([`crate::clock`]).

use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// Free failures per (name, address) pair before waits start.
pub const PAIR_FREE: u32 = 5;
/// Free failures per address (all names together) before waits start.
pub const ADDR_FREE: u32 = 20;
/// The first wait, seconds; it doubles with each further failure.
pub const FIRST_WAIT_SECS: i64 = 1;
/// The longest wait, seconds.
pub const MAX_WAIT_SECS: i64 = 300;
/// A count is forgotten this long after its last failure, seconds.
pub const FORGET_AFTER_SECS: i64 = 15 * 60;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Pair(String, Option<IpAddr>),
    Addr(Option<IpAddr>),
}

#[derive(Debug, Clone, Copy)]
struct Count {
    failures: u32,
    last: DateTime<Utc>,
    until: DateTime<Utc>,
}

/// The failure counts.
#[derive(Debug, Default)]
pub struct LoginThrottle {
    counts: Mutex<HashMap<Key, Count>>,
}

fn keys(name: &str, addr: Option<IpAddr>) -> [(Key, u32); 2] {
    [(Key::Pair(name.to_ascii_lowercase(), addr), PAIR_FREE), (Key::Addr(addr), ADDR_FREE)]
}

/// The wait after the `failures`-th failure of a key with `free` free failures.
fn wait_after(failures: u32, free: u32) -> Duration {
    if failures <= free {
        return Duration::zero();
    }
    let doublings = (failures - free - 1).min(20);
    Duration::seconds((FIRST_WAIT_SECS << doublings).min(MAX_WAIT_SECS))
}

impl LoginThrottle {
    /// `Err(wait)` when a login for `name` from `addr` at `now` must be refused for `wait`.
    pub fn check(&self, name: &str, addr: Option<IpAddr>, now: DateTime<Utc>) -> Result<(), Duration> {
        let counts = self.counts.lock().expect("login throttle");
        let wait = keys(name, addr)
            .iter()
            .filter_map(|(k, _)| counts.get(k))
            .filter(|c| (now - c.last).num_seconds() < FORGET_AFTER_SECS)
            .map(|c| c.until - now)
            .max()
            .unwrap_or_else(Duration::zero);
        if wait > Duration::zero() { Err(wait) } else { Ok(()) }
    }

    /// Counts a failed login for `name` from `addr` at `now`.
    pub fn failed(&self, name: &str, addr: Option<IpAddr>, now: DateTime<Utc>) {
        let mut counts = self.counts.lock().expect("login throttle");
        if counts.len() > 100_000 {
            counts.retain(|_, c| (now - c.last).num_seconds() < FORGET_AFTER_SECS);
        }
        for (k, free) in keys(name, addr) {
            let c = counts.entry(k).or_insert(Count { failures: 0, last: now, until: now });
            if (now - c.last).num_seconds() >= FORGET_AFTER_SECS {
                c.failures = 0;
            }
            c.failures += 1;
            c.last = now;
            c.until = now + wait_after(c.failures, free);
        }
    }

    /// A successful login for `name` from `addr`: clears that pair's count.
    pub fn succeeded(&self, name: &str, addr: Option<IpAddr>) {
        self.counts.lock().expect("login throttle").remove(&Key::Pair(name.to_ascii_lowercase(), addr));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_cap() {
        assert_eq!(wait_after(PAIR_FREE, PAIR_FREE), Duration::zero());
        assert_eq!(wait_after(PAIR_FREE + 1, PAIR_FREE), Duration::seconds(1));
        assert_eq!(wait_after(PAIR_FREE + 2, PAIR_FREE), Duration::seconds(2));
        assert_eq!(wait_after(PAIR_FREE + 4, PAIR_FREE), Duration::seconds(8));
        assert_eq!(wait_after(PAIR_FREE + 60, PAIR_FREE), Duration::seconds(MAX_WAIT_SECS));
    }

    #[test]
    fn counts_are_forgotten_after_a_quiet_while() {
        let t = LoginThrottle::default();
        let a: Option<IpAddr> = Some("10.0.0.1".parse().unwrap());
        let now = Utc::now();
        for _ in 0..PAIR_FREE + 3 {
            t.failed("alice", a, now);
        }
        assert!(t.check("alice", a, now).is_err());
        assert!(t.check("alice", a, now + Duration::seconds(FORGET_AFTER_SECS)).is_ok());
    }
}
