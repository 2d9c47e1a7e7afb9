//! Slots: where a small partition keeps its log, so that creating a topic
//! creates no file.
//!
//! A file system allocates an inode per file and per directory, and on
//! this kind of machine that alone caps creation at a few thousand per
//! second (STORAGE.md §2.5 has the figures). So each topic gets, in its
//! catalog entry, one *slot* per partition: a fixed [`SLOT_BYTES`] range
//! of a shared *slab* file, `<data_dir>/slabs/<n:08x>`, each slab holding
//! [`SLAB_SLOTS`] slots. A partition with a slot and no directory keeps
//! its first (and only) segment there: batches from the slot's start,
//! zeros after them. When it outgrows the slot it *moves out* into a
//! partition directory like any other (see `Partition`), and the slot is
//! released — its range punched out of the slab, so it costs no disk.
//!
//! A slot is never handed out twice: the next slot is past every slot the
//! catalog names and past every byte the slab files hold, so a new slot
//! reads as zeros whatever a crash left (a creation torn out of the
//! catalog may have written into the slot it was given: that slot stays
//! unused).

use std::collections::HashMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::error::{IoContext, Result, StorageError};
use super::fsutil;
use super::io::{Io, OpenMode};
use super::segment::SegmentFile;

/// Bytes in a slot: one file-system block, so a nearly empty partition
/// costs one block.
pub const SLOT_BYTES: u64 = 4096;
/// Slots in a slab file (a 256 MiB file, sparse where slots are unused).
pub const SLAB_SLOTS: u64 = 65_536;
/// Slots a data directory may ever hand out (2^40: 4 PiB of slots). A
/// catalog entry naming one beyond is corruption, so slot arithmetic never
/// overflows.
pub const MAX_SLOTS: u64 = 1 << 40;
/// The directory of the slab files, in the data directory.
pub const SLABS_DIR: &str = "slabs";

/// A slot's slab and its first byte in it.
pub fn place(slot: u64) -> (u64, u64) {
    (slot / SLAB_SLOTS, (slot % SLAB_SLOTS) * SLOT_BYTES)
}

/// The path of slab `n` in `data_dir`.
pub fn slab_path(data_dir: &Path, n: u64) -> PathBuf {
    data_dir.join(SLABS_DIR).join(format!("{n:08x}"))
}

fn parse_slab_name(name: &str) -> Option<u64> {
    (name.len() == 8 && name.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| u64::from_str_radix(name, 16).ok())
        .flatten()
}

/// The slab files of a data directory and the next free slot.
pub struct Slabs {
    dir: PathBuf,
    state: Mutex<SlabsState>,
    /// The log's count of open files (the `open_files` budget): each open
    /// slab counts one.
    files: Arc<AtomicUsize>,
    io: Io,
}

/// The slabs' bookkeeping, under their lock.
struct SlabsState {
    open: HashMap<u64, Arc<File>>,
    next: u64,
    /// The slots' segment files in use (by a partition or a reader): one
    /// per slot, so that releasing a slot waits for its last reader.
    live: HashMap<u64, Weak<SegmentFile>>,
    /// `live`'s size after its last pruning.
    pruned_at: usize,
}

impl std::fmt::Debug for Slabs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slabs")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl Slabs {
    /// Open the slabs of `data_dir` (creating `slabs/`); the next slot is
    /// at least `floor` (past every slot the catalog names) and past every
    /// byte the slab files hold.
    pub fn open(data_dir: &Path, floor: u64, files: Arc<AtomicUsize>, io: Io) -> Result<Slabs> {
        let dir = data_dir.join(SLABS_DIR);
        if !dir.exists() {
            fsutil::create_dir_durable(&io, &dir)?;
        }
        let mut next = floor;
        for entry in fs::read_dir(&dir).ctx("list slabs", &dir)? {
            let entry = entry.ctx("list slabs", &dir)?;
            let Some(n) = entry.file_name().to_str().and_then(parse_slab_name) else {
                tracing::warn!(file = %entry.path().display(), "ignoring an unknown file among the slabs");
                continue;
            };
            let len = entry.metadata().ctx("stat slab", &entry.path())?.len();
            // A slab past the last slot, or longer than its slots, is not ours.
            if n >= MAX_SLOTS / SLAB_SLOTS || len > SLAB_SLOTS * SLOT_BYTES {
                tracing::warn!(file = %entry.path().display(), len, "ignoring a slab file beyond the slots a data directory holds");
                continue;
            }
            next = next.max(n * SLAB_SLOTS + len.div_ceil(SLOT_BYTES));
        }
        Ok(Slabs {
            dir,
            state: Mutex::new(SlabsState {
                open: HashMap::new(),
                next,
                live: HashMap::new(),
                pruned_at: 0,
            }),
            files,
            io,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SlabsState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Make the next slot at least `floor` (past every slot the catalog names).
    pub fn raise_floor(&self, floor: u64) {
        let mut st = self.lock();
        st.next = st.next.max(floor);
    }

    /// Hand out `n` consecutive slots in one slab; returns the first.
    pub fn reserve(&self, n: u32) -> u64 {
        let n = u64::from(n);
        let mut st = self.lock();
        let mut first = st.next;
        if first % SLAB_SLOTS + n > SLAB_SLOTS {
            first = first.div_ceil(SLAB_SLOTS) * SLAB_SLOTS;
        }
        st.next = first + n;
        first
    }

    /// The next slot [`Slabs::reserve`] would hand out (tests, tools).
    pub fn next_slot(&self) -> u64 {
        self.lock().next
    }

    /// Slab files open now.
    pub fn open_count(&self) -> usize {
        self.lock().open.len()
    }

    /// Slot `slot` as a segment file: the one in use, or a new one.
    pub fn segment(&self, slot: u64) -> Result<Arc<SegmentFile>> {
        if let Some(seg) = self.lock().live.get(&slot).and_then(Weak::upgrade) {
            return Ok(seg);
        }
        let (file, path, origin) = self.file(slot)?;
        let mut st = self.lock();
        // Opens of one slot are serialised by the log; keep the first anyway.
        if let Some(seg) = st.live.get(&slot).and_then(Weak::upgrade) {
            return Ok(seg);
        }
        let seg = Arc::new(SegmentFile::in_slot(
            &path,
            file,
            origin,
            SLOT_BYTES,
            self.io.clone(),
        ));
        st.live.insert(slot, Arc::downgrade(&seg));
        if st.live.len() >= 2 * st.pruned_at.max(1024) {
            st.live.retain(|_, w| w.strong_count() > 0);
            st.pruned_at = st.live.len();
        }
        Ok(seg)
    }

    /// Slot `slot`'s slab file (opened, or created and made durable, on
    /// first use), its path and the slot's first byte in it.
    pub fn file(&self, slot: u64) -> Result<(Arc<File>, PathBuf, u64)> {
        let (n, origin) = place(slot);
        let path = self.dir.join(format!("{n:08x}"));
        let mut st = self.lock();
        if let Some(f) = st.open.get(&n) {
            return Ok((f.clone(), path, origin));
        }
        let created = !path.exists();
        let file = self
            .io
            .open(&path, OpenMode::Create)
            .ctx("open slab", &path)?;
        if created {
            fsutil::fsync_dir(&self.io, &self.dir)?;
        }
        let file = Arc::new(file);
        st.open.insert(n, file.clone());
        self.files.fetch_add(1, Ordering::AcqRel);
        Ok((file, path, origin))
    }

    /// Punch slot `slot` out of its slab (a deleted topic's): its bytes
    /// read as zeros and cost no disk — once the last reader of it lets go,
    /// if one still holds it. A slab never created has nothing to punch.
    pub fn release(&self, slot: u64) -> Result<()> {
        let (n, _) = place(slot);
        {
            let mut st = self.lock();
            if let Some(seg) = st.live.remove(&slot).and_then(|w| w.upgrade()) {
                seg.release_when_unused();
                return Ok(());
            }
            if !st.open.contains_key(&n) && !self.dir.join(format!("{n:08x}")).exists() {
                return Ok(());
            }
        }
        let (file, path, origin) = self.file(slot)?;
        punch(&self.io, &file, &path, origin)
    }
}

impl Drop for Slabs {
    fn drop(&mut self) {
        let n = self.lock().open.len();
        self.files.fetch_sub(n, Ordering::AcqRel);
    }
}

/// Punch the slot at `origin` out of a slab file.
pub fn punch(io: &Io, file: &File, path: &Path, origin: u64) -> Result<()> {
    io.punch_hole(file, origin, SLOT_BYTES)
        .map_err(|e| StorageError::io("release slot", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_never_handed_out_twice_nor_across_a_slab() {
        let dir = tempfile::tempdir().unwrap();
        let files = Arc::new(AtomicUsize::new(0));
        let slabs = Slabs::open(dir.path(), 10, files.clone(), Io::real()).unwrap();
        assert_eq!(slabs.reserve(3), 10);
        assert_eq!(slabs.reserve(1), 13);
        // A topic whose slots would straddle two slabs starts the next one.
        let s = Slabs::open(dir.path(), SLAB_SLOTS - 2, files.clone(), Io::real()).unwrap();
        assert_eq!(s.reserve(3), SLAB_SLOTS);
        // Bytes in a slab push the next slot past them, whatever the catalog says.
        let (f, _, origin) = slabs.file(20).unwrap();
        assert_eq!(origin, 20 * SLOT_BYTES);
        use std::os::unix::fs::FileExt;
        f.write_all_at(b"x", origin + 5).unwrap();
        assert_eq!(files.load(Ordering::Acquire), 1);
        drop((slabs, s, f));
        assert_eq!(files.load(Ordering::Acquire), 0);
        let again = Slabs::open(dir.path(), 0, files, Io::real()).unwrap();
        assert_eq!(again.reserve(1), 21);
    }

    #[test]
    fn a_released_slot_reads_as_zeros() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        let slabs = Slabs::open(dir.path(), 0, Arc::new(AtomicUsize::new(0)), Io::real()).unwrap();
        let (f, _, o1) = slabs.file(1).unwrap();
        let (_, _, o2) = slabs.file(2).unwrap();
        f.write_all_at(&[7u8; 4096], o1).unwrap();
        f.write_all_at(&[9u8; 4096], o2).unwrap();
        slabs.release(1).unwrap();
        let mut buf = [1u8; 4096];
        f.read_exact_at(&mut buf, o1).unwrap();
        assert!(buf.iter().all(|b| *b == 0));
        f.read_exact_at(&mut buf, o2).unwrap();
        assert!(buf.iter().all(|b| *b == 9), "the neighbour is untouched");
        // A slab that does not exist is not created to release a slot in it.
        slabs.release(5 * SLAB_SLOTS).unwrap();
        assert!(!slab_path(dir.path(), 5).exists());
    }
}
