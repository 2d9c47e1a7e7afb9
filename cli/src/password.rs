//! Where a key file's password comes from: `--password-file`, then
//! `HERMIT_PASSWORD`, then the terminal (no echo). Never a command-line
//! argument: those are visible to every user in `ps` and land in shell
//! history.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use zeroize::Zeroizing;

use crate::exit::{ExitClass, USAGE};

/// The environment variable scripts put the password in.
pub const ENV: &str = "HERMIT_PASSWORD";

/// Longest password accepted from a file or the terminal.
const MAX_LEN: u64 = 4096;

/// Password source flags, shared by every command that opens or writes a key file.
#[derive(Debug, Clone, clap::Args)]
pub struct PasswordArgs {
    /// Read the key file password from the first line of FILE (`-`: stdin)
    /// instead of the terminal. `HERMIT_PASSWORD` in the environment works
    /// too. There is deliberately no flag taking the password itself.
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
}

/// A password, wiped from memory on drop.
pub type Password = Zeroizing<Vec<u8>>;

impl PasswordArgs {
    /// The password of an existing key file; `what` names it in the prompt.
    pub fn existing(&self, what: &str) -> anyhow::Result<Password> {
        if let Some(p) = self.scripted()? {
            return Ok(p);
        }
        ask_tty(&format!("Password for {what}: "))
    }

    /// A new password (for a new key file): asked twice on the terminal;
    /// taken as it is from a file or the environment. Empty is refused.
    pub fn new_password(&self, what: &str) -> anyhow::Result<Password> {
        let p = match self.scripted()? {
            Some(p) => p,
            None => {
                let first = ask_tty(&format!("New password for {what}: "))?;
                let second = ask_tty("Repeat the password: ")?;
                if first != second {
                    return Err(anyhow::anyhow!("the two passwords differ")).class(USAGE);
                }
                first
            }
        };
        if p.is_empty() {
            return Err(anyhow::anyhow!("an empty password protects nothing")).class(USAGE);
        }
        Ok(p)
    }

    /// From `--password-file` or `HERMIT_PASSWORD`, if either is given.
    fn scripted(&self) -> anyhow::Result<Option<Password>> {
        if let Some(path) = &self.password_file {
            let mut raw = Zeroizing::new(Vec::new());
            let read = if path.as_os_str() == "-" {
                std::io::stdin()
                    .lock()
                    .take(MAX_LEN + 1)
                    .read_until(b'\n', &mut raw)
            } else {
                std::fs::File::open(path).and_then(|f| {
                    BufReader::new(f)
                        .take(MAX_LEN + 1)
                        .read_until(b'\n', &mut raw)
                })
            };
            read.with_context(|| format!("cannot read the password from {}", path.display()))
                .class(USAGE)?;
            return Ok(Some(first_line(raw)?));
        }
        if let Some(v) = std::env::var_os(ENV) {
            use std::os::unix::ffi::OsStringExt;
            return Ok(Some(Zeroizing::new(v.into_vec())));
        }
        Ok(None)
    }
}

/// The bytes before the first line break (`\n` or `\r\n`).
fn first_line(mut raw: Password) -> anyhow::Result<Password> {
    if raw.len() as u64 > MAX_LEN {
        return Err(anyhow::anyhow!("password longer than {MAX_LEN} bytes")).class(USAGE);
    }
    if raw.last() == Some(&b'\n') {
        raw.pop();
        if raw.last() == Some(&b'\r') {
            raw.pop();
        }
    }
    Ok(raw)
}

/// Restores the terminal's modes when dropped (also when reading fails).
struct EchoOff<'a> {
    tty: &'a std::fs::File,
    saved: rustix::termios::Termios,
}

impl Drop for EchoOff<'_> {
    fn drop(&mut self) {
        // Nothing better to do if this fails: the terminal is going away.
        let _ = rustix::termios::tcsetattr(
            self.tty,
            rustix::termios::OptionalActions::Now,
            &self.saved,
        );
    }
}

/// A signal that ends the process while echo is off (Ctrl-C at the prompt,
/// the terminal hanging up, a `kill`) must not leave the terminal silent:
/// while armed, the handlers here put the saved modes back, then let the
/// signal do what it would have done (the default action, re-raised).
mod restore_on_signal {
    use std::os::fd::{AsRawFd as _, BorrowedFd};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicI32, Ordering};

    use rustix::termios::{OptionalActions, Termios, tcsetattr};

    /// The signals whose default action ends the process, and that a user
    /// or the terminal sends.
    const SIGNALS: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

    /// The terminal's descriptor while armed, else -1.
    static TTY: AtomicI32 = AtomicI32::new(-1);
    /// The modes to restore: the terminal's own, read before echo went off
    /// (the same for every prompt of a process, as each restores them).
    static SAVED: OnceLock<Termios> = OnceLock::new();

    extern "C" fn restore_and_reraise(sig: libc::c_int) {
        // Only atomics, two system calls and a re-raise: async-signal-safe.
        let fd = TTY.swap(-1, Ordering::AcqRel);
        if fd >= 0
            && let Some(saved) = SAVED.get()
        {
            // SAFETY: `fd` is the open terminal of an armed `Armed`, which
            // disarms (stores -1) before the file is closed.
            let tty = unsafe { BorrowedFd::borrow_raw(fd) };
            let _ = tcsetattr(tty, OptionalActions::Now, saved);
            // The line typed so far never got its newline.
            let _ = rustix::io::write(tty, b"\n");
        }
        // SAFETY: resetting to the default action and raising are
        // async-signal-safe; the signal is blocked until this handler
        // returns, then its default action ends the process.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }

    /// Handlers installed for the life of a prompt; dropping it puts the
    /// previous ones back.
    pub(super) struct Armed {
        previous: Vec<(libc::c_int, libc::sigaction)>,
    }

    /// Installs the handlers for `tty`, whose modes are `saved`. Signals
    /// the process ignores (`nohup`) stay ignored.
    pub(super) fn arm(tty: &std::fs::File, saved: &Termios) -> Armed {
        let _ = SAVED.set(saved.clone());
        TTY.store(tty.as_raw_fd(), Ordering::Release);
        let mut previous = Vec::with_capacity(SIGNALS.len());
        for sig in SIGNALS {
            // SAFETY: plain sigaction calls on zero-initialised C structs;
            // the handler only does async-signal-safe work.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction == libc::SIG_IGN
                {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = restore_and_reraise as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                action.sa_flags = libc::SA_RESTART;
                if libc::sigaction(sig, &action, std::ptr::null_mut()) == 0 {
                    previous.push((sig, old));
                }
            }
        }
        Armed { previous }
    }

    impl Drop for Armed {
        fn drop(&mut self) {
            TTY.store(-1, Ordering::Release);
            for (sig, old) in &self.previous {
                // SAFETY: restores the action read in `arm`.
                unsafe {
                    libc::sigaction(*sig, old, std::ptr::null_mut());
                }
            }
        }
    }
}

/// Prompt on `/dev/tty` and read one line with echo off. Uses the
/// controlling terminal, not stdin/stderr, so it works with both redirected
/// (`hermit consume … > out.jsonl`).
fn ask_tty(prompt: &str) -> anyhow::Result<Password> {
    use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map_err(|e| {
            anyhow::anyhow!(
                "no terminal to ask for the password ({e}): set {ENV} or use --password-file"
            )
        })
        .class(USAGE)?;
    let saved = tcgetattr(&tty).context("cannot read the terminal's modes")?;
    let mut quiet = saved.clone();
    quiet.local_modes.remove(LocalModes::ECHO);
    // Still echo the newline, so the next output starts on its own line.
    quiet.local_modes.insert(LocalModes::ECHONL);
    // Armed before echo goes off; dropped after it is back on (declared
    // before the guard, so dropped after it).
    let _armed = restore_on_signal::arm(&tty, &saved);
    // Echo goes off before the prompt shows, so nothing typed after the
    // prompt can be echoed (or discarded by the flush).
    tcsetattr(&tty, OptionalActions::Flush, &quiet).context("cannot turn off echo")?;
    let guard = EchoOff { tty: &tty, saved };
    (&tty)
        .write_all(prompt.as_bytes())
        .and_then(|()| (&tty).flush())
        .context("cannot write to the terminal")?;
    let mut raw = Zeroizing::new(Vec::new());
    BufReader::new(guard.tty)
        .take(MAX_LEN + 1)
        .read_until(b'\n', &mut raw)
        .context("cannot read the password from the terminal")?;
    drop(guard);
    if !raw.ends_with(b"\n") && raw.len() as u64 <= MAX_LEN {
        return Err(anyhow::anyhow!("no password entered (end of input)")).class(USAGE);
    }
    first_line(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_line_break_is_stripped() {
        let p = |s: &[u8]| first_line(Zeroizing::new(s.to_vec())).unwrap().to_vec();
        assert_eq!(p(b"pw\n"), b"pw");
        assert_eq!(p(b"pw\r\n"), b"pw");
        assert_eq!(p(b" pw \n"), b" pw ");
        assert_eq!(p(b"pw"), b"pw");
        assert!(first_line(Zeroizing::new(vec![b'a'; 5000])).is_err());
    }
}
