//! The op table: every request type the protocol knows, its code, and where
//! its wire format lives — one module per op.
//!
//! | code | op | module |
//! |---|---|---|
//! | 0x01 | Produce | [`produce`] |
//! | 0x02 | Fetch | [`fetch`] |
//! | 0x03 | Commit | [`commit`] |
//! | 0x04 | Committed | [`committed`] |
//! | 0x05 | Metadata | [`metadata`] |
//! | 0x06 | CreateTopic | [`create_topic`] |
//! | 0x07 | DeleteTopic | [`delete_topic`] |
//! | 0x08 | Ping | [`ping`] |
//! | 0x09 | Authenticate | [`authenticate`] (version 3) |
//! | 0x0A | ListTopics | [`list_topics`] (version 3) |
//! | 0x0B | ConditionalProduce | [`conditional_produce`] (version 3) |
//! | 0x0C | Claim | [`claim`] (version 3) |
//!
//! Each module owns its request type (a borrowed view of the frame), its
//! answer and their codecs; this file only maps op codes and enum variants
//! onto them. Adding an op: a module, then a line in [`Op`], [`Request`]
//! and [`ResponseBody`] and an arm in each `match` below — they are
//! exhaustive, so the compiler names every place — and a line in
//! [`for_each_op!`](crate::for_each_op), from which the broker derives its
//! dispatcher (docs/INTERNALS.md, "How to add a request type").

pub mod authenticate;
pub mod claim;
pub mod commit;
pub mod committed;
pub mod conditional_produce;
pub mod create_topic;
pub mod delete_topic;
pub mod fetch;
mod fields;
pub mod list_topics;
pub mod metadata;
pub mod ping;
pub mod produce;

use bytes::BytesMut;

use crate::codec::{Reader, patch_len};
use crate::error::WireError;
use crate::header::RequestHeader;
use crate::limits::Limits;
use crate::topic::TopicName;

use authenticate::Authenticate;
use claim::{Claim, Claimed};
use commit::Commit;
use committed::Committed;
use conditional_produce::ConditionalProduce;
use create_topic::CreateTopic;
use fetch::{Fetch, FetchAnswer};
use list_topics::{ListTopics, TopicPage};
use metadata::TopicMetadata;
use produce::{BatchRequest, Produce};

/// Every op, as `Variant(binding) => module` (`Variant => module` for an
/// op whose request has no body): hands the list to the macro named
/// `$then`, so other crates can derive their per-op code from this one
/// table — the broker's dispatcher calls `net::handler::<module>` for each.
#[macro_export]
macro_rules! for_each_op {
    ($then:ident) => {
        $then! {
            Produce(request) => produce,
            Fetch(request) => fetch,
            Commit(request) => commit,
            Committed(request) => committed,
            Metadata(request) => metadata,
            CreateTopic(request) => create_topic,
            DeleteTopic(request) => delete_topic,
            Ping => ping,
            Authenticate(request) => authenticate,
            ListTopics(request) => list_topics,
            ConditionalProduce(request) => conditional_produce,
            Claim(request) => claim,
        }
    };
}

/// The operations of the protocol (version 2; `Authenticate`, `ListTopics`,
/// `ConditionalProduce` and `Claim` are version 3's).
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
    /// Append one record batch only at the log end the producer expects.
    ConditionalProduce = 0x0B,
    /// Take the next unclaimed batch, for this claimer only.
    Claim = 0x0C,
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
            0x0B => Op::ConditionalProduce,
            0x0C => Op::Claim,
            other => return Err(WireError::UnknownOp(other)),
        })
    }

    /// Whether the op's request ends with a record batch: its frame may be
    /// as large as the receiver's `max_frame`, and its batch header is
    /// checked against the limits as soon as it arrives. Every other
    /// request is a control frame of at most
    /// [`MAX_CONTROL_FRAME`](crate::limits::MAX_CONTROL_FRAME) bytes.
    pub fn carries_batch(self) -> bool {
        self.batch_request().is_some()
    }

    /// Which request that carries a batch the op is, if it is one.
    pub fn batch_request(self) -> Option<BatchRequest> {
        match self {
            Op::Produce => Some(BatchRequest::Produce),
            Op::ConditionalProduce => Some(BatchRequest::Conditional),
            _ => None,
        }
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
    /// Append a batch at an expected log end.
    ConditionalProduce(ConditionalProduce<'a>),
    /// Take the next unclaimed batch.
    Claim(Claim<'a>),
}

impl<'a> Request<'a> {
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
            Request::ConditionalProduce(_) => Op::ConditionalProduce,
            Request::Claim(_) => Op::Claim,
        }
    }

    /// Encode as a frame with `correlation_id`.
    pub fn encode(&self, correlation_id: u32, out: &mut BytesMut) -> Result<(), WireError> {
        let start = out.len();
        RequestHeader {
            len: 0, // patched below
            op: self.op() as u8,
            correlation_id,
        }
        .put(out);
        match self {
            Request::Produce(p) => p.encode(out)?,
            Request::Fetch(f) => f.encode(out)?,
            Request::Commit(c) => c.encode(out)?,
            Request::Committed(c) => c.encode(out)?,
            Request::Metadata(t) => metadata::encode(t, out)?,
            Request::CreateTopic(c) => c.encode(out)?,
            Request::DeleteTopic(t) => delete_topic::encode(t, out)?,
            Request::Ping => {}
            Request::Authenticate(a) => a.encode(out)?,
            Request::ListTopics(l) => l.encode(out)?,
            Request::ConditionalProduce(c) => c.encode(out)?,
            Request::Claim(c) => c.encode(out)?,
        }
        patch_len(out, start)
    }

    /// Decode the body of a whole frame of `len` bytes (after the length
    /// prefix) whose op is `op`; every byte must be used.
    pub(crate) fn decode_body(
        op: Op,
        body: &'a [u8],
        len: u32,
        limits: &Limits,
    ) -> Result<Request<'a>, WireError> {
        let mut r = Reader::new(body);
        let req = match op {
            // The batch is the rest of the frame: checked against `len`.
            Op::Produce => return Ok(Request::Produce(Produce::decode(body, len, limits)?)),
            Op::ConditionalProduce => {
                return Ok(Request::ConditionalProduce(ConditionalProduce::decode(
                    body, len, limits,
                )?));
            }
            Op::Fetch => Request::Fetch(Fetch::decode(&mut r)?),
            Op::Commit => Request::Commit(Commit::decode(&mut r)?),
            Op::Committed => Request::Committed(Committed::decode(&mut r)?),
            Op::Metadata => Request::Metadata(metadata::decode(&mut r)?),
            Op::CreateTopic => Request::CreateTopic(CreateTopic::decode(&mut r)?),
            Op::DeleteTopic => Request::DeleteTopic(delete_topic::decode(&mut r)?),
            Op::Ping => Request::Ping,
            Op::Authenticate => Request::Authenticate(Authenticate::decode(&mut r)?),
            Op::ListTopics => Request::ListTopics(ListTopics::decode(&mut r)?),
            Op::Claim => Request::Claim(Claim::decode(&mut r)?),
        };
        r.finish()?;
        Ok(req)
    }
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
    /// The batch was appended at the expected end.
    ConditionalProduce {
        /// Offset of the first record of the batch: the expected end.
        base_offset: u64,
    },
    /// One whole batch, now this claimer's.
    Claim(Claimed<'a>),
}

impl<'a> ResponseBody<'a> {
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
            ResponseBody::ConditionalProduce { .. } => Op::ConditionalProduce,
            ResponseBody::Claim(_) => Op::Claim,
        }
    }

    /// Check what can be refused before anything is written (no half frame).
    pub(crate) fn check(&self) -> Result<(), WireError> {
        match self {
            ResponseBody::ListTopics(page) => page.check(),
            _ => Ok(()),
        }
    }

    /// Append the body (after the response header).
    pub(crate) fn encode_body(&self, out: &mut BytesMut) -> Result<(), WireError> {
        match self {
            ResponseBody::Produce { base_offset }
            | ResponseBody::ConditionalProduce { base_offset } => {
                produce::encode_response(*base_offset, out);
            }
            ResponseBody::Claim(c) => claim::encode_response(*c, out)?,
            ResponseBody::Fetch {
                high_watermark,
                log_start,
                records,
            } => fetch::encode_response(
                FetchAnswer {
                    high_watermark: *high_watermark,
                    log_start: *log_start,
                    records,
                },
                out,
            )?,
            ResponseBody::Committed { offset } => committed::encode_response(*offset, out),
            ResponseBody::Metadata(topics) => metadata::put_topics(out, topics)?,
            ResponseBody::ListTopics(page) => page.encode(out)?,
            ResponseBody::Authenticate { principal } => {
                authenticate::encode_response(principal, out)
            }
            ResponseBody::Commit
            | ResponseBody::CreateTopic
            | ResponseBody::DeleteTopic
            | ResponseBody::Ping => {}
        }
        Ok(())
    }

    /// Decode the body of a successful answer to `op`.
    pub(crate) fn decode_body(op: Op, r: &mut Reader<'a>) -> Result<ResponseBody<'a>, WireError> {
        Ok(match op {
            Op::Produce => ResponseBody::Produce {
                base_offset: produce::decode_response(r)?,
            },
            Op::Fetch => {
                let a = fetch::decode_response(r)?;
                ResponseBody::Fetch {
                    high_watermark: a.high_watermark,
                    log_start: a.log_start,
                    records: a.records,
                }
            }
            Op::ConditionalProduce => ResponseBody::ConditionalProduce {
                base_offset: produce::decode_response(r)?,
            },
            Op::Claim => ResponseBody::Claim(claim::decode_response(r)?),
            Op::Commit => ResponseBody::Commit,
            Op::Committed => ResponseBody::Committed {
                offset: committed::decode_response(r)?,
            },
            Op::Metadata => ResponseBody::Metadata(metadata::topics(r, None)?),
            Op::ListTopics => ResponseBody::ListTopics(TopicPage::decode(r)?),
            Op::CreateTopic => ResponseBody::CreateTopic,
            Op::DeleteTopic => ResponseBody::DeleteTopic,
            Op::Ping => ResponseBody::Ping,
            Op::Authenticate => ResponseBody::Authenticate {
                principal: authenticate::decode_response(r)?,
            },
        })
    }
}
