//! Conditional produce against a real in-process broker on a real socket:
//! the race (exactly one of ten connections wins each of 1,000 rounds), the
//! answer it gives a loser, and its refusal without `produce`.

mod support;

use hermit_client::{Ack, Client, ClientOptions, Conditional, Status};
use hermit_protocol::BatchBuilder;
use support::*;

fn one(record: &[u8]) -> Vec<u8> {
    let mut b = BatchBuilder::new(b"");
    b.push(record);
    b.finish(1).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_connections_race_for_each_offset_and_exactly_one_wins() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let mut clients = Vec::new();
    for _ in 0..10 {
        // One connection each: a client is one multiplexed connection.
        clients.push(
            Client::connect(broker.addr().to_string(), ClientOptions::default())
                .await
                .unwrap(),
        );
    }
    clients[0].create_topic("race", settings(1)).await.unwrap();
    race::race_to_the_end(&clients, "race", 1_000, Ack::Durable).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_producer_learns_the_end_and_appends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    c.create_topic("cas", settings(1)).await.unwrap();
    // Auto-created partitions start empty: expecting 0 appends.
    assert_eq!(
        c.conditional_produce("cas", 0, 0, Ack::Durable, &one(b"a"))
            .await
            .unwrap(),
        Conditional::Appended { base_offset: 0 }
    );
    c.produce("cas", 0, Ack::Durable, one(b"b").into())
        .await
        .unwrap();
    // Expecting 1 (behind) or 5 (ahead): told the end, 2, and nothing appended.
    for stale in [1, 5] {
        assert_eq!(
            c.conditional_produce("cas", 0, stale, Ack::Written, &one(b"x"))
                .await
                .unwrap(),
            Conditional::EndMoved { end: 2 }
        );
    }
    let meta = c.metadata(Some("cas")).await.unwrap();
    assert_eq!(meta[0].partitions[0].high_watermark, 2);
    // A batch of three at the end: the next end is 5.
    let mut b = BatchBuilder::new(b"");
    for r in [&b"1"[..], b"2", b"3"] {
        b.push(r);
    }
    assert_eq!(
        c.conditional_produce("cas", 0, 2, Ack::Durable, &b.finish(1).unwrap())
            .await
            .unwrap(),
        Conditional::Appended { base_offset: 2 }
    );
    assert_eq!(
        c.conditional_produce("cas", 0, 2, Ack::Durable, &one(b"y"))
            .await
            .unwrap(),
        Conditional::EndMoved { end: 5 }
    );
    // A durable ack from a broker that never fsyncs is refused, as for Produce.
    let dir2 = tempfile::tempdir().unwrap();
    let never = broker_never_fsyncs(dir2.path()).await;
    let c2 = client(never.addr()).await;
    let err = c2
        .conditional_produce("cas", 0, 0, Ack::Durable, &one(b"z"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::NotDurable), "{err}");
}

async fn broker_never_fsyncs(dir: &std::path::Path) -> hermit_broker::embedded::EmbeddedBroker {
    broker(dir, |c| c.fsync = hermit_broker::config::FsyncPolicy::Never).await
}
