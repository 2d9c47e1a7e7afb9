//! `CreateTopic` (0x06): create a topic with its settings.
//!
//! ```text
//! request : topic, partitions u32, cleanup u8 (0 = delete, 1 = compact),
//!           retention_ms u64, retention_bytes u64
//! response: (empty)
//! ```

use bytes::{BufMut, BytesMut};

use super::fields;
use crate::codec::{Reader, put_str8};
use crate::error::WireError;
use crate::topic::TopicName;

/// Largest partition count a topic may have.
pub const MAX_PARTITIONS: u32 = 4096;

/// A topic's cleanup policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Cleanup {
    /// Delete whole old segments by age or size.
    #[default]
    Delete = 0,
    /// Keep the newest batch per key.
    Compact = 1,
}

impl Cleanup {
    /// Decode the wire byte.
    pub fn from_u8(b: u8) -> Result<Cleanup, WireError> {
        match b {
            0 => Ok(Cleanup::Delete),
            1 => Ok(Cleanup::Compact),
            other => Err(WireError::InvalidField {
                field: "cleanup",
                value: u64::from(other),
            }),
        }
    }
}

/// Settings of a new topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicSettings {
    /// Number of partitions, 1..=[`MAX_PARTITIONS`].
    pub partitions: u32,
    /// Cleanup policy.
    pub cleanup: Cleanup,
    /// Retention by age in ms; 0 = broker default, `u64::MAX` = forever.
    pub retention_ms: u64,
    /// Retention by size in bytes per partition; 0 = broker default, `u64::MAX` = unlimited.
    pub retention_bytes: u64,
}

/// A create-topic request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateTopic<'a> {
    /// Name.
    pub topic: TopicName<&'a str>,
    /// Settings.
    pub settings: TopicSettings,
}

impl<'a> CreateTopic<'a> {
    pub(crate) fn decode(r: &mut Reader<'a>) -> Result<Self, WireError> {
        let topic = fields::topic(r)?;
        let partitions = r.u32()?;
        if partitions == 0 || partitions > MAX_PARTITIONS {
            return Err(WireError::InvalidField {
                field: "partitions",
                value: u64::from(partitions),
            });
        }
        let cleanup = Cleanup::from_u8(r.u8()?)?;
        Ok(CreateTopic {
            topic,
            settings: TopicSettings {
                partitions,
                cleanup,
                retention_ms: r.u64()?,
                retention_bytes: r.u64()?,
            },
        })
    }

    /// The partition count is not checked here: the receiver's decoder is
    /// the one that refuses.
    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        put_str8(out, "topic", self.topic.as_str())?;
        out.put_u32(self.settings.partitions);
        out.put_u8(self.settings.cleanup as u8);
        out.put_u64(self.settings.retention_ms);
        out.put_u64(self.settings.retention_bytes);
        Ok(())
    }
}
