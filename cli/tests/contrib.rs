//! The files in contrib/ hold to the metrics contract and to what the
//! broker needs: the Grafana dashboard names only metrics the broker
//! serves (contrib/metrics.txt) and covers each area, and the systemd unit
//! keeps its hardening. contrib/check.sh adds what needs systemd's tools.

use std::collections::{BTreeMap, BTreeSet};

const METRICS: &str = include_str!("../../contrib/metrics.txt");
const DASHBOARD: &str = include_str!("../../contrib/grafana-dashboard.json");
const UNIT: &str = include_str!("../../contrib/hermit.service");

/// Name → type, from contrib/metrics.txt.
fn contract() -> BTreeMap<&'static str, &'static str> {
    METRICS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace();
            let name = f.next().expect("a name");
            let kind = f.next().unwrap_or_else(|| panic!("{name} has no type"));
            assert!(
                ["counter", "gauge", "histogram"].contains(&kind),
                "{name}: {kind}"
            );
            (name, kind)
        })
        .collect()
}

/// The `hermit_…` words of a PromQL expression.
fn metric_words(expr: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find("hermit_") {
        let word = &rest[at..];
        let end = word
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(word.len());
        // A word that only ends in "hermit_" (e.g. `xhermit_`) is not one.
        let before = rest[..at].chars().next_back();
        if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            words.push(&word[..end]);
        }
        rest = &word[end..];
    }
    words
}

/// The contract's metric a series name belongs to (a histogram's
/// `_bucket`, `_sum` and `_count` belong to it), if any.
fn metric_of<'a>(series: &str, contract: &BTreeMap<&'a str, &'a str>) -> Option<&'a str> {
    if let Some((name, _)) = contract.get_key_value(series) {
        return Some(name);
    }
    ["_bucket", "_sum", "_count"].iter().find_map(|suffix| {
        let base = series.strip_suffix(suffix)?;
        contract
            .get_key_value(base)
            .filter(|(_, kind)| **kind == "histogram")
            .map(|(name, _)| *name)
    })
}

fn panels(dash: &serde_json::Value) -> Vec<&serde_json::Value> {
    let mut all = Vec::new();
    for p in dash["panels"].as_array().expect("panels") {
        all.push(p);
        if let Some(inner) = p["panels"].as_array() {
            all.extend(inner);
        }
    }
    all
}

#[test]
fn the_dashboard_names_only_served_metrics() {
    let contract = contract();
    let dash: serde_json::Value = serde_json::from_str(DASHBOARD).expect("the dashboard is JSON");
    let mut used = BTreeSet::new();
    let mut ids = BTreeSet::new();
    for p in panels(&dash) {
        let title = p["title"].as_str().expect("every panel has a title");
        let id = p["id"].as_u64().expect("every panel has an id");
        assert!(ids.insert(id), "panel id {id} used twice");
        let pos = &p["gridPos"];
        let (x, w) = (pos["x"].as_u64().expect("x"), pos["w"].as_u64().expect("w"));
        assert!(x + w <= 24, "{title} is wider than the grid");
        if p["type"] == "row" {
            continue;
        }
        assert_eq!(p["datasource"]["uid"], "${datasource}", "{title}");
        let targets = p["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{title} has no query");
        for t in targets {
            assert_eq!(t["datasource"]["uid"], "${datasource}", "{title}");
            let expr = t["expr"].as_str().expect("expr");
            let words = metric_words(expr);
            assert!(!words.is_empty(), "{title}: {expr} names no hermit metric");
            for w in words {
                let m = metric_of(w, &contract)
                    .unwrap_or_else(|| panic!("{title}: {w} is not a metric the broker serves"));
                used.insert(m);
            }
            assert!(
                expr.contains(r#"instance=~"$instance""#),
                "{title}: {expr} ignores the broker selector"
            );
        }
    }
    // Every area the dashboard is for has a panel.
    for needed in [
        "hermit_records_in_total",
        "hermit_records_out_total",
        "hermit_bytes_in_total",
        "hermit_bytes_out_total",
        "hermit_partition_records_in_total",
        "hermit_group_lag",
        "hermit_fsync_seconds",
        "hermit_group_commit_partitions",
        "hermit_produce_latency_seconds",
        "hermit_fetch_latency_seconds",
        "hermit_connections_open",
        "hermit_connections_refused_total",
        "hermit_auth_failures_total",
        "hermit_throttled_total",
        "hermit_fetches_parked",
        "hermit_open_files",
        "hermit_partition_cache_hits_total",
        "hermit_partition_cache_misses_total",
        "hermit_process_cpu_seconds_total",
        "hermit_process_resident_memory_bytes",
        "hermit_ready",
    ] {
        assert!(used.contains(needed), "no panel shows {needed}");
    }

    let schema = dash["schemaVersion"].as_u64().expect("schemaVersion");
    assert!((36..=41).contains(&schema), "schemaVersion {schema}");
    let vars = dash["templating"]["list"].as_array().expect("variables");
    let ds = vars
        .iter()
        .find(|v| v["name"] == "datasource")
        .expect("a datasource variable");
    assert_eq!(ds["type"], "datasource");
    assert_eq!(ds["query"], "prometheus");
}

#[test]
fn metric_words_are_found() {
    assert_eq!(
        metric_words(r#"sum(rate(hermit_records_in_total{instance=~"$i"}[1m])) / xhermit_no"#),
        ["hermit_records_in_total"]
    );
    let contract = contract();
    assert_eq!(
        metric_of("hermit_fsync_seconds_bucket", &contract),
        Some("hermit_fsync_seconds")
    );
    assert_eq!(
        metric_of("hermit_topics_count", &contract),
        None,
        "a gauge has no _count"
    );
    assert_eq!(metric_of("hermit_nope", &contract), None);
}

/// `Key=value` settings of the unit, by key (a key set twice keeps both).
fn unit_settings() -> BTreeMap<&'static str, Vec<&'static str>> {
    let mut map: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for line in UNIT.lines() {
        let line = line.trim();
        if line.starts_with(['#', ';', '[']) || line.is_empty() {
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("not a setting: {line}"));
        map.entry(k.trim()).or_default().push(v.trim());
    }
    map
}

#[test]
fn the_unit_keeps_its_hardening() {
    let s = unit_settings();
    let one = |k: &str| -> &str {
        match s.get(k).map(Vec::as_slice) {
            Some([v]) => v,
            other => panic!("{k}: {other:?}"),
        }
    };
    for (k, v) in [
        ("Type", "notify"),
        (
            "ExecStart",
            "/usr/local/bin/hermit broker --config /etc/hermit/hermit.toml",
        ),
        ("User", "hermit"),
        ("StateDirectory", "hermit"),
        ("ProtectSystem", "strict"),
        ("ReadWritePaths", "/var/lib/hermit"),
        ("NoNewPrivileges", "yes"),
        ("PrivateTmp", "yes"),
        ("ProtectHome", "yes"),
        ("ProtectKernelTunables", "yes"),
        ("ProtectKernelModules", "yes"),
        ("ProtectKernelLogs", "yes"),
        ("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"),
        ("CapabilityBoundingSet", ""),
        ("KillMode", "mixed"),
        ("KillSignal", "SIGTERM"),
        ("Restart", "on-failure"),
    ] {
        assert_eq!(one(k), v, "{k}");
    }
    assert!(s["SystemCallFilter"].contains(&"@system-service"));
    // Room for max_connections + open_files + 64 with the defaults.
    let nofile: u64 = one("LimitNOFILE").parse().expect("a number");
    assert!(nofile >= 10_000 + 768 + 64, "LimitNOFILE={nofile}");
    // Above the default drain_timeout_ms (10 s), with time for the final fsync.
    let stop: u64 = one("TimeoutStopSec").parse().expect("seconds");
    assert!(stop > 10, "TimeoutStopSec={stop}");
}
