//! Fetch: whole batches from an offset, as a long poll — answered at once
//! when there is data (its bytes follow the header by `sendfile` or a
//! copy, see `net::outbox`), else parked until data arrives or its wait is
//! over; held back by the caller's `fetch_bytes_per_sec`.
//!
//! A fetch with `min_bytes > 1` is *held* (parked) while fewer bytes of
//! whole batches are there, until they are, or its `min_wait_ms` passes
//! with some data there, or its `max_wait_ms` passes. Each high-watermark
//! move wakes it; it then counts the bytes that arrived with
//! [`Partition::grown_since`] (a lock and a subtraction) and reads again
//! only when the count is reached or a wait is over.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hermit_protocol::{Op, Status};
use hermit_protocol::frame::{self, Fetch};
use tokio::time::Instant;

use crate::auth::Action;
use crate::engine::{Partition, Served, StorageError};
use crate::net::access::Access;
use crate::net::pending::{Parked, PendingFetch, Waiter};
use crate::net::quota;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The Fetch handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::Fetch;
    type Request<'a> = Fetch<'a>;

    fn access<'r>(f: &'r Self::Request<'_>) -> Access<'r> {
        Access::Topic(Action::Consume, f.topic.as_str())
    }

    async fn handle(s: &mut Session, corr: u32, f: Self::Request<'_>) {
        let received = Instant::now();
        let Some(part) = s
            .partition(corr, Op::Fetch, f.topic.as_str(), f.partition)
            .await
        else {
            return;
        };
        let cap = s.shared.options.idle_timeout_ms;
        let wait = u64::from(f.max_wait_ms).min(cap);
        let deadline = Instant::now() + Duration::from_millis(wait);
        let min_wait = u64::from(f.min_wait_ms).min(wait);
        // A WebSocket carries each answer as one message, assembled in
        // memory: ask for no more than its largest frame holds.
        let max_bytes = f.max_bytes.min(records_room(s).unwrap_or(u32::MAX));
        let pending = PendingFetch {
            correlation_id: corr,
            partition: part,
            offset: f.offset,
            max_bytes,
            // Never wait for more than one answer carries.
            need: f.min_bytes.min(max_bytes).max(1),
            deadline,
            min_deadline: (received + Duration::from_millis(min_wait)).min(deadline),
            held: None,
            received,
            parked: None,
            waiter: None,
        };
        attempt_fetch(s, pending).await;
    }
}

/// Read from a partition for a fetch: the engine verifies an old segment
/// first if needed, off the async workers.
async fn read(
    s: &mut Session,
    part: &Arc<Partition>,
    offset: u64,
    max_bytes: u32,
) -> Result<Served, StorageError> {
    s.shared
        .engine
        .read(part, offset, max_bytes, &mut s.scratch)
        .await
}

/// Over `fetch_bytes_per_sec`: park the fetch until the bucket allows it
/// (bounded by max_in_flight, like every request in flight) and give
/// `None`; else give it back.
fn throttle(s: &mut Session, mut f: PendingFetch) -> Option<PendingFetch> {
    let who = s.who.principal();
    let delay = s.shared.quotas.fetch_delay(who);
    if delay.is_zero() || s.closing.is_some() {
        return Some(f);
    }
    s.shared
        .metrics
        .fetch_throttled
        .fetch_add(1, Ordering::Relaxed);
    s.shared.quotas.note_throttled(who, quota::Direction::Fetch);
    tracing::debug!(target: "audit", peer = %s.peer, who = %s.who, delay_ms = delay.as_millis() as u64, "fetch throttled: fetch_bytes_per_sec exceeded");
    let tx = s.wake_tx.clone();
    let corr = f.correlation_id;
    f.waiter = Some(Waiter::spawn(async move {
        tokio::time::sleep(delay).await;
        let _ = tx.send(corr);
    }));
    s.fetches.push(f);
    None
}

/// Answer a fetch if there is data (for a held fetch: enough, or its
/// `min_wait_ms` is over) or its wait is over; otherwise park it and start
/// a waiter that wakes the connection when the partition's high watermark
/// moves or the deadline passes.
async fn attempt_fetch(s: &mut Session, f: PendingFetch) {
    let Some(mut f) = throttle(s, f) else {
        return;
    };
    let now = Instant::now();
    let waiting = f.deadline > now && s.closing.is_none();
    // Subscribe before reading, so data arriving in between is not missed.
    let mut rx = waiting.then(|| f.partition.subscribe());
    if let (Some(_), Some((have, tail))) = (&rx, f.held)
        && let Some(grown) = f.partition.grown_since(tail)
    {
        // Held for more bytes: count what arrived without reading again.
        let there = have.saturating_add(grown);
        if there < u64::from(f.need) && (there == 0 || now < f.min_deadline) {
            if let Some(rx) = rx.take() {
                park(s, f, rx, there > 0);
            }
            return;
        }
    }
    match read(s, &f.partition.clone(), f.offset, f.max_bytes).await {
        Ok(Served {
            body: Some(body),
            ..
        }) if records_room(s).is_some_and(|room| body.len() > u64::from(room)) => {
            // Over a WebSocket, never an answer larger than its largest
            // message: that would be assembled whole in memory (docs/SECURITY.md).
            // Only a batch larger than that gets here (a read returns at
            // least one whole batch); the consumer is told and stays.
            let msg = format!(
                "the batch at offset {} is {} bytes, more than one message of this \
                 WebSocket holds ({} bytes of records, from ws_max_message): fetch it \
                 over TCP, or raise ws_max_message",
                f.offset,
                body.len(),
                records_room(s).unwrap_or(0),
            );
            s.shared.metrics.fetch_too_large_for_ws.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(peer = %s.peer, who = %s.who, "{msg}");
            s.error(
                f.correlation_id,
                Op::Fetch as u8,
                Status::PayloadTooLarge,
                &msg,
                None,
            );
            fetch_answered(s, &f);
        }
        Ok(Served {
            body: Some(body),
            high_watermark,
            log_start,
            tail,
        }) => {
            let len = body.len();
            // Short of min_bytes, and only appends can add to it.
            let short = len < u64::from(f.need) && tail.reaches_end;
            if short
                && now < f.min_deadline
                && let Some(rx) = rx.take()
                && under_parked_limit(s)
            {
                f.held = Some((len, tail));
                park(s, f, rx, true);
                return;
            }
            held_answered(s, &f, !short);
            let header =
                frame::encode_fetch_header(f.correlation_id, high_watermark, log_start, len as u32);
            s.shared
                .metrics
                .fetch_responses
                .fetch_add(1, Ordering::Relaxed);
            s.shared.quotas.charge_fetch(s.who.principal(), len);
            s.out.push_body(&header, body);
            fetch_answered(s, &f);
        }
        Ok(Served {
            body: None,
            high_watermark,
            log_start,
            tail,
        }) => match rx.take() {
            Some(rx) if under_parked_limit(s) => {
                f.held = Some((0, tail));
                park(s, f, rx, false);
            }
            _ => {
                held_answered(s, &f, false);
                let header =
                    frame::encode_fetch_header(f.correlation_id, high_watermark, log_start, 0);
                s.out.push_frame(|b| b.extend_from_slice(&header));
                fetch_answered(s, &f);
            }
        },
        Err(e) => s.storage_error(f.correlation_id, Op::Fetch, &e),
    }
}

/// Whether one more fetch may park; if not, it is counted and logged, and
/// the caller answers it now with what there is.
fn under_parked_limit(s: &Session) -> bool {
    let max = s.shared.options.max_parked_fetches;
    if s.fetches.len() < max as usize {
        return true;
    }
    s.shared
        .metrics
        .fetches_not_parked
        .fetch_add(1, Ordering::Relaxed);
    tracing::debug!(target: "audit", peer = %s.peer, who = %s.who, max, "long poll not parked: max_parked_fetches reached");
    false
}

/// Park `f` with a waiter that wakes the connection when the high
/// watermark moves (`rx`) or at its deadline — with some data there
/// (`has_data`), at its `min_wait_ms` deadline if earlier.
fn park(s: &mut Session, mut f: PendingFetch, mut rx: tokio::sync::watch::Receiver<u64>, has_data: bool) {
    let tx = s.wake_tx.clone();
    let corr = f.correlation_id;
    let wake_at = if has_data {
        f.min_deadline.min(f.deadline)
    } else {
        f.deadline
    };
    f.waiter = Some(Waiter::spawn(async move {
        let _ = tokio::time::timeout_at(wake_at, rx.changed()).await;
        let _ = tx.send(corr);
    }));
    if f.parked.is_none() {
        f.parked = Some(Parked::new(&s.shared.metrics));
    }
    s.fetches.push(f);
}

/// A fetch that asked for `min_bytes > 1` is answered: `filled` if with
/// at least that (or all one answer holds), else its wait ended.
fn held_answered(s: &Session, f: &PendingFetch, filled: bool) {
    if f.need <= 1 {
        return;
    }
    let m = &s.shared.metrics;
    let counter = if filled {
        &m.fetches_held_filled
    } else {
        &m.fetches_held_expired
    };
    counter.fetch_add(1, Ordering::Relaxed);
}

/// Over a WebSocket, the most bytes of records one answer may carry: what
/// its largest message (`ws_max_message`) holds after the answer's header.
/// `None` over TCP and TLS, where answers are streamed, never assembled.
fn records_room(s: &Session) -> Option<u32> {
    let header = (frame::FETCH_RESPONSE_HEADER_LEN - 4) as u32;
    s.arrival.max_frame.map(|m| m.saturating_sub(header))
}

/// A fetch was answered: its latency, unless it waited as a long poll.
fn fetch_answered(s: &Session, f: &PendingFetch) {
    if f.parked.is_none() {
        s.shared
            .metrics
            .fetch_latency
            .observe_duration(f.received.elapsed());
    }
}

/// A parked fetch (`corr`) was woken: its data arrived, its deadline or its
/// throttle passed. Try it again.
pub(in crate::net) async fn retry(s: &mut Session, corr: u32) {
    if let Some(i) = s.fetches.iter().position(|f| f.correlation_id == corr) {
        let f = s.fetches.swap_remove(i);
        attempt_fetch(s, f).await;
    }
}
