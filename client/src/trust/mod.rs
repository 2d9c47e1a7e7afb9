//! Trust in other people's keys, checked by the people themselves.
//!
//! # Layout
//! - [`safety`]: safety numbers — 60 digits two people read to each other
//!   (or compare side by side) to check that each holds the other's real
//!   account key (docs/SECURITY.md §6).
//! - [`rotation`]: account-key rotation statements — an account moving to
//!   a new key, signed by both keys (docs/MLS.md §4.6).

pub mod rotation;
pub mod safety;

pub use rotation::{ROTATION_KEY, ROTATION_LEN, RotationError, RotationStatement};
pub use safety::{HALF_DIGITS, SAFETY_NUMBER_DIGITS, SafetyNumber, account_half, safety_number};
