//! The per-connection output queue: small encoded frames in one reusable
//! buffer, and fetch bodies as file ranges sent with `sendfile(2)`.
//!
//! Responses leave in the order they were queued, each whole: a fetch's
//! header goes into the buffer and its records follow straight from the
//! segment file, so no other frame can interleave with them.

use std::collections::VecDeque;
use std::io;
use std::os::fd::AsFd;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::{Buf, BytesMut};
use tokio::io::Interest;
use tokio::net::TcpStream;

use super::Metrics;
use crate::log::segment::SegmentFile;

/// Largest single `sendfile` call (the kernel caps one call near 2 GiB anyway).
const MAX_SENDFILE: u64 = 1 << 30;

enum Item {
    /// The next `n` bytes of the buffer.
    Bytes(usize),
    /// A byte range of a segment file.
    File {
        file: Arc<SegmentFile>,
        pos: u64,
        remaining: u64,
    },
}

/// What a connection still has to write.
pub struct Outbox {
    buf: BytesMut,
    items: VecDeque<Item>,
}

impl Outbox {
    /// An empty outbox.
    pub fn new() -> Self {
        Outbox {
            buf: BytesMut::with_capacity(16 * 1024),
            items: VecDeque::with_capacity(64),
        }
    }

    /// Whether everything has been written.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Items queued (coalesced byte runs count once): a back-pressure measure.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Bytes buffered (not counting file ranges).
    pub fn buffered_bytes(&self) -> usize {
        self.buf.len()
    }

    /// Append a frame encoded by `encode` into the buffer.
    pub fn push_frame(&mut self, encode: impl FnOnce(&mut BytesMut)) {
        let before = self.buf.len();
        encode(&mut self.buf);
        let n = self.buf.len() - before;
        if n == 0 {
            return;
        }
        if let Some(Item::Bytes(m)) = self.items.back_mut() {
            *m += n;
        } else {
            self.items.push_back(Item::Bytes(n));
        }
    }

    /// Append a fetch response: its header, then `len` bytes of `file` from `pos`.
    pub fn push_file(&mut self, header: &[u8], file: Arc<SegmentFile>, pos: u64, len: u64) {
        self.push_frame(|b| b.extend_from_slice(header));
        if len > 0 {
            self.items.push_back(Item::File {
                file,
                pos,
                remaining: len,
            });
        }
    }

    /// Write as much as the socket takes without blocking. Returns the bytes
    /// written; `Ok(0)` with a non-empty outbox means the socket is full.
    pub fn flush(&mut self, stream: &TcpStream, metrics: &Metrics) -> io::Result<usize> {
        let mut written = 0;
        while let Some(item) = self.items.front_mut() {
            match item {
                Item::Bytes(n) => match stream.try_write(&self.buf[..*n]) {
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(w) => {
                        self.buf.advance(w);
                        *n -= w;
                        written += w;
                        if *n == 0 {
                            self.items.pop_front();
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                },
                Item::File {
                    file,
                    pos,
                    remaining,
                } => {
                    let count = (*remaining).min(MAX_SENDFILE) as usize;
                    let res = stream.try_io(Interest::WRITABLE, || {
                        rustix::fs::sendfile(stream.as_fd(), &file.file, Some(pos), count)
                            .map_err(io::Error::from)
                    });
                    match res {
                        Ok(0) => {
                            return Err(io::Error::new(
                                io::ErrorKind::UnexpectedEof,
                                format!(
                                    "segment {} ended before the range being sent",
                                    file.path.display()
                                ),
                            ));
                        }
                        Ok(w) => {
                            metrics.sendfile_calls.fetch_add(1, Ordering::Relaxed);
                            metrics
                                .sendfile_bytes
                                .fetch_add(w as u64, Ordering::Relaxed);
                            *remaining -= w as u64;
                            written += w;
                            if *remaining == 0 {
                                self.items.pop_front();
                            }
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        if self.items.is_empty() && self.buf.capacity() > (1 << 20) {
            // A burst grew the buffer; do not keep it for the life of the connection.
            self.buf = BytesMut::with_capacity(16 * 1024);
        }
        Ok(written)
    }
}
