//! The data directory lock: one broker per data directory.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};

use super::error::{IoContext, Result, StorageError};

/// An exclusive `flock` on `<data_dir>/LOCK`, held for the life of this value.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
    path: PathBuf,
}

impl DirLock {
    /// Take the lock or fail with [`StorageError::Locked`] naming the holder.
    pub fn acquire(data_dir: &Path) -> Result<DirLock> {
        let path = data_dir.join("LOCK");
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .ctx("open lock file", &path)?;
        if let Err(e) = flock(&file, FlockOperation::NonBlockingLockExclusive) {
            if e == rustix::io::Errno::WOULDBLOCK {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim().to_owned();
                return Err(StorageError::Locked {
                    path,
                    holder: (!holder.is_empty()).then_some(holder),
                });
            }
            return Err(StorageError::io("lock", &path, e.into()));
        }
        file.set_len(0).ctx("truncate lock file", &path)?;
        file.seek(SeekFrom::Start(0))
            .ctx("write lock file", &path)?;
        writeln!(file, "pid {}", std::process::id()).ctx("write lock file", &path)?;
        Ok(DirLock { _file: file, path })
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path()).unwrap();
        let err = DirLock::acquire(dir.path()).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("another broker may be using this directory"),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        drop(first);
        DirLock::acquire(dir.path()).unwrap();
    }
}
