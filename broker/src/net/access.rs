//! What a request needs from the access rules before it runs: each op's
//! handler says it (`net::request`), the session checks it.

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
