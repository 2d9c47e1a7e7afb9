//! ListTopics: one page of the topics the caller may describe, after its
//! cursor, within its limit, the bounded scan and the frame. A `next`
//! cursor that would name a topic the caller may not describe is replaced
//! by an opaque one this connection maps back.

use hermit_protocol::frame::{
    LIST_TOPICS_FIXED_LEN, ListTopics, MIN_TOPIC_METADATA_LEN, ResponseBody,
};
use hermit_protocol::{Op, Status};

use super::page::{LIST_SCAN_FACTOR, PageError, topic_page};
use crate::auth::{Action, AuthMode};
use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// A ListTopics `next` that would name a topic the caller may not
/// describe is replaced by `__cursor.<n>`, which this connection maps back
/// to the name: the cursor never tells a caller a name it may not see.
/// (`__` names are the broker's own: no topic can be called that.)
const CURSOR_PREFIX: &str = "__cursor.";

/// Opaque cursors a connection remembers; older ones expire.
pub(in crate::net) const MAX_CURSORS: usize = 16;

/// The ListTopics handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::ListTopics;
    type Request<'a> = ListTopics<'a>;

    /// Filtered per topic by `describe`, in the page.
    fn access<'r>(_: &'r Self::Request<'_>) -> Access<'r> {
        Access::Anyone
    }

    async fn handle(s: &mut Session, corr: u32, l: Self::Request<'_>) {
        let room = s.max_frame().saturating_sub(LIST_TOPICS_FIXED_LEN);
        // A tiny frame (a small `ws_max_message`) holds fewer topics than the
        // limit asks for: scan only what it could carry.
        let limit = (l.limit as usize).min((room / MIN_TOPIC_METADATA_LEN).max(1));
        let after = match l.after.as_ref().map(|a| a.as_str()) {
            Some(a) if a.starts_with(CURSOR_PREFIX) => {
                let found = a[CURSOR_PREFIX.len()..]
                    .parse::<u64>()
                    .ok()
                    .and_then(|n| s.cursors.iter().find(|(k, _)| *k == n))
                    .map(|(_, name)| name.clone());
                let Some(name) = found else {
                    return s.error(
                        corr,
                        Op::ListTopics as u8,
                        Status::InvalidRequest,
                        "this cursor is unknown or expired (cursors last for the connection, \
                         the newest 16): list again from the start",
                        None,
                    );
                };
                Some(name)
            }
            // A name: from a caller for whom some names are hidden, only one
            // it may describe and that exists — a place in the order it can
            // see. Any other string would let it probe where hidden names
            // sort (docs/SECURITY.md §3). Admins, and everyone with auth
            // off, see every name: any place will do.
            Some(a) => {
                let sees_all = s.who.is_admin() || s.shared.acl.mode() == AuthMode::Off;
                if !sees_all
                    && (s.check(Action::Describe, a).is_err() || s.shared.engine.topic(a).is_none())
                {
                    return s.error(
                        corr,
                        Op::ListTopics as u8,
                        Status::InvalidRequest,
                        "after must be a topic you may describe, or a cursor this connection \
                         was given: list again from the start",
                        None,
                    );
                }
                Some(a.to_owned())
            }
            None => None,
        };
        match topic_page(s, after.as_deref(), limit, limit * LIST_SCAN_FACTOR, room).await {
            Ok((mut page, _)) => {
                if let Some(next) = page.next.take() {
                    let listed = page.topics.last().is_some_and(|t| t.name == next);
                    page.next = Some(if listed { next } else { opaque_cursor(s, next) });
                }
                s.respond(corr, &ResponseBody::ListTopics(page))
            }
            Err(PageError::TooBig(msg)) => s.error(
                corr,
                Op::ListTopics as u8,
                Status::PayloadTooLarge,
                &msg,
                None,
            ),
            Err(PageError::Storage(e)) => s.storage_error(corr, Op::ListTopics, &e),
        }
    }
}

/// A cursor standing for `name`, which the caller may not see.
fn opaque_cursor(s: &mut Session, name: String) -> String {
    let n = s.next_cursor;
    s.next_cursor += 1;
    if s.cursors.len() == MAX_CURSORS {
        s.cursors.pop_front();
    }
    s.cursors.push_back((n, name));
    format!("{CURSOR_PREFIX}{n}")
}
