//! Budgets and quotas shared by every connection (docs/SECURITY.md §1):
//! the global receive budget, per-principal byte rates, topics and group
//! offsets per principal, creations per source address (`creation`),
//! claims per principal and per source address (`rate`), and connections
//! per principal and per source address.
//!
//! Everything here is in memory for one broker run. The maps are behind std
//! mutexes: each is held for a few map operations, never across an
//! `.await`. Permits are RAII guards, so a connection gives back what it holds
//! on every close path, including a panic unwinding its task.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};
use tokio::time::Instant;

use super::creation::{CreationRate, source_of};
use super::options::QuotaOptions;
use super::rate::{RateBuckets, Spent, take_both};
use crate::auth::Principal;
use crate::engine::Limit;

/// Token buckets are pruned once the map holds this many: keys are free to
/// make, so the map must not grow with every principal ever seen.
const PRUNE_AT: usize = 4096;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The maps stay consistent across a panic (every update is one map
    // operation), so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What asking the receive budget for a frame's bytes gave.
pub(crate) enum Admission {
    /// Reserved: the permit gives the bytes back when dropped.
    Admitted(OwnedSemaphorePermit),
    /// Not now: the connection stops reading and waits for this.
    Wait(u32),
    /// Larger than the whole budget: it could never be admitted.
    TooLarge,
}

/// The quotas of one server.
pub(crate) struct Quotas {
    /// `receive_budget_bytes` as permits (one per byte), shared by every
    /// connection. A semaphore, so waiters are served in order and a large
    /// frame is not starved by a stream of small ones.
    budget: Arc<Semaphore>,
    budget_bytes: u64,
    produce: Option<Rate>,
    fetch: Option<Rate>,
    max_topics: u32,
    /// Topics created by each caller (`None`: anonymous), and who created
    /// each topic (so a deletion gives the permit back).
    topics: Mutex<TopicCounts>,
    max_group_offsets: u32,
    /// Group offsets (a group's position in one partition) created by each
    /// caller (`None`: anonymous) this run.
    group_offsets: Mutex<HashMap<Option<Principal>, u32>>,
    /// `creations_per_minute_per_address`; `None`: unlimited.
    creations: Option<CreationRate>,
    /// `claims_per_minute_per_principal` (`None` key: every anonymous
    /// caller, together); `None`: unlimited.
    claims_by_principal: Option<RateBuckets<Option<Principal>>>,
    /// `claims_per_minute_per_address`, by source address; `None`: unlimited.
    claims_by_address: Option<RateBuckets<IpAddr>>,
    per_principal: Arc<Counter<Principal>>,
    per_address: Arc<Counter<IpAddr>>,
    /// Answers delayed per caller (`None`: anonymous), `[produce, fetch]`,
    /// for the metrics. Bounded like the buckets: past [`PRUNE_AT`] callers
    /// the half with the fewest is forgotten.
    throttled: Mutex<HashMap<Option<Principal>, [u64; 2]>>,
}

/// Which claim rate refused a claim (as a number: its index in
/// [`Metrics::claims_refused`](super::Metrics::claims_refused)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClaimLimit {
    /// `claims_per_minute_per_principal`.
    PerPrincipal = 0,
    /// `claims_per_minute_per_address`.
    PerAddress = 1,
}

impl ClaimLimit {
    /// Its configuration key.
    pub(crate) const fn key(self) -> &'static str {
        match self {
            ClaimLimit::PerPrincipal => "claims_per_minute_per_principal",
            ClaimLimit::PerAddress => "claims_per_minute_per_address",
        }
    }
}

/// A claim refused by a claim rate: which, its rate, and how long until
/// both rates have a claim again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClaimRefusal {
    pub(crate) limit: ClaimLimit,
    pub(crate) per_minute: u64,
    pub(crate) wait: Duration,
}

/// Which byte rate delayed an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// `produce_bytes_per_sec`.
    Produce = 0,
    /// `fetch_bytes_per_sec`.
    Fetch = 1,
}

#[derive(Default)]
struct TopicCounts {
    by_caller: HashMap<Option<Principal>, u32>,
    creator: HashMap<String, Option<Principal>>,
}

impl Quotas {
    pub(crate) fn new(c: &QuotaOptions) -> Quotas {
        let budget_bytes = c.receive_budget_bytes.min(Semaphore::MAX_PERMITS as u64);
        let rate = |l: Limit| match l {
            Limit::Unlimited => None,
            Limit::Max(n) => Some(Rate::new(n)),
        };
        Quotas {
            budget: Arc::new(Semaphore::new(budget_bytes as usize)),
            budget_bytes,
            produce: rate(c.produce_bytes_per_sec),
            fetch: rate(c.fetch_bytes_per_sec),
            max_topics: c.max_topics_per_principal,
            topics: Mutex::new(TopicCounts::default()),
            max_group_offsets: c.max_group_offsets_per_principal,
            group_offsets: Mutex::new(HashMap::new()),
            creations: match c.creations_per_minute_per_address {
                Limit::Unlimited => None,
                Limit::Max(n) => Some(CreationRate::new(n)),
            },
            claims_by_principal: counted(c.claims_per_minute_per_principal),
            claims_by_address: counted(c.claims_per_minute_per_address),
            per_principal: Arc::new(Counter::new(c.max_connections_per_principal)),
            per_address: Arc::new(Counter::new(c.max_connections_per_address)),
            throttled: Mutex::new(HashMap::new()),
        }
    }

    /// Count one answer of `who` delayed by the `direction` rate.
    pub(crate) fn note_throttled(&self, who: Option<Principal>, direction: Direction) {
        let mut map = lock(&self.throttled);
        if map.len() >= PRUNE_AT && !map.contains_key(&who) {
            let mut totals: Vec<u64> = map.values().map(|[p, f]| p + f).collect();
            let mid = totals.len() / 2;
            let (_, &mut cut, _) = totals.select_nth_unstable(mid);
            map.retain(|_, [p, f]| *p + *f > cut);
        }
        map.entry(who).or_default()[direction as usize] += 1;
    }

    /// The `n` callers with the most delayed answers: `(who, [produce, fetch])`.
    pub(crate) fn most_throttled(&self, n: usize) -> Vec<(Option<Principal>, [u64; 2])> {
        let mut all: Vec<_> = lock(&self.throttled)
            .iter()
            .map(|(w, c)| (*w, *c))
            .collect();
        all.sort_by_key(|(_, [p, f])| std::cmp::Reverse(p + f));
        all.truncate(n);
        all
    }

    /// Reserve `bytes` of the receive budget for a frame being received.
    pub(crate) fn admit(&self, bytes: usize) -> Admission {
        let Ok(n) = u32::try_from(bytes) else {
            return Admission::TooLarge;
        };
        if u64::from(n) > self.budget_bytes {
            return Admission::TooLarge;
        }
        match self.budget.clone().try_acquire_many_owned(n) {
            Ok(p) => Admission::Admitted(p),
            Err(TryAcquireError::NoPermits) => Admission::Wait(n),
            // Never closed; treated like a frame that can never fit.
            Err(TryAcquireError::Closed) => Admission::TooLarge,
        }
    }

    /// Wait for `bytes` of the receive budget (after [`Admission::Wait`]).
    pub(crate) fn admit_later(
        &self,
        bytes: u32,
    ) -> impl Future<Output = Option<OwnedSemaphorePermit>> + Send + use<> {
        let budget = self.budget.clone();
        async move { budget.acquire_many_owned(bytes).await.ok() }
    }

    /// Bytes of the receive budget currently free.
    #[cfg(test)]
    pub(crate) fn budget_free(&self) -> usize {
        self.budget.available_permits()
    }

    /// Charge `bytes` produced by `who`; how long its answer must wait for
    /// the bucket to pay the debt back (zero when within the rate).
    pub(crate) fn charge_produce(&self, who: Option<Principal>, bytes: u64) -> Duration {
        self.produce
            .as_ref()
            .map_or(Duration::ZERO, |r| r.charge(who, bytes, Instant::now()))
    }

    /// How long `who`'s next fetch answer must wait (its bucket's debt).
    pub(crate) fn fetch_delay(&self, who: Option<Principal>) -> Duration {
        self.fetch
            .as_ref()
            .map_or(Duration::ZERO, |r| r.charge(who, 0, Instant::now()))
    }

    /// Charge `bytes` sent to `who` by a fetch answer.
    pub(crate) fn charge_fetch(&self, who: Option<Principal>, bytes: u64) {
        if let Some(r) = &self.fetch {
            r.charge(who, bytes, Instant::now());
        }
    }

    /// Take one of `who`'s topic permits for a creation about to happen;
    /// `None` when it has created `max_topics_per_principal` already.
    pub(crate) fn topic_permit(self: &Arc<Self>, who: Option<Principal>) -> Option<TopicPermit> {
        let mut t = lock(&self.topics);
        let n = t.by_caller.entry(who).or_insert(0);
        if *n >= self.max_topics {
            return None;
        }
        *n += 1;
        Some(TopicPermit {
            quotas: self.clone(),
            who,
            kept: false,
        })
    }

    /// `max_topics_per_principal`, for messages.
    pub(crate) fn max_topics(&self) -> u32 {
        self.max_topics
    }

    /// A topic was deleted: its creator (if this run saw it) gets the permit back.
    pub(crate) fn topic_deleted(&self, name: &str) {
        let mut t = lock(&self.topics);
        if let Some(who) = t.creator.remove(name) {
            release_topic(&mut t.by_caller, who);
        }
    }

    /// One of `p`'s `max_connections_per_principal` permits, or `None` at the cap.
    pub(crate) fn principal_permit(&self, p: Principal) -> Option<Permit<Principal>> {
        Counter::take(&self.per_principal, p)
    }

    /// One of the `max_connections_per_address` permits of `ip`'s source
    /// (an IPv6 /64 is one), or `None` at the cap.
    pub(crate) fn address_permit(&self, ip: IpAddr) -> Option<Permit<IpAddr>> {
        Counter::take(&self.per_address, source_of(ip))
    }

    /// Take one creation from the `creations_per_minute_per_address` of
    /// `ip`'s source: `Err((per_minute, wait))` when it has none left.
    pub(crate) fn take_creation(&self, ip: IpAddr) -> Result<(), (u64, Duration)> {
        match &self.creations {
            None => Ok(()),
            Some(r) => r
                .take(ip, Instant::now())
                .map_err(|wait| (r.per_minute(), wait)),
        }
    }

    /// Take one claim from `who`'s `claims_per_minute_per_principal` and
    /// one from the `claims_per_minute_per_address` of `ip`'s source — or
    /// neither, when either has none left: then which refused, and how
    /// long until both have one.
    pub(crate) fn take_claim(
        &self,
        who: Option<Principal>,
        ip: IpAddr,
    ) -> Result<(), ClaimRefusal> {
        let by_principal = self.claims_by_principal.as_ref().map(|r| (r, who));
        let by_address = self.claims_by_address.as_ref().map(|r| (r, source_of(ip)));
        take_both(by_principal, by_address, Instant::now()).map_err(|spent| {
            let (limit, wait, per_minute) = match spent {
                Spent::First(w) => (
                    ClaimLimit::PerPrincipal,
                    w,
                    by_principal.map(|(r, _)| r.per_minute()),
                ),
                Spent::Second(w) => (
                    ClaimLimit::PerAddress,
                    w,
                    by_address.map(|(r, _)| r.per_minute()),
                ),
            };
            ClaimRefusal {
                limit,
                // A rate that refused exists.
                per_minute: per_minute.unwrap_or(0),
                wait,
            }
        })
    }

    /// Count one group offset created by `who`; `false` (nothing counted)
    /// when it has created `max_group_offsets_per_principal` already.
    pub(crate) fn take_group_offset(&self, who: Option<Principal>) -> bool {
        let mut held = lock(&self.group_offsets);
        let n = held.entry(who).or_insert(0);
        if *n >= self.max_group_offsets {
            return false;
        }
        *n += 1;
        true
    }

    /// `max_group_offsets_per_principal`, for messages.
    pub(crate) fn max_group_offsets(&self) -> u32 {
        self.max_group_offsets
    }
}

/// A counted rate of `limit` per minute, or none when unlimited.
fn counted<K: Hash + Eq + Copy>(limit: Limit) -> Option<RateBuckets<K>> {
    match limit {
        Limit::Unlimited => None,
        Limit::Max(n) => Some(RateBuckets::new(n)),
    }
}

fn release_topic(by_caller: &mut HashMap<Option<Principal>, u32>, who: Option<Principal>) {
    if let Entry::Occupied(mut e) = by_caller.entry(who) {
        *e.get_mut() = e.get().saturating_sub(1);
        if *e.get() == 0 {
            e.remove();
        }
    }
}

/// A topic permit taken by [`Quotas::topic_permit`]: given back when dropped
/// unless [`TopicPermit::keep`] recorded the topic it was used for.
pub(crate) struct TopicPermit {
    quotas: Arc<Quotas>,
    who: Option<Principal>,
    kept: bool,
}

impl TopicPermit {
    /// The topic `name` now exists, created by this permit's caller. If this
    /// run already counted it (created concurrently by another request),
    /// the permit is given back instead of counting it twice.
    pub(crate) fn keep(mut self, name: &str) {
        let mut t = lock(&self.quotas.topics);
        if let Entry::Vacant(e) = t.creator.entry(name.to_owned()) {
            e.insert(self.who);
            self.kept = true;
        }
    }
}

impl Drop for TopicPermit {
    fn drop(&mut self) {
        if !self.kept {
            release_topic(&mut lock(&self.quotas.topics).by_caller, self.who);
        }
    }
}

/// Counts held per key, capped.
struct Counter<K> {
    max: u32,
    held: Mutex<HashMap<K, u32>>,
}

impl<K: Hash + Eq + Copy> Counter<K> {
    fn new(max: u32) -> Self {
        Counter {
            max,
            held: Mutex::new(HashMap::new()),
        }
    }

    fn take(this: &Arc<Self>, key: K) -> Option<Permit<K>> {
        let mut held = lock(&this.held);
        let n = held.entry(key).or_insert(0);
        if *n >= this.max {
            return None;
        }
        *n += 1;
        Some(Permit {
            counter: this.clone(),
            key,
        })
    }
}

/// One counted connection of a principal or an address; given back when dropped.
pub(crate) struct Permit<K: Hash + Eq + Copy> {
    counter: Arc<Counter<K>>,
    key: K,
}

impl<K: Hash + Eq + Copy> Drop for Permit<K> {
    fn drop(&mut self) {
        let mut held = lock(&self.counter.held);
        if let Entry::Occupied(mut e) = held.entry(self.key) {
            *e.get_mut() -= 1;
            if *e.get() == 0 {
                e.remove();
            }
        }
    }
}

/// A byte rate with one token bucket per caller (`None`: every anonymous
/// caller, together). The bucket holds at most one second of the rate and
/// may go into debt: a charge is never refused, its answer is delayed until
/// the debt is paid back, so what was accepted is never dropped.
struct Rate {
    /// Bytes per second.
    rate: f64,
    buckets: Mutex<HashMap<Option<Principal>, Bucket>>,
}

#[derive(Clone, Copy)]
struct Bucket {
    /// Bytes that may pass now; negative is debt.
    tokens: f64,
    at: Instant,
}

impl Rate {
    fn new(bytes_per_sec: u64) -> Rate {
        Rate {
            rate: bytes_per_sec as f64,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Take `bytes` from `who`'s bucket at `now`; the time until its debt
    /// (if any) is paid.
    fn charge(&self, who: Option<Principal>, bytes: u64, now: Instant) -> Duration {
        let burst = self.rate;
        let mut buckets = lock(&self.buckets);
        if buckets.len() >= PRUNE_AT && !buckets.contains_key(&who) {
            // A full bucket is the same as no bucket: forget those.
            let rate = self.rate;
            buckets.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate < burst
            });
        }
        let b = buckets.entry(who).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        let refill = now.saturating_duration_since(b.at).as_secs_f64() * self.rate;
        b.tokens = (b.tokens + refill).min(burst) - bytes as f64;
        b.at = now;
        if b.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-b.tokens / self.rate)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(b: u8) -> Option<Principal> {
        Some(Principal::from_bytes([b; 32]))
    }

    #[test]
    fn a_bucket_allows_one_second_then_delays_by_the_debt() {
        let r = Rate::new(1000);
        let t = Instant::now();
        assert_eq!(r.charge(p(1), 1000, t), Duration::ZERO);
        assert_eq!(r.charge(p(1), 500, t), Duration::from_millis(500));
        // Another caller has its own bucket.
        assert_eq!(r.charge(p(2), 1000, t), Duration::ZERO);
        // Half a second later the debt is paid; a new charge starts a new one.
        let later = t + Duration::from_millis(500);
        assert_eq!(r.charge(p(1), 0, later), Duration::ZERO);
        assert_eq!(r.charge(p(1), 250, later), Duration::from_millis(250));
        // Anonymous callers share one bucket.
        assert_eq!(r.charge(None, 1000, t), Duration::ZERO);
        assert_eq!(r.charge(None, 1000, t), Duration::from_secs(1));
    }

    #[test]
    fn the_bucket_map_is_pruned_of_full_buckets() {
        let r = Rate::new(10);
        let t = Instant::now();
        for i in 0..PRUNE_AT as u32 {
            let mut b = [0u8; 32];
            b[..4].copy_from_slice(&i.to_be_bytes());
            r.charge(Some(Principal::from_bytes(b)), 1, t);
        }
        r.charge(p(0xff), 1, t + Duration::from_secs(1));
        assert_eq!(lock(&r.buckets).len(), 1);
    }

    fn quotas(tweak: impl FnOnce(&mut crate::config::Config)) -> Arc<Quotas> {
        let mut c = crate::config::Config::default();
        tweak(&mut c);
        Arc::new(Quotas::new(&c.server_options().quotas))
    }

    #[test]
    fn permits_are_capped_and_given_back() {
        let q = quotas(|c| {
            c.max_connections_per_address = 2;
            c.max_topics_per_principal = 1;
        });
        let ip: IpAddr = [127, 0, 0, 1].into();
        let a = q.address_permit(ip).unwrap();
        let _b = q.address_permit(ip).unwrap();
        assert!(q.address_permit(ip).is_none());
        assert!(q.address_permit([127, 0, 0, 2].into()).is_some());
        drop(a);
        assert!(q.address_permit(ip).is_some());
        // An IPv6 /64 is one address: hopping within it gains nothing.
        let v6 = |s: &str| s.parse::<IpAddr>().unwrap();
        let _c = q.address_permit(v6("2001:db8::1")).unwrap();
        let _d = q.address_permit(v6("2001:db8::2:3")).unwrap();
        assert!(
            q.address_permit(v6("2001:db8::ffff:ffff:ffff:ffff"))
                .is_none()
        );
        assert!(q.address_permit(v6("2001:db8:0:1::1")).is_some());

        // A permit not kept is given back; a kept one until the topic is deleted.
        drop(q.topic_permit(p(1)).unwrap());
        q.topic_permit(p(1)).unwrap().keep("t");
        assert!(q.topic_permit(p(1)).is_none());
        assert!(q.topic_permit(None).is_some());
        q.topic_deleted("t");
        let s = q.topic_permit(p(1)).unwrap();
        // Counted once even if two requests raced to create it.
        q.topic_permit(None).unwrap().keep("u");
        s.keep("u");
        assert!(q.topic_permit(p(1)).is_some());
    }

    #[test]
    fn a_claim_takes_from_both_rates_or_neither() {
        let q = quotas(|c| {
            c.claims_per_minute_per_principal = Limit::Max(2);
            c.claims_per_minute_per_address = Limit::Max(3);
        });
        let ip: IpAddr = [192, 0, 2, 1].into();
        q.take_claim(p(1), ip).unwrap();
        q.take_claim(p(1), ip).unwrap();
        let r = q.take_claim(p(1), ip).unwrap_err();
        assert_eq!((r.limit, r.per_minute), (ClaimLimit::PerPrincipal, 2));
        // One claim every 30 s (the clock ran a little since the first).
        assert!(r.wait > Duration::from_secs(29) && r.wait <= Duration::from_secs(30));
        // The principal's refusal took nothing from the address: another
        // key gets its third claim, then the address is spent whatever
        // the key (a thousand free keys gain nothing).
        q.take_claim(p(2), ip).unwrap();
        let r = q.take_claim(p(3), ip).unwrap_err();
        assert_eq!((r.limit, r.per_minute), (ClaimLimit::PerAddress, 3));
        q.take_claim(p(3), [192, 0, 2, 2].into()).unwrap();
        // An IPv6 /64 is one address.
        let v6 = |s: &str| s.parse::<IpAddr>().unwrap();
        for (i, a) in ["2001:db8::1", "2001:db8::2", "2001:db8::ffff:3"]
            .into_iter()
            .enumerate()
        {
            q.take_claim(p(10 + i as u8), v6(a)).unwrap();
        }
        let r = q.take_claim(p(20), v6("2001:db8::4")).unwrap_err();
        assert_eq!(r.limit, ClaimLimit::PerAddress);
        // Anonymous callers share one principal's rate.
        q.take_claim(None, [10, 0, 0, 1].into()).unwrap();
        q.take_claim(None, [10, 0, 0, 2].into()).unwrap();
        let r = q.take_claim(None, [10, 0, 0, 3].into()).unwrap_err();
        assert_eq!(r.limit, ClaimLimit::PerPrincipal);
        // Unlimited is no rate.
        let q = quotas(|c| {
            c.claims_per_minute_per_principal = Limit::Unlimited;
            c.claims_per_minute_per_address = Limit::Unlimited;
        });
        for _ in 0..1000 {
            q.take_claim(p(1), ip).unwrap();
        }
    }

    #[test]
    fn the_receive_budget_admits_until_full_and_refuses_what_never_fits() {
        let q = quotas(|c| c.receive_budget_bytes = 100);
        let Admission::Admitted(a) = q.admit(60) else {
            panic!("60 of 100 fit")
        };
        assert!(matches!(q.admit(60), Admission::Wait(60)));
        assert!(matches!(q.admit(101), Admission::TooLarge));
        drop(a);
        assert_eq!(q.budget_free(), 100);
    }
}
