//! `Commit` (0x03): store the next offset a consumer group will read.
//!
//! ```text
//! request : group, topic, partition u32, offset u64
//! response: (empty)
//! ```

use bytes::{BufMut, BytesMut};

use super::fields;
use crate::codec::{Reader, put_str8};
use crate::error::WireError;
use crate::topic::TopicName;

/// A commit request: the next offset `group` will read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commit<'a> {
    /// Consumer group.
    pub group: &'a str,
    /// Topic.
    pub topic: TopicName<&'a str>,
    /// Partition.
    pub partition: u32,
    /// Next offset to read.
    pub offset: u64,
}

impl<'a> Commit<'a> {
    pub(crate) fn decode(r: &mut Reader<'a>) -> Result<Self, WireError> {
        Ok(Commit {
            group: fields::group(r)?,
            topic: fields::topic(r)?,
            partition: r.u32()?,
            offset: r.u64()?,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        put_str8(out, "group", self.group)?;
        put_str8(out, "topic", self.topic.as_str())?;
        out.put_u32(self.partition);
        out.put_u64(self.offset);
        Ok(())
    }
}
