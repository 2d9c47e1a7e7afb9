//! Ping: answered at once, by anyone.

use hermit_protocol::Op;
use hermit_protocol::frame::ResponseBody;

use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The Ping handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::Ping;
    type Request<'a> = ();

    fn access<'r>((): &'r Self::Request<'_>) -> Access<'r> {
        Access::Anyone
    }

    async fn handle(s: &mut Session, corr: u32, (): Self::Request<'_>) {
        s.respond(corr, &ResponseBody::Ping);
    }
}
