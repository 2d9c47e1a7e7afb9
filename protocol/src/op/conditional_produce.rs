//! `ConditionalProduce` (0x0B): append one record batch only if the
//! partition's log ends where the producer expects.
//!
//! ```text
//! request : topic, partition u32, ack u8 (0 = written, 1 = durable),
//!           expected_end u64, one record batch
//! response: base_offset u64 (always expected_end)
//! refusal : EndMoved (20) with log_start u64, end u64 — the log ends
//!           elsewhere; nothing was appended
//! ```
//! The condition is checked against the log end (the offset the next
//! record gets, whether or not it is durable yet) under the partition's
//! writer, so of any number of producers expecting one end exactly one
//! appends. The frame is checked as it arrives like Produce's (the prefix
//! is Produce's with `expected_end` after the ack). A client sends it once
//! and never retries it on its own: a retry after a lost answer could
//! append twice at two ends — or be told the end moved by its own batch.

use bytes::{BufMut, BytesMut};

use super::produce::{BatchRequest, Produce, check_prefix};
use crate::codec::put_str8;
use crate::error::WireError;
use crate::limits::Limits;

/// A conditional produce: `produce`'s batch, appended only at `expected_end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConditionalProduce<'a> {
    /// The topic, partition, ack and batch, as in a Produce.
    pub produce: Produce<'a>,
    /// The log end the producer expects: the offset the batch's first
    /// record gets if it is appended.
    pub expected_end: u64,
}

impl<'a> ConditionalProduce<'a> {
    /// Decode a whole body of a frame of `len` bytes (after the prefix).
    pub(crate) fn decode(body: &'a [u8], len: u32, limits: &Limits) -> Result<Self, WireError> {
        let prefix = check_prefix(BatchRequest::Conditional, body, len, limits)?;
        Ok(ConditionalProduce {
            // Always present: check_prefix reads it for this op.
            expected_end: prefix.expected_end.unwrap_or_default(),
            produce: prefix.whole(body),
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        let p = &self.produce;
        put_str8(out, "topic", p.topic.as_str())?;
        out.put_u32(p.partition);
        out.put_u8(p.ack as u8);
        out.put_u64(self.expected_end);
        out.put_slice(p.batch);
        Ok(())
    }
}
