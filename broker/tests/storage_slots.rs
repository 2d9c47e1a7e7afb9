//! Partitions in slots (STORAGE.md §2.5): a new topic creates no file; a
//! partition lives in its slot of a shared slab until it outgrows it, then
//! moves out into a directory; a crash, a torn tail or damage in a slot is
//! recovered as in a segment; a slot is never handed out twice, and a
//! deleted topic's slots are released.

mod common;

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use common::*;
use hermit_broker::config::RecoveryMode;
use hermit_broker::log::catalog::CATALOG_FILE;
use hermit_broker::log::check::{self, Finding};
use hermit_broker::log::slab::{self, SLOT_BYTES};
use hermit_broker::log::{Log, LogOptions, PARTITIONS_DIR, StorageError};
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::{Cleanup, RecordHeader};

fn slot_opts() -> LogOptions {
    LogOptions {
        partition_slots: true,
        ..opts(1 << 20)
    }
}

fn names(dir: &Path) -> Vec<String> {
    match std::fs::read_dir(dir) {
        Ok(rd) => {
            let mut v: Vec<String> = rd
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            v.sort();
            v
        }
        Err(_) => Vec::new(),
    }
}

/// The slab file and origin of partition 0 of `topic`, by the catalog.
fn slot_of(data: &Path, topic: &str) -> (PathBuf, u64) {
    let cp = check::find_partition(data, topic, 0).unwrap().unwrap();
    let (n, origin) = slab::place(cp.slot.expect("the topic has slots"));
    (slab::slab_path(data, n), origin)
}

fn slot_bytes(data: &Path, topic: &str) -> Vec<u8> {
    let (path, origin) = slot_of(data, topic);
    let f = std::fs::File::open(path).unwrap();
    let mut buf = vec![0u8; SLOT_BYTES as usize];
    let len = f.metadata().unwrap().len();
    let n = len.saturating_sub(origin).min(SLOT_BYTES) as usize;
    f.read_exact_at(&mut buf[..n], origin).unwrap();
    buf
}

/// Batch sizes as written to a slot, in order.
fn batch_lens(bytes: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Ok(h) = RecordHeader::decode(&bytes[pos..]) {
        out.push(h.batch_len() as usize);
        pos += h.batch_len() as usize;
    }
    out
}

fn write_three(log: &Log, topic: &str) -> Vec<Vec<u8>> {
    let p = part(log, topic);
    let mut sent = Vec::new();
    for seed in 0..3 {
        let b = batch(b"k", 2, 40, seed);
        p.append(&b).unwrap();
        sent.push(b);
    }
    sent
}

fn assert_holds(log: &Log, topic: &str, sent: &[Vec<u8>]) {
    let p = part(log, topic);
    let got = read_all(&p, 0).unwrap();
    assert_eq!(got.len(), sent.len());
    for (g, w) in got.iter().zip(sent) {
        assert_eq!(unstamped(&g.1), *w);
    }
}

#[test]
fn a_new_topic_creates_no_file_and_its_records_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let sent = {
        let log = open(dir.path(), slot_opts());
        let sent = write_three(&log, "inbox.a");
        write_three(&log, "inbox.b");
        assert!(part(&log, "inbox.a").in_slot());
        log.close().unwrap();
        sent
    };
    assert_eq!(
        names(&dir.path().join(PARTITIONS_DIR)),
        Vec::<String>::new(),
        "no partition directory"
    );
    assert_eq!(names(&dir.path().join(slab::SLABS_DIR)), ["00000000"]);
    let log = open(dir.path(), slot_opts());
    assert_holds(&log, "inbox.a", &sent);
    assert!(part(&log, "inbox.a").in_slot());
    assert_eq!(part(&log, "inbox.b").next_offset(), 6);
    drop(log);
    let report = check::check_dir(dir.path()).unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.partitions.len(), 2);
    assert_eq!(report.partitions[0].segments[0].batches, 3);
}

#[test]
fn a_partition_moves_out_of_its_slot_when_it_outgrows_it_and_keeps_every_record() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), slot_opts());
    let p = part(&log, "grows");
    let mut sent = Vec::new();
    let mut seed = 0;
    while p.in_slot() {
        let b = batch(b"k", 3, 200, seed);
        seed += 1;
        p.append(&b).unwrap();
        sent.push(b);
    }
    // The batch that did not fit went to the directory, after the others.
    assert!(sent.iter().map(Vec::len).sum::<usize>() as u64 > SLOT_BYTES);
    let pdir = partition_dir(dir.path(), "grows", 0);
    assert_eq!(file_names(&pdir), ["00000000000000000000.log"]);
    assert_eq!(read_all(&p, 0).unwrap().len(), sent.len());
    // Appends go on in the directory; the slot is released once nobody reads it.
    let b = batch(b"k", 1, 10, 99);
    p.append(&b).unwrap();
    sent.push(b);
    drop(p);
    log.close().unwrap();
    drop(log);
    assert!(
        slot_bytes(dir.path(), "grows").iter().all(|b| *b == 0),
        "the slot was punched out"
    );
    let log = open(dir.path(), slot_opts());
    assert!(!part(&log, "grows").in_slot());
    assert_holds(&log, "grows", &sent);
}

#[test]
fn a_torn_tail_in_a_slot_is_zeroed_and_what_came_before_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let sent = {
        let log = open(dir.path(), slot_opts());
        let s = write_three(&log, "torn");
        log.close().unwrap();
        s
    };
    let (slab, origin) = slot_of(dir.path(), "torn");
    let used: usize = batch_lens(&slot_bytes(dir.path(), "torn")).iter().sum();
    // Half of a fourth batch: what a crash during its write leaves.
    let fourth = batch(b"k", 2, 40, 3);
    let f = std::fs::OpenOptions::new().write(true).open(&slab).unwrap();
    f.write_all_at(&fourth[..fourth.len() / 2], origin + used as u64)
        .unwrap();
    drop(f);
    let report = check::check_dir(dir.path()).unwrap();
    assert!(
        matches!(
            report.partitions[0].segments[0].findings[..],
            [Finding::TornTail { .. }]
        ),
        "{report:?}"
    );
    let strict = LogOptions {
        recovery_mode: RecoveryMode::AbsoluteConsistency,
        ..slot_opts()
    };
    let log = open(dir.path(), strict);
    assert!(matches!(
        log.partition("torn", 0, false),
        Err(StorageError::Corrupt { .. })
    ));
    drop(log);
    let log = open(dir.path(), slot_opts());
    assert_holds(&log, "torn", &sent);
    assert!(
        slot_bytes(dir.path(), "torn")[used..]
            .iter()
            .all(|b| *b == 0),
        "the torn bytes are zeroed"
    );
    // The next append follows the kept batches.
    let p = part(&log, "torn");
    assert_eq!(p.append(&fourth).unwrap().base_offset, 6);
}

#[test]
fn damage_inside_a_slot_moves_it_out_and_is_fenced_with_the_rest_served() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), slot_opts());
        write_three(&log, "hurt");
        log.close().unwrap();
    }
    let (slab, origin) = slot_of(dir.path(), "hurt");
    let lens = batch_lens(&slot_bytes(dir.path(), "hurt"));
    // A bit flipped in the second batch's records: valid batches follow it.
    flip_bit(&slab, origin + lens[0] as u64 + 40, 3);
    let log = open(dir.path(), slot_opts());
    let p = part(&log, "hurt");
    assert!(!p.in_slot(), "only a directory can fence damage");
    let got = walk(&p);
    let bases = |g: &Got| match g {
        Got::Batches(b) => b.iter().map(|(o, _)| *o).collect::<Vec<_>>(),
        Got::Fenced { .. } => Vec::new(),
    };
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(bases(&got[0]), [0]);
    assert!(got[1] == Got::Fenced { from: 2, to: 4 }, "{got:?}");
    assert_eq!(bases(&got[2]), [4]);
}

#[test]
fn a_move_out_cut_short_by_a_crash_leaves_the_slot_in_charge() {
    let dir = tempfile::tempdir().unwrap();
    let sent = {
        let log = open(dir.path(), slot_opts());
        let s = write_three(&log, "half");
        log.close().unwrap();
        s
    };
    // The staging directory of a move out, half written, never renamed.
    let pdir = check::find_partition_dir(dir.path(), "half", 0)
        .unwrap()
        .unwrap();
    let mut staging = pdir.clone().into_os_string();
    staging.push(".new");
    let staging = PathBuf::from(staging);
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(staging.join("00000000000000000000.log"), b"half a segment").unwrap();
    let log = open(dir.path(), slot_opts());
    assert_holds(&log, "half", &sent);
    let p = part(&log, "half");
    assert!(p.in_slot());
    // The next move out replaces the leftover.
    let mut sent = sent;
    while p.in_slot() {
        let b = batch(b"k", 3, 200, sent.len() as u64);
        p.append(&b).unwrap();
        sent.push(b);
    }
    assert!(!staging.exists(), "the leftover is gone");
    assert_holds(&log, "half", &sent);
    assert_eq!(file_names(&pdir), ["00000000000000000000.log"]);
}

#[test]
fn a_slot_is_never_handed_out_again_after_a_creation_torn_out_of_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join(CATALOG_FILE);
    {
        let log = open(dir.path(), slot_opts());
        write_three(&log, "kept");
        log.close().unwrap();
    }
    let before = std::fs::metadata(&catalog).unwrap().len();
    {
        let log = open(dir.path(), slot_opts());
        write_three(&log, "lost");
        log.close().unwrap();
    }
    // The creation of "lost" never became durable; its records did.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&catalog)
        .unwrap()
        .set_len(before + 5)
        .unwrap();
    let log = open(dir.path(), slot_opts());
    assert!(log.topic("lost").is_none());
    let p = part(&log, "new");
    assert_eq!(p.next_offset(), 0, "a new topic inherits no records");
    assert!(read_all(&p, 0).unwrap().is_empty());
    assert_eq!(part(&log, "kept").next_offset(), 6);
}

#[test]
fn a_deleted_topics_slots_are_not_handed_out_again_when_its_writes_were_lost() {
    // Found by the power-loss simulation (seed 375): the deleted topic's
    // writes never reached the disk, so the slab ended before its slots;
    // its entries stay in the catalog, and every start releases its slots
    // again — they must not belong to a new topic by then.
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), slot_opts());
        // Live topics outnumber the dead entries: the catalog keeps them.
        for t in ["kept.a", "kept.b", "kept.c"] {
            write_three(&log, t);
        }
        write_three(&log, "gone");
        log.delete_topic("gone", || Ok(())).unwrap();
        log.close().unwrap();
    }
    let (slab, origin) = slot_of(dir.path(), "kept.c");
    // Lost in a power cut: everything in the slab after the last kept slot.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&slab)
        .unwrap()
        .set_len(origin + SLOT_BYTES)
        .unwrap();
    let sent = {
        let log = open(dir.path(), slot_opts());
        let sent = write_three(&log, "new");
        log.close().unwrap();
        sent
    };
    let log = open(dir.path(), slot_opts());
    assert_holds(&log, "new", &sent);
}

#[test]
fn deleting_a_topic_releases_its_slots_and_a_topic_created_again_starts_empty() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), slot_opts());
    log.create_topic(
        "gone",
        TopicSettings {
            partitions: 2,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .unwrap();
    for p in 0..2 {
        let part = log.partition("gone", p, false).unwrap();
        part.append(&batch(b"k", 2, 40, u64::from(p))).unwrap();
    }
    let (slab, origin) = slot_of(dir.path(), "gone");
    log.delete_topic("gone", || Ok(())).unwrap();
    let f = std::fs::File::open(&slab).unwrap();
    let len = f.metadata().unwrap().len();
    let mut buf = vec![1u8; (len - origin) as usize];
    assert!(buf.len() as u64 > SLOT_BYTES, "both slots were written");
    f.read_exact_at(&mut buf, origin).unwrap();
    assert!(buf.iter().all(|b| *b == 0), "both slots released");
    let p = part(&log, "gone");
    assert_eq!(p.next_offset(), 0);
    assert!(p.in_slot());
}

#[test]
fn partitions_in_slots_of_one_slab_share_one_fdatasync_per_round() {
    let dir = tempfile::tempdir().unwrap();
    // Rounds once a second: the appends below land in the same few rounds.
    let log = open(
        dir.path(),
        LogOptions {
            fsync: hermit_broker::config::FsyncPolicy::Interval(std::time::Duration::from_secs(1)),
            ..slot_opts()
        },
    );
    let parts: Vec<_> = (0..10).map(|i| part(&log, &format!("s{i}"))).collect();
    let before = log.sync_stats();
    for p in &parts {
        p.append(&batch(b"k", 1, 10, 1)).unwrap();
    }
    let mut generation = log.sync_generation();
    while parts.iter().any(|p| p.synced_offset() < 1) {
        block_on(generation.changed()).unwrap();
    }
    let after = log.sync_stats();
    let (rounds, fsyncs) = (after.rounds - before.rounds, after.fsyncs - before.fsyncs);
    assert!(
        fsyncs <= rounds,
        "{fsyncs} fdatasyncs in {rounds} rounds for 10 partitions of one slab"
    );
}

/// Wait for a future on this thread (the log's sync thread is not async).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn a_topic_created_on_first_use_in_a_slot_is_opened_once() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), slot_opts());
    let p = log
        .auto_create_in_slot("fresh", 0)
        .unwrap()
        .expect("slots are on");
    assert!(p.in_slot());
    // The same instance for everyone after it: it was open before the topic could be found.
    let again = log.partition("fresh", 0, false).unwrap();
    assert!(std::sync::Arc::ptr_eq(&p, &again));
    // Existing topics, and partitions the default count does not have, go the long way.
    assert!(log.auto_create_in_slot("fresh", 0).unwrap().is_none());
    assert!(log.auto_create_in_slot("other", 5).unwrap().is_none());
    assert!(
        log.topic("other").is_some(),
        "created, with the default partitions"
    );
    p.append(&batch(b"k", 1, 10, 1)).unwrap();
    assert_eq!(read_all(&again, 0).unwrap().len(), 1);
    let off = LogOptions {
        partition_slots: false,
        ..slot_opts()
    };
    drop((p, again, log));
    let log = open(dir.path(), off);
    assert!(log.auto_create_in_slot("third", 0).unwrap().is_none());
    assert!(
        part(&log, "fresh").in_slot(),
        "a topic keeps the layout it was created with"
    );
}
