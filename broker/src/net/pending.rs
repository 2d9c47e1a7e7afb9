//! Requests a connection has taken up but not answered yet: acks waiting
//! for the fsync that makes their write durable (or for a throttle), and
//! long polls waiting for data or their deadline.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use hermit_protocol::Op;
use hermit_protocol::frame::{Claimed, ResponseBody};
use tokio::time::Instant;

use super::metrics::Metrics;
use crate::engine::{Partition, Tail};

/// What an ack waits for and answers with.
pub(super) enum AckBody {
    Produce {
        base_offset: u64,
    },
    ConditionalProduce {
        base_offset: u64,
    },
    Commit,
    /// A claim, answered once the claim position that hands this batch out
    /// is durable.
    Claim {
        offset: u64,
        next: u64,
        batch: Bytes,
    },
}

impl AckBody {
    /// The op it answers.
    pub(super) fn op(&self) -> Op {
        match self {
            AckBody::Produce { .. } => Op::Produce,
            AckBody::ConditionalProduce { .. } => Op::ConditionalProduce,
            AckBody::Commit => Op::Commit,
            AckBody::Claim { .. } => Op::Claim,
        }
    }

    /// The answer.
    pub(super) fn response(&self) -> ResponseBody<'_> {
        match self {
            AckBody::Produce { base_offset } => ResponseBody::Produce {
                base_offset: *base_offset,
            },
            AckBody::ConditionalProduce { base_offset } => ResponseBody::ConditionalProduce {
                base_offset: *base_offset,
            },
            AckBody::Commit => ResponseBody::Commit,
            AckBody::Claim {
                offset,
                next,
                batch,
            } => ResponseBody::Claim(Claimed {
                offset: *offset,
                next: *next,
                batch,
            }),
        }
    }
}

/// A produce or commit that was carried out, waiting to be answered.
pub(super) struct PendingAck {
    pub(super) correlation_id: u32,
    pub(super) partition: Arc<Partition>,
    /// Durable once the partition's synced offset reaches this.
    pub(super) need: u64,
    /// Held until then by `produce_bytes_per_sec` (throttled, never dropped).
    pub(super) not_before: Option<Instant>,
    pub(super) body: AckBody,
    /// When the request was taken up (produce latency).
    pub(super) received: Instant,
}

/// A fetch waiting for data at its offset (or for `need` bytes of it),
/// its deadline or its fetch throttle.
pub(super) struct PendingFetch {
    pub(super) correlation_id: u32,
    pub(super) partition: Arc<Partition>,
    pub(super) offset: u64,
    pub(super) max_bytes: u32,
    /// Bytes of whole batches to wait for: `min(min_bytes, max_bytes)`,
    /// at least 1 (1: answered as soon as anything is there).
    pub(super) need: u32,
    /// Answered at its wait's end (`max_wait_ms`), with what there is.
    pub(super) deadline: Instant,
    /// Once some data is there but fewer than `need` bytes: answered at
    /// this (`received + min_wait_ms`, no later than `deadline`).
    pub(super) min_deadline: Instant,
    /// Held for `need` bytes: the bytes there at its last read, and where
    /// the log's visible end stood then (so a wake-up counts what arrived
    /// without reading again).
    pub(super) held: Option<(u64, Tail)>,
    /// When the request was taken up (fetch latency).
    pub(super) received: Instant,
    /// Counted in `fetches_parked` while it waits for data (kept once
    /// parked: its answer's latency is then a long poll's wait, not counted).
    pub(super) parked: Option<Parked>,
    /// The task that wakes the connection for it (data arrived, deadline,
    /// throttle over), aborted when the fetch goes: a long poll never
    /// outlives its connection.
    pub(super) waiter: Option<Waiter>,
}

/// A spawned wake-up task, aborted when dropped.
pub(super) struct Waiter(tokio::task::AbortHandle);

impl Waiter {
    /// Run `wake` as the waiter.
    pub(super) fn spawn(wake: impl std::future::Future<Output = ()> + Send + 'static) -> Waiter {
        Waiter(tokio::spawn(wake).abort_handle())
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// One parked long poll in [`Metrics::fetches_parked`], for as long as it lives.
pub(super) struct Parked(Arc<Metrics>);

impl Parked {
    pub(super) fn new(metrics: &Arc<Metrics>) -> Parked {
        metrics.fetches_parked.fetch_add(1, Ordering::Relaxed);
        Parked(metrics.clone())
    }
}

impl Drop for Parked {
    fn drop(&mut self) {
        self.0.fetches_parked.fetch_sub(1, Ordering::Relaxed);
    }
}
