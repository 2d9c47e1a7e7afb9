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

/// `bytes` as text a terminal shows without obeying it: control
/// characters, invalid UTF-8 and the Unicode controls that reorder or hide
/// text are written as escapes, so a message cannot move the cursor, change
/// colours, set the window title, rewrite what was printed before, or hide
/// its delimiter. `\` `\n` `\r` `\t` for those four, `\xNN` for other C0
/// controls, DEL and bytes that are not UTF-8, `\u{NNNN}` for C1 controls and
/// the bidirectional and zero-width format characters. Everything else is
/// written as it is.
pub fn escape_text(bytes: &[u8], out: &mut Vec<u8>) {
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                '\0'..='\x1f' | '\x7f' => {
                    out.extend_from_slice(format!("\\x{:02x}", c as u32).as_bytes())
                }
                '\u{80}'..='\u{9f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}' => {
                    out.extend_from_slice(format!("\\u{{{:04x}}}", c as u32).as_bytes())
                }
                c => {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        for b in chunk.invalid() {
            out.extend_from_slice(format!("\\x{b:02x}").as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::escape_text;

    fn esc(b: &[u8]) -> String {
        let mut v = Vec::new();
        escape_text(b, &mut v);
        String::from_utf8(v).expect("escapes are UTF-8")
    }

    #[test]
    fn terminal_controls_are_shown_not_obeyed() {
        assert_eq!(esc(b"hello, Bob"), "hello, Bob");
        assert_eq!(esc("grüße 👋".as_bytes()), "grüße 👋");
        // Clear screen, a colour, a window title, a cursor move.
        assert_eq!(
            esc(b"\x1b[2J\x1b[31mred\x1b]0;pwned\x07"),
            "\\x1b[2J\\x1b[31mred\\x1b]0;pwned\\x07"
        );
        assert_eq!(esc(b"a\nb\rc\td\\e\0\x7f"), "a\\nb\\rc\\td\\\\e\\x00\\x7f");
        // C1 CSI (U+009B), right-to-left override, zero-width space, BOM.
        assert_eq!(esc("\u{9b}2J".as_bytes()), "\\u{009b}2J");
        assert_eq!(esc("abc\u{202e}fed".as_bytes()), "abc\\u{202e}fed");
        assert_eq!(esc("a\u{200b}b\u{feff}".as_bytes()), "a\\u{200b}b\\u{feff}");
        // Not UTF-8: each bad byte.
        assert_eq!(esc(b"ok\xff\xc3"), "ok\\xff\\xc3");
    }
}
