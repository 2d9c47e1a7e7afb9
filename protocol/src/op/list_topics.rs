//! `ListTopics` (0x0A, protocol version 3): one page of the topics the
//! caller may describe, in name order (bytewise), resumed from a cursor.
//!
//! ```text
//! request : after (u8 len + name; empty = from the first), limit u32 (1..=1000)
//! response: the topic list of `Metadata`, then next (u8 len + name; empty = the end)
//! ```

use bytes::{BufMut, BytesMut};

use super::fields;
use super::metadata::{self, TopicMetadata};
use crate::codec::{Reader, put_str8};
use crate::error::WireError;
use crate::header::RESPONSE_HEADER_LEN;
use crate::topic::{MAX_NAME_LEN, TopicName};

/// Most topics one `ListTopics` page may hold (its `limit` is 1..=this), and
/// the most a `Metadata` of all topics answers with: no response ever holds
/// more, however many topics a broker has.
pub const MAX_LIST_LIMIT: u32 = 1000;
/// Bytes of a successful `ListTopics` response besides its topics, at most
/// (after the length prefix): op, correlation id, status, the count and the
/// longest `next` cursor. A page fits a frame of `max_frame` bytes when its
/// topics' [`TopicMetadata::encoded_len`] sum to at most
/// `max_frame - LIST_TOPICS_FIXED_LEN`.
pub const LIST_TOPICS_FIXED_LEN: usize = RESPONSE_HEADER_LEN - 4 + 4 + 1 + MAX_NAME_LEN;

/// A list-topics request: one page of the topics the caller may describe,
/// in name order (bytewise), starting after a cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListTopics<'a> {
    /// List the names that sort after this one: the previous page's
    /// [`TopicPage::next`]. `None` (empty on the wire) starts at the first.
    /// May be internal (`__…`): it is a place in the order, not a topic.
    pub after: Option<TopicName<&'a str>>,
    /// Most topics in the page, 1..=[`MAX_LIST_LIMIT`]; anything else is malformed.
    pub limit: u32,
}

impl<'a> ListTopics<'a> {
    pub(crate) fn decode(r: &mut Reader<'a>) -> Result<Self, WireError> {
        let after = fields::cursor(r)?;
        let limit = r.u32()?;
        if limit == 0 || limit > MAX_LIST_LIMIT {
            return Err(WireError::InvalidField {
                field: "limit",
                value: u64::from(limit),
            });
        }
        Ok(ListTopics { after, limit })
    }

    /// The limit is not checked here: the receiver's decoder is the one
    /// that refuses.
    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        put_str8(out, "after", self.after.as_ref().map_or("", |a| a.as_str()))?;
        out.put_u32(self.limit);
        Ok(())
    }
}

/// One page of a topic listing (the answer to `ListTopics`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicPage {
    /// The topics, in name order: at most the request's `limit`, maybe
    /// none (a page is also cut short by the broker's bounded scan and by
    /// the frame size).
    pub topics: Vec<TopicMetadata>,
    /// Where the next page starts: pass it as [`ListTopics::after`]. `None`
    /// (empty on the wire): the listing is complete. It may name a topic
    /// not in `topics` (the last one the broker looked at).
    pub next: Option<String>,
}

impl TopicPage {
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self, WireError> {
        let topics = metadata::topics(r, Some(MAX_LIST_LIMIT))?;
        let next = fields::cursor(r)?.map(|n| n.as_str().to_owned());
        Ok(TopicPage { topics, next })
    }

    /// Refuses a page of more than [`MAX_LIST_LIMIT`] topics before writing
    /// anything (no half frame in `out`).
    pub(crate) fn check(&self) -> Result<(), WireError> {
        if self.topics.len() > MAX_LIST_LIMIT as usize {
            return Err(WireError::TooLong {
                field: "topics",
                len: self.topics.len() as u64,
                max: u64::from(MAX_LIST_LIMIT),
            });
        }
        Ok(())
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        metadata::put_topics(out, &self.topics)?;
        put_str8(out, "next", self.next.as_deref().unwrap_or(""))?;
        Ok(())
    }
}
