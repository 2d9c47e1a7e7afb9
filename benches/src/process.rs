//! A `hermit broker` child process: spawn it on a data directory (under
//! resource [`Limits`] if asked), learn the address it listens on from its
//! log, signal it, and read its CPU time, memory and open files from
//! `/proc`. Used by `hermit bench` (the broker's cost is measured apart from
//! the load generator's) and by the black-box tests.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// CPU time and peak memory of a process, from `/proc/<pid>`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    /// User + system CPU seconds so far.
    pub cpu_seconds: f64,
    /// Peak resident set size (VmHWM), bytes.
    pub peak_rss_bytes: u64,
    /// Current resident set size (VmRSS), bytes.
    pub rss_bytes: u64,
}

/// Read a process's usage; `None` if it is gone or `/proc` is unreadable.
pub fn usage(pid: u32) -> Option<Usage> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name (which may contain spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 here.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let hz = rustix::param::clock_ticks_per_second() as f64;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb = |key: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(key))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
    };
    Some(Usage {
        cpu_seconds: ticks as f64 / hz,
        peak_rss_bytes: kb("VmHWM:")? * 1024,
        rss_bytes: kb("VmRSS:")? * 1024,
    })
}

/// Files a process has open (the entries of `/proc/<pid>/fd`); `None` if
/// it is gone or `/proc` is unreadable.
pub fn open_files(pid: u32) -> Option<u64> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as u64)
}

/// Resource limits a started broker runs under, set in the child between
/// `fork` and `exec` (nothing external such as `prlimit` is needed, and the
/// broker sees them from its first instruction, as under a shell's `ulimit`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// RLIMIT_NOFILE, soft and hard alike (`ulimit -n N`); `None` inherits
    /// this process's. Default `None`.
    pub nofile: Option<u64>,
}

/// Lines kept of a broker's log whatever their level; after them only
/// warnings and errors are kept, so that a broker logging an audit line
/// per topic for a million topics does not fill the test's memory.
const KEPT_LINES: usize = 10_000;

/// The level of a line of the broker's text log (`<time> <LEVEL> <target>:
/// …`), if it has one.
fn level(line: &str) -> Option<&str> {
    line.split_whitespace()
        .nth(1)
        .filter(|l| ["TRACE", "DEBUG", "INFO", "WARN", "ERROR"].contains(l))
}

/// Whether a log line is a warning or an error.
fn is_warning(line: &str) -> bool {
    matches!(level(line), Some("WARN" | "ERROR"))
}

/// A listener's address logged after the plain one (TLS, WebSocket), once
/// known, or the channel it will arrive on.
enum LaterAddr {
    Waiting(mpsc::Receiver<SocketAddr>),
    Known(Option<SocketAddr>),
}

/// The address logged after `marker` (`"listening addr="`, `"listening
/// (TLS) addr="`), if `line` is such a line.
fn logged_addr(line: &str, marker: &str) -> Option<SocketAddr> {
    line.split(marker)
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|a| a.parse::<SocketAddr>().ok())
}

/// The address `slot` waits for: up to `timeout` the first time, then
/// what came (or `None`).
fn logged_later(slot: &Mutex<LaterAddr>, timeout: Duration) -> Option<SocketAddr> {
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    if let LaterAddr::Waiting(rx) = &*slot {
        *slot = LaterAddr::Known(rx.recv_timeout(timeout).ok());
    }
    match &*slot {
        LaterAddr::Known(addr) => *addr,
        LaterAddr::Waiting(_) => None,
    }
}

/// A `hermit broker` child process.
pub struct BrokerProcess {
    child: Child,
    addr: SocketAddr,
    /// The admin listener's address (`None` with `--admin-listen off`).
    admin: Option<SocketAddr>,
    /// The TLS listener's address, sent by the log reader when it sees
    /// "listening (TLS)"; a Mutex because `Receiver` is not `Sync` and
    /// [`BrokerProcess::tls_addr`] takes `&self`.
    tls: Mutex<LaterAddr>,
    /// The WebSocket listener's address (`ws_listen`), likewise.
    ws: Mutex<LaterAddr>,
    stderr: Arc<Mutex<Vec<String>>>,
    /// From spawn to the "listening" log line.
    pub startup: Duration,
}

impl BrokerProcess {
    /// Start `hermit` (at `bin`) as a broker on `data_dir`, listening on
    /// `listen` (`127.0.0.1:0` for any port), with extra flags; returns once
    /// it listens, or its stderr if it exits first (or within `timeout`).
    pub fn start(
        bin: &Path,
        data_dir: &Path,
        listen: &str,
        extra: &[&str],
        timeout: Duration,
    ) -> Result<BrokerProcess, Vec<String>> {
        Self::start_with(bin, data_dir, listen, extra, timeout, Limits::default())
    }

    /// [`BrokerProcess::start`] under `limits`.
    pub fn start_with(
        bin: &Path,
        data_dir: &Path,
        listen: &str,
        extra: &[&str],
        timeout: Duration,
        limits: Limits,
    ) -> Result<BrokerProcess, Vec<String>> {
        use std::os::unix::process::CommandExt as _;
        let started = Instant::now();
        let mut cmd = Command::new(bin);
        cmd.args(["broker", "--listen", listen, "--data-dir"])
            .arg(data_dir)
            .args(["--log-format", "text"]);
        // Any free port for the admin listener unless the caller chose one:
        // brokers started side by side must not fight over 9644.
        if !extra
            .iter()
            .any(|a| a.contains("admin-listen") || a.contains("admin_listen"))
        {
            cmd.args(["--admin-listen", "127.0.0.1:0"]);
        }
        cmd.args(extra)
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(n) = limits.nofile {
            let limit = rustix::process::Rlimit {
                current: Some(n),
                maximum: Some(n),
            };
            // SAFETY: setrlimit is one system call: async-signal-safe, no
            // allocation, no lock, nothing of the parent's memory touched.
            unsafe {
                cmd.pre_exec(move || {
                    rustix::process::setrlimit(rustix::process::Resource::Nofile, limit)
                        .map_err(std::io::Error::from)
                });
            }
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| vec![format!("cannot spawn {}: {e}", bin.display())])?;
        let Some(stderr) = child.stderr.take() else {
            return Err(vec!["no stderr pipe".into()]);
        };
        let lines = Arc::new(Mutex::new(Vec::new()));
        let admin_addr = Arc::new(Mutex::new(None));
        let (tx, rx) = mpsc::channel();
        let (tls_tx, tls_rx) = mpsc::channel();
        let (ws_tx, ws_rx) = mpsc::channel();
        {
            let lines = lines.clone();
            let admin = admin_addr.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    let line = strip_ansi(&line);
                    if let Some(addr) = logged_addr(&line, "listening addr=") {
                        let _ = tx.send(addr);
                    }
                    if let Some(addr) = logged_addr(&line, "listening (TLS) addr=") {
                        let _ = tls_tx.send(addr);
                    }
                    if let Some(addr) = logged_addr(&line, "listening (WebSocket) addr=") {
                        let _ = ws_tx.send(addr);
                    }
                    if line.contains("admin listening")
                        && let Some(addr) = logged_addr(&line, "addr=")
                    {
                        *admin.lock().unwrap_or_else(|p| p.into_inner()) = Some(addr);
                    }
                    let mut lines = lines.lock().unwrap_or_else(|p| p.into_inner());
                    if lines.len() < KEPT_LINES || is_warning(&line) {
                        lines.push(line);
                    }
                }
            });
        }
        // The reader thread drops `tx` when stderr closes (the broker exited).
        match rx.recv_timeout(timeout) {
            Ok(addr) => Ok(BrokerProcess {
                child,
                addr,
                // Logged before the broker listens: known by now.
                admin: *admin_addr.lock().unwrap_or_else(|p| p.into_inner()),
                tls: Mutex::new(LaterAddr::Waiting(tls_rx)),
                ws: Mutex::new(LaterAddr::Waiting(ws_rx)),
                stderr: lines,
                startup: started.elapsed(),
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

    /// Where its admin listener (`/metrics`, `/healthz`, `/readyz`) listens.
    pub fn admin_addr(&self) -> Option<SocketAddr> {
        self.admin
    }

    /// Where its TLS listener (`tls_listen`) listens: the broker logs it
    /// right after the plain address, so this waits up to `timeout` for
    /// that line; `None` when none came (no TLS listener, or the broker
    /// exited).
    pub fn tls_addr(&self, timeout: Duration) -> Option<SocketAddr> {
        logged_later(&self.tls, timeout)
    }

    /// Where its WebSocket listener (`ws_listen`) listens, as
    /// [`tls_addr`](BrokerProcess::tls_addr) waits for the TLS one.
    pub fn ws_addr(&self, timeout: Duration) -> Option<SocketAddr> {
        logged_later(&self.ws, timeout)
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its CPU time and memory so far.
    pub fn usage(&self) -> Option<Usage> {
        usage(self.child.id())
    }

    /// What it logged so far: every line of the first 10,000, then its
    /// warnings and errors only.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The lines it logged so far at level WARN or ERROR.
    pub fn warnings(&self) -> Vec<String> {
        self.stderr
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|l| is_warning(l))
            .cloned()
            .collect()
    }

    /// Files it has open now (`/proc/<pid>/fd`).
    pub fn open_files(&self) -> Option<u64> {
        open_files(self.child.id())
    }

    /// Send a signal.
    pub fn signal(&self, sig: rustix::process::Signal) -> std::io::Result<()> {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32)
            .ok_or_else(|| std::io::Error::other("pid 0"))?;
        rustix::process::kill_process(pid, sig).map_err(std::io::Error::from)
    }

    /// SIGTERM, then wait for the exit.
    pub fn terminate(mut self) -> std::io::Result<ExitStatus> {
        self.signal(rustix::process::Signal::TERM)?;
        self.child.wait()
    }

    /// Wait for the process to exit by itself.
    pub fn wait(mut self) -> std::io::Result<ExitStatus> {
        self.child.wait()
    }

    /// SIGKILL (a crash), then reap it.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for BrokerProcess {
    fn drop(&mut self) {
        // Idempotent: a process already reaped makes these calls fail harmlessly.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_usage() {
        let u = usage(std::process::id()).expect("/proc is readable");
        assert!(u.peak_rss_bytes >= u.rss_bytes && u.rss_bytes > 0);
        assert!(u.cpu_seconds >= 0.0);
    }

    #[test]
    fn finds_the_plain_and_the_tls_address_apart() {
        let plain = "INFO hermit_broker::net: listening addr=127.0.0.1:4000";
        let tls = "INFO hermit_broker::net: listening (TLS) addr=127.0.0.1:4001";
        let want = |p: u16| Some(SocketAddr::from(([127, 0, 0, 1], p)));
        assert_eq!(logged_addr(plain, "listening addr="), want(4000));
        assert_eq!(logged_addr(tls, "listening addr="), None);
        assert_eq!(logged_addr(tls, "listening (TLS) addr="), want(4001));
        assert_eq!(logged_addr(plain, "listening (TLS) addr="), None);
    }

    #[test]
    fn tells_warnings_from_other_lines() {
        let line = |level: &str| format!("2026-12-01T14:47:36.538183Z {level} hermit::broker: x");
        assert!(is_warning(&line("WARN")) && is_warning(&line(" ERROR")));
        assert!(!is_warning(&line(" INFO")) && !is_warning(&line("DEBUG")));
        // A message that merely mentions a level is not one.
        assert!(!is_warning(&line(" INFO hermit: WARN ERROR")));
        assert!(!is_warning("WARN"));
    }

    #[test]
    fn strips_colour_codes() {
        assert_eq!(
            strip_ansi("\u{1b}[2mlistening\u{1b}[0m addr=1"),
            "listening addr=1"
        );
    }
}
