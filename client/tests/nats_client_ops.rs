//! The low-level `Client` over NATS JetStream (a real single `nats-server
//! -js` per test): every operation, the offset encoding as seen from
//! outside, typed errors, and the configuration checks. Needs the `nats`
//! feature (on in the workspace build: the CLI enables it). Produces ask
//! for written acks: Debian's nats-server 2.9.10 cannot sync every write,
//! so a durable one is refused (docs/SCALE-OUT.md §4), as checked here.

mod support;

use std::time::Duration;

use bytes::Bytes;
use hermit_client::transport::nats_offset::NatsOffset;
use hermit_client::{
    Ack, Cleanup, Client, ClientError, ClientOptions, Status, TopicSettings, TransportKind,
};
use hermit_protocol::BatchBuilder;
use support::nats::*;
use support::settings;

fn batch(key: &[u8], records: &[&[u8]]) -> Bytes {
    let mut b = BatchBuilder::new(key);
    for r in records {
        b.push(r);
    }
    Bytes::from(b.finish(7).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_round_trips_over_jetstream() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    assert_eq!(c.transport_kind(), TransportKind::Nats);
    c.ping().await.unwrap();
    c.create_topic("ops.v1", settings(3)).await.unwrap();
    let err = c.create_topic("ops.v1", settings(3)).await.unwrap_err();
    assert_eq!(err.status(), Some(Status::TopicExists), "{err}");

    // A durable ack is refused (this server syncs every 2 minutes, and the
    // URL does not say otherwise) and nothing is stored: the first written
    // batch below gets message 1.
    let err = c
        .produce("ops.v1", 1, Ack::Durable, batch(b"", &[b"refused"]))
        .await
        .expect_err("a durable produce was acknowledged by a server that syncs on a timer");
    assert_eq!(err.status(), Some(Status::NotDurable), "{err}");

    // Produces in order on one partition: each batch is one stream message,
    // its records numbered inside it.
    let mut bases = Vec::new();
    for i in 0..50u32 {
        let b = batch(b"", &[&i.to_be_bytes(), b"second"]);
        bases.push(c.produce("ops.v1", 1, Ack::Written, b).await.unwrap());
    }
    let want: Vec<u64> = (1..=50).map(|s| NatsOffset::batch_base(s, 2)).collect();
    assert_eq!(
        bases, want,
        "the batch in message s ends where message s + 1's range starts"
    );

    let meta = c.metadata(Some("ops.v1")).await.unwrap();
    assert_eq!(meta.len(), 1);
    assert_eq!(meta[0].name, "ops.v1");
    assert_eq!(meta[0].partitions.len(), 3);
    assert_eq!(
        meta[0].partitions[1].log_start,
        NatsOffset::sequence_start(1)
    );
    assert_eq!(
        meta[0].partitions[1].high_watermark,
        NatsOffset::sequence_start(51)
    );
    assert_eq!(
        meta[0].partitions[0].high_watermark, meta[0].partitions[0].log_start,
        "an empty partition"
    );
    assert!(
        c.metadata(None)
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "ops.v1")
    );

    // Fetch from the middle of a batch: the batch comes whole, records_from skips.
    let mid = NatsOffset::record(4, 2, 1);
    let f = c
        .fetch("ops.v1", 1, mid, 1 << 20, Duration::ZERO)
        .await
        .unwrap();
    let recs: Vec<_> = f.records_from(mid).collect::<Result<_, _>>().unwrap();
    assert_eq!(recs[0].offset, mid);
    assert_eq!(&recs[0].value[..], b"second");
    assert_eq!(recs[0].timestamp_ns, 7);
    assert_eq!(recs[1].offset, NatsOffset::record(5, 2, 0));
    assert_eq!(&recs[1].value[..], &4u32.to_be_bytes());
    assert_eq!(recs.last().unwrap().offset, NatsOffset::record(50, 2, 1));
    assert_eq!(
        f.records().next().unwrap().unwrap().offset,
        NatsOffset::record(4, 2, 0)
    );
    // The position after a whole batch, in either spelling, continues there.
    // After batch 4 (the start of sequence 5's range), or anywhere in that
    // range before batch 5's first record: batch 5 comes next.
    for after in [mid + 1, NatsOffset::sequence_start(5) + 3] {
        let f = c
            .fetch("ops.v1", 1, after, 1 << 20, Duration::ZERO)
            .await
            .unwrap();
        let first = f.records_from(after).next().unwrap().unwrap();
        assert_eq!(first.offset, NatsOffset::record(5, 2, 0));
    }
    // Offset 0 means "from the start", as with the broker.
    let f = c
        .fetch("ops.v1", 1, 0, 1 << 20, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(
        f.records_from(0).next().unwrap().unwrap().offset,
        NatsOffset::record(1, 2, 0)
    );

    // Keys travel in a header and come back as the batch key.
    let base = c
        .produce("ops.v1", 2, Ack::Written, batch(b"conv-7", &[b"k"]))
        .await
        .unwrap();
    let f = c
        .fetch("ops.v1", 2, base, 1 << 20, Duration::ZERO)
        .await
        .unwrap();
    let r = f.records().next().unwrap().unwrap();
    assert_eq!(
        (&r.key[..], &r.value[..], r.partition),
        (&b"conv-7"[..], &b"k"[..], 2)
    );

    assert_eq!(c.committed("g", "ops.v1", 1).await.unwrap(), None);
    c.commit("g", "ops.v1", 1, mid).await.unwrap();
    assert_eq!(c.committed("g", "ops.v1", 1).await.unwrap(), Some(mid));
    c.commit("g", "ops.v1", 1, mid + 1).await.unwrap();
    assert_eq!(c.committed("g", "ops.v1", 1).await.unwrap(), Some(mid + 1));
    assert_eq!(c.committed("other group", "ops.v1", 1).await.unwrap(), None);
    let err = c
        .commit("g", "ops.v1", 1, NatsOffset::sequence_start(52))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::OffsetAheadOfLog), "{err}");

    c.delete_topic("ops.v1").await.unwrap();
    let err = c.metadata(Some("ops.v1")).await.unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownTopic), "{err}");
    // A deleted topic's commits are forgotten, as with the broker.
    assert_eq!(c.committed("g", "ops.v1", 1).await.unwrap(), None);

    // Names are checked before anything is sent.
    let err = c
        .produce("../etc", 0, Ack::Written, batch(b"", &[b"x"]))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClientError::InvalidName { what: "topic", .. }),
        "{err}"
    );
    assert_eq!(c.connections_opened(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_unknown_and_long_polls() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let url = format!("{}?auto_create=false", server.url());
    let c = nats_client(&url, ClientOptions::default()).await;
    for err in [
        c.produce("nope", 0, Ack::Written, batch(b"", &[b"x"]))
            .await
            .unwrap_err(),
        c.fetch("nope", 0, 0, 1024, Duration::ZERO)
            .await
            .unwrap_err(),
        c.metadata(Some("nope")).await.unwrap_err(),
    ] {
        assert_eq!(err.status(), Some(Status::UnknownTopic), "{err:?}");
        assert!(!err.is_retriable());
    }
    c.create_topic("oor", settings(1)).await.unwrap();
    let err = c
        .produce("oor", 1, Ack::Written, batch(b"", &[b"x"]))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownPartition), "{err:?}");
    c.produce("oor", 0, Ack::Written, batch(b"", &[b"1", b"2", b"3"]))
        .await
        .unwrap();
    match c
        .fetch(
            "oor",
            0,
            NatsOffset::sequence_start(9),
            1024,
            Duration::ZERO,
        )
        .await
        .unwrap_err()
    {
        ClientError::OffsetOutOfRange {
            log_start,
            high_watermark,
            ..
        } => assert_eq!(
            (log_start, high_watermark),
            (NatsOffset::sequence_start(1), NatsOffset::sequence_start(2))
        ),
        other => panic!("expected OffsetOutOfRange, got {other:?}"),
    }

    // A long poll at the end wakes on the next produce, well before its wait.
    let end = NatsOffset::sequence_start(2);
    let poll = {
        let c = c.clone();
        tokio::spawn(async move {
            c.fetch("oor", 0, end, 1 << 20, Duration::from_secs(15))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !poll.is_finished(),
        "the fetch at the end answered before anything was produced"
    );
    let base = c
        .produce("oor", 0, Ack::Written, batch(b"", &[b"4"]))
        .await
        .unwrap();
    let f = tokio::time::timeout(Duration::from_secs(5), poll)
        .await
        .expect("the long poll did not wake on new data")
        .unwrap()
        .unwrap();
    let r = f.records_from(end).next().unwrap().unwrap();
    assert_eq!((r.offset, &r.value[..]), (base, &b"4"[..]));
    assert_eq!(
        base + 1,
        NatsOffset::sequence_start(3),
        "right-aligned in its range"
    );
    // And an empty long poll comes back empty after its wait.
    let started = tokio::time::Instant::now();
    let f = c
        .fetch(
            "oor",
            0,
            NatsOffset::sequence_start(3),
            1 << 20,
            Duration::from_millis(300),
        )
        .await
        .unwrap();
    assert!(f.batches.is_empty());
    assert!(started.elapsed() >= Duration::from_millis(250));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compacted_topics_keep_the_newest_batch_per_key() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    c.create_topic(
        "profiles",
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Compact,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .await
    .unwrap();
    for v in 0..5u8 {
        for key in [&b"alice"[..], b"bob", &[0xff; 100][..]] {
            c.produce("profiles", 0, Ack::Written, batch(key, &[&[v]]))
                .await
                .unwrap();
        }
    }
    let meta = c.metadata(Some("profiles")).await.unwrap();
    assert_eq!(meta[0].cleanup, Cleanup::Compact);
    let f = c
        .fetch("profiles", 0, 0, 1 << 20, Duration::ZERO)
        .await
        .unwrap();
    let got: Vec<(Vec<u8>, u8)> = f
        .records()
        .map(|r| r.map(|r| (r.key.to_vec(), r.value[0])))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        got,
        vec![
            (b"alice".to_vec(), 4),
            (b"bob".to_vec(), 4),
            (vec![0xff; 100], 4)
        ],
        "one batch per key, the newest"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_jetstream_or_a_bad_url_is_a_clear_error() {
    // No server at all.
    let nowhere = support::free_addr();
    let err = Client::connect(format!("nats://{nowhere}"), ClientOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Connect { .. }), "{err:?}");
    assert!(err.is_retriable());
    // A NATS server without JetStream: named as such.
    let dir = tempfile::tempdir().unwrap();
    let plain = NatsServer::without_jetstream(dir.path());
    let err = Client::connect(
        plain.url(),
        ClientOptions {
            connect_timeout: Duration::from_millis(500),
            ..ClientOptions::default()
        },
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ClientError::Connect { .. }), "{err:?}");
    let why = std::error::Error::source(&err)
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(why.contains("JetStream"), "{why}");
    drop(plain);
    // Options are checked, not guessed.
    let err = Client::connect("nats://127.0.0.1:4222?replica=3", ClientOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::InvalidArgument(_)), "{err:?}");
    // A stream name is a directory name on the server: at most 255 bytes.
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let longest = "t".repeat(246);
    c.create_topic(&longest, settings(1)).await.unwrap();
    c.produce(&longest, 0, Ack::Written, batch(b"", &[b"fits"]))
        .await
        .unwrap();
    let err = c
        .create_topic(&"t".repeat(247), settings(1))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::InvalidArgument(_)), "{err:?}");
    drop((c, server));
    // Replicas a single server cannot give: refused by the server, typed.
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(
        &format!("{}?replicas=3", server.url()),
        ClientOptions::default(),
    )
    .await;
    let err = c.create_topic("r3", settings(1)).await.unwrap_err();
    assert!(matches!(err, ClientError::Broker { .. }), "{err:?}");
    assert!(err.to_string().contains("replicas"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topics_are_listed_page_by_page_over_jetstream() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let names: Vec<String> = (0..5).map(|i| format!("l.{i}")).collect();
    for n in &names {
        c.create_topic(n, settings(2)).await.unwrap();
    }
    let mut pages = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let page = c.list_topics(after.as_deref(), 2).await.unwrap();
        assert!(page.topics.iter().all(|t| t.partitions.len() == 2));
        let listed: Vec<String> = page.topics.into_iter().map(|t| t.name).collect();
        pages.push((listed, page.next.clone()));
        match page.next {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    let want = vec![
        (
            vec!["l.0".to_owned(), "l.1".to_owned()],
            Some("l.1".to_owned()),
        ),
        (
            vec!["l.2".to_owned(), "l.3".to_owned()],
            Some("l.3".to_owned()),
        ),
        (vec!["l.4".to_owned()], None),
    ];
    assert_eq!(pages, want);
    let all: Vec<String> = c
        .all_topics()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(all, names);
    let err = c.list_topics(None, 0).await.unwrap_err();
    assert!(matches!(err, ClientError::InvalidArgument(_)), "{err:?}");
}
