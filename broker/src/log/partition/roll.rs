//! Rolling the active segment over: the old one is made durable and its
//! index written before the new file exists.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hermit_protocol::Cleanup;

use super::{Active, DIR_PARENT, Inner, Partition, Visible};
use crate::log::error::{IoContext, Result};
use crate::log::fsutil;
use crate::log::index::IndexBuilder;
use crate::log::segment::{
    self, RolledSegment, SegmentFile, Verification, idx_name, log_name, open_rw,
};

impl Partition {
    /// Roll the active segment over: start a new one at the next offset.
    /// The old segment is fsynced and its index written before the new file
    /// exists, keeping "only the active segment may be torn" true.
    pub(super) fn roll(&self, inner: &mut Inner) -> Result<()> {
        // The old segment is durable after it, without a round: its topic's
        // creation must be first.
        self.sync_catalog()?;
        let old = &inner.active;
        segment::stamp_append_time(&old.file, old.last_append_ns)?;
        // sync_all, not sync_data: the append time (mtime) must be durable too.
        let io = &self.opts.io;
        io.sync_all(&old.file.file)
            .ctx("fsync segment before roll", &old.file.path)?;
        let index = old.index.clone().finish();
        let idx_path = self.dir.join(idx_name(old.base));
        index.write(io, &idx_path)?;
        let new_base = inner.next_offset;
        let path = self.dir.join(log_name(new_base));
        let file = open_rw(io, &path, true)?;
        fsutil::fsync_dir(io, &self.dir)?;
        if self.dirs_unsynced.load(Ordering::Acquire) & DIR_PARENT != 0 {
            fsutil::fsync_dir(io, fsutil::parent(&self.dir))?;
        }
        self.dirs_unsynced.store(0, Ordering::Release);
        let new = Active {
            base: new_base,
            file: Arc::new(SegmentFile::new(path, file, io.clone())),
            size: 0,
            index: IndexBuilder::new(new_base, self.opts.index_interval_bytes),
            first_append_ns: None,
            last_append_ns: 0,
        };
        let old = std::mem::replace(&mut inner.active, new);
        // Every batch of it was CRC-checked on append.
        inner.rolled.push(Arc::new(RolledSegment::rolled(
            segment::Parts {
                base: old.base,
                end_offset: new_base,
                size: old.size,
                file: old.file,
                idx_path,
                index,
                append_ns: old.last_append_ns,
                dense: self.policy.cleanup != Cleanup::Compact,
            },
            Verification::default(),
        )));
        // The old segment is durable now.
        if self.synced.load(Ordering::Acquire) < new_base {
            self.synced.store(new_base, Ordering::Release);
        }
        if inner.visible.offset <= new_base {
            inner.visible = Visible {
                offset: new_base,
                segment_base: new_base,
                position: 0,
            };
            self.hw_tx.send_replace(new_base);
        }
        tracing::debug!(topic = %self.topic, partition = self.id, base = new_base, "rolled segment");
        self.report_files(inner);
        Ok(())
    }

    /// Roll the active segment over now, if it holds anything (operators, tests).
    pub fn force_roll(&self) -> Result<()> {
        let mut inner = self.lock();
        if let Some(reason) = &inner.failed {
            return Err(self.failed_error(reason));
        }
        if inner.active.size == inner.active.file.origin() {
            return Ok(());
        }
        if inner.active.file.is_slot() {
            self.move_out(&mut inner)?;
        }
        self.roll(&mut inner)
    }
}
