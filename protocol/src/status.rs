//! Stable numeric status codes carried in every response.

/// The outcome of a request, as a stable `u16` on the wire.
///
/// Numbers are never reused: a retired code stays reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// The topic does not exist and was not created (auto-create off, or a delete/describe).
    UnknownTopic = 1,
    /// The topic name breaks the naming rules.
    InvalidTopicName = 2,
    /// The fetch offset is below the log start or above the high watermark.
    OffsetOutOfRange = 3,
    /// A frame or batch payload exceeds the broker's limit.
    PayloadTooLarge = 4,
    /// A record batch failed its CRC, had a bad magic or declared zero records.
    CorruptBatch = 5,
    /// The broker could not read or write its storage.
    StorageError = 6,
    /// The request was malformed.
    InvalidRequest = 7,
    /// A durable acknowledgement was asked of a broker that never fsyncs (`fsync = never`).
    NotDurable = 8,
    /// The broker is shutting down; retry elsewhere or later.
    ShuttingDown = 9,
    /// The request is not allowed.
    Unauthorized = 10,
    /// The partition does not exist in this topic.
    UnknownPartition = 11,
    /// The topic already exists (CreateTopic).
    TopicExists = 12,
    /// The operation code is not known to this broker.
    UnknownOp = 13,
    /// A record batch key exceeds the broker's limit.
    KeyTooLarge = 14,
    /// The requested range is stored but corrupt on disk and is not served.
    CorruptData = 15,
    /// The peer speaks another protocol version.
    UnsupportedVersion = 16,
    /// The broker has reached `max_connections`.
    TooManyConnections = 17,
    /// The connection was idle too long or did not finish the handshake in time.
    Timeout = 18,
    /// A committed offset lies beyond the end of the log.
    OffsetAheadOfLog = 19,
    /// A conditional produce expected another log end; nothing was appended.
    /// Carries the partition's bounds: the log start and the log end.
    EndMoved = 20,
    /// Every durable batch of the partition is claimed.
    NothingToClaim = 21,
    /// The caller's rate for this request is spent; retry later.
    RateLimited = 22,
}

impl Status {
    /// Every defined status, for exhaustive tests and documentation.
    pub const ALL: [Status; 23] = [
        Status::Ok,
        Status::UnknownTopic,
        Status::InvalidTopicName,
        Status::OffsetOutOfRange,
        Status::PayloadTooLarge,
        Status::CorruptBatch,
        Status::StorageError,
        Status::InvalidRequest,
        Status::NotDurable,
        Status::ShuttingDown,
        Status::Unauthorized,
        Status::UnknownPartition,
        Status::TopicExists,
        Status::UnknownOp,
        Status::KeyTooLarge,
        Status::CorruptData,
        Status::UnsupportedVersion,
        Status::TooManyConnections,
        Status::Timeout,
        Status::OffsetAheadOfLog,
        Status::EndMoved,
        Status::NothingToClaim,
        Status::RateLimited,
    ];

    /// The wire value.
    pub fn code(self) -> u16 {
        self as u16
    }

    /// Decode a wire value; `None` for a code this version does not know.
    pub fn from_code(code: u16) -> Option<Status> {
        Status::ALL.get(usize::from(code)).copied()
    }

    /// Whether a refusal with this status carries two offsets after its
    /// message: `(log_start, high_watermark)` for `OffsetOutOfRange`,
    /// `(log_start, end)` for `EndMoved`.
    pub fn carries_bounds(self) -> bool {
        matches!(self, Status::OffsetOutOfRange | Status::EndMoved)
    }

    /// Whether a client may retry the same request (on this or a new connection).
    pub fn is_retriable(self) -> bool {
        matches!(
            self,
            Status::StorageError
                | Status::ShuttingDown
                | Status::TooManyConnections
                | Status::Timeout
        )
    }

    /// A short stable name, as used in logs and error messages.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "Ok",
            Status::UnknownTopic => "UnknownTopic",
            Status::InvalidTopicName => "InvalidTopicName",
            Status::OffsetOutOfRange => "OffsetOutOfRange",
            Status::PayloadTooLarge => "PayloadTooLarge",
            Status::CorruptBatch => "CorruptBatch",
            Status::StorageError => "StorageError",
            Status::InvalidRequest => "InvalidRequest",
            Status::NotDurable => "NotDurable",
            Status::ShuttingDown => "ShuttingDown",
            Status::Unauthorized => "Unauthorized",
            Status::UnknownPartition => "UnknownPartition",
            Status::TopicExists => "TopicExists",
            Status::UnknownOp => "UnknownOp",
            Status::KeyTooLarge => "KeyTooLarge",
            Status::CorruptData => "CorruptData",
            Status::UnsupportedVersion => "UnsupportedVersion",
            Status::TooManyConnections => "TooManyConnections",
            Status::Timeout => "Timeout",
            Status::OffsetAheadOfLog => "OffsetAheadOfLog",
            Status::EndMoved => "EndMoved",
            Status::NothingToClaim => "NothingToClaim",
            Status::RateLimited => "RateLimited",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.name(), self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_dense_stable_and_round_trip() {
        for (i, s) in Status::ALL.iter().enumerate() {
            assert_eq!(usize::from(s.code()), i, "{s} is out of place in ALL");
            assert_eq!(Status::from_code(s.code()), Some(*s));
        }
        assert_eq!(Status::from_code(Status::ALL.len() as u16), None);
        assert_eq!(Status::from_code(u16::MAX), None);
        // Pin the numbers written in docs/PROTOCOL.md: they must never change.
        assert_eq!(Status::OffsetOutOfRange.code(), 3);
        assert_eq!(Status::CorruptBatch.code(), 5);
        assert_eq!(Status::NotDurable.code(), 8);
        assert_eq!(Status::Unauthorized.code(), 10);
        assert_eq!(Status::OffsetAheadOfLog.code(), 19);
        assert_eq!(Status::EndMoved.code(), 20);
        assert_eq!(Status::NothingToClaim.code(), 21);
        assert_eq!(Status::RateLimited.code(), 22);
    }
}
