//! Shared helpers for the client's real-socket tests: an in-process broker on
//! a real port, a stallable TCP proxy, a scripted fake broker.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub mod mls;
#[cfg(feature = "nats")]
pub mod nats;
pub mod race;

use hermit_broker::config::Config;
use hermit_broker::embedded::EmbeddedBroker;
use hermit_client::partitioner::partition_for_key;
use hermit_client::{
    Ack, Cleanup, Client, ClientOptions, Consumer, ConsumerOptions, Delivered, Delivery, Producer,
    ProducerOptions, StartFrom, TopicSettings,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A free loopback port: bind port 0, note the port, release it. A broker
/// started (and restarted) on it keeps one address for the whole test.
pub fn free_addr() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    l.local_addr().expect("local addr")
}

/// Start a broker over `dir` on `addr` with `tweak` applied to the test config.
pub async fn broker_at(
    dir: &Path,
    addr: SocketAddr,
    tweak: impl FnOnce(&mut Config),
) -> EmbeddedBroker {
    let mut config = EmbeddedBroker::test_config();
    config.listen = addr;
    tweak(&mut config);
    EmbeddedBroker::start(dir, config)
        .await
        .expect("broker starts")
}

/// Start a broker on any free port.
pub async fn broker(dir: &Path, tweak: impl FnOnce(&mut Config)) -> EmbeddedBroker {
    broker_at(dir, SocketAddr::from(([127, 0, 0, 1], 0)), tweak).await
}

/// A client with default options.
pub async fn client(addr: SocketAddr) -> Client {
    Client::connect(addr.to_string(), ClientOptions::default())
        .await
        .expect("client connects")
}

/// A TCP proxy whose client-to-broker direction can be stalled: while
/// stalled it reads nothing from the client, so the client's writes back up
/// into its socket buffers and then into the client itself.
pub struct StallProxy {
    pub addr: SocketAddr,
    stalled: watch::Sender<bool>,
    pub forwarded_up: Arc<std::sync::atomic::AtomicU64>,
}

impl StallProxy {
    pub async fn start(upstream: SocketAddr) -> StallProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let (stalled, _) = watch::channel(false);
        let forwarded_up = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let rx = stalled.subscribe();
        let fwd = forwarded_up.clone();
        tokio::spawn(async move {
            while let Ok((down, _)) = listener.accept().await {
                let Ok(up) = TcpStream::connect(upstream).await else {
                    return;
                };
                let (mut dr, mut dw) = down.into_split();
                let (mut ur, mut uw) = up.into_split();
                let mut rx = rx.clone();
                let fwd = fwd.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        // Wait while stalled, before reading anything more.
                        while *rx.borrow_and_update() {
                            if rx.changed().await.is_err() {
                                return;
                            }
                        }
                        let n = tokio::select! {
                            // The stall first: when both are ready, nothing is read.
                            biased;
                            _ = rx.changed() => continue,
                            r = dr.read(&mut buf) => match r { Ok(0) | Err(_) => return, Ok(n) => n },
                        };
                        // Bytes read just before a stall wait for its end:
                        // nothing is forwarded while stalled.
                        while *rx.borrow_and_update() {
                            if rx.changed().await.is_err() {
                                return;
                            }
                        }
                        if uw.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                        fwd.fetch_add(n as u64, Ordering::Relaxed);
                    }
                });
                tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut ur, &mut dw).await;
                });
            }
        });
        StallProxy {
            addr,
            stalled,
            forwarded_up,
        }
    }

    pub fn stall(&self, on: bool) {
        self.stalled.send_replace(on);
    }
}

/// A flag a test sets from one task and reads from another.
pub fn flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

/// A topic of `partitions` with time and size retention off.
pub fn settings(partitions: u32) -> TopicSettings {
    TopicSettings {
        partitions,
        cleanup: Cleanup::Delete,
        retention_ms: 0,
        retention_bytes: 0,
    }
}

/// A 27-byte record naming its producer and sequence number.
pub fn record(producer: u8, seq: u32) -> [u8; 27] {
    let mut r = [b'.'; 27];
    r[0] = producer;
    r[1..5].copy_from_slice(&seq.to_be_bytes());
    r
}

/// The producer and sequence number of a [`record`].
pub fn parse(value: &[u8]) -> (u8, u32) {
    assert_eq!(value.len(), 27, "record length");
    (
        value[0],
        u32::from_be_bytes([value[1], value[2], value[3], value[4]]),
    )
}

/// Read every record of `topic` from the start until `total` have arrived,
/// each once, and no more after them; returns (partition, offset) → value.
pub async fn read_all(client: &Client, topic: &str, total: usize) -> HashMap<(u32, u64), Vec<u8>> {
    let mut consumer = Consumer::new(
        client,
        topic,
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    let mut out = HashMap::with_capacity(total);
    while out.len() < total {
        let r = tokio::time::timeout(Duration::from_secs(30), consumer.next())
            .await
            .unwrap_or_else(|_| panic!("only {} of {total} records arrived", out.len()))
            .unwrap();
        assert!(
            out.insert((r.partition, r.offset), r.value.to_vec())
                .is_none(),
            "offset {} of partition {} read twice",
            r.offset,
            r.partition
        );
    }
    // Nothing more than what was sent.
    assert!(
        tokio::time::timeout(Duration::from_millis(500), consumer.next())
            .await
            .is_err(),
        "more records than were sent"
    );
    out
}

/// Ten keys × `rounds` records through one producer to a 4-partition topic
/// `chat`: every record lands on its key's partition, each key's records are
/// read in the order sent, and each delivery's offset holds that record.
/// The producer asks for `ack`.
pub async fn keyed_records_keep_partition_key_and_order(c: &Client, rounds: u32, ack: Ack) {
    c.create_topic("chat", settings(4)).await.unwrap();
    let producer = Producer::new(
        c,
        ProducerOptions {
            ack,
            ..ProducerOptions::default()
        },
    );
    let keys: Vec<String> = (0..10).map(|i| format!("conversation-{i}")).collect();
    let mut ds = Vec::new();
    for n in 0..rounds {
        for k in &keys {
            let d = producer
                .send("chat", k.as_bytes(), &n.to_be_bytes())
                .await
                .unwrap();
            assert_eq!(d.partition(), partition_for_key(k.as_bytes(), 4));
            ds.push((k.clone(), n, d));
        }
    }
    producer.flush().await;
    let mut consumer = Consumer::new(
        c,
        "chat",
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    let mut next_n: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut at: HashMap<(u32, u64), (Vec<u8>, u32)> = HashMap::new();
    for _ in 0..rounds * 10 {
        let r = tokio::time::timeout(Duration::from_secs(30), consumer.next())
            .await
            .expect("records missing")
            .unwrap();
        let n = u32::from_be_bytes(r.value[..].try_into().unwrap());
        let expect = next_n.entry(r.key.to_vec()).or_insert(0);
        assert_eq!(n, *expect, "key {:?} out of order", r.key);
        *expect += 1;
        assert_eq!(r.partition, partition_for_key(&r.key, 4));
        at.insert((r.partition, r.offset), (r.key.to_vec(), n));
    }
    for (k, n, d) in ds {
        let got = d.await.unwrap();
        assert_eq!(at[&(got.partition, got.offset)], (k.into_bytes(), n));
    }
}

/// Sends records `0..records` (each its sequence number, big-endian) to
/// `topic` from a task. The delivery of record `records / 3` comes back
/// through the receiver as soon as it is queued (await it to know a third
/// of the stream is acknowledged); the task returns the others.
pub fn send_in_background(
    producer: &Producer,
    topic: &'static str,
    records: u32,
) -> (
    tokio::sync::oneshot::Receiver<Delivery>,
    tokio::task::JoinHandle<Vec<(u32, Delivery)>>,
) {
    let (third_tx, third_rx) = tokio::sync::oneshot::channel();
    let producer = producer.clone();
    let sending = tokio::spawn(async move {
        let mut ds = Vec::with_capacity(records as usize);
        let mut third_tx = Some(third_tx);
        for seq in 0..records {
            let d = producer.send(topic, b"", &seq.to_be_bytes()).await.unwrap();
            if seq == records / 3 {
                let _ = third_tx.take().unwrap().send(d);
            } else {
                ds.push((seq, d));
            }
        }
        ds
    });
    (third_rx, sending)
}

/// `producers` producers, each on its own connection to `url`, send
/// `records` records each (round robin over the `partitions` of a new topic
/// `many`); `admin` then reads them all back: every record stored exactly
/// once, in send order within its partition, every partition used, and every
/// delivery pointing at its own record. The producers ask for `ack`.
pub async fn producers_arrive_complete_in_order_once(
    admin: &Client,
    url: &str,
    producers: u8,
    records: u32,
    partitions: u32,
    ack: Ack,
) {
    admin
        .create_topic("many", settings(partitions))
        .await
        .unwrap();

    let mut tasks = Vec::new();
    for pid in 0..producers {
        let url = url.to_owned();
        tasks.push(tokio::spawn(async move {
            // One connection per producer, as separate processes would have.
            let c = Client::connect(url, ClientOptions::default())
                .await
                .expect("client connects");
            let producer = Producer::new(
                &c,
                ProducerOptions {
                    ack,
                    ..ProducerOptions::default()
                },
            );
            let mut deliveries = Vec::with_capacity(records as usize);
            for seq in 0..records {
                deliveries.push(producer.send("many", b"", &record(pid, seq)).await.unwrap());
            }
            producer.flush().await;
            let mut delivered = Vec::with_capacity(records as usize);
            for d in deliveries {
                // flush() returned, so every delivery is already resolved.
                let r = d.try_result().expect("resolved after flush").unwrap();
                delivered.push(r);
            }
            producer.close().await;
            delivered
        }));
    }
    let mut delivered: Vec<Vec<Delivered>> = Vec::new();
    for t in tasks {
        delivered.push(t.await.unwrap());
    }

    let total = producers as usize * records as usize;
    let stored = read_all(admin, "many", total).await;
    assert_eq!(stored.len(), total);
    // Every delivery points at its own record.
    for (pid, ds) in delivered.iter().enumerate() {
        for (seq, d) in ds.iter().enumerate() {
            let v = stored
                .get(&(d.partition, d.offset))
                .unwrap_or_else(|| panic!("delivered {d:?} is not stored"));
            assert_eq!(parse(v), (pid as u8, seq as u32), "record at {d:?}");
        }
    }
    // Exactly once, and in send order within each partition.
    let mut by_partition: Vec<Vec<(u64, u8, u32)>> = vec![Vec::new(); partitions as usize];
    for ((p, o), v) in &stored {
        let (pid, seq) = parse(v);
        by_partition[*p as usize].push((*o, pid, seq));
    }
    let mut seen = vec![vec![false; records as usize]; producers as usize];
    for (p, recs) in by_partition.iter_mut().enumerate() {
        assert!(
            !recs.is_empty(),
            "partition {p} got nothing: round robin is broken"
        );
        recs.sort_unstable();
        let mut last: HashMap<u8, u32> = HashMap::new();
        for &(o, pid, seq) in recs.iter() {
            assert!(
                !seen[pid as usize][seq as usize],
                "{pid}/{seq} stored twice"
            );
            seen[pid as usize][seq as usize] = true;
            if let Some(prev) = last.insert(pid, seq) {
                assert!(
                    prev < seq,
                    "partition {p} offset {o}: {pid}/{seq} after {pid}/{prev}"
                );
            }
        }
    }
    assert!(seen.iter().flatten().all(|&s| s));
}
