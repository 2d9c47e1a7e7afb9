//! Compaction of `cleanup = compact` topics: what survives (the newest batch
//! per key, every keyless batch, tombstones only within their grace period),
//! what reads return afterwards, and the crash-safety of the segment swap.

mod common;

use std::sync::Arc;

use common::*;
use hermit_broker::config::{FsyncPolicy, Limit};
use hermit_broker::log::compaction::SwapStep;
use hermit_broker::log::compaction::failpoints;
use hermit_broker::log::{Log, LogOptions, Partition};
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;

const TOPIC: &str = "kv";
const T0: u64 = 1_700_000_000_000_000_000;
const MS: u64 = 1_000_000;
const GRACE_MS: u64 = 1_000;
/// "Now" for every compaction below: 10 s after T0.
const NOW: u64 = T0 + 10_000 * MS;

fn kv_opts() -> LogOptions {
    LogOptions {
        fsync: FsyncPolicy::Never,
        segment_bytes: 1024,
        index_interval_bytes: 64,
        retention_ms: Limit::Unlimited,
        delete_retention_ms: GRACE_MS,
        ..LogOptions::default()
    }
}

fn create(log: &Log) -> Arc<Partition> {
    log.create_topic(
        TOPIC,
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Compact,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .unwrap();
    log.partition(TOPIC, 0, false).unwrap()
}

/// One appended batch, as the model sees it.
#[derive(Debug, Clone)]
struct Entry {
    base: u64,
    stored: Vec<u8>,
    key: Vec<u8>,
    tombstone: bool,
    ts: u64,
}

/// Appends through the partition and remembers what went where.
struct Writer {
    p: Arc<Partition>,
    entries: Vec<Entry>,
    seed: u64,
}

impl Writer {
    fn new(p: Arc<Partition>) -> Self {
        Writer {
            p,
            entries: Vec::new(),
            seed: 0,
        }
    }

    fn push(&mut self, bytes: Vec<u8>, key: &[u8], tombstone: bool, ts: u64) {
        let a = self.p.append(&bytes).unwrap();
        self.entries.push(Entry {
            base: a.base_offset,
            stored: stamped(&bytes, a.base_offset),
            key: key.to_vec(),
            tombstone,
            ts,
        });
    }

    fn value(&mut self, key: &str, records: usize) {
        self.seed += 1;
        let ts = T0 + self.seed * MS;
        let b = keyed(key.as_bytes(), records, 40, self.seed, ts);
        self.push(b, key.as_bytes(), false, ts);
    }

    fn keyless(&mut self) {
        self.value("", 2);
    }

    fn tombstone(&mut self, key: &str, ts: u64) {
        self.push(tombstone(key.as_bytes(), ts), key.as_bytes(), true, ts);
    }

    fn roll(&self) {
        self.p.force_roll().unwrap();
    }

    /// What a full compaction at `now` keeps of the entries below `active_base`
    /// (everything from the active segment on is kept as is).
    fn model(&self, active_base: u64, now: u64) -> Vec<(u64, Vec<u8>)> {
        self.entries
            .iter()
            .filter(|e| {
                if e.base >= active_base || e.key.is_empty() {
                    return true;
                }
                let newest = self
                    .entries
                    .iter()
                    .filter(|o| o.key == e.key)
                    .map(|o| o.base)
                    .max()
                    == Some(e.base);
                let expired = e.tombstone && e.ts + GRACE_MS * MS < now;
                newest && !expired
            })
            .map(|e| (e.base, e.stored.clone()))
            .collect()
    }

    fn all(&self) -> Vec<(u64, Vec<u8>)> {
        self.entries
            .iter()
            .map(|e| (e.base, e.stored.clone()))
            .collect()
    }
}

fn as_walk(batches: &[(u64, Vec<u8>)]) -> Vec<Got> {
    batches
        .iter()
        .map(|b| Got::Batches(vec![b.clone()]))
        .collect()
}

/// The base of the active segment (the newest `.log`).
fn active_base(log: &Log) -> u64 {
    let dir = partition_dir(log.dir(), TOPIC, 0);
    let name = segment_logs(&dir).pop().unwrap();
    name.file_stem().unwrap().to_str().unwrap().parse().unwrap()
}

#[test]
fn compaction_keeps_the_newest_batch_per_key_and_young_tombstones() {
    let dir = scratch_dir();
    let log = open(dir.path(), kv_opts());
    let mut w = Writer::new(create(&log));
    // A segment of nothing but old values of one key: it empties and goes.
    for _ in 0..6 {
        w.value("a", 2);
    }
    w.roll();
    for round in 0..3 {
        w.value("a", 1);
        w.value("b", 2);
        w.keyless();
        w.value("c", 1);
        w.value("d", 3);
        w.value("e", 1);
        if round == 1 {
            w.value("only-once", 1);
        }
        w.value("f", 1);
    }
    // Tombstones: c long ago (expired), d just now (within the grace
    // period), e superseded by a later value.
    w.tombstone("c", T0 + MS);
    w.tombstone("d", NOW - 100 * MS);
    w.tombstone("e", NOW - 100 * MS);
    w.keyless();
    w.value("e", 2);
    w.value("b", 1);
    w.roll();
    // The active segment: f's newest value lives here.
    w.value("f", 1);
    w.value("g", 1);
    let p = w.p.clone();
    // Only durable batches supersede older ones (see the test below).
    p.sync().unwrap();
    let rolled_before = p.segment_count() - 1;
    assert!(
        rolled_before >= 3,
        "several rolled segments: {rolled_before}"
    );
    assert_eq!(walk(&p), as_walk(&w.all()));

    let active = active_base(&log);
    let want = w.model(active, NOW);
    let dropped: Vec<&Entry> = w
        .entries
        .iter()
        .filter(|e| !want.iter().any(|k| k.0 == e.base))
        .collect();
    // The model drops what the test is about.
    let dropped_keys = |k: &str| dropped.iter().filter(|e| e.key == k.as_bytes()).count();
    assert_eq!(dropped_keys("a"), 8);
    assert_eq!(
        dropped_keys("c"),
        4,
        "three values and the expired tombstone"
    );
    assert_eq!(dropped_keys("d"), 3, "the values, not the young tombstone");
    assert_eq!(
        dropped_keys("e"),
        4,
        "three values and the superseded tombstone"
    );
    assert_eq!(dropped_keys("f"), 3, "superseded from the active segment");
    assert_eq!(dropped_keys(""), 0);
    assert_eq!(dropped_keys("only-once"), 0);

    let d_tombstone = w
        .entries
        .iter()
        .find(|e| e.tombstone && e.key == b"d")
        .unwrap()
        .base;
    let report = p.compact(NOW).unwrap();
    assert_eq!(report.batches_removed, dropped.len() as u64);
    assert!(report.segments_rewritten >= 2);
    assert!(report.bytes_freed > 0);
    assert_eq!(
        walk(&p),
        as_walk(&want),
        "reads return exactly the survivors"
    );
    // The segment of old "a" values is gone, and the log starts later.
    assert!(p.segment_count() - 1 < rolled_before);
    assert!(p.log_start() > 0);
    // A read at a dropped offset returns the next surviving batch.
    for e in &dropped {
        if e.base < p.log_start() {
            continue;
        }
        let next = want.iter().find(|k| k.0 > e.base).unwrap();
        match read_at(&p, e.base, 1) {
            Got::Batches(b) => assert_eq!(b[0], *next, "read at dropped offset {}", e.base),
            other => panic!("read at {}: {other:?}", e.base),
        }
    }
    assert_eq!(
        p.high_watermark(),
        w.entries.last().map_or(0, |e| e.base + 1)
    );

    // Compacting again changes nothing.
    assert_eq!(p.compact(NOW).unwrap().batches_removed, 0);

    // The compacted log reopens as it is.
    log.close().unwrap();
    drop((w, p, log));
    let log = open(dir.path(), kv_opts());
    let p = log.partition(TOPIC, 0, false).unwrap();
    assert_eq!(walk(&p), as_walk(&want), "after a reopen");

    // Later, the young tombstone expires too.
    let later = NOW + 2 * GRACE_MS * MS;
    let report = p.compact(later).unwrap();
    assert_eq!(report.batches_removed, 1, "the tombstone of d");
    let want_later: Vec<_> = want
        .iter()
        .filter(|b| b.0 != d_tombstone)
        .cloned()
        .collect();
    assert_eq!(walk(&p), as_walk(&want_later));
}

/// A log where compaction rewrites exactly one rolled segment (the middle
/// one): `(data dir, contents before, contents after a full compaction)`.
fn one_segment_to_compact() -> (tempfile::TempDir, Vec<Got>, Vec<Got>, u64) {
    let dir = scratch_dir();
    let log = open(dir.path(), kv_opts());
    let mut w = Writer::new(create(&log));
    for k in ["u1", "u2", "u3", "u4"] {
        w.value(k, 1);
    }
    w.roll();
    let middle = w.p.next_offset();
    w.value("a", 2);
    w.value("b", 1);
    w.keyless();
    w.value("c", 1);
    w.roll();
    w.value("a", 1);
    w.value("b", 2);
    w.value("d", 1);
    w.roll();
    w.value("g", 1);
    let p = w.p.clone();
    let before = walk(&p);
    let after = as_walk(&w.model(active_base(&log), NOW));
    assert_eq!(
        before.len(),
        after.len() + 2,
        "a and b in the middle segment go"
    );
    log.close().unwrap();
    drop((w, p, log));
    (dir, before, after, middle)
}

#[test]
fn a_swap_interrupted_after_any_step_leaves_the_old_or_the_new_log() {
    let (pristine, before, after, middle) = one_segment_to_compact();
    // The reference: an uninterrupted compaction, and the index it writes.
    let reference = scratch_dir();
    copy_dir(pristine.path(), reference.path());
    {
        let log = open(reference.path(), kv_opts());
        let p = log.partition(TOPIC, 0, false).unwrap();
        let report = p.compact(NOW).unwrap();
        assert_eq!(report.segments_rewritten, 1);
        assert_eq!(walk(&p), after);
        log.close().unwrap();
    }
    let idx_name = format!("{middle:020}.idx");
    let log_name = format!("{middle:020}.log");
    let pdir = |d: &std::path::Path| partition_dir(d, TOPIC, 0);
    let new_idx = std::fs::read(pdir(reference.path()).join(&idx_name)).unwrap();
    let old_idx = std::fs::read(pdir(pristine.path()).join(&idx_name)).unwrap();
    let new_log = std::fs::read(pdir(reference.path()).join(&log_name)).unwrap();
    assert_ne!(new_idx, old_idx);

    // Which log each crash point leaves: the rename is the commit point.
    let cases = [
        (SwapStep::WroteCleaned, false),
        (SwapStep::RemovedOldIndex, false),
        (SwapStep::Renamed, true),
        (SwapStep::WroteIndex, true),
    ];
    for (step, gives_new) in cases {
        let d = scratch_dir();
        copy_dir(pristine.path(), d.path());
        {
            let log = open(d.path(), kv_opts());
            let p = log.partition(TOPIC, 0, false).unwrap();
            let err = {
                let _stop = failpoints::stop_compaction_after(step);
                p.compact(NOW).unwrap_err()
            };
            assert!(err.to_string().contains("interrupted"), "{step:?}: {err}");
            // A crash: no close, no fsync, nothing more written.
            drop(p);
            drop(log);
        }
        let log = open(d.path(), kv_opts());
        let p = log.partition(TOPIC, 0, false).unwrap();
        let got = walk(&p);
        let want = if gives_new { &after } else { &before };
        assert_eq!(
            &got,
            want,
            "{step:?}: the {} log",
            if gives_new { "new" } else { "old" }
        );
        let files = file_names(&pdir(d.path()));
        assert!(
            files
                .iter()
                .all(|f| !f.ends_with(".cleaned") && !f.ends_with(".tmp")),
            "{step:?}: leftovers removed: {files:?}"
        );
        // The index is whole again (rebuilt when the crash removed it).
        let idx = std::fs::read(pdir(d.path()).join(&idx_name)).unwrap();
        assert_eq!(
            &idx,
            if gives_new { &new_idx } else { &old_idx },
            "{step:?}"
        );
        if gives_new {
            let seg = std::fs::read(pdir(d.path()).join(&log_name)).unwrap();
            assert_eq!(seg, new_log, "{step:?}");
        }
        // Compaction resumes and reaches the same end state.
        p.compact(NOW).unwrap();
        assert_eq!(walk(&p), after, "{step:?}: after compacting again");
        log.close().unwrap();
        drop((p, log));
        let log = open(d.path(), kv_opts());
        let p = log.partition(TOPIC, 0, false).unwrap();
        assert_eq!(walk(&p), after, "{step:?}: after another reopen");
    }
}

#[test]
fn only_a_durable_value_supersedes_an_older_one() {
    let dir = scratch_dir();
    let log = open(dir.path(), kv_opts());
    let mut w = Writer::new(create(&log));
    w.value("k", 1);
    w.value("other", 1);
    w.roll(); // rolled and fsynced
    let v1 = w.entries[0].clone();
    let p = w.p.clone();
    let durable = p.synced_offset();
    // A newer value, written but not yet fsynced (fsync = never: not until close).
    w.value("k", 1);
    assert!(p.synced_offset() < p.next_offset());
    p.compact(NOW).unwrap();
    // Power loss: the unsynced tail of the active segment is gone.
    let active = segment_logs(&partition_dir(dir.path(), TOPIC, 0))
        .pop()
        .unwrap();
    drop((w, p, log));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&active)
        .unwrap()
        .set_len(0)
        .unwrap();
    let log = open(dir.path(), kv_opts());
    let p = log.partition(TOPIC, 0, false).unwrap();
    assert_eq!(p.next_offset(), durable);
    let got = walk(&p);
    assert!(
        got.contains(&Got::Batches(vec![(v1.base, v1.stored.clone())])),
        "the durable value of k survives the loss of the newer one: {got:?}"
    );

    // Once the newer value is durable, compaction drops the older one.
    let mut w = Writer::new(p.clone());
    w.value("k", 1);
    log.close().unwrap();
    let report = p.compact(NOW).unwrap();
    assert_eq!(report.batches_removed, 1);
    assert!(!walk(&p).contains(&Got::Batches(vec![(v1.base, v1.stored)])));
}
