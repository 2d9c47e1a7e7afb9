//! One group's file in the client state directory (docs/MLS.md §5.2):
//! the mls-rs snapshot and kept past epochs, the next offset to process,
//! the outbox, the resend rule's recent hashes and the delivered events —
//! written whole, encrypted at rest, so that processing a record is one
//! atomic write.

use std::collections::{HashSet, VecDeque};

use hermit_protocol::codec::Reader;
use zeroize::Zeroizing;

use super::event::{self, Event};
use super::staged::GroupImage;
use crate::crypto::Fingerprint;
use crate::crypto::Identity;
use crate::crypto::state::{MLS_FILE, PurposeKey, StateError, open_with, seal_with};
use crate::local::hex;

/// The first line of the plaintext: the format and the library whose
/// snapshot it holds. Another library version may not read the snapshot;
/// it is refused by name, not misread.
pub const FILE_FORMAT: &[u8] = b"hermit-mls-group/1 mls-rs-0.57\n";

/// How many hashes of processed records the resend rule remembers.
pub const RECENT: usize = 4096;

/// The directory-level name of a group's file.
pub fn file_name(group_id: &[u8]) -> String {
    format!("mls-group-{}", hex(group_id))
}

/// The prefix every group file's name starts with.
pub const FILE_PREFIX: &str = "mls-group-";

/// What was sent and not yet seen in the log.
#[derive(Clone, PartialEq, Eq)]
pub enum Outgoing {
    /// An application message (resent identical until seen).
    Message {
        /// The `MLSMessage` bytes.
        bytes: Vec<u8>,
    },
    /// Our pending Commit, with the Welcome to send once it is applied.
    Commit {
        /// The `MLSMessage` bytes of the Commit.
        bytes: Vec<u8>,
        /// The Welcome, when the Commit adds devices.
        welcome: Option<Vec<u8>>,
        /// The devices whose `welcome.` topics get it.
        welcome_to: Vec<Fingerprint>,
    },
    /// A Welcome for a Commit already applied, not yet delivered.
    Welcome {
        /// The `MLSMessage` bytes of the Welcome.
        bytes: Vec<u8>,
        /// The devices whose `welcome.` topics get it.
        to: Vec<Fingerprint>,
    },
}

impl std::fmt::Debug for Outgoing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outgoing::Message { bytes } => write!(f, "Message({} B)", bytes.len()),
            Outgoing::Commit {
                bytes, welcome_to, ..
            } => {
                write!(
                    f,
                    "Commit({} B, welcome to {})",
                    bytes.len(),
                    welcome_to.len()
                )
            }
            Outgoing::Welcome { to, .. } => write!(f, "Welcome(to {})", to.len()),
        }
    }
}

/// The hashes of the last [`RECENT`] records processed or sent, in order,
/// with a set for lookups (every record read is looked up).
#[derive(Debug, Clone, Default)]
pub struct Recent {
    order: VecDeque<[u8; 32]>,
    set: HashSet<[u8; 32]>,
}

impl Recent {
    /// Whether `hash` is among them.
    pub fn contains(&self, hash: &[u8; 32]) -> bool {
        self.set.contains(hash)
    }

    /// Adds `hash`, forgetting the oldest beyond [`RECENT`].
    pub fn remember(&mut self, hash: [u8; 32]) {
        if !self.set.insert(hash) {
            return;
        }
        self.order.push_back(hash);
        if self.order.len() > RECENT
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
    }

    /// Forgets them all.
    pub fn clear(&mut self) {
        self.order.clear();
        self.set.clear();
    }

    /// How many are remembered.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    fn iter(&self) -> impl Iterator<Item = &[u8; 32]> {
        self.order.iter()
    }
}

impl FromIterator<[u8; 32]> for Recent {
    fn from_iter<I: IntoIterator<Item = [u8; 32]>>(iter: I) -> Self {
        let mut r = Recent::default();
        for h in iter {
            r.remember(h);
        }
        r
    }
}

/// Everything a device keeps about one group.
#[derive(Debug, Clone)]
pub struct GroupFile {
    /// The MLS group id (its hex is the topic's name).
    pub group_id: Vec<u8>,
    /// The group topic.
    pub topic: String,
    /// The next offset to process.
    pub next: u64,
    /// The mls-rs snapshot and past epochs.
    pub image: GroupImage,
    /// Sent, not yet seen in the log.
    pub outbox: Vec<Outgoing>,
    /// SHA-256 of the last [`RECENT`] records processed or sent.
    pub recent: Recent,
    /// Events not yet acknowledged by the application.
    pub delivered: Vec<Event>,
    /// This device was removed (or left): nothing more is processed.
    pub removed: bool,
    /// The epoch this device entered the group at: records of earlier
    /// epochs were never for it and are skipped quietly.
    pub first_epoch: u64,
}

/// Why a group file cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GroupFileError {
    /// It does not open for this device (another device's, or changed).
    #[error("the group file {name} does not open for this device: {source}")]
    Sealed {
        /// The file.
        name: String,
        /// Why.
        #[source]
        source: StateError,
    },
    /// Written by another format or library version.
    #[error(
        "the group file {name} was written by {found:?}, not {expected:?}: this version cannot read its MLS state"
    )]
    OtherVersion {
        /// The file.
        name: String,
        /// Its first line.
        found: String,
        /// Ours.
        expected: String,
    },
    /// Its contents are malformed.
    #[error("the group file {name} is malformed ({what})")]
    Malformed {
        /// The file.
        name: String,
        /// Which part.
        what: &'static str,
    },
}

fn put(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&u32::try_from(b.len()).expect("< 4 GiB").to_be_bytes());
    out.extend_from_slice(b);
}

fn put_fps(out: &mut Vec<u8>, fps: &[Fingerprint]) {
    out.extend_from_slice(&u32::try_from(fps.len()).expect("few").to_be_bytes());
    for f in fps {
        out.extend_from_slice(f.as_bytes());
    }
}

impl GroupFile {
    fn encode(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(
            FILE_FORMAT.len() + self.image.state.len() + 4096,
        ));
        out.extend_from_slice(FILE_FORMAT);
        put(&mut out, &self.group_id);
        put(&mut out, self.topic.as_bytes());
        out.extend_from_slice(&self.next.to_be_bytes());
        out.push(u8::from(self.removed));
        out.extend_from_slice(&self.first_epoch.to_be_bytes());
        put(&mut out, &self.image.state);
        out.extend_from_slice(&(self.image.epochs.len() as u32).to_be_bytes());
        for (id, data) in &self.image.epochs {
            out.extend_from_slice(&id.to_be_bytes());
            put(&mut out, data);
        }
        out.extend_from_slice(&(self.outbox.len() as u32).to_be_bytes());
        for o in &self.outbox {
            match o {
                Outgoing::Message { bytes } => {
                    out.push(1);
                    put(&mut out, bytes);
                }
                Outgoing::Commit {
                    bytes,
                    welcome,
                    welcome_to,
                } => {
                    out.push(2);
                    put(&mut out, bytes);
                    put(&mut out, welcome.as_deref().unwrap_or_default());
                    put_fps(&mut out, welcome_to);
                }
                Outgoing::Welcome { bytes, to } => {
                    out.push(3);
                    put(&mut out, bytes);
                    put_fps(&mut out, to);
                }
            }
        }
        out.extend_from_slice(&(self.recent.len() as u32).to_be_bytes());
        for h in self.recent.iter() {
            out.extend_from_slice(h);
        }
        out.extend_from_slice(&(self.delivered.len() as u32).to_be_bytes());
        for e in &self.delivered {
            event::encode(e, &mut out);
        }
        out
    }

    fn decode(name: &str, plain: &[u8]) -> Result<GroupFile, GroupFileError> {
        let bad = |what| GroupFileError::Malformed {
            name: name.to_owned(),
            what,
        };
        let Some(rest) = plain.strip_prefix(FILE_FORMAT) else {
            let line = plain.split(|&b| b == b'\n').next().unwrap_or_default();
            return Err(GroupFileError::OtherVersion {
                name: name.to_owned(),
                found: String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned(),
                expected: String::from_utf8_lossy(FILE_FORMAT.trim_ascii_end()).into_owned(),
            });
        };
        let mut r = Reader::new(rest);
        let bytes = |r: &mut Reader<'_>, what| -> Result<Vec<u8>, GroupFileError> {
            let n = r.u32().map_err(|_| bad(what))? as usize;
            Ok(r.bytes(n).map_err(|_| bad(what))?.to_vec())
        };
        let count = |r: &mut Reader<'_>, what, each: usize| -> Result<usize, GroupFileError> {
            let n = r.u32().map_err(|_| bad(what))? as usize;
            // Checked against what is left before anything is allocated.
            if n.saturating_mul(each) > r.remaining() {
                return Err(bad(what));
            }
            Ok(n)
        };
        let fps = |r: &mut Reader<'_>| -> Result<Vec<Fingerprint>, GroupFileError> {
            let n = count(r, "fingerprints", 32)?;
            (0..n)
                .map(|_| {
                    r.array()
                        .map(Fingerprint::from_bytes)
                        .map_err(|_| bad("fingerprints"))
                })
                .collect()
        };
        let group_id = bytes(&mut r, "group id")?;
        let topic = String::from_utf8(bytes(&mut r, "topic")?).map_err(|_| bad("topic"))?;
        let next = r.u64().map_err(|_| bad("next"))?;
        let removed = r.u8().map_err(|_| bad("removed"))? != 0;
        let first_epoch = r.u64().map_err(|_| bad("first epoch"))?;
        let state = Zeroizing::new(bytes(&mut r, "state")?);
        let mut image = GroupImage {
            state,
            epochs: Default::default(),
        };
        for _ in 0..count(&mut r, "epochs", 12)? {
            let id = r.u64().map_err(|_| bad("epochs"))?;
            image
                .epochs
                .insert(id, Zeroizing::new(bytes(&mut r, "epochs")?));
        }
        let mut outbox = Vec::new();
        for _ in 0..count(&mut r, "outbox", 5)? {
            outbox.push(match r.u8().map_err(|_| bad("outbox"))? {
                1 => Outgoing::Message {
                    bytes: bytes(&mut r, "outbox")?,
                },
                2 => {
                    let commit = bytes(&mut r, "outbox")?;
                    let welcome = bytes(&mut r, "outbox")?;
                    Outgoing::Commit {
                        bytes: commit,
                        welcome: (!welcome.is_empty()).then_some(welcome),
                        welcome_to: fps(&mut r)?,
                    }
                }
                3 => Outgoing::Welcome {
                    bytes: bytes(&mut r, "outbox")?,
                    to: fps(&mut r)?,
                },
                _ => return Err(bad("outbox")),
            });
        }
        let mut recent = Recent::default();
        for _ in 0..count(&mut r, "recent", 32)? {
            recent.remember(r.array().map_err(|_| bad("recent"))?);
        }
        let mut delivered = Vec::new();
        for _ in 0..count(&mut r, "events", 1)? {
            delivered.push(event::decode(&mut r).map_err(|_| bad("events"))?);
        }
        if r.remaining() != 0 {
            return Err(bad("trailing bytes"));
        }
        Ok(GroupFile {
            group_id,
            topic,
            next,
            image,
            outbox,
            recent,
            delivered,
            removed,
            first_epoch,
        })
    }

    /// The file's bytes as stored: encrypted for `device`, bound to its name.
    ///
    /// # Errors
    /// [`StateError::Length`] over 64 MiB.
    pub fn seal(&self, device: &Identity) -> Result<Vec<u8>, StateError> {
        self.seal_with(&PurposeKey::new(device, MLS_FILE))
    }

    /// [`GroupFile::seal`] with the device's file key derived once.
    pub(crate) fn seal_with(&self, key: &PurposeKey) -> Result<Vec<u8>, StateError> {
        let name = file_name(&self.group_id);
        seal_with(key, "mls", name.as_bytes(), &self.encode())
    }

    /// Reads a file [`GroupFile::seal`] wrote under `name`.
    ///
    /// # Errors
    /// [`GroupFileError`].
    pub fn open(device: &Identity, name: &str, sealed: &[u8]) -> Result<GroupFile, GroupFileError> {
        GroupFile::open_with(&PurposeKey::new(device, MLS_FILE), name, sealed)
    }

    /// [`GroupFile::open`] with the device's file key derived once.
    pub(crate) fn open_with(
        key: &PurposeKey,
        name: &str,
        sealed: &[u8],
    ) -> Result<GroupFile, GroupFileError> {
        let plain = open_with(key, "mls", name.as_bytes(), sealed).map_err(|source| {
            GroupFileError::Sealed {
                name: name.to_owned(),
                source,
            }
        })?;
        let file = GroupFile::decode(name, &plain)?;
        if file_name(&file.group_id) != name {
            return Err(GroupFileError::Malformed {
                name: name.to_owned(),
                what: "group id does not match the name",
            });
        }
        Ok(file)
    }

    /// Remembers a processed or sent record's hash (the resend rule).
    pub fn remember(&mut self, hash: [u8; 32]) {
        self.recent.remember(hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GroupFile {
        let mut image = GroupImage {
            state: Zeroizing::new(vec![1, 2, 3]),
            ..GroupImage::default()
        };
        image.epochs.insert(4, Zeroizing::new(vec![4; 10]));
        GroupFile {
            group_id: vec![0xab; 32],
            topic: format!("mls.{}", "ab".repeat(32)),
            next: 17,
            image,
            outbox: vec![
                Outgoing::Message { bytes: vec![9; 5] },
                Outgoing::Commit {
                    bytes: vec![8; 3],
                    welcome: Some(vec![7; 2]),
                    welcome_to: vec![Fingerprint::from_bytes([3; 32])],
                },
                Outgoing::Welcome {
                    bytes: vec![6],
                    to: vec![],
                },
            ],
            recent: [[5u8; 32]].into_iter().collect(),
            delivered: vec![Event::CommitLost { epoch: 2 }],
            removed: false,
            first_epoch: 3,
        }
    }

    #[test]
    fn a_group_file_round_trips_for_its_device_and_name_only() {
        let me = Identity::generate().expect("key");
        let other = Identity::generate().expect("key");
        let f = sample();
        let sealed = f.seal(&me).expect("seal");
        let name = file_name(&f.group_id);
        let back = GroupFile::open(&me, &name, &sealed).expect("open");
        assert_eq!(back.encode(), f.encode());
        assert!(matches!(
            GroupFile::open(&other, &name, &sealed),
            Err(GroupFileError::Sealed { .. })
        ));
        assert!(matches!(
            GroupFile::open(&me, &file_name(&[1; 32]), &sealed),
            Err(GroupFileError::Sealed { .. })
        ));
    }

    #[test]
    fn another_version_is_named_and_truncations_are_malformed() {
        let f = sample();
        let mut plain = f.encode().to_vec();
        for cut in [FILE_FORMAT.len() + 3, plain.len() - 1] {
            assert!(matches!(
                GroupFile::decode("x", &plain[..cut]),
                Err(GroupFileError::Malformed { .. })
            ));
        }
        plain[FILE_FORMAT.len() - 2] = b'9';
        let err = GroupFile::decode("x", &plain).expect_err("other version");
        assert!(err.to_string().contains("mls-rs-0.59"), "{err}");
    }
}
