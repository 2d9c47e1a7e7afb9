//! Conditional produce over NATS: one publish with
//! `Nats-Expected-Last-Sequence`, which the stream checks under its lock
//! (on a cluster: in the replicated write's order) and refuses with error
//! 10071, "wrong last sequence: N", when its last sequence is not the one
//! expected.
//!
//! **The expected end.** Over NATS a batch's first offset depends on its
//! record count (`((s + 1) << 16) − count` for message `s`,
//! [`NatsOffset`]), so the end a producer expects — the offset the batch's
//! first record gets if appended — names the sequence the batch must be
//! stored as, given its count ([`NatsOffset::sequence_of_base`]), and the
//! stream must end one before it. An end no batch of that count can start
//! at (the high watermark, unless the batch holds 65,536 records) cannot
//! be where it lands: it is refused at once, without a publish, with the
//! true end. The end a refusal reports is likewise the offset this batch
//! would get at the end the server reported: `((N + 2) << 16) − count`.
//!
//! **Which end.** The refusal's `N` is the last sequence the server saw as
//! it refused (under the stream's lock; on a cluster, the leader's count
//! of the writes it has proposed), so the end reported was the end right
//! after the refusal, and it differs from the expected one. Reading the
//! stream's state after the refusal instead would give an end that is
//! true later, which may already equal the expected end (a producer that
//! expected an end ahead of the log, overtaken by other producers in
//! between) — an answer that contradicts itself. The stream's state is
//! read only for the log start the refusal also carries, and for the end
//! when the refusal does not say `N`.

use std::sync::Arc;

use async_nats::HeaderMap;
use async_nats::header::{NATS_EXPECTED_LAST_SEQUENCE, NATS_EXPECTED_STREAM};
use async_nats::jetstream;
use async_nats::jetstream::context::{Publish, PublishErrorKind};
use bytes::Bytes;
use hermit_protocol::Status;
use hermit_protocol::frame::ConditionalProduce;

use super::jetstream::{bounds, reported_last_sequence};
use super::message;
use super::names::PartInfo;
use super::transport::Nats;
use crate::error::ClientError;
use crate::transport::nats_offset::{MAX_SEQUENCE, NatsOffset};
use crate::transport::reply::Reply;

impl Nats {
    /// Append the batch only if it gets the offset `expected_end`; its
    /// base offset, or `EndMoved` with the end. Sent once, never retried.
    pub(super) async fn conditional_produce(
        &self,
        c: &ConditionalProduce<'_>,
    ) -> Result<u64, ClientError> {
        let p = &c.produce;
        let (topic, partition) = (p.topic.as_str(), p.partition);
        // Before anything else: a refused batch creates no topic either.
        self.check_ack(p.ack)?;
        let part = self.partition(&Arc::from(topic), partition).await?;
        let batch = Bytes::copy_from_slice(p.batch);
        let out = message::outgoing(&batch)?;
        let count = out.count;
        let Some(sequence) = NatsOffset::sequence_of_base(c.expected_end, count) else {
            return Err(self
                .end_moved(&part, topic, c.expected_end, count, None)
                .await);
        };
        let subject = part.subject_for(topic, partition, &out.key);
        let mut headers = HeaderMap::new();
        for (k, v) in out.headers {
            headers.insert(k, v);
        }
        headers.insert(NATS_EXPECTED_LAST_SEQUENCE, (sequence - 1).to_string());
        // The stream that owns the subject must be the partition's.
        headers.insert(NATS_EXPECTED_STREAM, part.stream.as_str());
        // No `Nats-Msg-Id`: this publish is never resent, and a duplicate
        // answer would be an ack for a batch this call did not append.
        self.check_size(&subject, &headers, out.payload.len())?;
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| ClientError::Closed)?;
        let result = self
            .js
            .send_publish(
                subject,
                Publish::build().payload(out.payload).headers(headers),
            )
            .await
            .map_err(|e| self.publish_error(&e))?
            .await;
        let refusal = match &result {
            Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => {
                std::error::Error::source(e).and_then(|s| s.downcast_ref::<jetstream::Error>())
            }
            _ => None,
        };
        if let Some(refusal) = refusal {
            let reported = reported_last_sequence(refusal).filter(|&n| n != sequence - 1);
            return Err(self
                .end_moved(&part, topic, c.expected_end, count, reported)
                .await);
        }
        match self.publish_result(&part, count, result)? {
            Reply::Produce { base_offset } => Ok(base_offset),
            _ => unreachable!("publish_result answers Produce"),
        }
    }

    /// `EndMoved` for a batch of `count` records that expected
    /// `expected_end`: the end is the offset it would get after the last
    /// sequence the server `reported` as it refused (or, without one, the
    /// stream's last sequence now); the log start is the stream's now, at
    /// most the end.
    async fn end_moved(
        &self,
        part: &PartInfo,
        topic: &str,
        expected_end: u64,
        count: u32,
        reported: Option<u64>,
    ) -> ClientError {
        let info = match self.stream_info(&part.stream).await {
            Ok(Some(info)) => info,
            Ok(None) => return self.unknown_after_delete(topic),
            Err(e) => return e,
        };
        let last = reported.unwrap_or(info.state.last_sequence);
        if last >= MAX_SEQUENCE {
            return ClientError::Protocol(hermit_protocol::WireError::InvalidField {
                field: "stream sequence",
                value: last,
            });
        }
        let end = NatsOffset::batch_base(last + 1, count);
        if end == expected_end {
            // Only without the server's word, read after the refusal: the
            // log has since reached the expected end. Nothing was appended;
            // the same request may succeed now.
            return ClientError::Broker {
                status: Status::StorageError,
                message: format!(
                    "nats: {} refused the conditional produce without saying its last \
                     sequence, and has since reached the expected end {expected_end}: \
                     nothing was appended; ask again",
                    part.stream
                ),
            };
        }
        let (log_start, _) = bounds(&info.state);
        ClientError::EndMoved {
            log_start: log_start.min(end),
            end,
            message: format!(
                "nats: the last message of {} is {last}, so a batch of {count} records \
                 appended now starts at {end}, not {expected_end}",
                part.stream
            ),
        }
    }
}
