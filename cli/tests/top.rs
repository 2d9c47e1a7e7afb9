//! `hermit top --once` against a stand-in admin listener on a real socket:
//! what it asks for, what it prints, and how it fails.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Output};
use std::thread::JoinHandle;

const FIXTURE: &str = include_str!("fixtures/metrics.txt");

/// Serves one canned response per connection, `answers.len()` times, and
/// returns the request heads it read.
fn serve(answers: Vec<Vec<u8>>) -> (String, JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let handle = std::thread::spawn(move || {
        let mut heads = Vec::new();
        for answer in answers {
            let (mut conn, _) = listener.accept().expect("accept");
            heads.push(read_head(&mut conn));
            conn.write_all(&answer).expect("answer");
            // Dropping the stream closes it: `Connection: close`.
        }
        heads
    });
    (addr, handle)
}

fn read_head(conn: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match conn.read(&mut byte).expect("read request") {
            0 => break,
            _ => head.push(byte[0]),
        }
    }
    String::from_utf8(head).expect("request head is text")
}

fn ok(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn hermit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hermit"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run hermit")
}

#[test]
fn once_prints_rates_from_two_scrapes() {
    let later = FIXTURE.replace(
        r#"hermit_partition_records_in_total{topic="chat",partition="0"} 1000"#,
        r#"hermit_partition_records_in_total{topic="chat",partition="0"} 1500"#,
    );
    let (addr, server) = serve(vec![ok(FIXTURE), ok(&later)]);
    let dir = tempfile::tempdir().expect("temp dir");
    let token = dir.path().join("admin.token");
    std::fs::write(&token, "t0k3n-for-metrics\n").expect("token file");
    let out = hermit(&[
        "top",
        "--once",
        "--admin",
        &addr,
        "--token-file",
        token.to_str().expect("utf-8 path"),
        "--interval",
        "200",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr, "", "nothing on stderr when all went well");

    let heads = server.join().expect("server");
    assert_eq!(heads.len(), 2);
    for head in &heads {
        assert!(head.starts_with("GET /metrics HTTP/1.1\r\n"), "{head}");
        assert!(head.contains(&format!("\r\nHost: {addr}\r\n")), "{head}");
        assert!(
            head.contains("\r\nAuthorization: Bearer t0k3n-for-metrics\r\n"),
            "{head}"
        );
    }

    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with(&format!(
            "{addr} v0.1.0  ready yes  up 1h02m  connections 12"
        )),
        "{stdout}"
    );
    let chat = lines
        .iter()
        .find(|l| l.starts_with("chat "))
        .expect("a row for chat");
    // 500 records over at least the 200 ms asked for: at most 2500/s.
    let rate: f64 = chat
        .split_whitespace()
        .nth(2)
        .expect("rate column")
        .parse()
        .expect("a number");
    assert!(rate > 0.0 && rate <= 2500.0, "{chat}");
    assert!(stdout.contains("GROUP"), "{stdout}");
    assert!(
        !stdout.contains('\x1b'),
        "no terminal controls in the snapshot"
    );
}

#[test]
fn a_refused_token_is_an_auth_failure() {
    let (addr, server) = serve(vec![
        b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 14\r\n\r\nbearer token\r\n".to_vec(),
    ]);
    let out = hermit(&["top", "--once", "--admin", &addr]);
    let heads = server.join().expect("server");
    assert!(
        !heads[0].contains("Authorization"),
        "no token given, none sent"
    );
    assert_eq!(out.status.code(), Some(4));
    assert!(out.stdout.is_empty(), "errors never go to stdout");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/metrics answered 401 Unauthorized: bearer token"),
        "{stderr}"
    );
}

#[test]
fn a_server_error_and_no_listener_are_connection_failures() {
    let (addr, server) = serve(vec![b"HTTP/1.1 503 Service Unavailable\r\n\r\n".to_vec()]);
    let out = hermit(&["top", "--once", "--admin", &addr]);
    server.join().expect("server");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("503 Service Unavailable"));

    // A port nobody listens on (bound, then released).
    let free = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .to_string();
    let out = hermit(&["top", "--once", "--admin", &free]);
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("cannot connect to {free}")),
        "{stderr}"
    );
}

#[test]
fn a_missing_metric_set_still_prints() {
    // A broker serving nothing hermit top knows.
    let (addr, server) = serve(vec![ok("# nothing\nother_metric 1\n"), ok("")]);
    let out = hermit(&["top", "--once", "--admin", &addr, "--interval", "100"]);
    server.join().expect("server");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ready –  up –  connections –"), "{stdout}");
}

#[test]
fn without_a_terminal_the_full_screen_is_refused() {
    let out = hermit(&["top", "--admin", "127.0.0.1:1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--once"));
}
