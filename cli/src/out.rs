//! Data on stdout, where a reader that goes away (`hermit log dump DIR |
//! head`) is a normal way to stop: the command ends quietly with exit 0,
//! neither panicking (as `println!` does) nor reporting an error.
//!
//! SIGPIPE keeps Rust's disposition (ignored: the broker writes to
//! sockets), so a closed pipe shows up here as `EPIPE` (`BrokenPipe`).

use std::io::Write;

/// The error that stops a command whose stdout was closed. `main` exits 0
/// on it without a message.
#[derive(Debug)]
pub struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for Closed {}

/// Whether `e` says the reader of stdout went away.
pub fn is_closed(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe
}

/// Whether `e` (anywhere in its chain) is [`Closed`].
pub fn stopped(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<Closed>())
}

/// The outcome of a write to stdout: a broken pipe becomes [`Closed`],
/// any other failure an error naming stdout.
pub fn checked(r: std::io::Result<()>) -> anyhow::Result<()> {
    match r {
        Ok(()) => Ok(()),
        Err(e) if is_closed(&e) => Err(Closed.into()),
        Err(e) => Err(anyhow::Error::new(e).context("cannot write to stdout")),
    }
}

/// Write `bytes` to stdout and flush.
pub fn write(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    checked(out.write_all(bytes).and_then(|()| out.flush()))
}

/// Write formatted text to stdout and flush (what `outln!` and `out!` call).
pub fn print(args: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    checked(out.write_fmt(args).and_then(|()| out.flush()))
}

/// `println!` that returns `anyhow::Result<()>` instead of panicking when
/// stdout fails; a closed stdout is [`Closed`].
macro_rules! outln {
    () => {
        $crate::out::write(b"\n")
    };
    ($($arg:tt)*) => {
        $crate::out::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that returns `anyhow::Result<()>` (see `outln!`).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::print(format_args!($($arg)*))
    };
}
