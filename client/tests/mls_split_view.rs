//! Split views, first step (issue 37 item 6, docs/MLS.md §4.7): members
//! exchange, inside encrypted views messages, the version and SHA-256 of
//! the device list they hold for each member account. A broker (here an
//! admin who rewrites `dir.<account>`, with lists the test signs with Bob's
//! account key: Bob's account compromised, or buggy) that shows Alice and
//! Carol different lists for Bob is noticed by both; one that withholds a
//! newer list from Alice is noticed by her; honest lists raise nothing.

mod support;

use std::time::Duration;

use hermit_client::crypto::{Fingerprint, Identity};
use hermit_client::mls::device_list::{DeviceList, ListedDevice};
use hermit_client::mls::{Conversation, Device, Event, MemberId};
use support::mls::*;
use support::*;

/// A list of Bob's signed with his account key: his device, and `extra`.
fn bob_list(bob_key: &Identity, version: u64, issued_at: u64, extra: &[&Identity]) -> Vec<u8> {
    let mut devices = vec![ListedDevice {
        key: bob_key.public_key().to_sec1_uncompressed(),
        added_at: 1,
    }];
    devices.extend(extra.iter().map(|d| ListedDevice {
        key: d.public_key().to_sec1_uncompressed(),
        added_at: issued_at,
    }));
    DeviceList::new(bob_key.public_key(), version, issued_at, devices)
        .unwrap()
        .sign(bob_key)
}

struct Three {
    alice: Device,
    bob: Device,
    bob_key: Identity,
    carol: Device,
    convs: Vec<Conversation>,
}

/// Alice's conversation with Bob and Carol, every member caught up and the
/// views of the joins exchanged (no split view among honest lists).
async fn three(addr: std::net::SocketAddr, root: &std::path::Path) -> Three {
    let alice = account_device(addr, root, "alice", 2).await;
    let (bob, bob_key) = account_device_with_key(addr, root, "bob", 2).await;
    let carol = account_device(addr, root, "carol", 2).await;
    let mut a = alice.create_conversation().await.expect("create");
    a.invite(bob.account().fingerprint())
        .await
        .expect("invite bob");
    a.invite(carol.account().fingerprint())
        .await
        .expect("invite carol");
    let mut convs = vec![a];
    for d in [&bob, &carol] {
        d.accept_welcomes().await.expect("welcomes");
        convs.push(d.conversation(convs[0].topic()).expect("open"));
    }
    let events = settle(&mut convs).await;
    assert_eq!(split_views(&events), vec![], "honest joins: no split view");
    Three {
        alice,
        bob,
        bob_key,
        carol,
        convs,
    }
}

/// Every member reads until a round in which nobody's log moved (views
/// sent in reply are read too); returns every event seen.
async fn settle(convs: &mut [Conversation]) -> Vec<Event> {
    let mut all = Vec::new();
    for _ in 0..10 {
        let before: Vec<u64> = convs.iter().map(Conversation::next_offset).collect();
        for events in drain(convs).await {
            all.extend(events);
        }
        if convs.iter().map(Conversation::next_offset).eq(before) {
            return all;
        }
    }
    panic!("the views exchange did not settle in 10 rounds: {all:#?}");
}

fn split_views(events: &[Event]) -> Vec<(Fingerprint, MemberId, u64, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::SplitView {
                account,
                member,
                version,
                seen,
                ..
            } => Some((*account, *member, *version, *seen)),
            _ => None,
        })
        .collect()
}

fn is_split(e: &Event) -> bool {
    matches!(e, Event::SplitView { .. })
}

#[tokio::test]
async fn two_lists_with_one_version_are_a_split_view_for_both_members() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let Three {
        alice,
        bob,
        bob_key,
        carol,
        mut convs,
    } = three(broker.addr(), root.path()).await;
    let bob_fp = *bob.fingerprint();
    let admin = client(broker.addr()).await;

    // Alice accepts L1 v5; the admin replaces it with L2 v5 (another
    // device in it), which Carol accepts.
    let mallory = Identity::generate().unwrap();
    write_list(&admin, &bob_fp, &bob_list(&bob_key, 5, 100, &[])).await;
    assert_eq!(alice.device_list(&bob_fp).await.expect("L1").version(), 5);
    write_list(&admin, &bob_fp, &bob_list(&bob_key, 5, 200, &[&mallory])).await;
    assert_eq!(carol.device_list(&bob_fp).await.expect("L2").version(), 5);
    // Carol restarts: what she holds now is what her reopened conversation
    // starts from, so her views go out only because Alice's differ.
    let topic = convs[2].topic().to_owned();
    convs[2] = carol.conversation(&topic).expect("reopen");

    // Alice's views go out at her next read (her memory moved); Carol
    // sees the split and answers with hers; Alice sees it too.
    convs[0].receive(Duration::ZERO).await.expect("alice reads");
    let carol_events = receive_until(&mut convs[2], is_split).await;
    let alice_events = receive_until(&mut convs[0], is_split).await;
    let (alice_id, carol_id) = (convs[0].me(), convs[2].me());
    assert_eq!(
        split_views(&carol_events),
        vec![(bob_fp, alice_id, 5, 5)],
        "Carol: Alice holds another v5"
    );
    assert_eq!(
        split_views(&alice_events),
        vec![(bob_fp, carol_id, 5, 5)],
        "Alice: Carol holds another v5"
    );
    // Bob's own device (at v1, its own publish) fetches v5 when told of it,
    // gets L2, and so disagrees with Alice's L1.
    let bob_events = receive_until(&mut convs[1], is_split).await;
    assert!(
        split_views(&bob_events).contains(&(bob_fp, alice_id, 5, 5)),
        "{bob_events:#?}"
    );
    // Views messages are not shown as messages.
    assert!(
        texts(&carol_events).is_empty() && texts(&alice_events).is_empty(),
        "views are not texts"
    );
    // The events survive in the state until acknowledged (persisted): they
    // were, and the exchange stops (no views message is sent twice).
    let rest = settle(&mut convs).await;
    assert!(
        rest.iter().all(|e| !matches!(e, Event::Message { .. })),
        "{rest:#?}"
    );
}

#[tokio::test]
async fn a_newer_list_withheld_from_one_member_is_a_split_view() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let Three {
        alice,
        bob,
        bob_key,
        carol,
        mut convs,
    } = three(broker.addr(), root.path()).await;
    let bob_fp = *bob.fingerprint();
    let admin = client(broker.addr()).await;

    // Both accept v5; Carol then sees v6; the broker goes back to serving
    // v5 only (to Alice: for her it is not a rollback).
    let v5 = bob_list(&bob_key, 5, 100, &[]);
    write_list(&admin, &bob_fp, &v5).await;
    alice.device_list(&bob_fp).await.expect("alice v5");
    carol.device_list(&bob_fp).await.expect("carol v5");
    let phone = Identity::generate().unwrap();
    write_list(&admin, &bob_fp, &bob_list(&bob_key, 6, 300, &[&phone])).await;
    assert_eq!(carol.device_list(&bob_fp).await.expect("v6").version(), 6);
    refill(&admin, &bob_fp).await;
    write_list(&admin, &bob_fp, &v5).await;

    convs[2].receive(Duration::ZERO).await.expect("carol reads");
    let alice_events = receive_until(&mut convs[0], is_split).await;
    let carol_id = convs[2].me();
    assert_eq!(
        split_views(&alice_events),
        vec![(bob_fp, carol_id, 6, 5)],
        "Alice: Carol holds v6, the broker serves her v5"
    );
    assert_eq!(alice.device_list_version_seen(&bob_fp), Some(5));
}

#[tokio::test]
async fn honest_lists_raise_no_split_view_and_newer_ones_spread() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let Three {
        alice,
        bob,
        carol,
        mut convs,
        ..
    } = three(broker.addr(), root.path()).await;
    let bob_fp = *bob.fingerprint();

    // Bob lists a second device (v2); only Alice reads it.
    let laptop = Identity::generate().unwrap();
    bob.publish_device_list(std::slice::from_ref(laptop.public_key()))
        .await
        .expect("v2");
    assert_eq!(alice.device_list(&bob_fp).await.expect("v2").version(), 2);
    assert_eq!(carol.device_list_version_seen(&bob_fp), Some(1));

    convs[0].send_text("hello").await.expect("send");
    let events = settle(&mut convs).await;
    assert_eq!(split_views(&events), vec![], "{events:#?}");
    assert_eq!(
        texts(&events),
        vec!["hello".to_owned(); 2],
        "Bob and Carol each read the one text; views are not shown"
    );
    // Carol fetched v2 because Alice's views named it: the exchange ran.
    assert_eq!(carol.device_list_version_seen(&bob_fp), Some(2));
}
