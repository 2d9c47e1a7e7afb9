//! JetStream's API as the transport uses it: the bodies of its requests
//! and answers, its errors as typed client errors, and the checks of what
//! the server kept of a stream configuration.

use std::time::Duration;

use async_nats::jetstream::stream;
use async_nats::jetstream::{self, ErrorCode};
use hermit_protocol::Status;
use serde::Deserialize;

use super::names::{MAX_STREAM_NAME, stream_name};
use crate::error::ClientError;
use crate::transport::nats_offset::NatsOffset;

/// How long JetStream remembers a batch's id to drop a resent duplicate.
/// It covers the producer's retries (a resend happens within the request
/// timeout plus backoff, well inside two minutes by default).
pub(super) const DEDUP_WINDOW: Duration = Duration::from_secs(120);

/// Replicas tried when the `replicas` option is not given and the server's
/// answer is not known yet: a cluster gets 3, a single server says
/// "replicas > 1 not supported in non-clustered mode" and gets 1.
pub(super) const CLUSTER_REPLICAS: usize = 3;

#[derive(Debug, Deserialize)]
/// A page of `STREAM.LIST`.
pub(super) struct StreamList {
    #[serde(default)]
    pub(super) total: usize,
    #[serde(default)]
    pub(super) streams: Option<Vec<stream::Info>>,
}

/// An empty request body: `{}` (the API refuses `null` where it expects nothing).
#[derive(serde::Serialize)]
pub(super) struct Empty {}

/// The answer of `STREAM.DELETE` and `STREAM.PURGE`.
#[derive(Debug, Deserialize)]
pub(super) struct Success {
    #[serde(default)]
    pub(super) success: bool,
}

/// The answer of `STREAM.MSG.GET`.
#[derive(Debug, Deserialize)]
pub(super) struct RawGet {
    pub(super) message: RawMessage,
}

/// A stored message, as `STREAM.MSG.GET` gives it.
#[derive(Debug, Deserialize)]
pub(super) struct RawMessage {
    #[serde(default)]
    pub(super) data: String,
}

/// The answer of `STREAM.MSG.GET` with the whole message: sequence,
/// headers and payload.
#[derive(Debug, Deserialize)]
pub(super) struct StoredGet {
    pub(super) message: stream::RawMessage,
}

/// JetStream's error code of `e`, as a number (async-nats names only some).
pub(super) fn error_number(e: &jetstream::Error) -> Option<u64> {
    serde_json::to_value(e).ok()?.get("err_code")?.as_u64()
}

/// `Nats-Expected-Last-Subject-Sequence` refused because another write to
/// the subject is in flight (nats-server 2.11+: 10164, "wrong last
/// sequence" without a sequence), or not answerable yet after a leader
/// change (10163): the compare-and-set lost, or may be tried again.
pub(super) fn subject_cas_busy(e: &jetstream::Error) -> bool {
    matches!(error_number(e), Some(10163 | 10164))
}

/// The stream's last sequence a refusal with error 10071 ("wrong last
/// sequence: N") reports: the server's `N`, which it read under the
/// stream's lock as it refused (on a cluster: the leader's, counting the
/// writes it has proposed).
pub(super) fn reported_last_sequence(e: &jetstream::Error) -> Option<u64> {
    if e.error_code() != ErrorCode::STREAM_WRONG_LAST_SEQUENCE {
        return None;
    }
    let value = serde_json::to_value(e).ok()?;
    let description = value.get("description")?.as_str()?;
    description
        .strip_prefix("wrong last sequence:")?
        .trim()
        .parse()
        .ok()
}

/// The stream of a partition, refused when its name would not fit in a
/// file name (JetStream keeps each stream in a directory of that name).
pub(super) fn checked_stream_name(topic: &str, partition: u32) -> Result<String, ClientError> {
    let name = stream_name(topic, partition);
    if name.len() > MAX_STREAM_NAME {
        return Err(ClientError::InvalidArgument(format!(
            "topic {topic:?}: its stream name {name:?} is longer than the {MAX_STREAM_NAME} bytes \
             a NATS stream name can have (topics up to 243 bytes always fit)"
        )));
    }
    Ok(name)
}

/// (log start, high watermark) of a partition's stream as offsets.
pub(super) fn bounds(state: &stream::State) -> (u64, u64) {
    let next = state.last_sequence.saturating_add(1);
    // An empty stream reports first = last + 1, a new one first = 0.
    let first = if state.messages == 0 {
        next
    } else {
        state.first_sequence.max(1)
    };
    (
        NatsOffset::sequence_start(first),
        NatsOffset::sequence_start(next),
    )
}

/// Map a JetStream API error to a typed client error.
pub(super) fn js_error(what: &str, e: &jetstream::Error) -> ClientError {
    let code = e.error_code();
    let status = if code == ErrorCode::STREAM_NOT_FOUND {
        Status::UnknownTopic
    } else if code == ErrorCode::STREAM_NAME_EXIST {
        Status::TopicExists
    } else if code == ErrorCode::STREAM_MESSAGE_EXCEEDS_MAXIMUM {
        Status::PayloadTooLarge
    } else if [
        ErrorCode::INSUFFICIENT_RESOURCES,
        ErrorCode::CLUSTER_NO_PEERS,
        ErrorCode::CLUSTER_NOT_AVAILABLE,
        ErrorCode::CLUSTER_NOT_ACTIVE,
        ErrorCode::CLUSTER_NOT_LEADER,
        ErrorCode::CLUSTER_INCOMPLETE,
        ErrorCode::CLUSTER_NOT_ASSIGNED,
        ErrorCode::RAFT_GENERAL,
        ErrorCode::STREAM_STORE_FAILED,
        ErrorCode::STORAGE_RESOURCES_EXCEEDED,
        ErrorCode::MEMORY_RESOURCES_EXCEEDED,
        ErrorCode::STREAM_ASSIGNMENT,
    ]
    .contains(&code)
        || e.code() == 503
    {
        // The cluster may have this again once a leader is elected or a
        // node is back: the same request may succeed later.
        Status::StorageError
    } else if [
        ErrorCode::JETSTREAM_NOT_ENABLED,
        ErrorCode::JETSTREAM_NOT_ENABLED_FOR_ACCOUNT,
        ErrorCode::NO_ACCOUNT,
    ]
    .contains(&code)
    {
        Status::Unauthorized
    } else {
        Status::InvalidRequest
    };
    ClientError::Broker {
        status,
        message: format!("nats: {what}: {e}"),
    }
}

/// Compare what the server kept with what was asked: NATS ignores options
/// it does not know, so a silently dropped setting shows up here.
pub(super) fn check_stream(want: &stream::Config, got: &stream::Config) -> Result<(), ClientError> {
    let mut diffs = Vec::new();
    macro_rules! same {
        ($($field:ident),*) => {$(
            if want.$field != got.$field {
                diffs.push(format!(
                    "{} = {:?} (asked {:?})",
                    stringify!($field),
                    got.$field,
                    want.$field
                ));
            }
        )*};
    }
    same!(
        name,
        subjects,
        retention,
        discard,
        max_age,
        max_bytes,
        max_messages,
        max_messages_per_subject,
        storage,
        num_replicas,
        duplicate_window
    );
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(ClientError::Broker {
            status: Status::InvalidRequest,
            message: format!(
                "nats: stream {} was created with other settings than asked: {}",
                want.name,
                diffs.join(", ")
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(code: u64, description: &str) -> jetstream::Error {
        serde_json::from_value(serde_json::json!({
            "code": 400, "err_code": code, "description": description
        }))
        .unwrap()
    }

    #[test]
    fn a_wrong_last_sequence_refusal_says_the_sequence() {
        assert_eq!(
            reported_last_sequence(&error(10071, "wrong last sequence: 17")),
            Some(17)
        );
        assert_eq!(
            reported_last_sequence(&error(10071, "wrong last sequence")),
            None
        );
        assert_eq!(
            reported_last_sequence(&error(10164, "wrong last sequence: 3")),
            None
        );
        assert!(subject_cas_busy(&error(10164, "wrong last sequence")));
        assert!(subject_cas_busy(&error(
            10163,
            "expected last sequence per subject temporarily unavailable"
        )));
        assert!(!subject_cas_busy(&error(10071, "wrong last sequence: 1")));
        assert_eq!(error_number(&error(10037, "no message found")), Some(10037));
    }
}
