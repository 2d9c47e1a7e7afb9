//! Topics on disk: one catalog entry per creation or deletion, partitions
//! opened on use, and nothing a crash or a damaged file leaves can stop the
//! broker from starting or bring back a deleted topic's data.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use hermit_broker::config::RecoveryMode;
use hermit_broker::engine::Engine;
use hermit_broker::log::catalog::{CATALOG_FILE, Entry};
use hermit_broker::log::{Log, LogOptions, PARTITIONS_DIR, Partition};
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;

/// These tests look at partition directories: topics get no slots here
/// (`storage_slots.rs` covers partitions in slots).
fn dir_opts() -> LogOptions {
    LogOptions {
        partition_slots: false,
        ..opts(1 << 20)
    }
}

fn settings(partitions: u32) -> TopicSettings {
    TopicSettings {
        partitions,
        cleanup: Cleanup::Delete,
        retention_ms: 0,
        retention_bytes: 0,
    }
}

fn entries(dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<String> = rd
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

fn write_some(log: &Log, topic: &str) -> Arc<Partition> {
    log.create_topic(topic, settings(1)).unwrap();
    let p = log.partition(topic, 0, false).unwrap();
    p.append(&batch(b"k", 2, 10, 1)).unwrap();
    p
}

fn records(log: &Log, topic: &str) -> usize {
    read_all(&log.partition(topic, 0, false).unwrap(), 0)
        .unwrap()
        .len()
}

fn append_to_catalog(data: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(data.join(CATALOG_FILE))
        .unwrap();
    f.write_all(bytes).unwrap();
}

#[test]
fn a_topic_is_a_catalog_entry_and_its_partitions_appear_on_first_use() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), dir_opts());
        log.create_topic("idle", settings(3)).unwrap();
        write_some(&log, "used");
        // Dropped without close, as by a crash.
    }
    // An idle topic holds no file at all; a used one a directory per used partition.
    let dirs = entries(&dir.path().join(PARTITIONS_DIR));
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert!(dirs[0].starts_with("used@0@"), "{dirs:?}");
    let log = open(dir.path(), dir_opts());
    assert_eq!(log.topic("idle").unwrap().partition_count(), 3);
    assert_eq!(records(&log, "used"), 1);
    assert_eq!(
        read_all(&log.partition("idle", 2, false).unwrap(), 0)
            .unwrap()
            .len(),
        0
    );
    assert!(matches!(
        log.partition("idle", 3, false),
        Err(hermit_broker::log::StorageError::UnknownPartition { .. })
    ));
}

#[test]
fn a_torn_catalog_tail_is_truncated_and_loses_no_earlier_topic() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), dir_opts());
        write_some(&log, "kept");
        log.close().unwrap();
    }
    // Half of an entry: a creation whose append a crash cut short.
    let torn = Entry::Create {
        name: "torn".into(),
        incarnation: u64::MAX - 1,
        settings: hermit_broker::log::StoredSettings {
            partitions: 1,
            cleanup: Cleanup::Delete,
            retention_ms: None,
            retention_bytes: None,
        },
        first_slot: None,
    }
    .encode();
    append_to_catalog(dir.path(), &torn[..torn.len() - 3]);
    let strict = LogOptions {
        recovery_mode: RecoveryMode::AbsoluteConsistency,
        ..dir_opts()
    };
    let e = Log::open(dir.path(), strict).expect_err("absolute-consistency refuses a torn catalog");
    assert!(e.to_string().contains("catalog has a torn tail"), "{e}");
    let log = open(dir.path(), dir_opts());
    assert!(log.topic("torn").is_none());
    assert_eq!(records(&log, "kept"), 1);
    // The catalog is whole again: creations go on after the survivors.
    write_some(&log, "after");
    log.close().unwrap();
    drop(log);
    let log = open(dir.path(), dir_opts());
    assert_eq!(records(&log, "after"), 1);
    assert_eq!(records(&log, "kept"), 1);
}

#[test]
fn a_damaged_catalog_entry_is_skipped_and_the_topics_after_it_load() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), dir_opts());
        write_some(&log, "first");
        write_some(&log, "second");
        write_some(&log, "third");
        log.close().unwrap();
    }
    let path = dir.path().join(CATALOG_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(6)
        .position(|w| w == b"second")
        .expect("the entry names its topic");
    bytes[at] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    let log = open(dir.path(), dir_opts());
    assert!(log.topic("second").is_none());
    assert_eq!(records(&log, "first"), 1);
    assert_eq!(records(&log, "third"), 1);
    // The lost topic's files are kept for an operator, never reused.
    assert_eq!(entries(&dir.path().join(PARTITIONS_DIR)).len(), 3);
    write_some(&log, "second");
    assert_eq!(records(&log, "second"), 1);
}

#[test]
fn a_deletion_cut_short_by_a_crash_is_finished_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let incarnation;
    {
        let log = open(dir.path(), dir_opts());
        write_some(&log, "gone");
        write_some(&log, "kept");
        incarnation = log.topic("gone").unwrap().incarnation();
        log.close().unwrap();
    }
    // The deletion's commit point reached the catalog, then the crash: its
    // directory is still there.
    append_to_catalog(
        dir.path(),
        &Entry::Delete {
            name: "gone".into(),
            incarnation,
        }
        .encode(),
    );
    let log = open(dir.path(), dir_opts());
    assert!(log.topic("gone").is_none());
    let dirs = entries(&dir.path().join(PARTITIONS_DIR));
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert!(dirs[0].starts_with("kept@0@"));
    log.create_topic("gone", settings(1)).unwrap();
    assert_eq!(records(&log, "gone"), 0, "a new topic inherits nothing");
}

#[test]
fn a_topic_created_again_never_sees_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), dir_opts());
    let old = write_some(&log, "t");
    let old_dir = old.dir().to_path_buf();
    drop(old);
    log.delete_topic("t", || Ok(())).unwrap();
    assert!(!old_dir.exists());
    assert_eq!(entries(&dir.path().join("trash")), [] as [&str; 0]);
    log.create_topic("t", settings(1)).unwrap();
    let new = log.partition("t", 0, false).unwrap();
    assert_ne!(new.dir(), old_dir);
    assert_eq!(records(&log, "t"), 0);
}

#[test]
fn a_handle_taken_before_a_deletion_cannot_append() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), dir_opts());
    let p = write_some(&log, "t");
    log.delete_topic("t", || Ok(())).unwrap();
    p.append(&batch(b"k", 1, 10, 2))
        .expect_err("the topic is gone");
}

#[test]
fn a_partition_that_cannot_be_opened_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let bad_dir;
    {
        let engine = Engine::open(dir.path(), dir_opts()).unwrap();
        write_some(engine.log(), "good");
        bad_dir = write_some(engine.log(), "bad").dir().to_path_buf();
        engine.close().unwrap();
    }
    // Its active segment replaced by something no file open can read.
    let seg = bad_dir.join("00000000000000000000.log");
    let bytes = std::fs::read(&seg).unwrap();
    std::fs::remove_file(&seg).unwrap();
    std::fs::create_dir(&seg).unwrap();
    {
        let engine = Engine::open(dir.path(), dir_opts())
            .expect("one bad partition does not stop the start");
        let log = engine.log();
        assert_eq!(records(log, "good"), 1);
        log.partition("bad", 0, false)
            .expect_err("its own reads and writes fail");
        assert!(
            log.topic("bad").is_some(),
            "still a topic: its name stays taken"
        );
        log.create_topic("bad", settings(1))
            .expect_err("the name is taken");
        engine.close().unwrap();
    }
    // Repaired, it opens with its data.
    std::fs::remove_dir(&seg).unwrap();
    std::fs::write(&seg, bytes).unwrap();
    let log = open(dir.path(), dir_opts());
    assert_eq!(records(&log, "bad"), 1);
}

#[test]
fn a_topic_with_the_longest_name_can_be_created_used_and_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), dir_opts());
    let name = "n".repeat(249);
    write_some(&log, &name);
    log.close().unwrap();
    drop(log);
    let log = open(dir.path(), dir_opts());
    assert_eq!(records(&log, &name), 1);
    log.delete_topic(&name, || Ok(())).unwrap();
    assert!(log.topic(&name).is_none());
    assert_eq!(entries(&dir.path().join(PARTITIONS_DIR)), [] as [&str; 0]);
    log.create_topic(&name, settings(1)).unwrap();
}

#[test]
fn idle_partitions_are_closed_beyond_open_files_and_reopen_with_their_data() {
    let dir = tempfile::tempdir().unwrap();
    let small = LogOptions {
        open_files: 16,
        ..dir_opts()
    };
    {
        let log = open(dir.path(), small.clone());
        for i in 0..200 {
            let p = log.partition(&format!("t{i}"), 0, true).unwrap();
            p.append(&batch(b"", 1, 10, i)).unwrap();
            drop(p);
            assert!(log.open_files() <= 16, "{} files open", log.open_files());
        }
        let (_, closed) = log.open_partitions();
        assert!(closed >= 184, "{closed} closed");
        // A partition in use stays open beyond the limit, as one instance.
        let held: Vec<_> = (0..20)
            .map(|i| log.partition(&format!("t{i}"), 0, false).unwrap())
            .collect();
        assert!(log.open_files() >= 20);
        let again = log.partition("t3", 0, false).unwrap();
        assert!(Arc::ptr_eq(&again, &held[3]));
        drop(held);
        for i in 0..200 {
            assert_eq!(records(&log, &format!("t{i}")), 1, "t{i}");
        }
        log.close().unwrap();
    }
    let log = open(dir.path(), small);
    assert_eq!(log.open_files(), 0, "nothing is opened at start");
    for i in 0..200 {
        assert_eq!(records(&log, &format!("t{i}")), 1, "t{i}");
    }
}

#[test]
fn a_data_directory_of_the_old_layout_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("topics/chat/0")).unwrap();
    std::fs::write(
        dir.path().join("topics/chat/topic.toml"),
        "partitions = 1\ncleanup = \"delete\"\n",
    )
    .unwrap();
    let e = Log::open(dir.path(), dir_opts()).unwrap_err();
    assert!(e.to_string().contains("older HermitMQ"), "{e}");
}
