//! When a member or the broker lies (docs/MLS.md §3, DESIGN §10), over
//! real brokers on real sockets:
//! - an adversarial member appends a Commit that does not open, then two
//!   valid Commits for one epoch (made from two copies of its own state):
//!   every honest member picks the same one, the first valid in log order;
//! - a broker that shows two members different Commits at one offset
//!   (simulated by two brokers serving the same log up to that offset):
//!   the members are told `ForkSuspected` by the first record of the other
//!   side, never a silent divergence.

mod support;

use std::time::Duration;

use hermit_client::mls::header::{ContentType, clear_header};
use hermit_client::mls::{Conversation, Event};
use hermit_client::{Ack, Client};
use hermit_protocol::BatchBuilder;
use support::mls::*;
use support::*;

fn one(value: &[u8]) -> bytes::Bytes {
    let mut b = BatchBuilder::new(b"");
    b.push(value);
    b.finish(1).unwrap().into()
}

/// Every record of `topic` (partition 0) from `from`, in order.
async fn records(c: &Client, topic: &str, from: u64) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut next = from;
    loop {
        let resp = c
            .fetch(topic, 0, next, 1 << 20, Duration::ZERO)
            .await
            .unwrap();
        let before = out.len();
        for r in resp.records_from(next) {
            let r = r.unwrap();
            next = r.offset + 1;
            out.push((r.offset, r.value.to_vec()));
        }
        if out.len() == before {
            return out;
        }
    }
}

async fn drain_one(c: &mut Conversation) -> Vec<Event> {
    c.catch_up().await.unwrap();
    let events = c.receive(Duration::ZERO).await.unwrap();
    c.ack().unwrap();
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn honest_members_pick_the_first_valid_commit_whatever_a_member_appends() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let (mallory, mallory_key) =
        account_device_with_key(broker.addr(), dir.path(), "mallory", 2).await;
    let bob = account_device(broker.addr(), dir.path(), "bob", 2).await;
    let carol = account_device(broker.addr(), dir.path(), "carol", 2).await;
    let mut m = mallory.create_conversation().await.unwrap();
    m.invite(bob.account().fingerprint()).await.unwrap();
    m.invite(carol.account().fingerprint()).await.unwrap();
    bob.accept_welcomes().await.unwrap();
    carol.accept_welcomes().await.unwrap();
    let topic = m.topic().to_owned();
    let mut b = bob.conversation(&topic).unwrap();
    let mut c = carol.conversation(&topic).unwrap();
    drain_one(&mut b).await;
    drain_one(&mut c).await;
    let epoch = b.epoch();
    assert_eq!(c.epoch(), epoch);

    // 1. A Commit for the current epoch that does not open: the last Commit
    // on the topic, its epoch rewritten to the current one.
    let raw = client(broker.addr()).await;
    let log = records(&raw, &topic, 0).await;
    // (Views messages, docs/MLS.md §4.7, may follow it.)
    let (_, last_commit) = log
        .iter()
        .rev()
        .find(|(_, v)| clear_header(v).is_ok_and(|h| h.content_type == ContentType::Commit))
        .unwrap()
        .clone();
    let mut forged = last_commit.clone();
    let at = 4 + 1 + 32; // version, wire format, id length, group id
    forged[at..at + 8].copy_from_slice(&epoch.to_be_bytes());
    let forged_at = raw
        .produce(&topic, 0, Ack::Durable, one(&forged))
        .await
        .unwrap();

    // 2. Two valid Commits for one epoch: Mallory commits, and a copy of
    // her state from before commits again for the same epoch.
    drop(m);
    drop(mallory);
    copy_state(dir.path(), "mallory", "mallory-copy");
    let mallory = open_device(broker.addr(), dir.path(), "mallory", mallory_key.clone()).await;
    let mut m = mallory.conversation(&topic).unwrap();
    let first = m.update().await.unwrap();
    let copy = open_device(broker.addr(), dir.path(), "mallory-copy", mallory_key).await;
    let mut m2 = copy.conversation(&topic).unwrap();
    let second = m2.update().await.unwrap();
    let (first_at, second_at) = match (first, second) {
        (
            hermit_client::mls::CommitOutcome::Committed {
                offset: a,
                epoch: ea,
                ..
            },
            hermit_client::mls::CommitOutcome::Committed {
                offset: b,
                epoch: eb,
                ..
            },
        ) => {
            assert_eq!(ea, eb, "both Commits are for one epoch");
            (a, b)
        }
        other => panic!("{other:?}"),
    };
    assert!(forged_at < first_at && first_at < second_at);

    // Every honest member: the forged record skipped with an event, the
    // first valid Commit applied, the second one (stale) skipped.
    let eb = drain_one(&mut b).await;
    let ec = drain_one(&mut c).await;
    for events in [&eb, &ec] {
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Event::ForkSuspected { offset, .. } | Event::RecordRefused { offset, .. } if *offset == forged_at)),
            "{events:#?}"
        );
        let applied: Vec<u64> = events
            .iter()
            .filter_map(|e| match e {
                Event::EpochChanged { offset, .. } => Some(*offset),
                _ => None,
            })
            .collect();
        assert_eq!(applied, vec![first_at], "{events:#?}");
    }
    assert_eq!(b.epoch(), epoch + 1);
    assert_eq!(
        b.epoch_authenticator().unwrap(),
        c.epoch_authenticator().unwrap()
    );
    assert_eq!(
        b.epoch_authenticator().unwrap(),
        m.epoch_authenticator().unwrap(),
        "the first Commit's author agrees too"
    );
    assert_ne!(
        m2.epoch_authenticator().unwrap(),
        b.epoch_authenticator().unwrap(),
        "only the copy that committed second forked itself off"
    );

    // And the honest members go on together: Bob commits, Carol follows.
    b.update().await.unwrap();
    drain_one(&mut c).await;
    assert_eq!(
        b.epoch_authenticator().unwrap(),
        c.epoch_authenticator().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_showing_two_members_different_logs_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let honest = broker(&dir.path().join("b1"), |_| {}).await;
    let lying = broker(&dir.path().join("b2"), |_| {}).await;
    let alice = account_device(honest.addr(), dir.path(), "alice", 2).await;
    let (bob, bob_key) = account_device_with_key(honest.addr(), dir.path(), "bob", 2).await;
    let mut a = alice.create_conversation().await.unwrap();
    a.invite(bob.account().fingerprint()).await.unwrap();
    bob.accept_welcomes().await.unwrap();
    let topic = a.topic().to_owned();
    let mut b = bob.conversation(&topic).unwrap();
    a.send_text("before the fork").await.unwrap();
    assert_eq!(texts(&drain_one(&mut b).await), vec!["before the fork"]);

    // The lying broker serves Bob the same log so far...
    let h = client(honest.addr()).await;
    let l = client(lying.addr()).await;
    l.create_topic(&topic, settings(1)).await.unwrap();
    let copy_from = |from: u64| {
        let (h, l, topic) = (&h, &l, &topic);
        async move {
            for (offset, value) in records(h, topic, from).await {
                let at = l
                    .produce(topic, 0, Ack::Durable, one(&value))
                    .await
                    .unwrap();
                assert_eq!(at, offset, "the copy keeps offsets");
            }
        }
    };
    copy_from(0).await;
    // ...then Bob, on the lying broker, commits at the next offset while
    // Alice, on the honest one, commits at the same offset there.
    drop(b);
    drop(bob);
    let bob = open_device(lying.addr(), dir.path(), "bob", bob_key).await;
    let mut b = bob.conversation(&topic).unwrap();
    let end = a.next_offset();
    a.update().await.unwrap();
    b.update().await.unwrap();
    assert_eq!(a.epoch(), b.epoch(), "one epoch number on both sides");
    assert_ne!(
        a.epoch_authenticator().unwrap(),
        b.epoch_authenticator().unwrap(),
        "two groups now"
    );
    // Alice writes; the lying broker relays her record to Bob after his
    // own Commit.
    a.send_text("after the fork").await.unwrap();
    let honest_log = records(&h, &topic, end + 1).await;
    for (_, value) in &honest_log {
        l.produce(&topic, 0, Ack::Durable, one(value))
            .await
            .unwrap();
    }
    let seen = drain_one(&mut b).await;
    assert!(texts(&seen).is_empty(), "{seen:#?}");
    assert!(
        seen.iter()
            .any(|e| matches!(e, Event::ForkSuspected { .. })),
        "Bob is told: {seen:#?}"
    );
}
