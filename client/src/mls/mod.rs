//! Conversations on MLS (RFC 9420), ciphersuite 2, with the log as the
//! delivery service (docs/MLS.md).
//!
//! - [`Device`]: one device — its key, binding, KeyPackages, Welcomes and
//!   conversations ([`device`]).
//! - [`Conversation`]: one group on one topic, applied in log order
//!   ([`conversation`]); changes to it in [`commit`]; joining from
//!   Welcomes in `welcome.rs` ([`Welcomes`]).
//! - [`contacts`], [`rotation`]: who is who — contacts by name with
//!   their pinned keys, account-key rotation, device-list freshness.
//! - [`Event`]: what a conversation tells its application ([`event`]).
//! - [`binding`], [`device_list`], [`credential`]: who a leaf is — the
//!   account's signature over a device key, checked on every leaf.
//! - [`content`]: our framing of an application message (kind, send
//!   time, body, Padmé padding) inside MLS's encryption, and the views
//!   message's body; [`views`]: when members send their digests of the
//!   device lists they hold, and the split views they reveal; [`header`]: the
//!   clear part of a group record, checked before MLS sees it.
//! - [`config`]: the parameters and rules; [`staged`] and [`group_file`]:
//!   where MLS state lives until it is written, and how.
//! - [`provider`]: [`Suite2Provider`], the mls-rs
//!   crypto provider: ECDSA P-256, AES-128-GCM, SHA-256, HMAC and HKDF on
//!   aws-lc-rs; HPKE, the KEM, key generation and random bytes from
//!   `mls-rs-crypto-rustcrypto`.
//!
//! mls-rs stays behind this module: the rest of the SDK never names an
//! mls-rs type, so a change of library does not reach it.

pub mod binding;
pub mod commit;
pub mod config;
pub mod contacts;
pub mod content;
pub mod conversation;
pub mod credential;
pub mod device;
pub mod device_list;
pub mod error;
pub mod event;
pub mod group_file;
pub mod header;
mod process;
pub mod provider;
pub mod rotation;
mod seen_lists;
pub mod staged;
pub mod views;
mod welcome;

pub use binding::{BindingError, DeviceBinding};
pub use commit::CommitOutcome;
pub use contacts::{Contact, PendingRotation};
pub use content::View;
pub use content::{Content, ContentError, ContentKind};
pub use conversation::Conversation;
pub use credential::MemberId;
pub use device::Device;
pub use device_list::{DeviceList, DeviceListError, ListedDevice};
pub use error::ConversationError;
pub use event::Event;
pub use provider::{ProviderError, Suite2, Suite2Provider};
pub use rotation::ContactStatus;
pub use welcome::{WelcomeRefused, Welcomes};
