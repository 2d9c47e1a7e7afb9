//! Targets in the broker: the WebSocket adapter's inbound side and the
//! configuration loader.

use std::cell::RefCell;
use std::io::Write;

use hermit_broker::config::{Config, FsyncPolicy};
use hermit_broker::fuzzing::ws_inbound;
use hermit_protocol::hello::HELLO_LEN;

/// Largest WebSocket message the adapter takes in the `ws` target: small, so
/// the fuzzer reaches the limit.
pub const WS_MAX_MESSAGE: usize = 4096;

/// The WebSocket message handling of the broker (`net/ws.rs`): client bytes
/// after the HTTP upgrade, as WebSocket frames, in; the bytes the
/// connection's state machine reads out.
///
/// Input: byte 0 sets the read size of the client stream (1–256 bytes per
/// read, so frames arrive split anywhere), byte 1 how many bytes count as
/// read with the request head; the rest is the client's stream.
///
/// What the connection reads is exactly whole messages, each one the adapter
/// is meant to pass: the 8-byte hello first, then length-prefixed frames
/// whose prefix matches the message, none over the limit, no more bytes than
/// the client sent. Re-framing those messages canonically (one masked
/// binary frame each, then a close) and feeding them again, in other read
/// sizes, yields the same bytes and a clean end: the adapter's output
/// depends on the messages, not on how they were framed or read.
pub fn ws(data: &[u8]) {
    let Some((&[chunk, prefix], client)) = data.split_first_chunk::<2>() else {
        return;
    };
    let first = ws_inbound(
        client,
        usize::from(prefix),
        usize::from(chunk) + 1,
        WS_MAX_MESSAGE,
    );
    assert!(
        first.bytes.len() <= client.len(),
        "the connection read more than the client sent"
    );
    let messages = split_messages(&first.bytes);
    let mut again = Vec::new();
    for m in &messages {
        assert!(m.len() <= WS_MAX_MESSAGE, "a message over the limit passed");
        put_frame(&mut again, 0x2, m);
    }
    put_frame(&mut again, 0x8, &1000u16.to_be_bytes());
    for read in [1, 4096] {
        let second = ws_inbound(&again, 0, read, WS_MAX_MESSAGE);
        assert_eq!(
            second.bytes, first.bytes,
            "the same messages, framed canonically, read differently"
        );
        assert!(
            second.error.is_none(),
            "canonical frames of accepted messages were refused: {:?}",
            second.error
        );
    }
}

/// Cut what the connection read into the messages it came from; panics if
/// it is not a hello followed by whole, self-delimiting frames.
fn split_messages(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    if bytes.is_empty() {
        return out;
    }
    assert!(
        bytes.len() >= HELLO_LEN,
        "a partial hello reached the connection"
    );
    out.push(&bytes[..HELLO_LEN]);
    let mut rest = &bytes[HELLO_LEN..];
    while !rest.is_empty() {
        assert!(
            rest.len() >= 4,
            "a partial length prefix reached the connection"
        );
        let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        assert!(
            rest.len() >= 4 + len,
            "a partial frame reached the connection"
        );
        out.push(&rest[..4 + len]);
        rest = &rest[4 + len..];
    }
    out
}

/// Append one final, masked client frame (RFC 6455 §5.2).
pub fn put_frame(out: &mut Vec<u8>, opcode: u8, payload: &[u8]) {
    out.push(0x80 | opcode);
    let len = payload.len();
    if len < 126 {
        out.push(0x80 | len as u8);
    } else if len <= usize::from(u16::MAX) {
        out.push(0x80 | 126);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0x80 | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    let mask = [0x37, 0xfa, 0x21, 0x3d];
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
}

thread_local! {
    /// One config file per thread, rewritten for each input (a fresh file
    /// per run would cost more than the parse).
    static CONFIG_FILE: RefCell<Option<std::path::PathBuf>> = const { RefCell::new(None) };
}

/// The broker configuration loader ([`Config::load`]) on TOML text.
///
/// Input: the config file's text, optionally followed by a NUL byte and
/// `key=value` lines used as command-line flags (only the broker's keys).
///
/// Properties: the same values given as flags or as `HERMIT_*` environment
/// variables load the same configuration, or both fail (the two routes
/// share one conversion and must not drift); a loaded configuration passes
/// [`Config::validate`] again and loads identically from the TOML text the
/// `toml` crate re-renders from the file (what the file says, not how it is
/// spelled, decides); its fsync policy survives `Display` → `FromStr`.
pub fn config(data: &[u8]) {
    let (file, flags) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    // A file that is not UTF-8 is a read error before any parsing.
    let Ok(text) = std::str::from_utf8(file) else {
        return;
    };
    let flags: Vec<(&str, String)> = std::str::from_utf8(flags)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter_map(|(k, v)| {
            Config::keys()
                .find(|&key| key == k)
                .map(|k| (k, v.to_owned()))
        })
        .collect();
    let env: Vec<(String, String)> = flags
        .iter()
        .map(|(k, v)| (Config::env_var(k), v.clone()))
        .collect();

    let by_flags = load(text, Vec::new(), &flags);
    let by_env = load(text, env, &[]);
    match (&by_flags, &by_env) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "flags and env differ"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("flags and env disagree: {a:?} vs {b:?}"),
    }
    let Ok(config) = by_flags else {
        return;
    };
    assert!(
        config.validate().is_ok(),
        "a loaded config does not validate"
    );
    let fsync: FsyncPolicy = config
        .fsync
        .to_string()
        .parse()
        .unwrap_or_else(|e| panic!("fsync {} does not parse back: {e}", config.fsync));
    assert_eq!(fsync, config.fsync);
    if let Ok(table) = text.parse::<toml::Table>() {
        let rendered = table.to_string();
        match load(&rendered, Vec::new(), &flags) {
            Ok(c) => assert_eq!(
                format!("{c:?}"),
                format!("{config:?}"),
                "re-rendered TOML differs"
            ),
            Err(e) => panic!("re-rendered TOML refused: {e}\n{rendered}"),
        }
    }
}

fn load(
    text: &str,
    env: Vec<(String, String)>,
    flags: &[(&str, String)],
) -> Result<Config, hermit_broker::config::ConfigError> {
    CONFIG_FILE.with(|cell| {
        let mut cell = cell.borrow_mut();
        let path = cell.get_or_insert_with(|| {
            // Threads of one process (the replay test's) each get their own.
            crate::scratch::scratch_path("hermit-fuzz-config")
                .with_extension(format!("{}.toml", crate::scratch::thread_tag()))
        });
        std::fs::File::create(&*path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .expect("write the config file");
        Config::load(Some(path), env, flags)
    })
}
