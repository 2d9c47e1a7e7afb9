//! The quotas of docs/SECURITY.md §1 over real sockets: connections per
//! address and per principal, per-principal byte rates, parked fetches,
//! topics per principal and partitions per topic. (The receive budget has
//! its own test binary, net_budget.rs: it measures the process's memory.)

mod netcommon;

use std::net::IpAddr;
use std::time::{Duration, Instant};

use hermit_broker::config::{AclRule, AuthMode, Config, FsyncPolicy, Limit};
use hermit_broker::net::Metrics;
use hermit_protocol::{Ack, Request, Status};
use netcommon::*;

/// Everyone authenticated may produce to and create any topic.
fn open_acl(c: &mut Config) {
    c.auth = AuthMode::Required;
    c.acl = vec![AclRule {
        principal: "*".into(),
        topics: "*".into(),
        allow: vec!["produce".into(), "create".into(), "consume".into()],
        groups: None,
    }];
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_stop_at_the_per_address_cap_and_other_addresses_still_connect() {
    raise_nofile_limit();
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        c.max_connections = 5000;
        c.max_connections_per_address = 1000;
    })
    .await;
    let local: IpAddr = [127, 0, 0, 1].into();
    let mut held = Vec::new();
    let mut refused = 0;
    for i in 0..2000 {
        // Sequential, each through its hello: the broker counted it before
        // answering, so the first 1000 are in and every later one is over.
        let mut c = Raw::connect_from(local, broker.addr()).await;
        if i < 1000 {
            held.push(c);
            continue;
        }
        let frames = c.until_closed().await;
        assert_eq!(frames.len(), 1, "one notice, then close");
        assert_eq!(
            (frames[0].corr, frames[0].status),
            (0, Status::TooManyConnections)
        );
        assert!(
            frames[0].message.contains("max_connections_per_address"),
            "{}",
            frames[0].message
        );
        refused += 1;
    }
    assert_eq!(refused, 1000);
    assert_eq!(Metrics::get(&broker.metrics().refused_by_address), 1000);
    // The 1000 held are served.
    for c in held.iter_mut() {
        c.send(&Request::Ping).await;
    }
    for c in held.iter_mut() {
        assert_eq!(c.recv().await.expect("pong").status, Status::Ok);
    }
    // Another address is not affected.
    let mut other = Raw::connect_from([127, 0, 0, 2].into(), broker.addr()).await;
    assert_eq!(other.call(&Request::Ping).await.status, Status::Ok);
    // Closing one gives its slot back.
    drop(held.pop());
    let open = broker.metrics().clone();
    eventually(Duration::from_secs(20), || {
        Metrics::get(&open.connections_open) == 1000
    })
    .await;
    let mut again = Raw::connect_from(local, broker.addr()).await;
    assert_eq!(again.call(&Request::Ping).await.status, Status::Ok);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_over_its_connection_cap_is_refused_and_others_are_not() {
    let (alice, bob) = (Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        open_acl(c);
        c.max_connections_per_principal = 2;
    })
    .await;
    let a1 = connect_as(broker.addr(), &alice).await;
    let _a2 = connect_as(broker.addr(), &alice).await;
    let mut a3 = Raw::connect(broker.addr()).await;
    let h = a3.hello.unwrap();
    let sig = alice.sign_for(&h.nonce, &h.broker_id);
    let r = a3.call(&authenticate(&alice.spki, &sig)).await;
    assert_eq!(r.status, Status::Unauthorized);
    assert!(
        r.message.contains("max_connections_per_principal"),
        "{}",
        r.message
    );
    assert!(
        a3.until_closed().await.is_empty(),
        "closed after the refusal"
    );
    assert_eq!(Metrics::get(&broker.metrics().refused_by_principal), 1);
    // Bob has his own count.
    let _b = connect_as(broker.addr(), &bob).await;
    // A closed connection gives Alice's slot back.
    drop(a1);
    let m = broker.metrics().clone();
    eventually(Duration::from_secs(20), || {
        Metrics::get(&m.connections_open) == 2
    })
    .await;
    let _a4 = connect_as(broker.addr(), &alice).await;
}

/// Produce `total` bytes of batches of about `each` bytes to `t`, one
/// request at a time; how long it took.
async fn produce_bytes(c: &mut Raw, t: &str, total: usize, each: usize) -> Duration {
    let b = batch(1, each, 7);
    let started = Instant::now();
    for _ in 0..total.div_ceil(b.len()) {
        let r = c.produce(t, &b, Ack::Written).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
    }
    started.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_over_its_produce_rate_is_slowed_and_others_are_not() {
    const RATE: u64 = 256 << 10;
    let (alice, bob) = (Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        open_acl(c);
        c.produce_bytes_per_sec = Limit::Max(RATE);
        c.fsync = FsyncPolicy::Never;
    })
    .await;
    let addr = broker.addr();
    let mut a = connect_as(addr, &alice).await;
    let mut b = connect_as(addr, &bob).await;
    // Alice produces four seconds' worth; the bucket holds one second.
    let total = 4 * RATE as usize;
    let alice_task =
        tokio::spawn(async move { produce_bytes(&mut a, "alice", total, 16 << 10).await });
    let m = broker.metrics().clone();
    eventually(Duration::from_secs(20), || {
        Metrics::get(&m.produce_throttled) > 0
    })
    .await;
    // While Alice is throttled, Bob produces his whole bucket (one second's
    // worth): were the buckets shared, that alone would take a second.
    let bob_took = produce_bytes(&mut b, "bob", RATE as usize - (8 << 10), 16 << 10).await;
    let alice_took = alice_task.await.unwrap();
    assert!(
        alice_took >= Duration::from_millis(2500),
        "{total} bytes at {RATE} B/s (one second of burst) took only {alice_took:?}"
    );
    assert!(
        bob_took < Duration::from_millis(800),
        "Bob was slowed by Alice's quota: {bob_took:?}"
    );
    // Throttled, never dropped: everything Alice sent is in the log.
    let mut reader = connect_as(addr, &bob).await;
    let batches = read_all(&mut reader, "alice", 0).await;
    let one = batch(1, 16 << 10, 7).len();
    assert_eq!(batches.len(), total.div_ceil(one));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_over_its_fetch_rate_is_slowed() {
    const RATE: u64 = 256 << 10;
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        c.fetch_bytes_per_sec = Limit::Max(RATE);
        // Written acks are then readable at once (no group commit to wait for).
        c.fsync = FsyncPolicy::Never;
    })
    .await;
    let mut c = Raw::connect(broker.addr()).await;
    let b = batch(1, 64 << 10, 3);
    let n = (3 * RATE as usize).div_ceil(b.len());
    for _ in 0..n {
        assert_eq!(c.produce("t", &b, Ack::Written).await.status, Status::Ok);
    }
    // One batch per answer (max_bytes below a batch), so answers follow each other.
    let started = Instant::now();
    for offset in 0..n as u64 {
        let r = c.fetch("t", offset, 1, 0).await;
        assert_eq!(r.batch_bases(), vec![offset]);
    }
    let took = started.elapsed();
    // Three seconds' worth with one second of burst: at least ~2 s.
    assert!(
        took >= Duration::from_millis(1500),
        "read {} bytes in {took:?}",
        n * b.len()
    );
    assert!(Metrics::get(&broker.metrics().fetch_throttled) > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_poll_over_max_parked_fetches_is_answered_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.max_parked_fetches = 2).await;
    let mut c = Raw::connect(broker.addr()).await;
    assert_eq!(c.call(&create_req("t", 1)).await.status, Status::Ok);
    let started = Instant::now();
    let parked: Vec<u32> = vec![
        c.send(&fetch_req("t", 0, 0, 1 << 20, 30_000)).await,
        c.send(&fetch_req("t", 0, 0, 1 << 20, 30_000)).await,
    ];
    let over = c.send(&fetch_req("t", 0, 0, 1 << 20, 30_000)).await;
    let r = c.recv_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!((r.corr, r.status), (over, Status::Ok));
    assert!(r.fetch.unwrap().2.is_empty(), "answered with what there is");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(Metrics::get(&broker.metrics().fetches_not_parked), 1);
    // The two parked ones are still waiting, and get the data when it comes.
    let mut p = Raw::connect(broker.addr()).await;
    assert_eq!(
        p.produce("t", &batch(1, 10, 1), Ack::Written).await.status,
        Status::Ok
    );
    let mut answered = Vec::new();
    for _ in 0..2 {
        let r = c.recv_within(Duration::from_secs(10)).await.unwrap();
        assert_eq!(r.batch_bases(), vec![0]);
        answered.push(r.corr);
    }
    answered.sort();
    assert_eq!(answered, parked);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_topic_over_max_partitions_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.max_partitions = 4).await;
    let mut c = Raw::connect(broker.addr()).await;
    let r = c.call(&create_req("wide", 5)).await;
    assert_eq!(r.status, Status::InvalidRequest);
    assert!(r.message.contains("max_partitions"), "{}", r.message);
    assert!(broker.log().topic("wide").is_none());
    assert_eq!(c.call(&create_req("wide", 4)).await.status, Status::Ok);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_auth_off_topics_are_not_capped() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.max_topics_per_principal = 2).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let b1 = batch(1, 10, 1);
    for t in ["o1", "o2", "o3", "o4"] {
        let r = raw.produce(t, &b1, Ack::Written).await;
        assert_eq!(r.status, Status::Ok, "{t}: {}", r.message);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topics_per_principal_are_capped_including_auto_created_ones() {
    let (alice, bob) = (Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        open_acl(c);
        c.acl[0].allow.push("delete".into());
        c.max_topics_per_principal = 2;
    })
    .await;
    let mut a = connect_as(broker.addr(), &alice).await;
    assert_eq!(a.call(&create_req("a1", 1)).await.status, Status::Ok);
    // Auto-created by a produce: counts too.
    let b1 = batch(1, 10, 1);
    assert_eq!(a.produce("a2", &b1, Ack::Written).await.status, Status::Ok);
    let r = a.call(&create_req("a3", 1)).await;
    assert_eq!(r.status, Status::Unauthorized);
    assert!(
        r.message.contains("max_topics_per_principal"),
        "{}",
        r.message
    );
    let r = a.produce("a4", &b1, Ack::Written).await;
    assert_eq!(r.status, Status::Unauthorized, "{}", r.message);
    assert!(broker.log().topic("a3").is_none() && broker.log().topic("a4").is_none());
    // Alice's other connections share her count; Bob has his own.
    let mut a_again = connect_as(broker.addr(), &alice).await;
    assert_eq!(
        a_again.call(&create_req("a5", 1)).await.status,
        Status::Unauthorized
    );
    let mut b = connect_as(broker.addr(), &bob).await;
    assert_eq!(b.call(&create_req("b1", 1)).await.status, Status::Ok);
    // Deleting one of hers gives the slot back.
    assert_eq!(
        a.call(&Request::DeleteTopic(topic("a1"))).await.status,
        Status::Ok
    );
    assert_eq!(a.call(&create_req("a3", 1)).await.status, Status::Ok);
    assert_eq!(Metrics::get(&broker.metrics().topics_refused), 3);
}

/// Keys cost nothing: before issue 31, each fresh key had its own topic
/// quota, so one address made as many topics as it made keys. The creation
/// rate is per source address: fresh keys from one address share it, and
/// what it refuses is not created.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fresh_keys_from_one_address_share_its_creation_rate() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        open_acl(c);
        c.max_topics_per_principal = 5;
        c.creations_per_minute_per_address = Limit::Max(12);
    })
    .await;
    let b1 = batch(1, 10, 1);
    let mut created = 0;
    for k in 0..20 {
        let mut c = connect_as(broker.addr(), &Key::new()).await;
        for t in 0..5 {
            let name = format!("k{k}.t{t}");
            // Created or auto-created: the same rate.
            let r = if t % 2 == 0 {
                c.call(&create_req(&name, 1)).await
            } else {
                c.produce(&name, &b1, Ack::Written).await
            };
            match r.status {
                Status::Ok => created += 1,
                Status::Unauthorized => {
                    assert!(
                        r.message.contains("creations_per_minute_per_address")
                            && r.message.contains("retry in"),
                        "{}",
                        r.message
                    );
                    assert!(broker.log().topic(&name).is_none(), "{name}");
                }
                s => panic!("{name}: {s:?} {}", r.message),
            }
        }
    }
    assert_eq!(created, 12, "100 topics from 20 fresh keys, 12 a minute");
    assert_eq!(Metrics::get(&broker.metrics().creations_refused), 88);
    broker.shutdown().await.unwrap();
}

/// Consumer groups had no bound at all: every new group's first commit
/// adds an entry to the offsets store. A principal creates at most
/// `max_group_offsets_per_principal` of them; commits to the ones it has
/// keep working, and another principal has its own count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_offsets_per_principal_are_capped() {
    let (alice, bob) = (Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        open_acl(c);
        c.max_group_offsets_per_principal = 3;
    })
    .await;
    let mut a = connect_as(broker.addr(), &alice).await;
    let b1 = batch(1, 10, 1);
    assert_eq!(a.produce("t", &b1, Ack::Durable).await.status, Status::Ok);
    for g in 0..3 {
        let group = format!("{}.g{g}", alice.hex);
        let r = a.call(&commit_req(&group, "t", 1)).await;
        assert_eq!(r.status, Status::Ok, "{group}: {}", r.message);
    }
    let fourth = format!("{}.g3", alice.hex);
    let r = a.call(&commit_req(&fourth, "t", 1)).await;
    assert_eq!(r.status, Status::Unauthorized);
    assert!(
        r.message.contains("max_group_offsets_per_principal (3)") && r.message.contains(&fourth),
        "{}",
        r.message
    );
    assert_eq!(broker.engine().offsets().committed(&fourth, "t", 0), None);
    // Her existing groups still commit.
    let again = format!("{}.g0", alice.hex);
    assert_eq!(a.call(&commit_req(&again, "t", 0)).await.status, Status::Ok);
    // From another connection too: the count is the principal's.
    let mut a2 = connect_as(broker.addr(), &alice).await;
    assert_eq!(
        a2.call(&commit_req(&fourth, "t", 1)).await.status,
        Status::Unauthorized
    );
    let mut b = connect_as(broker.addr(), &bob).await;
    let bobs = format!("{}.g0", bob.hex);
    assert_eq!(b.call(&commit_req(&bobs, "t", 1)).await.status, Status::Ok);
    assert_eq!(Metrics::get(&broker.metrics().group_offsets_refused), 2);
    broker.shutdown().await.unwrap();
}
