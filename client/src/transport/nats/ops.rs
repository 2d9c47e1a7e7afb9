//! The call mapping of the NATS transport: each control request
//! ([`Transport::call`](crate::transport::contract::Transport::call)) the
//! transport carries, answered as the broker would — the same body, encoded
//! as a response frame, or the same typed error.
//!
//! Adding a request type that NATS can carry is an arm of
//! [`Nats::call_op`] and its function here; any other is refused as a
//! broker that does not know the op would refuse it (`UnknownOp`).

use std::collections::BTreeMap;
use std::sync::Arc;

use async_nats::jetstream::ErrorCode;
use async_nats::jetstream::stream;
use bytes::{Bytes, BytesMut};
use hermit_protocol::frame::{
    Claimed, Commit, Committed, ListTopics, MAX_PARTITIONS, PartitionMetadata, TopicMetadata,
    TopicPage, TopicSettings, encode_response,
};
use hermit_protocol::{Cleanup, Request, ResponseBody, Status};

use super::jetstream::{Empty, RawGet, Success, bounds, js_error};
use super::message;
use super::names::{
    OFFSETS_STREAM, SUBJECT_ROOT, offsets_subject, offsets_topic_filter, parse_stream_name,
    topic_filter,
};
use super::transport::Nats;
use crate::error::ClientError;

impl Nats {
    /// Carry `request` over JetStream; the answer is a response frame, as
    /// a broker's would be.
    pub(super) async fn call_op(&self, request: &Request<'_>) -> Result<Bytes, ClientError> {
        // A claimed batch, which the answer borrows.
        let claimed;
        let body = match request {
            Request::ConditionalProduce(c) => ResponseBody::ConditionalProduce {
                base_offset: self.conditional_produce(c).await?,
            },
            Request::Claim(c) => {
                claimed = self.claim(c).await?;
                ResponseBody::Claim(Claimed {
                    offset: claimed.offset,
                    next: claimed.next,
                    batch: &claimed.batch,
                })
            }
            Request::Commit(c) => {
                self.commit(c).await?;
                ResponseBody::Commit
            }
            Request::Committed(c) => ResponseBody::Committed {
                offset: self.committed(c).await?,
            },
            Request::Metadata(topic) => {
                ResponseBody::Metadata(self.metadata(topic.as_ref().map(|t| t.as_str())).await?)
            }
            Request::ListTopics(ListTopics { after, limit }) => ResponseBody::ListTopics(
                self.list_topics(after.as_ref().map(|a| a.as_str()), *limit)
                    .await?,
            ),
            Request::CreateTopic(c) => {
                self.create_topic(c.topic.as_str(), c.settings).await?;
                ResponseBody::CreateTopic
            }
            Request::DeleteTopic(topic) => {
                self.delete_topic(topic.as_str()).await?;
                ResponseBody::DeleteTopic
            }
            Request::Ping => {
                self.ping().await?;
                ResponseBody::Ping
            }
            other => {
                return Err(ClientError::Broker {
                    status: Status::UnknownOp,
                    message: format!("nats: {:?} is not carried over NATS", other.op()),
                });
            }
        };
        let mut frame = BytesMut::new();
        encode_response(0, &body, &mut frame)?;
        Ok(frame.freeze())
    }

    /// `Commit`: the offset is the newest message on the group's subject
    /// of the offsets stream.
    async fn commit(&self, c: &Commit<'_>) -> Result<(), ClientError> {
        let (group, topic, partition, offset) = (c.group, c.topic.as_str(), c.partition, c.offset);
        let topic_arc: Arc<str> = Arc::from(topic);
        let part = self.partition(&topic_arc, partition).await?;
        let info = self
            .stream_info(&part.stream)
            .await?
            .ok_or_else(|| self.unknown_after_delete(topic))?;
        let (_, high_watermark) = bounds(&info.state);
        if offset > high_watermark {
            return Err(ClientError::Broker {
                status: Status::OffsetAheadOfLog,
                message: format!(
                    "offset {offset} is beyond the end of {topic}/{partition} ({high_watermark})"
                ),
            });
        }
        self.ensure_offsets_stream().await?;
        let ack = self
            .js
            .publish(
                offsets_subject(group, topic, partition),
                message::encode_offset(offset),
            )
            .await
            .map_err(|e| self.publish_error(&e))?
            .await
            .map_err(|e| self.publish_error(&e))?;
        if ack.stream != OFFSETS_STREAM {
            return Err(ClientError::Broker {
                status: Status::InvalidRequest,
                message: format!("nats: offsets are stored by stream {}", ack.stream),
            });
        }
        Ok(())
    }

    /// `Committed`: the newest message on the group's subject, if any.
    async fn committed(&self, c: &Committed<'_>) -> Result<Option<u64>, ClientError> {
        let (group, topic, partition) = (c.group, c.topic.as_str(), c.partition);
        #[derive(serde::Serialize)]
        struct Req {
            last_by_subj: String,
        }
        let req = Req {
            last_by_subj: offsets_subject(group, topic, partition),
        };
        let subject = format!("STREAM.MSG.GET.{OFFSETS_STREAM}");
        match self.api_raw::<RawGet>(&subject, &req).await? {
            Ok(got) => {
                let bytes = base64::Engine::decode(
                    &base64::engine::general_purpose::STANDARD,
                    got.message.data.as_bytes(),
                )
                .ok();
                bytes
                    .as_deref()
                    .and_then(message::decode_offset)
                    .map(Some)
                    .ok_or_else(|| ClientError::Broker {
                        status: Status::CorruptData,
                        message: format!(
                            "nats: the committed offset on {} is not 8 bytes",
                            req.last_by_subj
                        ),
                    })
            }
            Err(e)
                if e.error_code() == ErrorCode::NO_MESSAGE_FOUND
                    || e.error_code() == ErrorCode::STREAM_NOT_FOUND =>
            {
                Ok(None) // No commit yet, or no offsets stream yet.
            }
            Err(e) => Err(js_error(&subject, &e)),
        }
    }

    /// `Metadata`: the streams of every topic, or of one.
    async fn metadata(&self, topic: Option<&str>) -> Result<Vec<TopicMetadata>, ClientError> {
        let infos = match topic {
            Some(t) => self.list_streams(&topic_filter(t)).await?,
            None => self.list_streams(&format!("{SUBJECT_ROOT}.>")).await?,
        };
        let mut topics: BTreeMap<String, Vec<(u32, stream::Info)>> = BTreeMap::new();
        for info in infos {
            if let Some((t, p)) = parse_stream_name(&info.config.name)
                && topic.is_none_or(|want| want == t)
            {
                topics.entry(t).or_default().push((p, info));
            }
        }
        if let Some(t) = topic
            && topics.is_empty()
        {
            return Err(ClientError::Broker {
                status: Status::UnknownTopic,
                message: format!("unknown topic {t}"),
            });
        }
        Ok(topics
            .into_iter()
            .map(|(name, mut parts)| {
                parts.sort_by_key(|(p, _)| *p);
                let c = &parts[0].1.config;
                TopicMetadata {
                    name,
                    cleanup: if c.max_messages_per_subject == 1 {
                        Cleanup::Compact
                    } else {
                        Cleanup::Delete
                    },
                    retention_ms: if c.max_age.is_zero() {
                        u64::MAX
                    } else {
                        u64::try_from(c.max_age.as_millis()).unwrap_or(u64::MAX)
                    },
                    retention_bytes: u64::try_from(c.max_bytes).unwrap_or(u64::MAX),
                    partitions: parts
                        .iter()
                        .map(|(p, info)| {
                            let (log_start, high_watermark) = bounds(&info.state);
                            PartitionMetadata {
                                partition: *p,
                                log_start,
                                high_watermark,
                            }
                        })
                        .collect(),
                }
            })
            .collect())
    }

    /// `ListTopics`: one page of [`Nats::metadata`].
    async fn list_topics(&self, after: Option<&str>, limit: u32) -> Result<TopicPage, ClientError> {
        // JetStream lists streams by position, not from a name: each page
        // asks for every stream (in pages of the server's) and keeps one
        // page of topics, in the same name order as the broker's.
        let all = self.metadata(None).await?;
        let mut rest = all
            .into_iter()
            .filter(|t| after.is_none_or(|a| t.name.as_str() > a));
        let topics: Vec<TopicMetadata> = rest.by_ref().take(limit as usize).collect();
        let next = match rest.next() {
            Some(_) => topics.last().map(|t| t.name.clone()),
            None => None,
        };
        Ok(TopicPage { topics, next })
    }

    /// `CreateTopic`: one stream per partition.
    async fn create_topic(&self, topic: &str, settings: TopicSettings) -> Result<(), ClientError> {
        if !(1..=MAX_PARTITIONS).contains(&settings.partitions) {
            return Err(ClientError::Broker {
                status: Status::InvalidRequest,
                message: format!("partitions must be 1..={MAX_PARTITIONS}"),
            });
        }
        let _creating = self.creating.lock().await;
        if !self.topic_streams(topic).await?.is_empty() {
            return Err(ClientError::Broker {
                status: Status::TopicExists,
                message: format!("topic {topic} exists"),
            });
        }
        self.create_streams(topic, &settings).await
    }

    /// `DeleteTopic`: its streams, and its groups' committed offsets.
    async fn delete_topic(&self, topic: &str) -> Result<(), ClientError> {
        let _creating = self.creating.lock().await;
        let streams = self.topic_streams(topic).await?;
        if streams.is_empty() {
            return Err(ClientError::Broker {
                status: Status::UnknownTopic,
                message: format!("unknown topic {topic}"),
            });
        }
        self.forget_topic(topic);
        for info in streams.values() {
            let name = &info.config.name;
            let r: Success = self
                .api(&format!("STREAM.DELETE.{name}"), &Empty {})
                .await?;
            if !r.success {
                return Err(self.lost(format!("stream {name} was not deleted")));
            }
        }
        // As the broker does: a deleted topic's committed offsets are forgotten.
        #[derive(serde::Serialize)]
        struct Purge {
            filter: String,
        }
        match self
            .api::<Success>(
                &format!("STREAM.PURGE.{OFFSETS_STREAM}"),
                &Purge {
                    filter: offsets_topic_filter(topic),
                },
            )
            .await
        {
            Ok(_)
            | Err(ClientError::Broker {
                status: Status::UnknownTopic,
                ..
            }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `Ping`: a round trip to the NATS server.
    async fn ping(&self) -> Result<(), ClientError> {
        self.client
            .flush()
            .await
            .map_err(|e| self.lost(format!("ping: {e}")))
    }
}
