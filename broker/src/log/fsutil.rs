//! File-system helpers: directory fsync and atomic replacement.
//!
//! The pattern for every file the broker replaces: write a temporary file,
//! fsync it, rename it over the target, fsync the directory.

use std::path::{Path, PathBuf};

use super::error::{IoContext, Result};
use super::io::{Io, OpenMode};

/// fsync a directory so that entries created, renamed or removed in it are durable.
pub fn fsync_dir(io: &Io, dir: &Path) -> Result<()> {
    io.sync_dir(dir).ctx("fsync directory", dir)
}

/// The temporary name used while writing `path` atomically.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Replace `path` with `bytes` atomically and durably.
pub fn write_atomic(io: &Io, path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = tmp_path(path);
    let f = io.open(&tmp, OpenMode::Replace).ctx("create", &tmp)?;
    io.write_at(&f, &[bytes], 0).ctx("write", &tmp)?;
    io.sync_all(&f).ctx("fsync", &tmp)?;
    drop(f);
    io.rename(&tmp, path).ctx("rename into place", path)?;
    fsync_dir(io, parent(path))
}

/// Create a directory (and parents) and fsync its parent.
pub fn create_dir_durable(io: &Io, dir: &Path) -> Result<()> {
    io.create_dir_all(dir).ctx("create directory", dir)?;
    fsync_dir(io, parent(dir))
}

/// The parent directory of a path inside the data directory.
pub fn parent(path: &Path) -> &Path {
    // `Path::new("data").parent()` is `Some("")`, which names no directory.
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_of_relative_paths_are_real_directories() {
        assert_eq!(parent(Path::new("data")), Path::new("."));
        assert_eq!(parent(Path::new("./data")), Path::new("."));
        assert_eq!(parent(Path::new("a/b")), Path::new("a"));
        assert_eq!(parent(Path::new("/")), Path::new("."));
    }
}
