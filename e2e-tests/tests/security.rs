//! The secure default, the TLS listener and the chat-inbox preset, through
//! real `hermit` processes: an open broker refuses a non-loopback address
//! unless told `allow_anonymous = true`; sealed messages round-trip over
//! `hermits://` only when the client trusts the CA that signed the broker;
//! under `acl_preset = "chat-inbox"` alone, new users chat first try and
//! create nothing but their own inbox and state topic.

use hermit_e2e_tests::{
    PASSWORD, assert_code, assert_ok, fingerprint, keygen, path_str, run_hermit, start_broker,
    start_configured,
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

/// `hermit produce` to a friend's inbox failed twice under the documented
/// policy before it worked (nobody could create an inbox; then the state
/// topic was missing). With the preset and nothing else — no admin, no
/// topic made beforehand — each step works on its first try, and what a
/// user may create is its own inbox and state topic (and group topics).
#[test]
fn under_the_chat_inbox_preset_new_users_chat_first_try() {
    let dir = tempfile::tempdir().unwrap();
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let (_, carol_pub) = keygen(dir.path(), "carol");
    let [alice_fp, bob_fp, carol_fp] = [&alice_pub, &bob_pub, &carol_pub].map(|p| fingerprint(p));
    let config = dir.path().join("hermit.toml");
    std::fs::write(
        &config,
        "auth = \"required\"\nacl_preset = \"chat-inbox\"\n",
    )
    .unwrap();
    let broker = start_configured(dir.path(), &config);
    let addr = broker.addr().to_string();
    let env = [
        ("HERMIT_PASSWORD", PASSWORD),
        ("HERMIT_BROKER", addr.as_str()),
    ];
    let bob_inbox = format!("inbox.{bob_fp}");
    let bob_group = format!("{bob_fp}.chat");
    let bob_reads = |extra: &[&str]| {
        let mut args = vec![
            "consume",
            "-t",
            &bob_inbox,
            "-i",
            path_str(&bob),
            "-g",
            &bob_group,
            "--trust",
            path_str(&alice_pub),
        ];
        args.extend_from_slice(extra);
        run_hermit(&args, b"", &env)
    };
    let alice_sends = |topic: &str, to: &std::path::Path, text: &str| {
        run_hermit(
            &[
                "produce",
                "-t",
                topic,
                "-i",
                path_str(&alice),
                "--to",
                path_str(to),
            ],
            text.as_bytes(),
            &env,
        )
    };

    // Bob joins: reading his inbox the first time creates it (and his
    // state topic, for the group's replay state). Nothing there yet.
    let out = bob_reads(&["--exit-on-end"]);
    assert_ok(&out);
    assert!(out.stdout.is_empty());
    // Alice, new here, writes to him: sealed, her budgets in her own state
    // topic, which her first send creates.
    assert_ok(&alice_sends(&bob_inbox, &bob_pub, "hello bob\n"));
    // Bob reads it with his group.
    let out = bob_reads(&["-c", "1"]);
    assert_ok(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello bob\n");
    // A second message, read from the group's committed offset.
    assert_ok(&alice_sends(&bob_inbox, &bob_pub, "again\n"));
    let out = bob_reads(&["-c", "1"]);
    assert_ok(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "again\n");

    // What the preset does not let them do. Carol never read her inbox:
    // Alice cannot make it for her.
    let carol_inbox = format!("inbox.{carol_fp}");
    let out = alice_sends(&carol_inbox, &carol_pub, "hi carol\n");
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{alice_fp} may not create it")) && err.contains(&carol_inbox),
        "{err}"
    );
    // Alice reads neither Bob's inbox nor his state, nor makes his state topic.
    let out = run_hermit(
        &[
            "consume",
            "-t",
            &bob_inbox,
            "-i",
            path_str(&alice),
            "--trust",
            path_str(&bob_pub),
            "--exit-on-end",
        ],
        b"",
        &env,
    );
    assert_code(&out, 4);
    for topic in [format!("state.{bob_fp}"), format!("inbox.{carol_fp}")] {
        let out = run_hermit(
            &["topics", "create", &topic, "-i", path_str(&alice)],
            b"",
            &env,
        );
        assert_code(&out, 4);
    }
    // Alice sees only her own topics: her state topic, no inbox (she has
    // not read hers), nothing of Bob's.
    let out = run_hermit(
        &["topics", "list", "-o", "json", "-i", path_str(&alice)],
        b"",
        &env,
    );
    assert_ok(&out);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains(&format!("state.{alice_fp}")), "{listed}");
    assert!(!listed.contains(&bob_fp), "{listed}");
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}
