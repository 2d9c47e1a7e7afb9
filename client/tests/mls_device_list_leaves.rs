//! The MLS layer refuses leaves whose device is not on its account's signed
//! device list (issue 37, item 3; docs/MLS.md §4.1, §4.4): a member judges a
//! new leaf against the account's list at the binding's `list_version` or
//! newer, fetched through the device-list memory; a list older than the
//! binding's version is no evidence; a device dropped from its account's
//! list is removed from groups by another device of that account, and the
//! members are told who removed it and when; a Welcome whose tree holds a
//! dropped device not yet removed is accepted, and the joiner is told; one
//! with a leaf whose list is withheld is refused, and the caller told.

mod support;

use std::time::Duration;

use hermit_client::Client;
use hermit_client::crypto::Fingerprint;
use hermit_client::mls::device_list::{DEVICES_KEY, directory_topic};
use hermit_client::mls::{Conversation, Device, Event};
use support::mls::*;
use support::*;

/// The raw bytes of the newest record of `account`'s device-list topic.
async fn newest_list_bytes(c: &Client, account: &Fingerprint) -> Vec<u8> {
    let resp = c
        .fetch(&directory_topic(account), 0, 0, 1 << 20, Duration::ZERO)
        .await
        .expect("fetch");
    resp.records_from(0)
        .map(|r| r.expect("record"))
        .filter(|r| r.key.as_ref() == DEVICES_KEY)
        .last()
        .expect("a list")
        .value
        .to_vec()
}

/// Alice's conversation with Mallory in it (Mallory joined, both caught up).
async fn alice_and_mallory(alice: &Device, mallory: &Device) -> (Conversation, Conversation) {
    let mut a = alice.create_conversation().await.expect("create");
    a.invite(mallory.account().fingerprint())
        .await
        .expect("invite");
    mallory.accept_welcomes().await.expect("welcome");
    let mut m = mallory.conversation(a.topic()).expect("open");
    for c in [&mut a, &mut m] {
        c.catch_up().await.expect("catch up");
        c.receive(Duration::ZERO).await.expect("receive");
        c.ack().expect("ack");
    }
    (a, m)
}

/// The `LeafRefused` events among `events`: (account, device, reason).
fn refused(events: &[Event]) -> Vec<(Fingerprint, Fingerprint, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::LeafRefused {
                account,
                device,
                reason,
                ..
            } => Some((*account, *device, reason.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_bound_but_no_longer_listed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = dir.path();
    let alice = account_device(broker.addr(), root, "alice", 2).await;
    let mallory = account_device(broker.addr(), root, "mallory", 2).await;
    let bob = account_device(broker.addr(), root, "bob", 2).await;
    let bob_fp = *bob.account().fingerprint();
    let (a, mut m) = alice_and_mallory(&alice, &mallory).await;
    let mut a = a;

    // Bob binds a laptop (the list naming it is version 2) …
    let (laptop, laptop_key) = bound_device(&bob, broker.addr(), root, "laptop").await;
    assert_eq!(laptop.account(), bob.account());
    // … Mallory holds that list, and Bob then drops the laptop (version 3).
    assert_eq!(mallory.device_list(&bob_fp).await.unwrap().version(), 2);
    let (v3, _) = bob.drop_device(laptop.fingerprint()).await.expect("drop");
    assert_eq!(v3.version(), 3);
    assert!(!v3.lists(&laptop_key.public_key().to_sec1_uncompressed()));

    // Mallory adds the laptop: its binding (version 2) is valid and her
    // device, holding version 2, lets her commit it.
    let epoch = a.epoch();
    m.add_devices(std::slice::from_ref(laptop_key.public_key()))
        .await
        .expect("mallory commits the add");
    // Alice judges it against Bob's newest list, which does not name it.
    let events = receive_until(&mut a, |e| matches!(e, Event::LeafRefused { .. })).await;
    let r = refused(&events);
    assert_eq!(r.len(), 1, "{events:#?}");
    assert_eq!((r[0].0, r[0].1), (bob_fp, *laptop.fingerprint()));
    assert!(r[0].2.contains("not on the device list"), "{}", r[0].2);
    assert_eq!(a.epoch(), epoch, "the Commit is invalid: Alice stays");
    assert!(
        !a.members()
            .iter()
            .any(|x| x.device == *laptop.fingerprint())
    );
    // The group goes on for Alice: her own Commit is valid.
    a.update().await.expect("alice's commit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_older_than_the_bindings_version_is_no_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = dir.path();
    let admin = client(broker.addr()).await;
    let alice = account_device(broker.addr(), root, "alice", 2).await;
    let mallory = account_device(broker.addr(), root, "mallory", 2).await;
    let bob = account_device(broker.addr(), root, "bob", 2).await;
    let bob_fp = *bob.account().fingerprint();
    let (mut a, mut m) = alice_and_mallory(&alice, &mallory).await;

    // Alice has seen Bob's version 1 (Bob alone); its exact bytes are kept.
    assert_eq!(alice.device_list(&bob_fp).await.unwrap().version(), 1);
    let v1 = newest_list_bytes(&admin, &bob_fp).await;
    // Bob binds a laptop with version 2; Mallory sees version 2.
    let (laptop, laptop_key) = bound_device(&bob, broker.addr(), root, "laptop").await;
    assert_eq!(mallory.device_list(&bob_fp).await.unwrap().version(), 2);
    // The broker withholds version 2: Bob's topic holds version 1 again,
    // which Alice accepted before (no rollback for her to see).
    roll_back(&admin, &bob_fp, &v1).await;
    assert_eq!(alice.device_list(&bob_fp).await.unwrap().version(), 1);

    let epoch = a.epoch();
    m.add_devices(std::slice::from_ref(laptop_key.public_key()))
        .await
        .expect("mallory commits the add");
    let events = receive_until(&mut a, |e| matches!(e, Event::LeafRefused { .. })).await;
    let r = refused(&events);
    assert_eq!(r.len(), 1, "{events:#?}");
    assert_eq!((r[0].0, r[0].1), (bob_fp, *laptop.fingerprint()));
    assert!(
        r[0].2.contains("names version 2") && r[0].2.contains("withheld"),
        "refused because version 1 is older than the binding's 2: {}",
        r[0].2
    );
    assert_eq!(a.epoch(), epoch);
    assert!(
        !a.members()
            .iter()
            .any(|x| x.device == *laptop.fingerprint())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_device_is_removed_by_its_account_and_members_see_who_and_when() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = dir.path();
    let alice1 = account_device(broker.addr(), root, "alice1", 2).await;
    let (alice2, alice2_key) = bound_device(&alice1, broker.addr(), root, "alice2").await;
    let bob = account_device(broker.addr(), root, "bob", 2).await;
    let alice = *alice1.account().fingerprint();

    let mut a1 = alice1.create_conversation().await.unwrap();
    a1.invite(bob.account().fingerprint()).await.unwrap();
    a1.invite(&alice).await.unwrap();
    bob.accept_welcomes().await.unwrap();
    alice2.accept_welcomes().await.unwrap();
    let topic = a1.topic().to_owned();
    let mut convs = vec![
        bob.conversation(&topic).unwrap(),
        alice2.conversation(&topic).unwrap(),
    ];
    drain(&mut convs).await;
    let mut a2 = convs.pop().unwrap();
    let mut b = convs.pop().unwrap();
    assert_eq!(a1.members().len(), 3);
    // What the dropped device's disk holds now (a device that keeps its state).
    copy_state(root, "alice2", "alice2-old");
    drop(a1);

    let before = now_ms();
    let (list, topics) = alice1.drop_device(alice2.fingerprint()).await.unwrap();
    let after = now_ms();
    assert_eq!(topics, vec![topic.clone()], "removed where it was a member");

    let events = receive_until(&mut b, |e| matches!(e, Event::DeviceRemoved { .. })).await;
    let removed: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::DeviceRemoved {
                account,
                device,
                by_device,
                at,
                list_version,
                ..
            } => Some((*account, *device, *by_device, *at, *list_version)),
            _ => None,
        })
        .collect();
    assert_eq!(removed.len(), 1, "{events:#?}");
    let (account, device, by, at, version) = removed[0];
    assert_eq!(account, alice);
    assert_eq!(device, *alice2.fingerprint());
    assert_eq!(by, *alice1.fingerprint(), "who removed it");
    assert!(
        (before..=after).contains(&at),
        "when: {before} ≤ {at} ≤ {after}"
    );
    assert_eq!(version, list.version());
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::MemberRemoved { .. })),
        "told once, as a dropped device: {events:#?}"
    );
    assert_eq!(b.members().len(), 2);

    let events = receive_until(&mut a2, |e| matches!(e, Event::Removed { .. })).await;
    assert!(a2.is_removed(), "{events:#?}");

    b.send_text("after the drop").await.unwrap();
    let mut a1 = alice1.conversation(&topic).unwrap();
    let got = receive_until(&mut a1, |e| matches!(e, Event::Message { .. })).await;
    assert_eq!(texts(&got), vec!["after the drop"]);
    // The dropped device's old state opens nothing sent after.
    let old = open_device(broker.addr(), root, "alice2-old", alice2_key).await;
    let mut o = old.conversation(&topic).unwrap();
    o.catch_up().await.unwrap();
    let seen = o.receive(Duration::ZERO).await.unwrap();
    assert!(texts(&seen).is_empty(), "{seen:#?}");
    assert!(o.is_removed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_device_of_the_account_removes_a_dropped_one_when_it_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = dir.path();
    let alice1 = account_device(broker.addr(), root, "alice1", 2).await;
    let (alice2, alice2_key) = bound_device(&alice1, broker.addr(), root, "alice2").await;
    let (alice3, alice3_key) = bound_device(&alice1, broker.addr(), root, "alice3").await;
    let bob = account_device(broker.addr(), root, "bob", 2).await;
    // Bob's group has Alice's second and third devices, not her first.
    let mut b = bob.create_conversation().await.unwrap();
    b.add_devices(&[
        alice2_key.public_key().clone(),
        alice3_key.public_key().clone(),
    ])
    .await
    .unwrap();
    alice2.accept_welcomes().await.unwrap();
    alice3.accept_welcomes().await.unwrap();
    let mut a3 = alice3.conversation(b.topic()).unwrap();
    // The account drops the second device (no group of its own to act in).
    let (_, topics) = alice1.drop_device(alice2.fingerprint()).await.unwrap();
    assert!(topics.is_empty());
    // The third device, catching up, commits the Remove.
    a3.catch_up().await.unwrap();
    assert!(
        !a3.members()
            .iter()
            .any(|m| m.device == *alice2.fingerprint())
    );
    let events = receive_until(&mut b, |e| matches!(e, Event::DeviceRemoved { .. })).await;
    assert!(
        events.iter().any(|e| matches!(e, Event::DeviceRemoved { by_device, .. } if by_device == alice3.fingerprint())),
        "{events:#?}"
    );
}

fn now_ms() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// A Welcome's tree holding a member whose device its account dropped (and
/// no device of that account has removed yet) is accepted, and the joiner
/// is told: `DeviceNotListed` names the device and the list version that
/// no longer lists it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_welcome_with_a_dropped_member_is_accepted_and_the_joiner_told() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = dir.path();
    let alice = account_device(broker.addr(), root, "alice", 2).await;
    let bob = account_device(broker.addr(), root, "bob", 2).await;
    let carol = account_device(broker.addr(), root, "carol", 2).await;
    let (laptop, laptop_key) = bound_device(&bob, broker.addr(), root, "laptop").await;
    let bob_fp = *bob.account().fingerprint();
    // Alice's group has Bob's laptop, not his account device.
    let mut a = alice.create_conversation().await.unwrap();
    a.add_devices(std::slice::from_ref(laptop_key.public_key()))
        .await
        .unwrap();
    assert_eq!(laptop.accept_welcomes().await.unwrap(), vec![a.topic()]);
    // Bob's account drops the laptop: no group of its own to remove it
    // from, so it stays a member for now.
    let (v3, topics) = bob.drop_device(laptop.fingerprint()).await.unwrap();
    assert!(topics.is_empty());
    assert_eq!(v3.version(), 3);
    assert!(
        a.members()
            .iter()
            .any(|m| m.device == *laptop.fingerprint())
    );

    a.invite(carol.account().fingerprint()).await.unwrap();
    assert_eq!(
        carol.accept_welcomes().await.unwrap(),
        vec![a.topic()],
        "accepted: the laptop's binding (version 2) is valid"
    );
    let mut c = carol.conversation(a.topic()).unwrap();
    let events = c.receive(Duration::ZERO).await.unwrap();
    let not_listed: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::DeviceNotListed {
                account,
                device,
                list_version,
                ..
            } => Some((*account, *device, *list_version)),
            _ => None,
        })
        .collect();
    assert_eq!(
        not_listed,
        vec![(bob_fp, *laptop.fingerprint(), 3)],
        "{events:#?}"
    );
}

/// A Welcome whose tree holds a leaf whose account's list the broker
/// withholds at the binding's version is refused, and the caller is told
/// which Welcome, which leaf, and why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_welcome_with_a_leaf_whose_list_is_withheld_is_refused_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = dir.path();
    let admin = client(broker.addr()).await;
    let alice = account_device(broker.addr(), root, "alice", 2).await;
    let bob = account_device(broker.addr(), root, "bob", 2).await;
    let carol = account_device(broker.addr(), root, "carol", 2).await;
    let bob_fp = *bob.account().fingerprint();
    let v1 = newest_list_bytes(&admin, &bob_fp).await;
    // Bob's laptop is bound with version 2 and in Alice's group.
    let (laptop, laptop_key) = bound_device(&bob, broker.addr(), root, "laptop").await;
    let mut a = alice.create_conversation().await.unwrap();
    a.add_devices(std::slice::from_ref(laptop_key.public_key()))
        .await
        .unwrap();
    a.invite(carol.account().fingerprint()).await.unwrap();
    // The broker withholds version 2 from Carol, who never saw Bob's list.
    roll_back(&admin, &bob_fp, &v1).await;

    let welcomes = carol.accept_welcomes_reporting().await.unwrap();
    assert!(welcomes.joined.is_empty(), "{welcomes:#?}");
    assert_eq!(welcomes.refused.len(), 1, "{welcomes:#?}");
    let r = &welcomes.refused[0];
    assert_eq!(r.offset, 0, "the first record of Carol's welcome topic");
    assert_eq!((r.account, r.device), (bob_fp, *laptop.fingerprint()));
    assert!(
        r.reason.contains("names version 2") && r.reason.contains("withheld"),
        "{}",
        r.reason
    );
    assert!(carol.conversations().unwrap().is_empty(), "nothing joined");
    // Reported once: the Welcome is behind the cursor now.
    assert_eq!(
        carol.accept_welcomes_reporting().await.unwrap(),
        Default::default()
    );
}
