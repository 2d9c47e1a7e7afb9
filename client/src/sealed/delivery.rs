//! [`SealedDelivery`]: a sealed record queued in the producer.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::crypto::Mode;
use crate::error::ClientError;
use crate::producer::{Delivered, Delivery};

/// A sealed record queued in the producer: its sequence number and mode are
/// known at once; await it for where the broker stored it.
#[derive(Debug)]
pub struct SealedDelivery {
    delivery: Delivery,
    seq: u64,
    mode: Mode,
}

impl SealedDelivery {
    /// A record queued as `delivery`, sealed with `seq` in `mode`.
    pub(super) fn new(delivery: Delivery, seq: u64, mode: Mode) -> Self {
        SealedDelivery {
            delivery,
            seq,
            mode,
        }
    }

    /// The record's sequence number (per sender and topic).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// The mode it was sealed in (DIRECT switches to MULTI past the per-pair
    /// limit, see [`crate::crypto::seal::DIRECT_LIMIT`]).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The partition the record was assigned to.
    pub fn partition(&self) -> u32 {
        self.delivery.partition()
    }

    /// The plain [`Delivery`].
    pub fn into_delivery(self) -> Delivery {
        self.delivery
    }
}

impl Future for SealedDelivery {
    type Output = Result<Delivered, ClientError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.get_mut().delivery).poll(cx)
    }
}
