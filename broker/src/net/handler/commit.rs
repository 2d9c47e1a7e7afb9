//! Commit: store a group's next offset in `__consumer_offsets`; answered
//! once that write is durable (parked until then). A group's first commit
//! for a partition creates an offset, counted against the caller's
//! `max_group_offsets_per_principal` and its address's
//! `creations_per_minute_per_address`.

use hermit_protocol::{Op, Status};
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
        let first = s
            .shared
            .engine
            .offsets()
            .committed(c.group, c.topic.as_str(), c.partition)
            .is_none();
        if first
            && let Err(msg) = s.group_offset_permit(c.group, c.topic.as_str(), c.partition)
        {
            return s.error(corr, Op::Commit as u8, Status::Unauthorized, &msg, None);
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
