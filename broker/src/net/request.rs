//! What a request type's handler provides — the contract every module in
//! `net::handler` implements, one per op.
//!
//! A handler says what the caller must be allowed ([`Access`], checked by
//! the dispatcher before anything runs, so a refused request does nothing),
//! then carries the request out on the connection's [`Session`] and answers
//! it — at once, or later for a durable ack or a long poll.

use std::future::Future;

use hermit_protocol::Op;

use super::session::Session;
use crate::auth::Action;

/// What a request needs from the access rules before it runs.
#[derive(Debug, Clone, Copy)]
pub(super) enum Access<'a> {
    /// No rule: anyone on the connection may (Ping, Authenticate), or the
    /// handler answers only what the caller may see (ListTopics and
    /// Metadata of every topic filter by `describe` per topic).
    Anyone,
    /// `action` on `topic`.
    Topic(Action, &'a str),
    /// A consumer group's offset on `topic`: `consume` on the topic, and
    /// the group must be one the caller may use.
    Group {
        /// The group named.
        group: &'a str,
        /// The topic named.
        topic: &'a str,
    },
}

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
