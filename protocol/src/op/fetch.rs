//! `Fetch` (0x02): whole batches from an offset, as a long poll.
//!
//! ```text
//! request : topic, partition u32, offset u64, max_bytes u32, max_wait_ms u32
//!           [, min_bytes u32, min_wait_ms u32]   (optional trailing part)
//! response: high_watermark u64, log_start u64, u32 n, then n bytes of whole batches
//! ```
//! The trailing part asks the broker to hold the fetch until `min_bytes`
//! of whole batches are there (Kafka's `fetch.min.bytes`): without it,
//! `min_bytes` is 1 and `min_wait_ms` 0 — answered as soon as anything is
//! there. It is written only when `min_bytes > 1`, so a default fetch is
//! byte for byte what older clients send; it is sent only to a broker
//! whose hello announced [`BrokerFlags::FETCH_MIN_BYTES`](crate::hello::BrokerFlags::FETCH_MIN_BYTES)
//! (an older broker refuses a body with bytes left over).
//! The broker writes the fixed part with
//! [`encode_fetch_header`](crate::frame::encode_fetch_header) and sends the
//! record bytes after it straight from the segment file (`sendfile`).

use bytes::{BufMut, BytesMut};

use super::fields;
use crate::codec::{Reader, len_u32, put_str8};
use crate::error::WireError;
use crate::header::RESPONSE_HEADER_LEN;
use crate::topic::TopicName;

/// Bytes of a successful fetch response before its record bytes.
pub const FETCH_RESPONSE_HEADER_LEN: usize = RESPONSE_HEADER_LEN + 8 + 8 + 4;

/// A fetch request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fetch<'a> {
    /// Topic.
    pub topic: TopicName<&'a str>,
    /// Partition.
    pub partition: u32,
    /// First offset wanted; the batch containing it comes first.
    pub offset: u64,
    /// Soft limit on the bytes returned (at least one batch is always returned).
    pub max_bytes: u32,
    /// How long to wait for data when there is none at `offset` (or, with
    /// `min_bytes > 1`, fewer than `min_bytes`): the longest a fetch is held.
    pub max_wait_ms: u32,
    /// Hold the fetch until at least this many bytes of whole batches are
    /// there past `offset` (capped by `max_bytes`), `min_wait_ms` passed
    /// with some data there, or `max_wait_ms` passed. 0 and 1 both mean
    /// "answer as soon as anything is there" (no trailing part is sent).
    pub min_bytes: u32,
    /// With `min_bytes > 1`: how long the fetch may be held once some data
    /// is there but fewer than `min_bytes` (capped by `max_wait_ms`).
    pub min_wait_ms: u32,
}

impl<'a> Fetch<'a> {
    pub(crate) fn decode(r: &mut Reader<'a>) -> Result<Self, WireError> {
        Fetch {
            topic: fields::topic(r)?,
            partition: r.u32()?,
            offset: r.u64()?,
            max_bytes: r.u32()?,
            max_wait_ms: r.u32()?,
            min_bytes: 1,
            min_wait_ms: 0,
        }
        .with_trailing(r)
    }

    /// The optional trailing part: present when bytes are left after
    /// `max_wait_ms` (the caller's `finish` refuses anything after it).
    fn with_trailing(mut self, r: &mut Reader<'a>) -> Result<Self, WireError> {
        if r.remaining() > 0 {
            self.min_bytes = r.u32()?;
            self.min_wait_ms = r.u32()?;
        }
        Ok(self)
    }

    /// Whether the encoding carries the trailing part (`min_bytes > 1`).
    pub fn holds_for_bytes(&self) -> bool {
        self.min_bytes > 1
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        put_str8(out, "topic", self.topic.as_str())?;
        out.put_u32(self.partition);
        out.put_u64(self.offset);
        out.put_u32(self.max_bytes);
        out.put_u32(self.max_wait_ms);
        if self.holds_for_bytes() {
            out.put_u32(self.min_bytes);
            out.put_u32(self.min_wait_ms);
        }
        Ok(())
    }
}

/// A successful fetch answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FetchAnswer<'a> {
    pub high_watermark: u64,
    pub log_start: u64,
    pub records: &'a [u8],
}

pub(crate) fn decode_response<'a>(r: &mut Reader<'a>) -> Result<FetchAnswer<'a>, WireError> {
    let high_watermark = r.u64()?;
    let log_start = r.u64()?;
    let n = r.u32()?;
    Ok(FetchAnswer {
        high_watermark,
        log_start,
        records: r.bytes(n as usize)?,
    })
}

pub(crate) fn encode_response(a: FetchAnswer<'_>, out: &mut BytesMut) -> Result<(), WireError> {
    let n = len_u32("records", a.records.len())?;
    out.put_u64(a.high_watermark);
    out.put_u64(a.log_start);
    out.put_u32(n);
    out.put_slice(a.records);
    Ok(())
}
