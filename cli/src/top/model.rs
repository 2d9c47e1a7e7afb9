//! From samples to what `hermit top` shows: one scrape's values
//! ([`Snapshot`]), the rates and histogram deltas between two scrapes
//! ([`View`]), and quantiles from cumulative buckets.
//!
//! Every metric may be missing (an older or newer broker, a guard that left
//! a series out): a missing value is `None` and shows as "–".

use std::collections::BTreeMap;

use super::expo::Sample;

/// The metric names read, as the broker's `/metrics` spells them
/// (docs/OPERATIONS.md, "hermit top").
pub mod names {
    /// Counter, labels `topic`, `partition`: records appended.
    pub const PARTITION_RECORDS_IN: &str = "hermit_partition_records_in_total";
    /// Counter, labels `topic`, `partition`: record bytes appended.
    pub const PARTITION_BYTES_IN: &str = "hermit_partition_bytes_in_total";
    /// Counter, labels `topic`, `partition`: records fetched.
    pub const PARTITION_RECORDS_OUT: &str = "hermit_partition_records_out_total";
    /// Counter, labels `topic`, `partition`: record bytes fetched.
    pub const PARTITION_BYTES_OUT: &str = "hermit_partition_bytes_out_total";
    /// Gauge, labels `topic`, `partition`: the next offset to be written.
    pub const PARTITION_LOG_END: &str = "hermit_partition_log_end";
    /// Counter: records appended, all topics.
    pub const RECORDS_IN: &str = "hermit_records_in_total";
    /// Counter: record bytes appended, all topics.
    pub const BYTES_IN: &str = "hermit_bytes_in_total";
    /// Counter: records fetched, all topics.
    pub const RECORDS_OUT: &str = "hermit_records_out_total";
    /// Counter: record bytes fetched, all topics.
    pub const BYTES_OUT: &str = "hermit_bytes_out_total";
    /// Gauge: topics.
    pub const TOPICS: &str = "hermit_topics";
    /// Gauge: topics with traffic that the per-partition series leave out.
    pub const TOPICS_HIDDEN: &str = "hermit_metrics_topics_hidden";
    /// Gauge, labels `group`, `topic`, `partition`: the committed offset.
    pub const GROUP_COMMITTED: &str = "hermit_group_committed_offset";
    /// Gauge, labels `group`, `topic`, `partition`: log end − committed.
    pub const GROUP_LAG: &str = "hermit_group_lag";
    /// Histogram (seconds): fsync duration.
    pub const FSYNC_SECONDS: &str = "hermit_fsync_seconds";
    /// Histogram (seconds): produce request latency.
    pub const PRODUCE_LATENCY: &str = "hermit_produce_latency_seconds";
    /// Histogram (seconds): fetch request latency.
    pub const FETCH_LATENCY: &str = "hermit_fetch_latency_seconds";
    /// Gauge: long-polling fetches waiting for data.
    pub const FETCHES_PARKED: &str = "hermit_fetches_parked";
    /// Gauge: segment and slab files open.
    pub const OPEN_FILES: &str = "hermit_open_files";
    /// Gauge: 1 once recovery is done and the listeners are up.
    pub const READY: &str = "hermit_ready";
    /// Gauge: seconds since the broker started.
    pub const UPTIME: &str = "hermit_uptime_seconds";
    /// Gauge: connections open.
    pub const CONNECTIONS_OPEN: &str = "hermit_connections_open";
    /// Counter, label `reason`: connections refused.
    pub const CONNECTIONS_REFUSED: &str = "hermit_connections_refused_total";
    /// Gauge, label `version`: always 1.
    pub const BUILD_INFO: &str = "hermit_build_info";

    /// Every name above, for tests and docs.
    #[cfg(test)]
    pub const ALL: &[&str] = &[
        PARTITION_RECORDS_IN,
        PARTITION_BYTES_IN,
        PARTITION_RECORDS_OUT,
        PARTITION_BYTES_OUT,
        PARTITION_LOG_END,
        RECORDS_IN,
        BYTES_IN,
        RECORDS_OUT,
        BYTES_OUT,
        TOPICS,
        TOPICS_HIDDEN,
        GROUP_COMMITTED,
        GROUP_LAG,
        FSYNC_SECONDS,
        PRODUCE_LATENCY,
        FETCH_LATENCY,
        FETCHES_PARKED,
        OPEN_FILES,
        READY,
        UPTIME,
        CONNECTIONS_OPEN,
        CONNECTIONS_REFUSED,
        BUILD_INFO,
    ];
}

/// A histogram's cumulative buckets, summed over any labels but `le`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    /// `(upper bound, cumulative count)`, ascending by bound; the last
    /// bound is `+Inf` in a well-formed histogram.
    pub buckets: Vec<(f64, f64)>,
}

impl Histogram {
    /// Observations counted (the `+Inf` bucket), if there is one.
    pub fn count(&self) -> Option<f64> {
        self.buckets
            .last()
            .filter(|(le, _)| *le == f64::INFINITY)
            .map(|&(_, c)| c)
    }

    /// The observations made since `earlier` (bucket by bucket); when
    /// the histogram was reset in between (a restart: fewer
    /// observations), everything it holds now is new.
    pub fn since(&self, earlier: &Histogram) -> Histogram {
        let reset = match (self.count(), earlier.count()) {
            (Some(now), Some(then)) => now < then,
            _ => true,
        };
        if reset {
            return self.clone();
        }
        let buckets = self
            .buckets
            .iter()
            .map(|&(le, c)| {
                let then = earlier
                    .buckets
                    .iter()
                    .find(|(l, _)| *l == le)
                    .map_or(0.0, |&(_, c)| c);
                (le, (c - then).max(0.0))
            })
            .collect();
        Histogram { buckets }
    }

    /// The `q` quantile (0 ≤ q ≤ 1) by Prometheus' `histogram_quantile`
    /// rule: find the bucket holding rank `q × count` and interpolate
    /// linearly inside it (the first bucket starts at 0); a rank in the
    /// `+Inf` bucket answers the highest finite bound. `None` without
    /// observations or without a `+Inf` bucket.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if !(0.0..=1.0).contains(&q) || self.buckets.len() < 2 {
            return None;
        }
        let total = self.count().filter(|&c| c > 0.0)?;
        let rank = q * total;
        // Cumulative counts are non-decreasing; a scrape that raced an
        // observation may break that, and Prometheus then uses the
        // running maximum, as here.
        let mut prev_bound = 0.0;
        let mut prev_count = 0.0;
        for (i, &(bound, count)) in self.buckets.iter().enumerate() {
            let count = count.max(prev_count);
            if count >= rank {
                if bound == f64::INFINITY {
                    return Some(self.buckets[self.buckets.len() - 2].0);
                }
                if i == 0 && bound <= 0.0 {
                    return Some(bound);
                }
                let in_bucket = count - prev_count;
                if in_bucket <= 0.0 {
                    return Some(bound);
                }
                return Some(prev_bound + (bound - prev_bound) * ((rank - prev_count) / in_bucket));
            }
            prev_bound = bound;
            prev_count = count;
        }
        None
    }
}

/// A partition's series in one scrape.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartitionValues {
    /// `hermit_partition_records_in_total`.
    pub records_in: Option<f64>,
    /// `hermit_partition_bytes_in_total`.
    pub bytes_in: Option<f64>,
    /// `hermit_partition_records_out_total`.
    pub records_out: Option<f64>,
    /// `hermit_partition_bytes_out_total`.
    pub bytes_out: Option<f64>,
    /// `hermit_partition_log_end`.
    pub log_end: Option<f64>,
}

/// A consumer group's position on one partition.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupValues {
    /// `hermit_group_lag`.
    pub lag: Option<f64>,
    /// `hermit_group_committed_offset`.
    pub committed: Option<f64>,
}

/// `(topic, partition)`. The partition stays text: it is shown, not
/// computed with, and a label that is not a number must not drop the row.
pub type PartitionKey = (String, String);

/// `(group, topic, partition)`.
pub type GroupKey = (String, String, String);

/// What one scrape said, by meaning rather than by series.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The unlabelled samples (gauges and counters), by name.
    scalars: BTreeMap<String, f64>,
    /// Per partition, for the topics the broker shows.
    pub partitions: BTreeMap<PartitionKey, PartitionValues>,
    /// Per group and partition.
    pub groups: BTreeMap<GroupKey, GroupValues>,
    /// `hermit_fsync_seconds`.
    pub fsync: Histogram,
    /// `hermit_produce_latency_seconds`.
    pub produce: Histogram,
    /// `hermit_fetch_latency_seconds`.
    pub fetch: Histogram,
    /// `hermit_connections_refused_total`, summed over reasons.
    pub refused: Option<f64>,
    /// `hermit_build_info`'s `version` label.
    pub version: Option<String>,
    /// Lines of the exposition that did not parse.
    pub skipped_lines: usize,
}

impl Snapshot {
    /// Sort the samples of one scrape by what they mean; unknown names
    /// are ignored.
    pub fn from_samples(samples: &[Sample], skipped_lines: usize) -> Snapshot {
        use names::*;
        let mut snap = Snapshot {
            skipped_lines,
            ..Snapshot::default()
        };
        let mut hist: BTreeMap<&str, BTreeMap<OrdF64, f64>> = BTreeMap::new();
        for s in samples {
            let name = s.name.as_str();
            if let Some(base) = name.strip_suffix("_bucket")
                && [FSYNC_SECONDS, PRODUCE_LATENCY, FETCH_LATENCY].contains(&base)
            {
                let Some(le) = s.label("le").and_then(parse_bound) else {
                    continue;
                };
                *hist.entry(base).or_default().entry(OrdF64(le)).or_default() += s.value;
                continue;
            }
            let partition_field = match name {
                PARTITION_RECORDS_IN => Some(field_records_in as Field),
                PARTITION_BYTES_IN => Some(field_bytes_in as Field),
                PARTITION_RECORDS_OUT => Some(field_records_out as Field),
                PARTITION_BYTES_OUT => Some(field_bytes_out as Field),
                PARTITION_LOG_END => Some(field_log_end as Field),
                _ => None,
            };
            if let Some(field) = partition_field {
                if let (Some(t), Some(p)) = (s.label("topic"), s.label("partition")) {
                    let values = snap
                        .partitions
                        .entry((t.to_owned(), p.to_owned()))
                        .or_default();
                    *field(values) = Some(s.value);
                }
                continue;
            }
            if name == GROUP_LAG || name == GROUP_COMMITTED {
                if let (Some(g), Some(t), Some(p)) =
                    (s.label("group"), s.label("topic"), s.label("partition"))
                {
                    let values = snap
                        .groups
                        .entry((g.to_owned(), t.to_owned(), p.to_owned()))
                        .or_default();
                    if name == GROUP_LAG {
                        values.lag = Some(s.value);
                    } else {
                        values.committed = Some(s.value);
                    }
                }
                continue;
            }
            if name == CONNECTIONS_REFUSED {
                *snap.refused.get_or_insert(0.0) += s.value;
                continue;
            }
            if name == BUILD_INFO {
                snap.version = s.label("version").map(str::to_owned);
                continue;
            }
            if s.labels.is_empty() {
                snap.scalars.insert(s.name.clone(), s.value);
            }
        }
        let to_hist = |m: Option<&BTreeMap<OrdF64, f64>>| Histogram {
            buckets: m
                .map(|m| m.iter().map(|(le, c)| (le.0, *c)).collect())
                .unwrap_or_default(),
        };
        snap.fsync = to_hist(hist.get(FSYNC_SECONDS));
        snap.produce = to_hist(hist.get(PRODUCE_LATENCY));
        snap.fetch = to_hist(hist.get(FETCH_LATENCY));
        snap
    }

    /// An unlabelled sample's value.
    pub fn scalar(&self, name: &str) -> Option<f64> {
        self.scalars.get(name).copied().filter(|v| !v.is_nan())
    }
}

type Field = fn(&mut PartitionValues) -> &mut Option<f64>;
fn field_records_in(v: &mut PartitionValues) -> &mut Option<f64> {
    &mut v.records_in
}
fn field_bytes_in(v: &mut PartitionValues) -> &mut Option<f64> {
    &mut v.bytes_in
}
fn field_records_out(v: &mut PartitionValues) -> &mut Option<f64> {
    &mut v.records_out
}
fn field_bytes_out(v: &mut PartitionValues) -> &mut Option<f64> {
    &mut v.bytes_out
}
fn field_log_end(v: &mut PartitionValues) -> &mut Option<f64> {
    &mut v.log_end
}

/// A bucket bound: a number or `+Inf`; NaN is no bound.
fn parse_bound(s: &str) -> Option<f64> {
    let v = match s {
        "+Inf" | "Inf" => f64::INFINITY,
        s => s.parse().ok()?,
    };
    (!v.is_nan()).then_some(v)
}

/// An `f64` that is never NaN, ordered, to key buckets by bound.
#[derive(Debug, Clone, Copy, PartialEq)]
struct OrdF64(f64);
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Per second, the increase of a counter from `then` to `now` over
/// `secs`: `None` without both values (a series that just appeared has no
/// rate yet). A counter that went down was reset (the broker restarted):
/// it counted `now` since, so the rate is never negative.
pub fn rate(now: Option<f64>, then: Option<f64>, secs: f64) -> Option<f64> {
    let (now, then) = (now?, then?);
    if secs.is_nan() || secs <= 0.0 || now.is_nan() || then.is_nan() {
        return None;
    }
    let increase = if now >= then { now - then } else { now };
    Some(increase / secs)
}

/// A partition row: rates over the last interval, and its log end.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicRow {
    /// Topic name (as the broker sent it; escape before showing).
    pub topic: String,
    /// Partition number (as text).
    pub partition: String,
    /// Records appended per second.
    pub records_in: Option<f64>,
    /// Records fetched per second.
    pub records_out: Option<f64>,
    /// Record bytes appended per second.
    pub bytes_in: Option<f64>,
    /// Record bytes fetched per second.
    pub bytes_out: Option<f64>,
    /// The log end offset.
    pub log_end: Option<f64>,
}

impl TopicRow {
    /// What the table sorts by: records in and out per second.
    fn activity(&self) -> (f64, f64) {
        let records = self.records_in.unwrap_or(0.0) + self.records_out.unwrap_or(0.0);
        let bytes = self.bytes_in.unwrap_or(0.0) + self.bytes_out.unwrap_or(0.0);
        (records, bytes)
    }
}

/// A group row.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRow {
    /// Group name (escape before showing).
    pub group: String,
    /// Topic name.
    pub topic: String,
    /// Partition number (as text).
    pub partition: String,
    /// Records behind the log end.
    pub lag: Option<f64>,
    /// The committed offset.
    pub committed: Option<f64>,
}

/// Everything on the screen, computed from the newest scrape and the one
/// before it (if any).
#[derive(Debug, Clone, Default)]
pub struct View {
    /// The newest scrape.
    pub now: Snapshot,
    /// Seconds between the two scrapes; `None` after the first.
    pub interval: Option<f64>,
    /// Records appended per second, all topics.
    pub records_in: Option<f64>,
    /// Records fetched per second, all topics.
    pub records_out: Option<f64>,
    /// Bytes appended per second, all topics.
    pub bytes_in: Option<f64>,
    /// Bytes fetched per second, all topics.
    pub bytes_out: Option<f64>,
    /// Connections refused per second (all reasons).
    pub refused: Option<f64>,
    /// fsync durations observed in the interval (or since the start,
    /// after the first scrape).
    pub fsync: Histogram,
    /// Produce latencies observed in the interval.
    pub produce: Histogram,
    /// Fetch latencies observed in the interval.
    pub fetch: Histogram,
    /// Partitions, busiest first.
    pub topics: Vec<TopicRow>,
    /// Group positions, largest lag first.
    pub groups: Vec<GroupRow>,
}

impl View {
    /// The view of `now`, with rates against `then` taken `secs` earlier.
    pub fn new(now: Snapshot, then: Option<(&Snapshot, f64)>) -> View {
        use names::*;
        let secs = then.map(|(_, s)| s);
        // A broker whose uptime went down restarted: every counter
        // started again from 0, including those that have already passed
        // the value they had.
        let restarted = matches!(
            (now.scalar(UPTIME), then.and_then(|(t, _)| t.scalar(UPTIME))),
            (Some(u_now), Some(u_then)) if u_now < u_then
        );
        let r = |now_v: Option<f64>, then_v: Option<f64>| match (secs, restarted) {
            // Everything counted now was counted since the restart.
            (Some(s), true) => rate(now_v, Some(0.0), s),
            (Some(s), false) => rate(now_v, then_v, s),
            (None, _) => None,
        };
        let scalar_rate = |name: &str| r(now.scalar(name), then.and_then(|(t, _)| t.scalar(name)));
        let hist = |h_now: &Histogram, h_then: Option<&Histogram>| match h_then {
            Some(t) if !restarted => h_now.since(t),
            _ => h_now.clone(),
        };
        let prev = then.map(|(t, _)| t);
        let empty = PartitionValues::default();
        let mut topics: Vec<TopicRow> = now
            .partitions
            .iter()
            .map(|(key, v)| {
                let p = prev.and_then(|t| t.partitions.get(key)).unwrap_or(&empty);
                TopicRow {
                    topic: key.0.clone(),
                    partition: key.1.clone(),
                    records_in: r(v.records_in, p.records_in),
                    records_out: r(v.records_out, p.records_out),
                    bytes_in: r(v.bytes_in, p.bytes_in),
                    bytes_out: r(v.bytes_out, p.bytes_out),
                    log_end: v.log_end,
                }
            })
            .collect();
        topics.sort_by(|a, b| {
            let (ra, ba) = a.activity();
            let (rb, bb) = b.activity();
            rb.total_cmp(&ra)
                .then(bb.total_cmp(&ba))
                .then_with(|| (&a.topic, &a.partition).cmp(&(&b.topic, &b.partition)))
        });
        let mut groups: Vec<GroupRow> = now
            .groups
            .iter()
            .map(|(key, v)| GroupRow {
                group: key.0.clone(),
                topic: key.1.clone(),
                partition: key.2.clone(),
                lag: v.lag,
                committed: v.committed,
            })
            .collect();
        groups.sort_by(|a, b| {
            let la = a.lag.unwrap_or(f64::NEG_INFINITY);
            let lb = b.lag.unwrap_or(f64::NEG_INFINITY);
            lb.total_cmp(&la).then_with(|| {
                (&a.group, &a.topic, &a.partition).cmp(&(&b.group, &b.topic, &b.partition))
            })
        });
        View {
            interval: secs,
            records_in: scalar_rate(RECORDS_IN),
            records_out: scalar_rate(RECORDS_OUT),
            bytes_in: scalar_rate(BYTES_IN),
            bytes_out: scalar_rate(BYTES_OUT),
            refused: r(now.refused, prev.and_then(|t| t.refused)),
            fsync: hist(&now.fsync, prev.map(|t| &t.fsync)),
            produce: hist(&now.produce, prev.map(|t| &t.produce)),
            fetch: hist(&now.fetch, prev.map(|t| &t.fetch)),
            topics,
            groups,
            now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::top::expo;

    fn h(buckets: &[(f64, f64)]) -> Histogram {
        Histogram {
            buckets: buckets.to_vec(),
        }
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn quantiles_interpolate_inside_the_bucket() {
        let inf = f64::INFINITY;
        // 10 observations ≤ 1, 10 more in (1, 2], none above.
        let x = h(&[(1.0, 10.0), (2.0, 20.0), (inf, 20.0)]);
        // Rank 10 is the end of the first bucket.
        assert!(close(x.quantile(0.5), 1.0));
        // Rank 5: half-way through the first bucket, which starts at 0.
        assert!(close(x.quantile(0.25), 0.5));
        // Rank 15: half-way through (1, 2].
        assert!(close(x.quantile(0.75), 1.5));
        assert!(close(x.quantile(0.99), 1.98));
        assert!(close(x.quantile(1.0), 2.0));
        assert!(close(x.quantile(0.0), 0.0));
        // The brief's fsync sample: 61 observations, 11 above 1 ms.
        let f = h(&[(0.0001, 3.0), (0.001, 50.0), (inf, 61.0)]);
        // Rank 30.5 lies in (0.1 ms, 1 ms]: 27.5 of its 47.
        assert!(close(f.quantile(0.5), 0.0001 + 0.0009 * 27.5 / 47.0));
        // Rank 60.39 lies in +Inf: the highest finite bound.
        assert!(close(f.quantile(0.99), 0.001));
    }

    #[test]
    fn quantiles_of_odd_histograms() {
        let inf = f64::INFINITY;
        assert_eq!(h(&[]).quantile(0.5), None);
        assert_eq!(h(&[(inf, 5.0)]).quantile(0.5), None, "one bucket");
        assert_eq!(h(&[(1.0, 0.0), (inf, 0.0)]).quantile(0.5), None, "empty");
        assert_eq!(h(&[(1.0, 3.0), (2.0, 4.0)]).quantile(0.5), None, "no +Inf");
        assert_eq!(h(&[(1.0, 1.0), (inf, 2.0)]).quantile(1.5), None);
        // A first bucket with a bound ≤ 0 answers the bound itself.
        assert!(close(h(&[(-1.0, 4.0), (inf, 4.0)]).quantile(0.5), -1.0));
        // Counts that go down are read as their running maximum.
        let x = h(&[(1.0, 10.0), (2.0, 8.0), (4.0, 20.0), (inf, 20.0)]);
        assert!(close(x.quantile(0.5), 1.0));
        assert!(close(x.quantile(0.75), 3.0));
    }

    #[test]
    fn histogram_deltas_and_resets() {
        let inf = f64::INFINITY;
        let then = h(&[(1.0, 10.0), (2.0, 20.0), (inf, 20.0)]);
        let now = h(&[(1.0, 10.0), (2.0, 30.0), (inf, 31.0)]);
        let d = now.since(&then);
        assert_eq!(d.buckets, vec![(1.0, 0.0), (2.0, 10.0), (inf, 11.0)]);
        assert_eq!(d.count(), Some(11.0));
        // Fewer observations than before: a restart; all are new.
        let after_restart = h(&[(1.0, 1.0), (2.0, 2.0), (inf, 2.0)]);
        assert_eq!(after_restart.since(&then), after_restart);
    }

    #[test]
    fn rates_never_go_negative() {
        assert_eq!(rate(Some(150.0), Some(100.0), 2.0), Some(25.0));
        assert_eq!(rate(Some(100.0), Some(100.0), 2.0), Some(0.0));
        // Reset: counted 30 since the restart.
        assert_eq!(rate(Some(30.0), Some(100.0), 2.0), Some(15.0));
        assert_eq!(rate(Some(30.0), None, 2.0), None);
        assert_eq!(rate(None, Some(1.0), 2.0), None);
        assert_eq!(rate(Some(3.0), Some(1.0), 0.0), None);
        assert_eq!(rate(Some(f64::NAN), Some(1.0), 1.0), None);
    }

    const THEN: &str = r#"
hermit_uptime_seconds 100
hermit_records_in_total 1000
hermit_partition_records_in_total{topic="chat",partition="0"} 1000
hermit_partition_records_in_total{topic="quiet",partition="0"} 5
hermit_partition_bytes_in_total{topic="chat",partition="0"} 100000
hermit_fsync_seconds_bucket{le="0.001"} 10
hermit_fsync_seconds_bucket{le="+Inf"} 10
"#;
    const NOW: &str = r#"
hermit_uptime_seconds 102
hermit_records_in_total 1400
hermit_partition_records_in_total{topic="chat",partition="0"} 1400
hermit_partition_records_in_total{topic="quiet",partition="0"} 5
hermit_partition_records_in_total{topic="new",partition="3"} 50
hermit_partition_bytes_in_total{topic="chat",partition="0"} 140000
hermit_partition_log_end{topic="chat",partition="0"} 1400
hermit_group_lag{group="g1",topic="chat",partition="0"} 2
hermit_group_lag{group="g2",topic="chat",partition="0"} 40
hermit_group_committed_offset{group="g2",topic="chat",partition="0"} 1360
hermit_group_lag{group="g3",topic="chat"} 1
hermit_fsync_seconds_bucket{le="0.001"} 12
hermit_fsync_seconds_bucket{le="+Inf"} 14
hermit_connections_refused_total{reason="per_address"} 2
hermit_connections_refused_total{reason="websocket"} 3
hermit_build_info{version="0.1.0"} 1
"#;

    fn snap(text: &str) -> Snapshot {
        let p = expo::parse(text);
        Snapshot::from_samples(&p.samples, p.skipped)
    }

    #[test]
    fn a_view_from_two_scrapes() {
        let v = View::new(snap(NOW), Some((&snap(THEN), 2.0)));
        assert_eq!(v.records_in, Some(200.0));
        assert_eq!(v.records_out, None, "missing metric");
        let t: Vec<_> = v.topics.iter().map(|t| t.topic.as_str()).collect();
        // chat 200/s, then quiet 0/s ahead of new (no rate yet: "–").
        // chat at 200/s first; quiet (0/s) and new (no rate yet) tie at
        // nothing and go by name.
        assert_eq!(t, ["chat", "new", "quiet"]);
        assert_eq!(v.topics[0].records_in, Some(200.0));
        assert_eq!(v.topics[0].bytes_in, Some(20000.0));
        assert_eq!(v.topics[0].log_end, Some(1400.0));
        assert_eq!(v.topics[0].records_out, None);
        let new = v.topics.iter().find(|t| t.topic == "new").expect("new row");
        assert_eq!((new.partition.as_str(), new.records_in), ("3", None));
        // Groups by lag; the series without a partition label is dropped.
        let g: Vec<_> = v.groups.iter().map(|g| g.group.as_str()).collect();
        assert_eq!(g, ["g2", "g1"]);
        assert_eq!(v.groups[0].committed, Some(1360.0));
        assert_eq!(v.groups[1].committed, None);
        // Four fsyncs in the interval, two above 1 ms.
        assert_eq!(v.fsync.count(), Some(4.0));
        assert!(close(v.fsync.quantile(0.5), 0.001));
        assert_eq!(v.now.refused, Some(5.0));
        assert_eq!(v.now.version.as_deref(), Some("0.1.0"));
        assert_eq!(v.now.scalar(names::TOPICS), None);
    }

    #[test]
    fn a_restart_between_scrapes_counts_from_zero() {
        // Uptime went down; chat's counter is at 1400 again, above what
        // it was, yet all 1400 are new.
        let mut then = snap(THEN);
        then.scalars.insert(names::UPTIME.into(), 5000.0);
        let v = View::new(snap(NOW), Some((&then, 2.0)));
        assert_eq!(v.records_in, Some(700.0));
        assert_eq!(v.topics[0].records_in, Some(700.0));
        assert_eq!(v.fsync.count(), Some(14.0));
    }

    #[test]
    fn the_first_scrape_has_no_rates() {
        let v = View::new(snap(NOW), None);
        assert_eq!(v.records_in, None);
        assert!(v.topics.iter().all(|t| t.records_in.is_none()));
        assert_eq!(v.fsync.count(), Some(14.0), "since the start");
    }
}
