//! Conditional produce and claims over NATS JetStream, against real
//! `nats-server -js` processes: on one Debian 2.9.10 server, the race of
//! ten connections for each end, what a late or early producer is told,
//! how the end moves over NATS (by one stream message, whatever the record
//! count); fifty claimers sharing twenty batches, a retried claim getting
//! its batch again, and claimers told apart by their NATS identity. On
//! three 2.15.1 nodes that sync every write, the race and the claimers
//! with durable acks on replicated streams; on three 2.9.10 nodes, the
//! race, and claims refused (their compare-and-set is unsound there).
//! Single-server produces ask for written acks (2.9.10 cannot sync every
//! write, docs/SCALE-OUT.md §4.1). Needs the `nats` feature.

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hermit_client::transport::nats_offset::NatsOffset;
use hermit_client::{
    Ack, Claim, ClaimId, Cleanup, Client, ClientOptions, Conditional, NatsCredentials, Status,
    TopicSettings,
};
use hermit_protocol::BatchBuilder;
use support::nats::*;
use support::{race, settings};

fn batch(key: &[u8], records: &[&[u8]]) -> Vec<u8> {
    let mut b = BatchBuilder::new(key);
    for r in records {
        b.push(r);
    }
    b.finish(7).unwrap()
}

/// The end a one-record batch expects after `n` one-record batches: the
/// offset its record gets in message `n + 1`.
fn end_after(n: u64) -> u64 {
    NatsOffset::batch_base(n + 1, 1)
}

/// A request that finds no JetStream leader yet (a cluster just started)
/// fails after this, and the connect is tried again.
fn cluster_options() -> ClientOptions {
    ClientOptions {
        request_timeout: Duration::from_secs(3),
        ..ClientOptions::default()
    }
}

async fn clients(url: &str, n: usize, options: ClientOptions) -> Vec<Client> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        // One connection each: a client is one NATS connection.
        out.push(nats_client(url, options.clone()).await);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_connections_race_for_each_end_and_exactly_one_wins() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let clients = clients(&server.url(), 10, ClientOptions::default()).await;
    clients[0].create_topic("race", settings(1)).await.unwrap();
    let started = Instant::now();
    race::race_to_the_end_of(&clients, "race", 1_000, Ack::Written, end_after).await;
    eprintln!(
        "1,000 rounds of 10 conditional produces over NATS, and the read back: {:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_or_early_producer_learns_the_end_and_appends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let conditional = |expected: u64, records: Vec<u8>| {
        let c = c.clone();
        async move {
            c.conditional_produce("cas", 0, expected, Ack::Written, &records)
                .await
                .unwrap()
        }
    };
    let high_watermark =
        || async { c.metadata(Some("cas")).await.unwrap()[0].partitions[0].high_watermark };

    // A durable ack from a server that syncs on a timer is refused, before
    // anything is created or sent.
    let err = c
        .conditional_produce("cas", 0, end_after(0), Ack::Durable, &batch(b"", &[b"z"]))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::NotDurable), "{err}");
    assert!(!err.is_retriable());
    let err = c.metadata(Some("cas")).await.unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownTopic), "{err}");

    // The broker's empty end, 0, is no end over NATS: the first record of
    // a new partition gets the last offset of message 1's range.
    assert_eq!(
        conditional(0, batch(b"", &[b"x"])).await,
        Conditional::EndMoved { end: end_after(0) }
    );
    assert_eq!(
        conditional(end_after(0), batch(b"", &[b"a"])).await,
        Conditional::Appended {
            base_offset: end_after(0)
        }
    );
    c.produce("cas", 0, Ack::Written, batch(b"", &[b"b"]).into())
        .await
        .unwrap();
    assert_eq!(high_watermark().await, NatsOffset::sequence_start(3));

    // Behind, ahead, or at the high watermark (where only a full batch
    // starts): told the end, and nothing appended.
    for stale in [
        end_after(0),
        end_after(1),
        end_after(5),
        high_watermark().await,
    ] {
        assert_eq!(
            conditional(stale, batch(b"", &[b"x"])).await,
            Conditional::EndMoved { end: end_after(2) },
            "expected {stale}"
        );
    }
    assert_eq!(high_watermark().await, NatsOffset::sequence_start(3));

    // The end depends on the batch's record count: three records in
    // message 3 start three before message 4's range.
    let three = NatsOffset::batch_base(3, 3);
    assert_eq!(
        conditional(end_after(2), batch(b"", &[b"1", b"2", b"3"])).await,
        Conditional::EndMoved { end: three }
    );
    assert_eq!(
        conditional(three, batch(b"", &[b"1", b"2", b"3"])).await,
        Conditional::Appended { base_offset: three }
    );
    // A batch of several records moves the end by one message (65,536
    // offsets), whatever its count: the next single record expects
    // message 4's last offset.
    assert_eq!(
        conditional(three, batch(b"", &[b"y"])).await,
        Conditional::EndMoved { end: end_after(3) }
    );
    let f = c
        .fetch("cas", 0, 0, 1 << 20, Duration::from_secs(1))
        .await
        .unwrap();
    let read: Vec<(u64, Bytes)> = f
        .records()
        .map(|r| r.unwrap())
        .map(|r| (r.offset, r.value))
        .collect();
    let want: Vec<(u64, Bytes)> = vec![
        (end_after(0), Bytes::from_static(b"a")),
        (end_after(1), Bytes::from_static(b"b")),
        (three, Bytes::from_static(b"1")),
        (three + 1, Bytes::from_static(b"2")),
        (three + 2, Bytes::from_static(b"3")),
    ];
    assert_eq!(read, want, "what fetch reads is what was appended, where");
    assert_eq!(f.high_watermark, NatsOffset::sequence_start(4));

    // A full batch (65,536 records) starts at its sequence's start: the
    // high watermark is its end.
    let full = {
        let mut b = BatchBuilder::new(b"");
        for _ in 0..65_536 {
            b.push(b"");
        }
        b.finish(7).unwrap()
    };
    let hw = high_watermark().await;
    assert_eq!(
        conditional(hw, full).await,
        Conditional::Appended { base_offset: hw }
    );

    // A compacted topic: one stream, one end, whatever the key.
    c.create_topic(
        "cas.keys",
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Compact,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .await
    .unwrap();
    for (i, key) in [&b"k1"[..], b"k2", b"k1"].iter().enumerate() {
        let i = i as u64;
        let got = c
            .conditional_produce(
                "cas.keys",
                0,
                end_after(i),
                Ack::Written,
                &batch(key, &[b"v"]),
            )
            .await
            .unwrap();
        assert_eq!(
            got,
            Conditional::Appended {
                base_offset: end_after(i)
            }
        );
        let late = c
            .conditional_produce(
                "cas.keys",
                0,
                end_after(i),
                Ack::Written,
                &batch(b"k3", &[b"v"]),
            )
            .await
            .unwrap();
        assert_eq!(
            late,
            Conditional::EndMoved {
                end: end_after(i + 1)
            }
        );
    }
}

/// Twenty single-record batches on `topic/0`, acknowledged as `ack`
/// asks; their base offsets.
async fn twenty_batches_acked(c: &Client, topic: &str, ack: Ack) -> Vec<u64> {
    let mut bases = Vec::new();
    for i in 0..20u32 {
        let b = batch(b"", &[format!("job {i}").as_bytes()]);
        bases.push(c.produce(topic, 0, ack, b.into()).await.unwrap());
    }
    bases
}

/// Twenty single-record batches, written acks.
async fn twenty_batches(c: &Client, topic: &str) -> Vec<u64> {
    twenty_batches_acked(c, topic, Ack::Written).await
}

fn value_of(claimed: &hermit_client::ClaimedBatch) -> Bytes {
    let mut records = claimed.records();
    let r = records.next().unwrap().unwrap();
    assert!(records.next().is_none(), "one record per batch");
    assert_eq!(r.offset, claimed.offset);
    r.value
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_claimers_share_twenty_batches_each_handed_out_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    fifty_claimers_share_twenty_batches(&server.url(), Ack::Written).await;
}

/// Fifty clients (connections) at `url` claim at once from a partition of
/// twenty single-record batches (produced with `ack`): twenty get one each,
/// none twice, each as fetch reads it, and thirty are told nothing is
/// left; a late claimer then finds nothing until a new batch comes.
async fn fifty_claimers_share_twenty_batches(url: &str, ack: Ack) {
    let claimers = clients(url, 50, cluster_options()).await;
    let producer = &claimers[0];
    producer.create_topic("jobs", settings(1)).await.unwrap();
    let bases = twenty_batches_acked(producer, "jobs", ack).await;
    // What fetch exposes: each claimed batch must be one of these, at its
    // offset.
    let f = producer
        .fetch("jobs", 0, 0, 1 << 20, Duration::from_secs(1))
        .await
        .unwrap();
    let fetched: BTreeMap<u64, Bytes> = f
        .records()
        .map(|r| r.unwrap())
        .map(|r| (r.offset, r.value))
        .collect();
    assert_eq!(fetched.keys().copied().collect::<Vec<_>>(), bases);

    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for c in &claimers {
        let c = c.clone();
        tasks.spawn(async move {
            // As the SDK says: after a retriable error, ask again with the
            // same id (on a cluster, the offsets stream just created may
            // have no leader yet to answer).
            let id = ClaimId::random().unwrap();
            let mut retries = 0;
            loop {
                match c.claim("jobs", 0, id).await {
                    Ok(outcome) => return (outcome, retries),
                    Err(e) if e.is_retriable() && retries < 10 => retries += 1,
                    Err(e) => panic!("claim failed after {retries} retries: {e}"),
                }
            }
        });
    }
    let outcomes = tasks.join_all().await;
    let retries: u32 = outcomes.iter().map(|(_, r)| r).sum();
    let outcomes = outcomes.into_iter().map(|(o, _)| o);
    eprintln!(
        "50 concurrent claims over NATS: {:?}, {retries} retried after a retriable error",
        started.elapsed()
    );
    let mut handed = BTreeMap::new();
    let mut nothing_left = 0;
    for outcome in outcomes {
        match outcome {
            Claim::Claimed(b) => {
                assert_eq!(
                    b.next,
                    NatsOffset::sequence_start(NatsOffset::decode(b.offset).sequence + 1)
                );
                let value = value_of(&b);
                assert!(
                    handed.insert(b.offset, value).is_none(),
                    "the batch at {} was handed out twice",
                    b.offset
                );
            }
            Claim::NothingLeft => nothing_left += 1,
        }
    }
    assert_eq!(
        handed, fetched,
        "every batch handed out once, as fetch reads it"
    );
    assert_eq!(nothing_left, 30);

    // The position is durable across clients: nothing left for anyone, until
    // a new batch comes.
    let late = nats_client(url, cluster_options()).await;
    let id = ClaimId::random().unwrap();
    assert!(matches!(
        late.claim("jobs", 0, id).await.unwrap(),
        Claim::NothingLeft
    ));
    let base = producer
        .produce("jobs", 0, ack, batch(b"", &[b"late job"]).into())
        .await
        .unwrap();
    match late.claim("jobs", 0, id).await.unwrap() {
        Claim::Claimed(b) => {
            assert_eq!(
                (b.offset, value_of(&b)),
                (base, Bytes::from_static(b"late job"))
            );
        }
        Claim::NothingLeft => panic!("the new batch was not handed out"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_claim_gets_the_same_batch_while_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    // Another connection without credentials is the same claimer (the
    // anonymous one): a retry may come on a new connection.
    let again = nats_client(&server.url(), ClientOptions::default()).await;
    c.create_topic("work", settings(1)).await.unwrap();
    let mut bases = Vec::new();
    for _ in 0..4 {
        bases.extend(twenty_batches(&c, "work").await);
    }
    let claim = |c: &Client, id: ClaimId| {
        let c = c.clone();
        async move {
            match c.claim("work", 0, id).await.unwrap() {
                Claim::Claimed(b) => b.offset,
                Claim::NothingLeft => panic!("80 batches, fewer than 80 claims"),
            }
        }
    };
    let x = ClaimId::random().unwrap();
    let first = claim(&c, x).await;
    assert_eq!(first, bases[0]);
    assert_eq!(claim(&c, x).await, first, "the same id, the same batch");
    assert_eq!(claim(&again, x).await, first, "on another connection too");
    // 63 more claims: x is still among the last 64.
    for base in &bases[1..64] {
        assert_eq!(claim(&c, ClaimId::random().unwrap()).await, *base);
    }
    assert_eq!(claim(&again, x).await, first);
    // One more and x is forgotten: asking with it claims anew.
    assert_eq!(claim(&c, ClaimId::random().unwrap()).await, bases[64]);
    assert_eq!(claim(&c, x).await, bases[65]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claimers_are_told_apart_by_their_nats_identity() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::with_config(
        dir.path(),
        r#"
authorization {
  users = [
    { user: "alice", password: "a-pw" }
    { user: "bob", password: "b-pw" }
    # May read and commit, but not claim: the claim states are denied.
    { user: "carol", password: "c-pw",
      permissions = { publish = { allow = ">", deny = "hermit-offsets.claim.>" } } }
  ]
}
"#,
    );
    let as_user = |user: &str, password: &str| ClientOptions {
        nats_credentials: Some(NatsCredentials::user_password(user, password)),
        request_timeout: Duration::from_secs(2),
        ..ClientOptions::default()
    };
    let alice = nats_client(&server.url(), as_user("alice", "a-pw")).await;
    let bob = nats_client(&server.url(), as_user("bob", "b-pw")).await;
    let carol = nats_client(&server.url(), as_user("carol", "c-pw")).await;
    alice.create_topic("shared", settings(1)).await.unwrap();
    let bases = twenty_batches(&alice, "shared").await;
    let offset = |c: Claim| match c {
        Claim::Claimed(b) => b.offset,
        Claim::NothingLeft => panic!("nothing left"),
    };
    let x = ClaimId([7; 16]);
    assert_eq!(offset(alice.claim("shared", 0, x).await.unwrap()), bases[0]);
    // Bob's claim with Alice's id is his own claim: another batch.
    assert_eq!(offset(bob.claim("shared", 0, x).await.unwrap()), bases[1]);
    assert_eq!(offset(alice.claim("shared", 0, x).await.unwrap()), bases[0]);
    assert_eq!(offset(bob.claim("shared", 0, x).await.unwrap()), bases[1]);
    // Carol may not write claim states: her claim fails (the server drops
    // the publish, so no ack comes) and hands out nothing.
    let err = carol
        .claim("shared", 0, ClaimId([8; 16]))
        .await
        .unwrap_err();
    assert!(err.is_retriable(), "{err}");
    assert_eq!(
        offset(alice.claim("shared", 0, ClaimId([9; 16])).await.unwrap()),
        bases[2]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_cluster_that_syncs_every_write_both_hold_with_durable_acks() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = NatsCluster::start_syncing_every_write(dir.path(), 3);
    cluster.assert_sync_always();
    // Streams get three replicas; every produce asks for a durable ack.
    let url = cluster.url("?servers_sync_every_write=true");
    let clients = clients(&url, 10, cluster_options()).await;
    clients[0].create_topic("race", settings(1)).await.unwrap();
    let started = Instant::now();
    race::race_to_the_end_of(&clients, "race", 1_000, Ack::Durable, end_after).await;
    eprintln!(
        "1,000 rounds of 10 durable conditional produces on three nodes: {:?}",
        started.elapsed()
    );
    // Replicated claim states: the leader refuses a second write to the
    // subject while the first is in flight (nats-server 2.11+), and the
    // claimer tries again.
    let started = Instant::now();
    fifty_claimers_share_twenty_batches(&url, Ack::Durable).await;
    eprintln!("fifty claimers on three nodes: {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2_9_cluster_refuses_claims_and_keeps_conditional_produce_sound() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = NatsCluster::start_2_9(dir.path(), 3);
    let url = cluster.url("");
    let clients = clients(&url, 10, cluster_options()).await;
    clients[0].create_topic("race", settings(1)).await.unwrap();
    // Nats-Expected-Last-Sequence is checked as each replica applies the
    // write, on 2.9 too.
    let started = Instant::now();
    race::race_to_the_end_of(&clients, "race", 1_000, Ack::Written, end_after).await;
    eprintln!(
        "1,000 rounds of 10 conditional produces on three 2.9 nodes: {:?}",
        started.elapsed()
    );
    // Nats-Expected-Last-Subject-Sequence is not a sound compare-and-set on
    // a replicated 2.9 stream: claims are refused, not handed out twice.
    clients[0]
        .produce("race", 0, Ack::Written, batch(b"", &[b"job"]).into())
        .await
        .unwrap();
    let err = clients[0]
        .claim("race", 0, ClaimId::random().unwrap())
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownOp), "{err}");
    assert!(!err.is_retriable());
    assert!(err.to_string().contains("2.11"), "{err}");
}
