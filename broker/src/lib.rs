//! The HermitMQ broker: a segmented write-ahead log and the network server
//! in front of it. The broker is blind by construction: it depends on
//! no sealing primitive (it links TLS for transport security only, see
//! [`tls`]) and never parses a payload.
//!
//! # Layout
//! - [`config`]: configuration from file, environment and flags.
//! - [`log`]: the storage engine (segments, index, recovery, group commit,
//!   retention, compaction).
//! - [`offsets`]: consumer-group offsets over the internal compacted topic.
//! - [`embedded`]: a broker in this process on a real socket (tests, demo, bench).
//! - [`net`]: the TCP server: hello, pipelined frames, group-commit acks,
//!   long-poll fetch with `sendfile`, limits, graceful shutdown.
//! - [`tls`]: TLS listener configuration from PEM files, and the key of a
//!   client that presented a certificate (transport security only).

pub mod config;
pub mod embedded;
pub mod log;
pub mod net;
pub mod offsets;
pub mod tls;
