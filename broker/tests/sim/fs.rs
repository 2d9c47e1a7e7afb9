//! A file system that loses power: [`SimFs`] sits behind the storage
//! engine's I/O seam (`hermit_broker::log::io`), passes every operation on
//! to real files under one root (so reads, `sendfile` and `mmap` see what
//! was written, as they would see the page cache), and remembers what no
//! completed fsync covers yet. [`SimFs::power_loss`] then rewrites the root
//! as a disk could hold it after the power went:
//!
//! - each write not covered by an `fdatasync`/`fsync` of its file (or a
//!   `syncfs`) is kept, dropped, or torn at a 512-byte sector boundary
//!   (the part before or after the boundary survives), independently of the
//!   others — so later writes may survive where earlier ones did not;
//! - a truncation, extension or punched hole not covered is kept or undone;
//! - a creation, `mkdir`, rename or removal not covered by an fsync of its
//!   directory (each directory it changes, for a rename) is kept or undone;
//!   a rename is kept or undone whole.
//!
//! From a chosen operation on ([`SimFs::crash_at`]) the power is gone:
//! every operation fails with `EIO` and changes nothing, as if the process
//! had died there, until the harness calls [`SimFs::power_loss`].
//!
//! Everything it decides comes from the seed it is given, so a failing
//! seed replays.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use hermit_broker::log::io::{FileSystem, OpenMode, RealFs};

use super::rng::Rng;

const PAGE: u64 = 4096;
const SECTOR: u64 = 512;

/// File contents as 4 KiB pages (a missing page reads as zeros), so that a
/// sparse slab of 256 MiB with a few slots in use costs a few pages.
#[derive(Debug, Clone, Default)]
struct Sparse {
    len: u64,
    pages: BTreeMap<u64, Box<[u8]>>,
}

impl Sparse {
    fn write(&mut self, mut pos: u64, mut bytes: &[u8]) {
        self.len = self.len.max(pos + bytes.len() as u64);
        while !bytes.is_empty() {
            let (page, at) = (pos / PAGE, (pos % PAGE) as usize);
            let n = bytes.len().min(PAGE as usize - at);
            let p = self
                .pages
                .entry(page)
                .or_insert_with(|| vec![0u8; PAGE as usize].into_boxed_slice());
            p[at..at + n].copy_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            pos += n as u64;
        }
    }

    fn zero(&mut self, pos: u64, len: u64) {
        let end = pos + len;
        let mut at = pos;
        while at < end {
            let page = at / PAGE;
            let (from, to) = ((at % PAGE) as usize, (end - page * PAGE).min(PAGE) as usize);
            if from == 0 && to == PAGE as usize {
                self.pages.remove(&page);
            } else if let Some(p) = self.pages.get_mut(&page) {
                p[from..to].fill(0);
            }
            at = (page + 1) * PAGE;
        }
    }

    fn set_len(&mut self, len: u64) {
        if len < self.len {
            self.zero(len, self.len.div_ceil(PAGE) * PAGE - len);
        }
        self.len = len;
    }

    /// Read a real file, skipping its holes.
    fn read(file: &File) -> std::io::Result<Sparse> {
        let len = file.metadata()?.len();
        let mut s = Sparse {
            len,
            pages: BTreeMap::new(),
        };
        let mut pos = 0;
        let mut buf = vec![0u8; PAGE as usize];
        while pos < len {
            let data = match rustix::fs::seek(file, rustix::fs::SeekFrom::Data(pos)) {
                Ok(d) => d,
                Err(rustix::io::Errno::NXIO) => break,
                Err(e) => return Err(e.into()),
            };
            let hole = rustix::fs::seek(file, rustix::fs::SeekFrom::Hole(data))?;
            let mut page = data / PAGE;
            while page * PAGE < hole.min(len) {
                let n = (len - page * PAGE).min(PAGE) as usize;
                file.read_exact_at(&mut buf[..n], page * PAGE)?;
                buf[n..].fill(0);
                if buf.iter().any(|b| *b != 0) {
                    s.pages.insert(page, buf.clone().into_boxed_slice());
                }
                page += 1;
            }
            pos = hole;
        }
        Ok(s)
    }

    /// Write it out as a real file at `path`.
    fn store(&self, path: &Path) -> std::io::Result<()> {
        let f = File::create(path)?;
        f.set_len(self.len)?;
        for (page, bytes) in &self.pages {
            let at = page * PAGE;
            if at >= self.len {
                break;
            }
            let n = (self.len - at).min(PAGE) as usize;
            f.write_all_at(&bytes[..n], at)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
enum DataOp {
    Write { pos: u64, bytes: Vec<u8> },
    SetLen(u64),
    Punch { pos: u64, len: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Node {
    Dir,
    File(u64),
}

#[derive(Debug, Clone)]
enum Change {
    Create(PathBuf, u64),
    Mkdir(PathBuf),
    Rename(PathBuf, PathBuf),
    Unlink(PathBuf),
    Rmdir(PathBuf),
}

#[derive(Debug)]
struct Journaled {
    change: Change,
    /// Directories whose fsync it still waits for (empty: durable).
    waits_for: Vec<PathBuf>,
}

#[derive(Debug, Default)]
struct FileState {
    /// The durable contents, once read (before the first change to the file).
    durable: Option<Sparse>,
    /// Changes since its last fsync.
    pending: Vec<DataOp>,
}

/// Planted bugs: the harness must catch each of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lies {
    /// `fdatasync` and `fsync` of files return success and make nothing
    /// durable (the disk acknowledges before it writes: an ack before fsync).
    pub file_sync: bool,
    /// Directory fsyncs return success and make no entry durable.
    pub dir_sync: bool,
}

#[derive(Debug)]
struct State {
    next_id: u64,
    /// Real inode number → file id (inodes are not reused while a file lives).
    inodes: HashMap<u64, u64>,
    /// The namespace now, relative to the root.
    tree: BTreeMap<PathBuf, Node>,
    /// The namespace at the start (durable).
    start: BTreeMap<PathBuf, Node>,
    journal: Vec<Journaled>,
    files: HashMap<u64, FileState>,
    ops: u64,
    crash_at: Option<u64>,
    dead: bool,
    lies: Lies,
    /// A digest of the operations so far (kind and size, not names or
    /// bytes): the same seed must give the same digest.
    trace: u64,
}

/// The simulated file system over the real directory `root`.
#[derive(Debug)]
pub struct SimFs {
    root: PathBuf,
    state: Mutex<State>,
}

fn eio() -> std::io::Error {
    std::io::Error::other("simulated power loss")
}

impl SimFs {
    /// Simulate `root` (which exists); everything in it now is durable.
    pub fn new(root: &Path, lies: Lies) -> Arc<SimFs> {
        let mut st = State {
            next_id: 1,
            inodes: HashMap::new(),
            tree: BTreeMap::new(),
            start: BTreeMap::new(),
            journal: Vec::new(),
            files: HashMap::new(),
            ops: 0,
            crash_at: None,
            dead: false,
            lies,
            trace: 0xcbf2_9ce4_8422_2325,
        };
        walk(root, Path::new(""), &mut |rel, meta| {
            let node = if meta.is_dir() {
                Node::Dir
            } else {
                let id = st.next_id;
                st.next_id += 1;
                st.inodes.insert(meta.ino(), id);
                Node::File(id)
            };
            st.tree.insert(rel.to_path_buf(), node);
        });
        st.start = st.tree.clone();
        Arc::new(SimFs {
            root: root.to_path_buf(),
            state: Mutex::new(st),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Lose power at the `n`th operation from the start (0-based).
    pub fn crash_at(&self, n: u64) {
        self.lock().crash_at = Some(n);
    }

    /// Lose power at the next operation.
    pub fn cut_now(&self) {
        let mut st = self.lock();
        st.crash_at = Some(st.ops);
        st.dead = true;
    }

    /// Whether the power is gone.
    pub fn is_dead(&self) -> bool {
        self.lock().dead
    }

    /// Operations so far.
    pub fn ops(&self) -> u64 {
        self.lock().ops
    }

    /// The digest of the operations so far.
    pub fn trace(&self) -> u64 {
        self.lock().trace
    }

    fn rel<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.strip_prefix(&self.root).ok()
    }

    /// Count an operation; `Err` once the power is gone.
    fn step(&self, st: &mut State, kind: u64, size: u64) -> std::io::Result<()> {
        if st.dead {
            return Err(eio());
        }
        if st.crash_at == Some(st.ops) {
            st.dead = true;
            return Err(eio());
        }
        st.ops += 1;
        for v in [kind, size] {
            st.trace = (st.trace ^ v).wrapping_mul(0x0100_0000_01b3);
        }
        Ok(())
    }

    fn id_of(st: &State, file: &File) -> std::io::Result<Option<u64>> {
        Ok(st.inodes.get(&file.metadata()?.ino()).copied())
    }

    /// The file's state, its durable contents read first if need be.
    fn file_state<'s>(
        st: &'s mut State,
        id: u64,
        file: &File,
    ) -> std::io::Result<&'s mut FileState> {
        let fs = st.files.entry(id).or_default();
        if fs.durable.is_none() {
            fs.durable = Some(Sparse::read(file)?);
        }
        Ok(fs)
    }

    fn data_op(&self, file: &File, op: DataOp, kind: u64, size: u64) -> std::io::Result<()> {
        let mut st = self.lock();
        self.step(&mut st, kind, size)?;
        let Some(id) = Self::id_of(&st, file)? else {
            return Err(std::io::Error::other(
                "a write to a file the simulation never saw opened",
            ));
        };
        trace_file(&st, id, || match &op {
            DataOp::Write { pos, bytes } => format!("write {pos}+{}", bytes.len()),
            DataOp::SetLen(l) => format!("set_len {l}"),
            DataOp::Punch { pos, len } => format!("punch {pos}+{len}"),
        });
        // The durable contents are read before the change reaches the file.
        let fs = Self::file_state(&mut st, id, file)?;
        match &op {
            DataOp::Write { pos, bytes } => RealFs.write_at(file, &[bytes], *pos)?,
            DataOp::SetLen(len) => RealFs.set_len(file, *len)?,
            DataOp::Punch { pos, len } => RealFs.punch_hole(file, *pos, *len)?,
        }
        fs.pending.push(op);
        Ok(())
    }

    fn sync_file(&self, file: &File, kind: u64) -> std::io::Result<()> {
        let mut st = self.lock();
        self.step(&mut st, kind, 0)?;
        if st.lies.file_sync {
            return Ok(());
        }
        let Some(id) = Self::id_of(&st, file)? else {
            return Ok(());
        };
        trace_file(&st, id, || "sync".into());
        if let Some(fs) = st.files.get_mut(&id) {
            let durable = fs.durable.as_mut().expect("read before the first change");
            for op in fs.pending.drain(..) {
                apply(durable, &op);
            }
        }
        Ok(())
    }

    /// Before `rel` (and what is under it) goes: keep the durable contents
    /// of its files, which a crash may bring back.
    fn keep_contents(&self, st: &mut State, rel: &Path) -> std::io::Result<()> {
        let ids: Vec<(PathBuf, u64)> = st
            .tree
            .iter()
            .filter(|(p, _)| p.starts_with(rel))
            .filter_map(|(p, n)| match n {
                Node::File(id) => Some((p.clone(), *id)),
                Node::Dir => None,
            })
            .collect();
        for (p, id) in ids {
            let fs = st.files.entry(id).or_default();
            if fs.durable.is_none() {
                let f = File::open(self.root.join(&p))?;
                fs.durable = Some(Sparse::read(&f)?);
            }
        }
        Ok(())
    }

    fn journal(st: &mut State, change: Change) {
        if std::env::var_os("HERMITMQ_SIM_TRACE").is_some() {
            eprintln!("    io#{} {change:?}", st.ops - 1);
        }
        let parent = |p: &Path| p.parent().map(Path::to_path_buf).unwrap_or_default();
        let waits_for = match &change {
            Change::Create(p, _) | Change::Mkdir(p) | Change::Unlink(p) | Change::Rmdir(p) => {
                vec![parent(p)]
            }
            Change::Rename(a, b) => {
                let mut v = vec![parent(a), parent(b)];
                v.dedup();
                v
            }
        };
        st.journal.push(Journaled { change, waits_for });
    }

    /// Pull the plug: rewrite the root as the disk holds it after a power
    /// loss, with every undecided write and entry decided by `rng`.
    pub fn power_loss(&self, rng: &mut Rng) -> std::io::Result<()> {
        // How lucky this crash is: how much of the unsynced state survives.
        let keep = [10u64, 50, 90][rng.below(3) as usize];
        self.power_loss_keeping(rng, keep)
    }

    /// [`SimFs::power_loss`] keeping each undecided write and entry with
    /// probability `keep` percent (0: nothing unsynced survives).
    pub fn power_loss_keeping(&self, rng: &mut Rng, keep: u64) -> std::io::Result<()> {
        let mut st = self.lock();
        st.dead = true;
        let mut tree = st.start.clone();
        for j in &st.journal {
            if j.waits_for.is_empty() || rng.below(100) < keep {
                redo(&mut tree, &j.change);
            }
        }
        // Contents of every file that survives.
        let mut out: Vec<(PathBuf, Option<Sparse>)> = Vec::new();
        let now: HashMap<u64, PathBuf> = st
            .tree
            .iter()
            .filter_map(|(p, n)| match n {
                Node::File(id) => Some((*id, p.clone())),
                Node::Dir => None,
            })
            .collect();
        for (p, n) in &tree {
            match n {
                Node::Dir => out.push((p.clone(), None)),
                Node::File(id) => {
                    let content = match st.files.get(id) {
                        Some(fs) => {
                            let mut c = fs.durable.clone().expect("read before a change");
                            for op in &fs.pending {
                                if rng.below(100) < keep {
                                    apply(&mut c, op);
                                } else if let DataOp::Write { pos, bytes } = op
                                    && rng.below(2) == 0
                                {
                                    tear(&mut c, *pos, bytes, rng);
                                }
                            }
                            c
                        }
                        None => {
                            let at = now.get(id).expect("an untouched file is where it was");
                            Sparse::read(&File::open(self.root.join(at))?)?
                        }
                    };
                    out.push((p.clone(), Some(content)));
                }
            }
        }
        // Replace the root's contents (directories sort before their children).
        for entry in std::fs::read_dir(&self.root)? {
            let path = entry?.path();
            if path.is_dir() {
                std::fs::remove_dir_all(&path)?;
            } else {
                std::fs::remove_file(&path)?;
            }
        }
        for (p, content) in out {
            let path = self.root.join(&p);
            match content {
                None => std::fs::create_dir_all(&path)?,
                Some(c) => c.store(&path)?,
            }
        }
        Ok(())
    }
}

/// `HERMITMQ_SIM_TRACE`: print operation `what` on file `id`.
fn trace_file(st: &State, id: u64, what: impl FnOnce() -> String) {
    if std::env::var_os("HERMITMQ_SIM_TRACE").is_some() {
        let path = st
            .tree
            .iter()
            .find(|(_, n)| **n == Node::File(id))
            .map(|(p, _)| p.clone());
        eprintln!("    io#{} {} {path:?}", st.ops - 1, what());
    }
}

fn walk(root: &Path, rel: &Path, f: &mut impl FnMut(&Path, &std::fs::Metadata)) {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return;
    };
    let mut names: Vec<_> = entries.filter_map(|e| e.ok()).collect();
    names.sort_by_key(|e| e.file_name());
    for e in names {
        let r = rel.join(e.file_name());
        let Ok(meta) = e.metadata() else { continue };
        f(&r, &meta);
        if meta.is_dir() {
            walk(root, &r, f);
        }
    }
}

fn apply(c: &mut Sparse, op: &DataOp) {
    match op {
        DataOp::Write { pos, bytes } => c.write(*pos, bytes),
        DataOp::SetLen(len) => c.set_len(*len),
        DataOp::Punch { pos, len } => c.zero(*pos, (*len).min(c.len.saturating_sub(*pos))),
    }
}

/// Keep the part of a write before, or after, a sector boundary inside it.
fn tear(c: &mut Sparse, pos: u64, bytes: &[u8], rng: &mut Rng) {
    if bytes.is_empty() {
        return;
    }
    let end = pos + bytes.len() as u64;
    let first = pos / SECTOR + 1;
    let last = end.div_ceil(SECTOR) - 1;
    if first > last {
        return;
    }
    let cut = (first + rng.below(last - first + 1)) * SECTOR;
    let at = (cut - pos) as usize;
    if rng.below(2) == 0 {
        c.write(pos, &bytes[..at]);
    } else {
        c.write(cut, &bytes[at..]);
    }
}

/// Apply a namespace change to a tree, if it still applies there (an
/// earlier change it depends on may have been undone).
fn redo(tree: &mut BTreeMap<PathBuf, Node>, change: &Change) {
    let parent_ok = |tree: &BTreeMap<PathBuf, Node>, p: &Path| match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => tree.get(d) == Some(&Node::Dir),
        _ => true,
    };
    match change {
        Change::Create(p, id) => {
            if parent_ok(tree, p) && !tree.contains_key(p) {
                tree.insert(p.clone(), Node::File(*id));
            }
        }
        Change::Mkdir(p) => {
            if parent_ok(tree, p) && !tree.contains_key(p) {
                tree.insert(p.clone(), Node::Dir);
            }
        }
        Change::Unlink(p) => {
            if matches!(tree.get(p), Some(Node::File(_))) {
                tree.remove(p);
            }
        }
        Change::Rmdir(p) => {
            let empty = !tree.keys().any(|k| k != p && k.starts_with(p));
            if tree.get(p) == Some(&Node::Dir) && empty {
                tree.remove(p);
            }
        }
        Change::Rename(a, b) => {
            if !tree.contains_key(a) || !parent_ok(tree, b) {
                return;
            }
            let moved: Vec<(PathBuf, Node)> = tree
                .iter()
                .filter(|(k, _)| k.starts_with(a))
                .map(|(k, n)| (k.clone(), *n))
                .collect();
            tree.retain(|k, _| !k.starts_with(b) && !k.starts_with(a));
            for (k, n) in moved {
                let rest = k.strip_prefix(a).expect("under the source");
                let to = if rest.as_os_str().is_empty() {
                    b.clone()
                } else {
                    b.join(rest)
                };
                tree.insert(to, n);
            }
        }
    }
}

impl FileSystem for SimFs {
    fn open(&self, path: &Path, mode: OpenMode) -> std::io::Result<File> {
        let mut st = self.lock();
        self.step(&mut st, 1, mode as u64)?;
        let rel = self.rel(path).map(Path::to_path_buf);
        let existing = match std::fs::metadata(path) {
            Ok(m) => Some(m.ino()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let truncated = match (existing, mode, &rel) {
            (Some(ino), OpenMode::Replace, Some(_)) => {
                let Some(&id) = st.inodes.get(&ino) else {
                    return Err(std::io::Error::other("a file the simulation never saw"));
                };
                // Its durable contents, before the truncation reaches it.
                Self::file_state(&mut st, id, &File::open(path)?)?;
                Some(id)
            }
            _ => None,
        };
        let file = RealFs.open(path, mode)?;
        let Some(rel) = rel else {
            return Ok(file);
        };
        if let Some(id) = truncated {
            st.files
                .get_mut(&id)
                .expect("read above")
                .pending
                .push(DataOp::SetLen(0));
        } else if existing.is_none() {
            let id = st.next_id;
            st.next_id += 1;
            st.inodes.insert(file.metadata()?.ino(), id);
            st.files.insert(
                id,
                FileState {
                    durable: Some(Sparse::default()),
                    pending: Vec::new(),
                },
            );
            st.tree.insert(rel.clone(), Node::File(id));
            Self::journal(&mut st, Change::Create(rel, id));
        }
        Ok(file)
    }

    fn write_at(&self, file: &File, parts: &[&[u8]], pos: u64) -> std::io::Result<()> {
        let bytes = parts.concat();
        let n = bytes.len() as u64;
        self.data_op(file, DataOp::Write { pos, bytes }, 2, n)
    }

    fn set_len(&self, file: &File, len: u64) -> std::io::Result<()> {
        self.data_op(file, DataOp::SetLen(len), 3, len)
    }

    fn punch_hole(&self, file: &File, pos: u64, len: u64) -> std::io::Result<()> {
        self.data_op(file, DataOp::Punch { pos, len }, 4, len)
    }

    fn sync_data(&self, file: &File) -> std::io::Result<()> {
        self.sync_file(file, 5)
    }

    fn sync_all(&self, file: &File) -> std::io::Result<()> {
        self.sync_file(file, 6)
    }

    fn sync_dir(&self, dir: &Path) -> std::io::Result<()> {
        let mut st = self.lock();
        self.step(&mut st, 7, 0)?;
        File::open(dir)?;
        if st.lies.dir_sync {
            return Ok(());
        }
        let Some(rel) = self.rel(dir).map(Path::to_path_buf) else {
            return Ok(());
        };
        if std::env::var_os("HERMITMQ_SIM_TRACE").is_some() {
            eprintln!("    io#{} sync dir {rel:?}", st.ops - 1);
        }
        for j in &mut st.journal {
            j.waits_for.retain(|d| *d != rel);
        }
        Ok(())
    }

    fn sync_filesystem(&self, _any: &File) -> std::io::Result<()> {
        let mut st = self.lock();
        self.step(&mut st, 8, 0)?;
        if st.lies.file_sync {
            return Ok(());
        }
        for j in &mut st.journal {
            j.waits_for.clear();
        }
        for fs in st.files.values_mut() {
            if let Some(d) = fs.durable.as_mut() {
                for op in fs.pending.drain(..) {
                    apply(d, &op);
                }
            }
        }
        Ok(())
    }

    fn create_dir(&self, path: &Path) -> std::io::Result<()> {
        let mut st = self.lock();
        self.step(&mut st, 9, 0)?;
        std::fs::create_dir(path)?;
        if let Some(rel) = self.rel(path).map(Path::to_path_buf) {
            st.tree.insert(rel.clone(), Node::Dir);
            Self::journal(&mut st, Change::Mkdir(rel));
        }
        Ok(())
    }

    fn create_dir_all(&self, path: &Path) -> std::io::Result<()> {
        let mut missing = Vec::new();
        let mut p = path;
        while !p.exists() {
            missing.push(p.to_path_buf());
            match p.parent() {
                Some(parent) => p = parent,
                None => break,
            }
        }
        for d in missing.iter().rev() {
            self.create_dir(d)?;
        }
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
        let mut st = self.lock();
        self.step(&mut st, 10, 0)?;
        let rels = self
            .rel(from)
            .map(Path::to_path_buf)
            .zip(self.rel(to).map(Path::to_path_buf));
        if let Some((_, b)) = &rels {
            self.keep_contents(&mut st, b)?;
        }
        std::fs::rename(from, to)?;
        if let Some((a, b)) = rels {
            let mut tree = std::mem::take(&mut st.tree);
            redo(&mut tree, &Change::Rename(a.clone(), b.clone()));
            st.tree = tree;
            Self::journal(&mut st, Change::Rename(a, b));
        }
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> std::io::Result<()> {
        let mut st = self.lock();
        self.step(&mut st, 11, 0)?;
        let rel = self.rel(path).map(Path::to_path_buf);
        if let Some(r) = &rel {
            self.keep_contents(&mut st, r)?;
        }
        std::fs::remove_file(path)?;
        if let Some(r) = rel {
            st.tree.remove(&r);
            Self::journal(&mut st, Change::Unlink(r));
        }
        Ok(())
    }

    fn remove_dir_all(&self, path: &Path) -> std::io::Result<()> {
        let Some(rel) = self.rel(path).map(Path::to_path_buf) else {
            return std::fs::remove_dir_all(path);
        };
        // Deepest first, one entry at a time, as the kernel sees it.
        let under: Vec<(PathBuf, Node)> = {
            let st = self.lock();
            if !st.tree.contains_key(&rel) {
                return Err(std::io::ErrorKind::NotFound.into());
            }
            st.tree
                .iter()
                .filter(|(k, _)| k.starts_with(&rel))
                .map(|(k, n)| (k.clone(), *n))
                .collect()
        };
        for (k, n) in under.into_iter().rev() {
            let full = self.root.join(&k);
            match n {
                Node::File(_) => self.remove_file(&full)?,
                Node::Dir => {
                    let mut st = self.lock();
                    self.step(&mut st, 12, 0)?;
                    std::fs::remove_dir(&full)?;
                    st.tree.remove(&k);
                    Self::journal(&mut st, Change::Rmdir(k));
                }
            }
        }
        Ok(())
    }
}
