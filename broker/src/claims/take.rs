//! One claim, decided under its partition's shard lock: a retry of a
//! remembered claim finds its batch again; a new claim takes the first
//! durable batch at or after the claim position, records the new position
//! in `__claims`, and only then changes the memory.
//!
//! Only batch headers are read here (the broker never parses a payload);
//! the batch's bytes are read by the caller, after the lock is let go,
//! from the [`FileRange`] returned — which keeps its segment file open, so
//! retention removing the segment meanwhile changes nothing.

use std::sync::Arc;

use hermit_protocol::record::RecordHeader;

use super::state::{CLAIM_ID_LEN, PRINCIPAL_LEN, Remembered};
use super::store::ClaimStore;
use crate::log::error::{Result, StorageError};
use crate::log::partition::read::{FileRange, ReadOutcome};
use crate::log::segment::RolledSegment;
use crate::log::{Appended, Partition};

/// Who claims what.
#[derive(Debug, Clone, Copy)]
pub struct ClaimRequest {
    /// The claimer's id for this claim.
    pub id: [u8; CLAIM_ID_LEN],
    /// The claimer (all zeros: anonymous).
    pub principal: [u8; PRINCIPAL_LEN],
    /// Hand out only durable batches — those below the partition's synced
    /// offset. `false` under `fsync = never`, where nothing is ever synced:
    /// then everything visible is handed out, without a crash guarantee.
    pub durable_only: bool,
    /// The largest batch the answer may carry (the connection's frame):
    /// a larger one is refused, not handed out.
    pub max_batch: u64,
}

/// What a claim step found.
#[derive(Debug)]
pub enum Step {
    /// A batch for this claimer: `range` is exactly the batch.
    Batch {
        /// The batch's place in its segment file.
        range: FileRange,
        /// Its first offset.
        offset: u64,
        /// The offset after it: the claim position now.
        next: u64,
        /// The claim is durable once `__claims` is synced to this.
        durable_at: u64,
        /// Whether it was handed out now (`false`: a retry of a
        /// remembered claim, answered with the same batch).
        new: bool,
    },
    /// Every durable batch is claimed: the position, and where the
    /// durable batches end.
    Nothing {
        /// The claim position.
        position: u64,
        /// The end of what may be handed out.
        end: u64,
    },
    /// The next batch is larger than `max_batch`; nothing was handed out.
    TooLarge {
        /// Its first offset.
        offset: u64,
        /// Its length in bytes.
        len: u64,
    },
    /// The admission check refused the claim; nothing was handed out.
    Refused,
    /// The batch lies in a segment not verified yet: verify it (blocking,
    /// off the async workers), then claim again.
    Verify(Arc<RolledSegment>),
}

impl ClaimStore {
    /// Make one claim on `p` (see the module documentation). `live` is
    /// asked under the shard lock whether the partition's topic still
    /// exists (a deletion forgets the topic's claims under the same locks,
    /// so a claim that passed it is recorded before the tombstones);
    /// `admit` is asked once, and only when a new batch is about to be
    /// handed out (a retry and an empty partition cost nothing).
    ///
    /// # Errors
    /// `UnknownTopic` when `live` says no; `OffsetOutOfRange` for a retry
    /// whose batch is no longer stored; a read or append error.
    pub fn take(
        &self,
        p: &Arc<Partition>,
        req: &ClaimRequest,
        live: impl FnOnce() -> bool,
        admit: &mut dyn FnMut() -> bool,
        scratch: &mut Vec<u8>,
    ) -> Result<Step> {
        let (topic, id) = (p.topic(), p.id());
        let mut map = self.shard(topic, id);
        if !live() {
            return Err(StorageError::UnknownTopic(topic.to_owned()));
        }
        let key = (topic.to_owned(), id);
        let mut state = map.get(&key).cloned().unwrap_or_default();
        if let Some(again) = state.find(&req.id, &req.principal) {
            return retry(p, &again, scratch);
        }
        // A position past the log's end: the log lost an unsynced tail in a
        // crash (only possible without fsync = always). Clamped, and the
        // clamp recorded, as `Engine::committed` does for group offsets.
        let log_end = p.next_offset();
        if state.position > log_end {
            tracing::warn!(%topic, partition = id, position = state.position, log_end,
                "claim position is ahead of the log; clamping it to the log end");
            state.position = log_end;
            self.record(topic, id, &state)?;
            map.insert(key.clone(), state.clone());
        }
        let (log_start, hw) = p.bounds();
        let end = if req.durable_only {
            p.synced_offset().min(hw)
        } else {
            hw
        };
        let start = state.position.max(log_start);
        if start >= end {
            return Ok(Step::Nothing {
                position: start,
                end,
            });
        }
        let (range, header) = match p.read(start, 1, scratch)? {
            ReadOutcome::Data { range, .. } => {
                let header = range.file.header_at(range.position)?;
                (range, header)
            }
            // Nothing visible follows (a compaction hole at the very end).
            ReadOutcome::Empty { .. } => {
                return Ok(Step::Nothing {
                    position: start,
                    end,
                });
            }
            ReadOutcome::Unverified(seg) => return Ok(Step::Verify(seg)),
        };
        let next = batch_end(p, &range, &header)?;
        if next > end {
            // Past the durable end: not yet.
            return Ok(Step::Nothing {
                position: start,
                end,
            });
        }
        if header.batch_len() > req.max_batch {
            return Ok(Step::TooLarge {
                offset: header.base_offset,
                len: header.batch_len(),
            });
        }
        if !admit() {
            return Ok(Step::Refused);
        }
        state.position = next;
        state.remember(Remembered {
            id: req.id,
            principal: req.principal,
            offset: header.base_offset,
            recorded: 0,
        });
        let Appended { next_offset, .. } = self.record(topic, id, &state)?;
        if let Some(newest) = state.recent.back_mut() {
            newest.recorded = next_offset;
        }
        map.insert(key, state);
        Ok(Step::Batch {
            range: exactly(range, &header),
            offset: header.base_offset,
            next,
            durable_at: next_offset,
            new: true,
        })
    }
}

/// A remembered claim asked again: the same batch, read again at its
/// offset, if it is still stored.
fn retry(p: &Arc<Partition>, again: &Remembered, scratch: &mut Vec<u8>) -> Result<Step> {
    let gone = || {
        let (log_start, high_watermark) = p.bounds();
        StorageError::OffsetOutOfRange {
            offset: again.offset,
            log_start,
            high_watermark,
        }
    };
    match p.read(again.offset, 1, scratch)? {
        ReadOutcome::Data { range, .. } => {
            let header = range.file.header_at(range.position)?;
            // Compaction removed it: the next batch is not this claim's.
            if header.base_offset != again.offset {
                return Err(gone());
            }
            let next = batch_end(p, &range, &header)?;
            Ok(Step::Batch {
                range: exactly(range, &header),
                offset: again.offset,
                next,
                durable_at: again.recorded,
                new: false,
            })
        }
        ReadOutcome::Empty { .. } => Err(gone()),
        ReadOutcome::Unverified(seg) => Ok(Step::Verify(seg)),
    }
}

/// The offset after the batch whose header is `header`, checked against
/// the range the read found (a header that disagrees is corruption).
fn batch_end(p: &Partition, range: &FileRange, header: &RecordHeader) -> Result<u64> {
    match header.next_offset() {
        Some(next)
            if header.base_offset == range.first_offset && header.batch_len() <= range.len =>
        {
            Ok(next)
        }
        _ => Err(StorageError::CorruptRange {
            topic: p.topic().to_owned(),
            partition: p.id(),
            from: range.first_offset,
            to: range.end_offset,
        }),
    }
}

/// `range` cut to its first batch. (A read with `max_bytes` 1 returns one
/// batch already; a claim's answer must never carry a second.)
fn exactly(mut range: FileRange, header: &RecordHeader) -> FileRange {
    range.len = header.batch_len();
    range.end_offset = header.next_offset().unwrap_or(range.end_offset);
    range
}
