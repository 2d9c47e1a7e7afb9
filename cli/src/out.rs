//! Data on stdout, where a reader that goes away (`hermit log dump DIR |
//! head`) is a normal way to stop: the command ends quietly with exit 0,
//! neither panicking (as `println!` does) nor reporting an error.
//!
//! SIGPIPE keeps Rust's disposition (ignored: the broker writes to
//! sockets), so a closed pipe shows up here as `EPIPE` (`BrokenPipe`).
//!
//! # Nothing from the broker drives the terminal
//!
//! The broker is an adversary (docs/SECURITY.md), and so is whoever wrote a
//! record: topic names, error messages, group names and plaintexts are
//! hostile text. Everything the CLI shows goes through one function,
//! [`escape_text`] (or [`escaped`]), or, as JSON, through [`json_line`],
//! which uses the same test ([`acts_on_terminal`]) and stays lossless JSON:
//! - text on stdout (`consume` text output, `topics` tables) and every line
//!   on stderr (errors through `errln!`, the client's log lines through
//!   [`EscapedStderr`]) is escaped;
//! - JSON lines (`consume --output jsonl`, `topics --output json`) escape
//!   what JSON escapes (`"`, `\`, C0 controls) and also DEL, C1 controls
//!   and the bidirectional and zero-width format characters as `\uNNNN`:
//!   the same value to a JSON parser, inert on a terminal;
//! - modes meant to pass payload bytes through unmodified (`consume
//!   --output raw`, `consume --raw`, `compat decrypt`) do so only when
//!   stdout is not a terminal; on a terminal they escape ([`payload`]).

use std::io::{IsTerminal as _, Write};

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

/// Whether a terminal (or its text renderer) would act on `c` instead of
/// showing it: C0 controls, DEL, C1 controls (U+0080–U+009F: `U+009B` is
/// CSI, `U+009D` OSC), and the Unicode format characters that reorder or
/// hide text (bidirectional embeddings, overrides and isolates, zero-width
/// characters, the BOM). The one test behind [`escape_text`] and
/// [`json_line`].
pub fn acts_on_terminal(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x1f'
            | '\x7f'..='\u{9f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// `bytes` as text a terminal shows without obeying it: control
/// characters, invalid UTF-8 and the Unicode controls that reorder or hide
/// text ([`acts_on_terminal`]) are written as escapes, so a message cannot
/// move the cursor, change colours, set the window title or the clipboard
/// (OSC 52), make a link (OSC 8), rewrite what was printed before, or hide
/// its delimiter. `\\` `\n` `\r` `\t` for those four, `\xNN` for other
/// C0 controls, DEL and bytes that are not UTF-8, `\u{NNNN}` for C1
/// controls and the bidirectional and zero-width format characters.
/// Everything else is written as it is.
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
                c if acts_on_terminal(c) => {
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

/// [`escape_text`] of a string, as a string (for names and messages).
pub fn escaped(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    escape_text(s.as_bytes(), &mut out);
    String::from_utf8(out).expect("escape_text of UTF-8 writes UTF-8")
}

/// `v` as one line of JSON that is safe on a terminal: serde_json escapes
/// `"`, `\\` and every C0 control; every other character
/// [`acts_on_terminal`] (DEL, C1, bidi and zero-width) is written as a
/// `\uNNNN` escape too. Those characters can only occur inside JSON
/// strings, so a parser reads back exactly `v`. No newline.
pub fn json_line(v: &serde_json::Value) -> String {
    let json = v.to_string();
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if acts_on_terminal(c) {
            // C0 never gets here (serde_json escaped it); the rest are BMP.
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether stdout is a terminal (then payload bytes are never written
/// unmodified: see [`payload`]).
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Appends payload bytes for a mode meant to pass them through unmodified
/// (for a pipe into another program): as they are when `terminal` is
/// false, through [`escape_text`] when stdout is a terminal, where raw
/// bytes would be obeyed rather than stored.
pub fn payload(bytes: &[u8], terminal: bool, out: &mut Vec<u8>) {
    if terminal {
        escape_text(bytes, out);
    } else {
        out.extend_from_slice(bytes);
    }
}

/// Writes one line to stderr through [`escape_text`] (newlines inside it
/// become `\n`; the line's own newline is added after). What `errln!` calls.
pub fn err_line(args: std::fmt::Arguments<'_>) {
    let text = args.to_string();
    let mut line = Vec::with_capacity(text.len() + 1);
    escape_text(text.as_bytes(), &mut line);
    line.push(b'\n');
    // As eprintln!, minus the panic: nowhere left to report a failed stderr.
    let _ = std::io::stderr().lock().write_all(&line);
}

/// `eprintln!` for a line that may carry text from the broker or a record:
/// the whole line is escaped (see [`err_line`]).
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::out::err_line(format_args!($($arg)*))
    };
}

/// stderr for the client's log lines (`tracing`), escaped: a log line may
/// quote a broker's error message. Each event arrives as one write of one
/// line; everything but its final newline goes through [`escape_text`].
#[derive(Debug, Clone, Copy, Default)]
pub struct EscapedStderr;

impl Write for EscapedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (text, newline) = match buf.strip_suffix(b"\n") {
            Some(text) => (text, true),
            None => (buf, false),
        };
        let mut line = Vec::with_capacity(buf.len() + 1);
        escape_text(text, &mut line);
        if newline {
            line.push(b'\n');
        }
        std::io::stderr().lock().write_all(&line)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(b: &[u8]) -> String {
        let mut v = Vec::new();
        escape_text(b, &mut v);
        String::from_utf8(v).expect("escapes are UTF-8")
    }

    #[test]
    fn json_lines_escape_every_terminal_control_and_read_back_the_same() {
        // Every C0 control, DEL, every C1 control, OSC 52 and OSC 8, the
        // bidi controls, zero-width characters and the BOM.
        let mut hostile: String = (0u32..=0x9f).filter_map(char::from_u32).collect();
        hostile.push_str("\x1b]52;c;cHduZWQ=\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\");
        hostile
            .push_str("\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}\u{2066}\u{2069}\u{200b}\u{feff}");
        // In a value and in a key.
        let mut map = serde_json::Map::new();
        map.insert("payload".into(), hostile.clone().into());
        map.insert(hostile, 1.into());
        let v = serde_json::Value::Object(map);
        let line = json_line(&v);
        assert!(
            !line.chars().any(acts_on_terminal),
            "a terminal control is left in {line:?}"
        );
        let back: serde_json::Value = serde_json::from_str(&line).expect("valid JSON");
        assert_eq!(back, v, "the escapes are JSON's own: the same value");
        assert!(line.contains("\\u009b") && line.contains("\\u202e") && line.contains("\\u001b"));
    }

    #[test]
    fn escaped_text_holds_no_terminal_control() {
        let all: Vec<u8> = (0u8..=255).collect();
        let mut v = Vec::new();
        escape_text(&all, &mut v);
        escape_text("\u{85}\u{9b}\u{9d}\u{202e}\u{2067}".as_bytes(), &mut v);
        let s = String::from_utf8(v).expect("UTF-8");
        assert!(!s.chars().any(acts_on_terminal), "{s:?}");
    }

    #[test]
    fn raw_payloads_are_escaped_only_on_a_terminal() {
        let mut piped = Vec::new();
        payload(b"\x1b[2J\x9b", false, &mut piped);
        assert_eq!(piped, b"\x1b[2J\x9b", "a pipe gets the bytes");
        let mut shown = Vec::new();
        payload(b"\x1b[2J\x9b", true, &mut shown);
        assert_eq!(shown, b"\\x1b[2J\\x9b");
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
