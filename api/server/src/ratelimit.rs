//! Request rate limits: per token first, then a generous per-address limit (a venue's
//! players may share one address). Uses the `governor` crate (GCRA). Configured by
//! `FLICKER_RATE_PER_TOKEN` and `FLICKER_RATE_PER_ADDRESS`, each `RATE[/BURST]` in requests per
//! second (`0` switches that limit off). Refused requests get 429 `rate-limited` with
//! `Retry-After`; health probes are never limited.

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::hash::{Hash, Hasher};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

/// Default per-token limit: requests per second and burst.
pub const DEFAULT_PER_TOKEN: (u32, u32) = (50, 100);
/// Default per-address limit: requests per second and burst.
pub const DEFAULT_PER_ADDRESS: (u32, u32) = (1000, 2000);

/// The configured limits: (requests per second, burst) per bearer token and per client address;
/// `None` switches a limit off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rates {
    /// `FLICKER_RATE_PER_TOKEN` (default [`DEFAULT_PER_TOKEN`]).
    pub per_token: Option<(u32, u32)>,
    /// `FLICKER_RATE_PER_ADDRESS` (default [`DEFAULT_PER_ADDRESS`]).
    pub per_address: Option<(u32, u32)>,
}

/// The server's limiters.
pub struct Limits {
    per_token: Option<DefaultKeyedRateLimiter<u64>>,
    per_address: Option<DefaultKeyedRateLimiter<IpAddr>>,
    clock: DefaultClock,
}

/// Parses `RATE[/BURST]` (requests per second); `0` is off. Errors name the variable.
pub fn parse(var: &str, value: &str) -> Result<Option<(u32, u32)>, String> {
    let bad = || format!("{var} is RATE or RATE/BURST in requests per second (0: off), not {value:?}");
    let (rate, burst) = match value.split_once('/') {
        Some((r, b)) => {
            (r.trim().parse::<u32>().map_err(|_| bad())?, Some(b.trim().parse::<u32>().map_err(|_| bad())?))
        }
        None => (value.trim().parse::<u32>().map_err(|_| bad())?, None),
    };
    if rate == 0 {
        return Ok(None);
    }
    let burst = burst.unwrap_or(rate.saturating_mul(2));
    if burst == 0 {
        return Err(bad());
    }
    Ok(Some((rate, burst)))
}

fn quota((rate, burst): (u32, u32)) -> Quota {
    Quota::per_second(NonZeroU32::new(rate).expect("rate > 0")).allow_burst(NonZeroU32::new(burst).expect("burst > 0"))
}

impl Limits {
    /// The limiters for `rates` (read from the environment by [`crate::config::Config`]).
    pub fn from_rates(rates: &Rates) -> Limits {
        Limits::new(rates.per_token, rates.per_address)
    }

    /// Limits with these (rate, burst) pairs; `None` is off.
    pub fn new(per_token: Option<(u32, u32)>, per_address: Option<(u32, u32)>) -> Limits {
        Limits {
            per_token: per_token.map(|q| RateLimiter::keyed(quota(q))),
            per_address: per_address.map(|q| RateLimiter::keyed(quota(q))),
            clock: DefaultClock::default(),
        }
    }

    /// Checks one request: its bearer token (if any) against the per-token limit, then its
    /// address. `Err(wait)`: refused, retry after `wait`.
    pub fn check(&self, token: Option<&str>, addr: Option<IpAddr>) -> Result<(), Duration> {
        if let (Some(l), Some(t)) = (&self.per_token, token) {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            t.hash(&mut h);
            l.check_key(&h.finish()).map_err(|n| n.wait_time_from(self.clock.now()))?;
        }
        if let (Some(l), Some(a)) = (&self.per_address, addr) {
            l.check_key(&a).map_err(|n| n.wait_time_from(self.clock.now()))?;
        }
        Ok(())
    }

    /// Forgets keys that have been idle long enough to be back at a full burst.
    pub fn forget_idle(&self) {
        if let Some(l) = &self.per_token {
            l.retain_recent();
            l.shrink_to_fit();
        }
        if let Some(l) = &self.per_address {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse() {
        assert_eq!(parse("X", "10"), Ok(Some((10, 20))));
        assert_eq!(parse("X", "10/3"), Ok(Some((10, 3))));
        assert_eq!(parse("X", "0"), Ok(None));
        assert!(parse("X", "ten").unwrap_err().contains("X is RATE"));
        assert!(parse("X", "5/0").is_err());
    }

    /// The per-token limit refuses a token's burst overflow while another token and
    /// the shared address still pass; the per-address limit catches many tokens from one address.
    #[test]
    fn tokens_first_then_addresses() {
        let l = Limits::new(Some((1, 3)), Some((1, 5)));
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        for _ in 0..3 {
            assert!(l.check(Some("t1"), Some(a)).is_ok());
        }
        let wait = l.check(Some("t1"), Some(a)).unwrap_err();
        assert!(wait > Duration::ZERO && wait <= Duration::from_secs(1));
        assert!(l.check(Some("t2"), Some(a)).is_ok());
        assert!(l.check(Some("t3"), Some(a)).is_ok());
        assert!(l.check(Some("t5"), Some(a)).is_err(), "the address has spent its burst of 5");
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(l.check(Some("t4"), Some(b)).is_ok(), "another address is unaffected");
        let off = Limits::new(None, None);
        for _ in 0..1000 {
            assert!(off.check(Some("t"), Some(a)).is_ok());
        }
    }
}
