//! What a receiver refuses while checking frames, before it allocates.

use crate::header::REQUEST_HEADER_LEN;
use crate::record::HEADER_LEN;

/// Largest frame (after the length prefix) of any request other than Produce.
///
/// Those requests carry at most two names and a few integers; refusing
/// anything larger early means only a produce frame can make a receiver
/// reserve a large buffer, and only after its batch header passed the limits.
pub const MAX_CONTROL_FRAME: u32 = 1024;
/// Default limit on a record batch payload: 50 MiB.
pub const DEFAULT_MAX_PAYLOAD: u32 = 50 * 1024 * 1024;
/// Default limit on a record batch key.
pub const DEFAULT_MAX_KEY: u32 = 4096;

/// Limits a receiver enforces while checking frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest frame (bytes after the length prefix).
    pub max_frame: u32,
    /// Largest record batch payload.
    pub max_payload: u32,
    /// Largest record batch key.
    pub max_key: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::for_payload(DEFAULT_MAX_PAYLOAD, DEFAULT_MAX_KEY)
    }
}

impl Limits {
    /// Limits whose frame size fits the largest produce frame those payload and key limits allow.
    pub fn for_payload(max_payload: u32, max_key: u32) -> Self {
        let max_frame = u64::from(max_payload)
            + u64::from(max_key)
            + (REQUEST_HEADER_LEN + 1 + 255 + 4 + 1 + HEADER_LEN) as u64;
        Limits {
            max_frame: u32::try_from(max_frame).unwrap_or(u32::MAX),
            max_payload,
            max_key,
        }
    }
}
