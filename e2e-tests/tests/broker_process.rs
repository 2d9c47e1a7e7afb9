//! The `hermit broker` process: lock, signals, exit codes, configuration errors.

use hermit_e2e_tests::{BrokerProcess, run_hermit};

#[test]
fn a_second_broker_on_the_same_directory_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let first = BrokerProcess::start(dir.path(), "127.0.0.1:0", &[]);
    let out = run_hermit(
        &[
            "broker",
            "--listen",
            "127.0.0.1:0",
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
    assert_eq!(first.terminate().code(), Some(0));
}

#[test]
fn sigterm_exits_zero_and_releases_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let b = BrokerProcess::start(dir.path(), "127.0.0.1:0", &[]);
    let addr = b.addr();
    let status = b.terminate();
    assert_eq!(status.code(), Some(0));
    // The same directory and address are usable at once.
    let again = BrokerProcess::start(dir.path(), &addr.to_string(), &[]);
    assert_eq!(again.addr(), addr);
    assert_eq!(again.terminate().code(), Some(0));
}

#[test]
fn sigint_is_graceful_too() {
    let dir = tempfile::tempdir().unwrap();
    let b = BrokerProcess::start(dir.path(), "127.0.0.1:0", &[]);
    b.signal(rustix::process::Signal::INT);
    assert_eq!(b.wait().code(), Some(0));
}

#[test]
fn invalid_configuration_exits_2_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let cases: [(&[&str], &[(&str, &str)], &str); 3] = [
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

#[test]
fn kill9_then_restart_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let b = BrokerProcess::start(dir.path(), "127.0.0.1:0", &[]);
    b.kill9();
    // The lock died with the process.
    let again = BrokerProcess::start(dir.path(), "127.0.0.1:0", &[]);
    assert_eq!(again.terminate().code(), Some(0));
    let out = run_hermit(&["log", "check", dir.path().to_str().unwrap()], b"", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
