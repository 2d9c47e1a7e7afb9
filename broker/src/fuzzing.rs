//! Entry points for the fuzz targets (`fuzz/`): the smallest public doors to
//! internals a target drives. Hidden from the docs; not an API.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::net::Metrics;
use crate::net::SendBudget;
use crate::net::ws::WsStream;

/// What the connection behind the WebSocket adapter read from one client.
#[doc(hidden)]
#[derive(Debug)]
pub struct WsInbound {
    /// The bytes the connection read, in order, up to the end of the stream.
    pub bytes: Vec<u8>,
    /// The error that ended the stream (a violation), or `None` at a clean end.
    pub error: Option<io::Error>,
}

/// Feeds `client` — what a client sends after the HTTP upgrade, WebSocket
/// frames — to the broker's WebSocket adapter in reads of at most `chunk`
/// bytes (the first `prefix` bytes as if read with the request head), and
/// returns what the connection reads from the adapter until it ends.
///
/// Runs on a fresh current-thread runtime; the client's side is a memory
/// stream that is always ready and ends after `client`, so nothing waits.
#[doc(hidden)]
pub fn ws_inbound(client: &[u8], prefix: usize, chunk: usize, max_message: usize) -> WsInbound {
    let prefix = prefix.min(client.len());
    let stream = MemStream {
        input: Bytes::copy_from_slice(&client[prefix..]),
        chunk: chunk.max(1),
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            return WsInbound {
                bytes: Vec::new(),
                error: Some(e),
            };
        }
    };
    rt.block_on(async move {
        // Kept alive so the adapter sees "not shutting down" (close code 1000).
        let (_stop_tx, stop) = tokio::sync::watch::channel(false);
        let mut ws = WsStream::new(
            stream,
            Bytes::copy_from_slice(&client[..prefix]),
            max_message,
            stop,
            Arc::new(Metrics::default()),
            Arc::new(SendBudget::new(u64::MAX)),
        );
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4096];
        let error = loop {
            let mut rb = ReadBuf::new(&mut buf);
            match std::future::poll_fn(|cx| Pin::new(&mut ws).poll_read(cx, &mut rb)).await {
                Ok(()) if rb.filled().is_empty() => break None,
                Ok(()) => bytes.extend_from_slice(rb.filled()),
                Err(e) => break Some(e),
            }
        };
        WsInbound { bytes, error }
    })
}

/// A client connection in memory: reads return `input` in pieces of at most
/// `chunk` bytes, then EOF; writes (the adapter's close frame, pongs) are
/// dropped.
struct MemStream {
    input: Bytes,
    chunk: usize,
}

impl AsyncRead for MemStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self.input.len().min(self.chunk).min(buf.remaining());
        let piece = self.input.split_to(n);
        buf.put_slice(&piece);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for MemStream {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
