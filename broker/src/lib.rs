//! The HermitMQ broker: a segmented write-ahead log and the network server
//! in front of it. The broker is blind by construction: it links no sealing
//! primitive (only ECDSA P-256 verification, to authenticate clients, in
//! [`auth`], and TLS for transport security, in [`tls`]) and never parses a
//! payload.
//!
//! # Layout
//! - [`config`]: configuration from file, environment and flags.
//! - [`admin`]: the admin HTTP listener: `/metrics`, `/healthz`, `/readyz`.
//! - [`metrics`]: the counters and histograms the broker keeps where things happen.
//! - [`auth`]: principals, `Authenticate` verification, ACLs, the broker id.
//! - [`log`]: the log, the broker's storage (segments, index, recovery, group commit,
//!   retention, compaction).
//! - [`offsets`]: consumer-group offsets over the internal compacted topic.
//! - [`engine`]: the log and the offsets composed — what the server uses.
//! - [`embedded`]: a broker in this process on a real socket (tests, demo, bench).
//! - [`net`]: the server: hello, pipelined frames, group-commit acks,
//!   long-poll fetch, limits, graceful shutdown — over TCP or any byte
//!   stream ([`net::ByteStream`]); fetch bodies by `sendfile` on plain TCP,
//!   by a bounded copy elsewhere.
//! - `fuzzing` (hidden): entry points for the fuzz targets in `fuzz/`.
//! - [`tls`]: TLS listener configuration from PEM files, and the key of a
//!   client that presented a certificate (transport security only).
//!
//! Layers run one way: `offsets` → `log`, `engine` → both, `net` → `engine`.

pub mod admin;
pub mod auth;
pub mod config;
pub mod embedded;
pub mod engine;
#[doc(hidden)]
pub mod fuzzing;
pub mod log;
pub mod metrics;
pub mod net;
pub mod offsets;
pub mod tls;
