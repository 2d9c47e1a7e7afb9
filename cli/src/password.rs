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
