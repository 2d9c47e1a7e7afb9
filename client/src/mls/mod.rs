//! Conversations with forward secrecy: MLS (RFC 9420) over mls-rs, ciphersuite
//! 2 only (`MLS_128_DHKEMP256_AES128GCM_SHA256_P256`). The choices and their
//! reasons are in `docs/MLS.md`.
//!
//! # Layout
//! - [`provider`]: [`Suite2Provider`], the mls-rs crypto provider: ECDSA
//!   P-256, AES-128-GCM, SHA-256, HMAC and HKDF on aws-lc-rs; HPKE, the KEM,
//!   key generation and random bytes from `mls-rs-crypto-rustcrypto`.
//!
//! mls-rs itself stays behind this module: the rest of the SDK never names
//! an mls-rs type, so a change of library does not reach it.

pub mod provider;

pub use provider::{ProviderError, Suite2, Suite2Provider};
