//! The typed answers of the two single-request ops whose refusals are
//! expected outcomes, not failures: [`Client::conditional_produce`]
//! ("you were first" / "the end moved to N") and [`Client::claim`] ("this
//! batch is yours" / "nothing left to claim").
//!
//! Each is checked against what was asked before it is believed: a broker
//! that answers a conditional produce at another offset than the expected
//! one, or hands a claim a batch whose offsets disagree with its answer,
//! breaks the protocol ([`ClientError::Protocol`]).
//!
//! [`Client::conditional_produce`]: crate::Client::conditional_produce
//! [`Client::claim`]: crate::Client::claim
//! [`ClientError::Protocol`]: crate::ClientError::Protocol

use std::sync::Arc;

use bytes::Bytes;
use hermit_protocol::WireError;
use hermit_protocol::frame::CLAIM_ID_LEN;
use hermit_protocol::record::BatchView;

use crate::crypto::rng;
use crate::error::ClientError;
use crate::records::{FetchResponse, Records};

/// The outcome of a conditional produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conditional {
    /// You were first: the batch was appended at the expected end, which
    /// is the offset of its first record.
    Appended {
        /// Offset of the batch's first record (the expected end).
        base_offset: u64,
    },
    /// The log ends elsewhere; nothing was appended. Read from where you
    /// were up to `end` and decide again.
    EndMoved {
        /// The log end: the offset the next record gets.
        end: u64,
    },
}

/// The id of one claim: chosen by the claimer, random, and kept until the
/// claim is answered. A claim retried with the same id by the same
/// principal — after a lost answer, on a new connection or after the
/// broker restarted — gets the same batch again, never a second one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClaimId(pub [u8; CLAIM_ID_LEN]);

impl ClaimId {
    /// A fresh random id (from the operating system's generator, reseeded in
    /// a forked child: two processes never share one).
    pub fn random() -> Result<ClaimId, ClientError> {
        let mut id = [0u8; CLAIM_ID_LEN];
        rng::seeded()
            .and_then(|mut r| r.fill_bytes(&mut id))
            .map_err(|_| {
                ClientError::InvalidArgument(
                    "the operating system's random generator failed".into(),
                )
            })?;
        Ok(ClaimId(id))
    }
}

impl std::fmt::Debug for ClaimId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClaimId(")?;
        for b in &self.0 {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

/// The outcome of a claim.
#[derive(Debug, Clone)]
pub enum Claim {
    /// This batch is yours: no other claimer got it or will.
    Claimed(ClaimedBatch),
    /// Every durable batch of the partition is claimed.
    NothingLeft,
}

/// One whole batch handed to this claimer.
#[derive(Debug, Clone)]
pub struct ClaimedBatch {
    /// Offset of the batch's first record.
    pub offset: u64,
    /// The claim position after this claim: the offset after the batch.
    pub next: u64,
    batch: FetchResponse,
}

impl ClaimedBatch {
    /// Check the broker's answer for `topic/partition`: exactly one whole
    /// batch, starting at `offset` and ending at `next`.
    pub(crate) fn checked(
        topic: &str,
        partition: u32,
        offset: u64,
        next: u64,
        batch: &[u8],
    ) -> Result<ClaimedBatch, ClientError> {
        let (view, len) = BatchView::parse(batch)?;
        let header = view.header;
        let broke = |field: &'static str, value: u64| {
            ClientError::Protocol(WireError::InvalidField { field, value })
        };
        if len != batch.len() {
            return Err(broke("claimed batch length", batch.len() as u64));
        }
        if header.base_offset != offset {
            return Err(broke("claimed offset", header.base_offset));
        }
        if header.next_offset() != Some(next) {
            return Err(broke("claim position", next));
        }
        Ok(ClaimedBatch {
            offset,
            next,
            batch: FetchResponse {
                topic: Arc::from(topic),
                partition,
                high_watermark: next,
                log_start: offset,
                batches: Bytes::copy_from_slice(batch),
            },
        })
    }

    /// The batch's records, its CRC verified before any is yielded.
    pub fn records(&self) -> Records {
        self.batch.records()
    }

    /// The batch as stored (header included).
    pub fn bytes(&self) -> &Bytes {
        &self.batch.batches
    }
}
