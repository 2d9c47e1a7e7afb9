//! The broker connection over a byte stream that is not a plain TCP socket:
//! the same protocol through `Server::serve_stream`, with fetch bodies
//! copied (never `sendfile`d), and output that only leaves on flush — as a
//! TLS stream or a WebSocket adapter behaves.

mod netcommon;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use hermit_broker::embedded::EmbeddedBroker;
use hermit_broker::engine::Engine;
use hermit_broker::net::{ByteStream, Metrics, Server};
use hermit_protocol::record::BatchIter;
use hermit_protocol::{Ack, Request, Status};
use netcommon::*;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// Bytes written are held until this many are buffered or the stream is
/// flushed (a TLS record's worth): a connection that forgot to flush would
/// leave its last responses stuck here.
const RECORD: usize = 16 * 1024;

/// A TCP socket behind a buffering adapter, as TLS or WebSocket put it: the
/// broker must treat it as an opaque byte stream (no `sendfile`).
struct Buffered {
    inner: TcpStream,
    pending: Vec<u8>,
    sent: usize,
}

impl Buffered {
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.pending.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        self.pending.clear();
        self.sent = 0;
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Buffered {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Buffered {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.pending.len() >= RECORD {
            ready!(self.poll_drain(cx))?;
        }
        let n = buf.len().min(RECORD - self.pending.len());
        self.pending.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.as_mut().poll_flush(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// No `sendfile`: the defaults.
impl ByteStream for Buffered {}

/// A server whose connections all arrive as [`Buffered`] streams, accepted
/// by the test and handed over with `serve_stream`.
struct Fixture {
    _dir: tempfile::TempDir,
    engine: Arc<Engine>,
    server: Server,
    metrics: Arc<Metrics>,
    addr: SocketAddr,
}

impl Fixture {
    async fn start() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let mut config = EmbeddedBroker::test_config();
        config.data_dir = dir.path().to_path_buf();
        let engine = Arc::new(Engine::open(dir.path(), config.log_options()).unwrap());
        let server = Server::new(engine.clone(), config).unwrap();
        let metrics = server.metrics();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let acceptor = server.clone();
        tokio::spawn(async move {
            while let Ok((inner, peer)) = listener.accept().await {
                let stream = Buffered {
                    inner,
                    pending: Vec::new(),
                    sent: 0,
                };
                tokio::spawn(acceptor.serve_stream(stream, peer));
            }
        });
        Fixture {
            _dir: dir,
            engine,
            server,
            metrics,
            addr,
        }
    }

    fn counter(&self, c: impl Fn(&Metrics) -> &std::sync::atomic::AtomicU64) -> u64 {
        c(&self.metrics).load(Ordering::Relaxed)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn produce_fetch_long_poll_and_commit_over_a_stream_without_sendfile() {
    let f = Fixture::start().await;
    let mut raw = Raw::connect(f.addr).await;

    // Produce: small batches, then ~6 MiB in 1 MiB batches, all durable.
    let mut batches: Vec<Vec<u8>> = (0..20).map(|i| batch(10, 27, i)).collect();
    batches.extend((20..26).map(|i| batch(1024, 1024, i)));
    let mut corrs = Vec::new();
    for b in &batches {
        corrs.push(raw.send(&produce_req("bs", 0, b, Ack::Durable)).await);
    }
    let mut next = 0;
    for (b, corr) in batches.iter().zip(&corrs) {
        let r = raw.recv_within(Duration::from_secs(30)).await.unwrap();
        assert_eq!(r.status, Status::Ok, "{}", r.message);
        assert_eq!(r.corr, *corr);
        assert_eq!(r.base_offset, Some(next));
        next += BatchIter::new(b)
            .next()
            .unwrap()
            .unwrap()
            .header
            .record_count as u64;
    }

    // One fetch of everything: a response over 4 MiB, copied in pieces.
    let r = raw.fetch("bs", 0, 64 << 20, 0).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    let (hw, log_start, bytes) = r.fetch.clone().unwrap();
    assert_eq!((hw, log_start), (next, 0));
    assert!(bytes.len() > 4 << 20, "a fetch larger than 4 MiB");
    let got: Vec<_> = BatchIter::new(&bytes).map(|b| b.unwrap()).collect();
    assert_eq!(got.len(), batches.len());
    for (i, b) in got.iter().enumerate() {
        b.verify_crc().unwrap();
        let mut stored = b.as_bytes().to_vec();
        stored[1..9].copy_from_slice(&[0; 8]);
        assert_eq!(stored, batches[i], "batch {i} differs");
    }

    // A long poll at the end is parked (a Ping overtakes it) and released
    // by a produce from another connection over the same kind of stream.
    let poll = raw.send(&fetch_req("bs", 0, next, 1 << 20, 30_000)).await;
    let ping = raw.call(&Request::Ping).await;
    assert_ne!(ping.corr, poll);
    let mut producer = Raw::connect(f.addr).await;
    let late = batch(3, 50, 99);
    let r = producer.produce("bs", &late, Ack::Durable).await;
    assert_eq!(r.base_offset, Some(next));
    let r = raw.recv_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(r.corr, poll);
    assert_eq!(r.batch_bases(), [next]);
    let polled = r.fetch.unwrap().2.len() as u64;

    // Commit and read it back.
    let r = raw.call(&commit_req("g", "bs", next + 3)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    let r = raw.call(&committed_req("g", "bs")).await;
    assert_eq!(r.committed, Some(Some(next + 3)));

    // Every record byte was copied; none went through sendfile.
    assert_eq!(f.counter(|m| &m.sendfile_calls), 0);
    assert_eq!(f.counter(|m| &m.sendfile_bytes), 0);
    assert_eq!(
        f.counter(|m| &m.copied_bytes),
        bytes.len() as u64 + polled,
        "fetch bodies took the copy path"
    );
    assert_eq!(f.counter(|m| &m.connections_accepted), 2);

    drop((raw, producer));
    f.engine.close().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_served_directly_are_told_when_the_server_shuts_down() {
    let f = Fixture::start().await;
    let mut raw = Raw::connect(f.addr).await;
    assert_eq!(raw.call(&Request::Ping).await.status, Status::Ok);
    // A long poll in flight is answered (empty) at shutdown, then the notice.
    let poll = raw.send(&fetch_req("quiet", 0, 0, 1024, 30_000)).await;
    assert_eq!(raw.call(&Request::Ping).await.status, Status::Ok);

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let run = tokio::spawn(f.server.clone().run(
        listener,
        async {
            let _ = stopped.await;
        },
        std::future::pending(),
    ));
    stop.send(()).unwrap();
    run.await.unwrap().unwrap();

    let frames = raw.until_closed().await;
    assert_eq!(frames.len(), 2, "{frames:?}");
    assert_eq!(frames[0].corr, poll);
    assert_eq!(frames[0].fetch.as_ref().map(|x| x.2.len()), Some(0));
    assert_eq!(
        (frames[1].corr, frames[1].status),
        (0, Status::ShuttingDown)
    );
    f.engine.close().unwrap();
}
