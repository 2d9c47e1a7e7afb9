//! The open catalog of a running broker: recovered at open, appended to
//! by creations and deletions, synced by the group commit.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::entry::{Entry, MAGIC, split_entries};
use super::replay::read;
use crate::log::error::{IoContext, Result, StorageError};
use crate::log::fsutil;
use crate::log::io::{Io, OpenMode};
use crate::log::options::RecoveryMode;

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

/// Remove what a catalog rewrite cut short left ([`fsutil::write_atomic`]'s temporary file).
pub fn remove_leftovers(io: &Io, data_dir: &Path) {
    let tmp = fsutil::tmp_path(&data_dir.join(CATALOG_FILE));
    if tmp.exists()
        && let Err(e) = io.remove_file(&tmp)
    {
        tracing::warn!(file = %tmp.display(), error = %e, "could not remove a leftover catalog rewrite");
    }
}
