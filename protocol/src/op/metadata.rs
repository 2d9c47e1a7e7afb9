//! `Metadata` (0x05): describe every topic, or one.
//!
//! ```text
//! request : (empty) for every topic, or topic
//! response: u32 n, then n × (topic, cleanup u8, retention_ms u64, retention_bytes u64,
//!           u32 partitions, then each: partition u32, log_start u64, high_watermark u64)
//! ```
//! The topic list is shared with `ListTopics`.

use bytes::{BufMut, BytesMut};

use super::create_topic::Cleanup;
use super::fields;
use crate::codec::{Reader, len_u32, put_str8};
use crate::error::WireError;
use crate::header::RESPONSE_HEADER_LEN;
use crate::topic::TopicName;

/// Bytes of a successful `Metadata` response besides its topics (after the
/// length prefix): op, correlation id, status and the count.
pub const METADATA_FIXED_LEN: usize = RESPONSE_HEADER_LEN - 4 + 4;
/// The fewest bytes one topic's metadata takes: a one-byte name and one
/// partition (every topic has at least one).
pub const MIN_TOPIC_METADATA_LEN: usize = TOPIC_METADATA_FIXED_LEN + 1 + PARTITION_METADATA_LEN;
/// Bytes of a topic's metadata besides its name's bytes and its partitions:
/// the name's length byte, cleanup, both retentions, the partition count.
const TOPIC_METADATA_FIXED_LEN: usize = 1 + 1 + 8 + 8 + 4;
/// Bytes of one partition's metadata.
const PARTITION_METADATA_LEN: usize = 4 + 8 + 8;

/// A metadata request: every topic (`None`) or one.
pub type Metadata<'a> = Option<TopicName<&'a str>>;

pub(crate) fn decode<'a>(r: &mut Reader<'a>) -> Result<Metadata<'a>, WireError> {
    if r.remaining() == 0 {
        Ok(None)
    } else {
        Ok(Some(fields::topic(r)?))
    }
}

pub(crate) fn encode(topic: &Metadata<'_>, out: &mut BytesMut) -> Result<(), WireError> {
    match topic {
        Some(t) => put_str8(out, "topic", t.as_str()),
        None => Ok(()),
    }
}

/// Metadata of one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionMetadata {
    /// Partition number.
    pub partition: u32,
    /// First offset still stored.
    pub log_start: u64,
    /// Offset the next record will get (visible to consumers).
    pub high_watermark: u64,
}

/// Metadata of one topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMetadata {
    /// Name.
    pub name: String,
    /// Cleanup policy.
    pub cleanup: Cleanup,
    /// Effective retention by age in ms (`u64::MAX` = forever).
    pub retention_ms: u64,
    /// Effective retention by size in bytes per partition (`u64::MAX` = unlimited).
    pub retention_bytes: u64,
    /// Partitions, in order.
    pub partitions: Vec<PartitionMetadata>,
}

impl TopicMetadata {
    /// Bytes of its encoding in a `Metadata` or `ListTopics` response, so a
    /// sender can stop a page before it outgrows a frame.
    pub fn encoded_len(&self) -> usize {
        TOPIC_METADATA_FIXED_LEN + self.name.len() + self.partitions.len() * PARTITION_METADATA_LEN
    }
}

/// The topic list of `Metadata` and `ListTopics`: a count, then each topic.
pub(crate) fn put_topics(out: &mut BytesMut, topics: &[TopicMetadata]) -> Result<(), WireError> {
    out.put_u32(len_u32("topics", topics.len())?);
    for t in topics {
        put_str8(out, "topic", &t.name)?;
        out.put_u8(t.cleanup as u8);
        out.put_u64(t.retention_ms);
        out.put_u64(t.retention_bytes);
        out.put_u32(len_u32("partitions", t.partitions.len())?);
        for p in &t.partitions {
            out.put_u32(p.partition);
            out.put_u64(p.log_start);
            out.put_u64(p.high_watermark);
        }
    }
    Ok(())
}

/// The topic list of `Metadata` and `ListTopics`; `max` bounds the count
/// (a page holds at most [`MAX_LIST_LIMIT`](super::list_topics::MAX_LIST_LIMIT)).
pub(crate) fn topics(
    r: &mut Reader<'_>,
    max: Option<u32>,
) -> Result<Vec<TopicMetadata>, WireError> {
    let n = r.u32()?;
    if let Some(max) = max
        && n > max
    {
        return Err(WireError::InvalidField {
            field: "topic count",
            value: u64::from(n),
        });
    }
    // Each topic takes at least 22 bytes: refuse counts the frame cannot hold
    // before reserving anything.
    check_count(n, 22, r.remaining())?;
    let mut topics = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let name = r.str8("topic")?;
        TopicName::new_any(name).map_err(|source| WireError::InvalidName {
            what: "topic",
            source,
        })?;
        let cleanup = Cleanup::from_u8(r.u8()?)?;
        let retention_ms = r.u64()?;
        let retention_bytes = r.u64()?;
        let np = r.u32()?;
        check_count(np, PARTITION_METADATA_LEN, r.remaining())?;
        let mut partitions = Vec::with_capacity(np as usize);
        for _ in 0..np {
            partitions.push(PartitionMetadata {
                partition: r.u32()?,
                log_start: r.u64()?,
                high_watermark: r.u64()?,
            });
        }
        topics.push(TopicMetadata {
            name: name.to_owned(),
            cleanup,
            retention_ms,
            retention_bytes,
            partitions,
        });
    }
    Ok(topics)
}

fn check_count(n: u32, min_each: usize, remaining: usize) -> Result<(), WireError> {
    if (n as usize).saturating_mul(min_each) > remaining {
        return Err(WireError::UnexpectedEof {
            need: (n as usize).saturating_mul(min_each),
            have: remaining,
        });
    }
    Ok(())
}
