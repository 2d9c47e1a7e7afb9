//! Checked big-endian primitives shared by every decoder and encoder — in
//! this crate and in the client's envelope and key-file parsers: one
//! bounds-checked [`Reader`], so no field anywhere is read by a bare slice
//! index.

use bytes::BufMut;

use crate::error::WireError;

/// A read ran past the end: `need` bytes were asked for at position `at`,
/// where only `have` were left. A failed read consumes nothing.
///
/// Decoders of wire frames turn it into [`WireError::UnexpectedEof`] with `?`
/// (which counts from the start of the buffer); other parsers map it into
/// their own "truncated" error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eof {
    /// Position of the read that failed.
    pub at: usize,
    /// Bytes the read wanted.
    pub need: usize,
    /// Bytes that were left.
    pub have: usize,
}

impl From<Eof> for WireError {
    fn from(e: Eof) -> Self {
        WireError::UnexpectedEof {
            need: e.at.saturating_add(e.need),
            have: e.at + e.have,
        }
    }
}

/// A bounds-checked reader over a byte slice. Every read either returns the
/// value or [`Eof`]; nothing here can panic.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Start reading at the beginning of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// The unread tail.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    /// Take `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Eof> {
        let have = self.remaining();
        if n > have {
            return Err(Eof {
                at: self.pos,
                need: n,
                have,
            });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Take a fixed-size array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Eof> {
        let b = self.bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// Read a `u8`.
    pub fn u8(&mut self) -> Result<u8, Eof> {
        Ok(self.array::<1>()?[0])
    }

    /// Read a big-endian `u16`.
    pub fn u16(&mut self) -> Result<u16, Eof> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// Read a big-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, Eof> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// Read a big-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, Eof> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// Read a `u8`-length-prefixed byte string.
    pub fn bytes8(&mut self) -> Result<&'a [u8], Eof> {
        let n = self.u8()?;
        self.bytes(usize::from(n))
    }

    /// Read a `u16`-length-prefixed UTF-8 string.
    pub fn str16(&mut self, field: &'static str) -> Result<&'a str, WireError> {
        let n = self.u16()?;
        let b = self.bytes(usize::from(n))?;
        std::str::from_utf8(b).map_err(|_| WireError::InvalidUtf8(field))
    }

    /// Read a `u8`-length-prefixed UTF-8 string.
    pub fn str8(&mut self, field: &'static str) -> Result<&'a str, WireError> {
        let b = self.bytes8()?;
        std::str::from_utf8(b).map_err(|_| WireError::InvalidUtf8(field))
    }

    /// Fail unless every byte was consumed.
    pub fn finish(&self) -> Result<(), WireError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(WireError::LengthMismatch {
                frame: self.buf.len() as u64,
                contents: self.pos as u64,
            })
        }
    }
}

/// Write a `u8`-length-prefixed string, refusing anything over 255 bytes.
pub fn put_str8(out: &mut impl BufMut, field: &'static str, s: &str) -> Result<(), WireError> {
    let len = u8::try_from(s.len()).map_err(|_| WireError::TooLong {
        field,
        len: s.len() as u64,
        max: u64::from(u8::MAX),
    })?;
    out.put_u8(len);
    out.put_slice(s.as_bytes());
    Ok(())
}

/// Write a `u16`-length-prefixed string, truncating (at a char boundary) past 65,535 bytes.
///
/// Used only for human-readable error messages, where truncation is harmless.
pub fn put_str16_lossy(out: &mut impl BufMut, s: &str) {
    let mut end = s.len().min(usize::from(u16::MAX));
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out.put_u16(end as u16);
    out.put_slice(&s.as_bytes()[..end]);
}

/// A collection's length as the `u32` count the wire carries.
pub fn len_u32(field: &'static str, n: usize) -> Result<u32, WireError> {
    u32::try_from(n).map_err(|_| WireError::TooLong {
        field,
        len: n as u64,
        max: u64::from(u32::MAX),
    })
}

/// Write the length prefix of the frame that starts at `start` in `out`
/// (written as a placeholder when the frame began): the bytes after it.
pub fn patch_len(out: &mut bytes::BytesMut, start: usize) -> Result<(), WireError> {
    let len = out.len() - start - 4;
    let len = u32::try_from(len).map_err(|_| WireError::TooLong {
        field: "frame",
        len: len as u64,
        max: u64::from(u32::MAX),
    })?;
    out[start..start + 4].copy_from_slice(&len.to_be_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_reads_report_need_and_have() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(r.u16().unwrap(), 0x0102);
        let e = r.u32().unwrap_err();
        assert_eq!(
            e,
            Eof {
                at: 2,
                need: 4,
                have: 1
            }
        );
        assert_eq!(
            WireError::from(e),
            WireError::UnexpectedEof { need: 6, have: 3 }
        );
        // A failed read consumes nothing.
        assert_eq!(r.remaining(), 1);
        let mut r = Reader::new(&[5, b'a']);
        assert_eq!(
            WireError::from(r.bytes8().unwrap_err()),
            WireError::UnexpectedEof { need: 6, have: 2 }
        );
        let mut r = Reader::new(&[]);
        assert!(r.bytes(usize::MAX).is_err());
    }

    #[test]
    fn lossy_str16_truncates_at_char_boundary() {
        let s = "é".repeat(40_000); // 80,000 bytes
        let mut out = Vec::new();
        put_str16_lossy(&mut out, &s);
        let mut r = Reader::new(&out);
        let back = r.str16("msg").unwrap();
        assert_eq!(back.len(), 65_534);
        r.finish().unwrap();
    }
}
