//! The network server: accept loop, connection limit, shutdown and drain.
//!
//! # Layout
//! - [`Server`] (`server`): accepts connections (capped by a semaphore; accept errors
//!   back off instead of killing the server), hands each to a task, and on
//!   shutdown stops accepting and drains in-flight requests. It also serves
//!   streams accepted elsewhere ([`Server::serve_stream`]).
//! - [`ByteStream`]: what a connection needs from the stream it runs over
//!   (plain TCP with `sendfile`; TLS, the WebSocket adapter and in-memory
//!   pipes with the copy path).
//! - `http` and `ws`: the WebSocket listeners' front door (the HTTP upgrade,
//!   [`Origins`], static files from `web_root`) and the adapter that carries
//!   one frame per binary message.
//! - `accept`: the front door of each connection (connection caps, TLS
//!   handshake, WebSocket upgrade) before its state machine runs.
//! - `admission`: what a socket holds against the connection caps from its
//!   accept to its close.
//! - `connection`: one connection's I/O (hello, reading and checking
//!   pipelined frames under the receive budget, writing answers as they
//!   become ready), generic over the stream.
//! - `session`: what one connection's requests share (who it runs as, its
//!   output, the acks and long polls waiting) and the answers every handler
//!   gives; `pending`: the acks and long polls waiting.
//! - `request`: the contract of a request type's handler (`Access` it
//!   needs, `handle`); `handler`: the dispatcher and one module per op.
//! - [`ServerOptions`] (`options`): the network part of the configuration,
//!   declared and checked here.
//! - `shared`, `metrics`: what every connection shares, and the counters.
//! - `outbox`: the output queue; fetch bodies go out with `sendfile(2)` on
//!   plain TCP and through a bounded `pread` + write copy on other streams.
//! - `quota`: the budgets and quotas every connection shares (receive
//!   budget, byte rates, topics and connections per principal, connections
//!   per address, claims per principal and per address); `rate`: the keyed
//!   token buckets of the counted rates, which `creation` (creations per
//!   source address) and the claim rates use; `send_budget`: the bytes of
//!   answers every connection together may hold queued.

mod accept;
mod access;
mod admission;
mod connection;
mod creation;
mod handler;
pub(crate) mod http;
mod metrics;
mod options;
mod outbox;
mod pending;
mod quota;
mod rate;
mod request;
mod send_budget;
mod server;
mod session;
mod shared;
mod stream;
pub(crate) mod ws;

pub use http::Origins;
pub use metrics::Metrics;
pub use options::{AccessOptions, OptionError, QuotaOptions, ServerOptions, TlsFiles};
pub(crate) use send_budget::SendBudget;
pub use server::{Server, ServerError};
pub use stream::ByteStream;
