//! Counted rates: a token bucket per key — a source address, a principal —
//! holding `per_minute` tokens at most and refilled at that rate. What a
//! rate counts (creations, claims) takes one token each; an empty bucket
//! refuses, and says how long until it holds one again.
//!
//! Keys cost a client nothing to make (a fresh key, another address of its
//! IPv6 /64), so the map of buckets is pruned: a full bucket is the same as
//! none, and past [`PRUNE_AT`] keys the full ones are forgotten, then, if
//! more than half remain, the fuller half. The map stays under
//! [`PRUNE_AT`], and pruning costs O(1) per new key, amortized.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::time::Instant;

/// The map of buckets is pruned once it holds this many keys.
pub(crate) const PRUNE_AT: usize = 4096;

/// A token bucket per key: `per_minute` at once, then one every
/// `60 / per_minute` seconds.
#[derive(Debug)]
pub(crate) struct RateBuckets<K> {
    per_minute: f64,
    /// A std mutex: held for a few map operations, never across an `.await`.
    buckets: Mutex<HashMap<K, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// A [`RateBuckets`] locked: check and take under one lock, so two rates
/// can be taken from together or not at all ([`take_both`]).
pub(crate) struct Held<'a, K> {
    rate: &'a RateBuckets<K>,
    buckets: MutexGuard<'a, HashMap<K, Bucket>>,
}

impl<K: Hash + Eq + Copy> RateBuckets<K> {
    /// `per_minute` tokens per key (at least 1).
    pub(crate) fn new(per_minute: u64) -> RateBuckets<K> {
        RateBuckets {
            per_minute: per_minute.max(1) as f64,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The tokens per minute, for messages.
    pub(crate) fn per_minute(&self) -> u64 {
        self.per_minute as u64
    }

    /// Lock the buckets.
    pub(crate) fn lock(&self) -> Held<'_, K> {
        Held {
            rate: self,
            // The map stays consistent across a panic (every update is one
            // map operation), so a poisoned lock is still usable.
            buckets: self.buckets.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// Take one token of `key` at `now`: `Err` with the time until one is
    /// there again when its bucket is empty (nothing taken).
    pub(crate) fn take(&self, key: K, now: Instant) -> Result<(), Duration> {
        let mut held = self.lock();
        held.check(key, now)?;
        held.take(key, now);
        Ok(())
    }

    fn tokens_at(&self, b: &Bucket, now: Instant) -> f64 {
        let per_sec = self.per_minute / 60.0;
        (b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * per_sec)
            .min(self.per_minute)
    }

    #[cfg(test)]
    pub(crate) fn keys(&self) -> usize {
        self.lock().buckets.len()
    }
}

impl<K: Hash + Eq + Copy> Held<'_, K> {
    /// Whether `key` has a token at `now`: `Err` with the time until it has.
    pub(crate) fn check(&self, key: K, now: Instant) -> Result<(), Duration> {
        let tokens = self
            .buckets
            .get(&key)
            .map_or(self.rate.per_minute, |b| self.rate.tokens_at(b, now));
        if tokens >= 1.0 {
            return Ok(());
        }
        let per_sec = self.rate.per_minute / 60.0;
        Err(Duration::from_secs_f64((1.0 - tokens) / per_sec))
    }

    /// Take one token of `key` at `now` (after [`Held::check`] allowed it).
    pub(crate) fn take(&mut self, key: K, now: Instant) {
        let rate = self.rate;
        let full = rate.per_minute;
        if self.buckets.len() >= PRUNE_AT && !self.buckets.contains_key(&key) {
            self.buckets.retain(|_, b| rate.tokens_at(b, now) < full);
            if self.buckets.len() > PRUNE_AT / 2 {
                let mut levels: Vec<f64> = self
                    .buckets
                    .values()
                    .map(|b| rate.tokens_at(b, now))
                    .collect();
                levels.sort_by(f64::total_cmp);
                let median = levels[levels.len() / 2];
                self.buckets.retain(|_, b| rate.tokens_at(b, now) < median);
            }
        }
        let b = self.buckets.entry(key).or_insert(Bucket {
            tokens: full,
            at: now,
        });
        *b = Bucket {
            tokens: rate.tokens_at(b, now) - 1.0,
            at: now,
        };
    }
}

/// Which of two rates refused, and how long until both have a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spent {
    /// The first had no token (whatever the second had).
    First(Duration),
    /// Only the second had none.
    Second(Duration),
}

/// Take one token of `a`'s key and one of `b`'s, or none: both buckets
/// are locked (always `a` first), both checked, then both taken. A rate
/// that is `None` is unlimited. `Err` names the one that refused — the
/// first when both did — with the time until both have a token.
pub(crate) fn take_both<A: Hash + Eq + Copy, B: Hash + Eq + Copy>(
    a: Option<(&RateBuckets<A>, A)>,
    b: Option<(&RateBuckets<B>, B)>,
    now: Instant,
) -> Result<(), Spent> {
    let mut ha = a.map(|(r, k)| (r.lock(), k));
    let mut hb = b.map(|(r, k)| (r.lock(), k));
    let wa = ha.as_ref().and_then(|(h, k)| h.check(*k, now).err());
    let wb = hb.as_ref().and_then(|(h, k)| h.check(*k, now).err());
    match (wa, wb) {
        (None, None) => {
            if let Some((h, k)) = &mut ha {
                h.take(*k, now);
            }
            if let Some((h, k)) = &mut hb {
                h.take(*k, now);
            }
            Ok(())
        }
        (Some(w), other) => Err(Spent::First(other.map_or(w, |o| w.max(o)))),
        (None, Some(w)) => Err(Spent::Second(w)),
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;

    #[test]
    fn a_key_gets_its_burst_then_one_per_interval() {
        let r = RateBuckets::new(60);
        let t = Instant::now();
        for i in 0..60 {
            r.take(1u32, t).unwrap_or_else(|_| panic!("{i}"));
        }
        assert_eq!(r.take(1, t), Err(Duration::from_secs(1)));
        r.take(2, t).unwrap();
        // A second later, one more; not two.
        let later = t + Duration::from_secs(1);
        r.take(1, later).unwrap();
        assert!(r.take(1, later).is_err());
    }

    #[test]
    fn two_rates_are_taken_from_together_or_not_at_all() {
        let principals = RateBuckets::new(2);
        let addresses = RateBuckets::new(3);
        let t = Instant::now();
        let both = |p: u8, a: u8| take_both(Some((&principals, p)), Some((&addresses, a)), t);
        both(1, 1).unwrap();
        both(1, 1).unwrap();
        // Principal 1 is spent: address 1 keeps its last token.
        assert_eq!(both(1, 1), Err(Spent::First(Duration::from_secs(30))));
        both(2, 1).unwrap();
        // Now address 1 is spent too: principal 2 keeps its token.
        assert_eq!(both(2, 1), Err(Spent::Second(Duration::from_secs(20))));
        both(2, 2).unwrap();
        assert!(both(2, 3).is_err(), "principal 2 spent");
        // Both spent: the first is named, with the longer wait.
        assert_eq!(both(1, 1), Err(Spent::First(Duration::from_secs(30))));
        // An unlimited rate is no rate.
        take_both::<u8, u8>(None, Some((&addresses, 9)), t).unwrap();
        take_both::<u8, u8>(Some((&principals, 9)), None, t).unwrap();
        take_both::<u8, u8>(None, None, t).unwrap();
    }

    #[test]
    fn the_map_stays_bounded_whatever_the_number_of_keys() {
        let r = RateBuckets::new(1);
        let t = Instant::now();
        for i in 0..(10 * PRUNE_AT) as u32 {
            let a = IpAddr::V4(i.into());
            r.take(a, t).unwrap();
            assert!(r.keys() <= PRUNE_AT, "{} keys", r.keys());
        }
        // Once full again, the buckets are forgotten.
        let mut next = 0x0a00_0000u32;
        while r.keys() < PRUNE_AT {
            r.take(IpAddr::V4(next.into()), t).unwrap();
            next += 1;
        }
        r.take(
            IpAddr::V4([192, 0, 2, 1].into()),
            t + Duration::from_secs(3600),
        )
        .unwrap();
        assert_eq!(r.keys(), 1);
    }
}
