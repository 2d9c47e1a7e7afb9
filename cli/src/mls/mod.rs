//! The MLS conversation commands (docs/MLS.md §10): `hermit devices`,
//! `hermit keypackages`, `hermit group` and `hermit chat`, on the SDK's
//! `hermit_client::mls`.
//!
//! # Layout
//! - `device`: what they share — this device opened from its key file,
//!   state directory and connection; accounts named by key or
//!   fingerprint; the exit class of a conversation error.
//! - `devices`: `hermit devices list|publish|add|bind` and `hermit
//!   keypackages publish|status`.
//! - `events`: how a conversation's events are shown (text or JSON lines),
//!   and the read loop that prints before it acknowledges.
//! - `group`: `hermit group create|invite|join|send|read|add|remove|update|leave|list`.
//! - `chat`: `hermit chat --to PEER`, the two-account conversation.
//! - `contacts`: `hermit contacts add|list|show|verify|confirm|invite`
//!   (who is who).
//! - `account`: `hermit account rotate` (account-key rotation).

pub mod account;
pub mod chat;
pub mod contacts;
pub mod device;
pub mod devices;
pub mod events;
pub mod group;
