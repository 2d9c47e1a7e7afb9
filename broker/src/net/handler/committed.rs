//! Committed: a group's committed offset (clamped to its partition's end).

use hermit_protocol::Op;
use hermit_protocol::frame::{Committed, ResponseBody};

use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The Committed handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::Committed;
    type Request<'a> = Committed<'a>;

    fn access<'r>(c: &'r Self::Request<'_>) -> Access<'r> {
        Access::Group {
            group: c.group,
            topic: c.topic.as_str(),
        }
    }

    async fn handle(s: &mut Session, corr: u32, c: Self::Request<'_>) {
        let offset = s
            .shared
            .engine
            .committed(c.group, c.topic.as_str(), c.partition);
        s.respond(corr, &ResponseBody::Committed { offset });
    }
}
