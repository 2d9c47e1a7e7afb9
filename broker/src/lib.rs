//! The HermitMQ broker: a segmented write-ahead log and the network server
//! in front of it. The broker is blind by construction: it links no sealing
//! primitive (only ECDSA P-256 verification, to authenticate clients, in
//! [`auth`], and TLS for transport security, in [`tls`]) and never parses a
//! payload.
//!
//! # Layout
//! From the bottom up; each layer uses only those below it, declares its
//! own options and checks them:
//! - [`metrics`]: histograms the broker keeps where things happen.
//! - [`log`]: the log, the broker's storage (segments, index, recovery,
//!   group commit, retention, compaction) and its options.
//! - [`offsets`]: consumer-group offsets over the internal compacted topic
//!   `__consumer_offsets`.
//! - [`claims`]: claim positions (and the claims each partition remembers)
//!   over the internal compacted topic `__claims`.
//! - [`engine`]: the log, the offsets and the claims composed — what the
//!   server uses.
//! - [`auth`]: principals, `Authenticate` verification, ACLs, the broker id.
//! - [`tls`]: TLS listener configuration from PEM files, and the key of a
//!   client that presented a certificate (transport security only).
//! - [`net`]: the server: hello, pipelined frames dispatched to one handler
//!   per op, group-commit acks, long-poll fetch, limits, graceful shutdown —
//!   over TCP or any byte stream ([`net::ByteStream`]); fetch bodies by
//!   `sendfile` on plain TCP, by a bounded copy elsewhere.
//! - [`admin`]: the admin HTTP listener: `/metrics`, `/healthz`, `/readyz`.
//! - [`config`]: the configuration from file, environment and flags; it
//!   assembles each layer's options and calls into no layer's logic.
//! - [`start`]: the one way a broker starts from a configuration
//!   ([`start::Broker::start`], [`run`]), for `hermit broker`, the embedded
//!   broker and the demo.
//! - [`embedded`]: a broker in this process on a real socket (tests, demo, bench).
//! - `fuzzing` (hidden): entry points for the fuzz targets in `fuzz/`.

// No function over 120 lines (clippy.toml): long ones are prompts to ask
// what they are two of. Tests may be longer.
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod admin;
pub mod auth;
pub mod claims;
pub mod config;
pub mod embedded;
pub mod engine;
#[doc(hidden)]
pub mod fuzzing;
pub mod log;
pub mod metrics;
pub mod net;
pub mod offsets;
pub mod start;
pub mod tls;

pub use start::run;
