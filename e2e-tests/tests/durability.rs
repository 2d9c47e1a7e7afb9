//! Nothing acknowledged is lost: ten SDK producers (in this process, durable
//! acks, sealed records) send while the `hermit broker` process is killed
//! with SIGKILL and restarted on the same address five times, or stopped
//! with SIGTERM. Afterwards every acknowledged record is read back and
//! opened, and its plaintext is exactly what was sent.
//!
//! Duplicates are allowed: delivery is at least once. A batch the broker
//! wrote but whose acknowledgement died with the connection is sent again
//! after the restart; the reader sees the second copy as `Replayed` (its
//! sequence number was already opened) and skips it. Losses are not
//! allowed, and no other opening error is.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermit_client::crypto::{Identity, OpenError, PublicKey};
use hermit_client::sealed::{RecordErrorKind, SealedConsumer, SealedProducer};
use hermit_client::{
    Ack, Client, ClientOptions, ConsumerOptions, Producer, ProducerOptions, StartFrom,
};
use hermit_e2e_tests::{BrokerProcess, start_broker};
use tokio::sync::watch;

const TOPIC: &str = "durable";
const PRODUCERS: usize = 10;
/// Records each producer keeps in flight before awaiting their acks.
const WINDOW: usize = 16;

/// Ten producers sending until told to stop.
struct Load {
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<Vec<u8>>>>,
    progress: watch::Receiver<u64>,
    tasks: Vec<tokio::task::JoinHandle<u64>>,
    senders: Vec<PublicKey>,
    reader: Identity,
}

impl Load {
    async fn start(addr: SocketAddr) -> Load {
        let reader = Identity::generate().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let acked = Arc::new(Mutex::new(Vec::new()));
        let (tx, progress) = watch::channel(0u64);
        let tx = Arc::new(tx);
        let mut tasks = Vec::new();
        let mut senders = Vec::new();
        for p in 0..PRODUCERS {
            let id = Identity::generate().unwrap();
            senders.push(id.public_key().clone());
            let client = Client::connect(addr.to_string(), ClientOptions::default())
                .await
                .unwrap();
            let producer = Producer::new(
                &client,
                ProducerOptions {
                    ack: Ack::Durable,
                    ..ProducerOptions::default()
                },
            );
            let sealed = SealedProducer::new(&producer, id, Default::default()).unwrap();
            let to = [reader.public_key().clone()];
            let (stop, acked, tx) = (stop.clone(), acked.clone(), tx.clone());
            tasks.push(tokio::spawn(async move {
                let mut n = 0u64;
                let mut failed = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let mut window = Vec::with_capacity(WINDOW);
                    for _ in 0..WINDOW {
                        n += 1;
                        // Varied lengths, exact bytes checked on the way back.
                        let text =
                            format!("producer {p} record {n} {}", "x".repeat((n % 97) as usize));
                        let d = sealed
                            .send(TOPIC, None, text.as_bytes(), &to)
                            .await
                            .unwrap();
                        window.push((d, text));
                    }
                    for (d, text) in window {
                        match d.await {
                            Ok(_) => {
                                acked.lock().unwrap().push(text.into_bytes());
                                tx.send_modify(|c| *c += 1);
                            }
                            // Not acknowledged (gave up): allowed to be missing.
                            Err(_) => failed += 1,
                        }
                    }
                }
                producer.close().await;
                failed
            }));
        }
        Load {
            stop,
            acked,
            progress,
            tasks,
            senders,
            reader,
        }
    }

    /// Wait (on the producers' acks, not a clock) until `more` records were
    /// acknowledged since the last call.
    async fn acks(&mut self, more: u64) {
        let target = *self.progress.borrow() + more;
        tokio::time::timeout(
            Duration::from_secs(120),
            self.progress.wait_for(|c| *c >= target),
        )
        .await
        .expect("the producers make progress")
        .unwrap();
    }

    /// Stop the producers; every record they sent is then acknowledged or failed.
    async fn stop(self) -> (Vec<Vec<u8>>, Vec<PublicKey>, Identity) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.tasks {
            t.await.unwrap();
        }
        let acked = std::mem::take(&mut *self.acked.lock().unwrap());
        (acked, self.senders, self.reader)
    }
}

fn restart(dir: &Path, addr: SocketAddr) -> BrokerProcess {
    let b = tokio::task::block_in_place(|| start_broker(dir, &addr.to_string(), &[]));
    assert_eq!(b.addr(), addr);
    b
}

/// Read the whole topic, open every record, and check every acknowledged
/// plaintext is among them; returns (opened, duplicates).
async fn check_nothing_acked_is_lost(
    addr: SocketAddr,
    acked: &[Vec<u8>],
    senders: Vec<PublicKey>,
    reader: Identity,
) -> (usize, usize) {
    let client = Client::connect(addr.to_string(), ClientOptions::default())
        .await
        .unwrap();
    let end: u64 = client.metadata(Some(TOPIC)).await.unwrap()[0]
        .partitions
        .iter()
        .map(|p| p.high_watermark)
        .sum();
    let mut c = SealedConsumer::new(
        &client,
        reader,
        senders,
        TOPIC,
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    let mut opened = HashSet::new();
    let mut duplicates = 0;
    while c.position(0).unwrap() < end {
        match c.next().await.unwrap() {
            Ok(r) => {
                assert!(opened.insert(r.plaintext.to_vec()), "opened twice");
            }
            Err(e) if matches!(e.kind, RecordErrorKind::Open(OpenError::Replayed { .. })) => {
                duplicates += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    let missing: Vec<String> = acked
        .iter()
        .filter(|a| !opened.contains(*a))
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged records are missing, e.g. {:?}",
        missing.len(),
        acked.len(),
        &missing[..missing.len().min(5)]
    );
    (opened.len(), duplicates)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill9_five_times_under_load_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let mut broker = start_broker(dir.path(), "127.0.0.1:0", &[]);
    let addr = broker.addr();
    let mut load = Load::start(addr).await;
    for _ in 0..5 {
        load.acks(400).await;
        tokio::task::block_in_place(|| broker.kill9());
        broker = restart(dir.path(), addr);
    }
    load.acks(200).await;
    let (acked, senders, reader) = load.stop().await;
    let (opened, duplicates) = check_nothing_acked_is_lost(addr, &acked, senders, reader).await;
    assert!(opened >= acked.len());
    eprintln!(
        "{} acknowledged, {opened} opened, {duplicates} duplicates",
        acked.len()
    );
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_under_load_exits_0_and_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(dir.path(), "127.0.0.1:0", &[]);
    let addr = broker.addr();
    let mut load = Load::start(addr).await;
    load.acks(300).await;
    let status = tokio::task::block_in_place(|| broker.terminate()).unwrap();
    assert_eq!(status.code(), Some(0), "a graceful stop under load exits 0");
    // What was in flight completes against the restarted broker.
    let broker = restart(dir.path(), addr);
    load.acks(100).await;
    let (acked, senders, reader) = load.stop().await;
    check_nothing_acked_is_lost(addr, &acked, senders, reader).await;
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}
