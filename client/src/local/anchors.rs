//! The `state-anchors` file: per broker and sealed-state key, the newest
//! state record this device wrote or accepted — its generation and a hash
//! of the record (docs/ENVELOPE.md §13).
//!
//! ```text
//! # broker blinded-key generation sha256(record)
//! broker.example.com:9092 9c01…(32 lowercase hex digits) 17 3f2a…(64 lowercase hex digits)
//! ```
//!
//! One line per broker and state key, `#` comments and blank lines
//! ignored. The broker is the address the client was given
//! ([`Client::addr`](crate::Client::addr)), bytes outside printable ASCII,
//! `%` and `#` written `%XX`: each deployment keeps its own state, so an
//! identity used with two brokers has an anchor at each. The
//! broker keeps the sealed state; it can serve any authentic record it was
//! ever given under a key, so a client that only reads the newest one it
//! is served cannot tell an old state from the current one. The anchor is
//! kept where the broker cannot reach: a state below it (or another record
//! at its generation, or none at all) is refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::crypto::blind::BLINDED_KEY_LEN;

use super::write::{hex, parse_hex, read_fields, write_whole};

/// The file's name in the state directory.
pub const STATE_ANCHORS: &str = "state-anchors";

/// Length of the record hash kept with each anchor (SHA-256).
pub const RECORD_HASH_LEN: usize = 32;

/// Why the `state-anchors` file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateAnchorsError {
    /// The file cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// A line is not `broker blinded-key generation sha256`, or anchors a
    /// broker and key a line above already anchors.
    #[error(
        "{}, line {line}: expected `broker blinded-key generation sha256` (an address, 32 hex digits, a number, 64 hex digits), once per broker and key",
        path.display()
    )]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
    },
}

/// What is anchored for one state key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    /// The newest generation this device wrote (acknowledged durable) or
    /// accepted.
    pub generation: u64,
    /// SHA-256 of that state record as stored (the sealed bytes).
    pub record: [u8; RECORD_HASH_LEN],
}

/// Anchors by (escaped broker address, blinded key).
type Anchors = BTreeMap<(String, [u8; BLINDED_KEY_LEN]), Anchor>;

/// The `state-anchors` file of one state directory
/// ([`StateDir::state_anchors`](super::StateDir::state_anchors)). Nothing
/// is cached: each look-up reads the file, and each update reads it again,
/// changes one line and rewrites it whole, so what is on disk is always
/// what counts (and what a restart finds).
#[derive(Debug)]
pub struct StateAnchors {
    dir: PathBuf,
    /// Serializes the read-change-write of the file among the users of the
    /// directory in this process (its `flock` keeps other processes out):
    /// two interleaved rewrites would drop one of the changes.
    write: Mutex<()>,
}

impl StateAnchors {
    /// The anchors of the `state-anchors` file in the directory `dir`.
    pub(super) fn new(dir: &Path) -> StateAnchors {
        StateAnchors {
            dir: dir.to_owned(),
            write: Mutex::new(()),
        }
    }

    /// Every anchor in the file (none if it does not exist).
    fn read(&self) -> Result<Anchors, StateAnchorsError> {
        let path = self.path();
        let lines = read_fields(&path).map_err(|source| StateAnchorsError::Io {
            path: path.clone(),
            source,
        })?;
        let mut anchors = BTreeMap::new();
        for (line, fields) in lines {
            let malformed = || StateAnchorsError::Malformed {
                path: path.clone(),
                line,
            };
            let [broker, key, generation, record] = fields.as_slice() else {
                return Err(malformed());
            };
            // Written by `escape`, exactly: one spelling per address.
            if unescape(broker).is_none_or(|b| escape(&b) != *broker) {
                return Err(malformed());
            }
            let key = parse_hex::<BLINDED_KEY_LEN>(key).ok_or_else(malformed)?;
            let generation: u64 = generation
                .parse()
                .ok()
                .filter(|_| generation.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(malformed)?;
            let record = parse_hex::<RECORD_HASH_LEN>(record).ok_or_else(malformed)?;
            let anchor = Anchor { generation, record };
            if anchors.insert((broker.to_owned(), key), anchor).is_some() {
                return Err(malformed());
            }
        }
        Ok(anchors)
    }

    /// The file the anchors are kept in (named in errors).
    pub fn path(&self) -> PathBuf {
        self.dir.join(STATE_ANCHORS)
    }

    /// What is anchored at `broker` (the address dialled) for the state key
    /// `key` (a blinded key), as the file says now.
    ///
    /// # Errors
    /// The file cannot be read, or a line is malformed.
    pub fn get(
        &self,
        broker: &str,
        key: &[u8; BLINDED_KEY_LEN],
    ) -> Result<Option<Anchor>, StateAnchorsError> {
        Ok(self.read()?.get(&(escape(broker), *key)).copied())
    }

    /// How the line of `broker` and `key` starts in the file (named in
    /// errors: the line to remove to accept an older state on purpose).
    pub fn line_start(broker: &str, key: &[u8; BLINDED_KEY_LEN]) -> String {
        format!("{} {}", escape(broker), hex(key))
    }

    /// Anchor `anchor` at `broker` for `key`: the file is read, the line
    /// changed and the file rewritten whole. Anchors only move up: one
    /// below the generation already anchored is ignored.
    ///
    /// # Errors
    /// The file cannot be read or written (it then stays as it was), or a
    /// line is malformed.
    pub fn advance(
        &self,
        broker: &str,
        key: &[u8; BLINDED_KEY_LEN],
        anchor: Anchor,
    ) -> Result<(), StateAnchorsError> {
        let _writing = self.write.lock().unwrap_or_else(|e| e.into_inner());
        let mut anchors = self.read()?;
        let key = (escape(broker), *key);
        match anchors.get(&key) {
            Some(b) if b.generation > anchor.generation || *b == anchor => return Ok(()),
            _ => {}
        }
        anchors.insert(key, anchor);
        let mut text = String::from(
            "# broker blinded-key generation sha256(record): the newest sealed state this device wrote or accepted per broker and key (HermitMQ)\n",
        );
        for ((b, k), a) in &anchors {
            text.push_str(&format!(
                "{b} {} {} {}\n",
                hex(k),
                a.generation,
                hex(&a.record)
            ));
        }
        write_whole(&self.dir, STATE_ANCHORS, text.as_bytes()).map_err(|source| {
            StateAnchorsError::Io {
                path: self.path(),
                source,
            }
        })
    }
}

/// A broker address as one field of a line: bytes outside printable ASCII,
/// `%` and `#` as `%XX`.
fn escape(broker: &str) -> String {
    let mut out = String::with_capacity(broker.len());
    for b in broker.bytes() {
        if b.is_ascii_graphic() && b != b'%' && b != b'#' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The address a field of a line names (`None`: not UTF-8, or a `%` not
/// followed by two hex digits).
fn unescape(field: &str) -> Option<String> {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = field.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::StateDir;
    use proptest::prelude::*;

    proptest! {
        /// Any address is one field of a line and reads back as itself.
        #[test]
        fn broker_addresses_round_trip(broker in any::<String>()) {
            let field = escape(&broker);
            prop_assert!(!field.is_empty() || broker.is_empty());
            prop_assert!(field.bytes().all(|b| b.is_ascii_graphic() && b != b'#'));
            prop_assert_eq!(unescape(&field), Some(broker));
        }
    }

    #[test]
    fn anchors_only_move_up_and_survive_a_reload() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s");
        let dir = StateDir::open(&path).unwrap();
        let anchors = dir.state_anchors();
        let (k1, k2) = ([1u8; 16], [0xabu8; 16]);
        let (b1, b2) = ("localhost:9092", "nats://a b%#");
        assert_eq!(anchors.get(b1, &k1).unwrap(), None);
        let a5 = Anchor {
            generation: 5,
            record: [7; 32],
        };
        anchors.advance(b1, &k1, a5).unwrap();
        anchors
            .advance(
                b1,
                &k1,
                Anchor {
                    generation: 4,
                    record: [8; 32],
                },
            )
            .unwrap();
        assert_eq!(
            anchors.get(b1, &k1).unwrap(),
            Some(a5),
            "an anchor never goes down"
        );
        assert_eq!(anchors.get(b2, &k1).unwrap(), None, "per broker");
        let b = Anchor {
            generation: u64::MAX,
            record: [0; 32],
        };
        anchors.advance(b2, &k2, b).unwrap();
        drop((anchors, dir));
        let dir = StateDir::open(&path).unwrap();
        let anchors = dir.state_anchors();
        assert_eq!(anchors.get(b1, &k1).unwrap(), Some(a5));
        assert_eq!(anchors.get(b2, &k2).unwrap(), Some(b));
        let text = std::fs::read_to_string(anchors.path()).unwrap();
        assert!(
            text.contains(&format!(
                "localhost:9092 {} 5 {}\n",
                "01".repeat(16),
                "07".repeat(32)
            )),
            "{text}"
        );
        assert!(text.contains("nats://a%20b%25%23 "), "{text}");
    }

    #[test]
    fn a_malformed_line_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(tmp.path().join("s")).unwrap();
        let good = format!("h:1 {} 3 {}\n", "00".repeat(16), "11".repeat(32));
        for (bad, line) in [
            (format!("# c\n{good}{good}"), 3),
            (
                format!("h:1 {} +3 {}\n", "01".repeat(16), "11".repeat(32)),
                1,
            ),
            (
                format!("\nh:1 {} 3 {}\n", "01".repeat(15), "11".repeat(32)),
                2,
            ),
            (format!("h:1 {} 3\n", "01".repeat(16)), 1),
            (format!("{} 3 {}\n", "01".repeat(16), "11".repeat(32)), 1),
            (
                format!("h%2 {} 3 {}\n", "01".repeat(16), "11".repeat(32)),
                1,
            ),
            (
                format!("h%3a1 {} 3 {}\n", "01".repeat(16), "11".repeat(32)),
                1,
            ),
        ] {
            dir.write(STATE_ANCHORS, bad.as_bytes()).unwrap();
            let e = dir.state_anchors().get("h:1", &[0; 16]).unwrap_err();
            assert!(
                matches!(e, StateAnchorsError::Malformed { line: l, .. } if l == line),
                "{bad:?}: {e}"
            );
        }
    }
}
