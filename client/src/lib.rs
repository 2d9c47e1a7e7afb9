//! HermitMQ client SDK.
//!
//! # Layout
//! - [`crypto`]: end-to-end sealing (sans-I/O): Web Crypto-compatible identities,
//!   password-wrapped key files, the article's compatibility API and sealed records.

pub mod crypto;
