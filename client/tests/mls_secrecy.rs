//! What a stolen device state opens, and what it does not (docs/MLS.md §7),
//! over a real broker: post-compromise security (a copy of Bob's state
//! opens up to Bob's self-update, nothing after), forward secrecy (after
//! the group moves on, Bob's state no longer holds what opens an old
//! record, while a copy taken before does), and device removal (a removed
//! device keeps what it had, and opens nothing sent after).

mod support;

use std::sync::Arc;
use std::time::Duration;

use hermit_client::crypto::Identity;
use hermit_client::local::StateDir;
use hermit_client::mls::config::PAST_EPOCHS;
use hermit_client::mls::group_file::{GroupFile, file_name};
use hermit_client::mls::{Conversation, Device, Event};
use support::mls::*;
use support::*;

/// Reads everything `c` can from its next offset; the events.
async fn read_all(c: &mut Conversation) -> Vec<Event> {
    c.catch_up().await.expect("catch up");
    let events = c.receive(Duration::ZERO).await.expect("receive");
    c.ack().expect("ack");
    events
}

/// Rewinds the copy's group file to `next` and forgets the hashes of
/// records seen (what processing a record again would need), keeping its
/// MLS state as it is.
fn rewind(root: &std::path::Path, name: &str, id: &Identity, group_id_hex: &str, next: u64) {
    let dir = root.join(name);
    let file = format!("mls-group-{group_id_hex}");
    let sealed = std::fs::read(dir.join(&file)).expect("group file");
    let mut g = GroupFile::open(id, &file, &sealed).expect("open group file");
    g.next = next;
    // The thief edits what it likes: no resend-rule memory either.
    g.recent.clear();
    std::fs::write(dir.join(&file), g.seal(id).expect("seal")).expect("write");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_of_bobs_state_opens_nothing_after_his_self_update() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let Pair {
        alice: _alice,
        bob: _bob,
        bob_key,
        mut a,
        mut b,
    } = pair(broker.addr(), dir.path()).await;
    // The thief copies Bob's state now.
    copy_state(dir.path(), "bob", "thief");
    a.send_text("before the update").await.unwrap();
    assert_eq!(texts(&read_all(&mut b).await), vec!["before the update"]);
    b.update().await.expect("self-update");
    a.catch_up().await.unwrap();
    let after = a.send_text("after the update").await.unwrap();
    let later = a.send_text("and later").await.unwrap();
    assert_eq!(
        texts(&read_all(&mut b).await),
        vec!["after the update", "and later"]
    );

    let thief = open_device(broker.addr(), dir.path(), "thief", bob_key).await;
    let mut t = thief
        .conversation(a.topic())
        .expect("the copy holds the group");
    let seen = read_all(&mut t).await;
    assert_eq!(
        texts(&seen),
        vec!["before the update"],
        "positive control: the copy opens what came before; nothing after: {seen:#?}"
    );
    // (Views messages, docs/MLS.md §4.7, sent after the update do not
    // decrypt either: the texts' own offsets are what counts.)
    let forks: Vec<u64> = seen
        .iter()
        .filter_map(|e| match e {
            Event::ForkSuspected { offset, .. } => Some(*offset),
            _ => None,
        })
        .filter(|o| [after, later].contains(o))
        .collect();
    assert_eq!(
        forks,
        vec![after, later],
        "the two later messages did not decrypt: {seen:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_group_moves_on_bobs_state_no_longer_opens_an_old_record() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let Pair {
        alice: _alice,
        bob,
        bob_key,
        mut a,
        mut b,
    } = pair(broker.addr(), dir.path()).await;
    let old_epoch = a.epoch();
    let old = a.send_text("the old record").await.unwrap();
    // A copy taken before Bob read it: the positive control.
    copy_state(dir.path(), "bob", "before");
    assert_eq!(texts(&read_all(&mut b).await), vec!["the old record"]);
    // The group moves on: more epochs than are kept.
    for _ in 0..=PAST_EPOCHS {
        a.update().await.unwrap();
    }
    read_all(&mut b).await;
    let group_hex = &a.topic()["mls.".len()..];
    let name = file_name(&hex_decode(group_hex));
    let sealed = std::fs::read(dir.path().join("bob").join(&name)).unwrap();
    let file = GroupFile::open(&bob_key, &name, &sealed).unwrap();
    assert!(
        !file.image.epochs.contains_key(&old_epoch),
        "epoch {old_epoch}'s secrets are deleted from Bob's state: kept {:?}",
        file.image.epochs.keys().collect::<Vec<_>>()
    );
    assert!(file.image.epochs.len() as u64 <= PAST_EPOCHS);
    drop(b);
    drop(bob);

    // Bob's state now, asked to process the old record again: nothing.
    copy_state(dir.path(), "bob", "after");
    rewind(dir.path(), "after", &bob_key, group_hex, old);
    let after = open_device(broker.addr(), dir.path(), "after", bob_key.clone()).await;
    let mut late = after.conversation(a.topic()).unwrap();
    let seen = read_all(&mut late).await;
    assert!(
        texts(&seen).is_empty(),
        "the advanced state opened the old record: {seen:#?}"
    );
    assert!(
        seen.iter()
            .any(|e| matches!(e, Event::RecordRefused { offset, .. } if *offset == old)),
        "{seen:#?}"
    );
    drop(late);
    drop(after);

    // Positive control: the copy from before the advance opens it.
    let before = open_device(broker.addr(), dir.path(), "before", bob_key).await;
    let mut early = before.conversation(a.topic()).unwrap();
    assert_eq!(texts(&read_all(&mut early).await), vec!["the old record"]);
}

fn hex_decode(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_device_keeps_the_past_and_opens_nothing_after() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    // Alice's first device holds her account key; her second is bound by it.
    let (alice1, _alice1_key) =
        account_device_with_key(broker.addr(), dir.path(), "alice1", 2).await;
    let alice2_key = Identity::generate().unwrap();
    let binding = alice1.bind(alice2_key.public_key()).await.unwrap();
    let alice2_dir = Arc::new(StateDir::open(dir.path().join("alice2")).unwrap());
    Device::store_binding(&alice2_dir, &alice2_key, &binding).unwrap();
    drop(alice2_dir);
    let alice2 = open_device(broker.addr(), dir.path(), "alice2", alice2_key.clone()).await;
    assert!(!alice2.is_account());
    assert_eq!(alice2.account(), alice1.account());
    alice2.publish_key_packages(2).await.unwrap();
    let bob = account_device(broker.addr(), dir.path(), "bob", 2).await;

    let mut a1 = alice1.create_conversation().await.unwrap();
    a1.invite(bob.account().fingerprint()).await.unwrap();
    // Inviting her own account adds her other device.
    a1.invite(alice1.account().fingerprint()).await.unwrap();
    bob.accept_welcomes().await.unwrap();
    alice2.accept_welcomes().await.unwrap();
    let mut b = bob.conversation(a1.topic()).unwrap();
    let mut a2 = alice2.conversation(a1.topic()).unwrap();
    read_all(&mut b).await;
    read_all(&mut a2).await;
    assert_eq!(a1.members().len(), 3);
    // A copy of the second device's state as it is now: a device that
    // keeps its old state after it is removed.
    copy_state(dir.path(), "alice2", "alice2-old");

    a1.send_text("from alice's first device").await.unwrap();
    a2.send_text("from alice's second device").await.unwrap();
    b.send_text("from bob").await.unwrap();
    let got_a1 = texts(&read_all(&mut a1).await);
    let got_a2 = texts(&read_all(&mut a2).await);
    let got_b = texts(&read_all(&mut b).await);
    assert_eq!(got_a1, vec!["from alice's second device", "from bob"]);
    assert_eq!(got_a2, vec!["from alice's first device", "from bob"]);
    assert_eq!(
        got_b,
        vec!["from alice's first device", "from alice's second device"]
    );

    drop(a2);
    drop(alice2);
    a1.remove_devices(&[*alice2_key.fingerprint()])
        .await
        .unwrap();
    b.catch_up().await.unwrap();
    a1.send_text("after the removal").await.unwrap();
    b.send_text("bob after the removal").await.unwrap();
    assert_eq!(a1.members().len(), 2);

    let old = open_device(broker.addr(), dir.path(), "alice2-old", alice2_key).await;
    let mut o = old.conversation(a1.topic()).unwrap();
    let seen = read_all(&mut o).await;
    assert_eq!(
        texts(&seen),
        vec!["from alice's first device", "from bob"],
        "positive control: what came before the removal opens, nothing after: {seen:#?}"
    );
    assert!(
        seen.iter().any(|e| matches!(e, Event::Removed { .. })),
        "it is told it was removed: {seen:#?}"
    );
    assert!(o.is_removed());
    assert!(matches!(
        o.send_text("still here?").await,
        Err(hermit_client::mls::ConversationError::Removed { .. })
    ));
}
