//! What a connection needs from the byte stream it runs over.
//!
//! The connection's state machine reads and writes through `AsyncRead` /
//! `AsyncWrite` and does not care what carries the bytes. Only the writer of
//! fetch bodies does: a plain TCP socket takes file ranges straight from the
//! page cache with `sendfile(2)`; any other stream (TLS, a WebSocket adapter,
//! an in-memory pipe) gets them through a bounded copy. [`ByteStream`] is
//! that contract; the connection is generic over it, so the TCP path is
//! statically dispatched and pays nothing for the other kinds.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, Interest};
use tokio::net::TcpStream;

/// A byte stream a broker connection can run over: a plain TCP socket, or
/// anything else presented as ordered bytes in both directions (a TLS
/// stream, a WebSocket adapter that frames outgoing bytes at protocol
/// frame boundaries, `tokio::io::duplex` in tests).
///
/// Contract:
/// - Reads and writes are ordinary `AsyncRead`/`AsyncWrite`. The connection
///   writes each response frame whole and in order, and calls `poll_flush`
///   whenever it has nothing more to write, so a stream that buffers (TLS
///   records, WebSocket messages) must send what it holds on flush. Written
///   bytes that the connection never flushed are not considered sent.
/// - A stream that can take a range of a file from the kernel says so with
///   [`can_sendfile`](ByteStream::can_sendfile) and implements
///   [`poll_sendfile`](ByteStream::poll_sendfile); every other stream keeps
///   the defaults and gets record bytes by `pread` + `poll_write` through a
///   bounded buffer. The choice is made once per connection.
pub trait ByteStream: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    /// Whether [`poll_sendfile`](ByteStream::poll_sendfile) works on this
    /// stream. Asked once when the connection starts. Default: `false`.
    fn can_sendfile(&self) -> bool {
        false
    }

    /// Send up to `count` bytes of `file` starting at `*pos` without copying
    /// them through user space, advancing `*pos` by what was sent. Returns
    /// the bytes sent; `Ok(0)` means the file ended before the range did.
    /// `Pending` (with the waker registered) when the stream cannot take
    /// bytes now. Called only when `can_sendfile` returned true; the default
    /// refuses with `Unsupported`.
    fn poll_sendfile(
        &mut self,
        cx: &mut Context<'_>,
        file: &File,
        pos: &mut u64,
        count: usize,
    ) -> Poll<io::Result<usize>> {
        let _ = (cx, file, pos, count);
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this stream cannot send file ranges; they are copied",
        )))
    }
}

impl ByteStream for TcpStream {
    fn can_sendfile(&self) -> bool {
        true
    }

    fn poll_sendfile(
        &mut self,
        cx: &mut Context<'_>,
        file: &File,
        pos: &mut u64,
        count: usize,
    ) -> Poll<io::Result<usize>> {
        loop {
            // Try first, as a non-blocking write would: readiness is only
            // awaited (and the waker registered) once the socket is full.
            let sock = &*self;
            let res = sock.try_io(Interest::WRITABLE, || {
                rustix::fs::sendfile(sock.as_fd(), file, Some(&mut *pos), count)
                    .map_err(io::Error::from)
            });
            match res {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    // Ready again already (the socket drained meanwhile): retry.
                    ready!(self.poll_write_ready(cx))?;
                }
                other => return Poll::Ready(other),
            }
        }
    }
}

/// An in-memory pipe (tests, in-process embedding): file ranges are copied.
impl ByteStream for tokio::io::DuplexStream {}

/// TLS: records are encrypted in user space (no kTLS here), so fetch bodies
/// take the copy path.
impl ByteStream for tokio_rustls::server::TlsStream<TcpStream> {}
