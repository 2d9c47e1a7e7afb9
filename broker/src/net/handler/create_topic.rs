//! CreateTopic: within `max_partitions` and the caller's topic quota,
//! create the topic (off the async workers).

use std::sync::atomic::Ordering;

use hermit_protocol::frame::{CreateTopic, ResponseBody};
use hermit_protocol::{Op, Status};

use crate::auth::Action;
use crate::engine::StorageError;
use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The CreateTopic handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::CreateTopic;
    type Request<'a> = CreateTopic<'a>;

    fn access<'r>(c: &'r Self::Request<'_>) -> Access<'r> {
        Access::Topic(Action::Create, c.topic.as_str())
    }

    async fn handle(s: &mut Session, corr: u32, c: Self::Request<'_>) {
        let op = Op::CreateTopic as u8;
        let max = s.shared.options.max_partitions;
        if c.settings.partitions > max {
            s.shared
                .metrics
                .topics_refused
                .fetch_add(1, Ordering::Relaxed);
            let msg = format!(
                "{} partitions requested; this broker's max_partitions is {max}",
                c.settings.partitions
            );
            tracing::debug!(target: "audit", peer = %s.peer, who = %s.who, topic = c.topic.as_str(), %msg, "topic creation refused");
            return s.error(corr, op, Status::InvalidRequest, &msg, None);
        }
        let permit = match s.topic_permit(c.topic.as_str()) {
            Ok(permit) => permit,
            Err(msg) => return s.error(corr, op, Status::Unauthorized, &msg, None),
        };
        let log = s.shared.engine.clone();
        let name = c.topic.as_str().to_owned();
        let settings = c.settings;
        let res =
            tokio::task::spawn_blocking(move || log.create_topic(&name, settings).map(|_| ()))
                .await
                .unwrap_or_else(|e| Err(StorageError::panicked("topic creation", e)));
        match res {
            Ok(()) => {
                if let Some(permit) = permit {
                    permit.keep(c.topic.as_str());
                }
                tracing::info!(
                    target: "audit",
                    topic = c.topic.as_str(),
                    partitions = c.settings.partitions,
                    who = %s.who,
                    peer = %s.peer,
                    "topic created"
                );
                s.respond(corr, &ResponseBody::CreateTopic)
            }
            Err(e) => s.storage_error(corr, Op::CreateTopic, &e),
        }
    }
}
