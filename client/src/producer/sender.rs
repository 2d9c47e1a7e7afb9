//! The sender task: takes closed batches, writes their header and CRC in
//! place, and submits them partition by partition on the transport's link,
//! as many in flight as allowed; answers come back on its channel
//! (`retry` handles them).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use bytes::Bytes;
use hermit_protocol::record::{
    CRC_AT, HEADER_LEN, RecordHeader, TIMESTAMP_AT, compute_crc, now_ns,
};
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio::time::Instant;

use super::accumulator::OpenBatch;
use super::delivery::BatchOutcome;
use super::shared::Shared;
use crate::error::ClientError;
use crate::transport::any::{Link, PartitionHandle};
use crate::transport::contract::{BatchId, BatchLink, SubmitError, Transport};
use crate::transport::reply::{Completion, ReplyTo, Token};

/// A batch ready to go: header and CRC written.
pub(super) struct Ready {
    pub(super) seq: u64,
    pub(super) outcome: Arc<BatchOutcome>,
    pub(super) body: Bytes,
    pub(super) counted: usize,
    pub(super) created: Instant,
}

/// A batch sent and not answered yet.
pub(super) struct Flight {
    pub(super) sent_no: u64,
    pub(super) ready: Ready,
}

/// The sender task's view of one partition.
pub(super) struct PartQ {
    pub(super) topic: Arc<str>,
    /// The transport's handle, made once: every batch of the partition is
    /// submitted with it.
    pub(super) handle: PartitionHandle,
    /// Waiting to be sent, in order (retries go back to the front).
    pub(super) queue: VecDeque<Ready>,
    /// Sent, not answered, in send order.
    pub(super) in_flight: VecDeque<Flight>,
    /// The connection the batches in flight went on.
    pub(super) conn_id: u64,
    pub(super) next_sent_no: u64,
    /// Retriable failures waiting for the partition's other batches in flight.
    pub(super) failed: Vec<(u64, Ready, ClientError)>,
    /// Highest send number acknowledged since the partition last settled.
    pub(super) max_ok: Option<u64>,
    pub(super) retry_at: Option<Instant>,
    pub(super) runnable: bool,
    /// The topic's partition count is known (no refresh to trigger).
    pub(super) meta_settled: bool,
}

/// The sender task: closes lingered batches, finishes them (header and
/// CRC), submits them per partition in order, and handles their answers.
pub(super) struct Sender {
    pub(super) shared: Arc<Shared>,
    pub(super) parts: Vec<PartQ>,
    pub(super) index: HashMap<(Arc<str>, u32), usize>,
    pub(super) runnable: VecDeque<usize>,
    pub(super) in_flight: usize,
    pub(super) conn: Option<Link>,
    /// After a failed connect, no new attempt before this.
    pub(super) conn_retry_at: Option<Instant>,
    pub(super) last_error: Option<ClientError>,
    pub(super) waiting_permit: bool,
    pub(super) permit: Option<OwnedSemaphorePermit>,
    pub(super) done_tx: mpsc::UnboundedSender<Completion>,
    pub(super) done_rx: mpsc::UnboundedReceiver<Completion>,
    /// Finished batches to report under one lock.
    pub(super) finished: Vec<(Ready, Result<u64, ClientError>)>,
    /// Partitions whose topic metadata may need a refresh.
    pub(super) check_meta: Vec<usize>,
}

impl Sender {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        Sender {
            shared,
            parts: Vec::new(),
            index: HashMap::new(),
            runnable: VecDeque::new(),
            in_flight: 0,
            conn: None,
            conn_retry_at: None,
            last_error: None,
            waiting_permit: false,
            permit: None,
            done_tx,
            done_rx,
            finished: Vec::new(),
            check_meta: Vec::new(),
        }
    }

    /// Queue partition `pidx` to be pumped, if it has batches waiting.
    pub(super) fn mark(&mut self, pidx: usize) {
        let p = &mut self.parts[pidx];
        if !p.runnable && !p.queue.is_empty() {
            p.runnable = true;
            self.runnable.push_back(pidx);
        }
    }

    fn part(&mut self, topic: &Arc<str>, partition: u32) -> usize {
        if let Some(&i) = self.index.get(&(topic.clone(), partition)) {
            return i;
        }
        let handle = self
            .shared
            .client
            .transport()
            .partition_handle(topic, partition, self.shared.opts.ack)
            .expect("invariant: topic names were validated by send");
        let i = self.parts.len();
        self.parts.push(PartQ {
            topic: topic.clone(),
            handle,
            queue: VecDeque::new(),
            in_flight: VecDeque::new(),
            conn_id: 0,
            next_sent_no: 0,
            failed: Vec::new(),
            max_ok: None,
            retry_at: None,
            runnable: false,
            meta_settled: false,
        });
        self.index.insert((topic.clone(), partition), i);
        i
    }

    /// Write the header and CRC into a closed batch; the buffer becomes the frame body.
    fn finalize(open: OpenBatch, timestamp_ns: u64) -> Ready {
        let mut buf = open.buf;
        let payload_len = buf.len() - HEADER_LEN - open.key_len;
        let header = RecordHeader {
            base_offset: 0,
            crc: 0,
            timestamp_ns,
            // Both fit: keys are checked by the broker's limit (far below 4 GiB)
            // and batch_bytes bounds the payload.
            key_len: u32::try_from(open.key_len).unwrap_or(u32::MAX),
            payload_len: u32::try_from(payload_len).unwrap_or(u32::MAX),
            record_count: open.count,
        };
        buf[..HEADER_LEN].copy_from_slice(&header.encode());
        let crc = compute_crc(&buf).expect("invariant: the buffer holds a whole header");
        buf[CRC_AT..TIMESTAMP_AT].copy_from_slice(&crc.to_be_bytes());
        Ready {
            seq: open.seq,
            outcome: open.outcome,
            body: Bytes::from(buf),
            counted: open.counted,
            created: open.created,
        }
    }

    /// The task: until the producer is closed and everything is finished.
    pub(super) async fn run(mut self) {
        let linger = self.shared.opts.linger;
        loop {
            // Intake: close what is due, take closed batches.
            let (closed, closing, linger_at, dropped) = {
                let mut st = self.shared.lock();
                let now = Instant::now();
                let all = st.book.close_all || st.book.closing;
                let mut dropped = false;
                if all || st.book.earliest_linger.is_some_and(|t| t <= now) {
                    dropped = st.close_due(now, linger, all);
                    st.book.close_all = false;
                }
                (
                    std::mem::take(&mut st.book.closed),
                    st.book.closing,
                    st.book.earliest_linger,
                    dropped,
                )
            };
            if dropped {
                // No ack will come for a dropped batch: its space and its
                // place in `outstanding` were released just now.
                self.shared.progress.notify_waiters();
                self.shared.space.notify_waiters();
            }
            if !closed.is_empty() {
                let ts = now_ns();
                for s in closed {
                    let pidx = self.part(&s.topic, s.open.partition);
                    let ready = Self::finalize(s.open, ts);
                    self.parts[pidx].queue.push_back(ready);
                    self.mark(pidx);
                }
            }
            self.pump().await;
            if closing && self.idle() {
                let mut st = self.shared.lock();
                if st.book.outstanding.is_empty() && st.book.closed.is_empty() {
                    st.book.finished = true;
                    drop(st);
                    self.shared.progress.notify_waiters();
                    self.shared.space.notify_waiters();
                    return;
                }
            }
            let timer = [linger_at, self.conn_retry_at, self.next_retry()]
                .into_iter()
                .flatten()
                .min();
            let permits = self.shared.client.transport().permits().clone();
            tokio::select! {
                _ = self.shared.wake.notified() => {}
                Some(c) = self.done_rx.recv() => {
                    self.complete(c);
                    while let Ok(c) = self.done_rx.try_recv() {
                        self.complete(c);
                    }
                    self.report();
                }
                _ = tokio::time::sleep_until(timer.unwrap_or_else(Instant::now)), if timer.is_some() => {
                    self.on_timer();
                }
                p = permits.acquire_owned(), if self.waiting_permit => {
                    self.waiting_permit = false;
                    self.permit = p.ok();
                }
            }
        }
    }

    fn idle(&self) -> bool {
        self.in_flight == 0
            && self
                .parts
                .iter()
                .all(|p| p.queue.is_empty() && p.failed.is_empty())
    }

    fn next_retry(&self) -> Option<Instant> {
        self.parts.iter().filter_map(|p| p.retry_at).min()
    }

    fn on_timer(&mut self) {
        let now = Instant::now();
        if self.conn_retry_at.is_some_and(|t| t <= now) {
            self.conn_retry_at = None;
        }
        for i in 0..self.parts.len() {
            if self.parts[i].retry_at.is_some_and(|t| t <= now) {
                self.parts[i].retry_at = None;
                self.mark(i);
            }
        }
    }

    /// Send batches while the in-flight limit, the connection and each
    /// partition's ordering rules allow.
    async fn pump(&mut self) {
        while self.in_flight < self.shared.opts.max_in_flight && !self.waiting_permit {
            let Some(&pidx) = self.runnable.front() else {
                return;
            };
            let now = Instant::now();
            if self.conn_retry_at.is_some_and(|t| t > now) {
                return;
            }
            {
                let p = &self.parts[pidx];
                let blocked = p.queue.is_empty()
                    || !p.failed.is_empty()
                    || p.retry_at.is_some_and(|t| t > now);
                if blocked {
                    // Re-marked when what blocks it changes.
                    self.runnable.pop_front();
                    self.parts[pidx].runnable = false;
                    continue;
                }
            }
            let conn = match self.conn.as_ref().filter(|c| c.is_usable()) {
                Some(c) => c.clone(),
                None => match self.shared.client.transport().link().await {
                    Ok(c) => {
                        self.conn = Some(c.clone());
                        c
                    }
                    Err(e) => {
                        tracing::debug!(error = %e, "producer cannot connect; will retry");
                        self.conn = None;
                        self.conn_retry_at = Some(Instant::now() + self.shared.opts.retry_backoff);
                        self.last_error = Some(e);
                        self.expire_queued();
                        return;
                    }
                },
            };
            if !self.parts[pidx].in_flight.is_empty() && self.parts[pidx].conn_id != conn.id() {
                // Batches of this partition are still out on an older
                // connection: wait for their outcome before sending more.
                self.runnable.pop_front();
                self.parts[pidx].runnable = false;
                continue;
            }
            let permit = match self.permit.take() {
                Some(p) => p,
                None => match self
                    .shared
                    .client
                    .transport()
                    .permits()
                    .clone()
                    .try_acquire_owned()
                {
                    Ok(p) => p,
                    Err(_) => {
                        self.waiting_permit = true;
                        return;
                    }
                },
            };
            self.runnable.pop_front();
            let p = &mut self.parts[pidx];
            p.runnable = false;
            let ready = p.queue.pop_front().expect("invariant: checked non-empty");
            let token = Token(pidx as u64, ready.seq);
            let reply = ReplyTo::Channel {
                tx: self.done_tx.clone(),
                token,
            };
            let id = BatchId {
                producer: self.shared.producer_id,
                seq: ready.seq,
            };
            let sent = conn.submit(&p.handle, &ready.body, id, reply, permit).await;
            let p = &mut self.parts[pidx];
            match sent {
                Ok(()) => {
                    p.conn_id = conn.id();
                    let sent_no = p.next_sent_no;
                    p.next_sent_no += 1;
                    p.in_flight.push_back(Flight { sent_no, ready });
                    self.in_flight += 1;
                }
                Err(SubmitError::Refused(e)) => {
                    self.finished.push((ready, Err(e)));
                    self.report();
                }
                Err(SubmitError::Lost(e)) => {
                    // The connection died under us: put the batch back and retry on a new one.
                    p.queue.push_front(ready);
                    self.last_error = Some(e);
                    self.conn = None;
                }
                Err(SubmitError::Unavailable(e)) => {
                    // Put the batch back, and wait before asking for a link
                    // again rather than spin on the same error.
                    p.queue.push_front(ready);
                    self.last_error = Some(e);
                    self.conn = None;
                    self.conn_retry_at = Some(Instant::now() + self.shared.opts.retry_backoff);
                    self.expire_queued();
                }
            }
            self.mark(pidx);
        }
    }
}
