//! The global receive budget (`receive_budget_bytes`, docs/SECURITY.md §1)
//! bounds the memory that clients sending large frames slowly can pin. Its
//! own test binary: it measures this process's resident memory, which other
//! tests running alongside would disturb.

mod netcommon;

use std::sync::Arc;
use std::time::Duration;

use hermit_broker::net::Metrics;
use hermit_protocol::record::RecordHeader;
use netcommon::*;
use tokio::io::AsyncWriteExt;

/// This process's resident set size, in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("a VmRSS line");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmRSS in kB");
    kib * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_50_mib_produce_heads_stay_within_the_receive_budget() {
    const CONNS: usize = 1000;
    const PAYLOAD: u32 = 50 << 20;
    const BUDGET: u64 = 256 << 20;
    /// Body bytes each client sends after its head: without the budget the
    /// broker would read (and so touch the pages of) all of them.
    const BODY: usize = 512 << 10;
    raise_nofile_limit();
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        c.receive_budget_bytes = BUDGET;
        c.max_connections = 5000;
        c.max_connections_per_address = 5000;
    })
    .await;
    // A frame length, a valid produce prefix and a batch header claiming a
    // 50 MiB payload.
    let header = RecordHeader {
        payload_len: PAYLOAD,
        record_count: 1,
        ..Default::default()
    }
    .encode();
    let mut head = raw_produce_frame(b"big", &header, 1);
    let len = (head.len() - 4 + PAYLOAD as usize) as u32;
    head[..4].copy_from_slice(&len.to_be_bytes());
    let frame_len = 4 + len as u64;
    let admitted = (BUDGET / frame_len) as usize;
    let body: Arc<Vec<u8>> = Arc::new(vec![7u8; BODY]);

    let before = rss();
    let mut writers = Vec::new();
    for _ in 0..CONNS {
        let mut c = Raw::connect(broker.addr()).await;
        let (head, body) = (head.clone(), body.clone());
        // Each writer keeps its connection open until the test ends (a
        // broker that stopped reading leaves its write pending).
        writers.push(tokio::spawn(async move {
            c.stream.write_all(&head).await.expect("head");
            c.stream.write_all(&body).await.expect("body");
            std::future::pending::<()>().await;
        }));
    }
    let limit = BUDGET + (64 << 20);
    let m = broker.metrics().clone();
    // Until every connection the budget cannot admit is waiting (or, were
    // the budget not enforced, the memory ran past the limit).
    eventually(Duration::from_secs(120), || {
        Metrics::get(&m.receive_budget_waiting) >= (CONNS - admitted) as u64
            || rss().saturating_sub(before) > limit
    })
    .await;
    let grown = rss().saturating_sub(before);
    assert!(
        grown <= limit,
        "RSS grew by {} MiB with {CONNS} large frames in flight (budget {} MiB)",
        grown >> 20,
        BUDGET >> 20
    );
    assert_eq!(
        Metrics::get(&m.receive_budget_waiting),
        (CONNS - admitted) as u64
    );
    assert_eq!(Metrics::get(&m.connections_open), CONNS as u64);
    for w in &writers {
        w.abort();
    }
    // Closing the waiting connections releases nothing they did not hold,
    // and the admitted ones give their budget back: the gauge drains.
    drop(writers);
    eventually(Duration::from_secs(60), || {
        Metrics::get(&m.receive_budget_waiting) == 0 && Metrics::get(&m.connections_open) == 0
    })
    .await;
    // The whole budget is free again: a new large frame is admitted at once.
    let mut c = Raw::connect(broker.addr()).await;
    let b = batch(1, 100 << 10, 1);
    let r = c.produce("after", &b, hermit_protocol::Ack::Written).await;
    assert_eq!(r.status, hermit_protocol::Status::Ok, "{}", r.message);
}
