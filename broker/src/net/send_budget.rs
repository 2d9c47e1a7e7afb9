//! The send budget (`send_budget_bytes`): bytes of answers every connection
//! together may hold queued, not yet written to their clients.
//!
//! A connection charges what it queues and gives it back as it is written
//! (or when it closes). It takes up a request only while its own queue is
//! under `max_send_queue_bytes` and the budget has room, so a client that
//! sends requests and never reads their answers holds at most its own cap
//! (plus one answer), and a few such clients together at most the budget
//! (plus one answer each): the rest wait for room, and the write-stall
//! deadline closes the clients that never read.

use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// The bytes of answers queued by every connection of a server.
#[derive(Debug)]
pub(crate) struct SendBudget {
    used: AtomicUsize,
    limit: usize,
    /// Woken when bytes are given back while the budget is full.
    room: Notify,
}

impl SendBudget {
    /// A budget of `limit` bytes.
    pub(crate) fn new(limit: u64) -> SendBudget {
        SendBudget {
            used: AtomicUsize::new(0),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            room: Notify::new(),
        }
    }

    /// Count `n` bytes queued.
    #[inline]
    pub(crate) fn charge(&self, n: usize) {
        self.used.fetch_add(n, Ordering::Relaxed);
    }

    /// Give back `n` bytes written (or dropped).
    #[inline]
    pub(crate) fn give(&self, n: usize) {
        if n == 0 {
            return;
        }
        let before = self.used.fetch_sub(n, Ordering::AcqRel);
        if before >= self.limit && before - n < self.limit {
            self.room.notify_waiters();
        }
    }

    /// Whether no new request may be taken up now.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.used.load(Ordering::Acquire) >= self.limit
    }

    /// Bytes queued now, by every connection.
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Wait until the budget has room (at once if it has).
    pub(crate) async fn room(&self) {
        loop {
            // Registered before the check, so a give in between is not missed.
            let mut notified = pin!(self.room.notified());
            notified.as_mut().enable();
            if !self.is_full() {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waiters_wake_when_bytes_are_given_back_below_the_limit() {
        let b = std::sync::Arc::new(SendBudget::new(100));
        b.charge(60);
        assert!(!b.is_full());
        b.charge(60);
        assert!(b.is_full());
        let waiter = tokio::spawn({
            let b = b.clone();
            async move { b.room().await }
        });
        tokio::task::yield_now().await;
        b.give(10);
        assert!(b.is_full(), "110 of 100: still full");
        assert!(!waiter.is_finished());
        b.give(20);
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .expect("woken once under the limit")
            .unwrap();
        assert_eq!(b.used(), 90);
    }
}
