//! Retention is a security setting (docs/MLS.md §6.4): a member that comes
//! back after the Commits it needs were deleted from the group topic is
//! told `CatchUpImpossible` (its state kept, nothing half-applied), and
//! comes back by being re-added by another member — one Commit replacing
//! its leaf — and joining again from the Welcome. Real broker, retention
//! by size on small segments.

mod support;

use std::time::Duration;

use hermit_broker::config::Limit;
use hermit_client::mls::{CommitOutcome, Event};
use support::mls::*;
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_behind_retention_is_told_and_comes_back_when_re_added() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| {
        c.segment_bytes = 4096;
        c.retention_bytes = Limit::Max(16 * 1024);
        c.cleanup_interval_ms = 50;
    })
    .await;
    let Pair {
        alice: _alice,
        bob,
        bob_key: _,
        mut a,
        mut b,
    } = pair(broker.addr(), dir.path()).await;
    a.send_text("while bob reads").await.unwrap();
    receive_until(&mut b, |e| matches!(e, Event::Message { .. })).await;
    let behind = b.next_offset();

    // Bob goes away; the group moves on, and retention deletes what he
    // would need (Commits included).
    for round in 0..20 {
        a.update().await.unwrap();
        let texts: Vec<String> = (0..10)
            .map(|i| format!("round {round} message {i} {}", "x".repeat(100)))
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        a.send_texts(&refs).await.unwrap();
    }
    let raw = client(broker.addr()).await;
    let started = std::time::Instant::now();
    loop {
        let meta = raw.metadata(Some(a.topic())).await.unwrap();
        if meta[0].partitions[0].log_start > behind {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "retention never ran"
        );
        // Retention runs on its own timer; nothing to await but the change.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let events = b.receive(Duration::ZERO).await.unwrap();
    assert!(
        matches!(events.as_slice(), [Event::CatchUpImpossible { next, log_start }] if *next == behind && *log_start > behind),
        "{events:#?}"
    );
    b.ack().unwrap();
    assert!(b.is_removed());
    assert!(b.send_text("can I still talk?").await.is_err());

    // Recovery: Bob publishes KeyPackages; Alice re-adds his device.
    bob.publish_key_packages(1).await.unwrap();
    let outcome = a.readd_devices(&[bob.account().clone()]).await.unwrap();
    assert!(
        matches!(outcome, CommitOutcome::Committed { .. }),
        "{outcome:?}"
    );
    assert_eq!(
        bob.accept_welcomes().await.unwrap(),
        vec![a.topic().to_owned()]
    );
    let mut b = bob.conversation(a.topic()).unwrap();
    assert!(!b.is_removed());
    assert_eq!(a.members().len(), 2, "one leaf for Bob, replaced");
    a.send_text("welcome back").await.unwrap();
    let seen = receive_until(&mut b, |e| matches!(e, Event::Message { .. })).await;
    assert_eq!(texts(&seen), vec!["welcome back"]);
    b.send_text("glad to be back").await.unwrap();
    let seen = receive_until(&mut a, |e| matches!(e, Event::Message { .. })).await;
    assert_eq!(texts(&seen), vec!["glad to be back"]);
}
