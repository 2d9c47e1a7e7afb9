//! The admin listener under hostile clients: clients that connect and send
//! nothing cannot silence `/healthz` and `/readyz`, a client that sends no
//! request head is dropped after a short deadline, and a request whose
//! `Host` is not one of the listener's names (a page that re-pointed its
//! own name at the broker: DNS rebinding) learns nothing.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hermit_broker::admin::{Admin, HEAD_DEADLINE, MAX_CONNECTIONS};
use hermit_broker::config::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// An admin listener on a free loopback port (no broker behind it: the
/// probes answer, `/metrics` renders what there is).
async fn admin(configure: impl FnOnce(&mut Config)) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let mut config = Config {
        admin_listen: Some("127.0.0.1:0".parse().unwrap()),
        ..Config::default()
    };
    configure(&mut config);
    let (admin, listener) = Admin::bind(&config)
        .await
        .unwrap()
        .expect("admin_listen is set");
    let addr = listener.local_addr().unwrap();
    (addr, tokio::spawn(admin.serve(listener)))
}

/// Send `head` and read the whole answer: `(status, text)`, status 0 when
/// the connection was closed without one.
async fn exchange(addr: SocketAddr, head: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer, or the connection closed, in time");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

async fn get(addr: SocketAddr, path: &str, host: &str) -> (u16, String) {
    exchange(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n"),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_do_not_silence_the_probes() {
    let (addr, task) = admin(|_| {}).await;
    // Every ordinary connection held by a client that sends nothing.
    let mut idle = Vec::new();
    for _ in 0..MAX_CONNECTIONS {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    // Give the listener time to accept them all before the probes arrive.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let start = Instant::now();
    let (status, text) = get(addr, "/healthz", "localhost").await;
    assert_eq!(status, 200, "{text}");
    let (status, text) = get(addr, "/readyz", "localhost").await;
    assert_eq!(
        status, 503,
        "answered (not ready: no broker behind it): {text}"
    );
    assert!(text.ends_with("recovering\n"), "{text}");
    assert!(
        start.elapsed() < HEAD_DEADLINE,
        "answered while the idle connections were still held ({:?})",
        start.elapsed()
    );
    // The probes' slots serve the probes only.
    let (status, text) = get(addr, "/metrics", "localhost").await;
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("Retry-After: 1\r\n"), "{text}");
    assert!(!text.contains("hermit_"), "{text}");
    // Once the idle clients go, everything is served again.
    drop(idle);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, text) = get(addr, "/metrics", "localhost").await;
        if status == 200 {
            assert!(text.contains("hermit_"), "{text}");
            break;
        }
        assert!(Instant::now() < deadline, "still {status}: {text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_no_head_is_dropped_after_a_short_deadline() {
    let (addr, task) = admin(|_| {}).await;
    let start = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /metr").await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut raw))
        .await
        .expect("closed in time")
        .unwrap();
    let took = start.elapsed();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 408 "), "{text}");
    // A few seconds at most (it was 5 s), with room for a busy machine.
    assert!(took < Duration::from_secs(4), "held for {took:?}");
    assert!(
        took >= HEAD_DEADLINE - Duration::from_millis(100),
        "{took:?}"
    );
    task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_requests_naming_the_listener_in_host_are_answered() {
    let (addr, task) = admin(|_| {}).await;
    let port = addr.port();
    for host in [
        "localhost".to_owned(),
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "127.0.0.1".to_owned(),
        "LOCALHOST.".to_owned(),
    ] {
        for path in ["/metrics", "/healthz"] {
            let (status, text) = get(addr, path, &host).await;
            assert_eq!(status, 200, "{host} {path}: {text}");
        }
    }
    // A rebound name, a name that merely starts like ours, an address that
    // is not this listener's, two Host headers: nothing but the refusal.
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_owned(),
        format!("localhost.evil.example:{port}"),
        format!("192.0.2.1:{port}"),
        "localhost\r\nHost: evil.example".to_owned(),
    ] {
        for path in ["/metrics", "/healthz", "/readyz", "/nothing"] {
            let (status, text) = get(addr, path, &host).await;
            assert_eq!(status, 421, "{host:?} {path}: {text}");
            assert!(!text.contains("hermit_"), "{text}");
            assert!(
                text.contains("admin_hosts"),
                "the refusal names the key: {text}"
            );
        }
    }
    let (status, text) = exchange(addr, "GET /metrics HTTP/1.1\r\n\r\n").await;
    assert_eq!(status, 400, "no Host at all: {text}");
    task.abort();

    // `admin_hosts` adds names and addresses; the loopback names stay.
    let (addr, task) = admin(|c| {
        c.admin_hosts = vec!["metrics.example.com".into(), "192.0.2.1".into()];
    })
    .await;
    for host in ["metrics.example.com:9644", "192.0.2.1", "localhost"] {
        let (status, text) = get(addr, "/metrics", host).await;
        assert_eq!(status, 200, "{host}: {text}");
    }
    let (status, _) = get(addr, "/metrics", "evil.example").await;
    assert_eq!(status, 421);
    task.abort();
}
