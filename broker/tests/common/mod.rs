//! Helpers shared by the storage integration tests.
#![allow(dead_code)]

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use hermit_broker::config::{FsyncPolicy, Limit};
use hermit_broker::log::{Log, LogOptions, Partition, ReadOutcome, StorageError};
use hermit_protocol::record::{BatchBuilder, BatchIter};

/// Options for tests: small segments, fsync never unless asked, no background verify.
pub fn opts(segment_bytes: u64) -> LogOptions {
    LogOptions {
        fsync: FsyncPolicy::Never,
        segment_bytes,
        index_interval_bytes: 64,
        retention_ms: Limit::Unlimited,
        ..LogOptions::default()
    }
}

/// A batch of `n` records, each `size` bytes derived from `seed`, with `key`.
pub fn batch(key: &[u8], n: usize, size: usize, seed: u64) -> Vec<u8> {
    batch_stamped(key, n, size, seed, 1_700_000_000_000_000_000 + seed)
}

/// Like [`batch`], with the producer timestamp `ts`.
pub fn batch_stamped(key: &[u8], n: usize, size: usize, seed: u64, ts: u64) -> Vec<u8> {
    let mut b = BatchBuilder::new(key);
    for i in 0..n {
        let v: Vec<u8> = (0..size)
            .map(|j| (seed.wrapping_mul(31).wrapping_add((i * 7 + j) as u64) % 251) as u8)
            .collect();
        b.push(&v);
    }
    b.finish(ts).unwrap()
}

/// Read every batch from `from` to the high watermark, verifying segments on
/// demand; returns `(base_offset, batch bytes with base offset as stored)`.
pub fn read_all(p: &Partition, from: u64) -> Result<Vec<(u64, Vec<u8>)>, StorageError> {
    let mut out = Vec::new();
    let mut offset = from;
    let mut scratch = Vec::new();
    loop {
        match p.read(offset, 64 * 1024, &mut scratch)? {
            ReadOutcome::Empty { .. } => return Ok(out),
            ReadOutcome::Unverified(seg) => p.verify_segment(&seg)?,
            ReadOutcome::Data { range, .. } => {
                let mut buf = vec![0u8; range.len as usize];
                range
                    .file
                    .file
                    .read_exact_at(&mut buf, range.position)
                    .unwrap();
                assert!(!buf.is_empty(), "a data range is never empty");
                for b in BatchIter::new(&buf) {
                    let b = b.expect("a fetch range holds whole, valid batches");
                    b.verify_crc().expect("served batches pass their CRC");
                    let next = b.header.next_offset().unwrap();
                    out.push((b.header.base_offset, b.as_bytes().to_vec()));
                    offset = next;
                }
            }
        }
    }
}

/// The batch bytes with the base offset cleared, to compare with what was appended.
pub fn unstamped(bytes: &[u8]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v[1..9].copy_from_slice(&[0; 8]);
    v
}

/// Open a log in `dir` with `opts`.
pub fn open(dir: &Path, opts: LogOptions) -> Log {
    Log::open(dir, opts).expect("open log")
}

/// Partition 0 of `topic`, created on demand.
pub fn part(log: &Log, topic: &str) -> Arc<Partition> {
    log.partition(topic, 0, true).expect("partition")
}

/// One read at `offset` with `max_bytes` (verifying on demand); the batches it returns.
pub fn read_range(p: &Partition, offset: u64, max_bytes: u32) -> Vec<(u64, Vec<u8>)> {
    let mut scratch = Vec::new();
    loop {
        match p.read(offset, max_bytes, &mut scratch).expect("read") {
            ReadOutcome::Empty { .. } => return Vec::new(),
            ReadOutcome::Unverified(seg) => p.verify_segment(&seg).expect("verify"),
            ReadOutcome::Data { range, .. } => {
                let mut buf = vec![0u8; range.len as usize];
                range
                    .file
                    .file
                    .read_exact_at(&mut buf, range.position)
                    .unwrap();
                let batches: Vec<_> = BatchIter::new(&buf)
                    .map(|b| {
                        let b = b.expect("whole batches");
                        (b.header.base_offset, b.as_bytes().to_vec())
                    })
                    .collect();
                assert_end_offset(p, range.end_offset, &batches);
                return batches;
            }
        }
    }
}

/// A read's `end_offset` (what the metrics count as served) is where its
/// last batch ends; with compaction's holes it may lie later.
fn assert_end_offset(p: &Partition, end_offset: u64, batches: &[(u64, Vec<u8>)]) {
    let Some((_, last)) = batches.last() else {
        return;
    };
    let last = BatchIter::new(last).next().unwrap().unwrap().header;
    let end = last.next_offset().unwrap();
    if p.policy().cleanup == hermit_protocol::Cleanup::Compact {
        assert!(
            end_offset >= end,
            "end_offset {end_offset} is before the last batch's end {end}"
        );
    } else {
        assert_eq!(end_offset, end, "end_offset is the last batch's end");
    }
}

// ---- Helpers for the crash, compaction, offsets and durability tests. ----

/// A batch with `key`, `n` records of `size` bytes derived from `seed`, and timestamp `ts`.
pub fn keyed(key: &[u8], n: usize, size: usize, seed: u64, ts: u64) -> Vec<u8> {
    let mut b = BatchBuilder::new(key);
    for i in 0..n {
        let v: Vec<u8> = (0..size)
            .map(|j| (seed.wrapping_mul(17).wrapping_add((i * 13 + j) as u64) % 253) as u8)
            .collect();
        b.push(&v);
    }
    b.finish(ts).unwrap()
}

/// A tombstone for `key`: one record, empty payload, CRC recomputed.
pub fn tombstone(key: &[u8], ts: u64) -> Vec<u8> {
    BatchBuilder::tombstone(key, ts)
}

/// The batch bytes as the log stores them: `bytes` with `base` patched in.
pub fn stamped(bytes: &[u8], base: u64) -> Vec<u8> {
    let mut v = bytes.to_vec();
    hermit_protocol::record::patch_base_offset(&mut v, base);
    v
}

/// A temporary directory on tmpfs when the machine has one (fsync is free
/// there, which keeps tests that reopen a log hundreds of times fast), else
/// in the default temporary directory. The files are real files either way.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(d) = tempfile::Builder::new()
            .prefix("hermit-test")
            .tempdir_in(shm)
    {
        return d;
    }
    tempfile::tempdir().expect("temp dir")
}

/// Copy a directory tree (files and directories only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

/// The directory of partition `partition` of `topic` under a data directory.
pub fn partition_dir(data: &Path, topic: &str, partition: u32) -> std::path::PathBuf {
    let prefix = format!("{topic}@{partition}@");
    let parts = data.join(hermit_broker::log::PARTITIONS_DIR);
    let mut found: Vec<_> = std::fs::read_dir(&parts)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one directory for {topic}/{partition}: {found:?}"
    );
    parts.join(found.remove(0))
}

/// File names in a directory, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

/// The `.log` files of a partition directory, oldest first.
pub fn segment_logs(dir: &Path) -> Vec<std::path::PathBuf> {
    file_names(dir)
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .map(|n| dir.join(n))
        .collect()
}

/// `(position, length, base_offset)` of every batch in a segment file.
pub fn batches_in(path: &Path) -> Vec<(u64, u64, u64)> {
    let bytes = std::fs::read(path).unwrap();
    let mut pos = 0u64;
    BatchIter::new(&bytes)
        .map(|b| {
            let b = b.expect("a valid segment");
            let len = b.as_bytes().len() as u64;
            let entry = (pos, len, b.header.base_offset);
            pos += len;
            entry
        })
        .collect()
}

/// Flip bit `bit` of the byte at `pos` in a file.
pub fn flip_bit(path: &Path, pos: u64, bit: u8) {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, pos).unwrap();
    b[0] ^= 1 << bit;
    f.write_all_at(&b, pos).unwrap();
}

/// What one read of a partition at one offset gave.
#[derive(Clone, PartialEq, Eq)]
pub enum Got {
    /// Whole batches: `(base_offset, stored bytes)`.
    Batches(Vec<(u64, Vec<u8>)>),
    /// A fenced range `from..to`.
    Fenced { from: u64, to: u64 },
}

impl std::fmt::Debug for Got {
    /// Batches as `base:len:crc`, so a failed comparison stays readable.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Got::Batches(b) => {
                let v: Vec<String> = b
                    .iter()
                    .map(|(o, bytes)| {
                        let crc = hermit_protocol::record::compute_crc(bytes).unwrap_or(0);
                        format!("{o}:{}:{crc:08x}", bytes.len())
                    })
                    .collect();
                write!(f, "Batches[{}]", v.join(" "))
            }
            Got::Fenced { from, to } => write!(f, "Fenced[{from}..{to})"),
        }
    }
}

/// One read at `offset` (verifying on demand), with fenced ranges as a value;
/// every served batch is checked to be whole and to pass its CRC.
pub fn read_at(p: &Partition, offset: u64, max_bytes: u32) -> Got {
    let mut scratch = Vec::new();
    loop {
        match p.read(offset, max_bytes, &mut scratch) {
            Ok(ReadOutcome::Empty { .. }) => return Got::Batches(Vec::new()),
            Ok(ReadOutcome::Unverified(seg)) => p.verify_segment(&seg).expect("verify"),
            Ok(ReadOutcome::Data { range, .. }) => {
                let mut buf = vec![0u8; range.len as usize];
                range
                    .file
                    .file
                    .read_exact_at(&mut buf, range.position)
                    .unwrap();
                let batches: Vec<_> = BatchIter::new(&buf)
                    .map(|b| {
                        let b = b.expect("a fetch range holds whole batches");
                        b.verify_crc().expect("served batches pass their CRC");
                        (b.header.base_offset, b.as_bytes().to_vec())
                    })
                    .collect();
                assert!(!batches.is_empty(), "a data range is never empty");
                assert_eq!(
                    batches[0].0, range.first_offset,
                    "first_offset names the first batch"
                );
                assert_end_offset(p, range.end_offset, &batches);
                return Got::Batches(batches);
            }
            Err(StorageError::CorruptRange { from, to, .. }) => {
                return Got::Fenced { from, to };
            }
            Err(e) => panic!("read at {offset}: {e}"),
        }
    }
}

/// Walk the whole partition from its start: every batch served and every
/// fenced range, in order.
pub fn walk(p: &Partition) -> Vec<Got> {
    let mut out = Vec::new();
    let mut offset = p.log_start();
    loop {
        match read_at(p, offset, 64 * 1024) {
            Got::Batches(b) if b.is_empty() => return out,
            Got::Batches(b) => {
                let last = b.last().unwrap();
                let h = hermit_protocol::record::RecordHeader::decode(&last.1).unwrap();
                offset = h.next_offset().unwrap();
                out.extend(b.into_iter().map(|x| Got::Batches(vec![x])));
            }
            Got::Fenced { from, to } => {
                assert!(to > offset, "a fenced range ends after the offset read");
                out.push(Got::Fenced { from, to });
                offset = to;
            }
        }
    }
}
