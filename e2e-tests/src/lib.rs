//! Harness for the black-box tests: build and spawn the real `hermit`
//! binary, find the address it listens on, signal and kill it.
//!
//! # Layout
//! - [`hermit_bin`]: the path of a freshly built `hermit` (built once per run).
//! - [`start_broker`]: a `hermit broker` child process ([`BrokerProcess`],
//!   shared with `hermit bench`) on a temp data dir; [`start_broker_with`]
//!   under resource [`Limits`] (`ulimit -n`).
//! - [`run_hermit`]: run any other `hermit` command and capture its output;
//!   [`run_hermit_without_tty`] with no terminal to ask a password on;
//!   [`spawn_hermit`] + [`wait_output`] for long-running ones (`consume`);
//!   [`assert_code`] / [`assert_ok`] on what they return.
//! - [`keygen`]: a key pair made by `hermit keygen` under [`PASSWORD`];
//!   [`fingerprint`] of its `.pub` file (the principal it authenticates as).
//! - [`auth_config`]: a broker config file with `auth = "required"`, an
//!   admin and the chat-inbox ACL ([`INBOX_ACL`], docs/SECURITY.md §3);
//!   [`create_topic`] as the admin.
//! - [`mls`]: users of MLS conversations through `hermit` processes
//!   ([`mls::MlsUser`]) and the three-user flow the broker and NATS tests share.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

pub use hermit_benches::process::{BrokerProcess, Limits, Usage};

pub mod mls;

/// The `hermit` binary of this workspace, built (in the profile the tests
/// run in) the first time it is asked for; `HERMITMQ_BIN` names another
/// (to run a test against an older build, as the JavaScript tests do).
pub fn hermit_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("HERMITMQ_BIN") {
            return PathBuf::from(bin);
        }
        // target/<profile>/deps/<test-exe> → target/<profile>/hermit
        let exe = std::env::current_exe().expect("the test knows its own path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("tests run from target/<profile>/deps")
            .to_path_buf();
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", "hermit-cli", "--bin", "hermit"]);
        if release {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("cargo runs");
        assert!(status.success(), "building hermit failed");
        let bin = profile_dir.join("hermit");
        assert!(bin.exists(), "no binary at {}", bin.display());
        bin
    })
    .clone()
}

/// Where the `hermit` commands of this test process keep their client
/// state directories (`XDG_STATE_HOME`, one directory per identity under
/// it): a directory of this process under the system's temporary
/// directory, never the user's own. A test that needs its own sets
/// `HERMIT_STATE_DIR`.
pub fn state_home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("hermit-e2e-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a state home for the tests");
        dir
    })
}

/// Run `hermit args…` with `stdin` and extra environment; wait for it.
pub fn run_hermit(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    run(args, stdin, env, false)
}

/// Like [`run_hermit`], but in a new session without a controlling
/// terminal and without `HERMIT_PASSWORD` from the test's environment, so
/// a command that would ask for a password on `/dev/tty` fails instead of
/// waiting for a person (when the tests run from a shell).
pub fn run_hermit_without_tty(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    run(args, stdin, env, true)
}

fn run(args: &[&str], stdin: &[u8], env: &[(&str, &str)], without_tty: bool) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(hermit_bin());
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.env("XDG_STATE_HOME", state_home());
    if without_tty {
        use std::os::unix::process::CommandExt;
        cmd.env_remove("HERMIT_PASSWORD");
        // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                rustix::process::setsid()
                    .map(drop)
                    .map_err(std::io::Error::from)
            });
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn hermit");
    let mut input = child.stdin.take().expect("piped stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait for hermit");
    let _ = writer.join();
    out
}

/// Assert that a finished `hermit` exited with `code`; shows its stdout
/// and stderr otherwise.
#[track_caller]
pub fn assert_code(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// [`assert_code`] 0.
#[track_caller]
pub fn assert_ok(out: &Output) {
    assert_code(out, 0);
}

/// Start `hermit broker` on `data_dir` (see [`BrokerProcess::start`]);
/// panics with the broker's stderr if it does not come up within a minute.
pub fn start_broker(data_dir: &Path, listen: &str, extra: &[&str]) -> BrokerProcess {
    start_broker_with(data_dir, listen, extra, Limits::default())
}

/// A broker on loopback with its data in `dir/data`, configured by the
/// file `config` (as the README's first command runs it, with `--config`).
pub fn start_configured(dir: &Path, config: &Path) -> BrokerProcess {
    start_broker(
        &dir.join("data"),
        "127.0.0.1:0",
        &["--config", path_str(config)],
    )
}

/// [`start_broker`] under resource `limits` (set in the child before it
/// runs the broker, as a shell's `ulimit` would).
pub fn start_broker_with(
    data_dir: &Path,
    listen: &str,
    extra: &[&str],
    limits: Limits,
) -> BrokerProcess {
    BrokerProcess::start_with(
        &hermit_bin(),
        data_dir,
        listen,
        extra,
        Duration::from_secs(60),
        limits,
    )
    .unwrap_or_else(|lines| panic!("the broker did not start:\n{}", lines.join("\n")))
}

/// The password every key made by [`keygen`] is wrapped under.
pub const PASSWORD: &str = "correct horse battery staple";

/// Make a key pair with `hermit keygen --out DIR/NAME.key` (password from
/// `HERMIT_PASSWORD`, never an argument); returns the key file and the
/// `.pub` file it wrote beside it.
pub fn keygen(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let key = dir.join(format!("{name}.key"));
    let out = run_hermit(
        &["keygen", "--out", path_str(&key)],
        b"",
        &[("HERMIT_PASSWORD", PASSWORD)],
    );
    assert_ok(&out);
    (key, dir.join(format!("{name}.pub")))
}

/// A path as `&str` (test paths are UTF-8).
pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// A long-running `hermit` command (e.g. `consume`) with piped stdout and
/// stderr and no stdin.
pub fn spawn_hermit(args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
    let mut cmd = Command::new(hermit_bin());
    cmd.env("XDG_STATE_HOME", state_home());
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawn hermit")
}

/// Wait for `child` to exit by itself and collect its output; kill it and
/// panic if it is still running after `limit` (a hung test fails instead
/// of hanging the suite).
pub fn wait_output(child: std::process::Child, limit: Duration) -> Output {
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.expect("wait for hermit"),
        Err(_) => {
            if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
            let out = rx.recv().ok().and_then(Result::ok);
            panic!(
                "hermit (pid {pid}) still running after {limit:?}; stderr:\n{}",
                out.map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
                    .unwrap_or_default()
            );
        }
    }
}

/// `hermit pubkey --fingerprint`: the 64-hex-digit principal of a key.
pub fn fingerprint(pub_file: &Path) -> String {
    let out = run_hermit(&["pubkey", "--fingerprint", path_str(pub_file)], b"", &[]);
    assert_ok(&out);
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The chat-inbox policy of docs/SECURITY.md §3: anyone authenticated may
/// write to any `inbox.<fingerprint>`, only its owner may read and see it
/// (and use groups named `<fingerprint>.*` on it, the default), and each
/// principal has its own `state.<fingerprint>` topic for the SDK's sealed state.
pub const INBOX_ACL: &str = r#"
[[acl]]
principal = "*"
topics = "inbox.*"
allow = ["produce"]
[[acl]]
principal = "*"
topics = "inbox.{principal}"
allow = ["consume", "describe"]
[[acl]]
principal = "*"
topics = "state.{principal}"
allow = ["produce", "consume", "create", "describe"]
"#;

/// Write `DIR/hermit.toml` for `hermit broker --config`: `auth =
/// "required"`, `admin_fp` the only admin, the [`INBOX_ACL`] rules, then
/// `extra` (more rules). Returns the file.
pub fn auth_config(dir: &Path, admin_fp: &str, extra: &str) -> PathBuf {
    let file = dir.join("hermit.toml");
    let text = format!("auth = \"required\"\nadmins = [\"{admin_fp}\"]\n{INBOX_ACL}{extra}");
    std::fs::write(&file, text).expect("write the broker config");
    file
}

/// `hermit topics create TOPIC` on `broker` as the holder of `admin_key`
/// (a key made by [`keygen`]); asserts it succeeded.
pub fn create_topic(broker: &str, admin_key: &Path, topic: &str) {
    let out = run_hermit(
        &[
            "topics",
            "create",
            topic,
            "--broker",
            broker,
            "--identity",
            path_str(admin_key),
        ],
        b"",
        &[("HERMIT_PASSWORD", PASSWORD)],
    );
    assert_ok(&out);
}
