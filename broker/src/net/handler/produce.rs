//! Produce: append one batch; answer once it is written, or once an fsync
//! covers it for a durable ack (parked until then), after any throttle.
//! [`append`] is the append both Produce and ConditionalProduce make.

use std::sync::atomic::Ordering;

use hermit_protocol::frame::Produce;
use hermit_protocol::{Ack, Op};
use tokio::time::Instant;

use crate::auth::Action;
use crate::engine::FsyncPolicy;
use crate::engine::StorageError;
use crate::net::access::Access;
use crate::net::pending::{AckBody, PendingAck};
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The Produce handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::Produce;
    type Request<'a> = Produce<'a>;

    fn access<'r>(p: &'r Self::Request<'_>) -> Access<'r> {
        Access::Topic(Action::Produce, p.topic.as_str())
    }

    async fn handle(s: &mut Session, corr: u32, p: Self::Request<'_>) {
        append(s, corr, &p, None).await;
    }
}

/// Append `p`'s batch — at `expected_end` only, for a ConditionalProduce
/// (`Some`) — and answer once it is written or durable as `p.ack` asks,
/// after any throttle.
pub(super) async fn append(s: &mut Session, corr: u32, p: &Produce<'_>, expected_end: Option<u64>) {
    let op = match expected_end {
        None => Op::Produce,
        Some(_) => Op::ConditionalProduce,
    };
    let received = Instant::now();
    let fsync = s.shared.engine.options().fsync;
    if p.ack == Ack::Durable && fsync == FsyncPolicy::Never {
        s.storage_error(corr, op, &StorageError::NotDurable);
        return;
    }
    let Some(part) = s.partition(corr, op, p.topic.as_str(), p.partition).await else {
        return;
    };
    // Inline on the worker: a short lock and a page-cache write;
    // a segment roll inside it also stays here (docs/INTERNALS.md §2).
    let appended = match expected_end {
        None => part.append(p.batch),
        Some(end) => part.append_at(p.batch, end),
    };
    let a = match appended {
        Ok(a) => a,
        Err(e) => return s.storage_error(corr, op, &e),
    };
    let metrics = &s.shared.metrics;
    metrics.produce_batches.fetch_add(1, Ordering::Relaxed);
    metrics
        .produce_bytes
        .fetch_add(p.batch.len() as u64, Ordering::Relaxed);
    let not_before = s.throttle_produce(p.batch.len());
    let need = if p.ack == Ack::Written {
        0
    } else {
        a.next_offset
    };
    let body = match expected_end {
        None => AckBody::Produce {
            base_offset: a.base_offset,
        },
        Some(_) => AckBody::ConditionalProduce {
            base_offset: a.base_offset,
        },
    };
    if not_before.is_none() && part.synced_offset() >= need {
        s.shared
            .metrics
            .produce_latency
            .observe_duration(received.elapsed());
        s.respond(corr, &body.response());
    } else {
        s.acks.push_back(PendingAck {
            correlation_id: corr,
            partition: part,
            need,
            not_before,
            body,
            received,
        });
    }
}
