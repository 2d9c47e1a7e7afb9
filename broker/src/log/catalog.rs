//! The topic catalog: one append-only file that says which topics exist.
//!
//! It replaces a directory and a `topic.toml` per topic, and a directory
//! listing at every start: creating a topic is one small append, made
//! durable by the group commit together with the first records of the
//! topic, so creations in flight share fsyncs; deleting one is an append
//! too. At start the file is read once, front to back.
//!
//! ```text
//! file  := magic "HMQCAT2\n" entry*
//! entry := u32 body_len | u32 crc32c(body) | body          (big-endian)
//! body  := u8 1 (create) | u64 incarnation | u16 n | name[n] | u32 partitions
//!                        | u8 cleanup (0 delete, 1 compact)
//!                        | u64 retention_ms | u64 retention_bytes   (0: broker default)
//!                        | u64 first_slot                          (u64::MAX: none)
//!        | u8 2 (delete) | u64 incarnation | u16 n | name[n]
//! ```
//!
//! The **incarnation** is the broker clock (ns) at creation, made larger
//! than every incarnation before it: it names the topic's partition
//! directories, so a topic created again under a deleted one's name never
//! meets the old files, and it is the creation time (the lower bound of a
//! first segment's first append, see `Partition::open`). The **first slot**
//! is the slot of partition 0; partition `p` has `first_slot + p` (see
//! [`super::slab`]).
//!
//! Recovery follows the segment rule (STORAGE.md §3.2): a crash can only
//! tear the tail — entries after the last fsync — so corruption with nothing
//! valid after it is truncated; corruption with valid entries after it is
//! skipped, reported, and the file rewritten without it (in
//! `absolute-consistency` mode the start is refused instead).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};

use hermit_protocol::Cleanup;
use hermit_protocol::codec::Reader;

use super::error::{IoContext, Result, StorageError};
use super::fsutil;
use super::io::{Io, OpenMode};
use super::options::RecoveryMode;

/// The error for a write to a catalog that stopped taking writes.
fn failed(reason: &str) -> StorageError {
    StorageError::Failed {
        topic: "(catalog)".into(),
        partition: 0,
        reason: reason.to_owned(),
    }
}

/// The catalog's file name in the data directory.
pub const CATALOG_FILE: &str = "catalog";

const MAGIC: &[u8; 8] = b"HMQCAT2\n";
/// The catalog format before slots (never released): refused by name.
const MAGIC_V1: &[u8; 8] = b"HMQCAT1\n";
const ENTRY_HEAD: usize = 8;
/// Longest body: a create with a 255-byte name (names have at most 249).
const MAX_BODY: usize = 1 + 8 + 2 + 255 + 4 + 1 + 8 + 8 + 8;
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
    fn decode(body: &[u8]) -> Option<Entry> {
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
                if first_slot.is_some_and(|s| s + u64::from(partitions) > super::slab::MAX_SLOTS) {
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
                .map(|p| {
                    (
                        p,
                        super::layout::partition_dir(data_dir, name, p, *incarnation),
                    )
                })
                .collect(),
            Entry::Delete { .. } => Vec::new(),
        }
    }
}

fn push_name(body: &mut Vec<u8>, name: &str) {
    body.extend_from_slice(&(name.len() as u16).to_be_bytes());
    body.extend_from_slice(name.as_bytes());
}

/// What reading a catalog file found.
#[derive(Debug, Default)]
pub struct Replay {
    /// Every valid entry, in file order.
    pub entries: Vec<(u64, Entry)>,
    /// Corrupt byte ranges `[from, to)` skipped (valid entries follow each).
    pub skipped: Vec<(u64, u64)>,
    /// Where a torn tail starts (nothing valid after it), if there is one.
    pub torn_at: Option<u64>,
    /// Where the last valid entry ends.
    pub valid_end: u64,
}

/// Read a catalog file without changing it (recovery and `hermit log check`).
pub fn read(path: &Path) -> Result<Replay> {
    let file = File::open(path).ctx("open catalog", path)?;
    let len = file.metadata().ctx("stat catalog", path)?.len();
    let mut magic = [0u8; 8];
    if len < MAGIC.len() as u64 {
        // Torn while it was being created: no entry can have been durable.
        return Ok(Replay {
            torn_at: Some(0),
            ..Replay::default()
        });
    }
    file.read_exact_at(&mut magic, 0)
        .ctx("read catalog", path)?;
    if &magic == MAGIC_V1 {
        return Err(StorageError::BadMetadata {
            path: path.to_path_buf(),
            message: "a topic catalog of a development version before slots (HMQCAT1); \
                      this version cannot read it"
                .into(),
        });
    }
    if &magic != MAGIC {
        return Err(StorageError::BadMetadata {
            path: path.to_path_buf(),
            message: "not a HermitMQ topic catalog (bad magic)".into(),
        });
    }
    let mut out = Replay {
        valid_end: MAGIC.len() as u64,
        ..Replay::default()
    };
    let mut reader = BufReader::with_capacity(1 << 16, &file);
    reader
        .seek(SeekFrom::Start(MAGIC.len() as u64))
        .ctx("read catalog", path)?;
    let mut pos = MAGIC.len() as u64;
    let mut body = Vec::with_capacity(MAX_BODY);
    while pos < len {
        match next_entry(&mut reader, len - pos, &mut body).ctx("read catalog", path)? {
            Some(entry) => {
                let size = (ENTRY_HEAD + body.len()) as u64;
                out.entries.push((pos, entry));
                pos += size;
                out.valid_end = pos;
            }
            None => {
                // Corruption: look for the next valid entry after it.
                match resync(&file, path, pos + 1, len)? {
                    Some(at) => {
                        out.skipped.push((pos, at));
                        pos = at;
                        reader.seek(SeekFrom::Start(at)).ctx("read catalog", path)?;
                    }
                    None => {
                        out.torn_at = Some(pos);
                        break;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The next entry from `r` (at most `remaining` bytes left in the file):
/// `None` if the bytes there are not a whole valid entry.
fn next_entry(
    r: &mut impl Read,
    remaining: u64,
    body: &mut Vec<u8>,
) -> std::io::Result<Option<Entry>> {
    if remaining < ENTRY_HEAD as u64 {
        return Ok(None);
    }
    let mut head = [0u8; ENTRY_HEAD];
    r.read_exact(&mut head)?;
    let n = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let crc = u32::from_be_bytes([head[4], head[5], head[6], head[7]]);
    if n == 0 || n > MAX_BODY || (ENTRY_HEAD + n) as u64 > remaining {
        return Ok(None);
    }
    body.resize(n, 0);
    r.read_exact(body)?;
    if crc32c::crc32c(body) != crc {
        return Ok(None);
    }
    Ok(Entry::decode(body))
}

/// The first position at or after `from` where a valid entry starts.
fn resync(file: &File, path: &Path, from: u64, len: u64) -> Result<Option<u64>> {
    let mut buf = vec![0u8; (len.saturating_sub(from)).min(1 << 20) as usize];
    let mut base = from;
    while base < len {
        let n = ((len - base) as usize).min(buf.len());
        file.read_exact_at(&mut buf[..n], base)
            .ctx("read catalog", path)?;
        for i in 0..n {
            let rest = &buf[i..n];
            if rest.len() < ENTRY_HEAD {
                break;
            }
            let body_len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            if body_len == 0 || body_len > MAX_BODY {
                continue;
            }
            let mut body = Vec::new();
            let mut slice = if rest.len() >= ENTRY_HEAD + body_len {
                &rest[..ENTRY_HEAD + body_len]
            } else {
                // The entry crosses the buffer's end: read it whole.
                let at = base + i as u64;
                if at + (ENTRY_HEAD + body_len) as u64 > len {
                    continue;
                }
                let mut whole = vec![0u8; ENTRY_HEAD + body_len];
                file.read_exact_at(&mut whole, at)
                    .ctx("read catalog", path)?;
                if next_entry(&mut whole.as_slice(), whole.len() as u64, &mut body)
                    .ctx("read catalog", path)?
                    .is_some()
                {
                    return Ok(Some(at));
                }
                continue;
            };
            if next_entry(&mut slice, (ENTRY_HEAD + body_len) as u64, &mut body)
                .ctx("read catalog", path)?
                .is_some()
            {
                return Ok(Some(base + i as u64));
            }
        }
        if n < buf.len() || base + (n as u64) >= len {
            break;
        }
        // Overlap by one entry so none is missed at the seam.
        base += (n - (ENTRY_HEAD + MAX_BODY).min(n - 1)) as u64;
    }
    Ok(None)
}

/// The catalog's write position and sync progress, under its lock.
struct CatalogState {
    /// Bytes appended (the next entry goes here), `pending` included.
    len: u64,
    /// Bytes known durable.
    synced: u64,
    /// Set when an fsync failed: no more writes.
    failed: Option<String>,
    /// Entries appended but not written to the file yet (with
    /// [`Catalog::defer_writes`]); they start at `len - pending.len()`.
    pending: Vec<u8>,
    /// Appends stay in `pending` until the next sync writes them.
    deferred: bool,
}

/// The open catalog of a running broker.
pub struct Catalog {
    path: PathBuf,
    file: File,
    io: Io,
    state: Mutex<CatalogState>,
    synced_cv: Condvar,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Catalog {
    /// Open the catalog of `data_dir` (creating it), recover it and return
    /// the live creates in file order. `remove_deleted` gets the creates of
    /// topics deleted since the file was last rewritten, before the rewrite
    /// forgets them: their directories may have outlived a crash.
    pub fn open(
        data_dir: &Path,
        mode: RecoveryMode,
        io: &Io,
        remove_deleted: impl FnOnce(&[Entry]) -> Result<()>,
    ) -> Result<(Catalog, Vec<Entry>)> {
        let path = data_dir.join(CATALOG_FILE);
        if !path.exists() {
            fsutil::write_atomic(io, &path, MAGIC)?;
        }
        let replay = read(&path)?;
        let corrupt = !replay.skipped.is_empty() || replay.torn_at.is_some();
        if corrupt && mode == RecoveryMode::AbsoluteConsistency {
            let message = match (replay.skipped.first(), replay.torn_at) {
                (Some(&(at, _)), _) => format!("the topic catalog is corrupt at byte {at}"),
                (None, at) => format!(
                    "the topic catalog has a torn tail at byte {}",
                    at.unwrap_or(0)
                ),
            };
            return Err(StorageError::BadMetadata {
                path: path.clone(),
                message,
            });
        }
        for (from, to) in &replay.skipped {
            tracing::error!(
                catalog = %path.display(), from_byte = from, to_byte = to,
                "corrupt range in the topic catalog, with valid entries after it: skipped \
                 (topics created there are lost; their directories are kept)"
            );
        }
        let total = replay.entries.len();
        let (live, deleted) = split_entries(replay.entries.into_iter().map(|(_, e)| e));
        remove_deleted(&deleted)?;
        let dead = total - live.len();
        let mut expected_len = replay.valid_end;
        if corrupt || (dead > 0 && dead >= live.len()) {
            // Rewrite it with the live entries only: drops deleted topics,
            // the corruption and a torn tail, atomically.
            let mut bytes = MAGIC.to_vec();
            for e in &live {
                bytes.extend_from_slice(&e.encode());
            }
            if let Some(at) = replay.torn_at {
                tracing::warn!(catalog = %path.display(), at, "truncating the torn tail of the topic catalog");
            }
            fsutil::write_atomic(io, &path, &bytes)?;
            expected_len = bytes.len() as u64;
        }
        let file = io
            .open(&path, OpenMode::Existing)
            .ctx("open catalog", &path)?;
        let len = file.metadata().ctx("stat catalog", &path)?.len();
        if len != expected_len {
            return Err(StorageError::BadMetadata {
                path,
                message: "the topic catalog changed while it was read".into(),
            });
        }
        Ok((
            Catalog {
                path,
                file,
                io: io.clone(),
                state: Mutex::new(CatalogState {
                    len,
                    synced: len,
                    failed: None,
                    pending: Vec::new(),
                    deferred: false,
                }),
                synced_cv: Condvar::new(),
            },
            live,
        ))
    }

    fn lock(&self) -> MutexGuard<'_, CatalogState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one entry (not yet durable); returns where it ends, for
    /// [`Catalog::wait_synced`].
    pub fn append(&self, entry: &Entry) -> Result<u64> {
        let bytes = entry.encode();
        let mut st = self.lock();
        if let Some(reason) = &st.failed {
            return Err(failed(reason));
        }
        if st.deferred {
            st.pending.extend_from_slice(&bytes);
            st.len += bytes.len() as u64;
            return Ok(st.len);
        }
        let at = st.len;
        if let Err(e) = self.io.write_at(&self.file, &[&bytes], at) {
            let err = StorageError::io("append to catalog", &self.path, e);
            // Cut off a partial entry so the next one does not follow it.
            if let Err(e2) = self.io.set_len(&self.file, at) {
                st.failed = Some(format!("{err}; then truncating back failed: {e2}"));
            }
            return Err(err);
        }
        st.len = at + bytes.len() as u64;
        Ok(st.len)
    }

    /// Keep appends in memory until the next sync writes them, one `write`
    /// for all (`fsync = always`: nothing is acknowledged before a sync, so
    /// nothing acknowledged depends on an entry not yet written). A crash
    /// loses the unwritten entries, as it would lose them unsynced.
    pub(crate) fn defer_writes(&self) {
        self.lock().deferred = true;
    }

    /// Write the deferred entries to the file (before an fsync, or a
    /// `syncfs`, that must cover them).
    pub(crate) fn flush(&self) -> Result<()> {
        let mut st = self.lock();
        if st.pending.is_empty() {
            return Ok(());
        }
        if let Some(reason) = &st.failed {
            return Err(failed(reason));
        }
        let at = st.len - st.pending.len() as u64;
        if let Err(e) = self.io.write_at(&self.file, &[&st.pending], at) {
            // What reached the file is not trusted: the catalog stops, as
            // after a failed fsync (its entries were never acknowledged).
            let err = StorageError::io("append to catalog", &self.path, e);
            tracing::error!(catalog = %self.path.display(), error = %err, "writing the topic catalog failed; no more topics can be created or deleted");
            st.failed = Some(err.to_string());
            drop(st);
            self.synced_cv.notify_all();
            return Err(err);
        }
        st.pending.clear();
        Ok(())
    }

    /// What [`Catalog::sync`] would make durable: the appended length, if
    /// anything is unsynced. Deferred entries must be flushed first.
    pub(crate) fn unsynced(&self) -> Option<u64> {
        let st = self.lock();
        (st.failed.is_none() && st.synced < st.len).then_some(st.len - st.pending.len() as u64)
    }

    /// Record that everything below `len` is durable (after an fsync that
    /// began after `len` was written).
    pub(crate) fn mark_synced(&self, len: u64) {
        let mut st = self.lock();
        if st.synced < len {
            st.synced = len;
        }
        drop(st);
        self.synced_cv.notify_all();
    }

    /// Record a failed fsync: the catalog takes no more writes (the kernel
    /// may have dropped the dirty pages).
    pub(crate) fn mark_failed(&self, reason: String) {
        tracing::error!(catalog = %self.path.display(), %reason, "catalog fsync failed; no more topics can be created or deleted");
        self.lock().failed = Some(reason);
        self.synced_cv.notify_all();
    }

    /// fsync what was written. Returns whether an fsync was issued.
    pub fn sync(&self) -> Result<bool> {
        self.flush()?;
        let Some(len) = self.unsynced() else {
            return Ok(false);
        };
        if let Err(e) = self.io.sync_data(&self.file) {
            let err = StorageError::io("fsync catalog", &self.path, e);
            self.mark_failed(err.to_string());
            return Err(err);
        }
        self.mark_synced(len);
        Ok(true)
    }

    /// Block until everything below `end` is durable (the sync thread, or
    /// [`Catalog::sync`], gets it there).
    pub fn wait_synced(&self, end: u64) -> Result<()> {
        let mut st = self.lock();
        loop {
            if st.synced >= end {
                return Ok(());
            }
            if let Some(reason) = &st.failed {
                return Err(failed(reason));
            }
            st = self.synced_cv.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Drop for Catalog {
    /// Deferred entries go to the file (not fsynced) when the catalog is
    /// dropped without a last sync, as they would have without deferring.
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::warn!(error = %e, "could not write the topic catalog's last entries");
        }
    }
}

/// Split entries into the creates that still describe a topic (not
/// followed by a delete of their incarnation), in order, and the creates
/// that were deleted.
pub fn split_entries(entries: impl IntoIterator<Item = Entry>) -> (Vec<Entry>, Vec<Entry>) {
    let entries: Vec<Entry> = entries.into_iter().collect();
    let deleted: std::collections::HashSet<u64> = entries
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

/// Remove what a catalog rewrite cut short left ([`fsutil::write_atomic`]'s temporary file).
pub fn remove_leftovers(io: &Io, data_dir: &Path) {
    let tmp = fsutil::tmp_path(&data_dir.join(CATALOG_FILE));
    if tmp.exists()
        && let Err(e) = io.remove_file(&tmp)
    {
        tracing::warn!(file = %tmp.display(), error = %e, "could not remove a leftover catalog rewrite");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn open_in(
        dir: &Path,
        mode: RecoveryMode,
        remove_deleted: impl FnOnce(&[Entry]) -> Result<()>,
    ) -> Result<(Catalog, Vec<Entry>)> {
        Catalog::open(dir, mode, &Io::real(), remove_deleted)
    }

    fn create(name: &str, incarnation: u64) -> Entry {
        Entry::Create {
            name: name.into(),
            incarnation,
            settings: StoredSettings {
                partitions: 3,
                cleanup: Cleanup::Compact,
                retention_ms: Some(5),
                retention_bytes: None,
            },
            first_slot: incarnation.is_multiple_of(2).then_some(incarnation * 10),
        }
    }

    #[test]
    fn entries_round_trip_and_refuse_damage() {
        for e in [
            create("chat.alice", 7),
            Entry::Delete {
                name: "x".into(),
                incarnation: 9,
            },
        ] {
            let bytes = e.encode();
            let mut body = Vec::new();
            let got = next_entry(&mut bytes.as_slice(), bytes.len() as u64, &mut body).unwrap();
            assert_eq!(got, Some(e.clone()));
            for i in 0..bytes.len() {
                let mut bad = bytes.clone();
                bad[i] ^= 0x40;
                let got = next_entry(&mut bad.as_slice(), bad.len() as u64, &mut body).unwrap();
                assert!(got.is_none() || got != Some(e.clone()), "flip at {i}");
            }
        }
    }

    #[test]
    fn a_first_slot_beyond_the_slots_is_damage() {
        let mut e = create("far", 2);
        if let Entry::Create { first_slot, .. } = &mut e {
            *first_slot = Some(crate::log::slab::MAX_SLOTS - 1);
        }
        let bytes = e.encode();
        assert_eq!(
            Entry::decode(&bytes[ENTRY_HEAD..]),
            None,
            "3 partitions end past the last slot"
        );
        let ok = create("near", 2).encode();
        assert!(Entry::decode(&ok[ENTRY_HEAD..]).is_some());
    }

    #[test]
    fn deferred_entries_reach_the_file_at_the_sync_or_the_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CATALOG_FILE);
        let file_len = || fs::metadata(&path).unwrap().len();
        let (c, _) = open_in(dir.path(), RecoveryMode::TolerateTailCorruption, |_| Ok(())).unwrap();
        c.defer_writes();
        let start = file_len();
        let end = c.append(&create("a", 1)).unwrap();
        c.append(&create("b", 2)).unwrap();
        assert_eq!(file_len(), start, "nothing written before the sync");
        assert!(c.sync().unwrap());
        c.wait_synced(end).unwrap();
        let after_sync = file_len();
        assert!(after_sync > start);
        c.append(&create("c", 3)).unwrap();
        drop(c);
        assert!(file_len() > after_sync, "the drop writes what is left");
        let names: Vec<String> = read(&path)
            .unwrap()
            .entries
            .into_iter()
            .map(|(_, e)| match e {
                Entry::Create { name, .. } | Entry::Delete { name, .. } => name,
            })
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
    }

    #[test]
    fn torn_tail_is_truncated_and_mid_damage_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CATALOG_FILE);
        let mut bytes = MAGIC.to_vec();
        let a = create("a", 1).encode();
        let b = create("b", 2).encode();
        let c = create("c", 3).encode();
        bytes.extend_from_slice(&a);
        let b_at = bytes.len();
        bytes.extend_from_slice(&b);
        bytes.extend_from_slice(&c);
        // Corruption inside b, c intact after it.
        bytes[b_at + ENTRY_HEAD + 3] ^= 1;
        // And a torn tail: half of another entry.
        bytes.extend_from_slice(&create("d", 4).encode()[..10]);
        fs::write(&path, &bytes).unwrap();
        let r = read(&path).unwrap();
        let names: Vec<_> = r
            .entries
            .iter()
            .map(|(_, e)| match e {
                Entry::Create { name, .. } => name.clone(),
                Entry::Delete { .. } => unreachable!(),
            })
            .collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(r.skipped, [(b_at as u64, (b_at + b.len()) as u64)]);
        assert_eq!(r.torn_at, Some((b_at + b.len() + c.len()) as u64));

        assert!(open_in(dir.path(), RecoveryMode::AbsoluteConsistency, |_| Ok(())).is_err());
        let (cat, live) =
            open_in(dir.path(), RecoveryMode::TolerateTailCorruption, |_| Ok(())).unwrap();
        assert_eq!(live, [create("a", 1), create("c", 3)]);
        drop(cat);
        // Rewritten: clean now.
        let r = read(&path).unwrap();
        assert!(r.skipped.is_empty() && r.torn_at.is_none());
        assert_eq!(r.entries.len(), 2);
    }

    #[test]
    fn deletes_drop_their_creates_when_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let (cat, live) =
            open_in(dir.path(), RecoveryMode::TolerateTailCorruption, |_| Ok(())).unwrap();
        assert!(live.is_empty());
        cat.append(&create("a", 1)).unwrap();
        cat.append(&create("b", 2)).unwrap();
        let end = cat
            .append(&Entry::Delete {
                name: "a".into(),
                incarnation: 1,
            })
            .unwrap();
        assert!(cat.sync().unwrap());
        cat.wait_synced(end).unwrap();
        drop(cat);
        let mut removed = Vec::new();
        let (_cat, live) = open_in(dir.path(), RecoveryMode::TolerateTailCorruption, |d| {
            removed = d.to_vec();
            Ok(())
        })
        .unwrap();
        assert_eq!(live, [create("b", 2)]);
        assert_eq!(removed, [create("a", 1)]);
        assert_eq!(
            read(&dir.path().join(CATALOG_FILE)).unwrap().entries.len(),
            1
        );
    }
}
