//! The `hermit broker` process: lock, signals, exit codes, configuration errors.

use hermit_e2e_tests::{PASSWORD, assert_ok, keygen, path_str, run_hermit, start_broker};

#[test]
fn a_second_broker_on_the_same_directory_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let first = start_broker(dir.path(), "127.0.0.1:0", &[]);
    let out = run_hermit(
        &[
            "broker",
            "--listen",
            "127.0.0.1:0",
            "--admin-listen",
            "off",
            "--data-dir",
            dir.path().to_str().unwrap(),
        ],
        b"",
        &[],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another broker may be using this directory")
            && err.contains(&format!("pid {}", first.pid())),
        "{err}"
    );
    assert_eq!(first.terminate().unwrap().code(), Some(0));
}

#[test]
fn sigterm_exits_zero_and_releases_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let b = start_broker(dir.path(), "127.0.0.1:0", &[]);
    let addr = b.addr();
    let status = b.terminate().unwrap();
    assert_eq!(status.code(), Some(0));
    // The same directory and address are usable at once.
    let again = start_broker(dir.path(), &addr.to_string(), &[]);
    assert_eq!(again.addr(), addr);
    assert_eq!(again.terminate().unwrap().code(), Some(0));
}

#[test]
fn sigint_is_graceful_too() {
    let dir = tempfile::tempdir().unwrap();
    let b = start_broker(dir.path(), "127.0.0.1:0", &[]);
    b.signal(rustix::process::Signal::INT).unwrap();
    assert_eq!(b.wait().unwrap().code(), Some(0));
}

#[test]
fn invalid_configuration_exits_2_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 3] = [
        (
            &["broker", "--data-dir", d, "--set", "fsinc=always"],
            &[],
            "fsinc",
        ),
        (
            &["broker", "--data-dir", d, "--fsync", "sometimes"],
            &[],
            "--fsync",
        ),
        (
            &["broker", "--data-dir", d],
            &[("HERMIT_SEGMENT_BYTES", "lots")],
            "HERMIT_SEGMENT_BYTES",
        ),
    ];
    for (args, env, needle) in cases {
        let out = run_hermit(args, b"", env);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let file = dir.path().join("hermit.toml");
    std::fs::write(&file, "fsync = \"always\"\nmax_conections = 5\n").unwrap();
    let out = run_hermit(
        &[
            "broker",
            "--config",
            file.to_str().unwrap(),
            "--data-dir",
            d,
        ],
        b"",
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_conections"));
}

/// Messages acknowledged by the CLI (durable acks, the default) survive a
/// SIGKILL: the restarted broker (the lock died with the process) serves
/// them, and the data directory checks clean afterwards. Under load and
/// over several kills: durability.rs.
#[test]
fn kill9_then_restart_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let b = start_broker(&data, "127.0.0.1:0", &[]);
    let addr = b.addr().to_string();
    let env = [
        ("HERMIT_PASSWORD", PASSWORD),
        ("HERMIT_BROKER", addr.as_str()),
    ];
    let sent = "before the kill 1\nbefore the kill 2\nbefore the kill 3\n";
    assert_ok(&run_hermit(
        &[
            "produce",
            "-t",
            "t",
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
        ],
        sent.as_bytes(),
        &env,
    ));
    b.kill9();
    let again = start_broker(&data, "127.0.0.1:0", &[]);
    let addr = again.addr().to_string();
    let env = [
        ("HERMIT_PASSWORD", PASSWORD),
        ("HERMIT_BROKER", addr.as_str()),
    ];
    let out = run_hermit(
        &[
            "consume",
            "-t",
            "t",
            "-i",
            path_str(&bob),
            "--trust",
            path_str(&alice_pub),
            "--exit-on-end",
        ],
        b"",
        &env,
    );
    assert_ok(&out);
    assert_eq!(String::from_utf8_lossy(&out.stdout), sent);
    assert_eq!(again.terminate().unwrap().code(), Some(0));
    assert_ok(&run_hermit(&["log", "check", path_str(&data)], b"", &[]));
}
