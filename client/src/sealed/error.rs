//! [`SealedError`]: why a sealed producer or consumer call failed as a whole.

use crate::crypto::{OpenError, SealError, TrustError};
use crate::error::ClientError;

/// Why a sealed producer or consumer call failed as a whole (a record that
/// fails to open is a [`SealedRecordError`](super::SealedRecordError) instead).
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SealedError {
    /// The producer, consumer or connection failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The record could not be sealed (bad recipients, topic or size); nothing
    /// was queued.
    #[error("cannot seal the record")]
    Seal(#[source] SealError),
    /// A sender key could not be trusted.
    #[error("cannot trust the sender key")]
    Trust(#[source] TrustError),
    /// A replay high-water mark could not be restored.
    #[error("cannot restore the replay state")]
    Open(#[source] OpenError),
    /// The persisted state (replay windows, DIRECT reservations) could not be
    /// read, opened or saved; nothing was committed or sent past it.
    #[error("sealed state in topic {topic}: {reason}")]
    State {
        /// The identity's state topic.
        topic: String,
        /// What failed, and what to do about it.
        reason: String,
        /// The broker's refusal, when it refused (`Unauthorized`: the ACL
        /// has no rule for the state topic).
        status: Option<hermit_protocol::Status>,
    },
}
