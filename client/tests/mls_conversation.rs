//! MLS conversations over a real broker on a real socket: create, invite
//! by account, join from the Welcome, messages both ways with the sender
//! as MLS authenticated it, every member on one epoch authenticator.

mod support;

use hermit_client::mls::{CommitOutcome, Event};
use support::mls::*;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_accounts_talk_after_an_invite() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let alice = account_device(broker.addr(), dir.path(), "alice", 3).await;
    let bob = account_device(broker.addr(), dir.path(), "bob", 3).await;

    let mut a = alice.create_conversation().await.expect("create");
    let outcome = a.invite(bob.account().fingerprint()).await.expect("invite");
    assert!(
        matches!(
            outcome,
            CommitOutcome::Committed {
                offset: 0,
                epoch: 1,
                attempts: 1
            }
        ),
        "{outcome:?}"
    );
    let joined = bob.accept_welcomes().await.expect("welcomes");
    assert_eq!(joined, vec![a.topic().to_owned()]);
    let mut b = bob.conversation(a.topic()).expect("open");
    assert_eq!(b.epoch(), 1);
    assert_eq!(b.next_offset(), 1, "the joiner starts after the Add commit");
    assert_eq!(
        a.epoch_authenticator().unwrap(),
        b.epoch_authenticator().unwrap()
    );
    assert_eq!(a.members(), b.members());

    a.send_text("hello bob").await.expect("send");
    let seen = receive_until(&mut b, |e| matches!(e, Event::Message { .. })).await;
    let Some(Event::Message { sender, text, .. }) =
        seen.iter().find(|e| matches!(e, Event::Message { .. }))
    else {
        unreachable!()
    };
    assert_eq!(text, "hello bob");
    assert_eq!(sender.account, *alice.account().fingerprint());
    assert_eq!(sender.device, *alice.fingerprint());

    b.send_text("hello alice").await.expect("send");
    let seen = receive_until(&mut a, |e| matches!(e, Event::Message { .. })).await;
    assert_eq!(texts(&seen), vec!["hello alice"]);
}

/// The same flow under `auth = "required"` and the chat-inbox preset alone
/// (docs/SECURITY.md §3): the preset holds every rule a conversation needs,
/// and a third principal who learns nothing but the topic reads only
/// ciphertext and cannot claim its way in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_inbox_preset_is_all_a_conversation_needs() {
    use hermit_broker::config::AuthMode;
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| {
        c.auth = AuthMode::Required;
        c.acl_preset = Some("chat-inbox".into());
    })
    .await;
    let alice = account_device(broker.addr(), dir.path(), "alice", 2).await;
    let bob = account_device(broker.addr(), dir.path(), "bob", 2).await;
    let mut a = alice.create_conversation().await.expect("create");
    a.invite(bob.account().fingerprint()).await.expect("invite");
    bob.accept_welcomes().await.expect("welcomes");
    let mut b = bob.conversation(a.topic()).expect("open");
    a.send_text("under the preset").await.expect("send");
    let seen = receive_until(&mut b, |e| matches!(e, Event::Message { .. })).await;
    assert_eq!(texts(&seen), vec!["under the preset"]);

    // Another principal may not read Bob's Welcomes nor publish
    // KeyPackages for him.
    let spy = hermit_client::Client::connect(
        broker.addr().to_string(),
        hermit_client::ClientOptions {
            identity: Some(std::sync::Arc::new(
                hermit_client::crypto::Identity::generate().unwrap(),
            )),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let welcome = hermit_client::mls::device::welcome_topic(bob.fingerprint());
    let err = spy
        .fetch(&welcome, 0, 0, 1 << 16, std::time::Duration::ZERO)
        .await
        .expect_err("another's welcomes are not readable");
    assert!(err.to_string().contains("not authorized"), "{err}");
    let kp = hermit_client::mls::device::key_package_topic(bob.fingerprint());
    let mut batch = hermit_protocol::BatchBuilder::new(b"");
    batch.push(b"a forged key package");
    let err = spy
        .produce(
            &kp,
            0,
            hermit_client::Ack::Durable,
            batch.finish(1).unwrap().into(),
        )
        .await
        .expect_err("another's KeyPackage topic is not writable");
    assert!(err.to_string().contains("not authorized"), "{err}");
}

/// What the broker stores of a conversation (docs/MLS.md §2): no
/// plaintext, no account or device fingerprint, no device key, no binding
/// in any group record or Welcome — only what the clear header says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_records_and_welcomes_carry_no_plaintext_key_or_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let alice = account_device(broker.addr(), dir.path(), "alice", 2).await;
    let bob = account_device(broker.addr(), dir.path(), "bob", 2).await;
    let mut a = alice.create_conversation().await.unwrap();
    a.invite(bob.account().fingerprint()).await.unwrap();
    bob.accept_welcomes().await.unwrap();
    let mut b = bob.conversation(a.topic()).unwrap();
    let secret_text = "the plaintext nobody but bob may see";
    a.send_text(secret_text).await.unwrap();
    b.update().await.unwrap();
    b.send_text("and bob's reply, equally private")
        .await
        .unwrap();
    receive_until(&mut a, |e| matches!(e, Event::Message { .. })).await;

    let mut needles: Vec<(String, Vec<u8>)> = vec![
        ("plaintext".into(), secret_text.as_bytes().to_vec()),
        ("reply".into(), b"equally private".to_vec()),
    ];
    for (who, d) in [("alice", &alice), ("bob", &bob)] {
        let key = d.account().to_sec1_uncompressed();
        needles.push((format!("{who} key"), key.to_vec()));
        needles.push((format!("{who} key x"), key[1..33].to_vec()));
        needles.push((format!("{who} spki"), d.account().spki_der().to_vec()));
        let fp = d.fingerprint();
        needles.push((format!("{who} fp"), fp.as_bytes().to_vec()));
        needles.push((format!("{who} fp hex"), fp.to_hex().into_bytes()));
        needles.push((format!("{who} kid"), fp.kid().as_bytes().to_vec()));
    }
    let raw = client(broker.addr()).await;
    let welcome = hermit_client::mls::device::welcome_topic(bob.fingerprint());
    let mut scanned = 0;
    for topic in [a.topic().to_owned(), welcome] {
        let resp = raw
            .fetch(&topic, 0, 0, 1 << 22, std::time::Duration::ZERO)
            .await
            .unwrap();
        for r in resp.records() {
            let r = r.unwrap();
            scanned += 1;
            for (what, needle) in &needles {
                assert!(
                    !r.value
                        .windows(needle.len())
                        .any(|w| w == needle.as_slice())
                        && !r.key.windows(needle.len()).any(|w| w == needle.as_slice()),
                    "{what} found in {topic} at offset {}",
                    r.offset
                );
            }
        }
    }
    assert!(scanned >= 5, "scanned {scanned} records");
    // Control: the same search finds Bob's key where it is public by design,
    // in his KeyPackages.
    let kp = hermit_client::mls::device::key_package_topic(bob.fingerprint());
    let resp = raw
        .fetch(&kp, 0, 0, 1 << 22, std::time::Duration::ZERO)
        .await
        .unwrap();
    let key = bob.account().to_sec1_uncompressed();
    assert!(resp.records().any(|r| {
        let r = r.unwrap();
        r.value.windows(key.len()).any(|w| w == key.as_slice())
    }));
}

/// Anyone may write to a device's Welcome topic: a device reads it one
/// fetch at a time (its memory stays one fetch's worth) and still finds
/// its Welcome behind megabytes of junk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_welcome_behind_megabytes_of_junk_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let alice = account_device(broker.addr(), dir.path(), "alice", 2).await;
    let bob = account_device(broker.addr(), dir.path(), "bob", 2).await;
    let raw = client(broker.addr()).await;
    let welcome = hermit_client::mls::device::welcome_topic(bob.fingerprint());
    for i in 0..40u8 {
        let mut batch = hermit_protocol::BatchBuilder::new(b"");
        batch.push(&vec![i; 100_000]);
        raw.produce(
            &welcome,
            0,
            hermit_client::Ack::Durable,
            batch.finish(1).unwrap().into(),
        )
        .await
        .unwrap();
    }
    let mut a = alice.create_conversation().await.unwrap();
    a.invite(bob.account().fingerprint()).await.unwrap();
    assert_eq!(
        bob.accept_welcomes().await.unwrap(),
        vec![a.topic().to_owned()]
    );
    assert!(
        bob.accept_welcomes().await.unwrap().is_empty(),
        "the cursor moved past what was read"
    );
}
