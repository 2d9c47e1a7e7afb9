//! `Claim` (0x0C): take the next unclaimed batch of a partition, handed to
//! this claimer and no other, ever.
//!
//! ```text
//! request : topic, partition u32, claim_id [16]
//! response: offset u64, next u64, u32 n, then n bytes: one whole batch
//! refusal : NothingToClaim (21) — every durable batch is claimed;
//!           RateLimited (22) — the claimer's rate is spent, retry later
//! ```
//! The broker keeps one durable claim position per partition. A claim
//! hands out the first batch at or after it (`offset` is that batch's
//! first offset) and moves it to `next`, the offset after the batch; the
//! answer is sent only once the new position is durable, so no crash hands
//! a batch out twice. `claim_id` is the claimer's choice (random, 16
//! bytes): the same principal asking again with the same id — a retry
//! after a lost answer — gets the same batch again instead of a second
//! one, for as long as the broker remembers the id (PROTOCOL.md). The unit
//! is the batch: a producer whose records are to be claimed one by one
//! sends one record per batch. The broker reads no payload: it hands out
//! bytes by offset.

use bytes::{BufMut, BytesMut};

use super::fields;
use crate::codec::{Reader, len_u32, put_str8};
use crate::error::WireError;
use crate::topic::TopicName;

/// Bytes of a claim id.
pub const CLAIM_ID_LEN: usize = 16;

/// A claim request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim<'a> {
    /// Topic.
    pub topic: TopicName<&'a str>,
    /// Partition.
    pub partition: u32,
    /// The claimer's id for this claim: a retry with the same id gets the
    /// same batch.
    pub claim_id: [u8; CLAIM_ID_LEN],
}

impl<'a> Claim<'a> {
    pub(crate) fn decode(r: &mut Reader<'a>) -> Result<Self, WireError> {
        Ok(Claim {
            topic: fields::topic(r)?,
            partition: r.u32()?,
            claim_id: r.array()?,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        put_str8(out, "topic", self.topic.as_str())?;
        out.put_u32(self.partition);
        out.put_slice(&self.claim_id);
        Ok(())
    }
}

/// A successful claim: one whole batch, now this claimer's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claimed<'a> {
    /// The first offset of the batch.
    pub offset: u64,
    /// The claim position after this claim: the offset after the batch.
    pub next: u64,
    /// The batch, header included.
    pub batch: &'a [u8],
}

pub(crate) fn decode_response<'a>(r: &mut Reader<'a>) -> Result<Claimed<'a>, WireError> {
    let offset = r.u64()?;
    let next = r.u64()?;
    let n = r.u32()?;
    Ok(Claimed {
        offset,
        next,
        batch: r.bytes(n as usize)?,
    })
}

pub(crate) fn encode_response(c: Claimed<'_>, out: &mut BytesMut) -> Result<(), WireError> {
    let n = len_u32("batch", c.batch.len())?;
    out.put_u64(c.offset);
    out.put_u64(c.next);
    out.put_u32(n);
    out.put_slice(c.batch);
    Ok(())
}
