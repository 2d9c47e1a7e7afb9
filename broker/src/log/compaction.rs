//! Log compaction: for topics with `cleanup = compact`, keep only the newest
//! batch per key in rolled segments, and drop tombstones (empty payload)
//! once they are older than the grace period.
//!
//! Each rewritten segment is swapped in with steps that a crash at any point
//! leaves as either the old or the new segment, never a mix and never a loss:
//! 1. write `<base>.log.cleaned` and fsync it (a crash here: the leftover is removed at start);
//! 2. remove the old `.idx`, fsync the directory (crash: old log, index rebuilt);
//! 3. rename `.cleaned` over `.log`, fsync the directory (crash: new log, index rebuilt);
//! 4. write the new `.idx` atomically.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::sync::Arc;

use super::error::{IoContext, Result, StorageError};
use super::fsutil;
use super::index::IndexBuilder;
use super::partition::{Partition, ScanCheck, ScanScope, remove_segment_files};
use super::segment::{Parts, RolledSegment, SegmentFile, Verification};

/// Decides whether a batch survives: `(key, base_offset, payload_len, timestamp_ns)`.
type KeepFn<'a> = &'a dyn Fn(&[u8], u64, u32, u64) -> bool;

/// A step of the swap, for fault-injection tests: compaction stops right after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapStep {
    /// `.cleaned` written and fsynced.
    WroteCleaned,
    /// Old index removed.
    RemovedOldIndex,
    /// `.cleaned` renamed over the log.
    Renamed,
    /// New index written.
    WroteIndex,
}

/// What a compaction pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompactionReport {
    /// Segments rewritten or removed.
    pub segments_rewritten: usize,
    /// Batches dropped.
    pub batches_removed: u64,
    /// Bytes freed.
    pub bytes_freed: u64,
}

/// Error returned when a fault-injection step stops compaction.
fn interrupted(step: SwapStep) -> StorageError {
    StorageError::Config(format!(
        "compaction interrupted after {step:?} (fault injection)"
    ))
}

impl Partition {
    /// Compact the rolled segments once. `stop_after` injects a crash after a
    /// swap step (tests); pass `None` in production.
    pub fn compact(&self, now_ns: u64, stop_after: Option<SwapStep>) -> Result<CompactionReport> {
        let rolled = self.rolled_segments();
        let mut report = CompactionReport::default();
        if rolled.is_empty() {
            return Ok(report);
        }
        let opts = self.options();
        let mut scratch = Vec::new();
        // Newest offset per key over the whole log, the active segment included.
        let mut latest: HashMap<Vec<u8>, u64> = HashMap::new();
        let mut note = |key: &[u8], base: u64| {
            if !key.is_empty() {
                latest.insert(key.to_vec(), base);
            }
        };
        for seg in &rolled {
            let v = seg.verify(opts.index_interval_bytes, &mut scratch)?;
            if !v.bad.is_empty() {
                // Never rewrite around damage: the corrupt range stays fenced as it is.
                continue;
            }
            self.scan_batches(
                ScanScope::Rolled(seg),
                ScanCheck::Checked,
                &mut scratch,
                |b| {
                    note(b.key(), b.header.base_offset);
                    Ok(())
                },
            )?;
        }
        // In the active segment only durable batches count: a newer value
        // still waiting for its fsync may be lost in a crash, and the older
        // value it would supersede must survive that. (Rolled segments are
        // durable by the roll invariant.)
        let durable = self.synced_offset();
        self.scan_batches(ScanScope::Active, ScanCheck::Checked, &mut scratch, |b| {
            if b.header.next_offset().is_some_and(|end| end <= durable) {
                note(b.key(), b.header.base_offset);
            }
            Ok(())
        })?;

        let grace_ns = self.policy().delete_retention_ms.saturating_mul(1_000_000);
        for seg in &rolled {
            if seg.verification().is_none_or(|v| !v.bad.is_empty()) {
                continue;
            }
            let keep = |key: &[u8], base: u64, payload_len: u32, ts: u64| {
                if key.is_empty() {
                    return true;
                }
                let newest = latest.get(key) == Some(&base);
                let expired_tombstone = payload_len == 0 && ts.saturating_add(grace_ns) < now_ns;
                newest && !expired_tombstone
            };
            let changed = self.rewrite(seg, &keep, &mut scratch, stop_after, &mut report)?;
            if changed && stop_after.is_some() {
                return Ok(report);
            }
        }
        Ok(report)
    }

    /// Rewrite one segment keeping only what `keep` accepts. Returns whether it changed.
    fn rewrite(
        &self,
        seg: &Arc<RolledSegment>,
        keep: KeepFn<'_>,
        scratch: &mut Vec<u8>,
        stop_after: Option<SwapStep>,
        report: &mut CompactionReport,
    ) -> Result<bool> {
        let opts = self.options();
        // First pass: is there anything to drop?
        let mut drop_count = 0u64;
        self.scan_batches(ScanScope::Rolled(seg), ScanCheck::Checked, scratch, |b| {
            let h = &b.header;
            if !keep(b.key(), h.base_offset, h.payload_len, h.timestamp_ns) {
                drop_count += 1;
            }
            Ok(())
        })?;
        if drop_count == 0 {
            return Ok(false);
        }
        let dir = self.dir();
        let cleaned_path = {
            let mut name = seg.file.path.file_name().unwrap_or_default().to_os_string();
            name.push(".cleaned");
            seg.file.path.with_file_name(name)
        };
        let out = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&cleaned_path)
            .ctx("create", &cleaned_path)?;
        let mut w = BufWriter::with_capacity(1 << 20, out);
        let mut index = IndexBuilder::new(seg.base, opts.index_interval_bytes);
        let mut pos = 0u64;
        let mut max_ts = 0;
        self.scan_batches(ScanScope::Rolled(seg), ScanCheck::Checked, scratch, |b| {
            let h = &b.header;
            if keep(b.key(), h.base_offset, h.payload_len, h.timestamp_ns) {
                w.write_all(b.bytes).ctx("write", &cleaned_path)?;
                index.observe(h.base_offset, pos);
                pos += b.bytes.len() as u64;
                max_ts = max_ts.max(h.timestamp_ns);
            }
            Ok(())
        })?;
        let out = w
            .into_inner()
            .map_err(|e| StorageError::io("write", &cleaned_path, e.into_error()))?;
        out.sync_all().ctx("fsync", &cleaned_path)?;
        drop(out);
        if stop_after == Some(SwapStep::WroteCleaned) {
            return Err(interrupted(SwapStep::WroteCleaned));
        }
        report.segments_rewritten += 1;
        report.batches_removed += drop_count;
        report.bytes_freed += seg.size - pos;

        if pos == 0 {
            // Nothing survives: remove the segment (index first, then log).
            fs::remove_file(&cleaned_path).ctx("remove", &cleaned_path)?;
            remove_segment_files(seg)?;
            fsutil::fsync_dir(dir)?;
            self.replace_rolled(seg, None);
            tracing::info!(
                topic = self.topic(),
                partition = self.id(),
                base = seg.base,
                "compaction removed an emptied segment"
            );
            return Ok(true);
        }
        match fs::remove_file(&seg.idx_path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(StorageError::io("remove index", &seg.idx_path, e)),
        }
        fsutil::fsync_dir(dir)?;
        if stop_after == Some(SwapStep::RemovedOldIndex) {
            return Err(interrupted(SwapStep::RemovedOldIndex));
        }
        fs::rename(&cleaned_path, &seg.file.path)
            .ctx("rename compacted segment", &seg.file.path)?;
        fsutil::fsync_dir(dir)?;
        if stop_after == Some(SwapStep::Renamed) {
            return Err(interrupted(SwapStep::Renamed));
        }
        let index = index.finish();
        index.write(&seg.idx_path)?;
        if stop_after == Some(SwapStep::WroteIndex) {
            return Err(interrupted(SwapStep::WroteIndex));
        }
        let file = File::open(&seg.file.path).ctx("open segment", &seg.file.path)?;
        // Written from batches checked by the compaction scan.
        let new = RolledSegment::rolled(
            Parts {
                base: seg.base,
                end_offset: seg.end_offset,
                size: pos,
                file: Arc::new(SegmentFile {
                    path: seg.file.path.clone(),
                    file,
                }),
                idx_path: seg.idx_path.clone(),
                index,
                max_timestamp: max_ts,
                dense: false, // compacted: offsets have holes
            },
            Verification::default(),
        );
        self.replace_rolled(seg, Some(Arc::new(new)));
        tracing::info!(
            topic = self.topic(),
            partition = self.id(),
            base = seg.base,
            batches_removed = drop_count,
            bytes_before = seg.size,
            bytes_after = pos,
            "compacted segment"
        );
        Ok(true)
    }
}
