//! The broker's own measurements, kept where they happen at the cost of a
//! relaxed atomic add, and read when `/metrics` is scraped
//! ([`crate::admin`]).
//!
//! Nothing here holds a name, a key or a byte of a payload: counters and
//! histograms of numbers. Which topics, groups and principals are shown as
//! labels is decided at scrape time (the cardinality guard, in `admin`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Bucket bounds of latency histograms, in nanoseconds: 50 µs to 10 s.
pub const LATENCY_NS: &[u64] = &[
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    10_000_000_000,
];

/// Bucket bounds of size histograms (e.g. partitions per group commit).
pub const SIZES: &[u64] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096, 16384];

/// A histogram with fixed buckets, updated with atomics only (no lock on
/// the paths it measures).
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [u64],
    /// One count per bound, then the `+Inf` bucket.
    counts: Box<[AtomicU64]>,
    sum: AtomicU64,
    /// What one unit of an observed value is in the exposed unit (1e-9 to
    /// expose nanoseconds as seconds).
    scale: f64,
}

impl Default for Histogram {
    /// A latency histogram ([`Histogram::latency`]).
    fn default() -> Self {
        Histogram::latency()
    }
}

/// What a histogram held when it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramSnapshot {
    /// The sum of the observations, in the exposed unit.
    pub sum: f64,
    /// The number of observations.
    pub count: u64,
    /// `(upper bound, observations in that bucket)`, not cumulative, the
    /// last bound `+Inf`.
    pub buckets: Vec<(f64, u64)>,
}

impl Histogram {
    /// Latencies, observed in nanoseconds, exposed in seconds.
    pub fn latency() -> Histogram {
        Histogram::new(LATENCY_NS, 1e-9)
    }

    /// Sizes (counts of things), exposed as they are.
    pub fn sizes() -> Histogram {
        Histogram::new(SIZES, 1.0)
    }

    /// A histogram over `bounds` (increasing), exposing values times `scale`.
    pub fn new(bounds: &'static [u64], scale: f64) -> Histogram {
        Histogram {
            bounds,
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum: AtomicU64::new(0),
            scale,
        }
    }

    /// Count one observation of `v`.
    pub fn observe(&self, v: u64) {
        let i = self.bounds.partition_point(|&b| b < v);
        self.counts[i].fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(v, Ordering::Relaxed);
    }

    /// Count a duration, in nanoseconds.
    pub fn observe_duration(&self, d: std::time::Duration) {
        self.observe(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Count the time since `start`, in nanoseconds.
    pub fn observe_since(&self, start: Instant) {
        self.observe(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
    }

    /// Read it (each bucket once; the count is the sum of the buckets read).
    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut buckets = Vec::with_capacity(self.counts.len());
        let mut count = 0;
        for (i, c) in self.counts.iter().enumerate() {
            let n = c.load(Ordering::Relaxed);
            count += n;
            let bound = self
                .bounds
                .get(i)
                .map_or(f64::INFINITY, |&b| b as f64 * self.scale);
            buckets.push((bound, n));
        }
        HistogramSnapshot {
            sum: self.sum.load(Ordering::Relaxed) as f64 * self.scale,
            count,
            buckets,
        }
    }
}

/// Traffic of one partition since the broker started. Kept by its topic
/// (not by the open partition), so a partition the cache closes and opens
/// again keeps counting from where it was.
#[derive(Debug, Default)]
pub struct PartitionStats {
    /// Records appended.
    pub records_in: AtomicU64,
    /// Bytes of record batches appended.
    pub bytes_in: AtomicU64,
    /// Offsets served by fetches (records, and compaction's holes among them).
    pub records_out: AtomicU64,
    /// Bytes of record batches served by fetches.
    pub bytes_out: AtomicU64,
    /// `bytes_in + bytes_out` when the busiest topics were last chosen
    /// (touched by that choice only).
    pub(crate) ranked: AtomicU64,
}

impl PartitionStats {
    /// Count an append of `records` records in `bytes` bytes.
    pub fn appended(&self, records: u64, bytes: u64) {
        self.records_in.fetch_add(records, Ordering::Relaxed);
        self.bytes_in.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Count a fetch answer of `offsets` offsets in `bytes` bytes.
    pub fn served(&self, offsets: u64, bytes: u64) {
        self.records_out.fetch_add(offsets, Ordering::Relaxed);
        self.bytes_out.fetch_add(bytes, Ordering::Relaxed);
    }

    /// `[records_in, bytes_in, records_out, bytes_out]`.
    pub fn totals(&self) -> [u64; 4] {
        [
            self.records_in.load(Ordering::Relaxed),
            self.bytes_in.load(Ordering::Relaxed),
            self.records_out.load(Ordering::Relaxed),
            self.bytes_out.load(Ordering::Relaxed),
        ]
    }

    /// Add what every partition of `stats` counted (a deleted topic's).
    pub fn add_all<'a>(&self, stats: impl IntoIterator<Item = &'a PartitionStats>) {
        for s in stats {
            let [ri, bi, ro, bo] = s.totals();
            self.appended(ri, bi);
            self.served(ro, bo);
        }
    }

    /// Bytes in and out so far.
    pub fn traffic(&self) -> u64 {
        self.bytes_in
            .load(Ordering::Relaxed)
            .saturating_add(self.bytes_out.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_first_bucket_that_holds_them() {
        let h = Histogram::new(&[10, 100], 1.0);
        for v in [0, 10, 11, 100, 101, 5000] {
            h.observe(v);
        }
        let s = h.snapshot();
        assert_eq!(
            s.buckets,
            vec![(10.0, 2), (100.0, 2), (f64::INFINITY, 2)],
            "le=10 holds 0 and 10; le=100 holds 11 and 100"
        );
        assert_eq!(s.count, 6);
        assert_eq!(s.sum, 5222.0);
    }

    #[test]
    fn latencies_are_exposed_in_seconds() {
        let h = Histogram::latency();
        h.observe(1_500_000);
        let s = h.snapshot();
        assert!((s.sum - 0.0015).abs() < 1e-12);
        let (bound, n) = s.buckets.iter().find(|(_, n)| *n == 1).copied().unwrap();
        assert!((bound - 0.0025).abs() < 1e-12, "{bound}");
        assert_eq!(n, 1);
    }
}
