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
use std::fs::File;
use std::io::Write;
use std::sync::Arc;

use super::clock;
use super::error::{IoContext, Result, StorageError};
use super::fsutil;
use super::index::IndexBuilder;
use super::io::{Appender, OpenMode};
use super::partition::Partition;
use super::partition::scan::{ScanCheck, ScanScope};
use super::segment::{Parts, RolledSegment, SegmentFile, Verification, remove_segment_files};

/// Decides whether a batch survives: `(key, base_offset, payload_len, timestamp_ns)`.
type KeepFn<'a> = &'a dyn Fn(&[u8], u64, u32, u64) -> bool;

/// A step of the swap. With the `failpoints` feature a test can make
/// compaction stop right after one (`failpoints::stop_compaction_after`).
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

/// Fault injection for tests, compiled only with the `failpoints` feature
/// (which only this crate's dev-dependency on itself enables).
#[cfg(feature = "failpoints")]
pub mod failpoints {
    use std::cell::Cell;

    use super::SwapStep;

    thread_local! {
        // Per thread: tests in one binary run in parallel, and a test's
        // compaction runs on the test's own thread.
        static STOP_AFTER: Cell<Option<SwapStep>> = const { Cell::new(None) };
    }

    /// While the guard lives, compaction on this thread stops right after
    /// `step` with an error, leaving the files as a crash there would; it
    /// also stops after the first segment it changes.
    pub fn stop_compaction_after(step: SwapStep) -> StopGuard {
        StopGuard {
            previous: STOP_AFTER.replace(Some(step)),
        }
    }

    /// Disarms [`stop_compaction_after`] when dropped.
    #[derive(Debug)]
    #[must_use = "the failpoint is disarmed when the guard is dropped"]
    pub struct StopGuard {
        previous: Option<SwapStep>,
    }

    impl Drop for StopGuard {
        fn drop(&mut self) {
            STOP_AFTER.set(self.previous);
        }
    }

    pub(super) fn armed() -> Option<SwapStep> {
        STOP_AFTER.get()
    }
}

/// The armed failpoint step, if any (always `None` without the feature).
fn armed_step() -> Option<SwapStep> {
    #[cfg(feature = "failpoints")]
    return failpoints::armed();
    #[cfg(not(feature = "failpoints"))]
    None
}

/// Stop here, as a crash right after `step` would, when a test armed it.
fn failpoint(step: SwapStep) -> Result<()> {
    if armed_step() == Some(step) {
        return Err(StorageError::InjectedFault(format!(
            "compaction interrupted after {step:?}"
        )));
    }
    Ok(())
}

impl Partition {
    /// Compact the rolled segments once.
    pub fn compact(&self, now_ns: u64) -> Result<CompactionReport> {
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
            let v = seg.verify(opts, &mut scratch)?;
            if !v.bad.is_empty() {
                // Never rewrite around corruption: the corrupt range stays fenced as it is.
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
            let changed = self.rewrite(seg, &keep, &mut scratch, &mut report)?;
            // An armed failpoint tests one swap: one segment is enough.
            if changed && armed_step().is_some() {
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
        let io = &opts.io;
        let out = io
            .open(&cleaned_path, OpenMode::Replace)
            .ctx("create", &cleaned_path)?;
        let mut w = Appender::new(io, &out, 0, 1 << 20);
        let mut index = IndexBuilder::new(seg.base, opts.index_interval_bytes);
        let mut pos = 0u64;
        self.scan_batches(ScanScope::Rolled(seg), ScanCheck::Checked, scratch, |b| {
            let h = &b.header;
            if keep(b.key(), h.base_offset, h.payload_len, h.timestamp_ns) {
                w.write_all(b.bytes).ctx("write", &cleaned_path)?;
                index.observe(h.base_offset, pos);
                pos += b.bytes.len() as u64;
            }
            Ok(())
        })?;
        w.flush().ctx("write", &cleaned_path)?;
        // The rewrite keeps the data's age: retention goes by the segment's
        // append time (its mtime), which must not restart at compaction.
        out.set_modified(clock::system_time(seg.append_ns()))
            .ctx("set segment append time", &cleaned_path)?;
        io.sync_all(&out).ctx("fsync", &cleaned_path)?;
        drop(out);
        failpoint(SwapStep::WroteCleaned)?;
        report.segments_rewritten += 1;
        report.batches_removed += drop_count;
        report.bytes_freed += seg.size - pos;

        if pos == 0 {
            // Nothing survives: remove the segment (index first, then log).
            io.remove_file(&cleaned_path).ctx("remove", &cleaned_path)?;
            remove_segment_files(io, seg)?;
            fsutil::fsync_dir(io, dir)?;
            self.replace_rolled(seg, None);
            tracing::info!(
                topic = self.topic(),
                partition = self.id(),
                base = seg.base,
                "compaction removed an emptied segment"
            );
            return Ok(true);
        }
        match io.remove_file(&seg.idx_path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(StorageError::io("remove index", &seg.idx_path, e)),
        }
        fsutil::fsync_dir(io, dir)?;
        failpoint(SwapStep::RemovedOldIndex)?;
        io.rename(&cleaned_path, &seg.file.path)
            .ctx("rename compacted segment", &seg.file.path)?;
        fsutil::fsync_dir(io, dir)?;
        failpoint(SwapStep::Renamed)?;
        let index = index.finish();
        index.write(io, &seg.idx_path)?;
        failpoint(SwapStep::WroteIndex)?;
        let file = File::open(&seg.file.path).ctx("open segment", &seg.file.path)?;
        // Written from batches checked by the compaction scan.
        let new = RolledSegment::rolled(
            Parts {
                base: seg.base,
                end_offset: seg.end_offset,
                size: pos,
                file: Arc::new(SegmentFile::new(seg.file.path.clone(), file, io.clone())),
                idx_path: seg.idx_path.clone(),
                index,
                append_ns: seg.append_ns(),
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
