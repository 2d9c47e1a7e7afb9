//! Harness for the black-box tests: build and spawn the real `hermit`
//! binary, find the address it listens on, signal and kill it.
//!
//! # Layout
//! - [`hermit_bin`]: the path of a freshly built `hermit` (built once per run).
//! - [`start_broker`]: a `hermit broker` child process ([`BrokerProcess`],
//!   shared with `hermit bench`) on a temp data dir.
//! - [`run_hermit`]: run any other `hermit` command and capture its output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

pub use hermit_benches::process::{BrokerProcess, Usage};

/// The `hermit` binary of this workspace, built (in the profile the tests
/// run in) the first time it is asked for.
pub fn hermit_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
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

/// Run `hermit args…` with `stdin` and extra environment; wait for it.
pub fn run_hermit(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(hermit_bin());
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
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

/// Start `hermit broker` on `data_dir` (see [`BrokerProcess::start`]);
/// panics with the broker's stderr if it does not come up within a minute.
pub fn start_broker(data_dir: &Path, listen: &str, extra: &[&str]) -> BrokerProcess {
    BrokerProcess::start(
        &hermit_bin(),
        data_dir,
        listen,
        extra,
        Duration::from_secs(60),
    )
    .unwrap_or_else(|lines| panic!("the broker did not start:\n{}", lines.join("\n")))
}
