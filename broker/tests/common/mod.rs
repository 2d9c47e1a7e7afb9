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
    let mut b = BatchBuilder::new(key);
    for i in 0..n {
        let v: Vec<u8> = (0..size)
            .map(|j| (seed.wrapping_mul(31).wrapping_add((i * 7 + j) as u64) % 251) as u8)
            .collect();
        b.push(&v);
    }
    b.finish(1_700_000_000_000_000_000 + seed).unwrap()
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
                return BatchIter::new(&buf)
                    .map(|b| {
                        let b = b.expect("whole batches");
                        (b.header.base_offset, b.as_bytes().to_vec())
                    })
                    .collect();
            }
        }
    }
}
