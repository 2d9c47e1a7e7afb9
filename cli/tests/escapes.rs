//! Nothing from the broker or from a record drives the terminal, in any
//! output mode (docs/SECURITY.md, "The CLI's output"): a real broker and
//! real `hermit` processes carry records, keys and names holding escape
//! sequences (CSI, OSC 52 clipboard, OSC 8 links), C1 controls, CR, BS,
//! BEL, DEL and bidi overrides; a lying broker answers every request with
//! an error message full of them. Every stdout and stderr is then checked
//! for a raw control character other than the newlines the format writes
//! — on a pipe, and for the raw modes on a pseudo-terminal.

use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::os::fd::{FromRawFd as _, OwnedFd};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use bytes::BytesMut;
use hermit_e2e_tests::{
    PASSWORD, assert_ok, hermit_bin, keygen, path_str, run_hermit, start_broker,
};
use hermit_protocol::Status;
use hermit_protocol::frame::{ErrorBody, FrameCheck, check_request, decode_request, encode_error};
use hermit_protocol::hello::{BrokerFlags, BrokerHello, HELLO_LEN};
use hermit_protocol::limits::Limits;

/// Payloads that would drive a terminal if printed as they are.
const HOSTILE: &[&[u8]] = &[
    // Clear the screen, home the cursor, red.
    b"\x1b[2J\x1b[H\x1b[31mred",
    // OSC 52: put "pwned" on the clipboard.
    b"\x1b]52;c;cHduZWQ=\x07",
    // OSC 8: a hyperlink whose text hides its target.
    b"\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    // C1 controls as UTF-8: CSI (U+009B) and OSC (U+009D) … ST (U+009C).
    "\u{9b}2J\u{9d}0;title\u{9c}".as_bytes(),
    // Carriage return, backspace, bell, DEL: rewrite what was shown.
    b"safe\rEVIL\x08\x08\x07\x7f",
    // Bidi override and isolate: "exe.txt" shown for "txt.exe".
    "invoice\u{202e}txt.exe\u{2066}x\u{2069}".as_bytes(),
    // A raw C1 byte, not UTF-8.
    b"\x9b6n\xff",
];

/// The key records are produced under (blinded on the wire; the CLI never
/// prints it, but it travels through the same path).
const HOSTILE_KEY: &str = "\x1b]52;c;a2V5\x07\u{9b}K";

const PW: (&str, &str) = ("HERMIT_PASSWORD", PASSWORD);

/// A character a terminal would act on: C0 (but the newline), DEL, C1,
/// the bidi and zero-width format characters. What must never appear.
fn acts_on_terminal(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x09'
            | '\x0b'..='\x1f'
            | '\x7f'..='\u{9f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// Fails if `bytes` (one stream of one command) holds anything but
/// printable UTF-8 and newlines.
#[track_caller]
fn assert_inert(what: &str, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| {
        panic!(
            "{what}: not UTF-8 ({e}): {:?}",
            String::from_utf8_lossy(bytes)
        )
    });
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| acts_on_terminal(c)) {
        panic!("{what}: raw U+{:04X} at byte {at} in {text:?}", c as u32);
    }
}

#[track_caller]
fn assert_both_inert(what: &str, out: &Output) {
    assert_inert(&format!("{what} stdout"), &out.stdout);
    assert_inert(&format!("{what} stderr"), &out.stderr);
}

/// The hostile payloads as `hermit produce -D '\0'` input.
fn produce_input() -> Vec<u8> {
    let mut input = Vec::new();
    for p in HOSTILE {
        input.extend_from_slice(p);
        input.push(0);
    }
    input
}

struct Setup {
    _dir: tempfile::TempDir,
    alice: String,
    alice_pub: String,
    bob: String,
    bob_pub: String,
}

fn keys() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let s = |p: &Path| path_str(p).to_owned();
    Setup {
        alice: s(&alice),
        alice_pub: s(&alice_pub),
        bob: s(&bob),
        bob_pub: s(&bob_pub),
        _dir: dir,
    }
}

#[test]
fn records_and_names_from_a_real_broker_are_inert_in_every_output_mode() {
    let k = keys();
    let data = tempfile::tempdir().unwrap();
    let broker = start_broker(data.path(), "127.0.0.1:0", &[]);
    let addr = broker.addr().to_string();
    let env = [PW, ("HERMIT_BROKER", addr.as_str())];

    let out = run_hermit(
        &[
            "produce",
            "-t",
            "chat",
            "-i",
            &k.alice,
            "--to",
            &k.bob_pub,
            "-k",
            HOSTILE_KEY,
            "-D",
            "\\0",
            "--print-offsets",
        ],
        &produce_input(),
        &env,
    );
    assert_ok(&out);
    // PARTITION<TAB>OFFSET<TAB>SEQ: the format's own tabs, numbers only.
    let offsets = String::from_utf8(out.stdout.clone())
        .unwrap()
        .replace('\t', " ");
    assert_inert("produce stdout", offsets.as_bytes());
    assert_inert("produce stderr", &out.stderr);

    // `hermit consume` of the chat topic as Bob, then `extra`.
    let consume_args = |extra: &[&'static str]| -> Vec<String> {
        [
            "consume",
            "-t",
            "chat",
            "-i",
            &k.bob,
            "--trust",
            &k.alice_pub,
            "-e",
        ]
        .iter()
        .chain(extra)
        .map(|s| (*s).to_owned())
        .collect()
    };
    let consume = |extra: &[&'static str]| {
        let args = consume_args(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run_hermit(&args, b"", &env);
        assert_ok(&out);
        out
    };
    let text = consume(&[]);
    assert_both_inert("consume (text)", &text);
    let shown = String::from_utf8(text.stdout).unwrap();
    assert_eq!(shown.lines().count(), HOSTILE.len(), "{shown}");
    for escape in [
        "\\x1b]52;c;cHduZWQ=\\x07",
        "\\u{009b}2J",
        "safe\\rEVIL\\x08",
        "\\u{202e}",
        "\\x9b6n\\xff",
    ] {
        assert!(shown.contains(escape), "{escape} shown in {shown}");
    }

    let jsonl = consume(&["--output", "jsonl"]);
    assert_both_inert("consume (jsonl)", &jsonl);
    // The escapes are JSON's own: a parser reads back every payload.
    let lines: Vec<serde_json::Value> = String::from_utf8(jsonl.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), HOSTILE.len());
    for (line, sent) in lines.iter().zip(HOSTILE) {
        match line["payload"].as_str() {
            Some(p) => assert_eq!(p.as_bytes(), *sent),
            None => assert!(line["payload_b64"].is_string(), "{line}"),
        }
    }

    // On a pipe, raw modes are data: the bytes exactly as sent.
    let raw = consume(&["--output", "raw"]);
    assert_eq!(
        raw.stdout,
        HOSTILE.concat(),
        "raw output on a pipe is unmodified"
    );
    assert_inert("consume (raw) stderr", &raw.stderr);
    let raw_text = consume(&["--raw", "-D", "\\0"]);
    assert_eq!(
        raw_text.stdout,
        produce_input(),
        "--raw on a pipe is unmodified"
    );
    assert_inert("consume --raw stderr", &raw_text.stderr);

    // On a terminal the same modes escape.
    for extra in [&["--output", "raw"][..], &["--raw"]] {
        let args = consume_args(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (screen, stderr) = on_a_terminal(&args, &env);
        // The terminal's own line discipline turns "\n" into "\r\n".
        let screen = without_crlf(&screen);
        assert_inert(&format!("{extra:?} on a terminal"), &screen);
        let screen = String::from_utf8(screen).unwrap();
        assert_inert(&format!("{extra:?} stderr"), &stderr);
        assert!(screen.contains("\\x1b]52;c;cHduZWQ=\\x07"), "{screen}");
    }

    // Names the broker would refuse are refused before they are sent; the
    // error quoting them is escaped too.
    let name = "\x1b]52;c;bmFtZQ==\x07\u{9b}2J\u{202e}";
    for args in [
        vec!["topics", "describe", name],
        vec!["topics", "create", name],
        vec!["topics", "list", "--output", "json"],
        vec!["topics", "list"],
        vec![
            "consume",
            "-t",
            name,
            "-i",
            &k.bob,
            "--trust",
            &k.alice_pub,
            "-e",
        ],
        vec![
            "consume",
            "-t",
            "chat",
            "-g",
            name,
            "-i",
            &k.bob,
            "--trust",
            &k.alice_pub,
            "-e",
        ],
    ] {
        let out = run_hermit(&args, b"", &env);
        assert_both_inert(&format!("{args:?}"), &out);
    }
    let out = run_hermit(
        &["produce", "-t", name, "-i", &k.alice, "--to", &k.bob_pub],
        b"hi\n",
        &env,
    );
    assert!(!out.status.success());
    assert_both_inert("produce to a hostile topic name", &out);
}

#[test]
fn a_lying_broker_cannot_drive_the_terminal_through_its_messages() {
    let k = keys();
    let message = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\u{9b}31m\r\x08\x07\u{202e}gnp.exe\x1b]8;;https://evil.example/\x1b\\";
    let addr = lying_broker(message);
    // Every log line the client writes goes through the same escape.
    let env = [PW, ("HERMIT_BROKER", addr.as_str()), ("RUST_LOG", "trace")];
    for (args, stdin) in [
        (vec!["topics", "list"], &b""[..]),
        (vec!["topics", "list", "--output", "json"], b""),
        (vec!["topics", "describe", "chat", "--output", "json"], b""),
        (vec!["topics", "create", "chat"], b""),
        (
            vec!["produce", "-t", "chat", "-i", &k.alice, "--to", &k.bob_pub],
            b"hi\n",
        ),
        (
            vec![
                "consume",
                "-t",
                "chat",
                "-i",
                &k.bob,
                "--trust",
                &k.alice_pub,
                "-e",
                "--output",
                "jsonl",
            ],
            b"",
        ),
    ] {
        let out = run_hermit(&args, stdin, &env);
        assert!(!out.status.success(), "{args:?} fails against the liar");
        assert_both_inert(&format!("{args:?}"), &out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("\\x1b]52;c;cHduZWQ=\\x07"),
            "{args:?}: the broker's message is shown, escaped: {err}"
        );
    }
}

/// A broker that greets like a real one and answers every request with
/// an error carrying `message`. Returns its address.
fn lying_broker(message: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            std::thread::spawn(move || lie(conn, message));
        }
    });
    addr
}

fn lie(mut conn: std::net::TcpStream, message: &str) {
    let mut hello = [0u8; HELLO_LEN];
    if conn.read_exact(&mut hello).is_err() {
        return;
    }
    let ours = BrokerHello {
        max_frame: 1 << 20,
        flags: BrokerFlags(0),
        nonce: [1; 32],
        broker_id: [2; 16],
    };
    if conn.write_all(&ours.encode()).is_err() {
        return;
    }
    let limits = Limits::default();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        while let Ok(FrameCheck::Complete { len }) = check_request(&buf, &limits) {
            let Ok(frame) = decode_request(&buf[..len], &limits) else {
                return;
            };
            let mut out = BytesMut::new();
            let err = ErrorBody {
                status: Status::InvalidRequest,
                message,
                bounds: None,
            };
            encode_error(
                frame.correlation_id,
                frame.request.op() as u8,
                &err,
                &mut out,
            )
            .expect("an error frame encodes");
            if conn.write_all(&out).is_err() {
                return;
            }
            buf.drain(..len);
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// `bytes` with each "\r\n" (a terminal's newline) back to "\n".
fn without_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        if !(b == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
            out.push(b);
        }
    }
    out
}

/// Runs `hermit args` with stdout on a new pseudo-terminal (stderr piped,
/// no stdin); returns what the terminal received and the stderr bytes.
fn on_a_terminal(args: &[&str], env: &[(&str, &str)]) -> (Vec<u8>, Vec<u8>) {
    // SAFETY: plain libc calls on descriptors this function owns; the
    // name buffer is large enough and NUL-terminated by ptsname_r.
    let (master, slave) = unsafe {
        let m = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(m >= 0, "posix_openpt");
        let master = OwnedFd::from_raw_fd(m);
        assert_eq!(libc::grantpt(m), 0, "grantpt");
        assert_eq!(libc::unlockpt(m), 0, "unlockpt");
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(
            libc::ptsname_r(m, name.as_mut_ptr(), name.len()),
            0,
            "ptsname_r"
        );
        let s = libc::open(name.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
        assert!(s >= 0, "open the pty's slave");
        (master, OwnedFd::from_raw_fd(s))
    };
    let mut cmd = Command::new(hermit_bin());
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(slave))
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn hermit");
    // `cmd` holds the slave until dropped: then only the child has it, and
    // the master reads end (EIO) when the child exits.
    drop(cmd);
    let mut stderr = child.stderr.take().expect("piped stderr");
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let mut screen = Vec::new();
    let mut master = std::fs::File::from(master);
    let mut chunk = [0u8; 4096];
    loop {
        match master.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => screen.extend_from_slice(&chunk[..n]),
        }
    }
    let status = child.wait().expect("wait for hermit");
    assert!(status.success(), "{args:?} on a terminal: {status}");
    (screen, err_reader.join().expect("stderr reader"))
}
