//! Metadata: one topic's partitions and bounds, or — kept for older
//! clients — every topic the caller may describe when they fit one page.

use hermit_protocol::frame::{MAX_LIST_LIMIT, METADATA_FIXED_LEN, ResponseBody};
use hermit_protocol::{Op, Status, TopicName};

use super::page::{Cut, LIST_SCAN_FACTOR, PageError, topic_page, topics_metadata};
use crate::auth::Action;
use crate::engine::StorageError;
use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The Metadata handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::Metadata;
    type Request<'a> = Option<TopicName<&'a str>>;

    /// One topic: `describe` on it; every topic: filtered per topic.
    fn access<'r>(t: &'r Self::Request<'_>) -> Access<'r> {
        match t {
            Some(t) => Access::Topic(Action::Describe, t.as_str()),
            None => Access::Anyone,
        }
    }

    async fn handle(s: &mut Session, corr: u32, t: Self::Request<'_>) {
        let Some(t) = t else {
            return all_topics(s, corr).await;
        };
        let Some(t) = s.shared.engine.topic(t.as_str()) else {
            return s.storage_error(
                corr,
                Op::Metadata,
                &StorageError::UnknownTopic(t.as_str().to_owned()),
            );
        };
        let body = match topics_metadata(s.shared.engine.clone(), vec![t]).await {
            Ok(body) => body,
            Err(e) => return s.storage_error(corr, Op::Metadata, &e),
        };
        s.respond(corr, &ResponseBody::Metadata(body));
    }
}

/// Answer `Metadata` of all topics — kept for older clients — only when
/// that takes one page: at most [`MAX_LIST_LIMIT`] topics the caller may
/// describe, found within the scan of the largest `ListTopics` page, in
/// one frame. Otherwise `PayloadTooLarge` saying to page with
/// `ListTopics`; the connection stays open (the request was well formed).
async fn all_topics(s: &mut Session, corr: u32) {
    const LIMIT: usize = MAX_LIST_LIMIT as usize;
    let room = s.max_frame().saturating_sub(METADATA_FIXED_LEN);
    let scan = LIMIT * LIST_SCAN_FACTOR;
    let msg = match topic_page(s, None, LIMIT, scan, room).await {
        Ok((page, None)) => {
            return s.respond(corr, &ResponseBody::Metadata(page.topics));
        }
        Ok((_, Some(cut))) => {
            let why = match cut {
                Cut::Limit => format!("the caller may describe more than {LIMIT} topics"),
                Cut::Scan => format!("the broker holds more than {scan} topics"),
                Cut::Frame => format!(
                    "their metadata would not fit in one frame of {} bytes",
                    s.max_frame()
                ),
            };
            format!(
                "Metadata of all topics answers one page only, and {why}: \
                 list them page by page with ListTopics"
            )
        }
        Err(PageError::TooBig(msg)) => msg,
        Err(PageError::Storage(e)) => return s.storage_error(corr, Op::Metadata, &e),
    };
    tracing::debug!(peer = %s.peer, who = %s.who, %msg, "metadata of all topics refused");
    s.error(
        corr,
        Op::Metadata as u8,
        Status::PayloadTooLarge,
        &msg,
        None,
    );
}
