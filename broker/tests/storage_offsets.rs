//! The consumer-group offsets store: concurrent commits across the shards,
//! restarts, the high-watermark check, topic deletion and compaction of
//! `__consumer_offsets`.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Barrier};

use common::*;
use hermit_broker::config::{FsyncPolicy, Limit};
use hermit_broker::engine::Engine;
use hermit_broker::log::{LogOptions, Partition, StorageError};
use hermit_broker::offsets::{SHARDS, shard_of};
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::record::BatchBuilder;
use hermit_protocol::{Cleanup, Status};

fn offsets_opts(fsync: FsyncPolicy) -> LogOptions {
    LogOptions {
        fsync,
        // Small segments: __consumer_offsets rolls many times under load.
        segment_bytes: 64 * 1024,
        index_interval_bytes: 1024,
        retention_ms: Limit::Unlimited,
        delete_retention_ms: 1_000,
        // Some tests cut files in partition directories.
        partition_slots: false,
        ..LogOptions::default()
    }
}

/// Open the data directory as the broker does: the log and the offsets over it.
fn open(dir: &std::path::Path, opts: LogOptions) -> Engine {
    Engine::open(dir, opts).expect("open engine")
}

fn create(engine: &Engine, name: &str, partitions: u32) {
    engine
        .log()
        .create_topic(
            name,
            TopicSettings {
                partitions,
                cleanup: Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .unwrap();
}

/// One batch of `n` empty records: the partition's engine end moves by `n`.
fn records(n: usize) -> Vec<u8> {
    let mut b = BatchBuilder::new(b"");
    for _ in 0..n {
        b.push(&[]);
    }
    b.finish(1).unwrap()
}

/// Append `n` records and wait until they are visible (under fsync = always
/// the high watermark moves once the group commit has synced them).
fn fill(p: &Arc<Partition>, n: usize) {
    let end = p.append(&records(n)).unwrap().next_offset;
    let mut hw = p.subscribe();
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(hw.wait_for(|&h| h >= end))
        .unwrap();
}

type Key = (String, String, u32);

#[test]
fn a_thousand_concurrent_committers_keep_every_last_offset_across_a_restart() {
    const TOPICS: usize = 8;
    const PARTITIONS: u32 = 4;
    const KEYS: usize = 800;
    const THREADS: usize = 1000;
    const COMMITS: u64 = 20;
    let dir = scratch_dir();
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Always));
    for t in 0..TOPICS {
        create(&engine, &format!("t{t}"), PARTITIONS);
        for p in 0..PARTITIONS {
            fill(
                &engine.log().partition(&format!("t{t}"), p, false).unwrap(),
                1000,
            );
        }
    }
    let key = |i: usize| -> Key {
        (
            format!("group-{}", i / 32),
            format!("t{}", (i / 4) % TOPICS),
            (i % 4) as u32,
        )
    };
    let keys: Vec<Key> = (0..KEYS).map(key).collect();
    assert_eq!(keys.iter().collect::<HashSet<_>>().len(), KEYS);
    let shards: HashSet<usize> = keys.iter().map(|(g, t, p)| shard_of(g, t, *p)).collect();
    assert!(
        shards.len() > SHARDS * 3 / 4,
        "the keys spread over the shards: {} of {SHARDS}",
        shards.len()
    );
    // Thread i commits an increasing sequence for key i % KEYS; threads
    // i and i + KEYS (i < THREADS - KEYS) race on the same key.
    let start = |i: usize| (i % 50) as u64 + if i >= KEYS { 450 } else { 0 };
    let last = |i: usize| start(i) + COMMITS - 1;
    let barrier = Barrier::new(THREADS);
    std::thread::scope(|s| {
        for i in 0..THREADS {
            let (engine, barrier, k) = (&engine, &barrier, key(i % KEYS));
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(s, move || {
                    barrier.wait();
                    for j in 0..COMMITS {
                        engine.commit(&k.0, &k.1, k.2, start(i) + j).unwrap();
                    }
                })
                .unwrap();
        }
    });
    let mut expected: BTreeMap<Key, u64> = BTreeMap::new();
    for (i, k) in keys.iter().enumerate() {
        let got = engine.committed(&k.0, &k.1, k.2).unwrap();
        if i < THREADS - KEYS {
            assert!(
                got == last(i) || got == last(i + KEYS),
                "{k:?}: {got} is the last commit of one of its two threads"
            );
        } else {
            assert_eq!(got, last(i), "{k:?}");
        }
        expected.insert(k.clone(), got);
    }
    let offsets = engine.offsets_partition().clone();
    assert!(offsets.segment_count() > 5, "__consumer_offsets rolled");
    assert_eq!(offsets.next_offset(), (THREADS as u64) * COMMITS);
    engine.close().unwrap();
    drop((offsets, engine));

    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Always));
    for (k, want) in &expected {
        assert_eq!(
            engine.committed(&k.0, &k.1, k.2),
            Some(*want),
            "{k:?} after a restart"
        );
    }
    let all = engine.offsets().all();
    assert_eq!(all.len(), KEYS);
    engine.close().unwrap();
}

#[test]
fn a_commit_ahead_of_the_high_watermark_is_refused() {
    let dir = scratch_dir();
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Never));
    create(&engine, "t", 2);
    let p = engine.log().partition("t", 0, false).unwrap();
    p.append(&records(10)).unwrap();
    assert_eq!(p.high_watermark(), 10);
    engine.commit("g", "t", 0, 10).unwrap();
    match engine.commit("g", "t", 0, 11) {
        Err(
            e @ StorageError::OffsetAheadOfLog {
                offset: 11,
                high_watermark: 10,
            },
        ) => assert_eq!(e.status(), Status::OffsetAheadOfLog),
        other => panic!("expected OffsetAheadOfLog, got {other:?}"),
    }
    assert_eq!(engine.committed("g", "t", 0), Some(10), "unchanged");
    // An empty partition takes only offset 0.
    engine.commit("g", "t", 1, 0).unwrap();
    assert!(matches!(
        engine.commit("g", "t", 1, 1),
        Err(StorageError::OffsetAheadOfLog { .. })
    ));
    assert!(matches!(
        engine.commit("g", "t", 2, 0),
        Err(StorageError::UnknownPartition { .. })
    ));
}

#[test]
fn deleting_a_topic_forgets_its_offsets_across_a_restart() {
    let dir = scratch_dir();
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Always));
    for t in ["gone", "kept"] {
        create(&engine, t, 2);
        for p in 0..2 {
            fill(&engine.log().partition(t, p, false).unwrap(), 100);
        }
    }
    for g in ["g1", "g2"] {
        for t in ["gone", "kept"] {
            for p in 0..2 {
                engine.commit(g, t, p, 42 + p as u64).unwrap();
            }
        }
    }
    engine.delete_topic("gone").unwrap();
    assert_eq!(engine.committed("g1", "gone", 0), None);
    engine.close().unwrap();
    drop(engine);

    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Always));
    assert!(engine.log().topic("gone").is_none());
    for g in ["g1", "g2"] {
        for p in 0..2 {
            assert_eq!(engine.committed(g, "gone", p), None, "{g}/gone/{p}");
            assert_eq!(engine.committed(g, "kept", p), Some(42 + p as u64));
        }
    }
    // A new topic of the same name starts with no offsets.
    create(&engine, "gone", 2);
    assert_eq!(engine.committed("g1", "gone", 0), None);
    assert_eq!(engine.offsets().all().len(), 4);
}

#[test]
fn offsets_survive_compaction_of_the_offsets_topic() {
    let dir = scratch_dir();
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Always));
    for t in ["a", "b"] {
        create(&engine, t, 1);
        fill(&engine.log().partition(t, 0, false).unwrap(), 1000);
    }
    let mut expected: BTreeMap<Key, u64> = BTreeMap::new();
    for round in 0..30u64 {
        for g in 0..10 {
            for t in ["a", "b"] {
                let o = round * 10 + g;
                engine.commit(&format!("g{g}"), t, 0, o).unwrap();
                expected.insert((format!("g{g}"), t.into(), 0), o);
            }
        }
    }
    let offsets = engine.offsets_partition().clone();
    offsets.force_roll().unwrap();
    // Topic b goes: tombstones for its keys.
    engine.delete_topic("b").unwrap();
    expected.retain(|k, _| k.1 != "b");
    // Newer commits for some keys, rolled too.
    for g in 0..5 {
        engine.commit(&format!("g{g}"), "a", 0, 900 + g).unwrap();
        expected.insert((format!("g{g}"), "a".into(), 0), 900 + g);
    }
    offsets.force_roll().unwrap();
    let size_before = offsets.size_bytes();
    // Far enough in the future that the tombstones expire as well.
    let now = hermit_broker::log::partition::now_ns() + 3_600 * 1_000_000_000;
    let report = offsets.compact(now).unwrap();
    // 600 value commits + 10 tombstones + 5 newer values; 10 survive.
    assert_eq!(report.batches_removed, 600 + 10 + 5 - 10);
    assert!(offsets.size_bytes() < size_before / 10);
    engine.close().unwrap();
    drop((offsets, engine));

    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Always));
    let got: BTreeMap<Key, u64> = engine
        .offsets()
        .all()
        .into_iter()
        .map(|(g, t, p, o)| ((g, t, p), o))
        .collect();
    assert_eq!(got, expected);
    // And commits continue on top of the compacted engine.
    engine.commit("g0", "a", 0, 1000).unwrap();
    engine.close().unwrap();
    drop(engine);
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Always));
    assert_eq!(engine.committed("g0", "a", 0), Some(1000));
    assert_eq!(engine.committed("g1", "a", 0), Some(901));
}

#[test]
fn a_committed_offset_ahead_of_a_log_that_lost_its_tail_is_clamped() {
    let dir = scratch_dir();
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Never));
    create(&engine, "t", 1);
    let p = engine.log().partition("t", 0, false).unwrap();
    p.append(&records(10)).unwrap();
    p.append(&records(5)).unwrap();
    engine.commit("g", "t", 0, 15).unwrap();
    engine.close().unwrap();
    drop((p, engine));
    // The topic's last batch never reached the disk; the commit did.
    let seg = segment_logs(&partition_dir(dir.path(), "t", 0))
        .pop()
        .unwrap();
    let first_len = batches_in(&seg)[0].1;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&seg)
        .unwrap()
        .set_len(first_len)
        .unwrap();
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Never));
    assert_eq!(
        engine.log().partition("t", 0, false).unwrap().next_offset(),
        10
    );
    assert_eq!(engine.committed("g", "t", 0), Some(10));
    engine.close().unwrap();
    drop(engine);
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Never));
    assert_eq!(engine.committed("g", "t", 0), Some(10), "stays clamped");
}

#[test]
fn a_deleted_topic_stays_forgotten_when_its_tombstones_were_lost() {
    let dir = scratch_dir();
    let opts = || offsets_opts(FsyncPolicy::Never);
    {
        let engine = open(dir.path(), opts());
        for t in ["t", "kept"] {
            create(&engine, t, 1);
            engine
                .log()
                .partition(t, 0, false)
                .unwrap()
                .append(&records(10))
                .unwrap();
        }
        engine.commit("g", "t", 0, 5).unwrap();
        engine.commit("g", "kept", 0, 7).unwrap();
        engine.close().unwrap();
    }
    let offsets_dir = partition_dir(dir.path(), hermit_broker::offsets::OFFSETS_TOPIC, 0);
    let active = segment_logs(&offsets_dir).pop().unwrap();
    let durable_len = std::fs::metadata(&active).unwrap().len();
    {
        let engine = open(dir.path(), opts());
        engine.delete_topic("t").unwrap();
        assert_eq!(engine.committed("g", "t", 0), None);
        // Power loss: the topic's removal is durable (a directory rename,
        // fsynced), the tombstones appended after it were not yet.
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&active)
        .unwrap()
        .set_len(durable_len)
        .unwrap();
    let engine = open(dir.path(), opts());
    assert!(engine.log().topic("t").is_none());
    assert_eq!(engine.committed("g", "t", 0), None, "forgotten");
    assert_eq!(engine.committed("g", "kept", 0), Some(7));
    // A new topic of that name does not inherit the old position.
    create(&engine, "t", 1);
    assert_eq!(engine.committed("g", "t", 0), None);
    engine.close().unwrap();
    drop(engine);
    let engine = open(dir.path(), opts());
    assert_eq!(engine.committed("g", "t", 0), None, "and after a restart");
}

#[test]
fn the_engine_not_the_log_creates_and_keeps_the_offsets_topic() {
    use hermit_broker::offsets::OFFSETS_TOPIC;
    let dir = scratch_dir();
    {
        // The log alone knows no consumer groups: it makes no offsets topic.
        let log = common::open(dir.path(), offsets_opts(FsyncPolicy::Never));
        assert!(log.topic(OFFSETS_TOPIC).is_none());
        log.close().unwrap();
    }
    let engine = open(dir.path(), offsets_opts(FsyncPolicy::Never));
    let t = engine.log().topic(OFFSETS_TOPIC).expect("created at open");
    assert_eq!(t.partition_count(), 1);
    assert_eq!(t.cleanup(), Cleanup::Compact);
    let e = engine.delete_topic(OFFSETS_TOPIC).unwrap_err();
    assert!(e.to_string().contains("cannot be deleted"), "{e}");
    assert!(engine.log().topic(OFFSETS_TOPIC).is_some());
    engine.close().unwrap();
}
