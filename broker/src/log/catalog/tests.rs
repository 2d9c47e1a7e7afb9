//! The catalog's tests: its format, its recovery, its writes.

use std::path::Path;

use hermit_protocol::Cleanup;

use super::entry::{ENTRY_HEAD, MAGIC};
use super::replay::next_entry;
use super::*;
use crate::log::error::Result;
use crate::log::io::Io;
use crate::log::options::RecoveryMode;
use std::fs;

fn open_in(
    dir: &Path,
    mode: RecoveryMode,
    remove_deleted: impl FnOnce(&[Entry]) -> Result<()>,
) -> Result<(Catalog, Vec<Entry>)> {
    Catalog::open(dir, mode, &Io::real(), remove_deleted)
}

fn create(name: &str, incarnation: u64) -> Entry {
    Entry::Create {
        name: name.into(),
        incarnation,
        settings: StoredSettings {
            partitions: 3,
            cleanup: Cleanup::Compact,
            retention_ms: Some(5),
            retention_bytes: None,
        },
        first_slot: incarnation.is_multiple_of(2).then_some(incarnation * 10),
    }
}

#[test]
fn entries_round_trip_and_refuse_damage() {
    for e in [
        create("chat.alice", 7),
        Entry::Delete {
            name: "x".into(),
            incarnation: 9,
        },
    ] {
        let bytes = e.encode();
        let mut body = Vec::new();
        let got = next_entry(&mut bytes.as_slice(), bytes.len() as u64, &mut body).unwrap();
        assert_eq!(got, Some(e.clone()));
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x40;
            let got = next_entry(&mut bad.as_slice(), bad.len() as u64, &mut body).unwrap();
            assert!(got.is_none() || got != Some(e.clone()), "flip at {i}");
        }
    }
}

#[test]
fn a_first_slot_beyond_the_slots_is_damage() {
    let mut e = create("far", 2);
    if let Entry::Create { first_slot, .. } = &mut e {
        *first_slot = Some(crate::log::slab::MAX_SLOTS - 1);
    }
    let bytes = e.encode();
    assert_eq!(
        Entry::decode(&bytes[ENTRY_HEAD..]),
        None,
        "3 partitions end past the last slot"
    );
    let ok = create("near", 2).encode();
    assert!(Entry::decode(&ok[ENTRY_HEAD..]).is_some());
}

#[test]
fn deferred_entries_reach_the_file_at_the_sync_or_the_drop() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CATALOG_FILE);
    let file_len = || fs::metadata(&path).unwrap().len();
    let (c, _) = open_in(dir.path(), RecoveryMode::TolerateTailCorruption, |_| Ok(())).unwrap();
    c.defer_writes();
    let start = file_len();
    let end = c.append(&create("a", 1)).unwrap();
    c.append(&create("b", 2)).unwrap();
    assert_eq!(file_len(), start, "nothing written before the sync");
    assert!(c.sync().unwrap());
    c.wait_synced(end).unwrap();
    let after_sync = file_len();
    assert!(after_sync > start);
    c.append(&create("c", 3)).unwrap();
    drop(c);
    assert!(file_len() > after_sync, "the drop writes what is left");
    let names: Vec<String> = read(&path)
        .unwrap()
        .entries
        .into_iter()
        .map(|(_, e)| match e {
            Entry::Create { name, .. } | Entry::Delete { name, .. } => name,
        })
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
}

#[test]
fn torn_tail_is_truncated_and_mid_damage_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(CATALOG_FILE);
    let mut bytes = MAGIC.to_vec();
    let a = create("a", 1).encode();
    let b = create("b", 2).encode();
    let c = create("c", 3).encode();
    bytes.extend_from_slice(&a);
    let b_at = bytes.len();
    bytes.extend_from_slice(&b);
    bytes.extend_from_slice(&c);
    // Corruption inside b, c intact after it.
    bytes[b_at + ENTRY_HEAD + 3] ^= 1;
    // And a torn tail: half of another entry.
    bytes.extend_from_slice(&create("d", 4).encode()[..10]);
    fs::write(&path, &bytes).unwrap();
    let r = read(&path).unwrap();
    let names: Vec<_> = r
        .entries
        .iter()
        .map(|(_, e)| match e {
            Entry::Create { name, .. } => name.clone(),
            Entry::Delete { .. } => unreachable!(),
        })
        .collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(r.skipped, [(b_at as u64, (b_at + b.len()) as u64)]);
    assert_eq!(r.torn_at, Some((b_at + b.len() + c.len()) as u64));

    assert!(open_in(dir.path(), RecoveryMode::AbsoluteConsistency, |_| Ok(())).is_err());
    let (cat, live) =
        open_in(dir.path(), RecoveryMode::TolerateTailCorruption, |_| Ok(())).unwrap();
    assert_eq!(live, [create("a", 1), create("c", 3)]);
    drop(cat);
    // Rewritten: clean now.
    let r = read(&path).unwrap();
    assert!(r.skipped.is_empty() && r.torn_at.is_none());
    assert_eq!(r.entries.len(), 2);
}

#[test]
fn deletes_drop_their_creates_when_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let (cat, live) =
        open_in(dir.path(), RecoveryMode::TolerateTailCorruption, |_| Ok(())).unwrap();
    assert!(live.is_empty());
    cat.append(&create("a", 1)).unwrap();
    cat.append(&create("b", 2)).unwrap();
    let end = cat
        .append(&Entry::Delete {
            name: "a".into(),
            incarnation: 1,
        })
        .unwrap();
    assert!(cat.sync().unwrap());
    cat.wait_synced(end).unwrap();
    drop(cat);
    let mut removed = Vec::new();
    let (_cat, live) = open_in(dir.path(), RecoveryMode::TolerateTailCorruption, |d| {
        removed = d.to_vec();
        Ok(())
    })
    .unwrap();
    assert_eq!(live, [create("b", 2)]);
    assert_eq!(removed, [create("a", 1)]);
    assert_eq!(
        read(&dir.path().join(CATALOG_FILE)).unwrap().entries.len(),
        1
    );
}
