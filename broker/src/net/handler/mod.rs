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
//! | ConditionalProduce | [`conditional_produce`] | `produce` on the topic |
//! | Claim | [`claim`] | `claim` on the topic |
//!
//! Each handler implements [`OpHandler`]: its `access` is checked here before
//! it runs (a refused request gets `Unauthorized` and does nothing), then
//! its `handle` answers. `page` builds the topic pages Metadata and
//! ListTopics share. The modules and [`dispatch`] are derived from the
//! protocol's op table (`hermit_protocol::for_each_op!`): adding an op
//! there asks for its module here, `<module>.rs` with a `Handler`
//! (docs/INTERNALS.md, "How to add a request type").

mod page;

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

/// The handlers' modules and the dispatcher, one of each per op of the
/// protocol's op table ([`hermit_protocol::for_each_op`]): an op added
/// there names its handler here, and the build fails until it exists.
macro_rules! handlers {
    ($($op:ident $(($request:ident))? => $module:ident),* $(,)?) => {
        $(pub(super) mod $module;)*

        /// Answer one decoded request.
        pub(super) async fn dispatch(s: &mut Session, f: RequestFrame<'_>) {
            let corr = f.correlation_id;
            match f.request {
                $(Request::$op $(($request))? => {
                    run!($module::Handler, s, corr, ($($request)?))
                })*
            }
        }
    };
}

hermit_protocol::for_each_op!(handlers);
