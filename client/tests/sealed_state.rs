//! What sealed consumers and producers keep across restarts (issue 19): the
//! replay state saved with every commit in the identity's state topic, the
//! DIRECT budgets reserved ahead of use, the bound on records that hold
//! commits back, and padding by default.

mod sealed_support;

use std::time::Duration;

use bytes::Bytes;
use hermit_client::crypto::seal::DIRECT_LIMIT;
use hermit_client::crypto::{Mode, WindowStart, envelope};
use hermit_client::sealed::RESERVATION_SIZE;
use hermit_client::sealed::state::state_topic;
use hermit_client::{
    ConsumerOptions, RecordErrorKind, Release, SealedConsumerOptions, SealedProducer,
    SealedProducerOptions, StartFrom, StateOrigin,
};
use sealed_support::*;

fn group(name: &str) -> ConsumerOptions {
    ConsumerOptions {
        group: Some(name.into()),
        start: StartFrom::Committed {
            fallback: hermit_client::Fallback::Earliest,
        },
        max_wait: Duration::from_millis(100),
        ..ConsumerOptions::default()
    }
}

/// Every record of `topic` partition 0 as stored: (offset, key, value).
async fn stored(env: &Env, topic: &str) -> Vec<(u64, Bytes, Bytes)> {
    let r = env
        .client
        .fetch(topic, 0, 0, 1 << 20, Duration::ZERO)
        .await
        .expect("fetch");
    r.records()
        .map(|rec| {
            let rec = rec.expect("valid batch");
            (rec.offset, rec.key, rec.value)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_replayed_after_a_restart_is_refused_as_a_duplicate() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob";
    for text in ["one", "two", "three"] {
        alice.send_to(topic, text.as_bytes(), &bob).await;
    }

    // Bob reads all three, commits (which saves his replay state), stops.
    let mut c = env
        .reader_with(&bob, &[&alice], topic, group("bob.chat"))
        .await;
    assert_eq!(c.state_origin(), StateOrigin::Fresh);
    for text in ["one", "two", "three"] {
        let r = opened(&mut c).await;
        assert_eq!(r.plaintext.as_bytes(), text.as_bytes());
        assert_eq!(
            r.window,
            if text == "one" {
                WindowStart::New
            } else {
                WindowStart::Continued
            }
        );
    }
    c.commit().await.expect("commit");
    c.close().await.expect("close");

    // Someone who can write to the topic (the broker's operator, anyone the
    // ACL lets produce) appends the second record again, byte for byte.
    let (_, _, old) = stored(&env, topic).await.remove(1);
    let replayed_at = env.produce_raw(topic, 0, b"", &old).await;
    alice.send_to(topic, b"four", &bob).await;

    // Bob restarts: the state is restored and the old record is a duplicate.
    let mut c = env
        .reader_with(&bob, &[&alice], topic, group("bob.chat"))
        .await;
    assert!(
        matches!(c.state_origin(), StateOrigin::Restored { senders: 1, .. }),
        "{:?}",
        c.state_origin()
    );
    let e = failed(&mut c).await;
    assert_eq!(e.offset, replayed_at);
    assert!(
        matches!(
            e.kind,
            RecordErrorKind::Open(hermit_client::crypto::OpenError::Replayed { .. })
        ),
        "{e}"
    );
    let r = opened(&mut c).await;
    assert_eq!(r.plaintext.as_bytes(), b"four");
    assert_eq!(r.window, WindowStart::Restored);

    // Without persistence the same restart opens the replay again.
    let mut plain = env
        .reader_with(
            &bob,
            &[&alice],
            topic,
            SealedConsumerOptions {
                persist_state: false,
                ..group("bob.chat").into()
            },
        )
        .await;
    assert_eq!(plain.state_origin(), StateOrigin::NotPersisted);
    assert_eq!(
        opened(&mut plain).await.offset,
        replayed_at,
        "the replay opens"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_topic_holds_no_sender_kid_seq_or_fingerprint_in_the_clear() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob2";
    let mut seqs = Vec::new();
    for i in 0..5u8 {
        let d = alice
            .sp
            .send(topic, None, &[i; 20], &[bob.public()])
            .await
            .expect("queued");
        seqs.push(d.seq());
        d.await.expect("delivered");
    }
    let mut c = env
        .reader_with(&bob, &[&alice], topic, group("bob.g"))
        .await;
    for _ in 0..5 {
        opened(&mut c).await;
    }
    c.commit().await.expect("commit");
    c.close().await.expect("close");

    let st = state_topic(&bob.id);
    let records = stored(&env, &st).await;
    assert_eq!(records.len(), 1, "one state record for one commit");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(env.data_dir().join("partitions")).unwrap() {
        let dir = dir.unwrap().path();
        if dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("{st}@"))
        {
            collect(&dir, &mut files);
        }
    }
    assert!(!files.is_empty());
    let mut needles: Vec<(String, Vec<u8>)> = vec![
        ("alice's kid".into(), alice.id.kid().as_bytes().to_vec()),
        (
            "alice's fingerprint".into(),
            alice.id.fingerprint().as_bytes().to_vec(),
        ),
        ("the group name".into(), b"bob.g".to_vec()),
        ("the topic name".into(), topic.as_bytes().to_vec()),
    ];
    for s in &seqs {
        needles.push((format!("seq {s}"), s.to_be_bytes().to_vec()));
        needles.push((format!("seq {s} (le)"), s.to_le_bytes().to_vec()));
    }
    for f in &files {
        let bytes = std::fs::read(f).expect("read");
        for (what, needle) in &needles {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == &needle[..]),
                "{what} found in {}",
                f.display()
            );
        }
    }
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            collect(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_between_saving_the_state_and_committing_resumes_at_the_state() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob3";
    for i in 0..4u8 {
        alice.send_to(topic, &[i], &bob).await;
    }
    let mut c = env
        .reader_with(&bob, &[&alice], topic, group("bob.c"))
        .await;
    for _ in 0..4 {
        opened(&mut c).await;
    }
    c.commit().await.expect("commit");
    // The broker's commit is rolled back to 2, as if the process died after
    // the state record was written and before the commit reached the broker.
    env.client
        .commit("bob.c", topic, 0, 2)
        .await
        .expect("rewind");
    drop(c);
    let mut c = env
        .reader_with(&bob, &[&alice], topic, group("bob.c"))
        .await;
    assert_eq!(c.position(0), Some(4), "resumes where the state says");
    quiet(&mut c, Duration::from_millis(300)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unopenable_records_stop_holding_commits_after_max_held_and_are_listed() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob4";
    // Garbage addressed to no one in particular: each fails to open.
    let mut garbage = Vec::new();
    for i in 0..5u8 {
        garbage.push(env.produce_raw(topic, 0, b"", &[0x01, i, 9, 9]).await);
    }
    alice.send_to(topic, b"real", &bob).await;
    let options = SealedConsumerOptions {
        max_held: 3,
        ..group("bob.h").into()
    };
    let mut c = env.reader_with(&bob, &[&alice], topic, options).await;
    let mut failures = Vec::new();
    let mut released = Vec::new();
    let mut real = None;
    while real.is_none() {
        match next(&mut c).await {
            Ok(r) => real = Some(r),
            Err(e) => match e.kind {
                RecordErrorKind::Released { why } => {
                    assert_eq!(why, Release::Count(3));
                    assert!(!e.holds_commit());
                    released.push(e.offset);
                }
                _ => {
                    assert!(e.holds_commit());
                    failures.push(e.offset);
                }
            },
        }
    }
    assert_eq!(failures, garbage, "every failure reported");
    assert_eq!(released, garbage[..2], "the two oldest released, in order");
    assert_eq!(c.held(), vec![(0, garbage[2..].to_vec())]);
    c.commit().await.expect("commit");
    let committed = env
        .client
        .committed("bob.h", topic, 0)
        .await
        .expect("committed");
    assert_eq!(
        committed,
        Some(garbage[2]),
        "the commit passed the released ones only"
    );

    // By age: a record held longer than max_held_age is released at the next call.
    let options = SealedConsumerOptions {
        max_held_age: Duration::from_millis(200),
        ..group("bob.age").into()
    };
    let mut c = env.reader_with(&bob, &[&alice], topic, options).await;
    for _ in 0..5 {
        assert!(failed(&mut c).await.holds_commit());
    }
    assert_eq!(opened(&mut c).await.plaintext.as_bytes(), b"real");
    // The age bound is the behaviour under test: let it pass.
    tokio::time::sleep(Duration::from_millis(250)).await;
    let mut aged = Vec::new();
    for _ in 0..5 {
        let e = failed(&mut c).await;
        assert!(
            matches!(
                e.kind,
                RecordErrorKind::Released {
                    why: Release::Age(_)
                }
            ),
            "{e}"
        );
        aged.push(e.offset);
    }
    assert_eq!(aged, garbage);
    assert!(c.held().is_empty());
}

/// A new sealed producer of `who`'s identity: a restart (nothing in memory).
fn restarted(env: &Env, who: &Party) -> SealedProducer {
    SealedProducer::new(
        &env.producer,
        who.id.clone(),
        SealedProducerOptions::default(),
    )
    .expect("sealer")
}

/// Sends one record from `sp` to `to` alone and waits for its delivery;
/// returns the mode it was sealed in.
async fn send_direct(sp: &SealedProducer, topic: &str, text: &[u8], to: &Party) -> Mode {
    let d = sp
        .send(topic, None, text, &[to.public()])
        .await
        .expect("queued");
    let mode = d.mode();
    d.await.expect("delivered");
    mode
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_switches_to_multi_before_the_budget_across_restarts() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob5";
    // Near the end of the budget (as if after many records), one more DIRECT.
    alice
        .sp
        .restore_direct_seals(&bob.public(), DIRECT_LIMIT - 2);
    assert_eq!(
        send_direct(&alice.sp, topic, b"late in the key's life", &bob).await,
        Mode::Direct
    );

    // A restart: a new sealed producer of the same identity knows nothing in
    // memory, but its first record to Bob loads the reserved count.
    let again = restarted(&env, &alice);
    assert_eq!(again.direct_seals(bob.id.fingerprint()), 0);
    assert_eq!(
        send_direct(&again, topic, b"after the restart", &bob).await,
        Mode::Multi,
        "the persisted count is past the limit"
    );
    assert!(again.direct_seals(bob.id.fingerprint()) >= DIRECT_LIMIT);

    // Without persistence the same restart would have gone on with DIRECT.
    let forgetful = SealedProducer::new(
        &env.producer,
        alice.id.clone(),
        SealedProducerOptions {
            persist_budgets: false,
            ..SealedProducerOptions::default()
        },
    )
    .expect("sealer");
    assert_eq!(
        send_direct(&forgetful, topic, b"x", &bob).await,
        Mode::Direct
    );
}

/// A DIRECT reservation used up in the middle of a run is saved again
/// before the next DIRECT record goes out (the writer finds it missing,
/// appends nothing, and the record waits for the durable write): a restart
/// then counts from the new reservation, not the first one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_used_up_reservation_is_saved_again_before_the_next_record() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob7";
    alice
        .send_to(topic, b"first: reserves the first block", &bob)
        .await;
    // As if 100,000 records had gone out since: past that first block.
    let used = 100_000;
    assert!(used > RESERVATION_SIZE);
    alice.sp.restore_direct_seals(&bob.public(), used);
    assert_eq!(
        send_direct(&alice.sp, topic, b"past the first reservation", &bob).await,
        Mode::Direct
    );

    let again = restarted(&env, &alice);
    send_direct(&again, topic, b"after the restart", &bob).await;
    assert!(
        again.direct_seals(bob.id.fingerprint()) > used,
        "the restart counts from the reservation saved mid-run: {}",
        again.direct_seals(bob.id.fingerprint())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_are_padded_by_default() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob6";
    let text = b"a 27-byte chat message here";
    alice.send_to(topic, text, &bob).await;
    let (_, _, value) = stored(&env, topic).await.remove(0);
    let padded = envelope::padded_len(text.len()).expect("small");
    assert_eq!(value.len(), envelope::DIRECT_OVERHEAD + padded);
    assert!(padded > text.len());
    let mut c = env.reader(&bob, &[&alice], topic).await;
    let r = opened(&mut c).await;
    assert!(r.padded);
    assert_eq!(r.plaintext.as_bytes(), text);
}
