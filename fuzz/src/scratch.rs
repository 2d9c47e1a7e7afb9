//! Scratch files of the targets that need a file system.

/// Where targets put their scratch files: `/dev/shm` when there is one (no
/// disk writes for millions of runs), else the system's temporary directory.
pub fn scratch_dir() -> std::path::PathBuf {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// A scratch path of this process: `<scratch_dir>/<prefix>-<pid>`. Paths of
/// the same prefix left by processes that are gone are removed first: AFL
/// restarts its persistent target process every few thousand runs, and a
/// killed process never cleans up after itself.
pub fn scratch_path(prefix: &str) -> std::path::PathBuf {
    let dir = scratch_dir();
    let mine = std::process::id();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix(prefix))
                .and_then(|n| n.strip_prefix('-'))
                .map(|n| n.split(|c: char| !c.is_ascii_digit()).next().unwrap_or(""))
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if pid != mine && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                let path = e.path();
                let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
            }
        }
    }
    dir.join(format!("{prefix}-{mine}"))
}

/// This thread's number, for scratch paths threads must not share (the
/// replay test runs targets on several threads at once).
pub fn thread_tag() -> String {
    let id = format!("{:?}", std::thread::current().id());
    id.chars().filter(char::is_ascii_digit).collect()
}
