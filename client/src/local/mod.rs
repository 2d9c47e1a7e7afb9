//! What a client keeps on its own device: the **client state directory**,
//! one per identity (docs/SECURITY.md §1, ENVELOPE.md §13).
//!
//! - [`StateDir`]: the directory (mode 0700, refused when others may read
//!   it), held with an exclusive lock so two processes of one identity never
//!   share it unknowingly, with atomic file writes.
//! - [`KnownBrokers`]: the `known-brokers` file in it — the broker id each
//!   dialled name and port presented first (trust on first use); a changed
//!   id is refused before anything is signed.
//! - [`StateAnchors`]: the `state-anchors` file in it — per sealed-state
//!   key the newest generation this device wrote or accepted, and the
//!   record's hash; an older state served by the broker is refused.
//!
//! What a broker stores for the client (its sealed state) a lying broker
//! can serve old; what is kept here it cannot touch.

mod anchors;
mod dir;
mod known_brokers;
mod write;

pub(crate) use write::hex;

pub use anchors::{Anchor, RECORD_HASH_LEN, STATE_ANCHORS, StateAnchors, StateAnchorsError};
pub use dir::{StateDir, StateDirError};
pub use known_brokers::{KNOWN_BROKERS, KnownBrokers, KnownBrokersError, Pin};
