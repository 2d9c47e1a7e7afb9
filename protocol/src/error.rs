//! The one error type of the wire format.

use crate::status::Status;
use crate::topic::NameError;

/// Why bytes could not be decoded (or a value could not be encoded).
///
/// Every decoder in this crate returns this type; none panics on any input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The input ended before a complete value; `need` bytes were required, `have` were present.
    #[error("unexpected end of input: need {need} bytes, have {have}")]
    UnexpectedEof {
        /// Bytes required to continue.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// A record batch did not start with the expected magic byte.
    #[error("bad record batch magic 0x{found:02x} (expected 0x{expected:02x})")]
    BadMagic {
        /// The byte found.
        found: u8,
        /// The byte expected.
        expected: u8,
    },
    /// The hello did not start with `HMQ`.
    #[error("bad hello: not a HermitMQ client or broker")]
    BadHello,
    /// The peer speaks a protocol version we do not.
    #[error("unsupported protocol version {found} (this side speaks {supported})")]
    UnsupportedVersion {
        /// The version received.
        found: u8,
        /// The version this side speaks.
        supported: u8,
    },
    /// A frame's length prefix exceeds the limit.
    #[error("frame of {len} bytes exceeds the limit of {max} bytes")]
    FrameTooLarge {
        /// Length announced.
        len: u64,
        /// Limit in force.
        max: u64,
    },
    /// A frame is shorter than its fixed fields.
    #[error("frame of {len} bytes is shorter than the minimum of {min}")]
    FrameTooShort {
        /// Length announced.
        len: u64,
        /// Minimum length.
        min: u64,
    },
    /// A record batch payload exceeds the limit.
    #[error("payload of {len} bytes exceeds the limit of {max} bytes")]
    PayloadTooLarge {
        /// Payload length announced.
        len: u64,
        /// Limit in force.
        max: u64,
    },
    /// A record batch key exceeds the limit.
    #[error("key of {len} bytes exceeds the limit of {max} bytes")]
    KeyTooLarge {
        /// Key length announced.
        len: u64,
        /// Limit in force.
        max: u64,
    },
    /// The operation code is not one this protocol version defines.
    #[error("unknown operation 0x{0:02x}")]
    UnknownOp(u8),
    /// A topic or group name broke the naming rules.
    #[error("invalid {what} name: {source}")]
    InvalidName {
        /// "topic" or "group".
        what: &'static str,
        /// The rule that was broken.
        source: NameError,
    },
    /// A field held a value outside its domain.
    #[error("invalid {field}: {value}")]
    InvalidField {
        /// Field name.
        field: &'static str,
        /// The offending value, rendered.
        value: u64,
    },
    /// A record batch declared zero records.
    #[error("record batch declares zero records")]
    EmptyBatch,
    /// The CRC32C stored in a batch does not match its bytes.
    #[error("record batch CRC mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}")]
    CrcMismatch {
        /// CRC in the header.
        stored: u32,
        /// CRC of the bytes.
        computed: u32,
    },
    /// The lengths inside a frame disagree with the frame length.
    #[error("frame length {frame} disagrees with its contents ({contents} bytes)")]
    LengthMismatch {
        /// Bytes the frame announced.
        frame: u64,
        /// Bytes its fields account for.
        contents: u64,
    },
    /// A record inside a batch payload is malformed.
    #[error("malformed batch payload: {0}")]
    BadPayload(&'static str),
    /// A string field is not valid UTF-8.
    #[error("{0} is not valid UTF-8")]
    InvalidUtf8(&'static str),
    /// A value is too long to be encoded in its length field.
    #[error("{field} of {len} bytes is too long to encode (max {max})")]
    TooLong {
        /// Field name.
        field: &'static str,
        /// Actual length.
        len: u64,
        /// Largest encodable length.
        max: u64,
    },
}

impl WireError {
    /// The status code a broker answers with when a request fails to decode this way.
    pub fn status(&self) -> Status {
        match self {
            WireError::PayloadTooLarge { .. } | WireError::FrameTooLarge { .. } => {
                Status::PayloadTooLarge
            }
            WireError::KeyTooLarge { .. } => Status::KeyTooLarge,
            WireError::InvalidName { what: "topic", .. } => Status::InvalidTopicName,
            WireError::CrcMismatch { .. } | WireError::BadMagic { .. } | WireError::EmptyBatch => {
                Status::CorruptBatch
            }
            WireError::UnknownOp(_) => Status::UnknownOp,
            WireError::UnsupportedVersion { .. } => Status::UnsupportedVersion,
            _ => Status::InvalidRequest,
        }
    }
}
