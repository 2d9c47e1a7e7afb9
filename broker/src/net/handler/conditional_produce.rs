//! ConditionalProduce: append one batch only at the log end the producer
//! expects ([`Partition::append_at`](crate::engine::Partition::append_at),
//! checked under the partition's writer); otherwise refuse with `EndMoved`
//! and the end. Appended, it is answered as a Produce is: once written, or
//! once an fsync covers it for a durable ack.

use hermit_protocol::Op;
use hermit_protocol::frame::ConditionalProduce;

use super::produce::append;
use crate::auth::Action;
use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The ConditionalProduce handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::ConditionalProduce;
    type Request<'a> = ConditionalProduce<'a>;

    fn access<'r>(c: &'r Self::Request<'_>) -> Access<'r> {
        Access::Topic(Action::Produce, c.produce.topic.as_str())
    }

    async fn handle(s: &mut Session, corr: u32, c: Self::Request<'_>) {
        append(s, corr, &c.produce, Some(c.expected_end)).await;
    }
}
