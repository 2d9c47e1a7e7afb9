//! Request and response frames: the framing around the op table.
//!
//! ```text
//! request : u32 len | u8 op      | u32 correlation_id | body
//! response: u32 len | u8 op|0x80 | u32 correlation_id | u16 status | body
//! ```
//! `len` counts the bytes after itself ([`crate::header`]). Decoding is two
//! steps, as in mini-redis: [`check_request`] walks the buffered bytes
//! without allocating and says whether a whole frame is there (validating a
//! produce frame's batch header as soon as it arrives, so a hostile length
//! is refused before the receiver reserves memory for it); only then
//! [`decode_request`] builds a borrowed view of the frame. Each op's body is
//! its module's business ([`crate::op`]); the names are re-exported here.

use bytes::{BufMut, BytesMut};

use crate::codec::{Reader, patch_len, put_str16_lossy};
use crate::error::WireError;
use crate::header::{RequestHeader, ResponseHeader, peek_len};
use crate::op::produce;
use crate::status::Status;

pub use crate::header::{REQUEST_HEADER_LEN, RESPONSE_BIT, RESPONSE_HEADER_LEN};
pub use crate::limits::{DEFAULT_MAX_KEY, DEFAULT_MAX_PAYLOAD, Limits, MAX_CONTROL_FRAME};
pub use crate::op::authenticate::{Authenticate, MAX_AUTH_FIELD};
pub use crate::op::claim::{CLAIM_ID_LEN, Claim, Claimed};
pub use crate::op::commit::Commit;
pub use crate::op::committed::Committed;
pub use crate::op::conditional_produce::ConditionalProduce;
pub use crate::op::create_topic::{Cleanup, CreateTopic, MAX_PARTITIONS, TopicSettings};
pub use crate::op::fetch::{FETCH_RESPONSE_HEADER_LEN, Fetch};
pub use crate::op::list_topics::{LIST_TOPICS_FIXED_LEN, ListTopics, MAX_LIST_LIMIT, TopicPage};
pub use crate::op::metadata::{
    METADATA_FIXED_LEN, MIN_TOPIC_METADATA_LEN, PartitionMetadata, TopicMetadata,
};
pub use crate::op::produce::{Ack, BatchRequest, Produce};
pub use crate::op::{Op, Request, ResponseBody};

/// The outcome of checking buffered bytes for a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameCheck {
    /// More bytes are needed; `need` is the total frame length when known, else a lower bound.
    Incomplete {
        /// Bytes needed in the buffer before checking again.
        need: usize,
    },
    /// A whole frame of `len` bytes (length prefix included) is buffered.
    Complete {
        /// Frame length including the 4-byte prefix.
        len: usize,
    },
}

/// A request that could not be decoded, with what is known of it so the
/// receiver can answer with an error frame before closing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct RequestError {
    /// The correlation id, when the frame got that far.
    pub correlation_id: Option<u32>,
    /// The raw op byte, when the frame got that far.
    pub op: Option<u8>,
    /// What was wrong.
    #[source]
    pub error: WireError,
}

impl RequestError {
    fn bare(error: WireError) -> Self {
        RequestError {
            correlation_id: None,
            op: None,
            error,
        }
    }

    fn of(head: &RequestHeader, error: WireError) -> Self {
        RequestError {
            correlation_id: Some(head.correlation_id),
            op: Some(head.op),
            error,
        }
    }
}

/// Check whether `buf` starts with a whole request frame, validating what has arrived.
///
/// Never allocates. A produce frame's topic, ack and batch header are checked
/// against `limits` as soon as they are buffered.
pub fn check_request(buf: &[u8], limits: &Limits) -> Result<FrameCheck, RequestError> {
    let Some(len) = peek_len(buf) else {
        return Ok(FrameCheck::Incomplete { need: 4 });
    };
    if (len as usize) < REQUEST_HEADER_LEN - 4 {
        return Err(RequestError::bare(WireError::FrameTooShort {
            len: u64::from(len),
            min: (REQUEST_HEADER_LEN - 4) as u64,
        }));
    }
    let Some(head) = RequestHeader::peek(buf) else {
        return Ok(FrameCheck::Incomplete {
            need: REQUEST_HEADER_LEN,
        });
    };
    let op = Op::from_u8(head.op).map_err(|e| RequestError::of(&head, e))?;
    let max = if op.carries_batch() {
        limits.max_frame
    } else {
        MAX_CONTROL_FRAME.min(limits.max_frame)
    };
    if len > max {
        return Err(RequestError::of(
            &head,
            WireError::FrameTooLarge {
                len: u64::from(len),
                max: u64::from(max),
            },
        ));
    }
    let total = 4 + len as usize;
    if buf.len() >= total {
        return Ok(FrameCheck::Complete { len: total });
    }
    if let Some(kind) = op.batch_request() {
        // Validate the prefix that has arrived; running out of bytes is fine here.
        match produce::check_prefix(kind, &buf[REQUEST_HEADER_LEN..], len, limits) {
            Ok(_) | Err(WireError::UnexpectedEof { .. }) => {}
            Err(e) => return Err(RequestError::of(&head, e)),
        }
    }
    Ok(FrameCheck::Incomplete { need: total })
}

/// Whether `buf` holds the whole prefix of a request that [carries a
/// batch](Op::carries_batch) (header, topic, partition, ack, a conditional
/// produce's expected end, and the batch header). Only then has
/// [`check_request`] checked the batch header against the limits, and a
/// reservation for the whole frame may be made.
pub fn produce_prefix_buffered(buf: &[u8]) -> bool {
    RequestHeader::peek(buf)
        .and_then(|h| Op::from_u8(h.op).ok())
        .and_then(Op::batch_request)
        .is_some_and(|kind| produce::prefix_buffered(kind, &buf[REQUEST_HEADER_LEN..]))
}

/// A decoded request frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestFrame<'a> {
    /// Echoed in the response.
    pub correlation_id: u32,
    /// The request.
    pub request: Request<'a>,
}

/// Decode a whole request frame (as delimited by [`check_request`]), length prefix included.
pub fn decode_request<'a>(
    frame: &'a [u8],
    limits: &Limits,
) -> Result<RequestFrame<'a>, RequestError> {
    let total = match check_request(frame, limits)? {
        FrameCheck::Complete { len } => len,
        FrameCheck::Incomplete { need } => {
            return Err(RequestError::bare(WireError::UnexpectedEof {
                need,
                have: frame.len(),
            }));
        }
    };
    // Complete: the header is there.
    let head = RequestHeader::peek(frame).ok_or(RequestError::bare(WireError::UnexpectedEof {
        need: REQUEST_HEADER_LEN,
        have: frame.len(),
    }))?;
    let fail = |error| RequestError::of(&head, error);
    if total != frame.len() {
        return Err(fail(WireError::LengthMismatch {
            frame: (total - 4) as u64,
            contents: (frame.len() - 4) as u64,
        }));
    }
    let body = &frame[REQUEST_HEADER_LEN..];
    let op = Op::from_u8(head.op).map_err(fail)?;
    let request = Request::decode_body(op, body, (total - 4) as u32, limits).map_err(fail)?;
    Ok(RequestFrame {
        correlation_id: head.correlation_id,
        request,
    })
}

/// The body of a failed response: status, message and, for a status that
/// [carries them](Status::carries_bounds), the partition's bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorBody<'a> {
    /// Never [`Status::Ok`].
    pub status: Status,
    /// Human-readable detail.
    pub message: &'a str,
    /// `(log_start, high_watermark)` for `OffsetOutOfRange`, `(log_start,
    /// end)` for `EndMoved`; present exactly when
    /// [`Status::carries_bounds`].
    pub bounds: Option<(u64, u64)>,
}

/// A decoded response frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseFrame<'a> {
    /// The request's correlation id.
    pub correlation_id: u32,
    /// The op answered.
    pub op: Op,
    /// Success or failure.
    pub body: Result<ResponseBody<'a>, ErrorBody<'a>>,
}

/// Encode a successful response. For fetch, prefer [`encode_fetch_header`]
/// followed by the record bytes sent separately (the broker's sendfile path).
pub fn encode_response(
    correlation_id: u32,
    body: &ResponseBody<'_>,
    out: &mut BytesMut,
) -> Result<(), WireError> {
    body.check()?;
    let start = out.len();
    ResponseHeader {
        len: 0, // patched below
        op: body.op() as u8 | RESPONSE_BIT,
        correlation_id,
        status: Status::Ok.code(),
    }
    .put(out);
    body.encode_body(out)?;
    patch_len(out, start)
}

/// Encode a failed response. `status` must not be `Ok`.
pub fn encode_error(
    correlation_id: u32,
    op_byte: u8,
    err: &ErrorBody<'_>,
    out: &mut BytesMut,
) -> Result<(), WireError> {
    if err.status == Status::Ok {
        return Err(WireError::InvalidField {
            field: "status",
            value: 0,
        });
    }
    let start = out.len();
    ResponseHeader {
        len: 0, // patched below
        op: op_byte | RESPONSE_BIT,
        correlation_id,
        status: err.status.code(),
    }
    .put(out);
    put_str16_lossy(out, err.message);
    if err.status.carries_bounds() {
        let (log_start, hw) = err.bounds.unwrap_or((0, 0));
        out.put_u64(log_start);
        out.put_u64(hw);
    }
    patch_len(out, start)
}

/// The fixed part of a successful fetch response, to be followed by exactly
/// `records_len` bytes of whole batches.
pub fn encode_fetch_header(
    correlation_id: u32,
    high_watermark: u64,
    log_start: u64,
    records_len: u32,
) -> [u8; FETCH_RESPONSE_HEADER_LEN] {
    let len = (FETCH_RESPONSE_HEADER_LEN - 4) as u64 + u64::from(records_len);
    // A fetch response is bounded by the 4 GiB of records_len plus a fixed header;
    // the receiver's own frame limit decides whether it accepts it.
    let len = u32::try_from(len).unwrap_or(u32::MAX);
    let mut out = [0u8; FETCH_RESPONSE_HEADER_LEN];
    let mut w = &mut out[..];
    ResponseHeader {
        len,
        op: Op::Fetch as u8 | RESPONSE_BIT,
        correlation_id,
        status: Status::Ok.code(),
    }
    .put(&mut w);
    w.put_u64(high_watermark);
    w.put_u64(log_start);
    w.put_u32(records_len);
    out
}

/// Check whether `buf` starts with a whole response frame no longer than `max_frame`.
pub fn check_response(buf: &[u8], max_frame: u32) -> Result<FrameCheck, WireError> {
    let Some(len) = peek_len(buf) else {
        return Ok(FrameCheck::Incomplete { need: 4 });
    };
    if (len as usize) < RESPONSE_HEADER_LEN - 4 {
        return Err(WireError::FrameTooShort {
            len: u64::from(len),
            min: (RESPONSE_HEADER_LEN - 4) as u64,
        });
    }
    if len > max_frame {
        return Err(WireError::FrameTooLarge {
            len: u64::from(len),
            max: u64::from(max_frame),
        });
    }
    let total = 4 + len as usize;
    if buf.len() >= total {
        Ok(FrameCheck::Complete { len: total })
    } else {
        Ok(FrameCheck::Incomplete { need: total })
    }
}

/// Decode a whole response frame, length prefix included.
pub fn decode_response(frame: &[u8]) -> Result<ResponseFrame<'_>, WireError> {
    let mut r = Reader::new(frame);
    let len = r.u32()?;
    if len as usize != frame.len() - 4 {
        return Err(WireError::LengthMismatch {
            frame: u64::from(len),
            contents: (frame.len() - 4) as u64,
        });
    }
    let op_byte = r.u8()?;
    if op_byte & RESPONSE_BIT == 0 {
        return Err(WireError::InvalidField {
            field: "response op",
            value: u64::from(op_byte),
        });
    }
    let op = Op::from_u8(op_byte & !RESPONSE_BIT)?;
    let correlation_id = r.u32()?;
    let code = r.u16()?;
    let status = Status::from_code(code).ok_or(WireError::InvalidField {
        field: "status",
        value: u64::from(code),
    })?;
    let body = if status == Status::Ok {
        Ok(ResponseBody::decode_body(op, &mut r)?)
    } else {
        let message = r.str16("error message")?;
        let bounds = if status.carries_bounds() {
            Some((r.u64()?, r.u64()?))
        } else {
            None
        };
        Err(ErrorBody {
            status,
            message,
            bounds,
        })
    };
    r.finish()?;
    Ok(ResponseFrame {
        correlation_id,
        op,
        body,
    })
}

#[cfg(test)]
mod tests;
