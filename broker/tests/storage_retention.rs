//! Retention and roll ages go by the broker's own append time, never by the
//! producers' timestamps: a batch stamped far in the future must not pin a
//! segment, one stamped far in the past must not doom a fresh one, and the
//! ages survive a restart.

mod common;

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use common::*;
use hermit_broker::config::Limit;
use hermit_broker::log::partition::now_ns;
use hermit_broker::log::{Log, LogOptions, Partition};
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::record::BatchBuilder;

const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 24 * HOUR_MS;

fn retention_opts() -> LogOptions {
    LogOptions {
        retention_ms: Limit::Max(HOUR_MS),
        segment_ms: DAY_MS,
        ..opts(1 << 20)
    }
}

fn create(log: &Log) -> Arc<Partition> {
    log.create_topic(
        "t",
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .unwrap();
    log.partition("t", 0, false).unwrap()
}

/// A one-record batch with the producer timestamp `ts`.
fn stamped_at(ts: u64) -> Vec<u8> {
    let mut b = BatchBuilder::new(b"k");
    b.push(b"record");
    b.finish(ts).unwrap()
}

/// One rolled segment holding a batch stamped `ts`, then an active segment with one batch.
fn rolled_segment_stamped(p: &Arc<Partition>, ts: u64) {
    p.append(&stamped_at(ts)).unwrap();
    p.force_roll().unwrap();
    p.append(&stamped_at(ts)).unwrap();
    assert_eq!(p.segment_count(), 2);
}

const NS_PER_MS: u64 = 1_000_000;

#[test]
fn a_far_future_producer_timestamp_does_not_pin_a_segment() {
    for reopen in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut log = open(dir.path(), retention_opts());
        let mut p = create(&log);
        rolled_segment_stamped(&p, u64::MAX);
        if reopen {
            log.close().unwrap();
            drop((p, log));
            log = open(dir.path(), retention_opts());
            p = log.partition("t", 0, false).unwrap();
        }
        let later = now_ns() + (HOUR_MS + 1000) * NS_PER_MS;
        assert_eq!(
            p.enforce_retention(later).unwrap(),
            1,
            "reopen {reopen}: the segment ages by its append time"
        );
        assert_eq!(p.segment_count(), 1);
    }
}

#[test]
fn a_far_past_producer_timestamp_does_not_doom_a_fresh_segment() {
    for reopen in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut log = open(dir.path(), retention_opts());
        let mut p = create(&log);
        // 1, not 0: the broker stamps a 0 with its own clock.
        rolled_segment_stamped(&p, 1);
        if reopen {
            log.close().unwrap();
            drop((p, log));
            log = open(dir.path(), retention_opts());
            p = log.partition("t", 0, false).unwrap();
        }
        assert_eq!(
            p.enforce_retention(now_ns()).unwrap(),
            0,
            "reopen {reopen}: a segment appended just now is kept"
        );
        assert_eq!(p.segment_count(), 2);
        assert_eq!(read_all(&p, 0).unwrap().len(), 2);
    }
}

fn set_mtime(path: &Path, ago: Duration) {
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

fn segment_logs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    v.sort();
    v
}

#[test]
fn the_roll_age_survives_a_restart() {
    // Restarting more often than segment_ms must not keep the active
    // segment from ever rolling over (and so from ever being deleted).
    let pdir = |d: &Path| partition_dir(d, "t", 0);
    // Case 1: the segment before the active one rolled two days ago.
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), retention_opts());
        let p = create(&log);
        rolled_segment_stamped(&p, 0);
        log.close().unwrap();
    }
    let logs = segment_logs(&pdir(dir.path()));
    set_mtime(&logs[0], Duration::from_secs(2 * 86_400));
    {
        let log = open(dir.path(), retention_opts());
        let p = log.partition("t", 0, false).unwrap();
        p.append(&stamped_at(0)).unwrap();
        assert_eq!(p.segment_count(), 3, "rolled by age after the restart");
    }
    // Case 2: a partition's first segment, in a topic created two days ago.
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), retention_opts());
        let p = {
            // Created two days ago (the creation is the topic's incarnation).
            let _then = hermit_broker::log::clock::failpoints::set_clock(
                now_ns() - 2 * 86_400 * 1_000_000_000,
            );
            create(&log)
        };
        p.append(&stamped_at(0)).unwrap();
        log.close().unwrap();
    }
    {
        let log = open(dir.path(), retention_opts());
        let p = log.partition("t", 0, false).unwrap();
        p.append(&stamped_at(0)).unwrap();
        assert_eq!(p.segment_count(), 2, "rolled by age after the restart");
    }
    // And a young segment does not roll at a restart.
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), retention_opts());
        let p = create(&log);
        rolled_segment_stamped(&p, 1);
        log.close().unwrap();
    }
    let log = open(dir.path(), retention_opts());
    let p = log.partition("t", 0, false).unwrap();
    p.append(&stamped_at(1)).unwrap();
    assert_eq!(p.segment_count(), 2);
}
