//! The I/O seam under the log: every operation that changes what
//! is on disk, or makes it durable, goes through a [`FileSystem`] — and so
//! do the reads of what a fetch serves.
//!
//! The broker runs on [`RealFs`], which makes the system calls it always
//! made. A test can give [`LogOptions::io`](super::LogOptions::io) another
//! implementation — the power-loss simulation (`broker/tests/sim/`) models
//! the page cache behind this seam and decides, at a simulated crash, which
//! unsynced writes, creations and renames survive.
//!
//! Reads for a fetch go through it too: the bytes of a body source (a
//! `pread` of a segment's range, [`FileSystem::read_at`], or the file
//! `sendfile` sends it from, [`FileSystem::sendfile_source`] — a file
//! system that answers `None` there has every range copied through its
//! `read_at`) and the batch header a read starts at. So a simulation can
//! fail them. The other reads (the scans of recovery and verification,
//! `mmap` of an index, directory listings, `stat`) stay on the real file: a
//! file system that changes what is on disk only through the seam can
//! rebuild any state it wants under them.

use std::fs::{File, OpenOptions};
use std::io::{IoSlice, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// How a file is opened for writing (read-only opens do not go through the seam).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Read and write an existing file.
    Existing,
    /// Read and write, creating the file if it is missing.
    Create,
    /// Write only, created or truncated to nothing.
    Replace,
}

/// The operations that change the disk or make it durable.
///
/// `file` arguments are files opened by [`FileSystem::open`] or read-only
/// with [`File::open`] on a path of the data directory.
pub trait FileSystem: Send + Sync + 'static {
    /// Open `path` for writing.
    fn open(&self, path: &Path, mode: OpenMode) -> std::io::Result<File>;
    /// Write all of `parts` (at most [`MAX_PARTS`]), one after the other, at `pos`.
    fn write_at(&self, file: &File, parts: &[&[u8]], pos: u64) -> std::io::Result<()>;
    /// Truncate or extend to `len`.
    fn set_len(&self, file: &File, len: u64) -> std::io::Result<()>;
    /// Free `len` bytes at `pos` (they read as zeros; the size stays).
    fn punch_hole(&self, file: &File, pos: u64, len: u64) -> std::io::Result<()>;
    /// `fdatasync`.
    fn sync_data(&self, file: &File) -> std::io::Result<()>;
    /// `fsync`.
    fn sync_all(&self, file: &File) -> std::io::Result<()>;
    /// fsync a directory: entries created, renamed or removed in it are durable.
    fn sync_dir(&self, dir: &Path) -> std::io::Result<()>;
    /// `syncfs` of the file system holding `any`: everything written
    /// before it, data and directory entries, is durable.
    fn sync_filesystem(&self, any: &File) -> std::io::Result<()>;
    /// `mkdir`.
    fn create_dir(&self, path: &Path) -> std::io::Result<()>;
    /// `mkdir -p`.
    fn create_dir_all(&self, path: &Path) -> std::io::Result<()>;
    /// `rename`, replacing `to` if it exists.
    fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()>;
    /// `unlink`.
    fn remove_file(&self, path: &Path) -> std::io::Result<()>;
    /// Remove a directory and everything in it.
    fn remove_dir_all(&self, path: &Path) -> std::io::Result<()>;
    /// `pread`: read into `buf` from `pos` of `file`, a segment a fetch
    /// serves from; fewer bytes than asked only at the end of the file.
    /// Default: the real read.
    fn read_at(&self, file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
        FileExt::read_at(file, buf, pos)
    }
    /// The file a range of `file` may be sent from by `sendfile(2)`, which
    /// the kernel reads itself. Default: `file`. `None` has every range of
    /// it copied through [`FileSystem::read_at`] instead (a simulation that
    /// fails reads).
    fn sendfile_source<'f>(&self, file: &'f File) -> Option<&'f File> {
        Some(file)
    }
}

/// The file system a log writes through: cheap to clone, [`RealFs`] by default.
#[derive(Clone)]
pub struct Io(Arc<dyn FileSystem>);

impl Io {
    /// Write through `fs`.
    pub fn new(fs: Arc<dyn FileSystem>) -> Io {
        Io(fs)
    }

    /// The real file system.
    pub fn real() -> Io {
        Io(Arc::new(RealFs))
    }

    /// Fill `buf` from `pos` of `file` with [`FileSystem::read_at`]; a file
    /// that ends first is an `UnexpectedEof` error.
    pub fn read_exact_at(
        &self,
        file: &File,
        mut buf: &mut [u8],
        mut pos: u64,
    ) -> std::io::Result<()> {
        while !buf.is_empty() {
            match self.read_at(file, buf, pos) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => {
                    buf = &mut buf[n..];
                    pos += n as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl Default for Io {
    fn default() -> Self {
        Io::real()
    }
}

impl std::fmt::Debug for Io {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Io")
    }
}

impl std::ops::Deref for Io {
    type Target = dyn FileSystem;
    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

/// Most parts one [`FileSystem::write_at`] takes.
pub const MAX_PARTS: usize = 4;

/// The system calls themselves.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

impl FileSystem for RealFs {
    fn open(&self, path: &Path, mode: OpenMode) -> std::io::Result<File> {
        let mut o = OpenOptions::new();
        match mode {
            OpenMode::Existing => o.read(true).write(true),
            OpenMode::Create => o.read(true).write(true).create(true).truncate(false),
            OpenMode::Replace => o.write(true).create(true).truncate(true),
        };
        o.open(path)
    }

    fn write_at(&self, file: &File, parts: &[&[u8]], mut pos: u64) -> std::io::Result<()> {
        // As few `pwritev` calls as the kernel allows, with nothing
        // allocated: the record path writes a header and a body.
        if parts.len() > MAX_PARTS {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "too many parts for one write",
            ));
        }
        let mut rest: [&[u8]; MAX_PARTS] = [&[]; MAX_PARTS];
        rest[..parts.len()].copy_from_slice(parts);
        let mut first = 0;
        loop {
            while first < MAX_PARTS && rest[first].is_empty() {
                first += 1;
            }
            if first == MAX_PARTS {
                return Ok(());
            }
            let slices = rest.map(IoSlice::new);
            let mut n = rustix::io::pwritev(file, &slices[first..], pos)?;
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            pos += n as u64;
            while n > 0 && first < MAX_PARTS {
                let take = n.min(rest[first].len());
                rest[first] = &rest[first][take..];
                n -= take;
                first += usize::from(rest[first].is_empty());
            }
        }
    }

    fn set_len(&self, file: &File, len: u64) -> std::io::Result<()> {
        file.set_len(len)
    }

    fn punch_hole(&self, file: &File, pos: u64, len: u64) -> std::io::Result<()> {
        use rustix::fs::FallocateFlags;
        rustix::fs::fallocate(
            file,
            FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE,
            pos,
            len,
        )
        .map_err(Into::into)
    }

    fn sync_data(&self, file: &File) -> std::io::Result<()> {
        file.sync_data()
    }

    fn sync_all(&self, file: &File) -> std::io::Result<()> {
        file.sync_all()
    }

    fn sync_dir(&self, dir: &Path) -> std::io::Result<()> {
        File::open(dir)?.sync_all()
    }

    fn sync_filesystem(&self, any: &File) -> std::io::Result<()> {
        rustix::fs::syncfs(any).map_err(Into::into)
    }

    fn create_dir(&self, path: &Path) -> std::io::Result<()> {
        std::fs::create_dir(path)
    }

    fn create_dir_all(&self, path: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        std::fs::rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> std::io::Result<()> {
        std::fs::remove_file(path)
    }

    fn remove_dir_all(&self, path: &Path) -> std::io::Result<()> {
        std::fs::remove_dir_all(path)
    }
}

/// A buffered writer appending to a file through the seam (a segment
/// rewritten by compaction).
pub struct Appender<'a> {
    io: &'a Io,
    file: &'a File,
    pos: u64,
    buf: Vec<u8>,
}

impl<'a> Appender<'a> {
    /// Append at `pos` of `file`, in writes of up to `capacity` bytes.
    pub fn new(io: &'a Io, file: &'a File, pos: u64, capacity: usize) -> Appender<'a> {
        Appender {
            io,
            file,
            pos,
            buf: Vec::with_capacity(capacity),
        }
    }
}

impl Write for Appender<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + bytes.len() > self.buf.capacity() {
            self.flush()?;
        }
        if bytes.len() >= self.buf.capacity() {
            self.io.write_at(self.file, &[bytes], self.pos)?;
            self.pos += bytes.len() as u64;
        } else {
            self.buf.extend_from_slice(bytes);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            self.io.write_at(self.file, &[&self.buf], self.pos)?;
            self.pos += self.buf.len() as u64;
            self.buf.clear();
        }
        Ok(())
    }
}

/// A file system for tests of the read seam: the real one, except that it
/// counts the reads made through it, can fail them, and refuses `sendfile`
/// (so every range is read through it).
#[cfg(test)]
pub(crate) mod testing {
    use std::fs::File;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::{FileSystem, OpenMode, RealFs};

    #[derive(Debug, Default)]
    pub(crate) struct ReadsThrough {
        /// Reads made through it.
        pub(crate) reads: AtomicUsize,
        /// Fail every read from now on.
        pub(crate) fail: AtomicBool,
    }

    impl FileSystem for ReadsThrough {
        fn open(&self, path: &Path, mode: OpenMode) -> std::io::Result<File> {
            RealFs.open(path, mode)
        }
        fn write_at(&self, file: &File, parts: &[&[u8]], pos: u64) -> std::io::Result<()> {
            RealFs.write_at(file, parts, pos)
        }
        fn set_len(&self, file: &File, len: u64) -> std::io::Result<()> {
            RealFs.set_len(file, len)
        }
        fn punch_hole(&self, file: &File, pos: u64, len: u64) -> std::io::Result<()> {
            RealFs.punch_hole(file, pos, len)
        }
        fn sync_data(&self, file: &File) -> std::io::Result<()> {
            RealFs.sync_data(file)
        }
        fn sync_all(&self, file: &File) -> std::io::Result<()> {
            RealFs.sync_all(file)
        }
        fn sync_dir(&self, dir: &Path) -> std::io::Result<()> {
            RealFs.sync_dir(dir)
        }
        fn sync_filesystem(&self, any: &File) -> std::io::Result<()> {
            RealFs.sync_filesystem(any)
        }
        fn create_dir(&self, path: &Path) -> std::io::Result<()> {
            RealFs.create_dir(path)
        }
        fn create_dir_all(&self, path: &Path) -> std::io::Result<()> {
            RealFs.create_dir_all(path)
        }
        fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
            RealFs.rename(from, to)
        }
        fn remove_file(&self, path: &Path) -> std::io::Result<()> {
            RealFs.remove_file(path)
        }
        fn remove_dir_all(&self, path: &Path) -> std::io::Result<()> {
            RealFs.remove_dir_all(path)
        }
        fn read_at(&self, file: &File, buf: &mut [u8], pos: u64) -> std::io::Result<usize> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            if self.fail.load(Ordering::Relaxed) {
                return Err(std::io::Error::other("injected read fault"));
            }
            RealFs.read_at(file, buf, pos)
        }
        fn sendfile_source<'f>(&self, _file: &'f File) -> Option<&'f File> {
            None
        }
    }
}
