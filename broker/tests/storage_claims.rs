//! The claim store over real files: each batch handed out once, a retry
//! given the same batch, only durable batches, restarts, compaction of
//! `__claims`, topic deletion (and lost tombstones), a position ahead of a
//! log that lost its tail, a torn `__claims` tail, and refusals that move
//! nothing.

mod common;

use std::sync::Arc;

use common::*;
use hermit_broker::claims::{CLAIMS_TOPIC, REMEMBERED};
use hermit_broker::config::{FsyncPolicy, Limit};
use hermit_broker::engine::{ClaimAnswer, ClaimRequest, Engine};
use hermit_broker::log::{LogOptions, Partition, StorageError};
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::record::{BatchBuilder, BatchView};

fn claims_opts(fsync: FsyncPolicy) -> LogOptions {
    LogOptions {
        fsync,
        // Small segments: __claims rolls under load.
        segment_bytes: 256 * 1024,
        index_interval_bytes: 1024,
        retention_ms: Limit::Unlimited,
        delete_retention_ms: 1_000,
        // Some tests cut files in partition directories.
        partition_slots: false,
        ..LogOptions::default()
    }
}

fn open(dir: &std::path::Path, opts: LogOptions) -> Engine {
    Engine::open(dir, opts).expect("open engine")
}

fn create(engine: &Engine, name: &str, partitions: u32, cleanup: Cleanup) {
    engine
        .create_topic(
            name,
            TopicSettings {
                partitions,
                cleanup,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .unwrap();
}

/// One batch of `n` records, each naming `tag`, with `key`.
fn records(key: &[u8], n: usize, tag: u32) -> Vec<u8> {
    let mut b = BatchBuilder::new(key);
    for i in 0..n {
        b.push(format!("{tag}/{i}").as_bytes());
    }
    b.finish(1).unwrap()
}

/// Append batches of the given record counts (tags 0, 1, …) and wait until
/// they are visible (under fsync = always: synced by the group commit).
fn fill(p: &Arc<Partition>, counts: &[usize]) {
    let mut end = 0;
    for (tag, &n) in counts.iter().enumerate() {
        end = p.append(&records(b"", n, tag as u32)).unwrap().next_offset;
    }
    let mut hw = p.subscribe();
    rt().block_on(hw.wait_for(|&h| h >= end)).unwrap();
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

/// A claim by `principal` (a byte repeated) with the id `id`.
fn request(engine: &Engine, id: u8, principal: u8) -> ClaimRequest {
    ClaimRequest {
        id: [id; 16],
        principal: [principal; 32],
        durable_only: engine.options().fsync != FsyncPolicy::Never,
        max_batch: u64::MAX,
    }
}

fn claim(engine: &Engine, p: &Arc<Partition>, id: u8, principal: u8) -> ClaimAnswer {
    try_claim(engine, p, request(engine, id, principal), || true).unwrap()
}

fn try_claim(
    engine: &Engine,
    p: &Arc<Partition>,
    req: ClaimRequest,
    admit: impl FnMut() -> bool + Send,
) -> Result<ClaimAnswer, StorageError> {
    rt().block_on(engine.claim(p, req, admit, &mut Vec::new()))
}

/// The answer's `(offset, next, new)`, its batch checked to be exactly one
/// whole batch starting at `offset`.
fn claimed(a: ClaimAnswer) -> (u64, u64, bool) {
    match a {
        ClaimAnswer::Claimed {
            offset,
            next,
            batch,
            new,
            ..
        } => {
            let (view, len) = BatchView::parse(&batch).expect("a whole batch");
            assert_eq!(len, batch.len(), "exactly one batch");
            view.verify_crc().unwrap();
            assert_eq!(view.header.base_offset, offset);
            assert_eq!(view.header.next_offset(), Some(next));
            (offset, next, new)
        }
        other => panic!("expected a batch, got {other:?}"),
    }
}

fn nothing(a: ClaimAnswer) -> u64 {
    match a {
        ClaimAnswer::Nothing { position, .. } => position,
        other => panic!("expected nothing to claim, got {other:?}"),
    }
}

#[test]
fn each_batch_is_handed_out_once_and_a_retry_gets_the_same_one() {
    let dir = scratch_dir();
    let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
    create(&engine, "jobs", 2, Cleanup::Delete);
    let p = engine.partition("jobs", 0, false).unwrap();
    // Batches of 1, 3 and 2 records: offsets 0, 1..4, 4..6.
    fill(&p, &[1, 3, 2]);
    assert_eq!(claimed(claim(&engine, &p, 1, 0xa)), (0, 1, true));
    assert_eq!(claimed(claim(&engine, &p, 2, 0xa)), (1, 4, true));
    // A retry: the same batch, nothing moved.
    assert_eq!(claimed(claim(&engine, &p, 1, 0xa)), (0, 1, false));
    assert_eq!(engine.claims().position("jobs", 0), Some(4));
    // The same id from another principal is another claim.
    assert_eq!(claimed(claim(&engine, &p, 1, 0xb)), (4, 6, true));
    assert_eq!(nothing(claim(&engine, &p, 3, 0xa)), 6);
    // A retry still works when nothing is left.
    assert_eq!(claimed(claim(&engine, &p, 2, 0xa)), (1, 4, false));
    // Partitions have their own positions.
    let p1 = engine.partition("jobs", 1, false).unwrap();
    assert_eq!(nothing(claim(&engine, &p1, 9, 0xa)), 0);
    fill(&p1, &[5]);
    assert_eq!(claimed(claim(&engine, &p1, 9, 0xa)), (0, 5, true));
    engine.close().unwrap();
}

#[test]
fn a_partition_remembers_only_its_last_claims() {
    let dir = scratch_dir();
    let engine = open(dir.path(), claims_opts(FsyncPolicy::Never));
    create(&engine, "jobs", 1, Cleanup::Delete);
    let p = engine.partition("jobs", 0, false).unwrap();
    fill(&p, &vec![1; REMEMBERED + 2]);
    for id in 0..=REMEMBERED as u8 {
        assert_eq!(claimed(claim(&engine, &p, id, 1)).0, u64::from(id));
    }
    // Claim 0 is the 65th newest: forgotten, so asking again is a new claim.
    assert_eq!(
        claimed(claim(&engine, &p, 0, 1)),
        (REMEMBERED as u64 + 1, REMEMBERED as u64 + 2, true)
    );
    // Claim 2 is still remembered.
    assert_eq!(claimed(claim(&engine, &p, 2, 1)), (2, 3, false));
}

#[test]
fn only_durable_batches_are_handed_out() {
    let dir = scratch_dir();
    {
        // Made first: under `interval` a creation waits for the next round.
        let engine = open(dir.path(), claims_opts(FsyncPolicy::Never));
        create(&engine, "jobs", 1, Cleanup::Delete);
        engine.close().unwrap();
    }
    // Interval: consumers see what is written, claimers only what is
    // synced. No sync thread (`manual_sync`): under `interval` its first
    // round runs when the thread starts, which under load may be after the
    // appends below; here only the test's own `sync` calls make data durable.
    let opts = LogOptions {
        manual_sync: true,
        ..claims_opts(FsyncPolicy::Interval(std::time::Duration::from_secs(3600)))
    };
    let engine = open(dir.path(), opts);
    let p = engine.partition("jobs", 0, false).unwrap();
    p.append(&records(b"", 1, 0)).unwrap();
    p.append(&records(b"", 1, 1)).unwrap();
    assert_eq!(p.high_watermark(), 2, "visible");
    assert_eq!(p.synced_offset(), 0, "not durable");
    assert_eq!(nothing(claim(&engine, &p, 1, 1)), 0);
    p.sync().unwrap();
    p.append(&records(b"", 1, 2)).unwrap();
    assert_eq!(claimed(claim(&engine, &p, 1, 1)), (0, 1, true));
    assert_eq!(claimed(claim(&engine, &p, 2, 1)), (1, 2, true));
    // Offset 2 is written and visible, not synced.
    assert_eq!(nothing(claim(&engine, &p, 3, 1)), 2);
    // The claim's own record waits for the same kind of sync.
    let ClaimAnswer::Claimed { durable_at, .. } = claim(&engine, &p, 2, 1) else {
        panic!("a retry")
    };
    assert!(engine.claims_partition().synced_offset() < durable_at);
    engine.claims_partition().sync().unwrap();
    assert!(engine.claims_partition().synced_offset() >= durable_at);
}

#[test]
fn positions_and_remembered_claims_survive_a_restart() {
    let dir = scratch_dir();
    {
        let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
        create(&engine, "jobs", 1, Cleanup::Delete);
        let p = engine.partition("jobs", 0, false).unwrap();
        fill(&p, &[1, 1, 2, 1]);
        for id in 1..=3 {
            claimed(claim(&engine, &p, id, 7));
        }
        engine.close().unwrap();
    }
    let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
    assert_eq!(engine.claims().position("jobs", 0), Some(4));
    let p = engine.partition("jobs", 0, false).unwrap();
    // Claim 2's answer may have been lost in the restart: its retry gets
    // its batch, already durable.
    let ClaimAnswer::Claimed {
        offset, durable_at, ..
    } = claim(&engine, &p, 2, 7)
    else {
        panic!("a retry")
    };
    assert_eq!((offset, durable_at), (1, 0));
    assert_eq!(claimed(claim(&engine, &p, 4, 7)), (4, 5, true));
    assert_eq!(nothing(claim(&engine, &p, 5, 7)), 5);
}

#[test]
fn compaction_of_the_claims_topic_keeps_every_partitions_state() {
    const PARTITIONS: u32 = 4;
    let dir = scratch_dir();
    let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
    create(&engine, "a", PARTITIONS, Cleanup::Delete);
    create(&engine, "b", 1, Cleanup::Delete);
    let parts: Vec<_> = (0..PARTITIONS)
        .map(|i| engine.partition("a", i, false).unwrap())
        .collect();
    for p in &parts {
        fill(p, &[1; 100]);
    }
    let b = engine.partition("b", 0, false).unwrap();
    fill(&b, &[1; 10]);
    // 30 claims per partition of a, spread over the rolled segments.
    let claims = engine.claims_partition().clone();
    for round in 0..30u8 {
        for p in &parts {
            claimed(claim(&engine, p, round, 1));
        }
        if round % 10 == 9 {
            claims.force_roll().unwrap();
        }
    }
    claimed(claim(&engine, &b, 0, 1));
    claims.force_roll().unwrap();
    // Topic b goes: a tombstone for its key.
    engine.delete_topic("b").unwrap();
    claims.force_roll().unwrap();
    let size_before = claims.size_bytes();
    // Far enough in the future that the tombstone expires as well.
    let now = hermit_broker::log::partition::now_ns() + 3_600 * 1_000_000_000;
    let report = claims.compact(now).unwrap();
    // 120 + 1 states and 1 tombstone; the newest state of each of a's
    // partitions survives.
    assert_eq!(report.batches_removed, 120 + 1 + 1 - 4);
    assert!(claims.size_bytes() < size_before / 10);
    engine.close().unwrap();
    drop((claims, parts, b, engine));

    let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
    assert_eq!(engine.claims().topics(), ["a"]);
    for i in 0..PARTITIONS {
        assert_eq!(engine.claims().position("a", i), Some(30));
        let p = engine.partition("a", i, false).unwrap();
        // The whole state survived: the newest claims are remembered.
        assert_eq!(claimed(claim(&engine, &p, 29, 1)), (29, 30, false));
        assert_eq!(claimed(claim(&engine, &p, 0, 1)), (0, 1, false));
        assert_eq!(claimed(claim(&engine, &p, 100, 1)), (30, 31, true));
    }
}

#[test]
fn deleting_a_topic_forgets_its_claims_across_a_restart() {
    let dir = scratch_dir();
    let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
    for t in ["gone", "kept"] {
        create(&engine, t, 1, Cleanup::Delete);
        let p = engine.partition(t, 0, false).unwrap();
        fill(&p, &[1, 1, 1]);
        claimed(claim(&engine, &p, 1, 1));
        claimed(claim(&engine, &p, 2, 1));
    }
    let stale = engine.partition("gone", 0, false).unwrap();
    engine.delete_topic("gone").unwrap();
    assert_eq!(engine.claims().position("gone", 0), None);
    // A claim through a handle taken before the deletion records nothing.
    let e = try_claim(&engine, &stale, request(&engine, 3, 1), || true).unwrap_err();
    assert!(matches!(e, StorageError::UnknownTopic(_)), "{e}");
    assert_eq!(engine.claims().position("gone", 0), None);
    // A new topic of that name starts at 0, also through the old handle's eyes.
    create(&engine, "gone", 1, Cleanup::Delete);
    let e = try_claim(&engine, &stale, request(&engine, 3, 1), || true).unwrap_err();
    assert!(matches!(e, StorageError::UnknownTopic(_)), "{e}");
    let p = engine.partition("gone", 0, false).unwrap();
    fill(&p, &[1]);
    assert_eq!(claimed(claim(&engine, &p, 1, 1)), (0, 1, true));
    engine.close().unwrap();
    drop((p, stale, engine));

    let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
    assert_eq!(engine.claims().position("gone", 0), Some(1));
    assert_eq!(engine.claims().position("kept", 0), Some(2));
}

#[test]
fn a_deleted_topic_stays_forgotten_when_its_tombstones_were_lost() {
    let dir = scratch_dir();
    let opts = || claims_opts(FsyncPolicy::Never);
    {
        let engine = open(dir.path(), opts());
        for t in ["t", "kept"] {
            create(&engine, t, 1, Cleanup::Delete);
            let p = engine.partition(t, 0, false).unwrap();
            fill(&p, &[1, 1]);
            claimed(claim(&engine, &p, 1, 1));
        }
        engine.close().unwrap();
    }
    let claims_dir = partition_dir(dir.path(), CLAIMS_TOPIC, 0);
    let active = segment_logs(&claims_dir).pop().unwrap();
    let durable_len = std::fs::metadata(&active).unwrap().len();
    {
        let engine = open(dir.path(), opts());
        engine.delete_topic("t").unwrap();
        // Power loss: the topic's removal is durable (a directory rename,
        // fsynced), the tombstone appended after it was not yet.
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&active)
        .unwrap()
        .set_len(durable_len)
        .unwrap();
    let engine = open(dir.path(), opts());
    assert_eq!(engine.claims().position("t", 0), None, "forgotten");
    assert_eq!(engine.claims().position("kept", 0), Some(1));
    // A new topic of that name does not inherit the old position.
    create(&engine, "t", 1, Cleanup::Delete);
    let p = engine.partition("t", 0, false).unwrap();
    fill(&p, &[1]);
    assert_eq!(claimed(claim(&engine, &p, 2, 1)), (0, 1, true));
}

#[test]
fn a_claim_position_ahead_of_a_log_that_lost_its_tail_is_clamped() {
    let dir = scratch_dir();
    let opts = || claims_opts(FsyncPolicy::Never);
    {
        let engine = open(dir.path(), opts());
        create(&engine, "t", 1, Cleanup::Delete);
        let p = engine.partition("t", 0, false).unwrap();
        fill(&p, &[10, 5]);
        claimed(claim(&engine, &p, 1, 1));
        claimed(claim(&engine, &p, 2, 1));
        assert_eq!(engine.claims().position("t", 0), Some(15));
        engine.close().unwrap();
    }
    // The topic's last batch never reached the disk; the claims did.
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
    {
        let engine = open(dir.path(), opts());
        let p = engine.partition("t", 0, false).unwrap();
        assert_eq!(p.next_offset(), 10);
        assert_eq!(nothing(claim(&engine, &p, 3, 1)), 10);
        assert_eq!(engine.claims().position("t", 0), Some(10));
        // What is appended next is handed out, from the log end.
        fill(&p, &[2]);
        engine.close().unwrap();
    }
    let engine = open(dir.path(), opts());
    assert_eq!(engine.claims().position("t", 0), Some(10), "stays clamped");
    let p = engine.partition("t", 0, false).unwrap();
    assert_eq!(claimed(claim(&engine, &p, 4, 1)), (10, 12, true));
}

#[test]
fn a_torn_claims_tail_falls_back_to_the_last_whole_state() {
    let dir = scratch_dir();
    let opts = || claims_opts(FsyncPolicy::Never);
    {
        let engine = open(dir.path(), opts());
        create(&engine, "t", 1, Cleanup::Delete);
        let p = engine.partition("t", 0, false).unwrap();
        fill(&p, &[1, 1, 1]);
        claimed(claim(&engine, &p, 1, 1));
        claimed(claim(&engine, &p, 2, 1));
        engine.close().unwrap();
    }
    // The second claim's record is torn: it was never durable, so (under
    // fsync = always) its answer was never sent.
    let active = segment_logs(&partition_dir(dir.path(), CLAIMS_TOPIC, 0))
        .pop()
        .unwrap();
    let len = std::fs::metadata(&active).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&active)
        .unwrap()
        .set_len(len - 7)
        .unwrap();
    let engine = open(dir.path(), opts());
    assert_eq!(engine.claims().position("t", 0), Some(1));
    let p = engine.partition("t", 0, false).unwrap();
    assert_eq!(claimed(claim(&engine, &p, 1, 1)), (0, 1, false));
    // Claim 2 asked again is a new claim, of the batch it never received.
    assert_eq!(claimed(claim(&engine, &p, 2, 1)), (1, 2, true));
}

#[test]
fn refused_claims_move_nothing() {
    let dir = scratch_dir();
    let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
    create(&engine, "t", 1, Cleanup::Delete);
    let p = engine.partition("t", 0, false).unwrap();
    fill(&p, &[1, 4]);
    // The admission check says no: nothing handed out, nothing recorded.
    let end = engine.claims_partition().next_offset();
    let a = try_claim(&engine, &p, request(&engine, 1, 1), || false).unwrap();
    assert!(matches!(a, ClaimAnswer::Refused), "{a:?}");
    assert_eq!(engine.claims().position("t", 0), None);
    assert_eq!(engine.claims_partition().next_offset(), end);
    // It is asked once, for a new batch only: not for a retry, nor when
    // there is nothing to claim.
    let mut asked = 0;
    claimed(
        try_claim(&engine, &p, request(&engine, 1, 1), || {
            asked += 1;
            true
        })
        .unwrap(),
    );
    for id in [1, 2, 3] {
        let _ = try_claim(&engine, &p, request(&engine, id, 1), || {
            asked += 1;
            true
        })
        .unwrap();
    }
    assert_eq!(asked, 2, "the first claim and claim 2");
    // A batch larger than the answer may carry stays for another claimer.
    let mut small = request(&engine, 4, 2);
    fill(&p, &[1]);
    let big = records(b"", 1, 2).len() as u64;
    small.max_batch = big - 1;
    let a = try_claim(&engine, &p, small, || true).unwrap();
    assert!(
        matches!(a, ClaimAnswer::TooLarge { offset: 5, len } if len == big),
        "{a:?}"
    );
    assert_eq!(engine.claims().position("t", 0), Some(5));
    small.max_batch = big;
    assert_eq!(
        claimed(try_claim(&engine, &p, small, || true).unwrap()).0,
        5
    );
}

#[test]
fn a_retry_of_a_batch_no_longer_stored_is_out_of_range() {
    let dir = scratch_dir();
    let engine = open(dir.path(), claims_opts(FsyncPolicy::Always));
    create(&engine, "keyed", 1, Cleanup::Compact);
    let p = engine.partition("keyed", 0, false).unwrap();
    p.append(&records(b"k", 1, 0)).unwrap();
    p.append(&records(b"k", 1, 1)).unwrap();
    p.append(&records(b"other", 1, 2)).unwrap();
    let mut hw = p.subscribe();
    rt().block_on(hw.wait_for(|&h| h >= 3)).unwrap();
    assert_eq!(claimed(claim(&engine, &p, 1, 1)), (0, 1, true));
    p.force_roll().unwrap();
    p.compact(hermit_broker::log::partition::now_ns()).unwrap();
    // Offset 0 was superseded by offset 1 and compacted away.
    let e = try_claim(&engine, &p, request(&engine, 1, 1), || true).unwrap_err();
    assert!(
        matches!(e, StorageError::OffsetOutOfRange { offset: 0, .. }),
        "{e}"
    );
    // New claims go on across the hole.
    assert_eq!(claimed(claim(&engine, &p, 2, 1)), (1, 2, true));
}

#[test]
fn the_engine_creates_and_keeps_the_claims_topic() {
    let dir = scratch_dir();
    {
        // The log alone knows no claims: it makes no claims topic.
        let log = common::open(dir.path(), claims_opts(FsyncPolicy::Never));
        assert!(log.topic(CLAIMS_TOPIC).is_none());
        log.close().unwrap();
    }
    let engine = open(dir.path(), claims_opts(FsyncPolicy::Never));
    let t = engine.log().topic(CLAIMS_TOPIC).expect("created at open");
    assert_eq!(t.partition_count(), 1);
    assert_eq!(t.cleanup(), Cleanup::Compact);
    let e = engine.delete_topic(CLAIMS_TOPIC).unwrap_err();
    assert!(e.to_string().contains("cannot be deleted"), "{e}");
    assert!(engine.log().topic(CLAIMS_TOPIC).is_some());
    engine.close().unwrap();
}
