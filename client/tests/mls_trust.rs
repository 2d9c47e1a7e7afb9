//! Who is who (issue 37): a device remembers the newest device list it
//! accepted per account (trust on first use), in its state directory, and
//! refuses what a broker with admin rights can do to `dir.<account>`: a
//! list signed by another key, an older list served again (a rollback,
//! the topic deleted and refilled), another list at the version already
//! accepted (equivocation). Two concurrent publishes of one account's list
//! are not equivocation: conditional produce orders them.

mod support;

use hermit_client::crypto::Identity;
use hermit_client::mls::device_list::{DeviceList, ListedDevice};
use hermit_client::mls::{ConversationError, DeviceListError};
use support::mls::*;
use support::*;

fn refusal(e: ConversationError) -> DeviceListError {
    match e {
        ConversationError::DeviceList(d) => d,
        other => panic!("not a device-list refusal: {other}"),
    }
}

#[tokio::test]
async fn forged_rolled_back_and_equivocating_lists_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let (alice, alice_key) = account_device_with_key(broker.addr(), root.path(), "alice", 1).await;
    let (bob, bob_key) = account_device_with_key(broker.addr(), root.path(), "bob", 1).await;
    let bob_fp = *bob.fingerprint();
    // The broker's admin (auth is off: anyone may do anything).
    let admin = client(broker.addr()).await;

    // Trust on first use: Alice accepts Bob's first list.
    let v1 = alice.device_list(&bob_fp).await.expect("first list");
    assert_eq!(v1.version(), 1);
    assert_eq!(alice.device_list_version_seen(&bob_fp), Some(1));
    let v1_bytes = v1.sign(&bob_key);

    // Bob adds a device: version 2, accepted.
    let laptop = Identity::generate().unwrap();
    bob.publish_device_list(std::slice::from_ref(laptop.public_key()))
        .await
        .expect("v2");
    assert_eq!(alice.device_list(&bob_fp).await.expect("v2").version(), 2);

    // A forged list for Bob, signed by Mallory's key.
    let mallory = Identity::generate().unwrap();
    let forged = DeviceList::new(
        mallory.public_key(),
        3,
        1,
        vec![ListedDevice {
            key: mallory.public_key().to_sec1_uncompressed(),
            added_at: 1,
        }],
    )
    .unwrap()
    .sign(&mallory);
    write_list(&admin, &bob_fp, &forged).await;
    let e = refusal(alice.device_list(&bob_fp).await.expect_err("forged"));
    assert!(matches!(e, DeviceListError::WrongAccount { .. }), "{e}");

    // A rollback: the topic emptied and Bob's (authentic) version 1 put back.
    refill(&admin, &bob_fp).await;
    write_list(&admin, &bob_fp, &v1_bytes).await;
    let e = refusal(alice.device_list(&bob_fp).await.expect_err("rollback"));
    assert!(
        matches!(
            e,
            DeviceListError::RolledBack {
                found: 1,
                seen: 2,
                ..
            }
        ),
        "{e}"
    );
    // The topic emptied altogether is a rollback too, not "no list".
    refill(&admin, &bob_fp).await;
    let e = refusal(alice.device_list(&bob_fp).await.expect_err("gone"));
    assert!(matches!(e, DeviceListError::RolledBack { .. }), "{e}");

    // Equivocation: another list Bob's key signed, with the version 2 Alice accepted.
    let other_v2 = DeviceList::new(
        bob_key.public_key(),
        2,
        7,
        vec![ListedDevice {
            key: bob_key.public_key().to_sec1_uncompressed(),
            added_at: 7,
        }],
    )
    .unwrap()
    .sign(&bob_key);
    write_list(&admin, &bob_fp, &other_v2).await;
    let e = refusal(alice.device_list(&bob_fp).await.expect_err("equivocation"));
    assert!(
        matches!(e, DeviceListError::Equivocation { version: 2, .. }),
        "{e}"
    );

    // The memory is in Alice's state directory: a restart refuses the same.
    drop(alice);
    let reopened = open_device(broker.addr(), root.path(), "alice", alice_key).await;
    assert_eq!(reopened.device_list_version_seen(&bob_fp), Some(2));
    let e = refusal(
        reopened
            .device_list(&bob_fp)
            .await
            .expect_err("after a restart"),
    );
    assert!(matches!(e, DeviceListError::Equivocation { .. }), "{e}");

    // A newer list Bob signs is accepted again.
    let v3 = DeviceList::new(bob_key.public_key(), 3, 9, v1.devices().to_vec())
        .unwrap()
        .sign(&bob_key);
    write_list(&admin, &bob_fp, &v3).await;
    assert_eq!(
        reopened.device_list(&bob_fp).await.expect("v3").version(),
        3
    );
}

#[tokio::test]
async fn two_publishers_of_one_account_do_not_equivocate() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let alice = account_device(broker.addr(), root.path(), "alice", 1).await;
    let (bob, bob_key) = account_device_with_key(broker.addr(), root.path(), "bob", 1).await;
    // The account key in a second process (another state directory).
    let bob_again = open_device(broker.addr(), root.path(), "bob-again", bob_key.clone()).await;
    let (phone, laptop) = (Identity::generate().unwrap(), Identity::generate().unwrap());
    let (a, b) = tokio::join!(
        bob.publish_device_list(std::slice::from_ref(phone.public_key())),
        bob_again.publish_device_list(std::slice::from_ref(laptop.public_key())),
    );
    let (a, b) = (a.expect("first publisher"), b.expect("second publisher"));
    let mut versions = [a.version(), b.version()];
    versions.sort_unstable();
    assert_eq!(
        versions,
        [2, 3],
        "one after the other, never one version twice"
    );
    let list = alice
        .device_list(bob.fingerprint())
        .await
        .expect("accepted");
    assert_eq!(list.version(), 3);
    for d in [&phone, &laptop] {
        assert!(
            list.lists(&d.public_key().to_sec1_uncompressed()),
            "both devices listed"
        );
    }
}

/// A broker that lost or withholds an account's own list (a replaced
/// broker, the topic emptied) does not stop the account: its device goes on
/// from the list it published last, at the next version and with the same
/// devices — it neither refuses its own account (a rollback of a list it
/// signed) nor starts over at version 1 with its other devices dropped.
/// Another list at its own accepted version is still refused.
#[tokio::test]
async fn the_account_goes_on_from_its_own_list_when_the_broker_lost_it() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let admin = client(broker.addr()).await;
    let alice = account_device(broker.addr(), root.path(), "alice", 1).await;
    let (bob, bob_key) = account_device_with_key(broker.addr(), root.path(), "bob", 1).await;
    let phone = Identity::generate().unwrap();
    let v = bob
        .publish_device_list(std::slice::from_ref(phone.public_key()))
        .await
        .expect("publish")
        .version();
    let bob_fp = *bob.fingerprint();
    refill(&admin, &bob_fp).await;
    let next = bob
        .publish_device_list(&[])
        .await
        .expect("the account goes on from its own list");
    assert_eq!(next.version(), v + 1, "the next version, not 1");
    assert!(
        next.lists(&phone.public_key().to_sec1_uncompressed()),
        "its other devices stay listed"
    );
    assert_eq!(
        alice
            .device_list(&bob_fp)
            .await
            .expect("others read it")
            .version(),
        v + 1
    );
    refill(&admin, &bob_fp).await;
    let again = bob.resign_device_list_if_old().await.expect("re-sign");
    assert_eq!(
        again.map(|l| l.version()),
        Some(v + 2),
        "a list the broker lost is published again, though fresh"
    );
    assert!(
        bob.resign_device_list_if_old()
            .await
            .expect("fresh")
            .is_none(),
        "served and fresh: nothing to re-sign"
    );
    // Someone with the account key signs another list at that version.
    let other = DeviceList::new(bob_key.public_key(), v + 2, 1, Vec::new())
        .unwrap()
        .sign(&bob_key);
    refill(&admin, &bob_fp).await;
    write_list(&admin, &bob_fp, &other).await;
    let e = bob
        .publish_device_list(&[])
        .await
        .expect_err("equivocation");
    assert!(
        matches!(refusal(e), DeviceListError::Equivocation { .. }),
        "another list at the accepted version stays refused"
    );
}

/// An ECDSA signature is malleable: anyone, the broker included, can turn
/// `s` into `n − s` without the key, and the list verifies as before. The
/// same list in its other encoding is the same list — not equivocation
/// (the memory and views compare what the account signed, not the bytes).
#[tokio::test]
async fn a_list_with_its_signature_re_encoded_is_the_same_list() {
    use p256::ecdsa::Signature;
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let admin = client(broker.addr()).await;
    let alice = account_device(broker.addr(), root.path(), "alice", 1).await;
    let (bob, bob_key) = account_device_with_key(broker.addr(), root.path(), "bob", 1).await;
    let bob_fp = *bob.fingerprint();
    let v = alice.device_list(&bob_fp).await.expect("v1").version() + 1;
    let listed = vec![ListedDevice {
        key: bob_key.public_key().to_sec1_uncompressed(),
        added_at: 1,
    }];
    let signed = DeviceList::new(bob_key.public_key(), v, 2, listed)
        .unwrap()
        .sign(&bob_key);
    write_list(&admin, &bob_fp, &signed).await;
    assert_eq!(alice.device_list(&bob_fp).await.expect("v2").version(), v);
    let n = signed.len();
    let sig = Signature::from_slice(&signed[n - 64..]).unwrap();
    let twin = Signature::from_scalars(sig.r().to_bytes(), (-*sig.s()).to_bytes()).unwrap();
    let mut malleated = signed.clone();
    malleated[n - 64..].copy_from_slice(&twin.to_bytes());
    assert_ne!(malleated, signed);
    write_list(&admin, &bob_fp, &malleated).await;
    let list = alice
        .device_list(&bob_fp)
        .await
        .expect("the same list, re-encoded: accepted");
    assert_eq!(list.version(), v);
}
