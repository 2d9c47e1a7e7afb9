//! Recovery at open: the active segment (or the slot) is scanned from its
//! start; a torn tail is truncated, corruption with valid batches after it
//! is fenced — and the active segment holding it rolled over.

use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use super::open::Opening;
use super::{Active, Partition};
use crate::log::error::{IoContext, Result, StorageError};
use crate::log::fsutil;
use crate::log::index::IndexBuilder;
use crate::log::options::{LogOptions, RecoveryMode};
use crate::log::reader::{self, Continuity, HARD_MAX_BATCH, ScanOptions, SegmentReader};
use crate::log::segment::{
    self, BadRange, RolledSegment, SegmentFile, Verification, idx_name, log_name, open_rw,
};
use crate::log::slab::SLOT_BYTES;

impl Partition {
    /// The newest append to a slot, as far as can be known after a start:
    /// its slab's mtime (an upper bound — any slot's append moves it),
    /// never later than now. Retention ages by it once the segment rolls,
    /// so it may keep data longer, never delete it early.
    pub(super) fn slot_append_ns(slot: &SegmentFile) -> Result<u64> {
        let meta = slot.file.metadata().ctx("stat slab", &slot.path)?;
        segment::stored_append_time(&meta, &slot.path)
    }

    /// Scan a slot from its start, as [`Partition::recover_active`] scans
    /// an active segment. Zeros after the last batch are the slot's clean
    /// end. A torn tail — bytes that are not a batch, with no valid batch
    /// after them — is zeroed (or refused, in absolute-consistency mode).
    /// Returns `None` for corruption with valid batches after it, which only a
    /// partition directory can fence: the caller moves the slot out.
    pub(super) fn recover_slot(
        slot: &Arc<SegmentFile>,
        ctx: &Opening<'_>,
    ) -> Result<Option<(Active, u64)>> {
        let origin = slot.origin();
        let len = slot.file.metadata().ctx("stat slab", &slot.path)?.len();
        let end = len.clamp(origin, origin + SLOT_BYTES);
        let mut index = IndexBuilder::new(0, ctx.opts.index_interval_bytes);
        let mut buf = Vec::new();
        let mut reader = SegmentReader::new(
            &slot.file,
            &slot.path,
            origin,
            end,
            ScanOptions::verify(Continuity::Strict(0), SLOT_BYTES),
            &mut buf,
        );
        let corruption = loop {
            match reader.next_batch() {
                Ok(Some(b)) => index.observe(b.header.base_offset, b.position),
                Ok(None) => break None,
                Err(e @ StorageError::Corrupt { .. }) => break Some(e),
                Err(e) => return Err(e),
            }
        };
        let (at, next_offset) = (reader.position(), reader.next_offset().unwrap_or(0));
        let mut zeroed = false;
        if let Some(err) = corruption {
            let mut rest = vec![0u8; (end - at) as usize];
            slot.file
                .read_exact_at(&mut rest, at)
                .ctx("read slot", &slot.path)?;
            if rest.iter().any(|b| *b != 0) {
                if ctx.opts.recovery_mode == RecoveryMode::AbsoluteConsistency {
                    return Err(err);
                }
                if reader::find_resync(
                    &slot.file,
                    &slot.path,
                    at + 1,
                    end,
                    next_offset,
                    u64::from(u32::MAX),
                )?
                .is_some()
                {
                    return Ok(None);
                }
                tracing::warn!(
                    topic = ctx.topic, partition = ctx.id, slot = %slot.path.display(),
                    valid_bytes = at - origin, dropped_bytes = end - at, next_offset,
                    reason = %err,
                    "zeroing the torn tail of a slot"
                );
                rest.fill(0);
                ctx.opts
                    .io
                    .write_at(&slot.file, &[&rest], at)
                    .ctx("zero torn tail", &slot.path)?;
                zeroed = true;
            }
        }
        if zeroed || (at > origin && !ctx.durable) {
            // After a crash the slot's bytes may be in the page cache only;
            // what is served from now on must be on disk.
            ctx.opts
                .io
                .sync_data(&slot.file)
                .ctx("fsync recovered slot", &slot.path)?;
        }
        let last_append_ns = if at > origin {
            Self::slot_append_ns(slot)?
        } else {
            0
        };
        Ok(Some((
            Active {
                base: 0,
                file: slot.clone(),
                size: at,
                index,
                first_append_ns: (at > origin).then(|| {
                    ctx.created_ns
                        .map_or(last_append_ns, |t| t.min(last_append_ns))
                }),
                last_append_ns,
            },
            next_offset,
        )))
    }

    /// Scan the active segment from its start. A torn or corrupt *tail* —
    /// bad bytes with no valid batch after them, what a crash leaves — is
    /// truncated (or refused, in absolute-consistency mode). Corruption with
    /// valid batches after it is not a crash artifact: those batches were
    /// acknowledged, so nothing is truncated; the corrupt ranges are
    /// returned to be fenced. Returns the segment, the next offset and the
    /// fenced ranges, and whether the segment file was created (its
    /// directory entry is not fsynced yet). The recovered bytes are fsynced: after a crash they
    /// may only have been in the page cache. The segment's append times come
    /// from its mtime (the newest append) and `roll_age_from` (a lower bound
    /// of its first append), never from the batches' timestamps.
    pub(super) fn recover_active(
        dir: &Path,
        base: u64,
        ctx: &Opening<'_>,
        roll_age_from: Option<u64>,
    ) -> Result<(Active, u64, Vec<BadRange>, bool)> {
        let (opts, topic, id) = (ctx.opts, ctx.topic, ctx.id);
        let path = dir.join(log_name(base));
        let created = !path.exists();
        let file = open_rw(&opts.io, &path, true)?;
        let meta = file.metadata().ctx("stat segment", &path)?;
        let len = meta.len();
        let stored_append_ns = segment::stored_append_time(&meta, &path)?;
        let mut truncated = false;
        let mut index = IndexBuilder::new(base, opts.index_interval_bytes);
        let mut buf = Vec::new();
        let mut bad = Vec::new();
        let (mut pos, mut expected) = (0, base);
        let (end, next_offset) = loop {
            let mut reader = SegmentReader::new(
                &file,
                &path,
                pos,
                len,
                ScanOptions::verify(Continuity::Strict(expected), HARD_MAX_BATCH),
                &mut buf,
            );
            let corruption = loop {
                match reader.next_batch() {
                    Ok(Some(b)) => {
                        index.observe(b.header.base_offset, b.position);
                    }
                    Ok(None) => break None,
                    Err(e @ StorageError::Corrupt { .. }) => break Some(e),
                    Err(e) => return Err(e),
                }
            };
            let (at, next) = (reader.position(), reader.next_offset().unwrap_or(expected));
            let Some(err) = corruption else {
                break (at, next);
            };
            match reader::find_resync(&file, &path, at + 1, len, next, segment::max_end(base))? {
                Some((resume, resume_offset)) => {
                    if opts.recovery_mode == RecoveryMode::AbsoluteConsistency {
                        return Err(err);
                    }
                    tracing::error!(
                        topic, partition = id, segment = %path.display(),
                        from_offset = next, to_offset = resume_offset, from_byte = at, to_byte = resume,
                        reason = %err,
                        "corrupt range inside the active segment, with valid batches after it: \
                         it is fenced (never served), nothing is truncated"
                    );
                    bad.push(BadRange {
                        from_offset: next,
                        to_offset: resume_offset,
                        from_pos: at,
                        to_pos: resume,
                    });
                    (pos, expected) = (resume, resume_offset);
                }
                None => {
                    if opts.recovery_mode == RecoveryMode::AbsoluteConsistency {
                        return Err(err);
                    }
                    tracing::warn!(
                        topic, partition = id, segment = %path.display(),
                        valid_bytes = at, dropped_bytes = len - at, next_offset = next,
                        reason = %err,
                        "truncating the torn tail of the active segment"
                    );
                    opts.io
                        .set_len(&file, at)
                        .ctx("truncate torn tail", &path)?;
                    truncated = true;
                    break (at, next);
                }
            }
        };
        let file = SegmentFile::new(path, file, opts.io.clone());
        if truncated {
            // Truncation moved the mtime to now; the survivors are older.
            segment::stamp_append_time(&file, stored_append_ns)?;
            opts.io
                .sync_all(&file.file)
                .ctx("fsync recovered segment", &file.path)?;
        } else if len > 0 && !ctx.durable {
            opts.io
                .sync_data(&file.file)
                .ctx("fsync recovered segment", &file.path)?;
        }
        let last_append_ns = if end > 0 { stored_append_ns } else { 0 };
        Ok((
            Active {
                base,
                file: Arc::new(file),
                size: end,
                index,
                first_append_ns: (end > 0)
                    .then(|| roll_age_from.map_or(last_append_ns, |t| t.min(last_append_ns))),
                last_append_ns,
            },
            next_offset,
            bad,
            created,
        ))
    }

    /// The active segment `active`, whose recovery fenced `bad` (ranges
    /// with valid batches after them), as a rolled segment: its index is
    /// written, and for a `dense`-less (compacted) topic a marker that it
    /// is dense, before the next segment exists (the caller creates it).
    pub(super) fn roll_fenced(
        dir: &Path,
        active: &Active,
        next_offset: u64,
        bad: Vec<BadRange>,
        dense: bool,
        opts: &LogOptions,
    ) -> Result<Arc<RolledSegment>> {
        let idx_path = dir.join(idx_name(active.base));
        let index = active.index.clone().finish();
        index.write(&opts.io, &idx_path)?;
        if !dense {
            // The ranges were fenced by exact continuity. A restart must
            // verify the rolled segment by that rule, not by a compacted
            // segment's (holes allowed), or it would serve a batch whose
            // base offset is wrong and fence what was served before. The
            // marker is durable before the next segment exists: that
            // segment's file is what makes this one rolled.
            let marker = dir.join(segment::dense_name(active.base));
            fsutil::write_atomic(
                &opts.io,
                &marker,
                b"never compacted: verified with exact offset continuity\n",
            )?;
        }
        Ok(Arc::new(RolledSegment::rolled(
            segment::Parts {
                base: active.base,
                end_offset: next_offset,
                size: active.size,
                file: active.file.clone(),
                idx_path,
                index,
                append_ns: active.last_append_ns,
                dense: true,
            },
            Verification { bad, index: None },
        )))
    }
}
