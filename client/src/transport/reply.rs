//! How answers travel back from a transport, whichever it is: a decoded
//! [`Reply`], sent to a [`ReplyTo`] — one waiting caller, or a long-lived
//! channel (the producer's sender task) that gets a [`Completion`] tagged
//! with the [`Token`] it chose when submitting.

use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};

use crate::error::ClientError;
use crate::records::FetchResponse;

/// A successful answer, owned: the data path's decoded (fetch records stay
/// a slice of the buffer they arrived in), any other op's as its frame.
#[derive(Debug)]
pub(crate) enum Reply {
    /// A batch was appended; its first record got `base_offset`.
    Produce { base_offset: u64 },
    /// Batches read.
    Fetch(FetchResponse),
    /// The answer to a control request (any op but produce and fetch): the
    /// whole response frame, for the [`Client`](crate::Client) method that
    /// sent it to decode.
    Control(Bytes),
}

/// Identifies a request to a [`ReplyTo::Channel`] receiver; its meaning is
/// the receiver's (the producer's: partition index, batch number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token(pub u64, pub u64);

/// An answer delivered to a channel.
pub(crate) type Completion = (Token, Result<Reply, ClientError>);

/// Where an answer goes.
pub(crate) enum ReplyTo {
    /// One waiting caller.
    Oneshot(oneshot::Sender<Result<Reply, ClientError>>),
    /// A long-lived receiver (the producer's sender task): no allocation per request.
    Channel {
        tx: mpsc::UnboundedSender<Completion>,
        token: Token,
    },
}

impl ReplyTo {
    /// Hand over the outcome. Called exactly once per submitted request.
    pub(crate) fn deliver(self, r: Result<Reply, ClientError>) {
        // A receiver that went away no longer wants the answer.
        match self {
            ReplyTo::Oneshot(tx) => {
                let _ = tx.send(r);
            }
            ReplyTo::Channel { tx, token } => {
                let _ = tx.send((token, r));
            }
        }
    }
}
