//! The admin listener of a real `hermit broker` process: `/metrics` counts
//! what was acknowledged and consumed while it is scraped, carries nothing of
//! the records' keys or payloads, and stays bounded with 10,000 topics;
//! `/readyz` is 503 while a large segment is recovered and 200 after; a
//! bearer token guards `/metrics` when one is set.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hermit_client::{
    Ack, Client, ClientOptions, Consumer, ConsumerOptions, Producer, ProducerOptions,
};
use hermit_e2e_tests::{BrokerProcess, hermit_bin, start_broker};
use hermit_protocol::BatchBuilder;

/// `GET path` on the admin listener: `(status, body)`.
fn get(admin: SocketAddr, path: &str, token: Option<&str>) -> (u16, String) {
    let mut s = TcpStream::connect(admin).expect("connect to the admin listener");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(s, "GET {path} HTTP/1.1\r\nHost: localhost\r\n{auth}\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read the answer");
    let text = String::from_utf8(raw).expect("UTF-8 answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status code");
    (status, body.to_owned())
}

/// The value of the sample `series` (name and labels as written).
fn sample(metrics: &str, series: &str) -> Option<f64> {
    metrics.lines().find_map(|l| {
        let rest = l.strip_prefix(series)?.strip_prefix(' ')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

fn scrape(broker: &BrokerProcess) -> String {
    let (status, body) = get(
        broker.admin_addr().expect("an admin listener"),
        "/metrics",
        None,
    );
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_counters_equal_what_was_acknowledged_and_nothing_of_a_record_shows() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(dir.path(), "127.0.0.1:0", &[]);
    // Markers in record keys and payloads: /metrics must never carry them.
    let (key_marker, payload_marker) = ("KEYMARK7f3a", "PAYMARK9c1e");

    // Scrape all along, checking the record counters never go back.
    let stop = Arc::new(AtomicBool::new(false));
    let admin = broker.admin_addr().unwrap();
    let scraper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let (mut last, mut scrapes) = (0.0, 0);
            while !stop.load(Ordering::Relaxed) {
                let (status, body) = get(admin, "/metrics", None);
                assert_eq!(status, 200);
                let now = sample(&body, "hermit_records_in_total").unwrap();
                assert!(now >= last, "a counter went back: {last} then {now}");
                last = now;
                scrapes += 1;
                // A scrape interval (hermit top's is 1 s): enough scrapes
                // to overlap the traffic, without taking the broker's CPU.
                std::thread::sleep(Duration::from_millis(20));
            }
            scrapes
        })
    };

    let client = Client::connect(broker.addr().to_string(), ClientOptions::default())
        .await
        .unwrap();
    let producer = Producer::new(
        &client,
        ProducerOptions {
            ack: Ack::Durable,
            ..ProducerOptions::default()
        },
    );
    const RECORDS: u64 = 5_000;
    let mut deliveries = Vec::new();
    for i in 0..RECORDS {
        let key = format!("{key_marker}-{}", i % 7);
        let value = format!("{payload_marker} record {i}");
        deliveries.push(
            producer
                .send("metered", key.as_bytes(), value.as_bytes())
                .await
                .unwrap(),
        );
    }
    for d in deliveries {
        d.await.expect("acknowledged");
    }
    let metrics = scrape(&broker);
    // Keys pick partitions: sum over the topic's partitions.
    let partitions = (0..64)
        .map_while(|p| {
            sample(
                &metrics,
                &format!(
                    "hermit_partition_records_in_total{{topic=\"metered\",partition=\"{p}\"}}"
                ),
            )
        })
        .collect::<Vec<_>>();
    assert!(
        !partitions.is_empty(),
        "per-partition series for the topic:\n{metrics}"
    );
    assert_eq!(
        partitions.iter().sum::<f64>(),
        RECORDS as f64,
        "records in = records acknowledged"
    );

    // Consume everything once, commit, and count again.
    let mut consumer = Consumer::new(
        &client,
        "metered",
        ConsumerOptions {
            group: Some("readers".into()),
            auto_commit: None,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    for _ in 0..RECORDS {
        let r = tokio::time::timeout(Duration::from_secs(60), consumer.next())
            .await
            .expect("records arrive")
            .unwrap();
        assert!(r.value.starts_with(payload_marker.as_bytes()));
    }
    consumer.commit().await.unwrap();
    stop.store(true, Ordering::Relaxed);
    let scrapes = scraper.join().expect("the scraper saw counters only grow");
    assert!(scrapes > 0);

    let metrics = scrape(&broker);
    let sum = |name: &str| -> f64 {
        (0..partitions.len())
            .map(|p| {
                sample(
                    &metrics,
                    &format!("{name}{{topic=\"metered\",partition=\"{p}\"}}"),
                )
                .unwrap_or_else(|| panic!("{name} for partition {p}:\n{metrics}"))
            })
            .sum()
    };
    assert_eq!(
        sum("hermit_partition_records_out_total"),
        RECORDS as f64,
        "each offset served once"
    );
    assert_eq!(
        sum("hermit_partition_bytes_out_total"),
        sum("hermit_partition_bytes_in_total"),
        "every byte written was read once"
    );
    assert_eq!(sum("hermit_partition_log_end"), RECORDS as f64);
    for p in 0..partitions.len() {
        let labels = format!("{{group=\"readers\",topic=\"metered\",partition=\"{p}\"}}");
        if let Some(committed) = sample(&metrics, &format!("hermit_group_committed_offset{labels}"))
        {
            assert_eq!(
                sample(&metrics, &format!("hermit_group_lag{labels}")),
                Some(0.0)
            );
            assert!(committed > 0.0);
        }
    }
    assert!(sample(&metrics, "hermit_produce_latency_seconds_count").unwrap() > 0.0);
    assert!(sample(&metrics, "hermit_fsync_seconds_count").unwrap() > 0.0);
    assert_eq!(sample(&metrics, "hermit_ready"), Some(1.0));
    for marker in [key_marker, payload_marker] {
        assert!(!metrics.contains(marker), "{marker} in /metrics");
    }
    for marker in [key_marker, payload_marker] {
        let hex: String = marker.bytes().map(|b| format!("{b:02x}")).collect();
        assert!(
            !metrics.to_ascii_lowercase().contains(&hex),
            "{marker} as hex in /metrics"
        );
    }
    producer.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cardinality_guard_holds_with_ten_thousand_topics() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(
        dir.path(),
        "127.0.0.1:0",
        &[
            "--set",
            "metrics_top_topics=20",
            "--set",
            "default_partitions=1",
        ],
    );
    let client = Client::connect(broker.addr().to_string(), ClientOptions::default())
        .await
        .unwrap();
    const TOPICS: usize = 10_000;
    let mut set = tokio::task::JoinSet::new();
    for chunk in 0..8 {
        let client = client.clone();
        set.spawn(async move {
            for t in (chunk..TOPICS).step_by(8) {
                let mut b = BatchBuilder::new(b"");
                // Topic 0 gets the most bytes, so it must be among those shown.
                b.push(&vec![b'x'; if t == 0 { 4096 } else { 8 }]);
                let batch = Bytes::from(b.finish(0).unwrap());
                client
                    .produce(&format!("inbox.{t:05}"), 0, Ack::Written, batch)
                    .await
                    .unwrap();
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    let metrics = scrape(&broker);
    let series: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("hermit_partition_records_in_total{"))
        .collect();
    assert_eq!(series.len(), 20, "per-partition series for 20 topics only");
    assert!(
        series.iter().any(|l| l.contains("topic=\"inbox.00000\"")),
        "the busiest topic is shown: {series:?}"
    );
    assert_eq!(
        sample(&metrics, "hermit_records_in_total"),
        Some(TOPICS as f64)
    );
    assert_eq!(
        sample(&metrics, "hermit_metrics_topics_hidden"),
        Some((TOPICS - 20) as f64)
    );
    let samples = metrics.lines().filter(|l| !l.starts_with('#')).count();
    assert!(samples < 600, "{samples} samples with {TOPICS} topics");
}

/// contrib/metrics.txt is what `hermit top` and the Grafana dashboard are
/// built against: a real broker serves exactly its names, with its types.
#[test]
fn the_broker_serves_exactly_the_metrics_contract() {
    let contract: std::collections::BTreeSet<(String, String)> =
        include_str!("../../contrib/metrics.txt")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let mut f = l.split_whitespace();
                (f.next().unwrap().to_owned(), f.next().unwrap().to_owned())
            })
            .collect();
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(dir.path(), "127.0.0.1:0", &[]);
    let served: std::collections::BTreeSet<(String, String)> = scrape(&broker)
        .lines()
        .filter_map(|l| {
            let mut f = l.strip_prefix("# TYPE ")?.split_whitespace();
            Some((f.next()?.to_owned(), f.next()?.to_owned()))
        })
        .collect();
    assert_eq!(
        served.difference(&contract).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "served but not in contrib/metrics.txt"
    );
    assert_eq!(
        contract.difference(&served).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "in contrib/metrics.txt but not served"
    );
}

#[test]
fn metrics_need_the_bearer_token_when_one_is_set() {
    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("admin.token");
    std::fs::write(&token_file, "0123456789abcdef-admin\n").unwrap();
    let set = format!("admin_token_file={}", token_file.display());
    let broker = start_broker(&dir.path().join("data"), "127.0.0.1:0", &["--set", &set]);
    let admin = broker.admin_addr().unwrap();
    assert_eq!(get(admin, "/metrics", None).0, 401);
    assert_eq!(
        get(admin, "/metrics", Some("0123456789abcdef-admiN")).0,
        401
    );
    let (status, body) = get(admin, "/metrics", Some("0123456789abcdef-admin"));
    assert_eq!(status, 200);
    assert!(body.contains("hermit_ready 1"), "{body}");
    // The probes say only up or down: open to whoever reaches the port.
    assert_eq!(get(admin, "/healthz", None).0, 200);
    assert_eq!(get(admin, "/readyz", None).0, 200);
    assert_eq!(get(admin, "/nothing", None).0, 404);
    assert!(
        broker
            .stderr()
            .iter()
            .all(|l| !l.contains("0123456789abcdef-admin")),
        "the token is never logged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_is_503_while_a_large_segment_is_recovered_and_200_after() {
    let dir = tempfile::tempdir().unwrap();
    let segment = [
        "--set",
        "segment_bytes=1073741824",
        "--set",
        "partition_slots=false",
    ];
    let broker = start_broker(dir.path(), "127.0.0.1:0", &segment);
    let client = Client::connect(broker.addr().to_string(), ClientOptions::default())
        .await
        .unwrap();
    // 256 MiB in one active segment, then a crash: the next start walks
    // and CRC-checks all of it before it is ready.
    let record = vec![7u8; 512 << 10];
    let mut acks = Vec::new();
    for _ in 0..512 {
        let mut b = BatchBuilder::new(b"");
        b.push(&record);
        let batch = Bytes::from(b.finish(0).unwrap());
        let c = client.clone();
        acks.push(tokio::spawn(async move {
            c.produce("big", 0, Ack::Durable, batch).await
        }));
    }
    for a in acks {
        a.await.unwrap().unwrap();
    }
    drop(client);
    broker.kill9();

    let mut child = Command::new(hermit_bin())
        .args([
            "broker",
            "--listen",
            "127.0.0.1:0",
            "--admin-listen",
            "127.0.0.1:0",
        ])
        .args(["--log-format", "text", "--data-dir"])
        .arg(dir.path())
        .args(segment)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let admin: SocketAddr = loop {
        let line = lines
            .next()
            .expect("the broker logs its admin address")
            .unwrap();
        if line.contains("admin listening")
            && let Some(a) = line.split("addr=").nth(1)
        {
            break a.split_whitespace().next().unwrap().parse().unwrap();
        }
    };
    let (mut unready, started) = (0, Instant::now());
    let ready_after = loop {
        let (status, body) = get(admin, "/readyz", None);
        match status {
            503 => {
                assert_eq!(body.trim(), "recovering");
                unready += 1;
            }
            200 => break started.elapsed(),
            other => panic!("/readyz answered {other}: {body}"),
        }
        assert!(started.elapsed() < Duration::from_secs(120), "never ready");
    };
    assert!(unready > 0, "/readyz was never 503 during recovery");
    // Ready only once the log was open, with the partition recovered.
    let mut open_line = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.contains("log open") {
            open_line = Some(line);
            break;
        }
    }
    let open_line = open_line.expect("the broker logged the open log");
    assert!(open_line.contains("partitions_recovered=1"), "{open_line}");
    assert_eq!(get(admin, "/healthz", None).0, 200);
    eprintln!("ready after {ready_after:?}, {unready} answers of 503 before");
    let _ = child.kill();
    let _ = child.wait();
}
