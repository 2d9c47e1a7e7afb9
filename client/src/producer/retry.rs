//! What happens to a batch once answered: finished (its deliveries
//! resolved, its bytes given back), or, after a retriable failure, resent in
//! its partition's original order once every batch of the partition in
//! flight is answered — unless that would reorder the partition or the
//! delivery timeout has passed.

use tokio::time::Instant;

use super::accumulator::Meta;
use super::sender::Sender;
use super::topics::resolve_topic;
use crate::error::ClientError;
use crate::transport::reply::{Completion, Reply, Token};

impl Sender {
    /// Fail queued batches older than the delivery timeout.
    pub(super) fn expire_queued(&mut self) {
        let limit = self.shared.opts.delivery_timeout;
        let now = Instant::now();
        let err = self.last_error.clone().unwrap_or(ClientError::Timeout {
            what: "delivery",
            after: limit,
        });
        for p in &mut self.parts {
            while p
                .queue
                .front()
                .is_some_and(|r| now.duration_since(r.created) >= limit)
            {
                let r = p.queue.pop_front().expect("invariant: checked Some");
                self.finished.push((r, Err(err.clone())));
            }
        }
        if !self.finished.is_empty() {
            self.report();
        }
    }

    pub(super) fn complete(&mut self, (Token(pidx, seq), result): Completion) {
        let pidx = pidx as usize;
        let Some(p) = self.parts.get_mut(pidx) else {
            return;
        };
        let Some(i) = p.in_flight.iter().position(|f| f.ready.seq == seq) else {
            return;
        };
        let f = p.in_flight.remove(i).expect("invariant: position found");
        self.in_flight -= 1;
        match result {
            Ok(Reply::Produce { base_offset }) => {
                p.max_ok = Some(p.max_ok.map_or(f.sent_no, |m| m.max(f.sent_no)));
                if !p.meta_settled {
                    self.check_meta.push(pidx);
                }
                self.finished.push((f.ready, Ok(base_offset)));
            }
            Ok(other) => {
                tracing::warn!(?other, "produce answered with the wrong kind of response");
                self.finished.push((
                    f.ready,
                    Err(ClientError::Protocol(
                        hermit_protocol::WireError::InvalidField {
                            field: "response op",
                            value: 0,
                        },
                    )),
                ));
            }
            Err(e) if e.is_retriable() => {
                tracing::debug!(topic = %p.topic, error = %e, "batch failed; will resend");
                p.failed.push((f.sent_no, f.ready, e.clone()));
                self.last_error = Some(e);
            }
            Err(e) => self.finished.push((f.ready, Err(e))),
        }
        let p = &mut self.parts[pidx];
        if p.in_flight.is_empty() {
            if !p.failed.is_empty() {
                self.settle(pidx);
            }
            self.parts[pidx].max_ok = None;
        }
        self.mark(pidx);
    }

    /// Every batch in flight to the partition is answered and some failed:
    /// resend the failures in their original order (those that would land
    /// after an already-written later batch, or are too old, fail instead).
    fn settle(&mut self, pidx: usize) {
        let limit = self.shared.opts.delivery_timeout;
        let now = Instant::now();
        let p = &mut self.parts[pidx];
        let mut failed = std::mem::take(&mut p.failed);
        failed.sort_by_key(|(n, _, _)| *n);
        let mut retry = Vec::new();
        for (sent_no, ready, e) in failed {
            let reorder = p.max_ok.is_some_and(|ok| ok > sent_no);
            if reorder {
                tracing::warn!(topic = %p.topic, error = %e, "not resending a failed batch: a later batch of its partition was already written");
                self.finished.push((ready, Err(e)));
            } else if now.duration_since(ready.created) >= limit {
                self.finished.push((ready, Err(e)));
            } else {
                retry.push(ready);
            }
        }
        for r in retry.into_iter().rev() {
            p.queue.push_front(r);
        }
        if !p.queue.is_empty() {
            p.retry_at = Some(now + self.shared.opts.retry_backoff);
        }
    }

    /// Resolve finished batches' outcomes and give their bytes back.
    pub(super) fn report(&mut self) {
        if self.finished.is_empty() {
            return;
        }
        let finished = std::mem::take(&mut self.finished);
        // Deliveries resolve before their batches leave `outstanding`:
        // `flush` returns once `outstanding` is past its mark, and promises
        // that every delivery sent before it is resolved by then.
        let mut done = Vec::with_capacity(finished.len());
        for (r, res) in finished {
            r.outcome.complete(res);
            // The frame was written and answered: nobody else holds it, so
            // its buffer can carry the next batch (see `Book::spare`).
            let spare = r.body.try_into_mut().ok().map(Vec::from);
            done.push((r.seq, r.counted, spare));
        }
        {
            let mut st = self.shared.lock();
            for (seq, counted, spare) in done {
                st.book.buffered -= counted;
                st.book.outstanding.remove(&seq);
                if let Some(buf) = spare {
                    st.book.give_back(buf);
                }
            }
            // A first ack to a topic that did not exist: the broker created
            // it, so its partition count can be learned now.
            for pidx in std::mem::take(&mut self.check_meta) {
                let p = &mut self.parts[pidx];
                let Some(acc) = st.topics.get_mut(&p.topic) else {
                    continue;
                };
                match acc.meta {
                    Meta::Known(_) => p.meta_settled = true,
                    Meta::Unknown if !acc.refreshing => {
                        acc.refreshing = true;
                        tokio::spawn(resolve_topic(self.shared.clone(), p.topic.clone(), false));
                    }
                    _ => {}
                }
            }
        }
        self.shared.space.notify_waiters();
        self.shared.progress.notify_waiters();
    }
}
