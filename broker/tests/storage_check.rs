//! The offline checker (`hermit log check`) finds what it should and
//! changes nothing.

mod common;

use common::*;
use hermit_broker::log::StorageError;
use hermit_broker::log::check::{Finding, check_dir};

fn build(dir: &std::path::Path) -> (std::path::PathBuf, Vec<std::path::PathBuf>) {
    let log = open(dir, opts(600));
    let p = part(&log, "chk");
    for i in 0..12 {
        p.append(&batch(b"", 3, 40, i)).unwrap();
    }
    let pdir = p.dir().to_path_buf();
    drop(p);
    log.close().unwrap();
    let mut logs: Vec<_> = std::fs::read_dir(&pdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    assert!(logs.len() >= 3, "want several segments, got {}", logs.len());
    (pdir, logs)
}

fn snapshot(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    for e in walk(dir) {
        if e.file_name().is_some_and(|n| n != "LOCK") {
            v.push((e.clone(), std::fs::read(&e).unwrap()));
        }
    }
    v.sort();
    v
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_clean_directory_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let report = check_dir(dir.path()).unwrap();
    assert!(report.is_clean(), "{report:?}");
    let p = report.partitions.iter().find(|p| p.topic == "chk").unwrap();
    assert_eq!(p.segments.last().unwrap().next_offset, 36);
}

#[test]
fn rolled_damage_tail_and_missing_index_are_told_apart_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let (pdir, logs) = build(dir.path());
    // A flipped bit in the first (rolled) segment.
    let mut bytes = std::fs::read(&logs[0]).unwrap();
    bytes[50] ^= 1;
    std::fs::write(&logs[0], &bytes).unwrap();
    // A torn tail on the last (active) segment.
    let last = logs.last().unwrap();
    let len = std::fs::metadata(last).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(last)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    // A missing index on the second.
    std::fs::remove_file(logs[1].with_extension("idx")).unwrap();
    let before = snapshot(dir.path());
    let report = check_dir(dir.path()).unwrap();
    assert_eq!(before, snapshot(dir.path()), "check is read-only");
    assert!(report.has_corruption());
    let p = report.partitions.iter().find(|p| p.topic == "chk").unwrap();
    assert!(matches!(
        p.segments[0].findings[..],
        [Finding::Corrupt { .. }]
    ));
    assert_eq!(p.segments[1].findings, [Finding::IndexMissing]);
    assert!(matches!(
        p.segments.last().unwrap().findings[..],
        [Finding::TornTail { .. }]
    ));
    let _ = pdir;
}

#[test]
fn damage_inside_the_active_segment_with_valid_batches_after_it_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let (_, logs) = build(dir.path());
    let last = logs.last().unwrap();
    let mut bytes = std::fs::read(last).unwrap();
    assert!(
        bytes.len() > 200,
        "the active segment holds several batches"
    );
    bytes[50] ^= 1; // inside its first batch
    std::fs::write(last, &bytes).unwrap();
    let report = check_dir(dir.path()).unwrap();
    assert!(report.has_corruption(), "{report:?}");
    let p = report.partitions.iter().find(|p| p.topic == "chk").unwrap();
    assert!(matches!(
        p.segments.last().unwrap().findings[..],
        [Finding::Corrupt { .. }]
    ));
}

#[test]
fn refuses_to_run_beside_a_live_broker() {
    let dir = tempfile::tempdir().unwrap();
    let _log = open(dir.path(), opts(600));
    assert!(matches!(
        check_dir(dir.path()),
        Err(StorageError::Locked { .. })
    ));
}
