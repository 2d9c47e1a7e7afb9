//! Account-key rotation and device-list freshness (issue 37, docs/MLS.md
//! §4.2, §4.6) against a real broker: Bob rotates his account key; Alice's
//! contact shows the key change, nothing is sent to his old or new key
//! until she confirms, and confirming pins the new key (its list then
//! rolls back no more than any other). Statements a broker admin forges
//! are refused with a typed error and change nothing. A list signed long
//! ago is flagged stale; the account re-signs its list when it is old.

mod support;

use std::time::Duration;

use hermit_client::crypto::{Fingerprint, Identity};
use hermit_client::mls::device_list::{
    DEVICES_KEY, DeviceList, LIST_RESIGN_AFTER_MS, LIST_STALE_AFTER_MS, directory_topic,
};
use hermit_client::mls::{ConversationError, DeviceListError, ListedDevice};
use hermit_client::trust::{ROTATION_KEY, RotationError, RotationStatement};
use hermit_client::{Cleanup, Client, TopicSettings};
use p256::ecdsa::signature::Signer as _;
use p256::pkcs8::DecodePrivateKey as _;
use support::mls::*;
use support::*;

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The offset the next record of `topic` will get.
async fn end_of(c: &Client, topic: &str) -> u64 {
    c.fetch(topic, 0, 0, 1 << 20, Duration::ZERO)
        .await
        .expect("fetch")
        .high_watermark
}

fn key_changed(e: ConversationError) -> (Fingerprint, Fingerprint) {
    match e {
        ConversationError::KeyChanged { account, new } => (account, new),
        other => panic!("not a key-changed refusal: {other}"),
    }
}

fn rotation_refusal(e: ConversationError) -> RotationError {
    match e {
        ConversationError::Rotation(r) => r,
        other => panic!("not a rotation refusal: {other}"),
    }
}

#[tokio::test]
async fn a_rotation_blocks_sending_to_either_key_until_confirmed() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let Pair {
        alice,
        bob,
        bob_key,
        mut a,
        ..
    } = pair(broker.addr(), root.path()).await;
    let admin = client(broker.addr()).await;
    let bob_fp = *bob.account().fingerprint();
    alice.add_contact(&bob_fp, "Bob").await.expect("contact");
    alice.set_verified(&bob_fp, true).expect("verified");
    assert_eq!(alice.rotation_of(&bob_fp).await.expect("none"), None);

    // Bob's new account key, a new account with a state directory of its own.
    let new_key = Identity::generate().unwrap();
    let bob_new = open_device(broker.addr(), root.path(), "bob-new", new_key.clone()).await;
    let new_fp = *new_key.fingerprint();
    bob_new.publish_key_packages(2).await.expect("key packages");
    let statement = bob.publish_rotation(&bob_new).await.expect("rotate");
    let statement_bytes = statement.encode();
    assert_eq!(statement.new_key(), new_key.public_key());
    assert_eq!(
        alice.rotation_of(&bob_fp).await.expect("valid"),
        Some(statement)
    );
    assert_eq!(alice.device_list_version_seen(&new_fp), None);

    // Alice refreshes the contacts of her group: Bob's key changed.
    let seen = a.refresh_contacts(&[]).await.expect("refresh");
    assert_eq!(seen.len(), 1);
    let bob_contact = alice.contact("Bob").unwrap().unwrap();
    let pending = bob_contact.pending.clone().expect("a pending rotation");
    assert_eq!(pending.new, *new_key.public_key());
    assert!(!bob_contact.verified(), "verified is reset");
    assert_eq!(
        bob_contact.account.fingerprint(),
        &bob_fp,
        "not yet replaced"
    );

    // Nothing is sent: no message, no invite of either key, no add.
    let end = end_of(&admin, a.topic()).await;
    let e = a.send_text("to the old key").await.expect_err("blocked");
    assert_eq!(key_changed(e), (bob_fp, new_fp));
    let e = a.invite(&new_fp).await.expect_err("blocked");
    assert_eq!(key_changed(e), (bob_fp, new_fp));
    let e = a
        .add_devices(std::slice::from_ref(new_key.public_key()))
        .await
        .expect_err("blocked");
    assert_eq!(key_changed(e), (bob_fp, new_fp));
    // Another conversation, with only the new key invited: blocked too.
    let mut other = alice.create_conversation().await.expect("create");
    let e = other.invite(&new_fp).await.expect_err("blocked");
    assert_eq!(key_changed(e), (bob_fp, new_fp));
    // There, another device of Bob's old account (its own fingerprint, its
    // binding naming the old account): not added either.
    let (_laptop, laptop_key) = bound_device(&bob, broker.addr(), root.path(), "bob-laptop").await;
    let other_end = end_of(&admin, other.topic()).await;
    let e = other
        .add_devices(std::slice::from_ref(laptop_key.public_key()))
        .await
        .expect_err("blocked");
    assert_eq!(key_changed(e), (bob_fp, new_fp));
    assert_eq!(end_of(&admin, other.topic()).await, other_end);
    assert_eq!(
        end_of(&admin, a.topic()).await,
        end,
        "nothing reached the group"
    );
    // A refresh again keeps the change (and does not restart it).
    alice.refresh_contact(&bob_fp).await.expect("again");
    assert_eq!(
        alice.contact("Bob").unwrap().unwrap().pending,
        Some(pending.clone())
    );
    // Another statement under Bob's old key — its owner's, or a thief's,
    // dated earlier than the pending one — is a change of its own, shown
    // in its place; then Bob's own statement again.
    let other = Identity::generate().unwrap();
    let second = RotationStatement::sign(&bob_key, &other, pending.issued_at - 1).unwrap();
    write_dir(&admin, &bob_fp, ROTATION_KEY, &second.encode()).await;
    alice
        .refresh_contact(&bob_fp)
        .await
        .expect("a second change");
    let shown = alice.contact("Bob").unwrap().unwrap().pending.unwrap();
    assert_eq!(
        &shown.new,
        other.public_key(),
        "the other statement is shown"
    );
    write_dir(&admin, &bob_fp, ROTATION_KEY, &statement_bytes).await;
    alice.refresh_contact(&bob_fp).await.expect("Bob's again");
    assert_eq!(
        alice
            .contact("Bob")
            .unwrap()
            .unwrap()
            .pending
            .map(|p| p.new),
        Some(pending.new.clone())
    );

    // Confirming pins the new key, keeps the name, verified stays reset.
    let confirmed = alice.confirm_rotation(&bob_fp).await.expect("confirm");
    assert_eq!(confirmed.account, *new_key.public_key());
    assert_eq!(confirmed.name, "Bob");
    assert!(!confirmed.verified() && !confirmed.key_changed());
    // The new account's list was fetched and pinned by the confirmation.
    assert_eq!(alice.device_list_version_seen(&new_fp), Some(1));
    a.send_text("after confirming").await.expect("sent");
    a.invite(&new_fp).await.expect("the new account invited");
    assert!(end_of(&admin, a.topic()).await > end);

    // The new account's list is pinned like any other: a rollback after
    // confirming is refused.
    let v1 = admin
        .fetch(&directory_topic(&new_fp), 0, 0, 1 << 20, Duration::ZERO)
        .await
        .unwrap()
        .records_from(0)
        .map(|r| r.unwrap())
        .find(|r| r.key.as_ref() == DEVICES_KEY)
        .expect("v1")
        .value;
    let laptop = Identity::generate().unwrap();
    bob_new
        .publish_device_list(std::slice::from_ref(laptop.public_key()))
        .await
        .expect("v2");
    alice.refresh_contact(&new_fp).await.expect("v2 seen");
    assert_eq!(alice.device_list_version_seen(&new_fp), Some(2));
    let topic = directory_topic(&new_fp);
    admin.delete_topic(&topic).await.unwrap();
    admin
        .create_topic(
            &topic,
            TopicSettings {
                partitions: 1,
                cleanup: Cleanup::Compact,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .await
        .unwrap();
    write_dir(&admin, &new_fp, DEVICES_KEY, &v1).await;
    let e = alice.refresh_contact(&new_fp).await.expect_err("rollback");
    assert!(
        matches!(
            e,
            ConversationError::DeviceList(DeviceListError::RolledBack {
                found: 1,
                seen: 2,
                ..
            })
        ),
        "{e}"
    );
}

/// A raw signature by `who` over the rotation message of `old`, `new`,
/// `at`, made outside the SDK (as a forger would).
fn sign_raw(who: &Identity, old: &[u8; 65], new: &[u8; 65], at: u64) -> Vec<u8> {
    let secret = p256::SecretKey::from_pkcs8_der(&who.to_pkcs8_der()).unwrap();
    let mut m = b"HermitMQ account rotation v1\0".to_vec();
    m.extend_from_slice(old);
    m.extend_from_slice(new);
    m.extend_from_slice(&at.to_be_bytes());
    let sig: p256::ecdsa::Signature = p256::ecdsa::SigningKey::from(&secret).sign(&m);
    sig.normalize_s().to_bytes().to_vec()
}

/// A statement naming `old` and `new`, signed by `signers`.
fn forged(old: &Identity, new: &Identity, signers: [&Identity; 2]) -> Vec<u8> {
    let (o, n) = (
        old.public_key().to_sec1_uncompressed(),
        new.public_key().to_sec1_uncompressed(),
    );
    let at = now_ms();
    let mut out = b"HMQR\x01".to_vec();
    out.extend_from_slice(&o);
    out.extend_from_slice(&n);
    out.extend_from_slice(&at.to_be_bytes());
    for s in signers {
        out.extend_from_slice(&sign_raw(s, &o, &n, at));
    }
    out
}

/// Whether a refusal is the one a case expects.
type Expected = fn(&RotationError) -> bool;

#[tokio::test]
async fn forged_rotations_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let Pair {
        alice,
        bob,
        bob_key,
        mut a,
        ..
    } = pair(broker.addr(), root.path()).await;
    let admin = client(broker.addr()).await;
    let bob_fp = *bob.account().fingerprint();
    alice.add_contact(&bob_fp, "Bob").await.expect("contact");
    alice.set_verified(&bob_fp, true).expect("verified");
    let before = alice.contact("Bob").unwrap().unwrap();
    let mallory = Identity::generate().unwrap();
    let carol = Identity::generate().unwrap();

    let cases: Vec<(&str, Vec<u8>, Expected)> = vec![
        (
            "signed by Mallory for Bob's key",
            forged(&bob_key, &mallory, [&mallory, &mallory]),
            |e| matches!(e, RotationError::BadOldSignature { .. }),
        ),
        (
            "only the new key's signature valid",
            forged(&bob_key, &mallory, [&carol, &mallory]),
            |e| matches!(e, RotationError::BadOldSignature { .. }),
        ),
        (
            "Bob's signature but not the new key's",
            forged(&bob_key, &mallory, [&bob_key, &carol]),
            |e| matches!(e, RotationError::BadNewSignature { .. }),
        ),
        (
            "a valid statement of another account filed under Bob's",
            RotationStatement::sign(&carol, &mallory, now_ms())
                .unwrap()
                .encode(),
            |e| matches!(e, RotationError::WrongAccount { .. }),
        ),
        (
            "truncated",
            RotationStatement::sign(&bob_key, &mallory, now_ms())
                .unwrap()
                .encode()[..270]
                .to_vec(),
            |e| matches!(e, RotationError::Malformed(_)),
        ),
        (
            // Validly signed (a thief of Bob's key could), but dated two
            // days ahead so that Bob's own later statement would never look
            // newer: refused.
            "dated two days after the reader's clock",
            RotationStatement::sign(&bob_key, &mallory, now_ms() + 2 * 24 * 3600 * 1000)
                .unwrap()
                .encode(),
            |e| matches!(e, RotationError::FromTheFuture { .. }),
        ),
    ];
    for (name, bytes, expected) in cases {
        write_dir(&admin, &bob_fp, ROTATION_KEY, &bytes).await;
        let e = rotation_refusal(alice.rotation_of(&bob_fp).await.expect_err(name));
        assert!(expected(&e), "{name}: {e}");
        let e = rotation_refusal(a.refresh_contacts(&[]).await.expect_err(name));
        assert!(expected(&e), "{name}: {e}");
        assert_eq!(
            alice.contact("Bob").unwrap().unwrap(),
            before,
            "{name}: the contact stays as it was"
        );
        // Not a key change: nothing is blocked by a refused statement.
        a.send_text(name).await.expect("sending still works");
    }
}

/// Bob's list re-signed by the test at `issued_at`, `version`, with the
/// devices of `list`.
fn list_at(bob_key: &Identity, list: &DeviceList, version: u64, issued_at: u64) -> Vec<u8> {
    let devices: Vec<ListedDevice> = list.devices().to_vec();
    DeviceList::new(bob_key.public_key(), version, issued_at, devices)
        .unwrap()
        .sign(bob_key)
}

#[tokio::test]
async fn a_list_signed_long_ago_is_stale_and_the_account_re_signs_an_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let root = tempfile::tempdir().unwrap();
    let alice = account_device(broker.addr(), root.path(), "alice", 1).await;
    let (bob, bob_key) = account_device_with_key(broker.addr(), root.path(), "bob", 1).await;
    let admin = client(broker.addr()).await;
    let bob_fp = *bob.account().fingerprint();
    alice.add_contact(&bob_fp, "Bob").await.expect("contact");
    let v1 = alice.device_list(&bob_fp).await.expect("v1");
    assert!(
        !alice.refresh_contact(&bob_fp).await.unwrap().stale,
        "fresh"
    );

    // A list signed 31 days ago (the broker may be withholding newer ones).
    let old = now_ms() - LIST_STALE_AFTER_MS - 24 * 3600 * 1000;
    write_dir(
        &admin,
        &bob_fp,
        DEVICES_KEY,
        &list_at(&bob_key, &v1, 2, old),
    )
    .await;
    let status = alice.refresh_contact(&bob_fp).await.expect("refresh");
    assert_eq!(status.list.version(), 2);
    assert!(status.stale, "flagged stale");
    assert!(status.list.is_stale(now_ms()));

    // Bob's own device publishes KeyPackages: the old list is re-signed,
    // same devices, version + 1, issued now.
    bob.publish_key_packages(1).await.expect("publish");
    let resigned = alice.device_list(&bob_fp).await.expect("re-signed");
    assert_eq!(resigned.version(), 3);
    assert_eq!(resigned.devices(), v1.devices());
    assert!(now_ms() - resigned.issued_at() < 60_000);
    assert!(!alice.refresh_contact(&bob_fp).await.unwrap().stale);

    // Six days old: not re-signed yet.
    let recent = now_ms() - LIST_RESIGN_AFTER_MS + 24 * 3600 * 1000;
    write_dir(
        &admin,
        &bob_fp,
        DEVICES_KEY,
        &list_at(&bob_key, &v1, 4, recent),
    )
    .await;
    bob.publish_key_packages(1).await.expect("publish");
    assert_eq!(alice.device_list(&bob_fp).await.unwrap().version(), 4);
    // Eight days old: re-signed.
    let week = now_ms() - LIST_RESIGN_AFTER_MS - 24 * 3600 * 1000;
    write_dir(
        &admin,
        &bob_fp,
        DEVICES_KEY,
        &list_at(&bob_key, &v1, 5, week),
    )
    .await;
    assert_eq!(
        bob.resign_device_list_if_old()
            .await
            .expect("re-sign")
            .expect("old enough")
            .version(),
        6
    );
}
