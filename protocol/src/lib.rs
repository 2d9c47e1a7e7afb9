//! HermitMQ's wire format, shared by the broker and the client. Sans-I/O:
//! no sockets, no files, no async runtime — bytes in, typed values out.
//!
//! # Layout
//! - [`hello`]: the hello exchanged once per connection (version 3 adds the
//!   broker's flags, nonce and id).
//! - [`auth`]: what an `Authenticate` request signs.
//! - [`header`]: the fixed start of every frame (length, op, correlation id,
//!   status), read and written in one place.
//! - [`limits`]: what a receiver refuses before it allocates.
//! - [`op`]: the op table, and one module per request type with its
//!   request, its answer and their codecs.
//! - [`frame`]: request/response frames around the ops;
//!   [`frame::check_request`] (no allocation, `Incomplete` when more bytes
//!   are needed) then [`frame::decode_request`] (borrowed view).
//! - [`record`]: the 33-byte [`RecordHeader`], batch views, the client payload
//!   layout and a batch builder.
//! - [`status`]: stable numeric status codes.
//! - [`topic`]: topic and group naming rules.
//! - [`codec`]: checked big-endian primitives every decoder uses.
//! - [`error`]: [`WireError`], the one decoding error type.
//!
//! All integers are big-endian. Every length is checked before use; short or
//! hostile input yields a [`WireError`], never a panic.

// No function over 120 lines (clippy.toml): long ones are prompts to ask
// what they are two of. Tests may be longer.
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod auth;
pub mod codec;
pub mod error;
pub mod frame;
pub mod header;
pub mod hello;
pub mod limits;
pub mod op;
pub mod record;
pub mod status;
pub mod topic;

pub use error::WireError;
pub use frame::{FrameCheck, RequestFrame, ResponseFrame};
pub use hello::{Hello, PROTOCOL_VERSION};
pub use limits::Limits;
pub use op::create_topic::Cleanup;
pub use op::produce::Ack;
pub use op::{Op, Request, ResponseBody};
pub use record::{BatchBuilder, BatchView, RecordHeader};
pub use status::Status;
pub use topic::TopicName;
