//! [`Client`]: a cheap, cloneable handle on a broker — one multiplexed
//! connection to a HermitMQ broker, reopened with backoff when it dies, or a
//! NATS JetStream server or cluster (see [`crate::transport`]) — with one
//! async method per protocol operation.
//!
//! Produce and fetch have their own paths through the transport (the
//! batch goes out and the records come back without a copy); every other
//! operation is one [`Request`] sent with `Client::call`, whose answer the
//! method reads. Adding a request type is adding its method here (and, to
//! carry it over NATS, its mapping in the NATS transport's `call`).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::frame::{
    Claim as ClaimRequest, Commit, Committed, ConditionalProduce, CreateTopic, ListTopics,
    MAX_LIST_LIMIT, Produce, TopicMetadata, TopicPage, TopicSettings, decode_response,
};
use hermit_protocol::topic::TopicName;
use hermit_protocol::{Ack, Op, RecordHeader, Request, ResponseBody, Status, WireError};
use tokio::time::Instant;

use crate::error::ClientError;
use crate::options::{group_name, topic_name};
use crate::outcome::{Claim, ClaimId, ClaimedBatch, Conditional};
use crate::records::FetchResponse;
use crate::transport::any::AnyTransport;
use crate::transport::contract::{FetchParams, Transport};
use crate::transport::endpoint::TransportKind;

pub use crate::options::{ClientCert, ClientOptions};

/// A handle on a broker: one TCP connection carrying many requests at once,
/// answers matched by correlation id, reopened with backoff after it dies —
/// or, for a `nats://` URL, a NATS JetStream server or cluster (see
/// [`crate::transport`]).
///
/// Cheap to clone; clones share the connection and can be used from any task.
/// A request whose connection dies before its answer fails with a retriable
/// error ([`ClientError::is_retriable`]); it is never silently dropped, and
/// never silently retried (the broker may or may not have carried it out).
#[derive(Clone)]
pub struct Client {
    /// The URL given to [`Client::connect`].
    addr: Arc<str>,
    opts: Arc<ClientOptions>,
    transport: AnyTransport,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("addr", &self.addr)
            .field("transport", &self.transport_kind())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connect to `url` and return once the first connection is open:
    /// - `host:port` or `hermit://host:port`: a HermitMQ broker (the name is
    ///   resolved again at every reconnect, so a broker that comes back at
    ///   the same name is found);
    /// - `nats://host:port[,host:port…][?replicas=N&partitions=N&auto_create=BOOL]`:
    ///   NATS JetStream (cargo feature `nats`; see [`crate::transport`]).
    ///
    /// Fails with [`ClientError::Connect`] if the first connection cannot be
    /// opened, and with [`ClientError::InvalidArgument`] for a URL it cannot
    /// use.
    pub async fn connect(
        url: impl Into<String>,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let url: String = url.into();
        let transport = AnyTransport::connect(&url, options.clone()).await?;
        Ok(Client {
            addr: Arc::from(url),
            opts: Arc::new(options),
            transport,
        })
    }

    /// The URL given to [`Client::connect`].
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The options in force.
    pub fn options(&self) -> &ClientOptions {
        &self.opts
    }

    /// Which transport this client uses.
    pub fn transport_kind(&self) -> TransportKind {
        self.transport.kind()
    }

    /// How many connections this client has opened (1 until the first reconnect).
    pub fn connections_opened(&self) -> u64 {
        self.transport.connections_opened()
    }

    /// The transport, for the producer's sender task (batch submission).
    pub(crate) fn transport(&self) -> &AnyTransport {
        &self.transport
    }

    /// Send `request` (any op but produce and fetch) and read its answer's
    /// body with `read`, which takes the variant the request is answered
    /// with (`None` for any other: the broker broke the protocol).
    async fn call<T>(
        &self,
        request: Request<'_>,
        read: impl FnOnce(ResponseBody<'_>) -> Option<T>,
    ) -> Result<T, ClientError> {
        let frame = self.transport.call(&request).await?;
        let answer = decode_response(&frame)?;
        match answer.body {
            Ok(body) => {
                let answered = body.op();
                read(body).ok_or_else(|| unexpected(request.op(), answered))
            }
            Err(refusal) => Err(ClientError::refused(&refusal)),
        }
    }

    /// Append one record batch (as built by
    /// [`hermit_protocol::BatchBuilder::finish`]) to a partition; returns the
    /// offset the broker gave its first record. Over HermitMQ the batch is
    /// sent as it is, without a copy.
    pub async fn produce(
        &self,
        topic: &str,
        partition: u32,
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        self.transport.produce(topic, partition, ack, batch).await
    }

    /// Read whole batches from `offset`, waiting up to `max_wait` for data
    /// when there is none (long poll). The first batch may start before
    /// `offset`. Records are slices of the response buffer (no copy).
    pub async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max_bytes: u32,
        max_wait: Duration,
    ) -> Result<FetchResponse, ClientError> {
        self.fetch_with(
            topic,
            partition,
            offset,
            FetchParams::new(max_bytes, max_wait),
        )
        .await
    }

    /// [`Client::fetch`] with every parameter, among them `min_bytes`: the
    /// broker holds the fetch until that many bytes of whole batches are
    /// there, `min_wait` passed with some data there, or `max_wait` passed
    /// (see [`FetchParams`]).
    pub async fn fetch_with(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        params: FetchParams,
    ) -> Result<FetchResponse, ClientError> {
        self.transport.fetch(topic, partition, offset, params).await
    }

    /// Append one record batch only if the partition's log ends at
    /// `expected_end` (the offset its first record would get): of any number
    /// of producers expecting one end, exactly one is told
    /// [`Conditional::Appended`]; the others learn the end
    /// ([`Conditional::EndMoved`]) and nothing of theirs is appended.
    ///
    /// One request, one answer: it never goes through a producer's
    /// batching, lingering or retries, and this call does not retry either
    /// — after a lost answer ([`ClientError::is_retriable`]) the batch may
    /// or may not be in the log; read it to know. `ack` as for
    /// [`Client::produce`]; a durable answer means on disk.
    ///
    /// Over NATS a batch's first offset depends on its record count, so
    /// the end to expect does too, and it is not the high watermark:
    /// take it from an [`Conditional::EndMoved`] answer, or see
    /// docs/SCALE-OUT.md §4.2.
    pub async fn conditional_produce(
        &self,
        topic: &str,
        partition: u32,
        expected_end: u64,
        ack: Ack,
        batch: &[u8],
    ) -> Result<Conditional, ClientError> {
        let request = Request::ConditionalProduce(ConditionalProduce {
            produce: Produce {
                topic: topic_name(topic)?,
                partition,
                ack,
                header: RecordHeader::decode(batch)?,
                batch,
            },
            expected_end,
        });
        let outcome = self
            .call(request, |b| match b {
                ResponseBody::ConditionalProduce { base_offset } => {
                    Some(Conditional::Appended { base_offset })
                }
                _ => None,
            })
            .await;
        // The refusal that is an outcome: the end moved.
        let outcome = match outcome {
            Err(ClientError::EndMoved { end, .. }) => Conditional::EndMoved { end },
            other => other?,
        };
        match outcome {
            Conditional::Appended { base_offset } if base_offset != expected_end => {
                Err(ClientError::Protocol(WireError::InvalidField {
                    field: "conditional base_offset",
                    value: base_offset,
                }))
            }
            Conditional::EndMoved { end } if end == expected_end => {
                Err(ClientError::Protocol(WireError::InvalidField {
                    field: "moved end",
                    value: end,
                }))
            }
            outcome => Ok(outcome),
        }
    }

    /// The `expected_end` for a [`Client::conditional_produce`] of a batch
    /// of `count` records right after the record before `next` (the offset
    /// after the last record the caller read), with nothing in between:
    /// `next` itself over HermitMQ; over NATS the first offset such a batch
    /// gets as the next message (docs/SCALE-OUT.md §4.2).
    pub fn end_after(&self, next: u64, count: u32) -> u64 {
        use crate::transport::nats_offset::NatsOffset;
        match self.transport_kind() {
            TransportKind::Hermit => next,
            TransportKind::Nats => {
                let sequence = match next.checked_sub(1) {
                    None => 1,
                    Some(last) => NatsOffset::decode(last).sequence + 1,
                };
                NatsOffset::batch_base(sequence, count)
            }
        }
    }

    /// Take the next unclaimed batch of `topic/partition`: no other claimer
    /// gets it, ever, across broker crashes ([`Claim::Claimed`]), or learn
    /// that every durable batch is claimed ([`Claim::NothingLeft`]).
    ///
    /// Keep `id` until the claim is answered: after a retriable error
    /// ([`ClientError::is_retriable`]) ask again with the same id, and the
    /// broker hands out the same batch rather than a second one (PROTOCOL.md
    /// says for how long it remembers an id). A claimer's rate is limited
    /// by the broker: over it, `Broker { status: RateLimited }`.
    ///
    /// Over NATS the claimers keep the claim position themselves, by
    /// compare-and-set in the offsets stream: no rate limit, no
    /// claim-only permission, and durable as the servers' sync setting
    /// makes it (docs/SCALE-OUT.md §6.1).
    pub async fn claim(
        &self,
        topic: &str,
        partition: u32,
        id: ClaimId,
    ) -> Result<Claim, ClientError> {
        let request = Request::Claim(ClaimRequest {
            topic: topic_name(topic)?,
            partition,
            claim_id: id.0,
        });
        let answer = self
            .call(request, |b| match b {
                ResponseBody::Claim(c) => Some(ClaimedBatch::checked(
                    topic, partition, c.offset, c.next, c.batch,
                )),
                _ => None,
            })
            .await;
        match answer {
            Ok(batch) => Ok(Claim::Claimed(batch?)),
            // The refusal that is an outcome: nothing left.
            Err(ClientError::Broker {
                status: Status::NothingToClaim,
                ..
            }) => Ok(Claim::NothingLeft),
            Err(e) => Err(e),
        }
    }

    /// Store `offset` as the next offset `group` will read. Refused with
    /// `OffsetAheadOfLog` beyond the high watermark.
    pub async fn commit(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
        offset: u64,
    ) -> Result<(), ClientError> {
        let request = Request::Commit(Commit {
            group: group_name(group)?,
            topic: topic_name(topic)?,
            partition,
            offset,
        });
        self.call(request, |b| matches!(b, ResponseBody::Commit).then_some(()))
            .await
    }

    /// The next offset `group` will read, or `None` if it never committed.
    pub async fn committed(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
    ) -> Result<Option<u64>, ClientError> {
        let request = Request::Committed(Committed {
            group: group_name(group)?,
            topic: topic_name(topic)?,
            partition,
        });
        self.call(request, |b| match b {
            ResponseBody::Committed { offset } => Some(offset),
            _ => None,
        })
        .await
    }

    /// Describe every topic the caller may describe (`None`) or one
    /// (`UnknownTopic` if it does not exist).
    ///
    /// A HermitMQ broker answers `None` only when that fits in one page (at
    /// most [`MAX_LIST_LIMIT`] topics the caller may describe, among at most
    /// eight times as many on the broker); otherwise it refuses with
    /// `PayloadTooLarge`: use [`Client::list_topics`] or
    /// [`Client::all_topics`] there.
    pub async fn metadata(&self, topic: Option<&str>) -> Result<Vec<TopicMetadata>, ClientError> {
        let request = Request::Metadata(topic.map(topic_name).transpose()?);
        self.call(request, |b| match b {
            ResponseBody::Metadata(topics) => Some(topics),
            _ => None,
        })
        .await
    }

    /// One page of the topics the caller may describe, in name order
    /// (bytewise), whose names sort after `after` — `None` starts at the
    /// first; pass the previous page's [`TopicPage::next`] to go on — at
    /// most `limit` (1..=[`MAX_LIST_LIMIT`], else
    /// [`ClientError::InvalidArgument`]) of them. The broker bounds the
    /// work of each request, so a page may hold fewer topics, even none,
    /// and still have a `next`: the listing is complete only when `next`
    /// is `None`. A topic created or deleted meanwhile may or may not be
    /// listed; every other one is listed exactly once. A `next` of the
    /// form `__cursor.<n>` stands for a name the caller may not see and is
    /// known only to the connection that handed it out (a reconnect in
    /// between makes the broker refuse it: list again from the start).
    pub async fn list_topics(
        &self,
        after: Option<&str>,
        limit: u32,
    ) -> Result<TopicPage, ClientError> {
        if !(1..=MAX_LIST_LIMIT).contains(&limit) {
            return Err(ClientError::InvalidArgument(format!(
                "a topic page holds 1..={MAX_LIST_LIMIT} topics, not {limit}"
            )));
        }
        // A cursor is a place among names; the broker may hand out an
        // internal one (`__…`), so only the charset rules apply.
        let cursor = after
            .map(|a| TopicName::new_any(a).map_err(|e| ClientError::topic_name(a, e)))
            .transpose()?;
        let request = Request::ListTopics(ListTopics {
            after: cursor,
            limit,
        });
        let page = self
            .call(request, |b| match b {
                ResponseBody::ListTopics(page) => Some(page),
                _ => None,
            })
            .await?;
        // An opaque cursor (`__cursor.<n>`, standing for a name the caller
        // may not see) cannot be compared; it only must not repeat.
        let opaque = |c: &str| c.starts_with("__cursor.");
        if let (Some(a), Some(n)) = (after, page.next.as_deref())
            && (n == a || (!opaque(a) && !opaque(n) && n < a))
        {
            // A cursor that does not move would page forever.
            return Err(ClientError::Protocol(WireError::InvalidField {
                field: "ListTopics next cursor (it does not sort after the request's)",
                value: n.len() as u64,
            }));
        }
        Ok(page)
    }

    /// Every topic the caller may describe, in name order, from every page
    /// of [`Client::list_topics`] (of [`MAX_LIST_LIMIT`] topics). It holds
    /// them all in this client's memory: where there may be very many, walk
    /// the pages with [`Client::list_topics`] instead.
    pub async fn all_topics(&self) -> Result<Vec<TopicMetadata>, ClientError> {
        let mut all = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.list_topics(after.as_deref(), MAX_LIST_LIMIT).await?;
            all.extend(page.topics);
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// Create a topic (`TopicExists` if it already does).
    pub async fn create_topic(
        &self,
        topic: &str,
        settings: TopicSettings,
    ) -> Result<(), ClientError> {
        let request = Request::CreateTopic(CreateTopic {
            topic: topic_name(topic)?,
            settings,
        });
        self.call(request, |b| {
            matches!(b, ResponseBody::CreateTopic).then_some(())
        })
        .await
    }

    /// Delete a topic and its data.
    pub async fn delete_topic(&self, topic: &str) -> Result<(), ClientError> {
        let request = Request::DeleteTopic(topic_name(topic)?);
        self.call(request, |b| {
            matches!(b, ResponseBody::DeleteTopic).then_some(())
        })
        .await
    }

    /// Round trip to the broker; returns how long it took.
    pub async fn ping(&self) -> Result<Duration, ClientError> {
        let start = Instant::now();
        self.call(Request::Ping, |b| {
            matches!(b, ResponseBody::Ping).then_some(())
        })
        .await?;
        Ok(start.elapsed())
    }
}

/// An answer of another op than the request's: the broker broke the
/// protocol.
fn unexpected(asked: Op, answered: Op) -> ClientError {
    tracing::warn!(?asked, ?answered, "answer of the wrong kind");
    ClientError::Protocol(WireError::InvalidField {
        field: "response op",
        value: 0,
    })
}
