//! The append path: a batch is checked, its offset assigned in the header
//! it is written with, and written with one `pwritev`; the partition is
//! queued for the group commit.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hermit_protocol::WireError;
use hermit_protocol::record::{CRC_AT, CRC_START, HEADER_LEN, RecordHeader, TIMESTAMP_AT};

use super::{Active, Appended, Partition, Visible, now_ns};
use crate::log::error::{Result, StorageError};
use crate::log::options::FsyncPolicy;
use crate::log::slab::SLOT_BYTES;

impl Partition {
    /// Append one record batch (header included, base offset ignored). The
    /// CRC is verified, the offset assigned by patching the header in the
    /// write, and the batch written with one `pwritev`.
    pub fn append(self: &Arc<Self>, batch: &[u8]) -> Result<Appended> {
        self.append_when(batch, None)
    }

    /// [`Partition::append`] only if the log ends at `expected_end` (the
    /// offset the next record gets, durable or not), checked under the
    /// same lock as the write: of any number of callers expecting one end,
    /// exactly one appends. Otherwise nothing is written and the answer is
    /// [`StorageError::EndMoved`] with the end.
    pub fn append_at(self: &Arc<Self>, batch: &[u8], expected_end: u64) -> Result<Appended> {
        self.append_when(batch, Some(expected_end))
    }

    fn append_when(self: &Arc<Self>, batch: &[u8], expected_end: Option<u64>) -> Result<Appended> {
        let (header, mut head) = self.checked_header(batch)?;
        let count = u64::from(header.record_count);
        let len = header.batch_len();

        let mut inner = self.lock();
        if inner.deleted {
            return Err(StorageError::UnknownTopic(self.topic.clone()));
        }
        if inner.closed {
            return Err(StorageError::ShuttingDown);
        }
        if let Some(reason) = &inner.failed {
            return Err(self.failed_error(reason));
        }
        let next = inner.next_offset;
        if let Some(expected) = expected_end
            && expected != next
        {
            return Err(StorageError::EndMoved {
                expected,
                end: next,
                log_start: inner.log_start,
            });
        }
        let now = now_ns();
        let needs_roll = |a: &Active| {
            let used = a.size - a.file.origin();
            used > 0
                && (used + len > self.opts.segment_bytes
                    || next + count - a.base > u64::from(u32::MAX)
                    || a.first_append_ns
                        .is_some_and(|t| now.saturating_sub(t) / 1_000_000 >= self.opts.segment_ms))
        };
        if inner.active.file.is_slot()
            && (inner.active.size + len > inner.active.file.origin() + SLOT_BYTES
                || needs_roll(&inner.active))
        {
            self.move_out(&mut inner)?;
        }
        if needs_roll(&inner.active) {
            self.roll(&mut inner)?;
        }
        let base = inner.next_offset;
        head[1..9].copy_from_slice(&base.to_be_bytes());
        let pos = inner.active.size;
        let io = &self.opts.io;
        if let Err(e) = io.write_at(&inner.active.file.file, &[&head, &batch[HEADER_LEN..]], pos) {
            let err = StorageError::io("append", &inner.active.file.path, e);
            // Cut off whatever part of the batch reached the file, so the next
            // append does not follow garbage (in a slot: zero it, the slab
            // goes on past it); if even that fails, stop writing.
            let undo = if inner.active.file.is_slot() {
                let zeros = vec![0u8; (inner.active.file.origin() + SLOT_BYTES - pos) as usize];
                io.write_at(&inner.active.file.file, &[&zeros], pos)
            } else {
                io.set_len(&inner.active.file.file, pos)
            };
            if let Err(e2) = undo {
                let reason = format!("{err}; then truncating back failed: {e2}");
                tracing::error!(topic = %self.topic, partition = self.id, %reason, "partition failed");
                inner.failed = Some(reason);
            }
            return Err(err);
        }
        let active = &mut inner.active;
        active.index.observe(base, pos);
        active.size = pos + len;
        active.first_append_ns.get_or_insert(now);
        // max: a wall clock stepped back must not make the segment younger
        // than data already in it.
        active.last_append_ns = active.last_append_ns.max(now);
        inner.next_offset = base + count;
        if self.opts.fsync != FsyncPolicy::Always {
            inner.visible = Visible {
                offset: base + count,
                segment_base: inner.active.base,
                position: pos + len,
            };
            self.hw_tx.send_replace(base + count);
        }
        drop(inner);
        if self.opts.fsync != FsyncPolicy::Never {
            self.enqueue_sync();
        }
        if let Some(s) = self.own_stats() {
            s.appended(count, len);
        }
        Ok(Appended {
            base_offset: base,
            next_offset: base + count,
        })
    }

    /// Check a batch before it is appended (its header, length, limits,
    /// record count and CRC) and return its header and the header bytes to
    /// write: the producer's, with the broker's clock as the timestamp when
    /// the producer left it 0 (and the CRC made again over it).
    fn checked_header(&self, batch: &[u8]) -> Result<(RecordHeader, [u8; HEADER_LEN])> {
        let header = RecordHeader::decode(batch)?;
        if header.batch_len() != batch.len() as u64 {
            return Err(WireError::LengthMismatch {
                frame: batch.len() as u64,
                contents: header.batch_len(),
            }
            .into());
        }
        header.check_limits(self.opts.max_key, self.opts.max_payload)?;
        // Each record takes at least its 4-byte length prefix in the client
        // layout; a count beyond that would only burn offsets.
        let max_records = (header.payload_len / 4).max(1);
        if header.record_count > max_records {
            return Err(WireError::InvalidField {
                field: "record_count",
                value: u64::from(header.record_count),
            }
            .into());
        }
        let computed = crc32c::crc32c(&batch[CRC_START..]);
        if computed != header.crc {
            return Err(WireError::CrcMismatch {
                stored: header.crc,
                computed,
            }
            .into());
        }
        let mut head = [0u8; HEADER_LEN];
        head.copy_from_slice(&batch[..HEADER_LEN]);
        if header.timestamp_ns == 0 {
            let timestamp = now_ns();
            head[TIMESTAMP_AT..TIMESTAMP_AT + 8].copy_from_slice(&timestamp.to_be_bytes());
            let crc =
                crc32c::crc32c_append(crc32c::crc32c(&head[CRC_START..]), &batch[HEADER_LEN..]);
            head[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_be_bytes());
        }
        Ok((header, head))
    }

    /// Before records become durable outside a round (a roll, a move out),
    /// their topic's creation (the catalog) is made durable.
    pub(super) fn sync_catalog(&self) -> Result<()> {
        match &self.sync_queue {
            Some(q) if self.opts.fsync != FsyncPolicy::Never => q.sync_catalog(),
            _ => Ok(()),
        }
    }

    pub(super) fn enqueue_sync(self: &Arc<Self>) {
        if let Some(q) = &self.sync_queue
            && !self.queued.swap(true, Ordering::SeqCst)
        {
            q.push(self.clone());
        }
    }
}
