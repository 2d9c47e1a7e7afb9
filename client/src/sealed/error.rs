//! [`SealedError`]: why a sealed producer or consumer call failed as a whole.

use std::path::PathBuf;

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
    /// The broker served an older sealed state than this device wrote: its
    /// generation is below the one anchored in the state directory's
    /// `state-anchors` file, or it is another record at the anchored
    /// generation, or there is none at all (docs/ENVELOPE.md §13). Records
    /// already delivered could be delivered again (a consumer) or a DIRECT
    /// count could repeat (a producer), so nothing was read or sealed.
    #[error(
        "sealed state in topic {topic}: the broker served an older state than this device wrote \
         (anchored generation {anchored} in {}, found {}): records already delivered would be \
         delivered again (or a DIRECT count repeat), so nothing was read or sent. Treat the \
         broker as hostile; if it was restored from a backup on purpose, remove the line \
         starting `{line}` from that file to accept the older state (what this device handled \
         since may then be handled again)",
        file.display(),
        found_text(*anchored, *found)
    )]
    StateRolledBack {
        /// The identity's state topic.
        topic: String,
        /// The generation anchored on this device.
        anchored: u64,
        /// The generation of the latest state record the broker served
        /// (equal to `anchored` when it is another record of that
        /// generation); `None` when it served none.
        found: Option<u64>,
        /// The `state-anchors` file.
        file: PathBuf,
        /// How the anchor's line in `file` starts: the broker's address and
        /// the state's blinded key.
        line: String,
    },
    /// The group's committed offset on the broker is below the one saved in
    /// the sealed state, which this device anchored after the broker had
    /// acknowledged that commit: the broker moved the commit back, and
    /// records already delivered would be delivered again. Nothing was read.
    #[error(
        "group {group} on topic {topic}, partition {partition}: the broker's committed offset \
         ({}) is below {state}, which this device committed and anchored in {}: the broker moved \
         the commit back, and records already delivered would be delivered again, so nothing was \
         read. Treat the broker as hostile; if the group was reset on purpose, remove the line \
         starting `{line}` from that file (reading then resumes at the sealed state's offsets)",
        committed.map_or_else(|| "none".to_owned(), |c| c.to_string()),
        file.display()
    )]
    CommitRolledBack {
        /// The topic read.
        topic: String,
        /// The consumer group.
        group: String,
        /// The partition whose commit went back.
        partition: u32,
        /// The broker's committed offset (`None`: it has none).
        committed: Option<u64>,
        /// The offset saved in the sealed state.
        state: u64,
        /// The `state-anchors` file.
        file: PathBuf,
        /// How the anchor's line in `file` starts.
        line: String,
    },
    /// The state directory's `state-anchors` file could not be read or
    /// written. When writing failed, the state record (and a consumer's
    /// commit) were saved; only the anchor stayed behind, which a later
    /// start accepts as a crash.
    #[error("cannot use the sealed-state anchors in {}: {reason}", file.display())]
    Anchor {
        /// The `state-anchors` file.
        file: PathBuf,
        /// What failed.
        reason: String,
    },
}

/// What a rolled-back state error says was found.
fn found_text(anchored: u64, found: Option<u64>) -> String {
    match found {
        None => "no state record".to_owned(),
        Some(g) if g == anchored => format!("another record of generation {g}"),
        Some(g) => format!("generation {g}"),
    }
}
