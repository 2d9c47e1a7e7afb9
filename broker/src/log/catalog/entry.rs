//! Catalog entries: their format (see the `catalog` module documentation),
//! encoded and decoded — read through the protocol's checked `Reader`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use hermit_protocol::Cleanup;
use hermit_protocol::codec::Reader;

use crate::log::layout;
use crate::log::slab::MAX_SLOTS;

pub(super) const MAGIC: &[u8; 8] = b"HMQCAT2\n";
/// The catalog format before slots (never released): refused by name.
pub(super) const MAGIC_V1: &[u8; 8] = b"HMQCAT1\n";
pub(super) const ENTRY_HEAD: usize = 8;
/// Longest body: a create with a 255-byte name (names have at most 249).
pub(super) const MAX_BODY: usize = 1 + 8 + 2 + 255 + 4 + 1 + 8 + 8 + 8;
const CREATE: u8 = 1;
const DELETE: u8 = 2;

/// A topic's settings as the catalog stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredSettings {
    /// Number of partitions.
    pub partitions: u32,
    /// Delete or compact.
    pub cleanup: Cleanup,
    /// Retention by age in ms; `None`: the broker default; `u64::MAX`: forever.
    pub retention_ms: Option<u64>,
    /// Retention by size in bytes; `None`: the broker default; `u64::MAX`: unlimited.
    pub retention_bytes: Option<u64>,
}

/// One catalog entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A topic was created.
    Create {
        /// Its name.
        name: String,
        /// Its incarnation (creation clock, unique).
        incarnation: u64,
        /// Its settings.
        settings: StoredSettings,
        /// The slot of its partition 0 (partition `p` has `first_slot + p`);
        /// `None`: its partitions live in directories from the start.
        first_slot: Option<u64>,
    },
    /// A topic was deleted.
    Delete {
        /// Its name.
        name: String,
        /// The incarnation deleted.
        incarnation: u64,
    },
}

impl Entry {
    /// The entry as stored: head and body.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(64);
        match self {
            Entry::Create {
                name,
                incarnation,
                settings,
                first_slot,
            } => {
                body.push(CREATE);
                body.extend_from_slice(&incarnation.to_be_bytes());
                push_name(&mut body, name);
                body.extend_from_slice(&settings.partitions.to_be_bytes());
                body.push(match settings.cleanup {
                    Cleanup::Delete => 0,
                    Cleanup::Compact => 1,
                });
                body.extend_from_slice(&settings.retention_ms.unwrap_or(0).to_be_bytes());
                body.extend_from_slice(&settings.retention_bytes.unwrap_or(0).to_be_bytes());
                body.extend_from_slice(&first_slot.unwrap_or(u64::MAX).to_be_bytes());
            }
            Entry::Delete { name, incarnation } => {
                body.push(DELETE);
                body.extend_from_slice(&incarnation.to_be_bytes());
                push_name(&mut body, name);
            }
        }
        let mut out = Vec::with_capacity(ENTRY_HEAD + body.len());
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(&crc32c::crc32c(&body).to_be_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Decode a body whose CRC matched; `None` if it is not a valid entry.
    pub(super) fn decode(body: &[u8]) -> Option<Entry> {
        let mut r = Reader::new(body);
        let kind = r.u8().ok()?;
        let incarnation = r.u64().ok()?;
        let name = r.str16("topic").ok()?.to_owned();
        hermit_protocol::TopicName::new_any(name.as_str()).ok()?;
        let entry = match kind {
            CREATE => {
                let partitions = r.u32().ok()?;
                if partitions == 0 || partitions > hermit_protocol::frame::MAX_PARTITIONS {
                    return None;
                }
                let cleanup = match r.u8().ok()? {
                    0 => Cleanup::Delete,
                    1 => Cleanup::Compact,
                    _ => return None,
                };
                let retention_ms = Some(r.u64().ok()?).filter(|v| *v != 0);
                let retention_bytes = Some(r.u64().ok()?).filter(|v| *v != 0);
                let first_slot = Some(r.u64().ok()?).filter(|v| *v != u64::MAX);
                if first_slot.is_some_and(|s| s + u64::from(partitions) > MAX_SLOTS) {
                    return None;
                }
                Entry::Create {
                    name,
                    incarnation,
                    settings: StoredSettings {
                        partitions,
                        cleanup,
                        retention_ms,
                        retention_bytes,
                    },
                    first_slot,
                }
            }
            DELETE => Entry::Delete { name, incarnation },
            _ => return None,
        };
        r.finish().ok().map(|()| entry)
    }
}

impl Entry {
    /// A create's partition directories in `data_dir`, by partition number
    /// (none for a delete).
    pub fn partition_dirs(&self, data_dir: &Path) -> Vec<(u32, PathBuf)> {
        match self {
            Entry::Create {
                name,
                incarnation,
                settings,
                ..
            } => (0..settings.partitions)
                .map(|p| (p, layout::partition_dir(data_dir, name, p, *incarnation)))
                .collect(),
            Entry::Delete { .. } => Vec::new(),
        }
    }
}

fn push_name(body: &mut Vec<u8>, name: &str) {
    body.extend_from_slice(&(name.len() as u16).to_be_bytes());
    body.extend_from_slice(name.as_bytes());
}

/// Split entries into the creates that still describe a topic (not
/// followed by a delete of their incarnation), in order, and the creates
/// that were deleted.
pub fn split_entries(entries: impl IntoIterator<Item = Entry>) -> (Vec<Entry>, Vec<Entry>) {
    let entries: Vec<Entry> = entries.into_iter().collect();
    let deleted: HashSet<u64> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Delete { incarnation, .. } => Some(*incarnation),
            Entry::Create { .. } => None,
        })
        .collect();
    entries
        .into_iter()
        .filter(|e| matches!(e, Entry::Create { .. }))
        .partition(|e| match e {
            Entry::Create { incarnation, .. } => !deleted.contains(incarnation),
            Entry::Delete { .. } => false,
        })
}
