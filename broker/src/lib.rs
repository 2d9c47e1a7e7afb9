//! The HermitMQ broker: a segmented write-ahead log and the network server
//! in front of it. The broker is blind by construction: it links no sealing
//! primitive (only ECDSA P-256 verification, to authenticate clients) and
//! never parses a payload.
//!
//! # Layout
//! - [`config`]: configuration from file, environment and flags.
//! - [`auth`]: principals, `Authenticate` verification, ACLs, the broker id.
//! - [`log`]: the storage engine (segments, index, recovery, group commit,
//!   retention, compaction).
//! - [`offsets`]: consumer-group offsets over the internal compacted topic.
//! - [`embedded`]: a broker in this process on a real socket (tests, demo, bench).
//! - [`net`]: the TCP server: hello, pipelined frames, group-commit acks,
//!   long-poll fetch with `sendfile`, limits, graceful shutdown.

pub mod auth;
pub mod config;
pub mod embedded;
pub mod log;
pub mod net;
pub mod offsets;
