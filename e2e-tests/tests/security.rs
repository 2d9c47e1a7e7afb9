//! The secure default and the TLS listener, through real `hermit`
//! processes: an open broker refuses a non-loopback address unless told
//! `allow_anonymous = true`, and sealed messages round-trip over
//! `hermits://` only when the client trusts the CA that signed the broker.

use hermit_e2e_tests::{
    PASSWORD, assert_code, assert_ok, keygen, path_str, run_hermit, start_broker,
};
use std::time::Duration;

#[test]
fn an_open_broker_refuses_a_non_loopback_listener_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Binding 0.0.0.0 only listens; nothing connects but from loopback.
    let out = run_hermit(
        &[
            "broker",
            "--listen",
            "0.0.0.0:0",
            "--data-dir",
            path_str(&data),
        ],
        b"",
        &[],
    );
    assert_code(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("auth") && err.contains("allow_anonymous"),
        "{err}"
    );

    let config = dir.path().join("open.toml");
    std::fs::write(&config, "allow_anonymous = true\n").unwrap();
    let broker = start_broker(&data, "0.0.0.0:0", &["--config", path_str(&config)]);
    let log = broker.stderr().join("\n");
    assert!(log.contains("allow_anonymous"), "{log}");
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}

/// `hermit tls self-signed --out DIR`, asserting it worked.
fn self_signed(dir: &std::path::Path) {
    assert_ok(&run_hermit(
        &["tls", "self-signed", "--out", path_str(dir)],
        b"",
        &[],
    ));
}

#[test]
fn sealed_messages_round_trip_over_tls_with_the_brokers_ca_only() {
    let dir = tempfile::tempdir().unwrap();
    let tls = dir.path().join("tls");
    let other = dir.path().join("other-ca");
    self_signed(&tls);
    self_signed(&other);
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let set = |k: &str, p: &std::path::Path| format!("{k}={}", path_str(p));
    let (cert, key) = (
        set("tls_cert", &tls.join("broker.pem")),
        set("tls_key", &tls.join("broker.key")),
    );
    // The broker refuses `tls_listen` equal to `listen`, `127.0.0.1:0`
    // twice included: pick a free port for the TLS listener first.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let tls_port = free.local_addr().unwrap().port();
    drop(free);
    let tls_listen = format!("tls_listen=127.0.0.1:{tls_port}");
    let broker = start_broker(
        &dir.path().join("data"),
        "127.0.0.1:0",
        &["--set", &tls_listen, "--set", &cert, "--set", &key],
    );
    let tls_addr = broker
        .tls_addr(Duration::from_secs(30))
        .expect("the broker logs its TLS address");
    assert_eq!(tls_addr.port(), tls_port);
    let url = format!("hermits://{tls_addr}");
    let ca = tls.join("ca.pem");
    let env = [("HERMIT_PASSWORD", PASSWORD)];

    let sent = run_hermit(
        &[
            "produce",
            "--broker",
            &url,
            "--ca",
            path_str(&ca),
            "-t",
            "tls-chat",
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
        ],
        b"over TLS\n",
        &env,
    );
    assert_ok(&sent);
    let consume = |ca: &std::path::Path| {
        run_hermit(
            &[
                "consume",
                "--broker",
                &url,
                "--ca",
                path_str(ca),
                "-t",
                "tls-chat",
                "-i",
                path_str(&bob),
                "--trust",
                path_str(&alice_pub),
                "--exit-on-end",
            ],
            b"",
            &env,
        )
    };
    let read = consume(&ca);
    assert_ok(&read);
    assert_eq!(String::from_utf8_lossy(&read.stdout), "over TLS\n");

    // Another CA did not sign the broker's certificate: refused, nothing read.
    let refused = consume(&other.join("ca.pem"));
    assert_ne!(refused.status.code(), Some(0));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("certificate"), "{err}");
    assert!(refused.stdout.is_empty());
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}
