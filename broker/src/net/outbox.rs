//! The per-connection output queue: small encoded frames in one reusable
//! buffer, and fetch bodies as the body sources the log returned — sent
//! with `sendfile(2)` when the stream can take them that way (plain TCP)
//! and the body is a file range, otherwise copied through a bounded buffer
//! (read from the body source, then an ordinary write).
//!
//! Responses leave in the order they were queued, each whole: a fetch's
//! header goes into the buffer and its records follow straight from the
//! body source, so no other frame can interleave with them.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, Waker};

use bytes::{Buf, BytesMut};

use super::metrics::Metrics;
use super::send_budget::SendBudget;
use super::stream::ByteStream;
use crate::engine::BodySource;

/// Largest single `sendfile` call (the kernel caps one call near 2 GiB anyway).
const MAX_SENDFILE: u64 = 1 << 30;

/// Size of the copy buffer for streams without `sendfile`: large enough that
/// a multi-MiB fetch takes few `pread`s and fills whole TLS records /
/// WebSocket messages, small enough to be cheap per connection. It exists
/// only while a file range is being copied.
const COPY_BUF: usize = 256 * 1024;

enum Item {
    /// The next `n` bytes of the buffer.
    Bytes(usize),
    /// A fetch body.
    Body {
        body: BodySource,
        /// Where the next byte comes from, counted from the body's start.
        pos: u64,
        /// Bytes not yet taken from the body: sent, with `sendfile`; read
        /// into the copy buffer, on the copy path (the item is done once
        /// this is 0 and the buffer is drained).
        remaining: u64,
    },
}

/// Record bytes read from a body and not yet written (copy path only).
struct CopyBuf {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
}

/// What a connection still has to write.
pub struct Outbox {
    buf: BytesMut,
    items: VecDeque<Item>,
    /// File ranges go out by `sendfile` (else by the bounded copy); fixed
    /// per connection by [`ByteStream::can_sendfile`]. A body the log asks
    /// to have read through it takes the copy either way.
    sendfile: bool,
    /// The copy path's buffer, present only while a range is being copied.
    copy: Option<CopyBuf>,
    /// Bytes were written since the stream was last flushed: a buffering
    /// stream (TLS, WebSocket) may still hold them.
    unflushed: bool,
    /// The server's send budget, charged with the bytes in `buf` (given back
    /// as they are written, or when the outbox is dropped).
    budget: Option<Arc<SendBudget>>,
}

impl Outbox {
    /// An empty outbox; file ranges use `sendfile` when `sendfile` is true.
    pub fn new(sendfile: bool) -> Self {
        Outbox {
            buf: BytesMut::with_capacity(16 * 1024),
            items: VecDeque::with_capacity(64),
            sendfile,
            copy: None,
            unflushed: false,
            budget: None,
        }
    }

    /// An empty outbox whose buffered bytes are charged to `budget`.
    pub(crate) fn with_budget(sendfile: bool, budget: Arc<SendBudget>) -> Self {
        let mut out = Outbox::new(sendfile);
        out.budget = Some(budget);
        out
    }

    /// Whether everything has been written and flushed.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && !self.unflushed
    }

    /// Items queued (coalesced byte runs count once): a back-pressure measure.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Bytes buffered (not counting fetch bodies).
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
        if let Some(b) = &self.budget {
            b.charge(n);
        }
        if let Some(Item::Bytes(m)) = self.items.back_mut() {
            *m += n;
        } else {
            self.items.push_back(Item::Bytes(n));
        }
    }

    /// Append a fetch response: its header, then the bytes of `body`.
    pub fn push_body(&mut self, header: &[u8], body: BodySource) {
        self.push_frame(|b| b.extend_from_slice(header));
        let len = body.len();
        if len > 0 {
            self.items.push_back(Item::Body {
                body,
                pos: 0,
                remaining: len,
            });
        }
    }

    /// Write as much as `stream` takes right now, without waiting. Returns
    /// the bytes written; `Ok(0)` with a non-empty outbox means the stream
    /// is full (nothing is registered to wake anyone: the caller polls
    /// [`poll_write`](Outbox::poll_write) before it sleeps).
    pub fn write_now<S: ByteStream>(
        &mut self,
        stream: &mut S,
        metrics: &Metrics,
    ) -> io::Result<usize> {
        // A no-op waker is fine: only the waker of the latest poll counts,
        // and the connection polls again with its own before it waits.
        let mut cx = Context::from_waker(Waker::noop());
        match self.poll_write(&mut cx, stream, metrics) {
            Poll::Ready(r) => r,
            Poll::Pending => Ok(0),
        }
    }

    /// Write as much as `stream` takes, then flush it once everything is
    /// written. `Ready(Ok(n))` when something was written (`n > 0`) or the
    /// outbox became empty; `Pending` (waker registered) when the stream
    /// took nothing.
    pub fn poll_write<S: ByteStream>(
        &mut self,
        cx: &mut Context<'_>,
        stream: &mut S,
        metrics: &Metrics,
    ) -> Poll<io::Result<usize>> {
        let mut written = 0;
        while let Some(item) = self.items.front_mut() {
            match item {
                Item::Bytes(n) => match Pin::new(&mut *stream).poll_write(cx, &self.buf[..*n]) {
                    Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                    Poll::Ready(Ok(w)) => {
                        self.unflushed = true;
                        self.buf.advance(w);
                        if let Some(b) = &self.budget {
                            b.give(w);
                        }
                        *n -= w;
                        written += w;
                        if *n == 0 {
                            self.items.pop_front();
                        }
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => break,
                },
                Item::Body {
                    body,
                    pos,
                    remaining,
                } => {
                    // A file range goes by `sendfile` on a stream that takes
                    // it, unless the log wants it read through its seam.
                    let source = if self.sendfile {
                        body.sendfile_source()
                    } else {
                        None
                    };
                    if let Some((file, start)) = source {
                        let count = (*remaining).min(MAX_SENDFILE) as usize;
                        let mut at = start + *pos;
                        match stream.poll_sendfile(cx, file, &mut at, count) {
                            Poll::Ready(Ok(0)) => return Poll::Ready(Err(body.ended_early())),
                            Poll::Ready(Ok(w)) => {
                                self.unflushed = true;
                                metrics.sendfile_calls.fetch_add(1, Ordering::Relaxed);
                                metrics
                                    .sendfile_bytes
                                    .fetch_add(w as u64, Ordering::Relaxed);
                                *pos += w as u64;
                                *remaining -= w as u64;
                                written += w;
                                if *remaining == 0 {
                                    self.items.pop_front();
                                }
                            }
                            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                            Poll::Pending => break,
                        }
                        continue;
                    }
                    let copy = self.copy.get_or_insert_with(|| CopyBuf {
                        buf: Box::default(),
                        start: 0,
                        end: 0,
                    });
                    if copy.start == copy.end
                        && let Err(e) = refill(copy, body, pos, remaining)
                    {
                        return Poll::Ready(Err(e));
                    }
                    match Pin::new(&mut *stream).poll_write(cx, &copy.buf[copy.start..copy.end]) {
                        Poll::Ready(Ok(0)) => {
                            return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                        }
                        Poll::Ready(Ok(w)) => {
                            self.unflushed = true;
                            metrics.copied_bytes.fetch_add(w as u64, Ordering::Relaxed);
                            copy.start += w;
                            written += w;
                            if copy.start == copy.end && *remaining == 0 {
                                self.items.pop_front();
                            }
                        }
                        Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                        Poll::Pending => break,
                    }
                }
            }
        }
        if self.items.is_empty() {
            // The copy buffer lives only while copying.
            self.copy = None;
            if self.buf.capacity() > (1 << 20) {
                // A burst grew the buffer; do not keep it for the life of the connection.
                self.buf = BytesMut::with_capacity(16 * 1024);
            }
            if self.unflushed {
                match Pin::new(&mut *stream).poll_flush(cx) {
                    Poll::Ready(Ok(())) => {
                        self.unflushed = false;
                        return Poll::Ready(Ok(written));
                    }
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => {}
                }
            } else {
                return Poll::Ready(Ok(written));
            }
        }
        if written > 0 {
            Poll::Ready(Ok(written))
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        // What was never written goes back to the budget with the connection.
        if let Some(b) = &self.budget {
            b.give(self.buf.len());
        }
    }
}

/// Read the next chunk of a body into the (empty) copy buffer, growing
/// the buffer up to [`COPY_BUF`] as the body needs.
///
/// Reading a file range (a `pread`) blocks the calling runtime worker for
/// the read; record bytes are normally in the page cache (they were just
/// written, or are being read sequentially), and `sendfile` blocks the
/// same way on a cache miss. See docs/INTERNALS.md §2.
fn refill(
    copy: &mut CopyBuf,
    body: &BodySource,
    pos: &mut u64,
    remaining: &mut u64,
) -> io::Result<()> {
    let want = (*remaining).min(COPY_BUF as u64) as usize;
    if copy.buf.len() < want {
        copy.buf = vec![0u8; want].into_boxed_slice();
    }
    let n = loop {
        match body.read_at(&mut copy.buf[..want], *pos) {
            Ok(0) => return Err(body.ended_early()),
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    *pos += n as u64;
    *remaining -= n as u64;
    copy.start = 0;
    copy.end = n;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;
    use std::io::Write;
    use std::sync::Arc;

    use tokio::io::AsyncReadExt;

    use super::*;
    use crate::log::io::Io;
    use crate::log::segment::SegmentFile;

    fn segment(bytes: &[u8]) -> (tempfile::TempDir, Arc<SegmentFile>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00000000000000000000.log");
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        (dir, Arc::new(SegmentFile::new(path, file, Io::real())))
    }

    /// `len` bytes of `file` from `pos`, as a read returns them.
    fn range(file: &Arc<SegmentFile>, pos: u64, len: u64) -> BodySource {
        BodySource::file_range(file.clone(), pos, len)
    }

    /// Drive the outbox until it is empty (or fails), as the connection does.
    async fn drain<S: ByteStream>(out: &mut Outbox, s: &mut S, m: &Metrics) -> io::Result<()> {
        while !out.is_empty() {
            poll_fn(|cx| out.poll_write(cx, s, m)).await?;
        }
        Ok(())
    }

    #[tokio::test]
    async fn copy_path_sends_frames_and_file_ranges_in_order_through_a_small_pipe() {
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let (_dir, file) = segment(&data);
        // A pipe far smaller than the copy buffer: writes are partial and pending.
        let (mut a, mut b) = tokio::io::duplex(4096);
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            b.read_to_end(&mut got).await.unwrap();
            got
        });
        let metrics = Metrics::default();
        let mut out = Outbox::new(a.can_sendfile());
        out.push_body(b"head", range(&file, 10, 2_500_000));
        out.push_frame(|b| b.extend_from_slice(b"mid"));
        out.push_body(b"", range(&file, 0, 7));
        out.push_frame(|b| b.extend_from_slice(b"tail"));
        drain(&mut out, &mut a, &metrics).await.unwrap();
        assert!(out.copy.is_none(), "the copy buffer is freed once idle");
        drop(a);
        let mut want = b"head".to_vec();
        want.extend_from_slice(&data[10..2_500_010]);
        want.extend_from_slice(b"mid");
        want.extend_from_slice(&data[..7]);
        want.extend_from_slice(b"tail");
        assert!(reader.await.unwrap() == want, "bytes differ");
        assert_eq!(Metrics::get(&metrics.copied_bytes), 2_500_007);
        assert_eq!(Metrics::get(&metrics.sendfile_bytes), 0);
    }

    #[tokio::test]
    async fn a_range_past_the_end_of_the_file_is_an_error_on_the_copy_path() {
        let (_dir, file) = segment(&[7u8; 1000]);
        let (mut a, _b) = tokio::io::duplex(1 << 20);
        let metrics = Metrics::default();
        let mut out = Outbox::new(false);
        out.push_body(b"h", range(&file, 500, 600));
        let err = drain(&mut out, &mut a, &metrics).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        assert!(
            err.to_string().contains("00000000000000000000.log"),
            "{err}"
        );
        // What the file had was sent before the error.
        assert_eq!(Metrics::get(&metrics.copied_bytes), 500);
    }

    #[tokio::test]
    async fn a_body_in_memory_goes_in_order_with_the_frames() {
        let (mut a, mut b) = tokio::io::duplex(16);
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            b.read_to_end(&mut got).await.unwrap();
            got
        });
        let metrics = Metrics::default();
        let mut out = Outbox::new(a.can_sendfile());
        out.push_body(
            b"head",
            BodySource::bytes(bytes::Bytes::from_static(b"a body in memory")),
        );
        out.push_frame(|b| b.extend_from_slice(b"tail"));
        drain(&mut out, &mut a, &metrics).await.unwrap();
        drop(a);
        assert_eq!(reader.await.unwrap(), b"heada body in memorytail");
        assert_eq!(Metrics::get(&metrics.copied_bytes), 16);
    }

    /// Over TCP, a file range goes by `sendfile` — unless the log's I/O seam
    /// wants it read through it: then it is copied, the same bytes.
    #[tokio::test]
    async fn over_tcp_a_range_is_sent_from_its_file_unless_the_seam_refuses() {
        use crate::log::io::testing::ReadsThrough;
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
        let seam = Arc::new(ReadsThrough::default());
        for (io, by_sendfile) in [(Io::real(), true), (Io::new(seam.clone()), false)] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("00000000000000000000.log");
            std::fs::File::create(&path)
                .unwrap()
                .write_all(&data)
                .unwrap();
            let file = std::fs::File::open(&path).unwrap();
            let seg = Arc::new(SegmentFile::new(path, file, io));
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let reader = tokio::spawn(async move {
                let (mut s, _) = listener.accept().await.unwrap();
                let mut got = Vec::new();
                s.read_to_end(&mut got).await.unwrap();
                got
            });
            let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
            let metrics = Metrics::default();
            let mut out = Outbox::new(tcp.can_sendfile());
            out.push_body(b"h", range(&seg, 5, 250_000));
            drain(&mut out, &mut tcp, &metrics).await.unwrap();
            drop(tcp);
            let mut want = b"h".to_vec();
            want.extend_from_slice(&data[5..250_005]);
            assert!(reader.await.unwrap() == want, "bytes differ");
            let (sent, copied) = (
                Metrics::get(&metrics.sendfile_bytes),
                Metrics::get(&metrics.copied_bytes),
            );
            if by_sendfile {
                assert_eq!((sent, copied), (250_000, 0));
            } else {
                assert_eq!((sent, copied), (0, 250_000));
            }
        }
        assert!(seam.reads.load(std::sync::atomic::Ordering::Relaxed) > 0);
    }
}
