//! Hostile clients against a real broker on a real socket (issue 31): what
//! a client that reconnects, never authenticates or names what it may not
//! create can make the broker keep.

mod netcommon;

use std::time::Duration;

use hermit_broker::config::{AclRule, AuthMode, Config};
use hermit_broker::net::Metrics;
use hermit_protocol::{Ack, Status};
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
