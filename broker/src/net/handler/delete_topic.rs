//! DeleteTopic: remove a topic, its data and its group offsets (off the
//! async workers), and give its creator's topic quota back.

use hermit_protocol::frame::ResponseBody;
use hermit_protocol::{Op, TopicName};

use crate::auth::Action;
use crate::engine::StorageError;
use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The DeleteTopic handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::DeleteTopic;
    type Request<'a> = TopicName<&'a str>;

    fn access<'r>(t: &'r Self::Request<'_>) -> Access<'r> {
        Access::Topic(Action::Delete, t.as_str())
    }

    async fn handle(s: &mut Session, corr: u32, t: Self::Request<'_>) {
        let engine = s.shared.engine.clone();
        let name = t.as_str().to_owned();
        let res = tokio::task::spawn_blocking(move || engine.delete_topic(&name))
            .await
            .unwrap_or_else(|e| Err(StorageError::panicked("topic deletion", e)));
        match res {
            Ok(()) => {
                s.shared.quotas.topic_deleted(t.as_str());
                tracing::info!(
                    target: "audit",
                    topic = t.as_str(),
                    who = %s.who,
                    peer = %s.peer,
                    "topic deleted"
                );
                s.respond(corr, &ResponseBody::DeleteTopic)
            }
            Err(e) => s.storage_error(corr, Op::DeleteTopic, &e),
        }
    }
}
