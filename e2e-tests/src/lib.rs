//! Harness for the black-box tests: build and spawn the real `hermit`
//! binary, find the address it listens on, signal and kill it.
//!
//! # Layout
//! - [`hermit_bin`]: the path of a freshly built `hermit` (built once per run).
//! - [`BrokerProcess`]: a `hermit broker` child process on a temp data dir.
//! - [`run_hermit`]: run any other `hermit` command and capture its output.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

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

/// A `hermit broker` child process.
pub struct BrokerProcess {
    child: Child,
    addr: SocketAddr,
    data_dir: PathBuf,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl BrokerProcess {
    /// Start a broker on `data_dir` listening on `listen` (`127.0.0.1:0` for
    /// any port) with extra flags; returns once it listens.
    pub fn start(data_dir: &Path, listen: &str, extra: &[&str]) -> BrokerProcess {
        Self::try_start(data_dir, listen, extra)
            .unwrap_or_else(|lines| panic!("the broker did not start:\n{}", lines.join("\n")))
    }

    /// Like [`BrokerProcess::start`], but a broker that exits before
    /// listening gives back its stderr lines.
    pub fn try_start(
        data_dir: &Path,
        listen: &str,
        extra: &[&str],
    ) -> Result<BrokerProcess, Vec<String>> {
        let mut child = Command::new(hermit_bin())
            .args(["broker", "--listen", listen, "--data-dir"])
            .arg(data_dir)
            .args(["--log-format", "text"])
            .args(extra)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn hermit broker");
        let stderr = child.stderr.take().expect("piped stderr");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    let line = strip_ansi(&line);
                    if let Some(addr) = line
                        .split("listening addr=")
                        .nth(1)
                        .and_then(|rest| rest.split_whitespace().next())
                        .and_then(|a| a.parse::<SocketAddr>().ok())
                    {
                        let _ = tx.send(addr);
                    }
                    lines.lock().unwrap_or_else(|p| p.into_inner()).push(line);
                }
            });
        }
        // The reader thread drops `tx` when stderr closes (the broker exited).
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(addr) => Ok(BrokerProcess {
                child,
                addr,
                data_dir: data_dir.to_path_buf(),
                stderr: lines,
            }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(lines.lock().unwrap_or_else(|p| p.into_inner()).clone())
            }
        }
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What it logged so far.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Send a signal.
    pub fn signal(&self, sig: rustix::process::Signal) {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).expect("a live pid");
        rustix::process::kill_process(pid, sig).expect("signal the broker");
    }

    /// SIGTERM, then wait for the exit.
    pub fn terminate(mut self) -> ExitStatus {
        self.signal(rustix::process::Signal::TERM);
        self.child.wait().expect("wait for the broker")
    }

    /// Wait for the process to exit by itself.
    pub fn wait(mut self) -> ExitStatus {
        self.child.wait().expect("wait for the broker")
    }

    /// SIGKILL (a crash), then reap it.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for BrokerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
