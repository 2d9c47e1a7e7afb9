//! `Committed` (0x04): a consumer group's committed offset.
//!
//! ```text
//! request : group, topic, partition u32
//! response: has u8 (0 or 1), offset u64 (0 when has = 0)
//! ```

use bytes::{BufMut, BytesMut};

use super::fields;
use crate::codec::{Reader, put_str8};
use crate::error::WireError;
use crate::topic::TopicName;

/// A committed-offset query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Committed<'a> {
    /// Consumer group.
    pub group: &'a str,
    /// Topic.
    pub topic: TopicName<&'a str>,
    /// Partition.
    pub partition: u32,
}

impl<'a> Committed<'a> {
    pub(crate) fn decode(r: &mut Reader<'a>) -> Result<Self, WireError> {
        Ok(Committed {
            group: fields::group(r)?,
            topic: fields::topic(r)?,
            partition: r.u32()?,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        put_str8(out, "group", self.group)?;
        put_str8(out, "topic", self.topic.as_str())?;
        out.put_u32(self.partition);
        Ok(())
    }
}

/// The answer: the next offset for the group, `None` if it never committed.
pub(crate) fn decode_response(r: &mut Reader<'_>) -> Result<Option<u64>, WireError> {
    let has = r.u8()?;
    let offset = r.u64()?;
    match has {
        0 => Ok(None),
        1 => Ok(Some(offset)),
        other => Err(WireError::InvalidField {
            field: "has",
            value: u64::from(other),
        }),
    }
}

pub(crate) fn encode_response(offset: Option<u64>, out: &mut BytesMut) {
    out.put_u8(u8::from(offset.is_some()));
    out.put_u64(offset.unwrap_or(0));
}
