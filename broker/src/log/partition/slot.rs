//! Slot placement: a partition in a slot (see `log::slab`) moves out into
//! its own directory when it outgrows the slot.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Active, Inner, Partition, Visible};
use crate::log::error::{IoContext, Result};
use crate::log::fsutil;
use crate::log::index::IndexBuilder;
use crate::log::io::Io;
use crate::log::segment::{self, SegmentFile, log_name, open_rw};

/// Where a partition directory is staged while it moves out of its slot.
fn staging_dir(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(".new");
    dir.with_file_name(name)
}

/// Copy a slot's bytes up to `end` (a slab position; with `trim_zeros`,
/// without the zeros that end the slot) into a new directory `dir` as its
/// segment based at `base`: staged in `<dir>.new`, fsynced, renamed into
/// place and the rename fsynced. Returns the new segment file.
pub(super) fn move_slot_bytes(
    io: &Io,
    slot: &SegmentFile,
    end: u64,
    dir: &Path,
    base: u64,
    last_append_ns: u64,
    trim_zeros: bool,
) -> Result<SegmentFile> {
    let origin = slot.origin();
    let mut bytes = vec![0u8; (end - origin) as usize];
    slot.file
        .read_exact_at(&mut bytes, origin)
        .ctx("read slot", &slot.path)?;
    if trim_zeros {
        let keep = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
        bytes.truncate(keep);
    }
    let staging = staging_dir(dir);
    if staging.exists() {
        tracing::warn!(dir = %staging.display(), "removing the leftover of a move out of a slot cut short");
        io.remove_dir_all(&staging)
            .ctx("remove leftover", &staging)?;
    }
    io.create_dir(&staging)
        .ctx("create partition directory", &staging)?;
    let staged = staging.join(log_name(base));
    let file = open_rw(io, &staged, true)?;
    io.write_at(&file, &[&bytes], 0)
        .ctx("write segment", &staged)?;
    let seg = SegmentFile::new(dir.join(log_name(base)), file, io.clone());
    if last_append_ns > 0 {
        segment::stamp_append_time(&seg, last_append_ns)?;
    }
    io.sync_all(&seg.file).ctx("fsync segment", &staged)?;
    fsutil::fsync_dir(io, &staging)?;
    io.rename(&staging, dir)
        .ctx("move partition directory into place", &staging)?;
    fsutil::fsync_dir(io, fsutil::parent(dir))?;
    Ok(seg)
}

impl Partition {
    /// Move the partition out of its slot into its directory: the slot's
    /// bytes become the directory's first segment, staged in `<dir>.new`
    /// and renamed into place once durable — a crash leaves the slot or the
    /// whole directory, never half of one. Everything written is durable
    /// after it. The slot is released once no reader holds it.
    pub(super) fn move_out(&self, inner: &mut Inner) -> Result<()> {
        // What moves is durable after it, without a round: its topic's
        // creation must be first.
        self.sync_catalog()?;
        let old = &inner.active;
        let origin = old.file.origin();
        let file = move_slot_bytes(
            &self.opts.io,
            &old.file,
            old.size,
            &self.dir,
            old.base,
            old.last_append_ns,
            false,
        )?;
        let mut index = IndexBuilder::new(old.base, self.opts.index_interval_bytes);
        for e in old.index.entries() {
            index.observe(
                old.base + u64::from(e.rel_offset),
                u64::from(e.position) - origin,
            );
        }
        let new = Active {
            base: old.base,
            file: Arc::new(file),
            size: old.size - origin,
            index,
            first_append_ns: old.first_append_ns,
            last_append_ns: old.last_append_ns,
        };
        let old = std::mem::replace(&mut inner.active, new);
        old.file.release_when_unused();
        self.dirs_unsynced.store(0, Ordering::Release);
        let next = inner.next_offset;
        if self.synced.load(Ordering::Acquire) < next {
            self.synced.store(next, Ordering::Release);
        }
        inner.visible = Visible {
            offset: next,
            segment_base: inner.active.base,
            position: inner.active.size,
        };
        self.hw_tx.send_replace(next);
        tracing::debug!(topic = %self.topic, partition = self.id, bytes = inner.active.size, "moved out of its slot");
        self.report_files(inner);
        Ok(())
    }
}
