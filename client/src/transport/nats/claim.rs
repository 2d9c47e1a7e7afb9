//! Claim over NATS: a compare-and-set of the partition's claim state
//! (`claim_state`) in the offsets stream, written by the claimers.
//!
//! A claim reads the state (its message and that message's sequence), and
//! - answers again the batch it remembers for this claim id and claimer
//!   (a retry after a lost answer);
//! - or finds the first stored batch at or after the claim position
//!   (`STREAM.MSG.GET` with `next_by_subj`), `NothingToClaim` if there is
//!   none, and publishes the state that hands it out — the position moved
//!   past it, the claim remembered — with
//!   `Nats-Expected-Last-Subject-Sequence` = the sequence it read (0: no
//!   state yet). Of claimers who read one state, the server stores one
//!   successor; the others are refused (error 10071, or 10164 while the
//!   winner's write is in flight on nats-server 2.11+), read the new state
//!   and try again — at most [`MAX_ATTEMPTS`] times, then a retriable
//!   error: nothing was claimed.
//!
//! The answer goes out once the publish is acknowledged: the state is
//! stored (on a cluster, on a quorum of replicas), as durable as the
//! servers' sync setting makes it. A publish whose ack is lost is not
//! retried here (it may have been stored): the error is retriable, and a
//! retry with the same claim id finds its claim remembered.

use std::sync::Arc;
use std::time::Duration;

use async_nats::HeaderMap;
use async_nats::header::NATS_EXPECTED_LAST_SUBJECT_SEQUENCE;
use async_nats::jetstream::ErrorCode;
use async_nats::jetstream::context::{Publish, PublishErrorKind};
use async_nats::jetstream::message::StreamMessage;
use bytes::{Bytes, BytesMut};
use hermit_protocol::Status;
use hermit_protocol::frame::Claim;

use super::claim_state::{ClaimState, subject_cas_is_sound};
use super::jetstream::{StoredGet, bounds, js_error, subject_cas_busy};
use super::message::{append_batch, meta};
use super::names::{OFFSETS_STREAM, PartInfo, claims_subject, compacted_filter};
use super::transport::Nats;
use crate::error::ClientError;
use crate::transport::nats_offset::{MAX_SEQUENCE, NatsOffset};

/// Compare-and-set attempts of one claim before it gives up. Each lost
/// attempt means another claimer's state was stored: among `n` claimers
/// contending without pause, one wins each round, so 200 covers far more
/// claimers than one partition usefully has.
const MAX_ATTEMPTS: u32 = 200;

/// The longest pause between two attempts (a random part of it: claimers
/// that lost together should not all come back together).
const MAX_PAUSE: Duration = Duration::from_millis(20);

/// A batch handed to a claimer.
pub(super) struct Claimed {
    /// The batch's first offset.
    pub offset: u64,
    /// The offset after it: the claim position after this claim.
    pub next: u64,
    /// The batch as the broker would store it.
    pub batch: Bytes,
}

impl Nats {
    /// Hand the next unclaimed batch of a partition to this claimer, or the
    /// one it was given under this claim id.
    pub(super) async fn claim(&self, c: &Claim<'_>) -> Result<Claimed, ClientError> {
        let (topic, partition) = (c.topic.as_str(), c.partition);
        let part = self.partition(&Arc::from(topic), partition).await?;
        let replicas = self.ensure_offsets_stream().await?;
        let version = self.client.server_info().version;
        if !subject_cas_is_sound(&version, replicas) {
            return Err(ClientError::Broker {
                status: Status::UnknownOp,
                message: format!(
                    "nats: claims over a replicated offsets stream ({OFFSETS_STREAM}, {replicas} \
                     replicas) need nats-server 2.11 or later, whose leader checks \
                     Nats-Expected-Last-Subject-Sequence against the writes in flight; this \
                     server runs {version}, on which two claimers could be handed one batch \
                     (docs/SCALE-OUT.md)"
                ),
            });
        }
        let subject = claims_subject(topic, partition);
        for attempt in 0..MAX_ATTEMPTS {
            if attempt > 0 {
                let pause = MAX_PAUSE.min(Duration::from_millis(1) * attempt);
                tokio::time::sleep(pause.mul_f64(rand::random::<f64>())).await;
            }
            let (state, sequence) = self.claim_state(&subject).await?;
            if let Some(offset) = state.remembered(&c.claim_id, &self.claimer) {
                return self.claimed_again(&part, topic, offset).await;
            }
            let found = self
                .first_batch_from(&part, topic, partition, state.position)
                .await?;
            let Some(found) = found else {
                return Err(ClientError::Broker {
                    status: Status::NothingToClaim,
                    message: format!(
                        "every batch of {topic}/{partition} is claimed (position {})",
                        state.position
                    ),
                });
            };
            let next = state.after_claim(c.claim_id, &self.claimer, found.offset, found.next);
            if self
                .write_claim_state(&subject, sequence, next.encode())
                .await?
            {
                return Ok(found);
            }
        }
        Err(ClientError::Broker {
            status: Status::StorageError,
            message: format!(
                "nats: the claim state of {topic}/{partition} changed under this claim \
                 {MAX_ATTEMPTS} times in a row (other claimers): nothing was claimed; ask \
                 again with the same claim id"
            ),
        })
    }

    /// The claim state on `subject` and its stream sequence (0: none yet).
    async fn claim_state(&self, subject: &str) -> Result<(ClaimState, u64), ClientError> {
        #[derive(serde::Serialize)]
        struct Req<'a> {
            last_by_subj: &'a str,
        }
        let api = format!("STREAM.MSG.GET.{OFFSETS_STREAM}");
        let got = match self
            .api_raw::<StoredGet>(
                &api,
                &Req {
                    last_by_subj: subject,
                },
            )
            .await?
        {
            Ok(got) => got.message,
            Err(e) if e.error_code() == ErrorCode::NO_MESSAGE_FOUND => {
                return Ok((ClaimState::default(), 0));
            }
            Err(e) => return Err(js_error(&api, &e)),
        };
        let sequence = got.sequence;
        let payload = stored(got, &api)?.payload;
        let state = ClaimState::decode(&payload).ok_or_else(|| ClientError::Broker {
            status: Status::CorruptData,
            message: format!(
                "nats: the claim state on {subject} (message {sequence} of {OFFSETS_STREAM}) \
                 is not one"
            ),
        })?;
        Ok((state, sequence))
    }

    /// Publish `state` on `subject` if its last message is still `sequence`:
    /// `false` when another write came first.
    async fn write_claim_state(
        &self,
        subject: &str,
        sequence: u64,
        state: Bytes,
    ) -> Result<bool, ClientError> {
        let mut headers = HeaderMap::new();
        headers.insert(NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, sequence.to_string());
        let result = self
            .js
            .send_publish(
                subject.to_owned(),
                Publish::build().payload(state).headers(headers),
            )
            .await
            .map_err(|e| self.publish_error(&e))?
            .await;
        match result {
            Ok(ack) if ack.stream == OFFSETS_STREAM => Ok(true),
            Ok(ack) => Err(ClientError::Broker {
                status: Status::InvalidRequest,
                message: format!("nats: claim states are stored by stream {}", ack.stream),
            }),
            Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => Ok(false),
            Err(e) => {
                let busy = std::error::Error::source(&e)
                    .and_then(|s| s.downcast_ref::<async_nats::jetstream::Error>())
                    .is_some_and(subject_cas_busy);
                if busy {
                    Ok(false)
                } else {
                    Err(self.publish_error(&e))
                }
            }
        }
    }

    /// The first batch of the partition whose records are at or after
    /// `position`, or `None` when there is none yet.
    async fn first_batch_from(
        &self,
        part: &PartInfo,
        topic: &str,
        partition: u32,
        position: u64,
    ) -> Result<Option<Claimed>, ClientError> {
        #[derive(serde::Serialize)]
        struct Req<'a> {
            seq: u64,
            next_by_subj: &'a str,
        }
        // Positions are sequence starts (a claim moves it past a whole
        // batch); the batch of the position's sequence ends after it.
        let sequence = NatsOffset::decode(position).normalized().sequence;
        if sequence > MAX_SEQUENCE {
            return Ok(None);
        }
        let filter = if part.compacted {
            compacted_filter(topic, partition)
        } else {
            part.subject.clone()
        };
        let api = format!("STREAM.MSG.GET.{}", part.stream);
        match self
            .api_raw::<StoredGet>(
                &api,
                &Req {
                    seq: sequence,
                    next_by_subj: &filter,
                },
            )
            .await?
        {
            Ok(got) => self.claimed(got, &api).map(Some),
            Err(e) if e.error_code() == ErrorCode::NO_MESSAGE_FOUND => Ok(None),
            Err(e) if e.error_code() == ErrorCode::STREAM_NOT_FOUND => {
                Err(self.unknown_after_delete(topic))
            }
            Err(e) => Err(js_error(&api, &e)),
        }
    }

    /// The batch at `offset` again, for a retried claim.
    async fn claimed_again(
        &self,
        part: &PartInfo,
        topic: &str,
        offset: u64,
    ) -> Result<Claimed, ClientError> {
        #[derive(serde::Serialize)]
        struct Req {
            seq: u64,
        }
        let sequence = NatsOffset::decode(offset).sequence;
        let api = format!("STREAM.MSG.GET.{}", part.stream);
        let gone = match self
            .api_raw::<StoredGet>(&api, &Req { seq: sequence })
            .await?
        {
            Ok(got) => {
                let claimed = self.claimed(got, &api)?;
                if claimed.offset == offset {
                    return Ok(claimed);
                }
                format!("holds a batch at {}", claimed.offset)
            }
            Err(e) if e.error_code() == ErrorCode::NO_MESSAGE_FOUND => "is gone".to_owned(),
            Err(e) if e.error_code() == ErrorCode::STREAM_NOT_FOUND => {
                return Err(self.unknown_after_delete(topic));
            }
            Err(e) => return Err(js_error(&api, &e)),
        };
        let info = self
            .stream_info(&part.stream)
            .await?
            .ok_or_else(|| self.unknown_after_delete(topic))?;
        let (log_start, high_watermark) = bounds(&info.state);
        Err(ClientError::OffsetOutOfRange {
            log_start,
            high_watermark,
            message: format!(
                "nats: this claim id was given the batch at {offset}, but message {sequence} \
                 of {} {gone} (retention or compaction)",
                part.stream
            ),
        })
    }

    /// A stored message as the claimed batch the broker would hand out.
    fn claimed(&self, got: StoredGet, api: &str) -> Result<Claimed, ClientError> {
        let msg = stored(got.message, api)?;
        if msg.sequence == 0 || msg.sequence > MAX_SEQUENCE {
            return Err(ClientError::Protocol(
                hermit_protocol::WireError::InvalidField {
                    field: "stream sequence",
                    value: msg.sequence,
                },
            ));
        }
        let meta = meta(|name| msg.headers.get(name).map(|v| v.as_str()));
        let count = meta.as_ref().map_or(1, |m| m.count);
        let offset = NatsOffset::batch_base(msg.sequence, count);
        let mut batch = BytesMut::new();
        append_batch(&mut batch, offset, meta.as_ref(), &msg.payload)?;
        Ok(Claimed {
            offset,
            next: NatsOffset::sequence_start(msg.sequence + 1),
            batch: batch.freeze(),
        })
    }
}

/// A message `STREAM.MSG.GET` answered with, decoded (base64 payload and
/// headers).
fn stored(
    raw: async_nats::jetstream::stream::RawMessage,
    api: &str,
) -> Result<StreamMessage, ClientError> {
    StreamMessage::try_from(raw).map_err(|e| ClientError::Broker {
        status: Status::CorruptData,
        message: format!("nats: {api}: the message does not decode: {e}"),
    })
}
