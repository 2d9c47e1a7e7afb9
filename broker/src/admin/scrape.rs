//! One `/metrics` scrape: every value read from the broker's own counters
//! when encoded, section by section (the broker, traffic, groups, storage,
//! requests, connections, access and quotas, the process).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use super::observed::{Observed, Phase};
use crate::auth::AuthError;
use crate::log::{Log, Topic};
use crate::metrics::HistogramSnapshot;
use crate::net::{Metrics, Server};

/// The whole `/metrics` answer, in the Prometheus text format.
pub(super) fn render(observed: &Arc<Observed>) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Scrape(observed.clone())));
    let mut out = String::new();
    // Writing to a String cannot fail; a collector error would be ours.
    if let Err(e) = prometheus_client::encoding::prometheus_text::encode(&mut out, &registry) {
        tracing::error!(error = %e, "cannot encode /metrics");
    }
    out
}

/// One scrape: reads every source when encoded.
pub(super) struct Scrape(pub(super) Arc<Observed>);

impl std::fmt::Debug for Scrape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scrape")
    }
}

type Labels<const N: usize> = [(&'static str, String); N];

fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, v: u64) -> std::fmt::Result {
    e.encode_descriptor(name, help, None, MetricType::Counter)?
        .encode_counter::<NoLabelSet, u64, u64>(&v, None)
}

fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, v: impl Into<f64>) -> std::fmt::Result {
    e.encode_descriptor(name, help, None, MetricType::Gauge)?
        .encode_gauge(&v.into())
}

fn counters<S: EncodeLabelSet>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: &[(S, u64)],
) -> std::fmt::Result {
    let mut m = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (labels, v) in rows {
        m.encode_family(labels)?
            .encode_counter::<NoLabelSet, u64, u64>(v, None)?;
    }
    Ok(())
}

fn gauges<S: EncodeLabelSet>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: &[(S, u64)],
) -> std::fmt::Result {
    let mut m = e.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, v) in rows {
        m.encode_family(labels)?.encode_gauge(v)?;
    }
    Ok(())
}

fn histogram(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    h: &HistogramSnapshot,
) -> std::fmt::Result {
    e.encode_descriptor(name, help, None, MetricType::Histogram)?
        .encode_histogram::<NoLabelSet>(h.sum, h.count, &h.buckets, None)
}

fn get(c: &AtomicU64) -> u64 {
    c.load(Ordering::Relaxed)
}

impl Collector for Scrape {
    fn encode(&self, mut e: DescriptorEncoder) -> std::fmt::Result {
        let observed = &self.0;
        let e = &mut e;
        broker(e, observed)?;
        process(e)?;
        let Some(server) = observed.server.get() else {
            return Ok(());
        };
        let (shown, hidden) = observed.busiest(server);
        traffic(e, server.log(), &shown, hidden)?;
        groups(e, server, &shown, observed.top_groups)?;
        storage(e, server.log())?;
        let m = server.metrics();
        requests(e, &m)?;
        connections(e, &m)?;
        gauge(
            e,
            "hermit_send_budget_used_bytes",
            "Bytes of answers queued by every connection, not yet written (send_budget_bytes).",
            server.send_budget_used() as f64,
        )?;
        access(e, server, &m, observed.top_principals)
    }
}

/// Whether it serves, since when, which version.
fn broker(e: &mut DescriptorEncoder, observed: &Observed) -> std::fmt::Result {
    gauge(
        e,
        "hermit_ready",
        "1 when the broker serves; 0 while it recovers or shuts down.",
        u32::from(observed.phase() == Phase::Ready),
    )?;
    gauge(
        e,
        "hermit_uptime_seconds",
        "Seconds since the broker process started its admin listener.",
        observed.started.elapsed().as_secs_f64(),
    )?;
    e.encode_descriptor(
        "hermit_build",
        "The broker's version.",
        None,
        MetricType::Info,
    )?
    .encode_info(&[("version", env!("CARGO_PKG_VERSION"))])?;
    Ok(())
}

/// Traffic: totals over every topic, then the busiest topics' partitions.
fn traffic(
    e: &mut DescriptorEncoder,
    log: &Log,
    shown: &[Arc<Topic>],
    hidden: u64,
) -> std::fmt::Result {
    let [ri, bi, ro, bo] = log.traffic_totals();
    counter(e, "hermit_records_in", "Records appended, all topics.", ri)?;
    counter(
        e,
        "hermit_bytes_in",
        "Record batch bytes appended, all topics.",
        bi,
    )?;
    counter(
        e,
        "hermit_records_out",
        "Offsets served by fetches, all topics (compaction's holes among them).",
        ro,
    )?;
    counter(
        e,
        "hermit_bytes_out",
        "Record batch bytes served by fetches, all topics.",
        bo,
    )?;
    gauge(e, "hermit_topics", "Topics.", log.topic_count() as f64)?;
    gauge(
        e,
        "hermit_metrics_topics_hidden",
        "Topics with traffic that have no per-partition series (metrics_top_topics).",
        hidden as f64,
    )?;
    let mut rows: [Vec<(Labels<2>, u64)>; 6] = Default::default();
    for t in shown {
        let stats = t.stats();
        for (p, s) in stats.iter().enumerate() {
            let labels = || [("topic", t.name().to_owned()), ("partition", p.to_string())];
            for (i, v) in s.totals().into_iter().enumerate() {
                rows[i].push((labels(), v));
            }
            if let Some(part) = log.peek_partition(t, p as u32) {
                let (start, end) = part.bounds();
                rows[4].push((labels(), start));
                rows[5].push((labels(), end));
            }
        }
    }
    let [r_in, b_in, r_out, b_out, starts, ends] = rows;
    counters(
        e,
        "hermit_partition_records_in",
        "Records appended (busiest topics).",
        &r_in,
    )?;
    counters(
        e,
        "hermit_partition_bytes_in",
        "Record batch bytes appended (busiest topics).",
        &b_in,
    )?;
    counters(
        e,
        "hermit_partition_records_out",
        "Offsets served by fetches (busiest topics).",
        &r_out,
    )?;
    counters(
        e,
        "hermit_partition_bytes_out",
        "Record batch bytes served by fetches (busiest topics).",
        &b_out,
    )?;
    gauges(
        e,
        "hermit_partition_log_start",
        "First stored offset (open partitions of the busiest topics).",
        &starts,
    )?;
    gauges(
        e,
        "hermit_partition_log_end",
        "High watermark: the offset the next visible record gets (open partitions of the busiest topics).",
        &ends,
    )?;
    Ok(())
}

/// Groups: of the busiest topics, the largest lags first.
fn groups(
    e: &mut DescriptorEncoder,
    server: &Server,
    shown: &[Arc<Topic>],
    top_groups: usize,
) -> std::fmt::Result {
    let log = server.log();
    let by_name: std::collections::HashMap<&str, &Arc<Topic>> =
        shown.iter().map(|t| (t.name(), t)).collect();
    // Collected under the offset shards' locks, measured after them:
    // the partition cache's lock is never taken inside a shard's.
    let mut commits: Vec<(String, &Arc<Topic>, u32, u64)> = Vec::new();
    server.engine().offsets().for_each(|g, t, p, committed| {
        if let Some(topic) = by_name.get(t) {
            commits.push((g.to_owned(), topic, p, committed));
        }
    });
    let mut groups: Vec<(u64, Labels<3>, u64)> = commits
        .into_iter()
        .map(|(g, topic, p, committed)| {
            let end = log
                .peek_partition(topic, p)
                .map(|part| part.high_watermark());
            let lag = end.map_or(0, |end| end.saturating_sub(committed));
            let labels = [
                ("group", g),
                ("topic", topic.name().to_owned()),
                ("partition", p.to_string()),
            ];
            (lag, labels, committed)
        })
        .collect();
    groups.sort_unstable_by_key(|g| std::cmp::Reverse(g.0));
    groups.truncate(top_groups);
    let lags: Vec<_> = groups.iter().map(|(lag, l, _)| (l.clone(), *lag)).collect();
    let committed: Vec<_> = groups.into_iter().map(|(_, l, c)| (l, c)).collect();
    gauges(
        e,
        "hermit_group_committed_offset",
        "A group's committed offset (busiest topics, metrics_top_groups).",
        &committed,
    )?;
    gauges(
        e,
        "hermit_group_lag",
        "High watermark minus the committed offset, for open partitions (busiest topics, metrics_top_groups).",
        &lags,
    )?;
    Ok(())
}

/// Storage: group commit, open files and partitions, the partition cache.
fn storage(e: &mut DescriptorEncoder, log: &Log) -> std::fmt::Result {
    let (round_ns, round_size) = log.sync_histograms();
    histogram(
        e,
        "hermit_fsync_seconds",
        "Duration of a group-commit round: the fsyncs (or one syncfs) that make a round's writes durable.",
        &round_ns.snapshot(),
    )?;
    histogram(
        e,
        "hermit_group_commit_partitions",
        "Partitions made durable per group-commit round.",
        &round_size.snapshot(),
    )?;
    let sync = log.sync_stats();
    counter(
        e,
        "hermit_fsync_rounds",
        "Group-commit rounds.",
        sync.rounds,
    )?;
    counter(
        e,
        "hermit_fsyncs",
        "Partition (or slab) fdatasyncs issued.",
        sync.fsyncs,
    )?;
    counter(
        e,
        "hermit_syncfs",
        "Whole-file-system syncs issued (large rounds).",
        sync.syncfs,
    )?;
    gauge(
        e,
        "hermit_open_files",
        "Segment files held open by partitions.",
        log.open_files() as f64,
    )?;
    let (open, evictions) = log.open_partitions();
    gauge(e, "hermit_open_partitions", "Partitions open.", open as f64)?;
    counter(
        e,
        "hermit_partition_evictions",
        "Idle partitions closed to stay within open_files.",
        evictions,
    )?;
    let (hits, misses) = log.cache_stats();
    counter(
        e,
        "hermit_partition_cache_hits",
        "Partition lookups answered by the open-partition cache.",
        hits,
    )?;
    counter(
        e,
        "hermit_partition_cache_misses",
        "Partitions opened because they were not open.",
        misses,
    )?;
    Ok(())
}

/// Requests: latencies, long polls, malformed requests, claims.
fn requests(e: &mut DescriptorEncoder, m: &Metrics) -> std::fmt::Result {
    histogram(
        e,
        "hermit_produce_latency_seconds",
        "From a produce request to its answer (after its fsync, for durable acks).",
        &m.produce_latency.snapshot(),
    )?;
    histogram(
        e,
        "hermit_fetch_latency_seconds",
        "From a fetch request to its answer, for fetches that did not wait for data.",
        &m.fetch_latency.snapshot(),
    )?;
    gauge(
        e,
        "hermit_fetches_parked",
        "Long polls waiting for data.",
        get(&m.fetches_parked) as f64,
    )?;
    counter(
        e,
        "hermit_fetches_not_parked",
        "Long polls answered at once because max_parked_fetches were parked.",
        get(&m.fetches_not_parked),
    )?;
    counter(
        e,
        "hermit_fetches_held_filled",
        "Fetches asking min_bytes > 1 answered with at least min_bytes.",
        get(&m.fetches_held_filled),
    )?;
    counter(
        e,
        "hermit_fetches_held_expired",
        "Fetches asking min_bytes > 1 answered with fewer bytes when their wait ended.",
        get(&m.fetches_held_expired),
    )?;
    counter(
        e,
        "hermit_bad_requests",
        "Malformed requests (each closed its connection).",
        get(&m.bad_requests),
    )?;
    counter(
        e,
        "hermit_claims",
        "Batches handed out by Claim (a retry answered with its batch again is not counted).",
        get(&m.claims),
    )?;
    let claims_refused = [
        (
            [("limit", "claims_per_minute_per_principal".to_owned())],
            get(&m.claims_refused[0]),
        ),
        (
            [("limit", "claims_per_minute_per_address".to_owned())],
            get(&m.claims_refused[1]),
        ),
    ];
    counters(
        e,
        "hermit_claims_refused",
        "Claims refused RateLimited, by the rate that refused them.",
        &claims_refused,
    )?;
    Ok(())
}

/// Connections: open, accepted, refused by reason, WebSocket upgrades.
fn connections(e: &mut DescriptorEncoder, m: &Metrics) -> std::fmt::Result {
    gauge(
        e,
        "hermit_connections_open",
        "Connections open.",
        get(&m.connections_open) as f64,
    )?;
    counter(
        e,
        "hermit_connections_accepted",
        "Connections accepted.",
        get(&m.connections_accepted),
    )?;
    let refused = [
        (
            [("reason", "max_connections".to_owned())],
            get(&m.connections_refused),
        ),
        (
            [("reason", "per_address".to_owned())],
            get(&m.refused_by_address),
        ),
        (
            [("reason", "per_principal".to_owned())],
            get(&m.refused_by_principal),
        ),
        ([("reason", "websocket".to_owned())], get(&m.ws_refused)),
        (
            [("reason", "unauthenticated".to_owned())],
            get(&m.refused_unauthenticated),
        ),
    ];
    counters(
        e,
        "hermit_connections_refused",
        "Connections refused, by reason.",
        &refused,
    )?;
    counter(
        e,
        "hermit_websocket_upgrades",
        "WebSocket upgrades accepted.",
        get(&m.ws_upgrades),
    )?;
    counter(
        e,
        "hermit_auth_timeouts",
        "Connections closed for not authenticating within auth_timeout_ms.",
        get(&m.auth_timeouts),
    )?;
    let creations = [
        (
            [("quota", "max_topics_per_principal".to_owned())],
            get(&m.topics_refused),
        ),
        (
            [("quota", "max_group_offsets_per_principal".to_owned())],
            get(&m.group_offsets_refused),
        ),
        (
            [("quota", "creations_per_minute_per_address".to_owned())],
            get(&m.creations_refused),
        ),
    ];
    counters(
        e,
        "hermit_creations_refused",
        "Topic and group-offset creations refused, by the quota that refused them.",
        &creations,
    )?;
    counter(
        e,
        "hermit_fetch_too_large_for_websocket",
        "Fetches refused over a WebSocket: the batch at their offset is larger than ws_max_message holds.",
        get(&m.fetch_too_large_for_ws),
    )?;
    counter(
        e,
        "hermit_write_stalls",
        "Connections closed because their answers were not read for write_stall_timeout_ms.",
        get(&m.write_stalls),
    )?;
    Ok(())
}

/// Access and quotas: refusals, throttling, the receive budget.
fn access(
    e: &mut DescriptorEncoder,
    server: &Server,
    m: &Metrics,
    top_principals: usize,
) -> std::fmt::Result {
    let failures: Vec<_> = AuthError::REASONS
        .iter()
        .zip(&m.auth_failures)
        .map(|(r, c)| ([("reason", (*r).to_owned())], get(c)))
        .collect();
    counters(
        e,
        "hermit_auth_failures",
        "Authentications refused, by reason.",
        &failures,
    )?;
    counter(
        e,
        "hermit_auth_unbound",
        "Authentications accepted with mechanism 1, which a relay could have passed on (auth = optional only).",
        get(&m.auth_unbound),
    )?;
    counter(
        e,
        "hermit_unauthorized",
        "Requests refused by the access rules.",
        get(&m.unauthorized),
    )?;
    let throttled = [
        (
            [("direction", "produce".to_owned())],
            get(&m.produce_throttled),
        ),
        ([("direction", "fetch".to_owned())], get(&m.fetch_throttled)),
    ];
    counters(
        e,
        "hermit_throttled",
        "Answers delayed by a byte rate, all callers.",
        &throttled,
    )?;
    let mut per_principal = Vec::new();
    for (who, [p, f]) in server.quotas().most_throttled(top_principals) {
        let name = who.map_or_else(|| "anonymous".to_owned(), |w| w.to_string());
        for (direction, v) in [("produce", p), ("fetch", f)] {
            per_principal.push((
                [
                    ("principal", name.clone()),
                    ("direction", direction.to_owned()),
                ],
                v,
            ));
        }
    }
    counters(
        e,
        "hermit_principal_throttled",
        "Answers delayed by a byte rate, for the most throttled principals (metrics_top_principals).",
        &per_principal,
    )?;
    counter(
        e,
        "hermit_receive_budget_waits",
        "Times a connection waited for receive_budget_bytes.",
        get(&m.receive_budget_waits),
    )?;
    Ok(())
}

/// CPU time, resident memory and descriptors of this process (Linux `/proc`).
fn process(e: &mut DescriptorEncoder) -> std::fmt::Result {
    if let Ok(stat) = std::fs::read_to_string("/proc/self/stat")
        && let Some((_, rest)) = stat.rsplit_once(") ")
    {
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the command name: field 14 (utime) and 15 (stime) are at 11 and 12.
        let ticks: u64 = [11, 12]
            .iter()
            .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
            .sum();
        let hz = rustix::param::clock_ticks_per_second() as f64;
        e.encode_descriptor(
            "hermit_process_cpu_seconds",
            "CPU time (user and system) of the broker process.",
            None,
            MetricType::Counter,
        )?
        .encode_counter::<NoLabelSet, f64, f64>(&(ticks as f64 / hz), None)?;
    }
    if let Ok(statm) = std::fs::read_to_string("/proc/self/statm")
        && let Some(pages) = statm
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u64>().ok())
    {
        let bytes = pages * rustix::param::page_size() as u64;
        gauge(
            e,
            "hermit_process_resident_memory_bytes",
            "Resident memory of the broker process.",
            bytes as f64,
        )?;
    }
    if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
        gauge(
            e,
            "hermit_process_open_fds",
            "File descriptors the broker process has open.",
            fds.count() as f64,
        )?;
    }
    Ok(())
}
