//! What one source address may create per minute
//! (`creations_per_minute_per_address`): topics (created or auto-created)
//! and consumer-group offsets a group commits for the first time. Keys cost
//! nothing to make, so the lifetime quotas per principal
//! (`max_topics_per_principal`, `max_group_offsets_per_principal`) alone
//! would let one machine with fresh keys create without end; this rate is
//! per machine instead.
//!
//! "One address" is an IPv4 address, or an IPv6 /64 (what one host or
//! subscriber is usually given, and can hop within at will): see
//! [`source_of`].

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// The address buckets are pruned once the map holds this many: of full
/// ones (a full bucket is the same as none), then, if more than half remain
/// (that many sources creating at once), of the fuller half. So the map
/// stays under this, and pruning costs O(1) per new source, amortized.
const PRUNE_AT: usize = 4096;

/// The source an address counts as: an IPv4 address as is (an IPv4-mapped
/// IPv6 address as its IPv4 address), an IPv6 address as its /64.
pub(crate) fn source_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

/// A token bucket per source address: `per_minute` creations at once, then
/// one every `60 / per_minute` seconds.
#[derive(Debug)]
pub(crate) struct CreationRate {
    per_minute: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl CreationRate {
    /// `per_minute` creations per source address (at least 1).
    pub(crate) fn new(per_minute: u64) -> CreationRate {
        CreationRate {
            per_minute: per_minute.max(1) as f64,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The creations per minute allowed, for messages.
    pub(crate) fn per_minute(&self) -> u64 {
        self.per_minute as u64
    }

    /// Take one creation for `ip`'s source at `now`: `Err` with the time
    /// until one is allowed again when its bucket is empty (nothing taken).
    pub(crate) fn take(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        let source = source_of(ip);
        let per_sec = self.per_minute / 60.0;
        let full = self.per_minute;
        let tokens_at = |b: &Bucket| {
            (b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * per_sec).min(full)
        };
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= PRUNE_AT && !buckets.contains_key(&source) {
            buckets.retain(|_, b| tokens_at(b) < full);
            if buckets.len() > PRUNE_AT / 2 {
                let mut levels: Vec<f64> = buckets.values().map(tokens_at).collect();
                levels.sort_by(f64::total_cmp);
                let median = levels[levels.len() / 2];
                buckets.retain(|_, b| tokens_at(b) < median);
            }
        }
        let b = buckets.entry(source).or_insert(Bucket {
            tokens: full,
            at: now,
        });
        let tokens = tokens_at(b);
        if tokens < 1.0 {
            return Err(Duration::from_secs_f64((1.0 - tokens) / per_sec));
        }
        *b = Bucket {
            tokens: tokens - 1.0,
            at: now,
        };
        Ok(())
    }

    #[cfg(test)]
    fn sources(&self) -> usize {
        self.buckets.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_ipv6_64_is_one_source_and_a_mapped_ipv4_its_address() {
        assert_eq!(source_of(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(
            source_of(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")),
            ip("2001:db8:1:2::")
        );
        assert_ne!(source_of(ip("2001:db8:1:3::1")), ip("2001:db8:1:2::"));
        assert_eq!(source_of(ip("::ffff:192.0.2.7")), ip("192.0.2.7"));
        assert_eq!(source_of(ip("192.0.2.7")), ip("192.0.2.7"));
    }

    #[test]
    fn a_source_gets_its_burst_then_one_per_interval() {
        let r = CreationRate::new(60);
        let t = Instant::now();
        for i in 0..60 {
            r.take(ip("2001:db8::1"), t)
                .unwrap_or_else(|_| panic!("{i}"));
        }
        // Another address of the same /64: the same bucket.
        let wait = r.take(ip("2001:db8::ffff:2"), t).unwrap_err();
        assert_eq!(wait, Duration::from_secs(1));
        // Another /64, or an IPv4 address: their own.
        r.take(ip("2001:db8:0:1::1"), t).unwrap();
        r.take(ip("192.0.2.1"), t).unwrap();
        // A second later, one more; not two.
        let later = t + Duration::from_secs(1);
        r.take(ip("2001:db8::1"), later).unwrap();
        assert!(r.take(ip("2001:db8::1"), later).is_err());
    }

    #[test]
    fn the_map_stays_bounded_whatever_the_number_of_sources() {
        let r = CreationRate::new(1);
        let t = Instant::now();
        for i in 0..(10 * PRUNE_AT) as u32 {
            let a = IpAddr::V4(i.into());
            r.take(a, t).unwrap();
            assert!(r.sources() <= PRUNE_AT, "{} sources", r.sources());
        }
        // Once full again, the buckets are forgotten.
        let mut next = 0x0a00_0000u32;
        while r.sources() < PRUNE_AT {
            r.take(IpAddr::V4(next.into()), t).unwrap();
            next += 1;
        }
        r.take(ip("192.0.2.1"), t + Duration::from_secs(3600))
            .unwrap();
        assert_eq!(r.sources(), 1);
    }
}
