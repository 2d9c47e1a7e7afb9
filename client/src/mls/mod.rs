//! Conversations on MLS (RFC 9420), ciphersuite 2, with the log as the
//! delivery service (docs/MLS.md).
//!
//! - [`binding`]: the account's signature over a device's MLS key, the
//!   identity of every leaf's credential.
//! - [`device_list`]: the account's signed list of its devices.

pub mod binding;
pub mod device_list;

pub use binding::{BindingError, DeviceBinding};
pub use device_list::{DeviceList, DeviceListError, ListedDevice};
