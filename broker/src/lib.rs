//! The HermitMQ broker: a segmented write-ahead log and (soon) the network
//! server in front of it. The broker is blind by construction: it depends on
//! no cryptography crate and never parses a payload.
//!
//! # Layout
//! - [`config`]: configuration from file, environment and flags.
//! - [`log`]: the storage engine (segments, index, recovery, group commit,
//!   retention, compaction).
//! - [`offsets`]: consumer-group offsets over the internal compacted topic.

pub mod config;
pub mod log;
pub mod offsets;
