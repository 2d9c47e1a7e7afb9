//! `Fetch` (0x02): whole batches from an offset, as a long poll.
//!
//! ```text
//! request : topic, partition u32, offset u64, max_bytes u32, max_wait_ms u32
//! response: high_watermark u64, log_start u64, u32 n, then n bytes of whole batches
//! ```
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
    /// How long to wait for data when there is none at `offset`.
    pub max_wait_ms: u32,
}

impl<'a> Fetch<'a> {
    pub(crate) fn decode(r: &mut Reader<'a>) -> Result<Self, WireError> {
        Ok(Fetch {
            topic: fields::topic(r)?,
            partition: r.u32()?,
            offset: r.u64()?,
            max_bytes: r.u32()?,
            max_wait_ms: r.u32()?,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        put_str8(out, "topic", self.topic.as_str())?;
        out.put_u32(self.partition);
        out.put_u64(self.offset);
        out.put_u32(self.max_bytes);
        out.put_u32(self.max_wait_ms);
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
