//! Produce over NATS: one batch is one message, published with its batch
//! header as message headers; the publish ack gives its base offset.

use std::sync::Arc;

use async_nats::HeaderMap;
use async_nats::jetstream;
use async_nats::jetstream::context::{Publish, PublishError, PublishErrorKind};
use bytes::Bytes;
use hermit_protocol::{Ack, Status};
use tokio::sync::OwnedSemaphorePermit;

use super::message;
use super::names::PartInfo;
use super::transport::{Nats, NatsLink, NatsPartition};
use crate::error::ClientError;
use crate::options::topic_name;
use crate::transport::contract::BatchId;
use crate::transport::nats_offset::{MAX_SEQUENCE, NatsOffset};
use crate::transport::reply::{Reply, ReplyTo};

impl NatsLink {
    /// Publish one batch; its answer goes to `reply` (from a small task
    /// awaiting the JetStream ack). `id` lets JetStream drop a resend of a
    /// batch it already stored.
    pub(super) async fn publish_batch(
        &self,
        partition: &NatsPartition,
        batch: &Bytes,
        id: BatchId,
        reply: ReplyTo,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), ClientError> {
        let n = &self.nats;
        // Before anything else: a refused batch creates no topic either.
        n.check_ack(partition.ack)?;
        let part = n.partition(&partition.topic, partition.partition).await?;
        let out = message::outgoing(batch)?;
        let count = out.count;
        let subject = part.subject_for(&partition.topic, partition.partition, &out.key);
        let mut headers = HeaderMap::new();
        for (k, v) in out.headers {
            headers.insert(k, v);
        }
        headers.insert("Nats-Msg-Id", format!("{:016x}-{}", id.producer, id.seq));
        n.check_size(&subject, &headers, out.payload.len())?;
        let ack =
            n.js.send_publish(
                subject,
                Publish::build().payload(out.payload).headers(headers),
            )
            .await
            .map_err(|e| n.publish_error(&e))?;
        let nats = n.clone();
        let epoch = self.epoch;
        let mut epoch_changed = n.epoch_changed.clone();
        tokio::spawn(async move {
            // The ack of a publish written to a connection that dropped may
            // never come: fail it at once rather than after the request
            // timeout. The producer resends it under the same id, and
            // JetStream drops the copy if the first one was stored.
            let dropped = async {
                while *epoch_changed.borrow_and_update() == epoch {
                    if epoch_changed.changed().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
            };
            let result = tokio::select! {
                r = ack.into_future() => nats.publish_result(&part, count, r),
                () = dropped => Err(nats.lost("the connection dropped before the ack")),
            };
            drop(permit);
            reply.deliver(result);
        });
        Ok(())
    }
}

impl Nats {
    /// Append one batch to a partition and wait for its ack (`Client::produce`).
    pub(super) async fn produce_batch(
        &self,
        topic: &str,
        partition: u32,
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        topic_name(topic)?;
        self.check_ack(ack)?;
        let topic: Arc<str> = Arc::from(topic);
        let part = self.partition(&topic, partition).await?;
        let out = message::outgoing(&batch)?;
        let count = out.count;
        let subject = part.subject_for(&topic, partition, &out.key);
        let mut headers = HeaderMap::new();
        for (k, v) in out.headers {
            headers.insert(k, v);
        }
        self.check_size(&subject, &headers, out.payload.len())?;
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| ClientError::Closed)?;
        let ack = self
            .js
            .send_publish(
                subject,
                Publish::build().payload(out.payload).headers(headers),
            )
            .await
            .map_err(|e| self.publish_error(&e))?;
        match self.publish_result(&part, count, ack.await)? {
            Reply::Produce { base_offset } => Ok(base_offset),
            _ => unreachable!("publish_result answers Produce"),
        }
    }

    /// Whether a produce asking for `ack` may be sent. JetStream's publish
    /// ack means "stored" (on a quorum of replicas), not "fsynced": a file
    /// store syncs every `sync_interval` (2 minutes by default), and what
    /// the servers run is invisible to a client. So a durable ack is given
    /// only on the operator's word ([`NatsOptions::servers_sync_every_write`])
    /// and is otherwise refused with `NotDurable` — the broker's answer when
    /// it runs `fsync = never` — rather than claimed.
    ///
    /// [`NatsOptions::servers_sync_every_write`]: crate::NatsOptions::servers_sync_every_write
    pub(super) fn check_ack(&self, ack: Ack) -> Result<(), ClientError> {
        if ack == Ack::Durable && !self.opts.servers_sync_every_write {
            return Err(ClientError::Broker {
                status: Status::NotDurable,
                message: format!(
                    "{}: a durable ack was asked for, but a NATS JetStream server acknowledges \
                     a publish before it syncs it to disk (every 2 minutes unless it runs \
                     `jetstream {{ sync_interval: always }}`), and a client cannot see which: \
                     add servers_sync_every_write=true to the nats:// URL if every server \
                     runs sync_interval: always, or ask for written acks (Ack::Written, \
                     --ack written)",
                    self.url
                ),
            });
        }
        Ok(())
    }

    /// A publish ack as the producer's answer: the batch's base offset.
    pub(super) fn publish_result(
        &self,
        part: &PartInfo,
        count: u32,
        result: Result<jetstream::publish::PublishAck, PublishError>,
    ) -> Result<Reply, ClientError> {
        match result {
            Ok(ack) if ack.stream != part.stream => Err(ClientError::Broker {
                status: Status::InvalidRequest,
                message: format!(
                    "nats: the subject {} is stored by stream {}, not {}",
                    part.subject, ack.stream, part.stream
                ),
            }),
            Ok(ack) if ack.sequence > MAX_SEQUENCE || ack.sequence == 0 => Err(
                ClientError::Protocol(hermit_protocol::WireError::InvalidField {
                    field: "stream sequence",
                    value: ack.sequence,
                }),
            ),
            Ok(ack) => Ok(Reply::Produce {
                base_offset: NatsOffset::batch_base(ack.sequence, count),
            }),
            Err(e) => {
                if e.kind() == PublishErrorKind::StreamNotFound {
                    // Check the stream again before the next batch.
                    self.forget_stream(&part.stream);
                }
                Err(self.publish_error(&e))
            }
        }
    }
}
