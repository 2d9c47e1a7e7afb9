//! The low-level `Client` against a real in-process broker (and, where a
//! broker cannot be made to misbehave on cue, a scripted fake one):
//! pipelining, every operation, typed errors, dead connections.

mod support;

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hermit_broker::config::FsyncPolicy;
use hermit_client::{Ack, Client, ClientError, ClientOptions, Status};
use hermit_protocol::BatchBuilder;
use hermit_protocol::Op;
use hermit_protocol::frame::{
    ErrorBody, FrameCheck, Limits, ResponseBody, check_request, decode_request, encode_error,
    encode_response,
};
use hermit_protocol::hello::Hello;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn batch(records: &[&[u8]]) -> Bytes {
    let mut b = BatchBuilder::new(b"");
    for r in records {
        b.push(r);
    }
    Bytes::from(b.finish(1).unwrap())
}

/// Bound every wait so a hang fails the test instead of stalling the suite.
async fn within<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(20), f)
        .await
        .unwrap_or_else(|_| panic!("{what} hung"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_round_trips_and_produces_pipeline_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    c.ping().await.unwrap();
    c.create_topic("ops", settings(3)).await.unwrap();
    let err = c.create_topic("ops", settings(3)).await.unwrap_err();
    assert_eq!(err.status(), Some(Status::TopicExists), "{err}");

    // 300 produces in flight at once on one connection, from one task:
    // each gets its own offsets, in the order sent.
    let mut futs = Vec::new();
    for i in 0..300u32 {
        let b = batch(&[&i.to_be_bytes(), b"second"]);
        futs.push(started(Box::pin(c.produce("ops", 1, Ack::Durable, b))).await);
    }
    let mut bases = Vec::new();
    for f in futs {
        bases.push(f.finish().await.unwrap());
    }
    assert_eq!(bases, (0..300).map(|i| 2 * i).collect::<Vec<u64>>());

    let meta = c.metadata(Some("ops")).await.unwrap();
    assert_eq!(meta.len(), 1);
    assert_eq!(meta[0].partitions.len(), 3);
    assert_eq!(meta[0].partitions[1].high_watermark, 600);
    assert_eq!(meta[0].partitions[0].high_watermark, 0);
    assert!(
        c.metadata(None)
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "ops")
    );

    // Fetch from the middle of a batch: the batch comes whole, records_from skips.
    let f = c.fetch("ops", 1, 7, 1 << 20, Duration::ZERO).await.unwrap();
    assert_eq!((f.high_watermark, f.log_start), (600, 0));
    let recs: Vec<_> = f.records_from(7).collect::<Result<_, _>>().unwrap();
    assert_eq!(recs[0].offset, 7);
    assert_eq!(&recs[0].value[..], b"second");
    assert_eq!(&recs[1].value[..], &4u32.to_be_bytes());
    assert_eq!(recs.last().unwrap().offset, 599);
    assert_eq!(
        f.records().next().unwrap().unwrap().offset,
        6,
        "the batch holding 7 starts at 6"
    );

    assert_eq!(c.committed("g", "ops", 1).await.unwrap(), None);
    c.commit("g", "ops", 1, 42).await.unwrap();
    assert_eq!(c.committed("g", "ops", 1).await.unwrap(), Some(42));
    let err = c.commit("g", "ops", 1, 601).await.unwrap_err();
    assert_eq!(err.status(), Some(Status::OffsetAheadOfLog), "{err}");

    c.delete_topic("ops").await.unwrap();
    let err = c.metadata(Some("ops")).await.unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownTopic), "{err}");

    // Names are checked before anything is sent.
    let err = c
        .produce("../etc", 0, Ack::Written, batch(&[b"x"]))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClientError::InvalidName { what: "topic", .. }),
        "{err}"
    );
    assert_eq!(c.connections_opened(), 1);
    broker.shutdown().await.unwrap();
}

/// Poll `f` once, so its request is submitted now, and hand it back to be
/// finished later: requests started this way from one task go out in the
/// order they were started. (Its answer may already be in: on a busy
/// machine the round trip can complete inside that one poll.)
async fn started<F: std::future::Future + Unpin>(mut f: F) -> Started<F> {
    tokio::select! {
        biased;
        out = &mut f => Started::Done(out),
        _ = std::future::ready(()) => Started::Pending(f),
    }
}

enum Started<F: std::future::Future> {
    Done(F::Output),
    Pending(F),
}

impl<F: std::future::Future + Unpin> Started<F> {
    async fn finish(self) -> F::Output {
        match self {
            Started::Done(out) => out,
            Started::Pending(f) => f.await,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_poll_does_not_hold_back_produce_acks_on_the_same_connection() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    c.produce("lp", 0, Ack::Durable, batch(&[b"a"]))
        .await
        .unwrap();
    // The fetch goes out first and parks on the broker (nothing at offset 1).
    let poll = started(Box::pin(c.fetch(
        "lp",
        0,
        1,
        1 << 20,
        Duration::from_secs(15),
    )))
    .await;
    // The produce behind it on the same connection must not wait for it:
    // well under the poll's 15 s.
    let base = tokio::time::timeout(
        Duration::from_secs(5),
        c.produce("lp", 0, Ack::Durable, batch(&[b"b"])),
    )
    .await
    .expect("a produce ack waited behind a long poll")
    .unwrap();
    assert_eq!(base, 1);
    // And the poll wakes on the new record instead of running out its wait.
    let f = tokio::time::timeout(Duration::from_secs(5), poll.finish())
        .await
        .expect("the long poll did not wake on new data")
        .unwrap();
    let first = f.records_from(1).next().unwrap().unwrap();
    assert_eq!((first.offset, &first.value[..]), (1, &b"b"[..]));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offset_out_of_range_carries_the_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    c.produce(
        "oor",
        0,
        Ack::Durable,
        batch(&[b"1", b"2", b"3", b"4", b"5"]),
    )
    .await
    .unwrap();
    let err = c
        .fetch("oor", 0, 100, 1024, Duration::ZERO)
        .await
        .unwrap_err();
    match &err {
        ClientError::OffsetOutOfRange {
            log_start,
            high_watermark,
            ..
        } => assert_eq!((*log_start, *high_watermark), (0, 5)),
        other => panic!("expected OffsetOutOfRange, got {other:?}"),
    }
    assert!(!err.is_retriable());
    assert_eq!(err.status(), Some(Status::OffsetOutOfRange));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_topic_is_typed_when_auto_create_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.auto_create = false).await;
    let c = client(broker.addr()).await;
    for err in [
        c.produce("nope", 0, Ack::Written, batch(&[b"x"]))
            .await
            .unwrap_err(),
        c.fetch("nope", 0, 0, 1024, Duration::ZERO)
            .await
            .unwrap_err(),
        c.metadata(Some("nope")).await.unwrap_err(),
    ] {
        assert!(
            matches!(
                &err,
                ClientError::Broker {
                    status: Status::UnknownTopic,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(!err.is_retriable());
    }
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durable_produce_to_an_fsync_never_broker_is_refused_and_not_appended() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.fsync = FsyncPolicy::Never).await;
    let c = client(broker.addr()).await;
    c.create_topic("nd", settings(1)).await.unwrap();
    let err = c
        .produce("nd", 0, Ack::Durable, batch(&[b"x"]))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            ClientError::Broker {
                status: Status::NotDurable,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!err.is_retriable());
    assert_eq!(
        c.metadata(Some("nd")).await.unwrap()[0].partitions[0].high_watermark,
        0
    );
    // Written acks work, and the refusal did not take an offset.
    assert_eq!(
        c.produce("nd", 0, Ack::Written, batch(&[b"y"]))
            .await
            .unwrap(),
        0
    );
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_to_a_dead_broker_fail_retriably_instead_of_hanging() {
    // Nothing listens: connect fails.
    let nowhere = free_addr();
    let err = Client::connect(nowhere.to_string(), ClientOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Connect { .. }), "{err:?}");
    assert!(err.is_retriable());

    // A broker that goes away under a connected client.
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    c.ping().await.unwrap();
    broker.shutdown().await.unwrap();
    for _ in 0..3 {
        let err = within("request to a dead broker", c.ping())
            .await
            .unwrap_err();
        assert!(err.is_retriable(), "{err:?}");
        assert!(
            matches!(
                err,
                ClientError::Connect { .. } | ClientError::ConnectionLost { .. }
            ),
            "{err:?}"
        );
    }
}

/// A fake broker's view of one request.
struct Seen {
    corr: u32,
    op: Op,
}

/// Accept one connection on `listener`, do the hello, and return the stream.
async fn accept_hello(listener: &TcpListener) -> TcpStream {
    let (mut s, _) = listener.accept().await.unwrap();
    let mut hello = [0u8; 8];
    s.read_exact(&mut hello).await.unwrap();
    assert_eq!(Hello::decode(&hello).unwrap(), Hello::client());
    s.write_all(&Hello::broker(1 << 20).encode()).await.unwrap();
    s
}

/// Read one request frame.
async fn read_request(s: &mut TcpStream, buf: &mut BytesMut) -> Seen {
    loop {
        if let Ok(FrameCheck::Complete { len }) = check_request(buf, &Limits::default()) {
            let f = decode_request(&buf[..len], &Limits::default()).unwrap();
            let seen = Seen {
                corr: f.correlation_id,
                op: f.request.op(),
            };
            let _ = buf.split_to(len);
            return seen;
        }
        let n = s.read_buf(buf).await.unwrap();
        assert!(
            n > 0,
            "client closed while the fake broker expected a request"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notice_on_correlation_id_zero_ends_the_connection_and_fails_what_is_pending() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let fake = tokio::spawn(async move {
        // First connection: answer one ping, take a second request, then
        // announce shutdown on corr 0 and close without answering it.
        let mut s = accept_hello(&listener).await;
        let mut buf = BytesMut::new();
        let first = read_request(&mut s, &mut buf).await;
        assert!(
            first.corr != 0,
            "correlation id 0 is reserved for the broker"
        );
        let mut out = BytesMut::new();
        encode_response(first.corr, &ResponseBody::Ping, &mut out).unwrap();
        s.write_all(&out).await.unwrap();
        let second = read_request(&mut s, &mut buf).await;
        assert!(second.corr != 0 && second.corr != first.corr);
        out.clear();
        let notice = ErrorBody {
            status: Status::ShuttingDown,
            message: "the broker is shutting down",
            bounds: None,
        };
        encode_error(0, Op::Ping as u8, &notice, &mut out).unwrap();
        s.write_all(&out).await.unwrap();
        drop(s);
        // Second connection: a fresh one serves the retry.
        let mut s = accept_hello(&listener).await;
        let mut buf = BytesMut::new();
        let third = read_request(&mut s, &mut buf).await;
        assert_eq!(third.op, Op::Ping);
        out.clear();
        encode_response(third.corr, &ResponseBody::Ping, &mut out).unwrap();
        s.write_all(&out).await.unwrap();
        // Keep it open until the client is done.
        let _ = s.read(&mut [0u8; 1]).await;
    });
    let c = client(addr).await;
    c.ping().await.unwrap();
    let err = within("request on a closing connection", c.ping())
        .await
        .unwrap_err();
    match &err {
        ClientError::ConnectionLost { reason, .. } => {
            assert!(
                reason.contains("ShuttingDown"),
                "the notice is the reason: {reason}"
            )
        }
        other => panic!("expected ConnectionLost, got {other:?}"),
    }
    assert!(err.is_retriable());
    within("request on a new connection", c.ping())
        .await
        .unwrap();
    assert_eq!(c.connections_opened(), 2);
    drop(c);
    within("fake broker", fake).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_broker_times_requests_out_and_fails_the_rest_of_the_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut s = accept_hello(&listener).await;
        let mut buf = BytesMut::new();
        // Read requests, never answer.
        loop {
            let r = read_request(&mut s, &mut buf).await;
            let _ = seen_tx.send(r.op);
        }
    });
    let c = Client::connect(
        addr.to_string(),
        ClientOptions {
            request_timeout: Duration::from_millis(300),
            ..ClientOptions::default()
        },
    )
    .await
    .unwrap();
    let early = {
        let c = c.clone();
        tokio::spawn(async move { c.ping().await })
    };
    assert_eq!(seen_rx.recv().await, Some(Op::Ping));
    // A fetch with a long wait: its own deadline is far, but it shares the connection.
    let late = {
        let c = c.clone();
        tokio::spawn(async move { c.fetch("t", 0, 0, 10, Duration::from_secs(60)).await })
    };
    assert_eq!(seen_rx.recv().await, Some(Op::Fetch));
    let err = within("timed-out ping", early).await.unwrap().unwrap_err();
    assert!(matches!(err, ClientError::Timeout { .. }), "{err:?}");
    assert!(err.is_retriable());
    let err = within("fetch on the closed connection", late)
        .await
        .unwrap()
        .unwrap_err();
    assert!(matches!(err, ClientError::ConnectionLost { .. }), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_batches_are_refused_by_the_client_or_typed_by_the_broker() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.max_payload = 1024).await;
    let c = client(broker.addr()).await;
    // Past the broker's frame limit (payload + key limits + headers, from
    // its hello): refused before anything is sent; the connection stays.
    let huge = vec![7u8; 16 * 1024];
    let err = c
        .produce("big", 0, Ack::Durable, batch(&[&huge]))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClientError::RequestTooLarge { .. }),
        "{err:?}"
    );
    assert!(!err.is_retriable());
    c.ping().await.unwrap();
    assert_eq!(c.connections_opened(), 1);
    // Within the frame limit but past max_payload: the broker's typed refusal.
    let big = vec![7u8; 2048];
    let err = c
        .produce("big", 0, Ack::Durable, batch(&[&big]))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            ClientError::Broker {
                status: Status::PayloadTooLarge,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!err.is_retriable());
    // The broker closes a connection after a frame it refuses; the client reconnects.
    within("ping after the refusal", c.ping()).await.unwrap();
    assert_eq!(
        c.connections_opened(),
        2,
        "the next request took a new connection"
    );
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_connections_is_retriable_and_reconnects_back_off() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.max_connections = 1).await;
    let holder = client(broker.addr()).await;
    holder.ping().await.unwrap();
    let refused = client(broker.addr()).await; // the hello is answered, then the notice
    let mut errors = 0;
    // Each attempt opens a connection the broker refuses right after the
    // hello; the client must back off between them, not spin.
    let started = tokio::time::Instant::now();
    while started.elapsed() < Duration::from_millis(1500) {
        let err = within("refused request", refused.ping()).await.unwrap_err();
        assert!(err.is_retriable(), "{err:?}");
        match &err {
            ClientError::ConnectionLost { reason, .. } => {
                assert!(reason.contains("TooManyConnections"), "{reason}")
            }
            other => panic!("expected ConnectionLost, got {other:?}"),
        }
        errors += 1;
    }
    let opened = refused.connections_opened();
    assert!(errors >= 2);
    // 50 ms doubling to 2 s: a handful of attempts in 1.5 s, not hundreds.
    assert!(opened <= 8, "{opened} connections in 1.5 s: no backoff");
    // Once the holder leaves, the refused client gets in.
    drop(holder);
    let mut ok = false;
    for _ in 0..20 {
        if within("ping after the holder left", refused.ping())
            .await
            .is_ok()
        {
            ok = true;
            break;
        }
    }
    assert!(ok, "never got a connection after the holder left");
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topics_are_listed_page_by_page() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.fsync = FsyncPolicy::Never).await;
    let c = client(broker.addr()).await;
    let names: Vec<String> = (0..25).map(|i| format!("p.{i:02}")).collect();
    for n in &names {
        c.create_topic(n, settings(1)).await.unwrap();
    }
    // Consumer groups make the internal offsets topic: never listed.
    c.commit("g", "p.00", 0, 0).await.unwrap();

    let mut pages = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = c.list_topics(after.as_deref(), 10).await.unwrap();
        let listed: Vec<String> = page.topics.iter().map(|t| t.name.clone()).collect();
        pages.push((listed, page.next.clone()));
        match page.next {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    assert_eq!(pages.len(), 3, "{pages:?}");
    assert_eq!(pages[0].1.as_deref(), Some("p.09"));
    assert_eq!(pages[2].0, names[20..]);
    let walked: Vec<String> = pages.into_iter().flat_map(|(t, _)| t).collect();
    assert_eq!(walked, names);
    let all: Vec<String> = c
        .all_topics()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(all, names);
    // Metadata of all topics still answers on a small broker.
    assert_eq!(c.metadata(None).await.unwrap().len(), 25);

    // A cursor may be any name, an internal one included.
    let page = c.list_topics(Some("__consumer_offsets"), 3).await.unwrap();
    assert_eq!(page.topics.len(), 3);
    // Arguments are checked before anything is sent.
    for limit in [0, hermit_client::MAX_LIST_LIMIT + 1] {
        let err = c.list_topics(None, limit).await.unwrap_err();
        assert!(matches!(err, ClientError::InvalidArgument(_)), "{err:?}");
    }
    let err = c.list_topics(Some("a/b"), 10).await.unwrap_err();
    assert!(matches!(err, ClientError::InvalidName { .. }), "{err:?}");
    c.ping().await.unwrap();
    assert_eq!(c.connections_opened(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_listing_keeps_the_connection_and_a_stuck_cursor_is_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let fake = tokio::spawn(async move {
        let mut s = accept_hello(&listener).await;
        let mut buf = BytesMut::new();
        let mut out = BytesMut::new();
        // Metadata of all topics, declined as too large: the broker keeps
        // the connection open (unlike a frame over its limit).
        let r = read_request(&mut s, &mut buf).await;
        assert_eq!(r.op, Op::Metadata);
        let declined = ErrorBody {
            status: Status::PayloadTooLarge,
            message: "Metadata of all topics answers one page only",
            bounds: None,
        };
        encode_error(r.corr, Op::Metadata as u8, &declined, &mut out).unwrap();
        s.write_all(&out).await.unwrap();
        out.clear();
        // A page whose cursor goes backwards would page forever.
        let r2 = read_request(&mut s, &mut buf).await;
        assert_eq!(r2.op, Op::ListTopics);
        let page = hermit_client::TopicPage {
            topics: Vec::new(),
            next: Some("a".into()),
        };
        encode_response(r2.corr, &ResponseBody::ListTopics(page), &mut out).unwrap();
        s.write_all(&out).await.unwrap();
        out.clear();
        let r3 = read_request(&mut s, &mut buf).await;
        assert_eq!(r3.op, Op::Ping);
        encode_response(r3.corr, &ResponseBody::Ping, &mut out).unwrap();
        s.write_all(&out).await.unwrap();
        let _ = s.read(&mut [0u8; 1]).await;
    });
    let c = client(addr).await;
    let err = within("metadata", c.metadata(None)).await.unwrap_err();
    assert_eq!(err.status(), Some(Status::PayloadTooLarge), "{err}");
    let err = within("list", c.list_topics(Some("b"), 10))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Protocol(_)), "{err:?}");
    within("ping", c.ping()).await.unwrap();
    assert_eq!(
        c.connections_opened(),
        1,
        "the same connection served all three"
    );
    drop(c);
    within("fake broker", fake).await.unwrap();
}
