//! A lying broker cannot make a client accept older sealed state (issue 32
//! §2, docs/ENVELOPE.md §13): each state record carries a generation, the
//! newest one is anchored in the client state directory once the broker
//! acknowledged it, and a restarted client refuses an older state or a
//! commit moved back — while a crash between the state's durable write and
//! the anchor's is not mistaken for one.
//!
//! The tests play the lying broker (or its operator) with a second client:
//! they re-append an authentic older state record, byte for byte, so that
//! it is the latest again, and move the group's commit back.

mod sealed_support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hermit_client::crypto::Mode;
use hermit_client::local::STATE_ANCHORS;
use hermit_client::sealed::state::state_topic;
use hermit_client::{
    Client, ClientOptions, ConsumerOptions, Fallback, Producer, ProducerOptions, SealedConsumer,
    SealedError, SealedProducer, SealedProducerOptions, StartFrom, StateDir, StateOrigin,
};
use sealed_support::*;

fn group(name: &str) -> ConsumerOptions {
    ConsumerOptions {
        group: Some(name.into()),
        start: StartFrom::Committed {
            fallback: Fallback::Earliest,
        },
        max_wait: Duration::from_millis(100),
        ..ConsumerOptions::default()
    }
}

/// A device's state directory at `path`, opened and locked for the test.
/// Each run of the device (a restart) is a new client with it: everything
/// a restart keeps is what is on disk (anchors are read from the file at
/// every start), and no earlier run's background task can hold the lock.
fn state_dir(path: &Path) -> Arc<StateDir> {
    Arc::new(StateDir::open(path).expect("the state directory opens"))
}

/// One run of a device: a new client whose options carry its state directory.
async fn device(env: &Env, dir: &Arc<StateDir>) -> Client {
    Client::connect(
        env.broker.addr().to_string(),
        ClientOptions {
            state_dir: Some(dir.clone()),
            ..ClientOptions::default()
        },
    )
    .await
    .expect("client connects")
}

async fn consumer_on(
    client: &Client,
    who: &Party,
    from: &Party,
    topic: &str,
    group_name: &str,
) -> Result<SealedConsumer, SealedError> {
    SealedConsumer::new(
        client,
        who.id.clone(),
        vec![from.public()],
        topic,
        group(group_name),
    )
    .await
}

/// Every record of the state topic of `who`: (key, value), in log order.
async fn state_records(env: &Env, who: &Party) -> Vec<(Bytes, Bytes)> {
    let r = env
        .client
        .fetch(&state_topic(&who.id), 0, 0, 1 << 20, Duration::ZERO)
        .await
        .expect("fetch the state topic");
    r.records()
        .map(|rec| {
            let rec = rec.expect("valid batch");
            (rec.key, rec.value)
        })
        .collect()
}

/// The generations anchored in the state directory `dir`, line by line.
fn anchored_generations(dir: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join(STATE_ANCHORS)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .nth(2)
                .expect("broker key generation hash")
                .parse()
                .expect("a generation")
        })
        .collect()
}

/// THE ROLLBACK. Bob's device reads and commits twice (generations 1 and
/// 2, anchored). The broker then moves the group's commit back: refused.
/// Then it also serves the older state record again: refused, naming the
/// anchor file. A new device (an empty state directory) has no anchor and
/// accepts it — and the records read since open again as new, which is
/// exactly what the anchor prevents on the device that read them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolled_back_state_or_commit_is_refused_by_the_device_that_wrote_it() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob.anchor";
    let tmp = tempfile::tempdir().expect("temp dir");
    let bob_dir = tmp.path().join("bob");
    let bob_state = state_dir(&bob_dir);

    let client = device(&env, &bob_state).await;
    let mut c = consumer_on(&client, &bob, &alice, topic, "bob.chat")
        .await
        .expect("first start");
    assert_eq!(c.state_origin(), StateOrigin::Fresh);
    for text in ["one", "two"] {
        alice.send_to(topic, text.as_bytes(), &bob).await;
        assert_eq!(opened(&mut c).await.plaintext.as_bytes(), text.as_bytes());
    }
    c.commit().await.expect("commit 1");
    let (key, first_state) = state_records(&env, &bob).await.remove(0);
    for text in ["three", "four"] {
        alice.send_to(topic, text.as_bytes(), &bob).await;
        assert_eq!(opened(&mut c).await.plaintext.as_bytes(), text.as_bytes());
    }
    c.commit().await.expect("commit 2");
    assert_eq!(anchored_generations(&bob_dir), vec![2]);
    drop(c);
    drop(client);

    // The broker moves the group's commit back (the state stays the newest).
    env.client
        .commit("bob.chat", topic, 0, 2)
        .await
        .expect("rewind");
    let client = device(&env, &bob_state).await;
    let e = consumer_on(&client, &bob, &alice, topic, "bob.chat")
        .await
        .expect_err("a commit below the anchored state's");
    assert!(
        matches!(
            e,
            SealedError::CommitRolledBack {
                partition: 0,
                committed: Some(2),
                state: 4,
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(msg.contains("the broker moved the commit back"), "{msg}");
    assert!(
        msg.contains(&bob_dir.join(STATE_ANCHORS).display().to_string()),
        "{msg}"
    );
    drop(client);

    // And serves the first state record again, byte for byte: the latest
    // under its key, with the commit that went with it.
    env.produce_raw(&state_topic(&bob.id), 0, &key, &first_state)
        .await;
    let client = device(&env, &bob_state).await;
    let e = consumer_on(&client, &bob, &alice, topic, "bob.chat")
        .await
        .expect_err("an older state than this device wrote");
    let SealedError::StateRolledBack {
        anchored,
        found,
        ref file,
        ref line,
        ..
    } = e
    else {
        panic!("expected StateRolledBack, got {e:?}");
    };
    assert_eq!((anchored, found), (2, Some(1)));
    assert_eq!(file, &bob_dir.join(STATE_ANCHORS));
    let msg = e.to_string();
    for needle in [
        "the broker served an older state than this device wrote",
        "anchored generation 2",
        "found generation 1",
        &file.display().to_string(),
        line.as_str(),
    ] {
        assert!(msg.contains(needle), "{needle:?} not in {msg}");
    }
    drop(client);

    // A new device has no anchor: the same lie is accepted (the documented
    // limitation), and what Bob read after the first commit opens again.
    let new_dir = tmp.path().join("bob-new-device");
    let client = device(&env, &state_dir(&new_dir)).await;
    let mut c = consumer_on(&client, &bob, &alice, topic, "bob.chat")
        .await
        .expect("no anchor: trust on first use");
    assert!(
        matches!(c.state_origin(), StateOrigin::Restored { senders: 1, .. }),
        "{:?}",
        c.state_origin()
    );
    assert_eq!(
        opened(&mut c).await.plaintext.as_bytes(),
        b"three",
        "delivered again, as new"
    );
    assert_eq!(
        anchored_generations(&new_dir),
        vec![1],
        "anchored on first use"
    );
}

/// THE CRASH. The anchor is written after the state's durable ack (and the
/// commit's); a crash in between leaves exactly this on disk: the broker
/// holds the newer state, the directory the older anchor. Simulated by
/// putting back a copy of the anchor file taken before the commit. Once
/// with the commit through, once with the commit lost as well: the restart
/// accepts the newer state, finishes the commit, moves the anchor up, and a
/// second restart is not refused either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_between_the_state_write_and_the_anchor_is_not_refused() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob.crash";
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("bob");
    let anchors = dir.join(STATE_ANCHORS);
    let state = state_dir(&dir);

    for (round, commit_lost) in [(1u64, false), (2, true)] {
        let client = device(&env, &state).await;
        let mut c = consumer_on(&client, &bob, &alice, topic, "bob.crash")
            .await
            .unwrap_or_else(|e| panic!("round {round}: start refused: {e}"));
        alice.send_to(topic, b"before", &bob).await;
        opened(&mut c).await;
        c.commit().await.expect("commit");
        let before = std::fs::read(&anchors).expect("anchored");
        let committed_before = env
            .client
            .committed("bob.crash", topic, 0)
            .await
            .expect("committed");
        alice.send_to(topic, b"after", &bob).await;
        opened(&mut c).await;
        c.commit().await.expect("commit");
        let newest = anchored_generations(&dir)[0];
        drop(c);
        drop(client);
        // The crash: the state record is durable (and maybe its commit),
        // the anchor file is the one from before.
        std::fs::write(&anchors, &before).expect("put the old anchor back");
        assert_eq!(anchored_generations(&dir), vec![newest - 1]);
        if commit_lost {
            env.client
                .commit("bob.crash", topic, 0, committed_before.expect("a commit"))
                .await
                .expect("the commit was lost too");
        }
        let committed_now = env.client.committed("bob.crash", topic, 0).await;
        let state_offset = committed_before.expect("a commit") + 1;

        for restart in 0..2 {
            let client = device(&env, &state).await;
            let mut c = consumer_on(&client, &bob, &alice, topic, "bob.crash")
                .await
                .unwrap_or_else(|e| {
                    panic!("round {round} restart {restart}: a crash is no rollback: {e}")
                });
            assert_eq!(
                anchored_generations(&dir),
                vec![newest],
                "the anchor moved up"
            );
            assert_eq!(c.position(0), Some(state_offset), "resumes at the state's");
            assert_eq!(
                env.client
                    .committed("bob.crash", topic, 0)
                    .await
                    .expect("committed"),
                Some(state_offset),
                "the interrupted commit is finished (was {committed_now:?})"
            );
            quiet(&mut c, Duration::from_millis(200)).await;
        }
    }
}

/// A sealed producer on its own client (with the state directory at `dir`).
fn producer_on(client: &Client, who: &Party) -> SealedProducer {
    let producer = Producer::new(client, ProducerOptions::default());
    SealedProducer::new(&producer, who.id.clone(), SealedProducerOptions::default())
        .expect("sealer")
}

async fn send_direct(sp: &SealedProducer, topic: &str, to: &Party) -> Result<Mode, SealedError> {
    let d = sp.send(topic, None, b"hi", &[to.public()]).await?;
    let mode = d.mode();
    d.await.expect("delivered");
    Ok(mode)
}

/// The reservation state likewise: a rolled-back reservation would let the
/// DIRECT count of a pair go back (and, near the end of a key's budget,
/// random IVs repeat). Refused on the device that wrote the newer one —
/// also when the broker serves no reservation at all — and accepted by a
/// new device (the documented limitation); a crash between the
/// reservation's durable write and the anchor is not refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolled_back_reservation_is_refused_and_a_crash_is_not() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "inbox.bob.res";
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("alice");
    let anchors = dir.join(STATE_ANCHORS);
    let state = state_dir(&dir);

    let client = device(&env, &state).await;
    let sp = producer_on(&client, &alice);
    send_direct(&sp, topic, &bob)
        .await
        .expect("reserves: generation 1");
    let (key, first) = state_records(&env, &alice).await.remove(0);
    let before = std::fs::read(&anchors).expect("anchored");
    let used = 100_000;
    sp.restore_direct_seals(&bob.public(), used);
    send_direct(&sp, topic, &bob)
        .await
        .expect("reserves: generation 2");
    assert_eq!(anchored_generations(&dir), vec![2]);
    drop(sp);
    drop(client);

    // A crash after the second reservation was durable, before its anchor:
    // the anchor file as it was before the second save.
    std::fs::write(&anchors, &before).expect("put the old anchor back");
    assert_eq!(anchored_generations(&dir), vec![1]);
    let client = device(&env, &state).await;
    let sp = producer_on(&client, &alice);
    send_direct(&sp, topic, &bob)
        .await
        .expect("a crash is no rollback");
    assert!(
        sp.direct_seals(bob.id.fingerprint()) > used,
        "the newer count stands"
    );
    // Up to the state found (2), then to the reservation this run saved:
    // every reservation restored counts as used, so a new one is saved.
    assert_eq!(anchored_generations(&dir), vec![3], "the anchor moved up");
    drop(sp);
    drop(client);

    // The broker serves the first reservation again.
    env.produce_raw(&state_topic(&alice.id), 0, &key, &first)
        .await;
    let client = device(&env, &state).await;
    let sp = producer_on(&client, &alice);
    let e = send_direct(&sp, topic, &bob)
        .await
        .expect_err("an older reservation than this device wrote");
    assert!(
        matches!(
            e,
            SealedError::StateRolledBack {
                anchored: 3,
                found: Some(1),
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("the broker served an older state than this device wrote"),
        "{e}"
    );
    assert_eq!(
        sp.direct_seals(bob.id.fingerprint()),
        0,
        "nothing was sealed"
    );
    drop(sp);
    drop(client);

    // Or serves none at all (the state topic deleted; the producer makes a
    // new, empty one): refused as well — a count from 0 is the oldest state.
    env.client
        .delete_topic(&state_topic(&alice.id))
        .await
        .expect("delete the state topic");
    let client = device(&env, &state).await;
    let sp = producer_on(&client, &alice);
    let e = send_direct(&sp, topic, &bob)
        .await
        .expect_err("no state while one is anchored");
    assert!(
        matches!(
            e,
            SealedError::StateRolledBack {
                anchored: 3,
                found: None,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("found no state record"), "{e}");
    drop(sp);
    drop(client);
    env.produce_raw(&state_topic(&alice.id), 0, &key, &first)
        .await;

    // A new device accepts it: the count goes back to the first reservation.
    let client = device(&env, &state_dir(&tmp.path().join("alice-new"))).await;
    let sp = producer_on(&client, &alice);
    send_direct(&sp, topic, &bob).await.expect("no anchor");
    assert!(sp.direct_seals(bob.id.fingerprint()) < used);
}
