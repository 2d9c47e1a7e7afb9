//! What every clone of a [`Producer`](super::Producer) and its sender task
//! share: the client, the options, the buffers behind one lock, and the
//! notifications between them.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

use super::accumulator::{Accumulator, Wake};
use super::options::ProducerOptions;
use crate::client::Client;
// No code path panics while holding these locks except a caller's record
// writer, and a rollback guard restores the batch then.
use crate::lock::lock;

/// What every clone of a producer and its sender task share.
pub(super) struct Shared {
    pub(super) client: Client,
    pub(super) opts: ProducerOptions,
    /// Random id naming this producer's batches to the transport (see
    /// [`BatchId`](crate::transport::contract::BatchId)): NATS JetStream
    /// drops a resent batch it already stored.
    pub(super) producer_id: u64,
    buffers: Mutex<Accumulator>,
    /// Wakes the sender task: a closed batch, a new linger deadline, flush, close.
    pub(super) wake: Notify,
    /// Wakes senders waiting for buffer space.
    pub(super) space: Notify,
    /// Wakes flush(): a batch finished.
    pub(super) progress: Notify,
    /// Wakes senders waiting for a topic's metadata.
    pub(super) topic_ready: Notify,
}

impl Shared {
    /// Shared state for a producer sending through `client`.
    pub(super) fn new(client: Client, opts: ProducerOptions) -> Self {
        Shared {
            client,
            producer_id: rand::random(),
            opts,
            buffers: Mutex::new(Accumulator::new()),
            wake: Notify::new(),
            space: Notify::new(),
            progress: Notify::new(),
            topic_ready: Notify::new(),
        }
    }

    /// The buffers, locked.
    #[inline]
    pub(super) fn lock(&self) -> MutexGuard<'_, Accumulator> {
        lock(&self.buffers)
    }

    /// Wake whom an append asks for (called with the lock held).
    #[inline]
    pub(super) fn wake_after(&self, wake: Wake) {
        if wake.waiters {
            self.progress.notify_waiters();
            self.space.notify_waiters();
        }
        if wake.sender {
            self.wake.notify_one();
        }
    }

    /// Mark the producer closed; the sender task drains and exits.
    pub(super) fn close(&self) {
        self.lock().book.closing = true;
        self.wake.notify_one();
        self.space.notify_waiters();
        self.topic_ready.notify_waiters();
    }
}

/// Closes the producer when the last [`Producer`](super::Producer) clone goes away.
pub(super) struct Handle(pub(super) Arc<Shared>);

impl Drop for Handle {
    fn drop(&mut self) {
        self.0.close();
    }
}
