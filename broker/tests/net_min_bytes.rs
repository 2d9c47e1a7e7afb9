//! A fetch held for `min_bytes` over real sockets: held while fewer bytes
//! are there, answered when they are, at `min_wait_ms` with what there is,
//! empty at `max_wait_ms`; the old encoding still answers at once; a held
//! fetch counts against `max_parked_fetches`.

mod netcommon;

use std::time::{Duration, Instant};

use hermit_broker::net::Metrics;
use hermit_protocol::hello::BrokerFlags;
use hermit_protocol::{Ack, Request, Status};
use netcommon::*;

/// A batch of 10 records of 100 bytes: about 1.1 KB.
fn small(tag: u64) -> Vec<u8> {
    batch(10, 100, tag)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_fetch_waits_for_min_bytes_and_then_carries_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut consumer = Raw::connect(broker.addr()).await;
    assert!(
        consumer
            .hello
            .unwrap()
            .flags
            .has(BrokerFlags::FETCH_MIN_BYTES)
    );
    let mut producer = Raw::connect(broker.addr()).await;
    let one = small(1);
    assert_eq!(
        producer.produce("mb", &one, Ack::Durable).await.status,
        Status::Ok
    );
    // At the end (offset 10), for more than one batch, waiting long.
    let need = (one.len() + one.len() / 2) as u32;
    let corr = consumer
        .send(&fetch_min_req("mb", 10, 30_000, need, 30_000))
        .await;
    assert_eq!(
        producer.produce("mb", &small(2), Ack::Durable).await.status,
        Status::Ok
    );
    // One batch is there, fewer than min_bytes: still held (min_wait is 30 s).
    let early = tokio::time::timeout(Duration::from_millis(500), consumer.recv()).await;
    assert!(early.is_err(), "answered before min_bytes: {early:?}");
    assert_eq!(
        producer.produce("mb", &small(3), Ack::Durable).await.status,
        Status::Ok
    );
    let r = consumer.recv_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(r.corr, corr);
    assert_eq!(r.batch_bases(), [10, 20], "both batches in one answer");
    let m = broker.metrics();
    assert_eq!(Metrics::get(&m.fetches_held_filled), 1);
    assert_eq!(Metrics::get(&m.fetches_held_expired), 0);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_fetch_is_answered_at_min_wait_with_the_little_there_is() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut consumer = Raw::connect(broker.addr()).await;
    let mut producer = Raw::connect(broker.addr()).await;
    assert_eq!(
        producer.produce("mw", &small(1), Ack::Durable).await.status,
        Status::Ok
    );
    let sent = Instant::now();
    let corr = consumer
        .send(&fetch_min_req("mw", 10, 30_000, 1 << 20, 400))
        .await;
    assert_eq!(
        producer.produce("mw", &small(2), Ack::Durable).await.status,
        Status::Ok
    );
    let r = consumer.recv_within(Duration::from_secs(10)).await.unwrap();
    let took = sent.elapsed();
    assert_eq!(r.corr, corr);
    assert_eq!(r.batch_bases(), [10]);
    assert!(
        took >= Duration::from_millis(400),
        "held until min_wait: {took:?}"
    );
    // Data already there when it comes: held from its arrival, too.
    let sent = Instant::now();
    let r = consumer
        .call(&fetch_min_req("mw", 0, 30_000, 1 << 20, 400))
        .await;
    assert!(sent.elapsed() >= Duration::from_millis(400));
    assert_eq!(r.batch_bases(), [0, 10]);
    let m = broker.metrics();
    assert_eq!(Metrics::get(&m.fetches_held_expired), 2);
    assert_eq!(Metrics::get(&m.fetches_held_filled), 0);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_fetch_with_nothing_there_is_answered_empty_at_max_wait() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let sent = Instant::now();
    let r = raw.call(&fetch_min_req("quiet", 0, 300, 1 << 20, 50)).await;
    assert!(sent.elapsed() >= Duration::from_millis(300));
    let (hw, _, bytes) = r.fetch.unwrap();
    assert_eq!((hw, bytes.len()), (0, 0));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fetch_in_the_old_encoding_is_answered_on_the_first_data() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut consumer = Raw::connect(broker.addr()).await;
    let mut producer = Raw::connect(broker.addr()).await;
    assert_eq!(
        producer
            .produce("old", &small(1), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    // What a client from before min_bytes sends, by hand: no trailing part.
    let mut body = vec![3u8];
    body.extend_from_slice(b"old");
    body.extend_from_slice(&0u32.to_be_bytes()); // partition
    body.extend_from_slice(&10u64.to_be_bytes()); // offset
    body.extend_from_slice(&(1u32 << 20).to_be_bytes()); // max_bytes
    body.extend_from_slice(&30_000u32.to_be_bytes()); // max_wait_ms
    let mut frame = ((body.len() + 5) as u32).to_be_bytes().to_vec();
    frame.push(hermit_protocol::Op::Fetch as u8);
    frame.extend_from_slice(&77u32.to_be_bytes());
    frame.extend_from_slice(&body);
    consumer.send_bytes(&frame).await;
    let sent = Instant::now();
    assert_eq!(
        producer
            .produce("old", &small(2), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    let r = consumer.recv_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!((r.corr, r.status), (77, Status::Ok));
    assert_eq!(r.batch_bases(), [10]);
    assert!(sent.elapsed() < Duration::from_secs(10));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_fetch_counts_against_max_parked_fetches() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.max_parked_fetches = 1).await;
    let mut c = Raw::connect(broker.addr()).await;
    assert_eq!(c.call(&create_req("empty", 1)).await.status, Status::Ok);
    assert_eq!(
        c.produce("some", &small(1), Ack::Durable).await.status,
        Status::Ok
    );
    // A held fetch takes the one place...
    let held = c
        .send(&fetch_min_req("some", 0, 30_000, 1 << 20, 30_000))
        .await;
    assert_eq!(c.call(&Request::Ping).await.status, Status::Ok);
    // ...so a long poll on an empty partition is answered at once, empty,
    let sent = Instant::now();
    let r = c.call(&fetch_req("empty", 0, 0, 1 << 20, 30_000)).await;
    assert!(r.fetch.unwrap().2.is_empty());
    assert!(sent.elapsed() < Duration::from_secs(10));
    // ...and so is another held fetch, with the data it found.
    let r = c
        .call(&fetch_min_req("some", 0, 30_000, 1 << 20, 30_000))
        .await;
    assert_eq!(r.batch_bases(), [0]);
    let m = broker.metrics();
    assert_eq!(Metrics::get(&m.fetches_not_parked), 2);
    assert_eq!(Metrics::get(&m.fetches_held_expired), 1);
    assert_eq!(Metrics::get(&m.fetches_parked), 1);
    // The first is still held; a shutdown answers it with what there is.
    broker.shutdown().await.unwrap();
    let left = c.until_closed().await;
    assert!(left.iter().any(|r| r.corr == held), "{left:?}");
}

/// A new partition sits in a slot of the slab until it outgrows it; a
/// fetch held for it while it moves out into its own file still counts
/// the bytes that arrived (positions in the slab and in the file differ by
/// the slot's origin) and is answered when enough are there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_fetch_counts_the_bytes_of_a_partition_that_moved_out_of_its_slot() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut consumer = Raw::connect(broker.addr()).await;
    let mut producer = Raw::connect(broker.addr()).await;
    let produce = |tag, len| batch(1, len, tag);
    assert_eq!(
        producer
            .produce("slot", &produce(1, 100), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    let corr = consumer
        .send(&fetch_min_req("slot", 1, 60_000, 2048, 60_000))
        .await;
    assert_eq!(
        producer
            .produce("slot", &produce(2, 100), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    // More than the slot holds: the partition moves into its own file.
    let big = produce(3, 5000);
    assert!(big.len() as u64 > hermit_broker::log::slab::SLOT_BYTES);
    assert_eq!(
        producer.produce("slot", &big, Ack::Durable).await.status,
        Status::Ok
    );
    // Not at min_wait or max_wait (a minute): when the bytes were there.
    let r = consumer.recv_within(Duration::from_secs(20)).await.unwrap();
    assert_eq!(r.corr, corr);
    assert_eq!(r.batch_bases(), [1, 2]);
    assert_eq!(Metrics::get(&broker.metrics().fetches_held_filled), 1);
    broker.shutdown().await.unwrap();
}
