//! Fetch over NATS: a read goes through the puller (a pull consumer) that
//! stands where it starts, or a new one opened there after the offset is
//! checked against the stream's bounds.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::consumer;

use super::jetstream::bounds;
use super::puller::{self, Puller};
use super::transport::Nats;
use crate::error::ClientError;
use crate::options::topic_name;
use crate::records::FetchResponse;
use crate::transport::nats_offset::NatsOffset;

impl Nats {
    /// Whole batches from `offset` on (`Client::fetch`), through the reader
    /// that stands there or a new one.
    pub(super) async fn fetch_batches(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max_bytes: u32,
        max_wait: Duration,
    ) -> Result<FetchResponse, ClientError> {
        topic_name(topic)?;
        let topic: Arc<str> = Arc::from(topic);
        let part = self.partition(&topic, partition).await?;
        let want = NatsOffset::decode(offset).normalized();
        let mut puller = match self.pullers.take(&topic, partition, want) {
            Some(c) => c,
            None => {
                let info = self
                    .stream_info(&part.stream)
                    .await?
                    .ok_or_else(|| self.unknown_after_delete(&topic))?;
                let (log_start, high_watermark) = bounds(&info.state);
                let first = NatsOffset::decode(log_start).sequence;
                let next = NatsOffset::decode(high_watermark).sequence;
                let past_end = want.sequence > next || (want.sequence == next && want.slot > 0);
                // Compaction removes old messages from the head of the
                // stream: reading from before it is reading from its start
                // (as with the broker, whose log start compaction never moves).
                let compacted_away = part.compacted && want.sequence < first;
                if (want.sequence < first && !compacted_away) || past_end {
                    return Err(ClientError::OffsetOutOfRange {
                        log_start,
                        high_watermark,
                        message: format!(
                            "offset {offset} (sequence {}, slot {}) is outside the stream {}",
                            want.sequence, want.slot, part.stream
                        ),
                    });
                }
                let start = want.sequence.max(if compacted_away { first } else { 0 });
                self.open_puller(&part.stream, start, (log_start, high_watermark))
                    .await?
            }
        };
        let got = puller.read(max_bytes, max_wait).await?;
        let resp = puller::response(topic.clone(), partition, offset, &puller, got)?;
        self.pullers.put(topic, partition, puller);
        Ok(resp)
    }

    /// Open a puller at `start` on `stream`: a pull consumer the server
    /// creates, checked against the configuration asked for.
    pub(super) async fn open_puller(
        &self,
        stream: &str,
        start: u64,
        bounds: (u64, u64),
    ) -> Result<Puller, ClientError> {
        let config = Puller::config(start);
        #[derive(serde::Serialize)]
        struct Create<'a> {
            stream_name: &'a str,
            config: &'a consumer::Config,
        }
        let info: consumer::Info = self
            .api(
                &format!("CONSUMER.CREATE.{stream}"),
                &Create {
                    stream_name: stream,
                    config: &config,
                },
            )
            .await?;
        Puller::open(
            &self.client,
            &self.url,
            stream,
            start,
            bounds,
            &config,
            info,
        )
        .await
    }
}
