//! The read path: whole batches from the offset asked for, as a byte range
//! of a segment file (no record bytes are copied), and the lazy
//! verification of segments rolled before this start — settled here, off
//! the async workers, for a fetch ([`Partition::read_settled`]).

use std::sync::Arc;

use super::{Inner, Partition, Visible};
use crate::log::body::BodySource;
use crate::log::error::{Result, StorageError};
use crate::log::reader::{HARD_MAX_BATCH, ScanOptions, SegmentReader};
use crate::log::segment::{RolledSegment, SegmentFile};

/// A byte range of whole batches in a segment file, to be sent as is.
#[derive(Debug, Clone)]
pub struct FileRange {
    /// The segment file.
    pub file: Arc<SegmentFile>,
    /// First byte.
    pub position: u64,
    /// Length in bytes.
    pub len: u64,
    /// Base offset of the first batch in the range.
    pub first_offset: u64,
    /// The offset after the range's last batch (in a compacted segment,
    /// holes between its batches lie below it).
    pub end_offset: u64,
}

/// The outcome of [`Partition::read`].
#[derive(Debug)]
pub enum ReadOutcome {
    /// Whole batches, the first containing (or following) the offset.
    Data {
        /// The bytes to send.
        range: FileRange,
        /// Visible end of the log.
        high_watermark: u64,
        /// First stored offset.
        log_start: u64,
    },
    /// Nothing at the offset yet (it equals the high watermark): wait for data.
    Empty {
        /// Visible end of the log.
        high_watermark: u64,
        /// First stored offset.
        log_start: u64,
    },
    /// The range lies in a segment from before this start that has not been
    /// CRC-verified yet: call [`Partition::verify_segment`] (blocking) and retry.
    Unverified(Arc<RolledSegment>),
}

impl FileRange {
    /// The range as the body of a fetch response (the segment stays open
    /// while the body lives).
    pub fn into_body(self) -> BodySource {
        BodySource::file_range(self.file, self.position, self.len)
    }
}

/// What a read for a fetch serves, its verification settled (see
/// [`Partition::read_settled`]).
#[derive(Debug)]
pub struct Served {
    /// Visible end of the log.
    pub high_watermark: u64,
    /// First stored offset.
    pub log_start: u64,
    /// Whole batches, the first containing (or following) the offset;
    /// `None`: nothing at the offset yet (it equals the high watermark) —
    /// wait for data.
    pub body: Option<BodySource>,
    /// Where the visible end of the log was when this was read, and
    /// whether `body` reaches it.
    pub tail: Tail,
}

/// Where a read stood against the visible end of the log: lets a fetch
/// held for more bytes see how many arrived since
/// ([`Partition::grown_since`]) without reading again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tail {
    /// The segment the visible end lay in (by base offset) and its byte
    /// position there, when the read was planned (counted from the
    /// segment's first byte: see [`visible_end`]).
    segment_base: u64,
    position: u64,
    /// The body (none counts) ends at that visible end: more bytes for
    /// this offset can only come from appends. `false` when the body was
    /// cut at `max_bytes` or at a segment's end — waiting cannot grow it.
    pub reaches_end: bool,
}

enum Planned {
    Plan(Plan),
    Unverified(Arc<RolledSegment>),
}

struct Plan {
    file: Arc<SegmentFile>,
    segment_base: u64,
    from_pos: u64,
    from_offset: u64,
    /// Where what may be served ends: its file position and offset.
    visible_end: u64,
    visible_end_offset: u64,
    /// An index entry within `max_bytes` of `from_pos`: its position and offset.
    cap_end: Option<(u64, u64)>,
    is_active: bool,
}

impl Partition {
    /// Find whole batches starting with the one that contains `offset` (or
    /// the first after it, across compaction holes), up to about `max_bytes`
    /// (at least one batch). Copies no record bytes: only headers are read,
    /// through `scratch`, when the offset is not at an index entry.
    pub fn read(&self, offset: u64, max_bytes: u32, scratch: &mut Vec<u8>) -> Result<ReadOutcome> {
        self.read_marked(offset, max_bytes, scratch).map(|(o, _)| o)
    }

    /// [`Partition::read`], and where the visible end stood when it was
    /// planned (see [`Tail`]).
    fn read_marked(
        &self,
        offset: u64,
        max_bytes: u32,
        scratch: &mut Vec<u8>,
    ) -> Result<(ReadOutcome, Tail)> {
        let mut after_base: Option<u64> = None;
        loop {
            let (plan, seen, seen_hw) = {
                let inner = self.lock();
                let (log_start, hw) = (inner.log_start, inner.visible.offset);
                let (segment_base, position) = visible_end(&inner);
                let tail = Tail {
                    segment_base,
                    position,
                    reaches_end: true,
                };
                if offset < log_start || offset > hw {
                    return Err(StorageError::OffsetOutOfRange {
                        offset,
                        log_start,
                        high_watermark: hw,
                    });
                }
                if offset == hw {
                    let empty = ReadOutcome::Empty {
                        high_watermark: hw,
                        log_start,
                    };
                    return Ok((empty, tail));
                }
                match self.plan(&inner, offset, max_bytes, after_base)? {
                    Planned::Plan(p) => (p, tail, hw),
                    Planned::Unverified(seg) => {
                        return Ok((ReadOutcome::Unverified(seg), tail));
                    }
                }
            };
            match self.walk(&plan, offset, max_bytes, scratch)? {
                Some(range) => {
                    if let Some(s) = self.own_stats() {
                        s.served(
                            range.end_offset.saturating_sub(range.first_offset),
                            range.len,
                        );
                    }
                    let (log_start, high_watermark) = self.bounds();
                    let tail = Tail {
                        reaches_end: range.end_offset >= seen_hw,
                        ..seen
                    };
                    let data = ReadOutcome::Data {
                        range,
                        high_watermark,
                        log_start,
                    };
                    return Ok((data, tail));
                }
                // Nothing visible follows the offset (a compaction hole at the
                // very end of what is visible): wait like at the end of the log.
                None if plan.is_active => {
                    let (log_start, high_watermark) = self.bounds();
                    let empty = ReadOutcome::Empty {
                        high_watermark,
                        log_start,
                    };
                    return Ok((empty, seen));
                }
                // The offset falls in a hole at the end of a compacted segment:
                // continue in the next one.
                None => after_base = Some(plan.segment_base),
            }
        }
    }

    /// [`Partition::read`] for a fetch, called on an async worker: the read
    /// runs inline (a short lock, an index lookup, at most a walk over
    /// headers through `scratch`). When it reaches a segment from before
    /// this start that is not verified yet, the verification — a CRC pass
    /// over the whole segment — runs on the blocking pool, so no async
    /// worker waits for it, and the read is made again. Nothing unverified
    /// is served.
    pub async fn read_settled(
        self: &Arc<Self>,
        offset: u64,
        max_bytes: u32,
        scratch: &mut Vec<u8>,
    ) -> Result<Served> {
        loop {
            match self.read_marked(offset, max_bytes, scratch)? {
                (
                    ReadOutcome::Data {
                        range,
                        high_watermark,
                        log_start,
                    },
                    tail,
                ) => {
                    return Ok(Served {
                        high_watermark,
                        log_start,
                        body: Some(range.into_body()),
                        tail,
                    });
                }
                (
                    ReadOutcome::Empty {
                        high_watermark,
                        log_start,
                    },
                    tail,
                ) => {
                    return Ok(Served {
                        high_watermark,
                        log_start,
                        body: None,
                        tail,
                    });
                }
                (ReadOutcome::Unverified(seg), _) => {
                    let p = self.clone();
                    tokio::task::spawn_blocking(move || p.verify_segment(&seg))
                        .await
                        .unwrap_or_else(|e| Err(StorageError::panicked("verification", e)))?;
                }
            }
        }
    }

    /// How many bytes became visible since `tail` was read, if the visible
    /// end is still in the same segment (`None`: it moved to another — read
    /// again). A lock and a subtraction: what a fetch held for more bytes
    /// costs each time the high watermark moves.
    pub fn grown_since(&self, tail: Tail) -> Option<u64> {
        let (segment_base, position) = visible_end(&self.lock());
        (segment_base == tail.segment_base).then(|| position.saturating_sub(tail.position))
    }

    /// Where to look for `offset` (or, after a hole at the end of the
    /// segment based at `after_base`, in the next segment), and how far
    /// what may be served goes there.
    fn plan(
        &self,
        inner: &Inner,
        offset: u64,
        max_bytes: u32,
        after_base: Option<u64>,
    ) -> Result<Planned> {
        // The segment holding `offset`, or (after a hole) the first one after `after_base`.
        let pick_rolled = match after_base {
            None => {
                let i = inner.rolled.partition_point(|s| s.base <= offset);
                match i.checked_sub(1) {
                    Some(j) if inner.rolled[j].end_offset > offset => Some(j),
                    // In no segment (one emptied by compaction was removed):
                    // the next segment's first batch follows the offset.
                    _ if i < inner.rolled.len() => Some(i),
                    _ => None,
                }
            }
            Some(b) => inner.rolled.iter().position(|s| s.base > b),
        };
        match pick_rolled {
            Some(i) => self.plan_rolled(&inner.rolled[i], inner.visible, offset, max_bytes),
            None => Ok(Planned::Plan(Self::plan_active(inner, offset, max_bytes))),
        }
    }

    /// [`Partition::plan`] in the rolled segment `seg`: from the index entry
    /// at or before `offset`, or from the end of a fenced range before it;
    /// up to the first fenced range after it.
    fn plan_rolled(
        &self,
        seg: &Arc<RolledSegment>,
        visible: Visible,
        offset: u64,
        max_bytes: u32,
    ) -> Result<Planned> {
        let Some(verification) = seg.verification() else {
            return Ok(Planned::Unverified(seg.clone()));
        };
        let (mut visible_end, mut visible_end_offset) = if seg.base < visible.segment_base {
            (seg.size, seg.end_offset)
        } else {
            (visible.position.min(seg.size), visible.offset)
        };
        let index = verification.index_for(seg);
        let (mut p0, mut o0) = index.lookup(offset).map_or((0, seg.base), |(o, p)| (p, o));
        for bad in &verification.bad {
            if offset >= bad.from_offset && offset < bad.to_offset {
                return Err(StorageError::CorruptRange {
                    topic: self.topic.clone(),
                    partition: self.id,
                    from: bad.from_offset,
                    to: bad.to_offset,
                });
            }
            if bad.to_offset <= offset && bad.to_pos > p0 {
                (p0, o0) = (bad.to_pos, bad.to_offset);
            }
        }
        if let Some(bad) = verification.bad.iter().find(|b| b.from_pos >= p0)
            && bad.from_pos <= visible_end
        {
            (visible_end, visible_end_offset) = (bad.from_pos, bad.from_offset);
        }
        let cap_end = index.floor_position(p0.saturating_add(u64::from(max_bytes)));
        Ok(Planned::Plan(Plan {
            file: seg.file.clone(),
            segment_base: seg.base,
            from_pos: p0,
            from_offset: o0,
            visible_end,
            visible_end_offset,
            cap_end,
            is_active: false,
        }))
    }

    /// [`Partition::plan`] in the active segment, whose index is in memory.
    fn plan_active(inner: &Inner, offset: u64, max_bytes: u32) -> Plan {
        let (active, visible) = (&inner.active, inner.visible);
        if active.base > visible.segment_base {
            // Rolled, but nothing in the new segment is visible yet: the
            // visible end sits at the end of the previous segment.
            return Plan {
                file: active.file.clone(),
                segment_base: active.base,
                from_pos: active.file.origin(),
                from_offset: active.base,
                visible_end: 0,
                visible_end_offset: active.base,
                cap_end: None,
                is_active: true,
            };
        }
        let entries = active.index.entries();
        let rel = offset.saturating_sub(active.base);
        let i = entries.partition_point(|e| u64::from(e.rel_offset) <= rel);
        let (p0, o0) = i
            .checked_sub(1)
            .map_or((active.file.origin(), active.base), |i| {
                (
                    u64::from(entries[i].position),
                    active.base + u64::from(entries[i].rel_offset),
                )
            });
        let lim = p0.saturating_add(u64::from(max_bytes));
        let j = entries.partition_point(|e| u64::from(e.position) <= lim);
        let cap_end = j.checked_sub(1).map(|j| {
            let e = entries[j];
            (u64::from(e.position), active.base + u64::from(e.rel_offset))
        });
        Plan {
            file: active.file.clone(),
            segment_base: active.base,
            from_pos: p0,
            from_offset: o0,
            visible_end: visible.position.min(active.size),
            visible_end_offset: visible.offset,
            cap_end,
            is_active: true,
        }
    }

    /// Walk headers from the plan's index entry to the batch holding (or
    /// following) `offset`; `None` if the segment's visible part has none.
    fn walk(
        &self,
        plan: &Plan,
        offset: u64,
        max_bytes: u32,
        scratch: &mut Vec<u8>,
    ) -> Result<Option<FileRange>> {
        let (start, first_len, first_offset, first_end) =
            if plan.from_offset == offset && plan.from_pos < plan.visible_end {
                let h = plan.file.header_at(plan.from_pos)?;
                (plan.from_pos, h.batch_len(), h.base_offset, h.next_offset())
            } else {
                let mut reader = SegmentReader::new(
                    &plan.file.file,
                    &plan.file.path,
                    plan.from_pos,
                    plan.visible_end,
                    ScanOptions::headers(HARD_MAX_BATCH),
                    scratch,
                );
                loop {
                    match reader.next_batch()? {
                        Some(b) if b.header.next_offset().is_some_and(|n| n > offset) => {
                            let h = b.header;
                            break (b.position, h.batch_len(), h.base_offset, h.next_offset());
                        }
                        Some(_) => continue,
                        None => return Ok(None),
                    }
                }
            };
        let limit = plan.from_pos.saturating_add(u64::from(max_bytes));
        let first_end = first_end.unwrap_or(first_offset.saturating_add(1));
        let (end, end_offset) = if limit >= plan.visible_end {
            (plan.visible_end, plan.visible_end_offset)
        } else {
            plan.cap_end
                .filter(|&(c, _)| c > start && c <= plan.visible_end)
                .unwrap_or((start + first_len, first_end))
        };
        Ok(Some(FileRange {
            file: plan.file.clone(),
            position: start,
            len: end - start,
            first_offset,
            end_offset,
        }))
    }

    /// CRC-verify a segment opened at start (blocking; run off the async runtime).
    pub fn verify_segment(&self, seg: &RolledSegment) -> Result<()> {
        let mut scratch = Vec::new();
        seg.verify(&self.opts, &mut scratch).map(|_| ())
    }
}

/// The visible end: its segment (by base offset) and its byte position
/// counted from that segment's first byte. A partition in a slot counts
/// positions in the slab (from the slot's origin) until it moves out into
/// its own file (from 0): counted from the first byte, a position means
/// the same before and after the move, so [`Partition::grown_since`] does
/// not see a held fetch's bytes shrink to nothing when its partition
/// moves out of the slot while it waits.
fn visible_end(inner: &Inner) -> (u64, u64) {
    let v = inner.visible;
    let origin = if v.segment_base == inner.active.base {
        inner.active.file.origin()
    } else {
        0
    };
    (v.segment_base, v.position.saturating_sub(origin))
}
