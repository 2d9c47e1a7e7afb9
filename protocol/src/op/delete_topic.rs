//! `DeleteTopic` (0x07): delete a topic, its data and its committed offsets.
//!
//! ```text
//! request : topic
//! response: (empty)
//! ```

use bytes::BytesMut;

use super::fields;
use crate::codec::{Reader, put_str8};
use crate::error::WireError;
use crate::topic::TopicName;

/// A delete-topic request: the topic's name.
pub type DeleteTopic<'a> = TopicName<&'a str>;

pub(crate) fn decode<'a>(r: &mut Reader<'a>) -> Result<DeleteTopic<'a>, WireError> {
    fields::topic(r)
}

pub(crate) fn encode(topic: &DeleteTopic<'_>, out: &mut BytesMut) -> Result<(), WireError> {
    put_str8(out, "topic", topic.as_str())
}
