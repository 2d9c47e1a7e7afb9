//! A bounds-checked big-endian reader over a byte slice, shared by the record and
//! key-file parsers so no field is ever read by a bare slice index.

/// Not enough bytes: `need` more were required at an offset where only `have` remain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Eof {
    pub(crate) need: usize,
    pub(crate) have: usize,
}

/// Cursor over `buf`; every read either returns the bytes or [`Eof`].
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Bytes consumed so far.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Eof> {
        let have = self.remaining();
        if n > have {
            return Err(Eof { need: n, have });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], Eof> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, Eof> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, Eof> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, Eof> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, Eof> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// Everything not yet consumed.
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_big_endian_and_reports_shortfall() {
        let mut r = Reader::new(&[0x01, 0x02, 0x03, 0x04, 0x05]);
        assert_eq!(r.u16(), Ok(0x0102));
        assert_eq!(r.position(), 2);
        assert_eq!(r.u32(), Err(Eof { need: 4, have: 3 }));
        // A failed read consumes nothing.
        assert_eq!(r.remaining(), 3);
        assert_eq!(r.u8(), Ok(0x03));
        assert_eq!(r.rest(), &[0x04, 0x05]);
        assert_eq!(r.remaining(), 0);
    }
}
