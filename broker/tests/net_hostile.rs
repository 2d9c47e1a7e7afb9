//! Hostile clients against a real broker on a real socket (issue 31): what
//! a client that reconnects, never authenticates or names what it may not
//! create can make the broker keep.

mod netcommon;

use std::time::Duration;

use tokio::io::AsyncReadExt;

use hermit_broker::config::{AclRule, AuthMode, Config};
use hermit_broker::net::Metrics;
use hermit_protocol::{Ack, Request, Status};
use netcommon::*;

/// Issue 31 item 3: a long poll parked on a connection goes with it. Fifty
/// clients each park a fetch (60 s wait) and hang up: no waiter is left
/// watching the partition and the gauge reads nothing parked. (Before, each
/// waiter lived until its deadline: reconnecting escaped
/// `max_parked_fetches`, and the gauge read 0 meanwhile.)
#[tokio::test]
async fn a_parked_fetch_goes_with_its_connection() {
    let dir = scratch_dir();
    let broker = start(dir.path(), |_| {}).await;
    let mut admin = Raw::connect(broker.addr()).await;
    assert_eq!(admin.call(&create_req("polls", 1)).await.status, Status::Ok);
    let part = broker.log().partition("polls", 0, false).unwrap();
    for _ in 0..50 {
        let mut c = Raw::connect(broker.addr()).await;
        c.send(&fetch_req("polls", 0, 0, 1 << 20, 60_000)).await;
        // The fetch is parked once a waiter watches the partition.
        eventually(Duration::from_secs(5), || part.watchers() >= 1).await;
        drop(c);
    }
    eventually(Duration::from_secs(5), || part.watchers() == 0).await;
    eventually(Duration::from_secs(5), || {
        Metrics::get(&broker.metrics().fetches_parked) == 0
    })
    .await;
}

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

/// Issue 31 item 6: a produce that auto-creates a topic but names a
/// partition the new topic lacks still spends a `max_topics_per_principal`
/// permit — the topic exists. (Before, the failed produce gave the permit
/// back: 300 topics against a quota of 5.)
#[tokio::test]
async fn a_topic_auto_created_by_a_failing_produce_is_charged() {
    let key = Key::new();
    let dir = scratch_dir();
    let broker = start(dir.path(), |c| {
        open_acl(c);
        c.max_topics_per_principal = 5;
    })
    .await;
    let mut c = connect_as(broker.addr(), &key).await;
    let b = batch(1, 10, 1);
    for i in 0..10 {
        // default_partitions = 1: partition 3 does not exist.
        let t = format!("q{i}");
        let r = c.send(&produce_req(&t, 3, &b, Ack::Written)).await;
        let answer = c.recv().await.expect("an answer");
        assert_eq!(answer.corr, r);
        assert_ne!(answer.status, Status::Ok, "{t}: partition 3 cannot exist");
    }
    let created = (0..10)
        .filter(|i| broker.log().topic(&format!("q{i}")).is_some())
        .count();
    assert_eq!(
        created, 5,
        "a quota of 5 topics, whatever the produce's outcome"
    );
}

/// Issue 31 item 5: with `auth = "required"`, a connection that sends its
/// hello and never authenticates is told so and closed after
/// `auth_timeout_ms`, not after the 600 s idle timeout.
#[tokio::test]
async fn an_unauthenticated_connection_is_closed_at_the_auth_deadline() {
    let dir = scratch_dir();
    let broker = start(dir.path(), |c| {
        open_acl(c);
        c.auth_timeout_ms = 300;
    })
    .await;
    let mut c = Raw::connect(broker.addr()).await;
    let started = std::time::Instant::now();
    let said = c.until_closed().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        said.iter()
            .any(|r| r.corr == 0 && r.status == Status::Unauthorized),
        "{said:?}"
    );
    // One that authenticates in time stays.
    let key = Key::new();
    let mut ok = connect_as(broker.addr(), &key).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(ok.call(&Request::Ping).await.status, Status::Ok);
}

/// Issue 31 item 5: hello-only connections cannot hold every connection
/// permit: past `max_unauthenticated_connections` a new one is refused at
/// its hello, and a slot frees when one of them authenticates.
#[tokio::test]
async fn connections_waiting_to_authenticate_have_their_own_cap() {
    let dir = scratch_dir();
    let broker = start(dir.path(), |c| {
        open_acl(c);
        c.max_unauthenticated_connections = 3;
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(Raw::connect(broker.addr()).await);
    }
    let mut fourth = Raw::connect(broker.addr()).await;
    let said = fourth.until_closed().await;
    assert!(
        said.iter()
            .any(|r| r.corr == 0 && r.status == Status::TooManyConnections),
        "{said:?}"
    );
    // Authenticating gives the slot back.
    let key = Key::new();
    let hello = held[0].hello.unwrap();
    let sig = key.sign_for(&hello.nonce, &hello.broker_id);
    assert_eq!(
        held[0].call(&authenticate(&key.spki, &sig)).await.status,
        Status::Ok
    );
    let mut fifth = Raw::connect(broker.addr()).await;
    let sig = key.sign_for(&fifth.hello.unwrap().nonce, &hello.broker_id);
    assert_eq!(
        fifth.call(&authenticate(&key.spki, &sig)).await.status,
        Status::Ok
    );
}

/// Issue 31 item 4: a socket counts against `max_connections_per_address`
/// from its accept, before its WebSocket upgrade (or TLS handshake): three
/// sockets that never send their HTTP request hold an address's cap of 3,
/// and the next connection from it — on any listener — is refused at
/// once. (Before, sockets awaiting their handshake were not counted, and a
/// refused one was held up to the handshake timeout.)
#[tokio::test]
async fn sockets_count_against_the_caps_from_their_accept() {
    let dir = scratch_dir();
    let broker = start(dir.path(), |c| {
        c.ws_listen = Some(std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
        c.max_connections_per_address = 3;
    })
    .await;
    let ws = broker.ws_addr().unwrap();
    let mut silent = Vec::new();
    for _ in 0..3 {
        silent.push(tokio::net::TcpStream::connect(ws).await.unwrap());
    }
    eventually(Duration::from_secs(5), || {
        Metrics::get(&broker.metrics().connections_accepted) == 3
    })
    .await;
    // A plain connection from the same address: refused, with the notice.
    let mut plain = Raw::connect(broker.addr()).await;
    let started = std::time::Instant::now();
    let said = plain.until_closed().await;
    assert!(
        said.iter()
            .any(|r| r.corr == 0 && r.status == Status::TooManyConnections),
        "{said:?}"
    );
    // Another silent socket on the WebSocket listener: closed at once, not
    // held for the handshake timeout.
    let mut extra = tokio::net::TcpStream::connect(ws).await.unwrap();
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(Duration::from_secs(2), extra.read(&mut buf))
        .await
        .expect("closed within 2 s, not the 5 s handshake timeout")
        .unwrap_or(0);
    assert_eq!(n, 0);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(Metrics::get(&broker.metrics().refused_by_address), 2);
    // From another address, a connection is served.
    let mut other = Raw::connect_from([127, 0, 0, 2].into(), broker.addr()).await;
    assert_eq!(other.call(&Request::Ping).await.status, Status::Ok);
}
