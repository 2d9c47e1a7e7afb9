//! Names on the NATS side: streams, subjects and headers.
//!
//! - One stream per partition: `HERMIT_<topic>_<partition>`, so every
//!   partition is its own Raft group and partitions of one topic spread over
//!   the cluster's servers.
//! - A partition's subject: `hermit.<topic>.<partition>`; for a compacted
//!   topic one subject per key under it, `hermit.<topic>.<partition>.<key
//!   token>`, so that `max_msgs_per_subject = 1` keeps the newest batch per key.
//! - Committed offsets: one subject per group, topic and partition in the
//!   stream `HERMIT_OFFSETS`, `hermit-offsets.<group token>.<topic>.<partition>`.
//! - Claim states: one subject per topic and partition in the same stream,
//!   `hermit-offsets.claim.<topic>.<partition>` (a group token starts with
//!   `g`, so `claim` is never one).
//!
//! Topic names (`[A-Za-z0-9._-]`) cannot go into NATS names as they are,
//! since `.` separates subject tokens and is not allowed in stream names:
//! `.` becomes `~`, which topic names never contain, so the mapping is
//! one-to-one. Group names and keys are arbitrary bytes and are written as
//! unpadded base64url (keys longer than [`MAX_PLAIN_KEY`] as their SHA-256).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// A topic's partition.
pub(crate) type PartKey = (std::sync::Arc<str>, u32);

/// Longest stream name: JetStream stores a stream in a directory of that
/// name, and file names are at most 255 bytes. With the `HERMIT_` prefix and
/// a partition suffix, this leaves topic names of up to 246 bytes (partition
/// 0) to 243 bytes (partition 4,095) of the broker's 249.
pub(crate) const MAX_STREAM_NAME: usize = 255;

/// Prefix of the stream of every partition.
pub(crate) const STREAM_PREFIX: &str = "HERMIT_";
/// First subject token of every partition.
pub(crate) const SUBJECT_ROOT: &str = "hermit";
/// The stream of committed offsets.
pub(crate) const OFFSETS_STREAM: &str = "HERMIT_OFFSETS";
/// First subject token of committed offsets.
pub(crate) const OFFSETS_ROOT: &str = "hermit-offsets";

/// Message headers carrying the record batch header (what the broker would
/// store in the 33-byte header). Values are ASCII decimal, keys base64url.
pub(crate) const H_COUNT: &str = "Hermit-Count";
pub(crate) const H_KEY: &str = "Hermit-Key";
pub(crate) const H_TIMESTAMP: &str = "Hermit-Ts";
pub(crate) const H_CRC: &str = "Hermit-Crc";

/// Keys up to this length go into a compacted topic's subject as they are
/// (base64url: 4/3 longer); longer keys as their SHA-256, so that the subject
/// stays far below NATS's 4 KiB control line. Blinded keys are 16 bytes.
pub(crate) const MAX_PLAIN_KEY: usize = 64;

/// `topic` with `.` written as `~`.
pub(crate) fn topic_token(topic: &str) -> String {
    topic.replace('.', "~")
}

/// The stream holding `partition` of `topic`.
pub(crate) fn stream_name(topic: &str, partition: u32) -> String {
    format!("{STREAM_PREFIX}{}_{partition}", topic_token(topic))
}

/// The topic and partition of a stream this transport created, or `None`
/// for any other stream.
pub(crate) fn parse_stream_name(name: &str) -> Option<(String, u32)> {
    let rest = name.strip_prefix(STREAM_PREFIX)?;
    let (topic, partition) = rest.rsplit_once('_')?;
    if partition.is_empty() || !partition.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let partition: u32 = partition.parse().ok()?;
    let topic = topic.replace('~', ".");
    hermit_protocol::topic::TopicName::new(topic.as_str()).ok()?;
    Some((topic, partition))
}

/// The subject of a partition (of a delete-policy topic).
pub(crate) fn partition_subject(topic: &str, partition: u32) -> String {
    format!("{SUBJECT_ROOT}.{}.{partition}", topic_token(topic))
}

/// The subject filter of a compacted partition: one subject per key below it.
pub(crate) fn compacted_filter(topic: &str, partition: u32) -> String {
    format!("{}.*", partition_subject(topic, partition))
}

/// Every subject of every partition of `topic` (to find its streams).
pub(crate) fn topic_filter(topic: &str) -> String {
    format!("{SUBJECT_ROOT}.{}.>", topic_token(topic))
}

/// The subject token of a batch key in a compacted topic: `k` + the key, or
/// `h` + its SHA-256 for long keys (base64url never starts a token with
/// anything that collides: the first letter says which).
pub(crate) fn key_token(key: &[u8]) -> String {
    if key.len() <= MAX_PLAIN_KEY {
        format!("k{}", URL_SAFE_NO_PAD.encode(key))
    } else {
        format!("h{}", URL_SAFE_NO_PAD.encode(Sha256::digest(key)))
    }
}

/// The subject of a compacted partition's key.
pub(crate) fn key_subject(topic: &str, partition: u32, key: &[u8]) -> String {
    format!("{}.{}", partition_subject(topic, partition), key_token(key))
}

/// The subject of a group's committed offset.
pub(crate) fn offsets_subject(group: &str, topic: &str, partition: u32) -> String {
    format!(
        "{OFFSETS_ROOT}.g{}.{}.{partition}",
        URL_SAFE_NO_PAD.encode(group.as_bytes()),
        topic_token(topic)
    )
}

/// Second subject token of the claim states in the offsets stream.
pub(crate) const CLAIMS_TOKEN: &str = "claim";

/// The subject of a partition's claim state.
pub(crate) fn claims_subject(topic: &str, partition: u32) -> String {
    format!(
        "{OFFSETS_ROOT}.{CLAIMS_TOKEN}.{}.{partition}",
        topic_token(topic)
    )
}

/// Every committed offset and claim state of `topic`, whatever the group
/// and partition.
pub(crate) fn offsets_topic_filter(topic: &str) -> String {
    format!("{OFFSETS_ROOT}.*.{}.*", topic_token(topic))
}

/// Base64url for header values (keys).
pub(crate) fn encode_b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Inverse of [`encode_b64`].
pub(crate) fn decode_b64(s: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(s).ok()
}

/// What is known of one partition's stream.
#[derive(Debug)]
pub(crate) struct PartInfo {
    pub stream: String,
    /// `hermit.<topic>.<partition>`.
    pub subject: String,
    /// Compacted: one subject per key below `subject`.
    pub compacted: bool,
}

impl PartInfo {
    /// The subject a batch with `key` goes to.
    pub(super) fn subject_for(&self, topic: &str, partition: u32, key: &[u8]) -> String {
        if self.compacted {
            key_subject(topic, partition, key)
        } else {
            self.subject.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_for_a_dotted_topic() {
        assert_eq!(stream_name("chat.room_1", 3), "HERMIT_chat~room_1_3");
        assert_eq!(partition_subject("chat.room_1", 3), "hermit.chat~room_1.3");
        assert_eq!(
            parse_stream_name("HERMIT_chat~room_1_3"),
            Some(("chat.room_1".to_owned(), 3))
        );
        assert_eq!(parse_stream_name("HERMIT_OFFSETS"), None);
        assert_eq!(parse_stream_name("ORDERS_1"), None);
        assert_eq!(parse_stream_name("HERMIT__1"), None, "empty topic");
        assert_eq!(key_token(b""), "k");
        assert!(key_token(&[7u8; 65]).starts_with('h'));
        assert_eq!(
            offsets_subject("readers", "chat.room", 0),
            "hermit-offsets.gcmVhZGVycw.chat~room.0"
        );
        assert_eq!(
            claims_subject("chat.room", 2),
            "hermit-offsets.claim.chat~room.2"
        );
        // A group's token starts with `g`: no group is `claim`.
        assert!(offsets_subject("", "t", 0).starts_with("hermit-offsets.g."));
    }

    proptest! {
        #[test]
        fn stream_names_round_trip(topic in "[A-Za-z0-9._-]{1,200}", partition in any::<u32>()) {
            prop_assume!(hermit_protocol::topic::TopicName::new(topic.as_str()).is_ok());
            let name = stream_name(&topic, partition);
            prop_assert!(!name.contains(['.', '*', '>', ' ']));
            prop_assert_eq!(parse_stream_name(&name), Some((topic, partition)));
        }

        #[test]
        fn tokens_are_single_subject_tokens(key in proptest::collection::vec(any::<u8>(), 0..200), group in "\\PC{1,40}") {
            for token in [key_token(&key), offsets_subject(&group, "t", 0)] {
                prop_assert!(!token.contains(['*', '>', ' ', '\t', '\r', '\n']));
            }
            prop_assert!(!key_token(&key).contains('.'));
        }
    }
}
