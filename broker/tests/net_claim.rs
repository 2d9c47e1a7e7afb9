//! Claim over real sockets, speaking the protocol by hand: the answer
//! comes only once the moved claim position is durable; a claim never
//! creates a topic; the ACL action `claim` is needed, and neither implies
//! nor is implied by `consume`; the per-address claim rate holds across
//! any number of keys from one address, and other addresses keep theirs.

mod netcommon;

use std::net::IpAddr;

use hermit_broker::config::{AclRule, AuthMode, Config, FsyncPolicy, Limit};
use hermit_broker::net::Metrics;
use hermit_protocol::{Ack, Request, Status};
use netcommon::*;

/// `n` durable single-record batches on `t` (created on first use).
async fn produce_singles(raw: &mut Raw, t: &str, n: u64) {
    for i in 0..n {
        let r = raw.produce(t, &batch(1, 27, i), Ack::Durable).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_is_answered_only_once_its_position_is_durable() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.fsync = FsyncPolicy::Always).await;
    let mut raw = Raw::connect(broker.addr()).await;
    produce_singles(&mut raw, "jobs", 100).await;
    let claims = broker.engine().claims_partition().clone();
    for i in 0..100u64 {
        let r = raw.call(&claim_req("jobs", 0, [i as u8; 16])).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
        let (offset, next, batch) = r.claimed.expect("a batch");
        assert_eq!((offset, next), (i, i + 1));
        assert_eq!(
            hermit_protocol::RecordHeader::decode(&batch)
                .unwrap()
                .base_offset,
            i
        );
        // This connection is the only claimer: at answer time its claim's
        // record, the newest in __claims, is on stable storage.
        assert!(
            claims.synced_offset() >= claims.next_offset(),
            "claim {i} answered before its position was durable"
        );
    }
    let r = raw.call(&claim_req("jobs", 0, [200; 16])).await;
    assert_eq!(r.status, Status::NothingToClaim, "{}", r.message);
    // A retry is answered with its batch again.
    let r = raw.call(&claim_req("jobs", 0, [99; 16])).await;
    assert_eq!(r.claimed.map(|c| (c.0, c.1)), Some((99, 100)));
    assert_eq!(Metrics::get(&broker.metrics().claims), 100);
    broker.shutdown().await.unwrap();

    // Under fsync = never nothing is ever durable: answered at once.
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.fsync = FsyncPolicy::Never).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let r = raw.produce("jobs", &batch(3, 27, 0), Ack::Written).await;
    assert_eq!(r.status, Status::Ok);
    let r = raw.call(&claim_req("jobs", 0, [1; 16])).await;
    assert_eq!(r.claimed.map(|c| (c.0, c.1)), Some((0, 3)));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_never_creates_a_topic() {
    let dir = tempfile::tempdir().unwrap();
    // auto_create is on (the default): a produce or fetch would create it.
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let r = raw.call(&claim_req("nope", 0, [1; 16])).await;
    assert_eq!(r.status, Status::UnknownTopic, "{}", r.message);
    assert!(broker.engine().topic("nope").is_none());
    produce_singles(&mut raw, "one", 1).await;
    let r = raw.call(&claim_req("one", 3, [1; 16])).await;
    assert_eq!(r.status, Status::UnknownPartition, "{}", r.message);
    // The connection stays open.
    assert_eq!(raw.call(&Request::Ping).await.status, Status::Ok);
    broker.shutdown().await.unwrap();
}

/// `auth = "required"`: the admin may do anything; `claimer` may only claim
/// `jobs`, `reader` may produce to and consume it (no claim); the claim
/// rates as given.
fn claim_acl(admin: &Key, claimer: &str, reader: &Key) -> impl FnOnce(&mut Config) {
    let (admin, claimer, reader) = (admin.hex.clone(), claimer.to_owned(), reader.hex.clone());
    move |c| {
        c.auth = AuthMode::Required;
        c.admins = vec![admin];
        c.acl = vec![
            AclRule {
                principal: claimer,
                topics: "jobs".into(),
                allow: vec!["claim".into()],
                groups: None,
            },
            AclRule {
                principal: reader,
                topics: "jobs".into(),
                allow: vec!["produce".into(), "consume".into()],
                groups: Some("*".into()),
            },
        ];
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claim_and_consume_are_separate_actions() {
    let (admin, claimer, reader) = (Key::new(), Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), claim_acl(&admin, &claimer.hex, &reader)).await;
    let mut a = connect_as(broker.addr(), &admin).await;
    produce_singles(&mut a, "jobs", 3).await;
    // Consume does not give claim: refused, and nothing moves.
    let mut r = connect_as(broker.addr(), &reader).await;
    let resp = r.call(&claim_req("jobs", 0, [1; 16])).await;
    assert_eq!(resp.status, Status::Unauthorized);
    assert!(
        resp.message.contains("not authorized to claim jobs"),
        "{}",
        resp.message
    );
    assert_eq!(broker.engine().claims().position("jobs", 0), None);
    assert_eq!(r.fetch("jobs", 0, 1 << 20, 0).await.status, Status::Ok);
    // Claim does not give consume: the claimer sees only what it is handed.
    let mut c = connect_as(broker.addr(), &claimer).await;
    let resp = c.fetch("jobs", 0, 1 << 20, 0).await;
    assert_eq!(resp.status, Status::Unauthorized);
    let resp = c.call(&claim_req("jobs", 0, [1; 16])).await;
    assert_eq!(resp.claimed.map(|x| x.0), Some(0), "{}", resp.message);
    // Nor anything on another topic.
    let resp = c.call(&claim_req("jobs2", 0, [2; 16])).await;
    assert_eq!(resp.status, Status::Unauthorized);
    broker.shutdown().await.unwrap();
}

/// Connect from `local` (a loopback address) and authenticate as `key`.
async fn connect_from_as(local: IpAddr, addr: std::net::SocketAddr, key: &Key) -> Raw {
    let mut raw = Raw::connect_from(local, addr).await;
    let hello = raw.hello.unwrap();
    let sig = key.sign_for(&hello.nonce, &hello.broker_id);
    let r = raw.call(&authenticate(&key.spki, &sig)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    raw
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_address_rate_holds_across_keys_and_other_addresses_keep_theirs() {
    let admin = Key::new();
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        claim_acl(&admin, "*", &Key::new())(c);
        c.claims_per_minute_per_principal = Limit::Unlimited;
        c.claims_per_minute_per_address = Limit::Max(3);
    })
    .await;
    let mut a = connect_as(broker.addr(), &admin).await;
    produce_singles(&mut a, "jobs", 10).await;
    let here: IpAddr = [127, 0, 0, 1].into();
    // Three fresh keys from one address: one claim each, then the address
    // is spent, whatever key asks.
    for i in 0..3u8 {
        let mut c = connect_from_as(here, broker.addr(), &Key::new()).await;
        let r = c.call(&claim_req("jobs", 0, [i; 16])).await;
        assert_eq!(r.claimed.map(|x| x.0), Some(u64::from(i)), "{}", r.message);
    }
    let fresh = Key::new();
    let mut c = connect_from_as(here, broker.addr(), &fresh).await;
    let r = c.call(&claim_req("jobs", 0, [9; 16])).await;
    assert_eq!(r.status, Status::RateLimited, "{}", r.message);
    assert!(
        r.message.contains("claims_per_minute_per_address (3)") && r.message.contains("retry in"),
        "{}",
        r.message
    );
    // The same key from another address has that address's rate; the
    // refusal handed nothing out.
    let mut c = connect_from_as([127, 0, 0, 2].into(), broker.addr(), &fresh).await;
    let r = c.call(&claim_req("jobs", 0, [9; 16])).await;
    assert_eq!(r.claimed.map(|x| x.0), Some(3), "{}", r.message);
    let m = broker.metrics();
    assert_eq!(Metrics::get(&m.claims), 4);
    assert_eq!(
        (
            Metrics::get(&m.claims_refused[0]),
            Metrics::get(&m.claims_refused[1])
        ),
        (0, 1)
    );
    broker.shutdown().await.unwrap();
}
