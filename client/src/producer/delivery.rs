//! [`Delivery`]: where one record was stored, once its batch is answered.
//! Every record of a batch shares one outcome; a delivery is an
//! `Arc` of it plus the record's index (no allocation, task or channel per
//! record).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};

use crate::error::ClientError;
use crate::lock::lock;

/// Where an acknowledged record was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Delivered {
    /// Partition.
    pub partition: u32,
    /// Offset.
    pub offset: u64,
}

/// The outcome shared by every record of one batch: its base offset or
/// why it failed, once answered.
pub(super) struct BatchOutcome {
    partition: u32,
    /// The batch's base offset, or why it failed. Set once.
    result: OnceLock<Result<u64, ClientError>>,
    /// Tasks awaiting a [`Delivery`] of this batch; a std mutex, never held across an await.
    wakers: Mutex<Vec<Waker>>,
}

impl BatchOutcome {
    pub(super) fn new(partition: u32) -> Self {
        BatchOutcome {
            partition,
            result: OnceLock::new(),
            wakers: Mutex::new(Vec::new()),
        }
    }

    /// Resolve every [`Delivery`] of the batch: its base offset, or why it failed.
    pub(super) fn complete(&self, r: Result<u64, ClientError>) {
        let _ = self.result.set(r);
        let wakers = std::mem::take(&mut *lock(&self.wakers));
        for w in wakers {
            w.wake();
        }
    }
}

/// Resolves to where one record was stored once its batch is acknowledged,
/// or to the error that made the producer give up on it.
///
/// Dropping it does not cancel anything: the record is sent either way.
pub struct Delivery {
    outcome: Arc<BatchOutcome>,
    index: u32,
    /// Where this future's waker sits in the outcome's list, once registered.
    waker_at: Option<usize>,
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Delivery")
            .field("partition", &self.outcome.partition)
            .field("index", &self.index)
            .field("result", &self.try_result())
            .finish()
    }
}

impl Delivery {
    /// The delivery of the record at `index` of the batch `outcome` completes.
    #[inline]
    pub(super) fn new(outcome: Arc<BatchOutcome>, index: u32) -> Self {
        Delivery {
            outcome,
            index,
            waker_at: None,
        }
    }

    /// The partition the record was assigned to.
    pub fn partition(&self) -> u32 {
        self.outcome.partition
    }

    /// The outcome, if known yet.
    pub fn try_result(&self) -> Option<Result<Delivered, ClientError>> {
        self.outcome.result.get().map(|r| self.resolve(r))
    }

    fn resolve(&self, r: &Result<u64, ClientError>) -> Result<Delivered, ClientError> {
        match r {
            Ok(base) => Ok(Delivered {
                partition: self.outcome.partition,
                offset: base + u64::from(self.index),
            }),
            Err(e) => Err(e.clone()),
        }
    }
}

impl Future for Delivery {
    type Output = Result<Delivered, ClientError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Some(r) = this.outcome.result.get() {
            return Poll::Ready(this.resolve(r));
        }
        let mut wakers = lock(&this.outcome.wakers);
        // Checked again under the lock: complete() sets the result before
        // taking the list, so either we see it or it sees our waker.
        if let Some(r) = this.outcome.result.get() {
            drop(wakers);
            return Poll::Ready(this.resolve(r));
        }
        match this.waker_at {
            Some(i) if i < wakers.len() => {
                if !wakers[i].will_wake(cx.waker()) {
                    wakers[i] = cx.waker().clone();
                }
            }
            _ => {
                this.waker_at = Some(wakers.len());
                wakers.push(cx.waker().clone());
            }
        }
        Poll::Pending
    }
}
