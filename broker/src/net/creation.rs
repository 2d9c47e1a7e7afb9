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

use std::net::IpAddr;
use std::time::Duration;

use tokio::time::Instant;

use super::rate::RateBuckets;

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
/// one every `60 / per_minute` seconds (see `net::rate`).
#[derive(Debug)]
pub(crate) struct CreationRate(RateBuckets<IpAddr>);

impl CreationRate {
    /// `per_minute` creations per source address (at least 1).
    pub(crate) fn new(per_minute: u64) -> CreationRate {
        CreationRate(RateBuckets::new(per_minute))
    }

    /// The creations per minute allowed, for messages.
    pub(crate) fn per_minute(&self) -> u64 {
        self.0.per_minute()
    }

    /// Take one creation for `ip`'s source at `now`: `Err` with the time
    /// until one is allowed again when its bucket is empty (nothing taken).
    pub(crate) fn take(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        self.0.take(source_of(ip), now)
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
}
