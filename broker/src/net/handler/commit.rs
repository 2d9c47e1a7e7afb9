//! Commit: store a group's next offset in `__consumer_offsets`; answered
//! once that write is durable (parked until then).

use hermit_protocol::Op;
use hermit_protocol::frame::{Commit, ResponseBody};
use tokio::time::Instant;

use crate::engine::FsyncPolicy;
use crate::net::access::Access;
use crate::net::pending::{AckBody, PendingAck};
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The Commit handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::Commit;
    type Request<'a> = Commit<'a>;

    fn access<'r>(c: &'r Self::Request<'_>) -> Access<'r> {
        Access::Group {
            group: c.group,
            topic: c.topic.as_str(),
        }
    }

    async fn handle(s: &mut Session, corr: u32, c: Self::Request<'_>) {
        if s.partition(corr, Op::Commit, c.topic.as_str(), c.partition)
            .await
            .is_none()
        {
            return;
        }
        let a = match s
            .shared
            .engine
            .commit(c.group, c.topic.as_str(), c.partition, c.offset)
        {
            Ok(a) => a,
            Err(e) => return s.storage_error(corr, Op::Commit, &e),
        };
        let offsets = s.shared.engine.offsets_partition().clone();
        if s.shared.engine.options().fsync == FsyncPolicy::Never
            || offsets.synced_offset() >= a.next_offset
        {
            s.respond(corr, &ResponseBody::Commit);
        } else {
            s.acks.push_back(PendingAck {
                correlation_id: corr,
                partition: offsets,
                need: a.next_offset,
                not_before: None,
                body: AckBody::Commit,
                received: Instant::now(),
            });
        }
    }
}
