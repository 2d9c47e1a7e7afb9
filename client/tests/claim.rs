//! Claim through the SDK against a real in-process broker on real sockets:
//! fifty connections racing for twenty batches get each exactly once; a
//! retry gets the same batch, another principal with the same id another;
//! a claim without the `claim` action is refused and moves nothing; the
//! claim rates stop one principal, and one address with many keys,
//! draining the topic; only durable batches are handed out.

mod support;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use hermit_broker::config::{AclRule, AuthMode, Config, FsyncPolicy, Limit};
use hermit_broker::net::Metrics;
use hermit_client::crypto::Identity;
use hermit_client::{Ack, Claim, ClaimId, ClaimedBatch, Client, ClientOptions, Status};
use hermit_protocol::BatchBuilder;
use support::*;

/// One batch holding one record, `value`.
fn one(value: &[u8]) -> Vec<u8> {
    let mut b = BatchBuilder::new(b"");
    b.push(value);
    b.finish(1).unwrap()
}

/// `n` single-record batches `job 0` … on `topic`, durable.
async fn jobs(c: &Client, topic: &str, n: u32) {
    for i in 0..n {
        c.produce(
            topic,
            0,
            Ack::Durable,
            one(format!("job {i}").as_bytes()).into(),
        )
        .await
        .unwrap();
    }
}

/// The one record of a claimed batch.
fn value(b: &ClaimedBatch) -> String {
    let records: Vec<_> = b.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].offset, b.offset);
    String::from_utf8(records[0].value.to_vec()).unwrap()
}

fn batch(c: Claim) -> ClaimedBatch {
    match c {
        Claim::Claimed(b) => b,
        Claim::NothingLeft => panic!("expected a batch, got nothing left"),
    }
}

async fn connect(addr: std::net::SocketAddr, id: Option<&Identity>) -> Client {
    let options = ClientOptions {
        identity: id.map(|i| Arc::new(i.clone())),
        ..ClientOptions::default()
    };
    Client::connect(addr.to_string(), options).await.unwrap()
}

/// A fingerprint no key here has.
const NOBODY: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn fingerprint(id: &Identity) -> String {
    id.public_key().fingerprint().to_hex()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_claimers_get_twenty_batches_each_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let admin = client(broker.addr()).await;
    admin.create_topic("jobs", settings(1)).await.unwrap();
    jobs(&admin, "jobs", 20).await;
    // Fifty clients, fifty connections, released together.
    let mut claimers = Vec::new();
    for _ in 0..50 {
        claimers.push(client(broker.addr()).await);
    }
    let start = Arc::new(tokio::sync::Barrier::new(50));
    let mut tasks = Vec::new();
    for c in claimers {
        let start = start.clone();
        tasks.push(tokio::spawn(async move {
            let id = ClaimId::random().unwrap();
            start.wait().await;
            let got = c.claim("jobs", 0, id).await.unwrap();
            (c, id, got)
        }));
    }
    let mut handed: HashMap<u64, (ClaimId, String)> = HashMap::new();
    let mut nothing = 0;
    let mut winners = Vec::new();
    for t in tasks {
        let (c, id, got) = t.await.unwrap();
        match got {
            Claim::Claimed(b) => {
                assert_eq!(b.next, b.offset + 1);
                let v = value(&b);
                assert!(
                    handed.insert(b.offset, (id, v)).is_none(),
                    "offset {} handed out twice",
                    b.offset
                );
                winners.push((c, id, b.offset));
            }
            Claim::NothingLeft => nothing += 1,
        }
    }
    assert_eq!(handed.len(), 20, "every batch handed out");
    assert_eq!(nothing, 30, "the other claims are told nothing is left");
    let values: HashSet<&str> = handed.values().map(|(_, v)| v.as_str()).collect();
    assert_eq!(values.len(), 20);
    for (offset, (_, v)) in &handed {
        assert_eq!(v, &format!("job {offset}"));
    }
    // A retry with the same id gets the same batch — on its connection or
    // on a new one — and moves nothing.
    for (c, id, offset) in winners.iter().take(5) {
        assert_eq!(
            batch(c.claim("jobs", 0, *id).await.unwrap()).offset,
            *offset
        );
        let again = client(broker.addr()).await;
        let b = batch(again.claim("jobs", 0, *id).await.unwrap());
        assert_eq!((b.offset, value(&b)), (*offset, format!("job {offset}")));
    }
    // Nothing is left for a new claim; the next batch produced is the next one handed out.
    let late = client(broker.addr()).await;
    assert!(matches!(
        late.claim("jobs", 0, ClaimId::random().unwrap())
            .await
            .unwrap(),
        Claim::NothingLeft
    ));
    late.produce("jobs", 0, Ack::Durable, one(b"job 20").into())
        .await
        .unwrap();
    let b = batch(
        late.claim("jobs", 0, ClaimId::random().unwrap())
            .await
            .unwrap(),
    );
    assert_eq!((b.offset, value(&b)), (20, "job 20".to_owned()));
    assert_eq!(Metrics::get(&broker.metrics().claims), 21);
}

/// `auth = "required"`, with `admin` an admin and these rules on `jobs`:
/// `claimers` may claim, `others` may produce and consume.
fn acl(admin: &Identity, claimers: &str, others: &str) -> impl FnOnce(&mut Config) {
    let (admin, claimers, others) = (fingerprint(admin), claimers.to_owned(), others.to_owned());
    move |c| {
        c.auth = AuthMode::Required;
        c.admins = vec![admin];
        c.acl = vec![
            AclRule {
                principal: claimers,
                topics: "jobs".into(),
                allow: vec!["claim".into()],
                groups: None,
            },
            AclRule {
                principal: others,
                topics: "jobs".into(),
                allow: vec!["produce".into(), "consume".into()],
                groups: None,
            },
        ];
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_principal_with_the_same_id_gets_another_batch() {
    let (admin, alice, bob) = (
        Identity::generate().unwrap(),
        Identity::generate().unwrap(),
        Identity::generate().unwrap(),
    );
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), acl(&admin, "*", NOBODY)).await;
    let a = connect(broker.addr(), Some(&admin)).await;
    a.create_topic("jobs", settings(1)).await.unwrap();
    jobs(&a, "jobs", 3).await;
    let (alice, bob) = (
        connect(broker.addr(), Some(&alice)).await,
        connect(broker.addr(), Some(&bob)).await,
    );
    let id = ClaimId([7; 16]);
    assert_eq!(batch(alice.claim("jobs", 0, id).await.unwrap()).offset, 0);
    assert_eq!(batch(bob.claim("jobs", 0, id).await.unwrap()).offset, 1);
    assert_eq!(batch(alice.claim("jobs", 0, id).await.unwrap()).offset, 0);
    assert_eq!(batch(bob.claim("jobs", 0, id).await.unwrap()).offset, 1);
    assert_eq!(
        batch(bob.claim("jobs", 0, ClaimId([8; 16])).await.unwrap()).offset,
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_without_the_claim_action_is_refused_and_moves_nothing() {
    let (admin, claimer, consumer) = (
        Identity::generate().unwrap(),
        Identity::generate().unwrap(),
        Identity::generate().unwrap(),
    );
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(
        dir.path(),
        acl(&admin, &fingerprint(&claimer), &fingerprint(&consumer)),
    )
    .await;
    let a = connect(broker.addr(), Some(&admin)).await;
    a.create_topic("jobs", settings(1)).await.unwrap();
    jobs(&a, "jobs", 2).await;
    let consumer = connect(broker.addr(), Some(&consumer)).await;
    for _ in 0..3 {
        let err = consumer
            .claim("jobs", 0, ClaimId::random().unwrap())
            .await
            .unwrap_err();
        assert_eq!(err.status(), Some(Status::Unauthorized), "{err}");
        assert!(err.to_string().contains("claim"), "{err}");
    }
    // It may read the topic: consume is not claim.
    assert_eq!(
        consumer
            .fetch("jobs", 0, 0, 1 << 20, Duration::ZERO)
            .await
            .unwrap()
            .high_watermark,
        2
    );
    // Nothing moved: the first allowed claim gets offset 0.
    let claimer = connect(broker.addr(), Some(&claimer)).await;
    let b = batch(
        claimer
            .claim("jobs", 0, ClaimId::random().unwrap())
            .await
            .unwrap(),
    );
    assert_eq!((b.offset, value(&b)), (0, "job 0".to_owned()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_claim_rates_stop_one_principal_and_one_address_draining_the_topic() {
    let admin = Identity::generate().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| {
        acl(&admin, "*", NOBODY)(c);
        c.claims_per_minute_per_principal = Limit::Max(5);
        c.claims_per_minute_per_address = Limit::Max(8);
    })
    .await;
    let a = connect(broker.addr(), Some(&admin)).await;
    a.create_topic("jobs", settings(1)).await.unwrap();
    jobs(&a, "jobs", 20).await;
    let greedy = connect(broker.addr(), Some(&Identity::generate().unwrap())).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let id = ClaimId::random().unwrap();
        assert_eq!(batch(greedy.claim("jobs", 0, id).await.unwrap()).offset, i);
        ids.push(id);
    }
    // Its sixth claim in the minute is refused, and hands nothing out.
    let err = greedy
        .claim("jobs", 0, ClaimId::random().unwrap())
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::RateLimited), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("claims_per_minute_per_principal (5)") && msg.contains("retry in"),
        "{msg}"
    );
    // A retry of a claim it made costs nothing: still answered.
    assert_eq!(
        batch(greedy.claim("jobs", 0, ids[4]).await.unwrap()).offset,
        4
    );
    // Another principal goes on from where the position is.
    let other = connect(broker.addr(), Some(&Identity::generate().unwrap())).await;
    for i in 5..8 {
        let b = batch(
            other
                .claim("jobs", 0, ClaimId::random().unwrap())
                .await
                .unwrap(),
        );
        assert_eq!(b.offset, i);
    }
    // The address (every client here is on 127.0.0.1) has had its eight:
    // a fresh key gains nothing.
    let fresh = connect(broker.addr(), Some(&Identity::generate().unwrap())).await;
    let err = fresh
        .claim("jobs", 0, ClaimId::random().unwrap())
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::RateLimited), "{err}");
    assert!(
        err.to_string()
            .contains("claims_per_minute_per_address (8)"),
        "{err}"
    );
    let m = broker.metrics();
    assert_eq!(Metrics::get(&m.claims), 8);
    assert_eq!(
        (
            Metrics::get(&m.claims_refused[0]),
            Metrics::get(&m.claims_refused[1])
        ),
        (1, 1)
    );
    // The admin is not counted.
    let b = batch(
        a.claim("jobs", 0, ClaimId::random().unwrap())
            .await
            .unwrap(),
    );
    assert_eq!(b.offset, 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_durable_batches_are_claimed_and_claims_create_no_topic() {
    let dir = tempfile::tempdir().unwrap();
    let addr = free_addr();
    {
        // Made first: under `interval` a creation waits for the next round.
        let b = broker_at(dir.path(), addr, |_| {}).await;
        let c = client(addr).await;
        c.create_topic("jobs", settings(1)).await.unwrap();
        drop(c);
        b.shutdown().await.unwrap();
    }
    // An interval that does not come during the test: what is produced is
    // visible (written acks) but not durable.
    let hour = |c: &mut Config| c.fsync = FsyncPolicy::Interval(Duration::from_secs(3600));
    let b = broker_at(dir.path(), addr, hour).await;
    let c = client(addr).await;
    c.produce("jobs", 0, Ack::Written, one(b"job 0").into())
        .await
        .unwrap();
    let fetched = c
        .fetch("jobs", 0, 0, 1 << 20, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(fetched.high_watermark, 1, "visible to consumers");
    let id = ClaimId::random().unwrap();
    assert!(matches!(
        c.claim("jobs", 0, id).await.unwrap(),
        Claim::NothingLeft
    ));
    // A claim never creates its topic, whatever auto_create says.
    let err = c.claim("nope", 0, id).await.unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownTopic), "{err}");
    assert!(b.engine().topic("nope").is_none());
    drop(c);
    // A graceful stop fsyncs everything: now it is durable. (Under
    // `always` again: a claim's answer waits for its own record's fsync,
    // which `interval` would give only at the next tick.)
    b.shutdown().await.unwrap();
    let b = broker_at(dir.path(), addr, |_| {}).await;
    let c = client(addr).await;
    let got = batch(c.claim("jobs", 0, id).await.unwrap());
    assert_eq!((got.offset, value(&got)), (0, "job 0".to_owned()));
    drop(c);
    b.shutdown().await.unwrap();
}
