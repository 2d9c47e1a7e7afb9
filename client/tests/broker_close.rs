//! How the broker ends a connection during a graceful shutdown while the
//! client keeps pipelining — seen from a raw socket, so that nothing in the
//! SDK can hide or cause what happens.
//!
//! A graceful shutdown stops reading new requests, answers everything it
//! appended, tells the client why it closes (the corr-0 `ShuttingDown`
//! notice) and closes. At most what was already in flight (≤ the broker's
//! `max_in_flight` requests, plus what sits in its read buffer) may still be
//! appended after the shutdown was requested. And a connection the broker
//! ends closes with a FIN, not a reset.
//!
//! Both tests failed against the first broker (a busy connection starved the
//! shutdown branch of its `select!`; ending a connection with unread client
//! bytes sent RST) and guard the fixes.

mod support;

use std::time::Duration;

use bytes::BytesMut;
use hermit_broker::config::FsyncPolicy;
use hermit_protocol::frame::{FrameCheck, Produce, check_response, decode_response};
use hermit_protocol::hello::Hello;
use hermit_protocol::{Ack, BatchBuilder, RecordHeader, Request, Status, TopicName};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Batches the client writes in all (~100 MB): enough to keep the broker's
/// socket readable for a long time, small enough for any disk.
const TOTAL: u32 = 30_000;

fn produce_frame(corr: u32, batch: &[u8]) -> BytesMut {
    let mut out = BytesMut::new();
    Request::Produce(Produce {
        topic: TopicName::new("close").unwrap(),
        partition: 0,
        ack: Ack::Written,
        header: RecordHeader::decode(batch).unwrap(),
        batch,
    })
    .encode(corr, &mut out)
    .unwrap();
    out
}

/// Regression guard: the first broker polled its `select!` with `biased;`
/// and `stream.readable()` before `shutdown.changed()`, so while the client
/// kept sending the connection never noticed the shutdown (29,700 of 30,000
/// batches appended after the request; `EmbeddedBroker::shutdown` took as
/// long as the client kept writing). The broker now checks the shutdown
/// every turn: only what was already in flight may follow the request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_stops_reading_promptly_under_a_pipelining_client() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.fsync = FsyncPolicy::Never).await;
    let log = broker.log().clone();
    let mut b = BatchBuilder::new(b"");
    for _ in 0..100 {
        b.push(&[b'x'; 27]);
    }
    let batch = b.finish(1).unwrap();

    let stream = TcpStream::connect(broker.addr()).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (mut rd, mut wr) = stream.into_split();
    wr.write_all(&Hello::client().encode()).await.unwrap();
    let mut hello = [0u8; hermit_protocol::hello::BROKER_HELLO_V3_LEN];
    rd.read_exact(&mut hello).await.unwrap();

    let writer = tokio::spawn(async move {
        let mut corr = 1u32;
        while corr <= TOTAL {
            let mut frames = BytesMut::new();
            for _ in 0..16 {
                frames.extend_from_slice(&produce_frame(corr, &batch));
                corr += 1;
            }
            if wr.write_all(&frames).await.is_err() {
                break; // the broker closed
            }
        }
        wr
    });
    let mut broker = Some(broker);
    let mut buf = BytesMut::new();
    let mut acks = 0u64;
    let mut appended_at_request = None;
    let mut notice = None;
    let mut shutdown = None;
    let end = loop {
        while let Ok(FrameCheck::Complete { len }) = check_response(&buf, u32::MAX) {
            let frame = buf.split_to(len);
            let f = decode_response(&frame).unwrap();
            match (f.correlation_id, f.body) {
                (0, Err(e)) => notice = Some(e.status),
                (_, Ok(_)) => acks += 1,
                (_, Err(e)) => panic!("produce refused: {} {}", e.status, e.message),
            }
        }
        if acks >= 300 && shutdown.is_none() {
            let part = log.partition("close", 0, false).unwrap();
            appended_at_request = Some(part.high_watermark() / 100);
            let b = broker.take().expect("shut down once");
            shutdown = Some(tokio::spawn(async move { b.shutdown().await }));
        }
        match tokio::time::timeout(Duration::from_secs(60), rd.read_buf(&mut buf)).await {
            Ok(Ok(0)) => break Ok(()),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => break Err(e),
            Err(_) => panic!("the broker neither answered nor closed"),
        }
    };
    let _ = writer.await;
    shutdown.expect("shutdown started").await.unwrap().unwrap();
    let appended = log.partition("close", 0, false).unwrap().high_watermark() / 100;
    let after = appended - appended_at_request.unwrap();
    // How the connection ended (FIN or RST) is the next test's subject.
    let _ = end;
    assert_eq!(
        notice,
        Some(Status::ShuttingDown),
        "no notice before the close"
    );
    assert_eq!(
        acks, appended,
        "{appended} batches appended, {acks} acknowledged"
    );
    assert!(
        after <= 2048,
        "{after} batches appended after the shutdown request (of {TOTAL} sent): \
         the connection kept reading"
    );
}

/// Regression guard: when the broker ended a connection (bad input here;
/// shutdown or idle likewise) while bytes the client sent were still unread
/// in its socket, dropping the socket made the kernel send a TCP RST instead
/// of a FIN, so the client got `ECONNRESET` and could lose answers it had
/// not read yet (the error frame, acks, the corr-0 notice). The broker now
/// closes gently: it shuts down its write side, then reads and discards
/// for a short while before dropping the socket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_the_broker_ends_closes_cleanly_even_with_unread_client_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let mut s = TcpStream::connect(broker.addr()).await.unwrap();
    s.write_all(&Hello::client().encode()).await.unwrap();
    let mut hello = [0u8; hermit_protocol::hello::BROKER_HELLO_V3_LEN];
    s.read_exact(&mut hello).await.unwrap();
    // A ping, a frame with an unknown op (the broker answers and closes),
    // then more bytes it will never read.
    let mut out = BytesMut::new();
    Request::Ping.encode(1, &mut out).unwrap();
    out.extend_from_slice(&[0, 0, 0, 5, 0x7f, 0, 0, 0, 2]);
    out.extend_from_slice(&vec![0u8; 256 * 1024]);
    // Written in one go, before reading anything (as a pipelining client would).
    let (mut rd, mut wr) = s.into_split();
    let writer = tokio::spawn(async move {
        let _ = wr.write_all(&out).await;
        wr
    });
    // Read only once the write is over (a busy client reads late): by then
    // the broker has answered and closed.
    let _ = writer.await;
    let mut buf = BytesMut::new();
    let mut answers = Vec::new();
    let end = loop {
        while let Ok(FrameCheck::Complete { len }) = check_response(&buf, u32::MAX) {
            let frame = buf.split_to(len);
            let f = decode_response(&frame).unwrap();
            answers.push((f.correlation_id, f.body.err().map(|e| e.status)));
        }
        match tokio::time::timeout(Duration::from_secs(20), rd.read_buf(&mut buf)).await {
            Ok(Ok(0)) => break Ok(()),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => break Err(e),
            Err(_) => panic!("the broker neither answered nor closed"),
        }
    };
    assert_eq!(
        answers,
        vec![(1, None), (2, Some(Status::UnknownOp))],
        "answers lost (the connection ended with {end:?})"
    );
    assert!(end.is_ok(), "the connection was reset, not closed: {end:?}");
    broker.shutdown().await.unwrap();
}
