//! Request and response frames.
//!
//! ```text
//! request : u32 len | u8 op      | u32 correlation_id | body
//! response: u32 len | u8 op|0x80 | u32 correlation_id | u16 status | body
//! ```
//! `len` counts the bytes after itself. Decoding is two steps, as in
//! mini-redis: [`check_request`] walks the buffered bytes without allocating
//! and says whether a whole frame is there (validating a produce frame's batch
//! header as soon as it arrives, so a hostile length is refused before the
//! receiver reserves memory for it); only then [`decode_request`] builds a
//! borrowed view of the frame.

use bytes::{BufMut, BytesMut};

use crate::codec::{Reader, put_str8, put_str16_lossy};
use crate::error::WireError;
use crate::record::{HEADER_LEN, RecordHeader};
use crate::status::Status;
use crate::topic::{MAX_NAME_LEN, TopicName, validate_group};

/// Bytes before the body of a request: length, op, correlation id.
pub const REQUEST_HEADER_LEN: usize = 9;
/// Bytes before the body of a response: length, op, correlation id, status.
pub const RESPONSE_HEADER_LEN: usize = 11;
/// Bytes of a successful fetch response before its record bytes.
pub const FETCH_RESPONSE_HEADER_LEN: usize = RESPONSE_HEADER_LEN + 8 + 8 + 4;
/// Set on the op byte of every response.
pub const RESPONSE_BIT: u8 = 0x80;
/// Largest frame (after the length prefix) of any request other than Produce.
///
/// Those requests carry at most two names and a few integers; refusing
/// anything larger early means only a produce frame can make a receiver
/// reserve a large buffer, and only after its batch header passed the limits.
pub const MAX_CONTROL_FRAME: u32 = 1024;

/// Default limit on a record batch payload: 50 MiB.
pub const DEFAULT_MAX_PAYLOAD: u32 = 50 * 1024 * 1024;
/// Default limit on a record batch key.
pub const DEFAULT_MAX_KEY: u32 = 4096;
/// Largest partition count a topic may have.
pub const MAX_PARTITIONS: u32 = 4096;
/// Most topics one `ListTopics` page may hold (its `limit` is 1..=this), and
/// the most a `Metadata` of all topics answers with: no response ever holds
/// more, however many topics a broker has.
pub const MAX_LIST_LIMIT: u32 = 1000;
/// Bytes of a successful `ListTopics` response besides its topics, at most
/// (after the length prefix): op, correlation id, status, the count and the
/// longest `next` cursor. A page fits a frame of `max_frame` bytes when its
/// topics' [`TopicMetadata::encoded_len`] sum to at most
/// `max_frame - LIST_TOPICS_FIXED_LEN`.
pub const LIST_TOPICS_FIXED_LEN: usize = RESPONSE_HEADER_LEN - 4 + 4 + 1 + MAX_NAME_LEN;
/// Bytes of a successful `Metadata` response besides its topics (after the
/// length prefix): op, correlation id, status and the count.
pub const METADATA_FIXED_LEN: usize = RESPONSE_HEADER_LEN - 4 + 4;
/// The fewest bytes one topic's metadata takes: a one-byte name and one
/// partition (every topic has at least one).
pub const MIN_TOPIC_METADATA_LEN: usize = TOPIC_METADATA_FIXED_LEN + 1 + PARTITION_METADATA_LEN;
/// Bytes of a topic's metadata besides its name's bytes and its partitions:
/// the name's length byte, cleanup, both retentions, the partition count.
const TOPIC_METADATA_FIXED_LEN: usize = 1 + 1 + 8 + 8 + 4;
/// Bytes of one partition's metadata.
const PARTITION_METADATA_LEN: usize = 4 + 8 + 8;

/// The operations of the protocol (version 2; `Authenticate` and
/// `ListTopics` are version 3's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Op {
    /// Append one record batch.
    Produce = 0x01,
    /// Read whole batches from an offset (long poll).
    Fetch = 0x02,
    /// Store a consumer group's next offset.
    Commit = 0x03,
    /// Read a consumer group's committed offset.
    Committed = 0x04,
    /// Describe topics and partitions.
    Metadata = 0x05,
    /// Create a topic.
    CreateTopic = 0x06,
    /// Delete a topic.
    DeleteTopic = 0x07,
    /// Liveness check.
    Ping = 0x08,
    /// Prove the connection's principal (protocol version 3, [`crate::auth`]).
    Authenticate = 0x09,
    /// One page of topics in name order, resumed from a cursor.
    ListTopics = 0x0A,
}

impl Op {
    /// Decode an op byte (without the response bit).
    pub fn from_u8(b: u8) -> Result<Op, WireError> {
        Ok(match b {
            0x01 => Op::Produce,
            0x02 => Op::Fetch,
            0x03 => Op::Commit,
            0x04 => Op::Committed,
            0x05 => Op::Metadata,
            0x06 => Op::CreateTopic,
            0x07 => Op::DeleteTopic,
            0x08 => Op::Ping,
            0x09 => Op::Authenticate,
            0x0A => Op::ListTopics,
            other => return Err(WireError::UnknownOp(other)),
        })
    }
}

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

/// A topic's cleanup policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Cleanup {
    /// Delete whole old segments by age or size.
    #[default]
    Delete = 0,
    /// Keep the newest batch per key.
    Compact = 1,
}

impl Cleanup {
    /// Decode the wire byte.
    pub fn from_u8(b: u8) -> Result<Cleanup, WireError> {
        match b {
            0 => Ok(Cleanup::Delete),
            1 => Ok(Cleanup::Compact),
            other => Err(WireError::InvalidField {
                field: "cleanup",
                value: u64::from(other),
            }),
        }
    }
}

/// Limits a receiver enforces while checking frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest frame (bytes after the length prefix).
    pub max_frame: u32,
    /// Largest record batch payload.
    pub max_payload: u32,
    /// Largest record batch key.
    pub max_key: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::for_payload(DEFAULT_MAX_PAYLOAD, DEFAULT_MAX_KEY)
    }
}

impl Limits {
    /// Limits whose frame size fits the largest produce frame those payload and key limits allow.
    pub fn for_payload(max_payload: u32, max_key: u32) -> Self {
        let max_frame = u64::from(max_payload)
            + u64::from(max_key)
            + (REQUEST_HEADER_LEN + 1 + 255 + 4 + 1 + HEADER_LEN) as u64;
        Limits {
            max_frame: u32::try_from(max_frame).unwrap_or(u32::MAX),
            max_payload,
            max_key,
        }
    }
}

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
}

/// Check whether `buf` starts with a whole request frame, validating what has arrived.
///
/// Never allocates. A produce frame's topic, ack and batch header are checked
/// against `limits` as soon as they are buffered.
pub fn check_request(buf: &[u8], limits: &Limits) -> Result<FrameCheck, RequestError> {
    if buf.len() < 4 {
        return Ok(FrameCheck::Incomplete { need: 4 });
    }
    let len = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
    if (len as usize) < REQUEST_HEADER_LEN - 4 {
        return Err(RequestError::bare(WireError::FrameTooShort {
            len: u64::from(len),
            min: (REQUEST_HEADER_LEN - 4) as u64,
        }));
    }
    if buf.len() < REQUEST_HEADER_LEN {
        return Ok(FrameCheck::Incomplete {
            need: REQUEST_HEADER_LEN,
        });
    }
    let op_byte = buf[4];
    let correlation_id = u32::from_be_bytes([buf[5], buf[6], buf[7], buf[8]]);
    let fail = |error| RequestError {
        correlation_id: Some(correlation_id),
        op: Some(op_byte),
        error,
    };
    let op = Op::from_u8(op_byte).map_err(fail)?;
    let max = if op == Op::Produce {
        limits.max_frame
    } else {
        MAX_CONTROL_FRAME.min(limits.max_frame)
    };
    if len > max {
        return Err(fail(WireError::FrameTooLarge {
            len: u64::from(len),
            max: u64::from(max),
        }));
    }
    let total = 4 + len as usize;
    if buf.len() >= total {
        return Ok(FrameCheck::Complete { len: total });
    }
    if op == Op::Produce {
        // Validate the prefix that has arrived; running out of bytes is fine here.
        match check_produce_prefix(&buf[REQUEST_HEADER_LEN..], len, limits) {
            Ok(_) | Err(WireError::UnexpectedEof { .. }) => {}
            Err(e) => return Err(fail(e)),
        }
    }
    Ok(FrameCheck::Incomplete { need: total })
}

/// Decode the topic, partition, ack and batch header of a produce body and
/// check them against the limits and the frame length `len`.
fn check_produce_prefix<'a>(
    body: &'a [u8],
    len: u32,
    limits: &Limits,
) -> Result<(TopicName<&'a str>, u32, Ack, RecordHeader), WireError> {
    let mut r = Reader::new(body);
    let topic = topic_from(&mut r)?;
    let partition = r.u32()?;
    let ack = Ack::from_u8(r.u8()?)?;
    let header = RecordHeader::decode(r.rest())?;
    header.check_limits(limits.max_key, limits.max_payload)?;
    let contents = (REQUEST_HEADER_LEN - 4 + r.position()) as u64 + header.batch_len();
    if contents != u64::from(len) {
        return Err(WireError::LengthMismatch {
            frame: u64::from(len),
            contents,
        });
    }
    Ok((topic, partition, ack, header))
}

fn topic_from<'a>(r: &mut Reader<'a>) -> Result<TopicName<&'a str>, WireError> {
    let raw = r.bytes8()?;
    TopicName::from_wire(raw).map_err(|source| WireError::InvalidName {
        what: "topic",
        source,
    })
}

/// An optional cursor: empty = none, else a name by the topic charset rules
/// with the internal `__` prefix allowed (a cursor names a place in the
/// order of names, and the last name a broker scanned may be an internal one).
fn cursor_from<'a>(r: &mut Reader<'a>) -> Result<Option<TopicName<&'a str>>, WireError> {
    let raw = r.bytes8()?;
    if raw.is_empty() {
        return Ok(None);
    }
    TopicName::from_wire_any(raw)
        .map(Some)
        .map_err(|source| WireError::InvalidName {
            what: "topic",
            source,
        })
}

fn group_from<'a>(r: &mut Reader<'a>) -> Result<&'a str, WireError> {
    let g = r.str8("group")?;
    validate_group(g).map_err(|source| WireError::InvalidName {
        what: "group",
        source,
    })?;
    Ok(g)
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

/// A commit request: the next offset `group` will read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commit<'a> {
    /// Consumer group.
    pub group: &'a str,
    /// Topic.
    pub topic: TopicName<&'a str>,
    /// Partition.
    pub partition: u32,
    /// Next offset to read.
    pub offset: u64,
}

/// A committed-offset query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Committed<'a> {
    /// Consumer group.
    pub group: &'a str,
    /// Topic.
    pub topic: TopicName<&'a str>,
    /// Partition.
    pub partition: u32,
}

/// Settings of a new topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicSettings {
    /// Number of partitions, 1..=[`MAX_PARTITIONS`].
    pub partitions: u32,
    /// Cleanup policy.
    pub cleanup: Cleanup,
    /// Retention by age in ms; 0 = broker default, `u64::MAX` = forever.
    pub retention_ms: u64,
    /// Retention by size in bytes per partition; 0 = broker default, `u64::MAX` = unlimited.
    pub retention_bytes: u64,
}

/// A create-topic request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateTopic<'a> {
    /// Name.
    pub topic: TopicName<&'a str>,
    /// Settings.
    pub settings: TopicSettings,
}

/// A list-topics request: one page of the topics the caller may describe,
/// in name order (bytewise), starting after a cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListTopics<'a> {
    /// List the names that sort after this one: the previous page's
    /// [`TopicPage::next`]. `None` (empty on the wire) starts at the first.
    /// May be internal (`__…`): it is a place in the order, not a topic.
    pub after: Option<TopicName<&'a str>>,
    /// Most topics in the page, 1..=[`MAX_LIST_LIMIT`]; anything else is malformed.
    pub limit: u32,
}

/// Largest SPKI or signature an `Authenticate` may carry (the frame is a
/// control frame of at most [`MAX_CONTROL_FRAME`] bytes anyway).
pub const MAX_AUTH_FIELD: usize = 512;

/// An authenticate request: proof of the principal's key ([`crate::auth`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Authenticate<'a> {
    /// [`crate::auth::MECHANISM_P256_ECDSA`].
    pub mechanism: u8,
    /// The principal's public key, DER SubjectPublicKeyInfo.
    pub spki: &'a [u8],
    /// Signature over [`crate::auth::transcript`].
    pub signature: &'a [u8],
}

impl std::fmt::Debug for Authenticate<'_> {
    // A signature is no secret, but it is noise in a log line: lengths only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticate")
            .field("mechanism", &self.mechanism)
            .field("spki_len", &self.spki.len())
            .field("signature_len", &self.signature.len())
            .finish()
    }
}

/// A decoded request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request<'a> {
    /// Append a batch.
    Produce(Produce<'a>),
    /// Read batches.
    Fetch(Fetch<'a>),
    /// Store a group offset.
    Commit(Commit<'a>),
    /// Read a group offset.
    Committed(Committed<'a>),
    /// Describe all topics (`None`) or one.
    Metadata(Option<TopicName<&'a str>>),
    /// Create a topic.
    CreateTopic(CreateTopic<'a>),
    /// Delete a topic.
    DeleteTopic(TopicName<&'a str>),
    /// Liveness check.
    Ping,
    /// Prove the connection's principal.
    Authenticate(Authenticate<'a>),
    /// One page of topics.
    ListTopics(ListTopics<'a>),
}

impl Request<'_> {
    /// The op of this request.
    pub fn op(&self) -> Op {
        match self {
            Request::Produce(_) => Op::Produce,
            Request::Fetch(_) => Op::Fetch,
            Request::Commit(_) => Op::Commit,
            Request::Committed(_) => Op::Committed,
            Request::Metadata(_) => Op::Metadata,
            Request::CreateTopic(_) => Op::CreateTopic,
            Request::DeleteTopic(_) => Op::DeleteTopic,
            Request::Ping => Op::Ping,
            Request::Authenticate(_) => Op::Authenticate,
            Request::ListTopics(_) => Op::ListTopics,
        }
    }

    /// Encode as a frame with `correlation_id`.
    pub fn encode(&self, correlation_id: u32, out: &mut BytesMut) -> Result<(), WireError> {
        let start = out.len();
        out.put_u32(0); // patched below
        out.put_u8(self.op() as u8);
        out.put_u32(correlation_id);
        match self {
            Request::Produce(p) => {
                put_str8(out, "topic", p.topic.as_str())?;
                out.put_u32(p.partition);
                out.put_u8(p.ack as u8);
                out.put_slice(p.batch);
            }
            Request::Fetch(f) => {
                put_str8(out, "topic", f.topic.as_str())?;
                out.put_u32(f.partition);
                out.put_u64(f.offset);
                out.put_u32(f.max_bytes);
                out.put_u32(f.max_wait_ms);
            }
            Request::Commit(c) => {
                put_str8(out, "group", c.group)?;
                put_str8(out, "topic", c.topic.as_str())?;
                out.put_u32(c.partition);
                out.put_u64(c.offset);
            }
            Request::Committed(c) => {
                put_str8(out, "group", c.group)?;
                put_str8(out, "topic", c.topic.as_str())?;
                out.put_u32(c.partition);
            }
            Request::Metadata(topic) => {
                if let Some(t) = topic {
                    put_str8(out, "topic", t.as_str())?;
                }
            }
            Request::CreateTopic(c) => {
                put_str8(out, "topic", c.topic.as_str())?;
                out.put_u32(c.settings.partitions);
                out.put_u8(c.settings.cleanup as u8);
                out.put_u64(c.settings.retention_ms);
                out.put_u64(c.settings.retention_bytes);
            }
            Request::DeleteTopic(t) => put_str8(out, "topic", t.as_str())?,
            Request::Ping => {}
            Request::Authenticate(a) => {
                out.put_u8(a.mechanism);
                put_bytes16(out, "spki", a.spki)?;
                put_bytes16(out, "signature", a.signature)?;
            }
            Request::ListTopics(l) => {
                // The limit is not checked here (nor CreateTopic's partition
                // count): the receiver's decoder is the one that refuses.
                put_str8(out, "after", l.after.as_ref().map_or("", |a| a.as_str()))?;
                out.put_u32(l.limit);
            }
        }
        patch_len(out, start)
    }
}

/// Write a `u16`-length-prefixed byte string of at most [`MAX_AUTH_FIELD`] bytes.
fn put_bytes16(out: &mut BytesMut, field: &'static str, b: &[u8]) -> Result<(), WireError> {
    if b.len() > MAX_AUTH_FIELD {
        return Err(WireError::TooLong {
            field,
            len: b.len() as u64,
            max: MAX_AUTH_FIELD as u64,
        });
    }
    out.put_u16(b.len() as u16);
    out.put_slice(b);
    Ok(())
}

fn bytes16_from<'a>(r: &mut Reader<'a>, field: &'static str) -> Result<&'a [u8], WireError> {
    let n = usize::from(r.u16()?);
    if n > MAX_AUTH_FIELD {
        return Err(WireError::TooLong {
            field,
            len: n as u64,
            max: MAX_AUTH_FIELD as u64,
        });
    }
    Ok(r.bytes(n)?)
}

/// Write the frame length of the frame starting at `start`.
fn patch_len(out: &mut BytesMut, start: usize) -> Result<(), WireError> {
    let len = out.len() - start - 4;
    let len = u32::try_from(len).map_err(|_| WireError::TooLong {
        field: "frame",
        len: len as u64,
        max: u64::from(u32::MAX),
    })?;
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
    Ok(())
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
    let op_byte = frame[4];
    let correlation_id = u32::from_be_bytes([frame[5], frame[6], frame[7], frame[8]]);
    let fail = |error| RequestError {
        correlation_id: Some(correlation_id),
        op: Some(op_byte),
        error,
    };
    if total != frame.len() {
        return Err(fail(WireError::LengthMismatch {
            frame: (total - 4) as u64,
            contents: (frame.len() - 4) as u64,
        }));
    }
    let body = &frame[REQUEST_HEADER_LEN..];
    let op = Op::from_u8(op_byte).map_err(fail)?;
    let request = decode_body(op, body, (total - 4) as u32, limits).map_err(fail)?;
    Ok(RequestFrame {
        correlation_id,
        request,
    })
}

fn decode_body<'a>(
    op: Op,
    body: &'a [u8],
    len: u32,
    limits: &Limits,
) -> Result<Request<'a>, WireError> {
    let mut r = Reader::new(body);
    let req = match op {
        Op::Produce => {
            let (topic, partition, ack, header) = check_produce_prefix(body, len, limits)?;
            let batch_len = header.batch_len() as usize; // fits: checked against the frame length
            let batch = &body[body.len() - batch_len..];
            return Ok(Request::Produce(Produce {
                topic,
                partition,
                ack,
                header,
                batch,
            }));
        }
        Op::Fetch => Request::Fetch(Fetch {
            topic: topic_from(&mut r)?,
            partition: r.u32()?,
            offset: r.u64()?,
            max_bytes: r.u32()?,
            max_wait_ms: r.u32()?,
        }),
        Op::Commit => Request::Commit(Commit {
            group: group_from(&mut r)?,
            topic: topic_from(&mut r)?,
            partition: r.u32()?,
            offset: r.u64()?,
        }),
        Op::Committed => Request::Committed(Committed {
            group: group_from(&mut r)?,
            topic: topic_from(&mut r)?,
            partition: r.u32()?,
        }),
        Op::Metadata => {
            if body.is_empty() {
                Request::Metadata(None)
            } else {
                Request::Metadata(Some(topic_from(&mut r)?))
            }
        }
        Op::CreateTopic => {
            let topic = topic_from(&mut r)?;
            let partitions = r.u32()?;
            if partitions == 0 || partitions > MAX_PARTITIONS {
                return Err(WireError::InvalidField {
                    field: "partitions",
                    value: u64::from(partitions),
                });
            }
            let cleanup = Cleanup::from_u8(r.u8()?)?;
            Request::CreateTopic(CreateTopic {
                topic,
                settings: TopicSettings {
                    partitions,
                    cleanup,
                    retention_ms: r.u64()?,
                    retention_bytes: r.u64()?,
                },
            })
        }
        Op::DeleteTopic => Request::DeleteTopic(topic_from(&mut r)?),
        Op::Ping => Request::Ping,
        Op::Authenticate => Request::Authenticate(Authenticate {
            mechanism: r.u8()?,
            spki: bytes16_from(&mut r, "spki")?,
            signature: bytes16_from(&mut r, "signature")?,
        }),
        Op::ListTopics => {
            let after = cursor_from(&mut r)?;
            let limit = r.u32()?;
            if limit == 0 || limit > MAX_LIST_LIMIT {
                return Err(WireError::InvalidField {
                    field: "limit",
                    value: u64::from(limit),
                });
            }
            Request::ListTopics(ListTopics { after, limit })
        }
    };
    r.finish()?;
    Ok(req)
}

/// Metadata of one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionMetadata {
    /// Partition number.
    pub partition: u32,
    /// First offset still stored.
    pub log_start: u64,
    /// Offset the next record will get (visible to consumers).
    pub high_watermark: u64,
}

/// Metadata of one topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMetadata {
    /// Name.
    pub name: String,
    /// Cleanup policy.
    pub cleanup: Cleanup,
    /// Effective retention by age in ms (`u64::MAX` = forever).
    pub retention_ms: u64,
    /// Effective retention by size in bytes per partition (`u64::MAX` = unlimited).
    pub retention_bytes: u64,
    /// Partitions, in order.
    pub partitions: Vec<PartitionMetadata>,
}

impl TopicMetadata {
    /// Bytes of its encoding in a `Metadata` or `ListTopics` response, so a
    /// sender can stop a page before it outgrows a frame.
    pub fn encoded_len(&self) -> usize {
        TOPIC_METADATA_FIXED_LEN + self.name.len() + self.partitions.len() * PARTITION_METADATA_LEN
    }
}

/// One page of a topic listing (the answer to `ListTopics`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicPage {
    /// The topics, in name order: at most the request's `limit`, maybe
    /// none (a page is also cut short by the broker's bounded scan and by
    /// the frame size).
    pub topics: Vec<TopicMetadata>,
    /// Where the next page starts: pass it as [`ListTopics::after`]. `None`
    /// (empty on the wire): the listing is complete. It may name a topic
    /// not in `topics` (the last one the broker looked at).
    pub next: Option<String>,
}

/// The body of a successful response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseBody<'a> {
    /// The batch's assigned base offset.
    Produce {
        /// Offset of the first record of the batch.
        base_offset: u64,
    },
    /// Whole batches.
    Fetch {
        /// Offset the next record will get (visible to consumers).
        high_watermark: u64,
        /// First offset still stored.
        log_start: u64,
        /// Zero or more whole record batches.
        records: &'a [u8],
    },
    /// Commit stored.
    Commit,
    /// The committed offset, if any.
    Committed {
        /// Next offset for the group, `None` if it never committed.
        offset: Option<u64>,
    },
    /// Topics.
    Metadata(Vec<TopicMetadata>),
    /// Topic created.
    CreateTopic,
    /// Topic deleted.
    DeleteTopic,
    /// Pong.
    Ping,
    /// The connection now acts as this principal.
    Authenticate {
        /// The principal: SHA-256 of its SPKI (its fingerprint).
        principal: [u8; 32],
    },
    /// One page of topics.
    ListTopics(TopicPage),
}

impl ResponseBody<'_> {
    /// The op this body answers.
    pub fn op(&self) -> Op {
        match self {
            ResponseBody::Produce { .. } => Op::Produce,
            ResponseBody::Fetch { .. } => Op::Fetch,
            ResponseBody::Commit => Op::Commit,
            ResponseBody::Committed { .. } => Op::Committed,
            ResponseBody::Metadata(_) => Op::Metadata,
            ResponseBody::CreateTopic => Op::CreateTopic,
            ResponseBody::DeleteTopic => Op::DeleteTopic,
            ResponseBody::Ping => Op::Ping,
            ResponseBody::Authenticate { .. } => Op::Authenticate,
            ResponseBody::ListTopics(_) => Op::ListTopics,
        }
    }
}

/// The body of a failed response: status, message and, for
/// `OffsetOutOfRange`, the partition's bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorBody<'a> {
    /// Never [`Status::Ok`].
    pub status: Status,
    /// Human-readable detail.
    pub message: &'a str,
    /// `(log_start, high_watermark)`; present exactly when `status` is `OffsetOutOfRange`.
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
    if let ResponseBody::ListTopics(page) = body
        && page.topics.len() > MAX_LIST_LIMIT as usize
    {
        // Refused before anything is written: no half frame in `out`.
        return Err(WireError::TooLong {
            field: "topics",
            len: page.topics.len() as u64,
            max: u64::from(MAX_LIST_LIMIT),
        });
    }
    let start = out.len();
    out.put_u32(0);
    out.put_u8(body.op() as u8 | RESPONSE_BIT);
    out.put_u32(correlation_id);
    out.put_u16(Status::Ok.code());
    match body {
        ResponseBody::Produce { base_offset } => out.put_u64(*base_offset),
        ResponseBody::Fetch {
            high_watermark,
            log_start,
            records,
        } => {
            let n = u32::try_from(records.len()).map_err(|_| WireError::TooLong {
                field: "records",
                len: records.len() as u64,
                max: u64::from(u32::MAX),
            })?;
            out.put_u64(*high_watermark);
            out.put_u64(*log_start);
            out.put_u32(n);
            out.put_slice(records);
        }
        ResponseBody::Committed { offset } => match offset {
            Some(o) => {
                out.put_u8(1);
                out.put_u64(*o);
            }
            None => {
                out.put_u8(0);
                out.put_u64(0);
            }
        },
        ResponseBody::Metadata(topics) => put_topics(out, topics)?,
        ResponseBody::ListTopics(page) => {
            put_topics(out, &page.topics)?;
            put_str8(out, "next", page.next.as_deref().unwrap_or(""))?;
        }
        ResponseBody::Authenticate { principal } => out.put_slice(principal),
        ResponseBody::Commit
        | ResponseBody::CreateTopic
        | ResponseBody::DeleteTopic
        | ResponseBody::Ping => {}
    }
    patch_len(out, start)
}

/// The topic list of `Metadata` and `ListTopics`: a count, then each topic.
fn put_topics(out: &mut BytesMut, topics: &[TopicMetadata]) -> Result<(), WireError> {
    out.put_u32(len_u32("topics", topics.len())?);
    for t in topics {
        put_str8(out, "topic", &t.name)?;
        out.put_u8(t.cleanup as u8);
        out.put_u64(t.retention_ms);
        out.put_u64(t.retention_bytes);
        out.put_u32(len_u32("partitions", t.partitions.len())?);
        for p in &t.partitions {
            out.put_u32(p.partition);
            out.put_u64(p.log_start);
            out.put_u64(p.high_watermark);
        }
    }
    Ok(())
}

fn len_u32(field: &'static str, n: usize) -> Result<u32, WireError> {
    u32::try_from(n).map_err(|_| WireError::TooLong {
        field,
        len: n as u64,
        max: u64::from(u32::MAX),
    })
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
    out.put_u32(0);
    out.put_u8(op_byte | RESPONSE_BIT);
    out.put_u32(correlation_id);
    out.put_u16(err.status.code());
    put_str16_lossy(out, err.message);
    if err.status == Status::OffsetOutOfRange {
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
    let mut out = [0u8; FETCH_RESPONSE_HEADER_LEN];
    let len = (FETCH_RESPONSE_HEADER_LEN - 4) as u64 + u64::from(records_len);
    // A fetch response is bounded by the 4 GiB of records_len plus a fixed header;
    // the receiver's own frame limit decides whether it accepts it.
    let len = u32::try_from(len).unwrap_or(u32::MAX);
    out[0..4].copy_from_slice(&len.to_be_bytes());
    out[4] = Op::Fetch as u8 | RESPONSE_BIT;
    out[5..9].copy_from_slice(&correlation_id.to_be_bytes());
    out[9..11].copy_from_slice(&Status::Ok.code().to_be_bytes());
    out[11..19].copy_from_slice(&high_watermark.to_be_bytes());
    out[19..27].copy_from_slice(&log_start.to_be_bytes());
    out[27..31].copy_from_slice(&records_len.to_be_bytes());
    out
}

/// Check whether `buf` starts with a whole response frame no longer than `max_frame`.
pub fn check_response(buf: &[u8], max_frame: u32) -> Result<FrameCheck, WireError> {
    if buf.len() < 4 {
        return Ok(FrameCheck::Incomplete { need: 4 });
    }
    let len = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
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
        Ok(decode_response_body(op, &mut r)?)
    } else {
        let message = r.str16("error message")?;
        let bounds = if status == Status::OffsetOutOfRange {
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

fn decode_response_body<'a>(op: Op, r: &mut Reader<'a>) -> Result<ResponseBody<'a>, WireError> {
    Ok(match op {
        Op::Produce => ResponseBody::Produce {
            base_offset: r.u64()?,
        },
        Op::Fetch => {
            let high_watermark = r.u64()?;
            let log_start = r.u64()?;
            let n = r.u32()?;
            ResponseBody::Fetch {
                high_watermark,
                log_start,
                records: r.bytes(n as usize)?,
            }
        }
        Op::Commit => ResponseBody::Commit,
        Op::Committed => {
            let has = r.u8()?;
            let offset = r.u64()?;
            match has {
                0 => ResponseBody::Committed { offset: None },
                1 => ResponseBody::Committed {
                    offset: Some(offset),
                },
                other => {
                    return Err(WireError::InvalidField {
                        field: "has",
                        value: u64::from(other),
                    });
                }
            }
        }
        Op::Metadata => ResponseBody::Metadata(topics_from(r, None)?),
        Op::ListTopics => {
            let topics = topics_from(r, Some(MAX_LIST_LIMIT))?;
            let next = cursor_from(r)?.map(|n| n.as_str().to_owned());
            ResponseBody::ListTopics(TopicPage { topics, next })
        }
        Op::CreateTopic => ResponseBody::CreateTopic,
        Op::DeleteTopic => ResponseBody::DeleteTopic,
        Op::Ping => ResponseBody::Ping,
        Op::Authenticate => ResponseBody::Authenticate {
            principal: r.array()?,
        },
    })
}

/// The topic list of `Metadata` and `ListTopics`; `max` bounds the count
/// (a page holds at most [`MAX_LIST_LIMIT`]).
fn topics_from(r: &mut Reader<'_>, max: Option<u32>) -> Result<Vec<TopicMetadata>, WireError> {
    let n = r.u32()?;
    if let Some(max) = max
        && n > max
    {
        return Err(WireError::InvalidField {
            field: "topic count",
            value: u64::from(n),
        });
    }
    // Each topic takes at least 22 bytes: refuse counts the frame cannot hold
    // before reserving anything.
    check_count(n, 22, r.remaining())?;
    let mut topics = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let name = r.str8("topic")?;
        TopicName::new_any(name).map_err(|source| WireError::InvalidName {
            what: "topic",
            source,
        })?;
        let cleanup = Cleanup::from_u8(r.u8()?)?;
        let retention_ms = r.u64()?;
        let retention_bytes = r.u64()?;
        let np = r.u32()?;
        check_count(np, PARTITION_METADATA_LEN, r.remaining())?;
        let mut partitions = Vec::with_capacity(np as usize);
        for _ in 0..np {
            partitions.push(PartitionMetadata {
                partition: r.u32()?,
                log_start: r.u64()?,
                high_watermark: r.u64()?,
            });
        }
        topics.push(TopicMetadata {
            name: name.to_owned(),
            cleanup,
            retention_ms,
            retention_bytes,
            partitions,
        });
    }
    Ok(topics)
}

fn check_count(n: u32, min_each: usize, remaining: usize) -> Result<(), WireError> {
    if (n as usize).saturating_mul(min_each) > remaining {
        return Err(WireError::UnexpectedEof {
            need: (n as usize).saturating_mul(min_each),
            have: remaining,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
