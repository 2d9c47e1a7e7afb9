//! `Produce` (0x01): append one record batch to a partition.
//!
//! ```text
//! request : topic, partition u32, ack u8 (0 = written, 1 = durable), one record batch
//! response: base_offset u64
//! ```
//! The batch header is checked against the receiver's limits as soon as it
//! arrives (`check_prefix`, called by `frame::check_request` on a frame
//! still being received), so a hostile length is refused before anything is
//! reserved for it.

use bytes::{BufMut, BytesMut};

use super::fields;
use crate::codec::{Reader, put_str8};
use crate::error::WireError;
use crate::header::REQUEST_HEADER_LEN;
use crate::limits::Limits;
use crate::record::RecordHeader;
use crate::topic::TopicName;

/// When a producer wants its acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ack {
    /// After the batch is written to the log (page cache).
    Written = 0,
    /// After an fsync covers the batch.
    Durable = 1,
}

impl Ack {
    fn from_u8(b: u8) -> Result<Ack, WireError> {
        match b {
            0 => Ok(Ack::Written),
            1 => Ok(Ack::Durable),
            other => Err(WireError::InvalidField {
                field: "ack",
                value: u64::from(other),
            }),
        }
    }
}

/// A produce request: one record batch for one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Produce<'a> {
    /// Target topic.
    pub topic: TopicName<&'a str>,
    /// Target partition.
    pub partition: u32,
    /// When to acknowledge.
    pub ack: Ack,
    /// The batch's decoded header (limits already checked; CRC not yet).
    pub header: RecordHeader,
    /// The whole batch, header included.
    pub batch: &'a [u8],
}

impl<'a> Produce<'a> {
    /// Decode a whole produce body of a frame of `len` bytes (after the prefix).
    pub(crate) fn decode(body: &'a [u8], len: u32, limits: &Limits) -> Result<Self, WireError> {
        Ok(check_prefix(BatchRequest::Produce, body, len, limits)?.whole(body))
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        put_str8(out, "topic", self.topic.as_str())?;
        out.put_u32(self.partition);
        out.put_u8(self.ack as u8);
        out.put_slice(self.batch);
        Ok(())
    }
}

/// Which of the two requests that carry a batch a frame is
/// ([`Op::batch_request`](super::Op::batch_request)): their prefixes differ
/// by ConditionalProduce's expected end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchRequest {
    /// Produce.
    Produce,
    /// ConditionalProduce: the expected end follows the ack.
    Conditional,
}

/// What precedes the batch in a frame that carries one:
/// Produce's topic, partition and ack, and for ConditionalProduce the end
/// offset the producer expects; with the batch's header, checked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prefix<'a> {
    pub(crate) topic: TopicName<&'a str>,
    pub(crate) partition: u32,
    pub(crate) ack: Ack,
    /// ConditionalProduce's expected end; `None` for Produce.
    pub(crate) expected_end: Option<u64>,
    pub(crate) header: RecordHeader,
}

impl<'a> Prefix<'a> {
    /// The produce request of a whole body whose prefix this is.
    pub(crate) fn whole(self, body: &'a [u8]) -> Produce<'a> {
        let batch_len = self.header.batch_len() as usize; // fits: checked against the frame length
        Produce {
            topic: self.topic,
            partition: self.partition,
            ack: self.ack,
            header: self.header,
            batch: &body[body.len() - batch_len..],
        }
    }
}

/// Decode the prefix of a body of a `kind` request and check it against
/// the limits and the frame length `len`.
pub(crate) fn check_prefix<'a>(
    kind: BatchRequest,
    body: &'a [u8],
    len: u32,
    limits: &Limits,
) -> Result<Prefix<'a>, WireError> {
    let mut r = Reader::new(body);
    let topic = fields::topic(&mut r)?;
    let partition = r.u32()?;
    let ack = Ack::from_u8(r.u8()?)?;
    let expected_end = match kind {
        BatchRequest::Conditional => Some(r.u64()?),
        BatchRequest::Produce => None,
    };
    let header = RecordHeader::decode(r.rest())?;
    header.check_limits(limits.max_key, limits.max_payload)?;
    let contents = (REQUEST_HEADER_LEN - 4 + r.position()) as u64 + header.batch_len();
    if contents != u64::from(len) {
        return Err(WireError::LengthMismatch {
            frame: u64::from(len),
            contents,
        });
    }
    Ok(Prefix {
        topic,
        partition,
        ack,
        expected_end,
        header,
    })
}

/// Whether `body` (the bytes after the header of a `kind` request, maybe
/// still arriving) holds the whole prefix and batch header: enough for
/// `check_prefix` to judge the batch.
pub fn prefix_buffered(kind: BatchRequest, body: &[u8]) -> bool {
    let expected_end = match kind {
        BatchRequest::Conditional => 8,
        BatchRequest::Produce => 0,
    };
    body.first().is_some_and(|&n| {
        body.len() >= 1 + usize::from(n) + 4 + 1 + expected_end + crate::record::HEADER_LEN
    })
}

/// The answer: the offset the batch's first record got.
pub(crate) fn decode_response(r: &mut Reader<'_>) -> Result<u64, WireError> {
    Ok(r.u64()?)
}

pub(crate) fn encode_response(base_offset: u64, out: &mut BytesMut) {
    out.put_u64(base_offset);
}
