//! Conversations on MLS (RFC 9420), ciphersuite 2, with the log as the
//! delivery service (docs/MLS.md).
//!
//! - [`binding`]: the account's signature over a device's MLS key, the
//!   identity of every leaf's credential.
//! - [`device_list`]: the account's signed list of its devices.
//! - [`content`]: our framing of an application message (kind, send
//!   time, body, Padmé padding) inside MLS's encryption.

pub mod binding;
pub mod config;
pub mod content;
pub mod credential;
pub mod device_list;
pub mod staged;

pub use binding::{BindingError, DeviceBinding};
pub use content::{Content, ContentError, ContentKind};
pub use device_list::{DeviceList, DeviceListError, ListedDevice};
