//! Durability and exclusivity: the data directory lock, group commit under
//! `fsync = always` (visibility follows the fsync), concurrent appenders,
//! and `interval` / `never`.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use hermit_broker::config::{FsyncPolicy, Limit};
use hermit_broker::log::sync::SyncQueue;
use hermit_broker::log::{
    Appended, Log, LogOptions, Partition, ReadOutcome, StorageError, TopicPolicy,
};
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::{Cleanup, Status};

fn durable_opts(fsync: FsyncPolicy) -> LogOptions {
    LogOptions {
        fsync,
        segment_bytes: 4096,
        index_interval_bytes: 256,
        retention_ms: Limit::Unlimited,
        ..LogOptions::default()
    }
}

fn create(log: &Log, name: &str) -> Arc<Partition> {
    log.create_topic(
        name,
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .unwrap();
    log.partition(name, 0, false).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

/// Await a watch change, failing the test (instead of hanging) after 30 s.
fn changed(rt: &tokio::runtime::Runtime, rx: &mut tokio::sync::watch::Receiver<u64>) {
    rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(30), rx.changed())
            .await
            .expect("the sync generation moves within 30 s")
            .expect("the sync queue is alive");
    });
}

#[test]
fn a_second_open_of_the_same_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), durable_opts(FsyncPolicy::Always));
    match Log::open(dir.path(), durable_opts(FsyncPolicy::Always)) {
        Err(e @ StorageError::Locked { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("another broker may be using this directory"),
                "{msg}"
            );
            assert!(msg.contains(&dir.path().join("LOCK").display().to_string()));
            assert!(
                msg.contains(&format!("pid {}", std::process::id())),
                "{msg}"
            );
            assert_eq!(e.status(), Status::StorageError);
        }
        other => panic!("expected Locked, got {other:?}"),
    }
    // The first log is unaffected by the refused open.
    let p = create(&log, "t");
    p.append(&batch(b"k", 1, 10, 1)).unwrap();
    log.close().unwrap();
    drop((p, log));
    // Released with the log.
    let log = open(dir.path(), durable_opts(FsyncPolicy::Always));
    assert_eq!(log.partition("t", 0, false).unwrap().next_offset(), 1);
}

#[test]
fn under_fsync_always_appends_become_visible_only_after_the_sync_thread_runs() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Arc::new(durable_opts(FsyncPolicy::Always));
    let policy = TopicPolicy {
        cleanup: Cleanup::Delete,
        retention_ms: u64::MAX,
        retention_bytes: u64::MAX,
        delete_retention_ms: 0,
    };
    // A partition whose group-commit queue has no thread yet.
    let queue = SyncQueue::new(hermit_broker::log::io::Io::real());
    let p = Partition::open(
        dir.path().join("p"),
        "t",
        0,
        opts,
        policy,
        Some(queue.clone()),
    )
    .unwrap();
    let mut generation = queue.subscribe();
    let mut hw = p.subscribe();
    let mut appended = Vec::new();
    for i in 0..5u64 {
        let b = batch(b"k", 1 + i as usize, 50, i);
        let a = p.append(&b).unwrap();
        appended.push((a.base_offset, stamped(&b, a.base_offset)));
    }
    let end = p.next_offset();
    assert_eq!(end, 15);
    // Written, not synced: not visible.
    assert_eq!(p.synced_offset(), 0);
    assert_eq!(p.high_watermark(), 0);
    assert_eq!(p.bounds(), (0, 0));
    assert!(!hw.has_changed().unwrap(), "no high-watermark update yet");
    let mut scratch = Vec::new();
    assert!(matches!(
        p.read(0, 1 << 20, &mut scratch).unwrap(),
        ReadOutcome::Empty {
            high_watermark: 0,
            ..
        }
    ));
    assert!(matches!(
        p.read(1, 1 << 20, &mut scratch),
        Err(StorageError::OffsetOutOfRange { .. })
    ));

    let thread = queue.start(FsyncPolicy::Always).unwrap();
    // Nothing was in flight: the first round covers every append.
    changed(&runtime(), &mut generation);
    assert!(p.synced_offset() >= end);
    assert_eq!(p.high_watermark(), end);
    assert!(hw.has_changed().unwrap());
    assert_eq!(*hw.borrow_and_update(), end);
    assert_eq!(
        walk(&p),
        appended
            .into_iter()
            .map(|b| Got::Batches(vec![b]))
            .collect::<Vec<_>>()
    );
    queue.shutdown();
    thread.join().unwrap();
}

#[test]
fn concurrent_appenders_get_unique_gap_free_offsets_and_group_commit_covers_each() {
    const THREADS: usize = 4;
    const APPENDS: usize = 150;
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), durable_opts(FsyncPolicy::Always));
    let p = create(&log, "t");
    let results: Vec<Vec<(Appended, Vec<u8>, usize)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (log, p) = (&log, &p);
                s.spawn(move || {
                    let rt = runtime();
                    let mut generation = log.sync_generation();
                    let mut out = Vec::new();
                    for i in 0..APPENDS {
                        let seed = (t * APPENDS + i) as u64;
                        let b = batch(b"k", 1 + (seed % 7) as usize, (seed % 90) as usize, seed);
                        let a = p.append(&b).unwrap();
                        generation.borrow_and_update();
                        // Wait for an fsync that covers the append. A round
                        // already running may have missed it; the next one
                        // cannot: at most two generation changes.
                        let mut rounds = 0;
                        while p.synced_offset() < a.next_offset {
                            changed(&rt, &mut generation);
                            rounds += 1;
                        }
                        // Visible only what is synced, and all of it.
                        let hw = p.high_watermark();
                        let synced = p.synced_offset();
                        assert!(hw <= synced, "hw {hw} ahead of synced {synced}");
                        assert!(hw >= a.next_offset, "synced but not visible");
                        out.push((a, b, rounds));
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all: Vec<_> = results.into_iter().flatten().collect();
    let max_rounds = all.iter().map(|r| r.2).max().unwrap();
    assert!(max_rounds <= 2, "an append waited {max_rounds} rounds");
    all.sort_by_key(|r| r.0.base_offset);
    let mut next = 0;
    for (a, b, _) in &all {
        assert_eq!(a.base_offset, next, "unique and gap-free");
        let records = hermit_protocol::record::RecordHeader::decode(b)
            .unwrap()
            .record_count;
        assert_eq!(a.next_offset, a.base_offset + u64::from(records));
        next = a.next_offset;
    }
    assert_eq!(next, p.next_offset());
    assert!(p.segment_count() > 5, "rolled under concurrency");
    let rounds = log.sync_stats().rounds;
    assert!(
        rounds < (THREADS * APPENDS) as u64,
        "group commit shares rounds: {rounds}"
    );
    log.close().unwrap();
    drop((p, log));
    let log = open(dir.path(), durable_opts(FsyncPolicy::Always));
    let p = log.partition("t", 0, false).unwrap();
    let want: Vec<Got> = all
        .iter()
        .map(|(a, b, _)| Got::Batches(vec![(a.base_offset, stamped(b, a.base_offset))]))
        .collect();
    assert_eq!(walk(&p), want);
}

#[test]
fn under_fsync_never_appends_are_visible_at_once_and_synced_on_close() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), durable_opts(FsyncPolicy::Never));
    let p = create(&log, "t");
    let generation = log.sync_generation();
    let b = batch(b"k", 3, 20, 1);
    let a = p.append(&b).unwrap();
    assert_eq!(p.high_watermark(), a.next_offset, "visible at once");
    assert_eq!(
        read_at(&p, 0, 1 << 20),
        Got::Batches(vec![(0, stamped(&b, 0))])
    );
    assert_eq!(p.synced_offset(), 0, "never fsynced while running");
    assert_eq!(*generation.borrow(), 0, "no group-commit thread");
    log.close().unwrap();
    assert_eq!(p.synced_offset(), a.next_offset, "fsynced by close");
    drop((p, log));
    let log = open(dir.path(), durable_opts(FsyncPolicy::Never));
    let p = log.partition("t", 0, false).unwrap();
    assert_eq!(walk(&p), vec![Got::Batches(vec![(0, stamped(&b, 0))])]);
}

#[test]
fn under_fsync_interval_appends_are_visible_at_once_and_synced_by_the_timer() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(
        dir.path(),
        durable_opts(FsyncPolicy::Interval(Duration::from_millis(20))),
    );
    let p = create(&log, "t");
    let mut generation = log.sync_generation();
    let rt = runtime();
    for i in 0..3u64 {
        let a = p.append(&batch(b"k", 2, 30, i)).unwrap();
        assert_eq!(p.high_watermark(), a.next_offset, "visible at once");
        generation.borrow_and_update();
        while p.synced_offset() < a.next_offset {
            changed(&rt, &mut generation);
        }
    }
    log.close().unwrap();
}

/// A produce that took its partition handle before the topic was deleted
/// must not be acknowledged into the deleted files: the append is refused
/// (`UnknownTopic`), and a topic created again under the name starts empty.
#[test]
fn an_append_through_a_handle_taken_before_deletion_is_refused() {
    let dir = scratch_dir();
    let log = open(dir.path(), durable_opts(FsyncPolicy::Always));
    let p = create(&log, "doomed");
    let before = p.append(&batch(b"", 3, 10, 1)).unwrap();
    assert_eq!(before.base_offset, 0);

    // Straight on the log: nothing above it keeps anything per topic here.
    log.delete_topic("doomed", || Ok(())).unwrap();
    let e = p.append(&batch(b"", 3, 10, 2)).unwrap_err();
    assert!(
        matches!(e, StorageError::UnknownTopic(ref t) if t == "doomed"),
        "{e}"
    );
    assert_eq!(e.status(), Status::UnknownTopic);

    let again = log.partition("doomed", 0, true).unwrap();
    assert_eq!(again.high_watermark(), 0);
    assert_eq!(read_all(&again, 0).unwrap(), Vec::new());
}

#[test]
fn a_clean_close_is_marked_and_the_mark_is_gone_while_the_log_runs() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join(hermit_broker::log::CLEAN_FILE);
    {
        let log = Log::open(dir.path(), durable_opts(FsyncPolicy::Never)).unwrap();
        let p = create(&log, "t");
        p.append(&batch(b"k", 1, 10, 1)).unwrap();
        assert!(!clean.exists());
        log.close().unwrap();
        assert!(clean.exists(), "written once everything is durable");
        // Nothing lands after the last sync.
        assert!(matches!(
            p.append(&batch(b"k", 1, 10, 2)),
            Err(StorageError::ShuttingDown)
        ));
        assert!(matches!(
            log.partition("t", 0, false),
            Ok(_) | Err(StorageError::ShuttingDown)
        ));
    }
    {
        let log = Log::open(dir.path(), durable_opts(FsyncPolicy::Never)).unwrap();
        assert!(
            !clean.exists(),
            "a crash of this run must not pass for a clean close"
        );
        assert_eq!(log.partition("t", 0, false).unwrap().next_offset(), 1);
        // Dropped without close: a crash.
    }
    let log = Log::open(dir.path(), durable_opts(FsyncPolicy::Never)).unwrap();
    assert!(!clean.exists());
    assert_eq!(log.partition("t", 0, false).unwrap().next_offset(), 1);
}
