//! Claim: not served yet by this commit (issue 33 lands it next); refused
//! as a broker that does not know the op refuses it.

use hermit_protocol::frame::Claim;
use hermit_protocol::{Op, Status};

use crate::auth::Action;
use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The Claim handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::Claim;
    type Request<'a> = Claim<'a>;

    fn access<'r>(c: &'r Self::Request<'_>) -> Access<'r> {
        Access::Topic(Action::Claim, c.topic.as_str())
    }

    async fn handle(s: &mut Session, corr: u32, _c: Self::Request<'_>) {
        s.error(corr, Op::Claim as u8, Status::UnknownOp, "Claim is not served yet", None);
    }
}
