//! Commits of the sealed consumer against a real broker: a record that failed
//! to open holds its partition's committed offset (and only its partition's)
//! until acknowledged; records for others do not; restarted consumers of the
//! group resume at the right place.

mod sealed_support;

use std::collections::BTreeMap;
use std::time::Duration;

use hermit_client::crypto::Sealer;
use hermit_client::{Cleanup, ConsumerOptions, SealedConsumer, TopicSettings};
use sealed_support::*;

const QUIET: Duration = Duration::from_millis(400);

fn group(name: &str, auto_commit: Option<Duration>) -> ConsumerOptions {
    ConsumerOptions {
        group: Some(name.into()),
        auto_commit,
        max_wait: Duration::from_millis(100),
        ..ConsumerOptions::default()
    }
}

async fn committed(env: &Env, g: &str, topic: &str, partition: u32) -> Option<u64> {
    env.client
        .committed(g, topic, partition)
        .await
        .expect("committed")
}

/// Reads `n` items; returns (partition, offset) → opened?
async fn read_n(c: &mut SealedConsumer, n: usize) -> BTreeMap<(u32, u64), bool> {
    let mut got = BTreeMap::new();
    for _ in 0..n {
        let (at, ok) = match next(c).await {
            Ok(r) => ((r.partition, r.offset), true),
            Err(e) => ((e.partition, e.offset), false),
        };
        assert!(got.insert(at, ok).is_none(), "{at:?} twice");
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_record_holds_its_partition_until_acked_and_restarts_resume_there() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "commits";
    env.client
        .create_topic(
            topic,
            TopicSettings {
                partitions: 2,
                cleanup: Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .await
        .expect("create topic");
    // Records placed on exact partitions: sealed by Alice, produced raw.
    let mut sealer = Sealer::new(alice.id.clone()).expect("rng");
    let mut seal = |text: &str| {
        sealer
            .seal_direct(topic, bob.id.public_key(), text.as_bytes())
            .expect("seal")
    };
    assert_eq!(env.produce_raw(topic, 0, b"", &seal("p0 r0")).await, 0);
    assert_eq!(env.produce_raw(topic, 0, b"", b"\x01garbage").await, 1);
    assert_eq!(env.produce_raw(topic, 0, b"", &seal("p0 r2")).await, 2);
    assert_eq!(env.produce_raw(topic, 1, b"", &seal("p1 r0")).await, 0);
    assert_eq!(env.produce_raw(topic, 1, b"", &seal("p1 r1")).await, 1);

    let every = Some(Duration::from_millis(20));
    let mut c1 = env
        .reader_with(&bob, &[&alice], topic, group("g", every))
        .await;
    let got = read_n(&mut c1, 5).await;
    let want: BTreeMap<_, _> = [
        ((0, 0), true),
        ((0, 1), false),
        ((0, 2), true),
        ((1, 0), true),
        ((1, 1), true),
    ]
    .into();
    assert_eq!(got, want);
    // While it waits for more, the periodic commit covers every finished
    // record — on partition 0 only up to the failed one.
    quiet(&mut c1, QUIET).await;
    assert_eq!(committed(&env, "g", topic, 0).await, Some(1));
    assert_eq!(committed(&env, "g", topic, 1).await, Some(2));
    assert_eq!(c1.committed(), vec![(0, Some(1)), (1, Some(2))]);

    // A consumer of the group started now reads the failed record again
    // (and what follows it on that partition), nothing of partition 1.
    let mut c2 = env
        .reader_with(&bob, &[&alice], topic, group("g", None))
        .await;
    let e = failed(&mut c2).await;
    assert_eq!((e.partition, e.offset), (0, 1));
    let r = opened(&mut c2).await;
    assert_eq!((r.partition, r.offset), (0, 2));
    quiet(&mut c2, QUIET).await;
    drop(c2);

    // The application moves past it.
    assert!(c1.ack(0, 1));
    assert!(!c1.ack(0, 1), "acknowledged once");
    assert!(!c1.ack(0, 0), "never held");
    quiet(&mut c1, QUIET).await;
    assert_eq!(committed(&env, "g", topic, 0).await, Some(3));
    c1.close().await.expect("close");

    // A restarted consumer resumes after everything: the next record it
    // sees is a new one.
    assert_eq!(env.produce_raw(topic, 0, b"", &seal("p0 r3")).await, 3);
    let mut c3 = env
        .reader_with(&bob, &[&alice], topic, group("g", every))
        .await;
    let r = opened(&mut c3).await;
    assert_eq!((r.partition, r.offset), (0, 3));
    assert_eq!(r.plaintext.as_bytes(), b"p0 r3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manual_commits_stop_at_failures_and_pass_records_for_others() {
    let env = Env::start().await;
    let (alice, bob, carol) = (env.party(), env.party(), env.party());
    let topic = "commits.manual";
    let send = |text: &'static str, to: &Party| {
        let (sp, to) = (alice.sp.clone(), to.public());
        async move {
            sp.send(topic, None, text.as_bytes(), &[to])
                .await
                .expect("queued")
                .await
                .expect("delivered")
                .offset
        }
    };
    assert_eq!(send("for Bob", &bob).await, 0);
    assert_eq!(send("for Carol", &carol).await, 1);
    assert_eq!(send("for Bob again", &bob).await, 2);
    assert_eq!(env.produce_raw(topic, 0, b"", b"\x01garbage").await, 3);
    assert_eq!(send("for Bob, last", &bob).await, 4);

    let mut c = env
        .reader_with(&bob, &[&alice], topic, group("m", None))
        .await;
    assert_eq!(opened(&mut c).await.offset, 0);
    // `commit` covers the record being handled.
    c.commit().await.expect("commit");
    assert_eq!(committed(&env, "m", topic, 0).await, Some(1));
    // Records for others are reported, and count as handled.
    assert!(failed(&mut c).await.is_not_for_me());
    assert_eq!(opened(&mut c).await.offset, 2);
    c.commit().await.expect("commit");
    assert_eq!(committed(&env, "m", topic, 0).await, Some(3));
    // A failure is not passed, even by a later success.
    let e = failed(&mut c).await;
    assert!(e.holds_commit() && e.offset == 3);
    assert_eq!(opened(&mut c).await.offset, 4);
    c.commit().await.expect("commit");
    assert_eq!(committed(&env, "m", topic, 0).await, Some(3));
    assert!(c.ack(0, 3));
    c.commit().await.expect("commit");
    assert_eq!(committed(&env, "m", topic, 0).await, Some(5));

    // Without a group there is nothing to commit to.
    let mut c = env.reader(&bob, &[&alice], topic).await;
    opened(&mut c).await;
    assert!(c.commit().await.is_err());
    // A sealed consumer can live in its own task.
    let r = tokio::spawn(async move { next(&mut c).await })
        .await
        .expect("task");
    assert!(r.expect_err("for Carol").is_not_for_me());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persisted_high_water_refuses_what_a_restart_reads_again() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "commits.replay";
    for text in ["one", "two", "three"] {
        alice
            .sp
            .send(topic, None, text.as_bytes(), &[bob.public()])
            .await
            .expect("queued")
            .await
            .expect("delivered");
    }
    // A first run opens everything but commits only the first record, then
    // "crashes" after persisting its high-water mark.
    let mut c = env
        .reader_with(&bob, &[&alice], topic, group("h", None))
        .await;
    opened(&mut c).await;
    c.commit().await.expect("commit");
    opened(&mut c).await;
    opened(&mut c).await;
    let mark = c.high_water(alice.id.fingerprint()).expect("seen Alice");
    drop(c);

    // Without the mark, the restart opens the uncommitted records again
    // (at-least-once); with it, they are reported as replays.
    let mut fresh = env
        .reader_with(&bob, &[&alice], topic, group("h", None))
        .await;
    assert_eq!(opened(&mut fresh).await.offset, 1);
    let mut restored = env
        .reader_with(&bob, &[&alice], topic, group("h", None))
        .await;
    restored
        .restore_high_water(alice.id.fingerprint(), mark)
        .expect("restore");
    for offset in [1, 2] {
        let e = failed(&mut restored).await;
        assert_eq!(e.offset, offset);
        assert!(matches!(
            e.open_error(),
            Some(hermit_client::crypto::OpenError::Replayed { .. })
        ));
        assert!(restored.ack(0, offset));
    }
    restored.commit().await.expect("commit");
    assert_eq!(committed(&env, "h", topic, 0).await, Some(3));
}
