//! Commits do not stall under traffic (docs/MLS.md §3): while two members
//! send application messages as fast as 1,000 a second between them, a
//! third member's Commits still land, each within the bounded number of
//! attempts (`MAX_COMMIT_ATTEMPTS`), and every message arrives.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hermit_client::mls::commit::MAX_COMMIT_ATTEMPTS;
use hermit_client::mls::{CommitOutcome, Event};
use support::mls::*;
use support::*;

/// Commits the third member makes under the traffic.
const COMMITS: usize = 30;
/// Time between the third member's Commits: commits are rare next to
/// messages (a member that reads every 40 ms must stay within the
/// `PAST_EPOCHS` kept, or its older messages no longer open).
const COMMIT_EVERY: Duration = Duration::from_millis(100);
/// The aggregate rate the two senders aim at, messages per second.
const RATE: u64 = 1_000;
/// Messages per send call (a chat client sends what was typed since its
/// last write; one state write and one produce per burst).
const BURST: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_land_while_members_send_a_thousand_messages_a_second() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let (_devices, mut convs) = group_of(broker.addr(), dir.path(), 3, 2).await;
    let mut committer = convs.remove(0);
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let mut senders = Vec::new();
    for (i, mut c) in convs.into_iter().enumerate() {
        let (stop, sent) = (stop.clone(), sent.clone());
        senders.push(tokio::spawn(async move {
            // Each sender paces itself to half the rate, in bursts of
            // BURST messages (one state write and one produce each).
            let period = Duration::from_micros(2 * BURST as u64 * 1_000_000 / RATE);
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                tick.tick().await;
                let texts: Vec<String> = (n..n + BURST).map(|k| format!("s{i} {k}")).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                c.send_texts(&refs).await.expect("send");
                n += BURST;
                sent.fetch_add(BURST, Ordering::Relaxed);
                // A member reads as it writes (it must keep up with the
                // epochs: its messages are sealed for the epoch it is at).
                c.catch_up().await.expect("catch up");
                c.ack().expect("ack");
            }
            (c, n)
        }));
    }
    let started = Instant::now();
    let mut attempts = Vec::new();
    let mut pace = tokio::time::interval(COMMIT_EVERY);
    for _ in 0..COMMITS {
        pace.tick().await;
        let outcome = tokio::time::timeout(Duration::from_secs(60), committer.update())
            .await
            .expect("a commit within 60 s: the committer could not keep up with the traffic")
            .expect("a commit lands");
        match outcome {
            CommitOutcome::Committed { attempts: a, .. } => attempts.push(a),
            other => panic!("{other:?}"),
        }
    }
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let mut others = Vec::new();
    let mut counts = Vec::new();
    for s in senders {
        let (c, n) = s.await.unwrap();
        others.push(c);
        counts.push(n);
    }
    let total = sent.load(Ordering::Relaxed);
    let rate = total as f64 / elapsed.as_secs_f64();
    eprintln!(
        "{COMMITS} commits in {elapsed:?} under {total} messages ({rate:.0}/s); attempts per commit: {attempts:?}"
    );
    assert!(attempts.iter().all(|a| *a <= MAX_COMMIT_ATTEMPTS));
    assert!(
        rate >= 0.9 * RATE as f64,
        "the senders reached only {rate:.0} msg/s: the test does not show the load it names"
    );
    assert!(
        attempts.iter().any(|a| *a > 1),
        "the traffic never got in a commit's way: the test shows nothing ({rate:.0} msg/s)"
    );
    // Every message arrives at the committer, once.
    committer.catch_up().await.unwrap();
    let events = committer.receive(Duration::ZERO).await.unwrap();
    committer.ack().unwrap();
    let got = events
        .iter()
        .filter(|e| matches!(e, Event::Message { .. }))
        .count();
    let refused: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, Event::RecordRefused { .. } | Event::ForkSuspected { .. }))
        .collect();
    assert!(refused.is_empty(), "{refused:#?}");
    assert_eq!(got, total, "every message arrived once");
    let mut all = vec![committer];
    all.extend(others);
    drain(&mut all).await;
    assert_agree(&all, "after the traffic");
}
