//! What a request type's handler provides — the contract every module in
//! `net::handler` implements, one per op.
//!
//! A handler says what the caller must be allowed (`Access`, checked by
//! the dispatcher before anything runs, so a refused request does nothing),
//! then carries the request out on the connection's [`Session`] and answers
//! it — at once, or later for a durable ack or a long poll.

use std::future::Future;

use hermit_protocol::Op;

use super::access::Access;
use super::session::Session;

/// One op's handler.
pub(super) trait OpHandler {
    /// The op it answers (echoed in every refusal).
    const OP: Op;
    /// The decoded request it takes (borrowed from the read buffer).
    type Request<'a>;
    /// What the caller must be allowed for `request`.
    fn access<'r>(request: &'r Self::Request<'_>) -> Access<'r>;
    /// Carry out `request` (correlation id `corr`) and answer it.
    // Spelled out (not `async fn`) to promise `Send`: every connection is
    // a spawned task.
    fn handle(
        s: &mut Session,
        corr: u32,
        request: Self::Request<'_>,
    ) -> impl Future<Output = ()> + Send;
}
