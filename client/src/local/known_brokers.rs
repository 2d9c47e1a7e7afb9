//! The `known-brokers` file: the broker id each dialled name and port
//! presented first, pinned (trust on first use).
//!
//! ```text
//! # name port broker-id
//! broker.example.com 9093 3f2a…(32 lowercase hex digits)
//! ::1 9092 0c11…
//! ```
//!
//! One line per pin, `#` comments and blank lines ignored; the JavaScript
//! SDK in Node reads and writes the same file. A different id at a pinned
//! name and port is refused before anything is signed: it is another
//! broker (a new data directory, or a substitute under the same name).
//! Pinning does not stop a relay (it forwards the real broker's id); the
//! signed name and TLS channel of `Authenticate` do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use hermit_protocol::auth::DialledName;
use hermit_protocol::hello::BROKER_ID_LEN;

use super::write::{hex, parse_hex, read_fields, write_whole};

/// The file's name in the state directory.
pub const KNOWN_BROKERS: &str = "known-brokers";

/// Why the `known-brokers` file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KnownBrokersError {
    /// The file cannot be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// A line is not `name port broker-id`, or pins a name and port a
    /// line above already pins.
    #[error(
        "{}, line {line}: expected `name port broker-id` (32 hex digits), once per name and port",
        path.display()
    )]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
    },
}

/// The pins of one state directory, read once and written through
/// ([`StateDir::known_brokers`](super::StateDir::known_brokers)).
#[derive(Debug)]
pub struct KnownBrokers {
    dir: PathBuf,
    pins: Mutex<BTreeMap<(String, u16), [u8; BROKER_ID_LEN]>>,
}

/// What [`KnownBrokers::check`] found for a broker id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pin {
    /// This id is pinned for the name and port.
    Matches,
    /// Nothing is pinned for the name and port yet.
    New,
    /// Another id is pinned: the broker changed.
    Differs([u8; BROKER_ID_LEN]),
}

impl KnownBrokers {
    /// The pins of the `known-brokers` file in the directory `dir` (none
    /// if it does not exist).
    pub(super) fn load(dir: &Path) -> Result<KnownBrokers, KnownBrokersError> {
        let path = dir.join(KNOWN_BROKERS);
        let lines = read_fields(&path).map_err(|source| KnownBrokersError::Io {
            path: path.clone(),
            source,
        })?;
        let mut pins = BTreeMap::new();
        for (line, fields) in lines {
            let malformed = || KnownBrokersError::Malformed {
                path: path.clone(),
                line,
            };
            let [name, port, id] = fields.as_slice() else {
                return Err(malformed());
            };
            let name = DialledName::parse(name).map_err(|_| malformed())?;
            let port: u16 = port
                .parse()
                .ok()
                .filter(|&p| p != 0 && !port.starts_with('+'))
                .ok_or_else(malformed)?;
            let id = parse_hex::<BROKER_ID_LEN>(id).ok_or_else(malformed)?;
            if pins.insert((name.to_string(), port), id).is_some() {
                // Two pins for one name and port: which is meant is unknown.
                return Err(malformed());
            }
        }
        Ok(KnownBrokers {
            dir: dir.to_owned(),
            pins: Mutex::new(pins),
        })
    }

    /// The file the pins are kept in (named in errors: the one to edit).
    pub fn path(&self) -> PathBuf {
        self.dir.join(KNOWN_BROKERS)
    }

    /// What is pinned for `id` at `name` and `port`.
    pub fn check(&self, name: &DialledName, port: u16, id: &[u8; BROKER_ID_LEN]) -> Pin {
        let pins = self.pins.lock().unwrap_or_else(|e| e.into_inner());
        match pins.get(&(name.to_string(), port)) {
            None => Pin::New,
            Some(pinned) if pinned == id => Pin::Matches,
            Some(pinned) => Pin::Differs(*pinned),
        }
    }

    /// Pin `id` for `name` and `port` (first contact); the file is
    /// rewritten whole. A pin already there is kept.
    ///
    /// # Errors
    /// The file cannot be written (the pin is then not kept).
    pub fn pin(
        &self,
        name: &DialledName,
        port: u16,
        id: &[u8; BROKER_ID_LEN],
    ) -> Result<(), KnownBrokersError> {
        let mut pins = self.pins.lock().unwrap_or_else(|e| e.into_inner());
        let key = (name.to_string(), port);
        if pins.contains_key(&key) {
            return Ok(());
        }
        pins.insert(key.clone(), *id);
        let mut text = String::from(
            "# name port broker-id: the broker each name and port presented first (HermitMQ)\n",
        );
        for ((n, p), id) in pins.iter() {
            text.push_str(&format!("{n} {p} {}\n", hex(id)));
        }
        write_whole(&self.dir, KNOWN_BROKERS, text.as_bytes()).map_err(|source| {
            pins.remove(&key);
            KnownBrokersError::Io {
                path: self.path(),
                source,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local::StateDir;

    #[test]
    fn pins_are_kept_across_loads_and_a_changed_id_differs() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s");
        let dir = StateDir::open(&path).unwrap();
        let kb = dir.known_brokers().unwrap();
        let name = DialledName::parse("Broker.Example").unwrap();
        let six = DialledName::parse("[::1]").unwrap();
        assert_eq!(kb.check(&name, 9093, &[1; 16]), Pin::New);
        kb.pin(&name, 9093, &[1; 16]).unwrap();
        kb.pin(&six, 9092, &[0xab; 16]).unwrap();
        kb.pin(&name, 9093, &[2; 16]).unwrap(); // the first pin stays
        drop((kb, dir));
        let dir = StateDir::open(&path).unwrap();
        let kb = dir.known_brokers().unwrap();
        assert_eq!(kb.check(&name, 9093, &[1; 16]), Pin::Matches);
        assert_eq!(kb.check(&name, 9093, &[2; 16]), Pin::Differs([1; 16]));
        assert_eq!(kb.check(&name, 9094, &[2; 16]), Pin::New, "per port");
        assert_eq!(kb.check(&six, 9092, &[0xab; 16]), Pin::Matches);
        let text = std::fs::read_to_string(kb.path()).unwrap();
        assert!(
            text.contains(&format!("broker.example 9093 {}\n", "01".repeat(16))),
            "{text}"
        );
        assert!(
            text.contains(&format!("::1 9092 {}\n", "ab".repeat(16))),
            "{text}"
        );
    }

    #[test]
    fn a_malformed_line_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::open(tmp.path().join("s")).unwrap();
        dir.write(
            KNOWN_BROKERS,
            b"# ok\n\nlocalhost 1 00112233445566778899aabbccddeeff\nlocalhost x 00\n",
        )
        .unwrap();
        let e = dir.known_brokers().unwrap_err();
        assert!(
            matches!(e, KnownBrokersError::Malformed { line: 4, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("line 4"), "{e}");
    }
}
