//! A topic's partition count, looked up when the producer first sees the
//! topic and again after the broker auto-created it.

use std::sync::Arc;
use std::time::Duration;

use hermit_protocol::Status;
use hermit_protocol::record::now_ns;
use tokio::time::Instant;

use super::accumulator::Meta;
use super::shared::Shared;

/// Look up a topic's partition count and record it. `first`: the topic was
/// just seen (senders wait for this); otherwise a refresh after the broker
/// auto-created it. Retriable errors are retried until the delivery timeout.
pub(super) async fn resolve_topic(shared: Arc<Shared>, topic: Arc<str>, first: bool) {
    let started = Instant::now();
    let mut backoff = shared.opts.retry_backoff;
    let meta = loop {
        match shared.client.metadata(Some(&topic)).await {
            Ok(t) => {
                let n = t
                    .iter()
                    .find(|t| *t.name == *topic)
                    .map_or(0, |t| t.partitions.len() as u32);
                break if n == 0 {
                    Meta::Unknown
                } else {
                    Meta::Known(n)
                };
            }
            Err(e) if e.status() == Some(Status::UnknownTopic) => break Meta::Unknown,
            Err(e) if e.is_retriable() && started.elapsed() < shared.opts.delivery_timeout => {
                if shared.lock().book.closing {
                    break Meta::Unknown;
                }
                tracing::debug!(%topic, error = %e, "metadata failed; retrying");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(2));
            }
            Err(e) => {
                tracing::warn!(%topic, error = %e, "no metadata; using partition 0");
                break Meta::Unknown;
            }
        }
    };
    {
        let mut st = shared.lock();
        let mut close_open = false;
        if let Some(acc) = st.topics.get_mut(&topic) {
            acc.refreshing = false;
            let changed = acc.meta != meta;
            if changed && !first {
                tracing::debug!(%topic, ?meta, "partition count changed");
            }
            acc.meta = meta;
            acc.sticky %= acc.partitions();
            if first {
                // Spread producers over partitions from the start.
                acc.sticky =
                    (now_ns() as u32 ^ (Arc::as_ptr(&shared) as usize as u32)) % acc.partitions();
            }
            close_open = changed && !first;
        }
        if close_open {
            // Open batches may sit in partitions the new count assigns differently.
            st.book.close_all = true;
        }
    }
    shared.wake.notify_one();
    shared.topic_ready.notify_waiters();
}
