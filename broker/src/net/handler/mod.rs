//! The dispatcher: which handler answers which request — one module per op.
//!
//! | op | handler | access checked first |
//! |---|---|---|
//! | Produce | [`produce`] | `produce` on the topic |
//! | Fetch | [`fetch`] | `consume` on the topic |
//! | Commit | [`commit`] | `consume` on the topic, and the group |
//! | Committed | [`committed`] | `consume` on the topic, and the group |
//! | Metadata | [`metadata`] | `describe` on the topic (all topics: per topic) |
//! | CreateTopic | [`create_topic`] | `create` on the topic |
//! | DeleteTopic | [`delete_topic`] | `delete` on the topic |
//! | Ping | [`ping`] | — |
//! | Authenticate | [`authenticate`] | — |
//! | ListTopics | [`list_topics`] | `describe`, per topic listed |
//!
//! Each handler implements [`OpHandler`]: its `access` is checked here before
//! it runs (a refused request gets `Unauthorized` and does nothing), then
//! its `handle` answers. `page` builds the topic pages Metadata and
//! ListTopics share. Adding an op: its module here and one arm in
//! [`dispatch`] (docs/INTERNALS.md, "How to add a request type").

pub(super) mod authenticate;
pub(super) mod commit;
pub(super) mod committed;
pub(super) mod create_topic;
pub(super) mod delete_topic;
pub(super) mod fetch;
pub(super) mod list_topics;
pub(super) mod metadata;
mod page;
pub(super) mod ping;
pub(super) mod produce;

use hermit_protocol::{Request, RequestFrame};

use super::request::OpHandler;
use super::session::Session;

/// Check what the request needs, then hand it to its handler. (A macro,
/// not a generic function: the compiler cannot yet prove a generic
/// function's future `Send` over the handlers' borrowed request types.)
macro_rules! run {
    ($handler:ty, $s:expr, $corr:expr, $request:expr) => {{
        let request = $request;
        let access = <$handler as OpHandler>::access(&request);
        if $s.allowed($corr, <$handler as OpHandler>::OP, access) {
            <$handler as OpHandler>::handle($s, $corr, request).await;
        }
    }};
}

/// Answer one decoded request.
pub(super) async fn dispatch(s: &mut Session, f: RequestFrame<'_>) {
    let corr = f.correlation_id;
    match f.request {
        Request::Produce(r) => run!(produce::Handler, s, corr, r),
        Request::Fetch(r) => run!(fetch::Handler, s, corr, r),
        Request::Commit(r) => run!(commit::Handler, s, corr, r),
        Request::Committed(r) => run!(committed::Handler, s, corr, r),
        Request::Metadata(r) => run!(metadata::Handler, s, corr, r),
        Request::CreateTopic(r) => run!(create_topic::Handler, s, corr, r),
        Request::DeleteTopic(r) => run!(delete_topic::Handler, s, corr, r),
        Request::Ping => run!(ping::Handler, s, corr, ()),
        Request::Authenticate(r) => run!(authenticate::Handler, s, corr, r),
        Request::ListTopics(r) => run!(list_topics::Handler, s, corr, r),
    }
}
