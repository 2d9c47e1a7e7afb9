//! The fixed start of every frame, read and written in one place.
//!
//! ```text
//! request : u32 len | u8 op      | u32 correlation_id | body
//! response: u32 len | u8 op|0x80 | u32 correlation_id | u16 status | body
//! ```
//! `len` counts the bytes after itself. Whoever needs a field of a frame
//! that is still arriving (a correlation id to route an answer, a length to
//! know when a frame is whole) peeks it here: no byte index elsewhere.

use bytes::BufMut;

/// Bytes before the body of a request: length, op, correlation id.
pub const REQUEST_HEADER_LEN: usize = 9;
/// Bytes before the body of a response: length, op, correlation id, status.
pub const RESPONSE_HEADER_LEN: usize = 11;
/// Set on the op byte of every response.
pub const RESPONSE_BIT: u8 = 0x80;
/// Bytes of the length prefix.
pub const LEN_PREFIX: usize = 4;

const OP_AT: usize = 4;
const CORRELATION_AT: usize = 5;
const STATUS_AT: usize = 9;

/// The length prefix of a frame: the bytes after it. `None` until 4 bytes arrived.
#[inline]
pub fn peek_len(buf: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(buf.get(..LEN_PREFIX)?.try_into().ok()?))
}

/// The header of a request frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestHeader {
    /// Bytes after the length prefix.
    pub len: u32,
    /// The raw op byte (not yet checked to be a known op).
    pub op: u8,
    /// Echoed in the response.
    pub correlation_id: u32,
}

impl RequestHeader {
    /// The header at the start of `buf`; `None` until [`REQUEST_HEADER_LEN`] bytes arrived.
    #[inline]
    pub fn peek(buf: &[u8]) -> Option<RequestHeader> {
        let head = buf.get(..REQUEST_HEADER_LEN)?;
        Some(RequestHeader {
            len: peek_len(head)?,
            op: head[OP_AT],
            correlation_id: u32::from_be_bytes(
                head[CORRELATION_AT..REQUEST_HEADER_LEN].try_into().ok()?,
            ),
        })
    }

    /// Append the header to `out`.
    pub fn put(&self, out: &mut impl BufMut) {
        out.put_u32(self.len);
        out.put_u8(self.op);
        out.put_u32(self.correlation_id);
    }

    /// Overwrite the length prefix of the frame at the start of `frame`
    /// (a head written before its body's length was known). Does nothing
    /// to a shorter buffer.
    pub fn set_len(frame: &mut [u8], len: u32) {
        if let Some(at) = frame.get_mut(..LEN_PREFIX) {
            at.copy_from_slice(&len.to_be_bytes());
        }
    }

    /// Overwrite the correlation id of the request frame at the start of `frame`
    /// (a frame encoded once and sent many times). Does nothing to a shorter buffer.
    pub fn set_correlation_id(frame: &mut [u8], correlation_id: u32) {
        if let Some(at) = frame.get_mut(CORRELATION_AT..REQUEST_HEADER_LEN) {
            at.copy_from_slice(&correlation_id.to_be_bytes());
        }
    }
}

/// The header of a response frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseHeader {
    /// Bytes after the length prefix.
    pub len: u32,
    /// The raw op byte, [`RESPONSE_BIT`] included.
    pub op: u8,
    /// The request's correlation id.
    pub correlation_id: u32,
    /// The raw status code (0 = Ok).
    pub status: u16,
}

impl ResponseHeader {
    /// The header at the start of `buf`; `None` until [`RESPONSE_HEADER_LEN`] bytes arrived.
    #[inline]
    pub fn peek(buf: &[u8]) -> Option<ResponseHeader> {
        let head = buf.get(..RESPONSE_HEADER_LEN)?;
        Some(ResponseHeader {
            len: peek_len(head)?,
            op: head[OP_AT],
            correlation_id: u32::from_be_bytes(head[CORRELATION_AT..STATUS_AT].try_into().ok()?),
            status: u16::from_be_bytes(head[STATUS_AT..RESPONSE_HEADER_LEN].try_into().ok()?),
        })
    }

    /// The op byte without the response bit.
    #[inline]
    pub fn op_code(&self) -> u8 {
        self.op & !RESPONSE_BIT
    }

    /// Whether the status is Ok (code 0).
    #[inline]
    pub fn is_ok(&self) -> bool {
        self.status == 0
    }

    /// The header as bytes.
    pub fn encode(&self) -> [u8; RESPONSE_HEADER_LEN] {
        let mut out = [0u8; RESPONSE_HEADER_LEN];
        out[..OP_AT].copy_from_slice(&self.len.to_be_bytes());
        out[OP_AT] = self.op;
        out[CORRELATION_AT..STATUS_AT].copy_from_slice(&self.correlation_id.to_be_bytes());
        out[STATUS_AT..].copy_from_slice(&self.status.to_be_bytes());
        out
    }

    /// Append the header to `out`.
    pub fn put(&self, out: &mut impl BufMut) {
        out.put_slice(&self.encode());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_round_trip_and_wait_for_their_bytes() {
        let r = RequestHeader {
            len: 0x0102_0304,
            op: 8,
            correlation_id: 0xA0B0_C0D0,
        };
        let mut buf = Vec::new();
        r.put(&mut buf);
        assert_eq!(buf, [1, 2, 3, 4, 8, 0xA0, 0xB0, 0xC0, 0xD0]);
        assert_eq!(RequestHeader::peek(&buf), Some(r));
        assert_eq!(RequestHeader::peek(&buf[..8]), None);
        assert_eq!(peek_len(&buf[..3]), None);
        assert_eq!(peek_len(&buf), Some(0x0102_0304));
        RequestHeader::set_correlation_id(&mut buf, 7);
        RequestHeader::set_len(&mut buf, 5);
        assert_eq!(
            RequestHeader::peek(&buf),
            Some(RequestHeader {
                len: 5,
                op: 8,
                correlation_id: 7
            })
        );
        RequestHeader::set_len(&mut buf[..3], 9);
        assert_eq!(peek_len(&buf), Some(5));

        let s = ResponseHeader {
            len: 7,
            op: 0x82,
            correlation_id: 9,
            status: 3,
        };
        let bytes = s.encode();
        assert_eq!(ResponseHeader::peek(&bytes), Some(s));
        assert_eq!(ResponseHeader::peek(&bytes[..10]), None);
        assert_eq!(s.op_code(), 2);
        assert!(!s.is_ok());
    }
}
