//! The client state directory: where, how it is protected, how files in it
//! are written.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use std::sync::{Arc, OnceLock};

use super::anchors::StateAnchors;
use super::known_brokers::{KnownBrokers, KnownBrokersError};
use super::write::write_whole;
use crate::crypto::Identity;

/// The lock file's name: it holds the pid of the process using the directory.
const LOCK: &str = "lock";

/// Why a state directory cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateDirError {
    /// The directory could not be made, read or locked.
    #[error("state directory {}: {source}", path.display())]
    Io {
        /// The directory or the file in it.
        path: PathBuf,
        /// What failed.
        #[source]
        source: io::Error,
    },
    /// Others may read or enter it (it holds what a client must remember
    /// about brokers and its own state).
    #[error(
        "state directory {} has mode {mode:o}: others may read it; run `chmod 700 {}`",
        path.display(),
        path.display()
    )]
    Exposed {
        /// The directory.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// Another process holds it.
    #[error(
        "state directory {} is in use by another process{}: two processes of one identity must not share it unknowingly; give this one its own (--state-dir or HERMIT_STATE_DIR)",
        path.display(),
        match pid { Some(p) => format!(" (pid {p})"), None => String::new() }
    )]
    Locked {
        /// The directory.
        path: PathBuf,
        /// The process holding it, if its lock file says.
        pid: Option<u32>,
    },
    /// No directory was given and no default can be found (neither
    /// `XDG_STATE_HOME` nor `HOME` is set).
    #[error("no state directory: set HERMIT_STATE_DIR (or XDG_STATE_HOME or HOME)")]
    NoDefault,
}

/// A client state directory, locked by this process while the value lives.
///
/// Files in it are written whole or not at all ([`StateDir::write`]: a
/// temporary file, fsync, rename, fsync of the directory), so a crash
/// leaves the old or the new contents, never a mix.
pub struct StateDir {
    path: PathBuf,
    /// Held open with an exclusive `flock` until drop.
    lock: File,
    /// The pins of `known-brokers`, read at first use; one set per
    /// directory, so every client using it writes through the same.
    known: OnceLock<Arc<KnownBrokers>>,
    /// The `state-anchors` file's handle, made at first use; one per
    /// directory, so its writers in this process take turns.
    anchors: OnceLock<Arc<StateAnchors>>,
}

impl StateDir {
    /// Open (making it, mode 0700, if missing) and lock the directory at
    /// `path`.
    ///
    /// # Errors
    /// [`StateDirError::Exposed`] when group or others have any access;
    /// [`StateDirError::Locked`] when another process holds it (a process
    /// of the Rust SDK or CLI by its lock, one of the JavaScript SDK by the
    /// live pid in the lock file); [`StateDirError::Io`] otherwise.
    pub fn open(path: impl Into<PathBuf>) -> Result<StateDir, StateDirError> {
        let path = path.into();
        let io = |p: &Path| {
            let p = p.to_owned();
            move |source| StateDirError::Io { path: p, source }
        };
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&path)
            .map_err(io(&path))?;
        let meta = fs::metadata(&path).map_err(io(&path))?;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(StateDirError::Exposed { path, mode });
        }
        let lock_path = path.join(LOCK);
        let mut lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&lock_path)
            .map_err(io(&lock_path))?;
        let holder = || {
            let mut text = String::new();
            File::open(&lock_path)
                .and_then(|mut f| f.read_to_string(&mut text))
                .ok()
                .and_then(|_| text.trim().parse::<u32>().ok())
        };
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(StateDirError::Locked {
                    pid: holder(),
                    path,
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(io(&lock_path)(e)),
        }
        // A process that cannot flock (the JavaScript SDK) says it holds
        // the directory by its live pid in the file.
        if let Some(pid) = holder().filter(|&p| p != std::process::id() && alive(p)) {
            return Err(StateDirError::Locked {
                pid: Some(pid),
                path,
            });
        }
        lock.set_len(0).map_err(io(&lock_path))?;
        writeln!(lock, "{}", std::process::id()).map_err(io(&lock_path))?;
        lock.sync_all().map_err(io(&lock_path))?;
        Ok(StateDir {
            path,
            lock,
            known: OnceLock::new(),
            anchors: OnceLock::new(),
        })
    }

    /// The default directory of `identity`:
    /// `$XDG_STATE_HOME/hermitmq/<fingerprint>`, else
    /// `$HOME/.local/state/hermitmq/<fingerprint>` (the full 64-hex-digit
    /// fingerprint: one directory per identity).
    ///
    /// # Errors
    /// [`StateDirError::NoDefault`] when neither variable is set.
    pub fn default_path(identity: &Identity) -> Result<PathBuf, StateDirError> {
        let base = match std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
            Some(state) => PathBuf::from(state),
            None => match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
                Some(home) => PathBuf::from(home).join(".local").join("state"),
                None => return Err(StateDirError::NoDefault),
            },
        };
        Ok(base.join("hermitmq").join(identity.fingerprint().to_hex()))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pins of the `known-brokers` file, read at the first call.
    ///
    /// # Errors
    /// The file cannot be read, or a line is malformed.
    pub fn known_brokers(&self) -> Result<Arc<KnownBrokers>, KnownBrokersError> {
        if let Some(k) = self.known.get() {
            return Ok(k.clone());
        }
        let loaded = Arc::new(KnownBrokers::load(&self.path)?);
        Ok(self.known.get_or_init(|| loaded).clone())
    }

    /// The `state-anchors` file (the newest sealed state per broker and
    /// key this device wrote or accepted); one handle per directory, so
    /// every user in this process updates it in turn.
    pub fn state_anchors(&self) -> Arc<StateAnchors> {
        self.anchors
            .get_or_init(|| Arc::new(StateAnchors::new(&self.path)))
            .clone()
    }

    /// The contents of the file `name` in the directory, `None` if there is
    /// none.
    ///
    /// # Errors
    /// The file exists but cannot be read.
    pub fn read(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        match fs::read(self.path.join(name)) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Replace the file `name` with `contents`, whole or not at all: a
    /// temporary file (mode 0600) written and synced, renamed over it, the
    /// directory synced.
    ///
    /// # Errors
    /// Any step failing (the old contents then stay).
    pub fn write(&self, name: &str, contents: &[u8]) -> io::Result<()> {
        write_whole(&self.path, name, contents)
    }

    /// Delete the file `name` (gone already is fine), and sync the
    /// directory so the deletion survives a crash.
    ///
    /// # Errors
    /// Removing or syncing failed.
    pub fn remove(&self, name: &str) -> io::Result<()> {
        match fs::remove_file(self.path.join(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        }
        File::open(&self.path)?.sync_all()
    }

    /// The names of the files in the directory that start with `prefix`,
    /// sorted (temporary files of unfinished writes left out).
    ///
    /// # Errors
    /// The directory cannot be read.
    pub fn names_with_prefix(&self, prefix: &str) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.path)? {
            let name = entry?.file_name();
            if let Some(name) = name.to_str()
                && name.starts_with(prefix)
                && !name.ends_with(".tmp")
            {
                names.push(name.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }
}

/// Whether a process with `pid` runs (Linux: its `/proc` entry exists).
fn alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

impl Drop for StateDir {
    fn drop(&mut self) {
        // Emptied, so a process that cannot flock sees no live pid; the
        // flock goes with the descriptor.
        let _ = self.lock.set_len(0);
    }
}

impl fmt::Debug for StateDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateDir")
            .field("path", &self.path)
            .finish()
    }
}

impl PartialEq for StateDir {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl Eq for StateDir {}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0)
    }

    #[test]
    fn made_private_locked_and_refused_when_exposed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a").join("state");
        let dir = StateDir::open(&path).unwrap();
        assert_eq!(mode_of(&path), 0o700);
        // A second holder in this process: the flock refuses it.
        let e = StateDir::open(&path).unwrap_err();
        assert!(
            matches!(e, StateDirError::Locked { pid: Some(p), .. } if p == std::process::id()),
            "{e}"
        );
        assert!(e.to_string().contains("--state-dir"), "{e}");
        drop(dir);
        let dir = StateDir::open(&path).unwrap();
        dir.write("f", b"one").unwrap();
        dir.write("f", b"two").unwrap();
        assert_eq!(dir.read("f").unwrap().as_deref(), Some(&b"two"[..]));
        assert_eq!(dir.read("none").unwrap(), None);
        assert_eq!(mode_of(&path.join("f")), 0o600);
        drop(dir);

        fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
        let e = StateDir::open(&path).unwrap_err();
        assert!(
            matches!(e, StateDirError::Exposed { mode: 0o750, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("chmod 700"), "{e}");
    }

    #[test]
    fn a_live_pid_in_the_lock_file_holds_the_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s");
        fs::create_dir(&path).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o700)).unwrap();
        // pid 1 runs on every Linux system; a dead pid is taken over.
        fs::write(path.join(LOCK), "1\n").unwrap();
        let e = StateDir::open(&path).unwrap_err();
        assert!(
            matches!(e, StateDirError::Locked { pid: Some(1), .. }),
            "{e}"
        );
        fs::write(path.join(LOCK), format!("{}\n", u32::MAX)).unwrap();
        let dir = StateDir::open(&path).unwrap();
        let pid: u32 = fs::read_to_string(path.join(LOCK))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(pid, std::process::id());
        drop(dir);
        assert_eq!(fs::read_to_string(path.join(LOCK)).unwrap(), "");
    }
}
