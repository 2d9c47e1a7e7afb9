//! Group-commit fsync: what a sync makes durable, the sync itself, and
//! what the group commit calls ([`Syncable`]); and close, the last sync.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{DIR_NEW, DIR_PARENT, Partition, Visible};
use crate::log::error::{IoContext, Result, StorageError};
use crate::log::fsutil;
use crate::log::options::FsyncPolicy;
use crate::log::segment::{self, SegmentFile};
use crate::log::sync::{SyncTarget, Syncable};

impl Partition {
    /// Called by the sync queue when it takes the partition, before syncing it.
    fn dequeued(&self) {
        self.queued.store(false, Ordering::SeqCst);
    }

    /// fsync what has been written; under `fsync = always` this also makes it visible.
    /// Called by the sync thread (group commit) and on close. Returns whether
    /// an fsync was issued (false when everything was already durable).
    pub fn sync(&self) -> Result<bool> {
        let Some((target, file)) = self.sync_target()? else {
            return Ok(false);
        };
        let io = &self.opts.io;
        let dirs = if target.dirs & DIR_PARENT != 0 {
            fsutil::fsync_dir(io, fsutil::parent(&self.dir))
        } else {
            Ok(())
        }
        .and_then(|()| {
            if target.dirs & DIR_NEW != 0 {
                fsutil::fsync_dir(io, &self.dir)
            } else {
                Ok(())
            }
        });
        if let Err(err) = dirs {
            self.sync_failed(&err);
            return Err(err);
        }
        if let Err(e) = io.sync_data(&file.file) {
            let err = StorageError::io("fsync", &file.path, e);
            self.sync_failed(&err);
            return Err(err);
        }
        self.synced_to(target);
        Ok(true)
    }

    /// What a sync would make durable now, with the file to fsync; `None`
    /// when everything is durable already.
    fn sync_target(&self) -> Result<Option<(SyncTarget, Arc<SegmentFile>)>> {
        let inner = self.lock();
        if let Some(reason) = &inner.failed {
            return Err(self.failed_error(reason));
        }
        let dirs = self.dirs_unsynced.load(Ordering::Acquire);
        if self.synced.load(Ordering::Acquire) >= inner.next_offset && dirs == 0 {
            return Ok(None);
        }
        Ok(Some((
            SyncTarget {
                offset: inner.next_offset,
                base: inner.active.base,
                position: inner.active.size,
                dirs,
            },
            inner.active.file.clone(),
        )))
    }

    /// Everything in `target` is durable (an fsync that started after it
    /// was captured succeeded): advance the synced offset and, under
    /// `fsync = always`, the visible end.
    fn synced_to(&self, target: SyncTarget) {
        self.dirs_unsynced.fetch_and(!target.dirs, Ordering::AcqRel);
        let offset = target.offset;
        let mut inner = self.lock();
        if self.synced.load(Ordering::Acquire) < offset {
            self.synced.store(offset, Ordering::Release);
        }
        if self.opts.fsync == FsyncPolicy::Always && inner.visible.offset < offset {
            inner.visible = Visible {
                offset,
                segment_base: target.base,
                position: target.position,
            };
            self.hw_tx.send_replace(offset);
        }
    }

    /// A sync failed. After a failed fsync the page cache may have dropped
    /// the dirty pages: retrying could report success for lost data. The
    /// partition stops here.
    fn sync_failed(&self, err: &StorageError) {
        tracing::error!(topic = %self.topic, partition = self.id, error = %err, "fsync failed; partition stops accepting writes");
        self.lock().failed = Some(err.to_string());
        self.hw_tx.send_modify(|_| {}); // wake waiters so they see the failure
    }

    /// fsync everything (shutdown, tests). Works under every fsync policy.
    /// Also stamps the active segment's newest append time on its file, so
    /// that the next start reads it exactly.
    pub fn close(&self) -> Result<()> {
        self.lock().closed = true;
        self.sync()?;
        let (file, last_append_ns) = {
            let inner = self.lock();
            (inner.active.file.clone(), inner.active.last_append_ns)
        };
        // A slot's slab is shared: its mtime stays that of its newest write.
        if last_append_ns > 0 && !file.is_slot() {
            segment::stamp_append_time(&file, last_append_ns)?;
            self.opts
                .io
                .sync_all(&file.file)
                .ctx("fsync segment append time", &file.path)?;
        }
        Ok(())
    }
}

impl Syncable for Partition {
    fn topic(&self) -> &str {
        Partition::topic(self)
    }

    fn id(&self) -> u32 {
        Partition::id(self)
    }

    fn dequeued(&self) {
        Partition::dequeued(self)
    }

    fn sync_target(&self) -> Result<Option<(SyncTarget, Arc<SegmentFile>)>> {
        Partition::sync_target(self)
    }

    fn sync(&self) -> Result<bool> {
        Partition::sync(self)
    }

    fn synced_to(&self, target: SyncTarget) {
        Partition::synced_to(self, target)
    }

    fn sync_failed(&self, err: &StorageError) {
        Partition::sync_failed(self, err)
    }
}
