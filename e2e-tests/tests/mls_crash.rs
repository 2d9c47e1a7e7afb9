//! `hermit group read --follow` survives SIGKILL (docs/MLS.md §10.2):
//! Bob's reader is killed twelve times while Alice's `hermit group send -`
//! process sends, and restarted each time with `--after` the last offset
//! its output holds (what a script that appends the output to a file
//! does). Across all runs every message is printed, none twice, in order.
//!
//! The kills land at three kinds of moments, four of each:
//! - **processed, not printed**: the reader's stdout is a pipe of one page
//!   that the test stops draining, and the kill comes once a thread of the
//!   reader is blocked in `write(1, …)`: the records are processed and
//!   their events saved in the group file, the line being written is not
//!   out, and nothing of the batch is acknowledged — the lines already in
//!   the pipe are printed and unacknowledged (the repeat window that
//!   `--after` closes);
//! - **right after a write of the group file**: the test spins on the
//!   file's inode (each write is a rename) and kills on the first change,
//!   wherever the reader then is (between processing and printing, or
//!   after the acknowledgement);
//! - **at a random moment** while messages arrive.

use std::io::{Read as _, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout};
use std::time::{Duration, Instant};

use hermit_e2e_tests::mls::MlsUser;
use hermit_e2e_tests::start_broker;

/// Messages sent per round (long enough that two JSON lines fill the pipe).
const PER_ROUND: usize = 3;
/// Rounds, one kill each.
const ROUNDS: usize = 12;
const LIMIT: Duration = Duration::from_secs(60);

/// The output of reader processes so far, the way a file they append to
/// would hold it.
#[derive(Default)]
struct Output {
    bytes: Vec<u8>,
}

impl Output {
    /// Whole lines so far, parsed.
    fn lines(&self) -> Vec<serde_json::Value> {
        let text = std::str::from_utf8(&self.bytes).expect("UTF-8 output");
        let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        complete
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
            .collect()
    }

    /// The offset of the last complete line (what `--after` is given).
    fn last_offset(&self) -> Option<u64> {
        self.lines().last().map(|v| v["offset"].as_u64().unwrap())
    }
}

/// One run of the reader.
struct Reader {
    child: Child,
    stdout: ChildStdout,
}

impl Reader {
    fn start(bob: &MlsUser, topic: &str, after: Option<u64>, follow: bool) -> Reader {
        let after = after.map(|a| a.to_string());
        let mut args = vec!["group", "read", topic, "--output", "jsonl"];
        if follow {
            args.push("--follow");
        }
        if let Some(a) = &after {
            args.extend(["--after", a.as_str()]);
        }
        let mut child = bob.spawn(&args);
        let stdout = child.stdout.take().unwrap();
        let fd = stdout.as_raw_fd();
        // SAFETY: fcntl on a pipe descriptor this process owns.
        unsafe {
            // One page: two of this test's lines fill it.
            assert!(libc::fcntl(fd, libc::F_SETPIPE_SZ, 4096) >= 4096);
            let flags = libc::fcntl(fd, libc::F_GETFL);
            assert!(libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) >= 0);
        }
        Reader { child, stdout }
    }

    /// Moves what the pipe holds now into `out`.
    fn drain(&mut self, out: &mut Output) {
        let mut buf = [0u8; 8192];
        loop {
            match self.stdout.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => out.bytes.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) => panic!("reading the reader's stdout: {e}"),
            }
        }
    }

    /// Whether a thread of the reader is blocked writing to its stdout.
    fn blocked_writing_stdout(&self) -> bool {
        let task = PathBuf::from(format!("/proc/{}/task", self.child.id()));
        let Ok(threads) = std::fs::read_dir(task) else {
            return false;
        };
        let prefix = format!("{} 0x1 ", libc::SYS_write);
        threads.flatten().any(|t| {
            std::fs::read_to_string(t.path().join("syscall")).is_ok_and(|s| s.starts_with(&prefix))
        })
    }

    /// SIGKILL, reaped (so its pid is gone from the state directory's lock
    /// file), then what was left in the pipe read.
    fn kill(mut self, out: &mut Output) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        self.drain(out);
    }
}

/// The group file's identity: a new inode per write (rename).
fn stamp(file: &Path) -> Option<(u64, i64)> {
    std::fs::metadata(file)
        .ok()
        .map(|m| (m.ino(), m.mtime_nsec()))
}

#[test]
fn a_reader_killed_anywhere_prints_every_message_once() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(&dir.path().join("data"), "127.0.0.1:0", &[]);
    let addr = broker.addr().to_string();
    let alice = MlsUser::new(dir.path(), "alice", &addr);
    let bob = MlsUser::new(dir.path(), "bob", &addr);
    bob.ok(&["keypackages", "publish", "--count", "1"], b"");
    let topic = alice.ok(&["group", "create"], b"").trim().to_owned();
    alice.ok(&["group", "invite", &topic, &bob.fp], b"");
    bob.ok(&["group", "join"], b"");
    let group_file = bob
        .state
        .join(format!("mls-group-{}", topic.strip_prefix("mls.").unwrap()));
    assert!(group_file.exists(), "{}", group_file.display());

    // Alice's one sender process: a line of its stdin is a message.
    let mut sender = alice.spawn(&["group", "send", &topic, "-"]);
    let mut to_send = sender.stdin.take().unwrap();
    let mut sent = 0usize;
    let mut send = |n: usize| {
        for _ in 0..n {
            let text = format!("m{sent:03} {}", "x".repeat(1500));
            writeln!(to_send, "{text}").unwrap();
            sent += 1;
        }
        to_send.flush().unwrap();
    };

    let mut out = Output::default();
    let started = Instant::now();
    for round in 0..ROUNDS {
        let mut reader = Reader::start(&bob, &topic, out.last_offset(), true);
        let deadline = Instant::now() + LIMIT;
        match round % 3 {
            0 => {
                // Not drained: the reader fills the pipe and blocks.
                send(PER_ROUND);
                while !reader.blocked_writing_stdout() {
                    assert!(Instant::now() < deadline, "round {round}: never blocked");
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            1 => {
                let before = stamp(&group_file);
                send(PER_ROUND);
                while stamp(&group_file) == before {
                    reader.drain(&mut out);
                    assert!(Instant::now() < deadline, "round {round}: no write");
                }
            }
            _ => {
                send(PER_ROUND);
                let pause = Duration::from_millis(50 + (round as u64 * 37) % 400);
                let until = Instant::now() + pause;
                while Instant::now() < until {
                    reader.drain(&mut out);
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
        reader.kill(&mut out);
    }
    drop(to_send); // the end of the sender's input
    let status = sender.wait().unwrap();
    assert!(status.success(), "the sender failed");

    // A last run without --follow prints what is left, then ends.
    let mut last = Reader::start(&bob, &topic, out.last_offset(), false);
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        last.drain(&mut out);
        if let Some(status) = last.child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            last.child.kill().unwrap();
            let mut err = String::new();
            last.child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!(
                "the last reader did not end; {} lines so far; stderr:\n{err}",
                out.lines().len()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    last.drain(&mut out);
    assert!(status.success(), "the last reader failed");
    let texts: Vec<String> = out
        .lines()
        .iter()
        .filter(|v| v["event"] == "message")
        .map(|v| v["text"].as_str().unwrap()[..4].to_owned())
        .collect();
    let want: Vec<String> = (0..sent).map(|i| format!("m{i:03}")).collect();
    assert_eq!(texts, want, "every message once, in order");
    let offsets: Vec<u64> = out
        .lines()
        .iter()
        .map(|v| v["offset"].as_u64().unwrap())
        .collect();
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
    eprintln!(
        "{ROUNDS} kills, {sent} messages, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
