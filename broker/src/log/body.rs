//! Body sources: what a read returns for the bytes of a fetch — a range of
//! an open segment file, or bytes in memory. The network layer sends one
//! without knowing segments: by `sendfile(2)` from the file it names, or by
//! copying what [`BodySource::read_at`] reads. Both go through the I/O seam
//! (`io`), so a simulation can fail them.

use std::fs::File;
use std::io;
use std::sync::Arc;

use bytes::Bytes;

use super::segment::SegmentFile;

/// The bytes of a fetch response, as the log found them (see the module
/// documentation). A file range keeps its segment file open — and a slot
/// unreleased — until it is dropped, so a segment deleted by retention, or
/// a slot moved out, is still sent whole.
#[derive(Debug, Clone)]
pub struct BodySource(Source);

#[derive(Debug, Clone)]
enum Source {
    /// `len` bytes of `file` from `position`.
    File {
        file: Arc<SegmentFile>,
        position: u64,
        len: u64,
    },
    /// Bytes in memory.
    Bytes(Bytes),
}

impl BodySource {
    /// `len` bytes of `file` from `position` (whole batches).
    pub(crate) fn file_range(file: Arc<SegmentFile>, position: u64, len: u64) -> BodySource {
        BodySource(Source::File {
            file,
            position,
            len,
        })
    }

    /// Bytes in memory.
    pub fn bytes(bytes: Bytes) -> BodySource {
        BodySource(Source::Bytes(bytes))
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        match &self.0 {
            Source::File { len, .. } => *len,
            Source::Bytes(b) => b.len() as u64,
        }
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file `sendfile(2)` may send it from, and the position of its
    /// first byte there; `None` for bytes in memory, and for a file the
    /// I/O seam wants read through it ([`BodySource::read_at`]).
    pub fn sendfile_source(&self) -> Option<(&File, u64)> {
        match &self.0 {
            Source::File { file, position, .. } => file
                .io()
                .sendfile_source(&file.file)
                .map(|f| (f, *position)),
            Source::Bytes(_) => None,
        }
    }

    /// Read its bytes from `offset` (counted from its start) into `buf`:
    /// a `pread` through the I/O seam, or a copy. Returns the bytes read,
    /// 0 only when `offset` is its end; a file that ends before the range
    /// does is an `UnexpectedEof` error, and every error names the file.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let want = buf
            .len()
            .min(usize::try_from(self.len().saturating_sub(offset)).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        match &self.0 {
            Source::File { file, position, .. } => {
                match file
                    .io()
                    .read_at(&file.file, &mut buf[..want], position + offset)
                {
                    Ok(0) => Err(self.ended_early()),
                    Ok(n) => Ok(n),
                    Err(e) => Err(io::Error::new(
                        e.kind(),
                        format!("reading segment {}: {e}", file.path.display()),
                    )),
                }
            }
            Source::Bytes(b) => {
                // In bounds: `want` is at most what is left after `offset`.
                let from = offset as usize;
                buf[..want].copy_from_slice(&b[from..from + want]);
                Ok(want)
            }
        }
    }

    /// The error for a file that ends before the range being sent does.
    pub fn ended_early(&self) -> io::Error {
        let what = match &self.0 {
            Source::File { file, .. } => format!("segment {}", file.path.display()),
            Source::Bytes(_) => "a body in memory".to_owned(),
        };
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("{what} ended before the range being sent"),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::log::io::Io;
    use crate::log::io::testing::ReadsThrough;

    fn segment(bytes: &[u8], io: Io) -> (tempfile::TempDir, Arc<SegmentFile>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00000000000000000000.log");
        std::fs::File::create(&path)
            .unwrap()
            .write_all(bytes)
            .unwrap();
        let file = std::fs::File::open(&path).unwrap();
        (dir, Arc::new(SegmentFile::new(path, file, io)))
    }

    #[test]
    fn a_file_range_is_sent_from_its_file_on_the_real_file_system() {
        let data: Vec<u8> = (0..200u8).collect();
        let (_dir, seg) = segment(&data, Io::real());
        let body = BodySource::file_range(seg.clone(), 10, 100);
        assert_eq!(body.len(), 100);
        let (file, start) = body.sendfile_source().expect("the real file");
        assert!(std::ptr::eq(file, &*seg.file));
        assert_eq!(start, 10);
        let mut buf = [0u8; 64];
        assert_eq!(
            body.read_at(&mut buf, 90).unwrap(),
            10,
            "no further than the range"
        );
        assert_eq!(&buf[..10], &data[100..110]);
        assert_eq!(body.read_at(&mut buf, 100).unwrap(), 0, "its end");
    }

    #[test]
    fn a_seam_that_refuses_sendfile_has_the_range_read_through_it() {
        let data: Vec<u8> = (0..200u8).collect();
        let fs = Arc::new(ReadsThrough::default());
        let (_dir, seg) = segment(&data, Io::new(fs.clone()));
        let body = BodySource::file_range(seg, 10, 100);
        assert!(body.sendfile_source().is_none());
        let mut buf = [0u8; 100];
        let n = body.read_at(&mut buf, 0).unwrap();
        assert_eq!(&buf[..n], &data[10..10 + n]);
        assert_eq!(fs.reads.load(Ordering::Relaxed), 1);
        fs.fail.store(true, Ordering::Relaxed);
        let e = body.read_at(&mut buf, 0).unwrap_err();
        assert!(e.to_string().contains("injected read fault"), "{e}");
        assert!(e.to_string().contains("00000000000000000000.log"), "{e}");
    }

    #[test]
    fn a_range_past_the_end_of_its_file_is_an_error_naming_it() {
        let (_dir, seg) = segment(&[7u8; 50], Io::real());
        let body = BodySource::file_range(seg, 40, 20);
        let mut buf = [0u8; 20];
        assert_eq!(body.read_at(&mut buf, 0).unwrap(), 10);
        let e = body.read_at(&mut buf, 10).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(e.to_string().contains("00000000000000000000.log"), "{e}");
    }

    #[test]
    fn bytes_in_memory_are_copied_never_sent_from_a_file() {
        let body = BodySource::bytes(Bytes::from_static(b"hello, body"));
        assert_eq!(body.len(), 11);
        assert!(body.sendfile_source().is_none());
        let mut buf = [0u8; 4];
        assert_eq!(body.read_at(&mut buf, 7).unwrap(), 4);
        assert_eq!(&buf, b"body");
        assert_eq!(body.read_at(&mut buf, 11).unwrap(), 0);
    }
}
