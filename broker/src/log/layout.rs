//! Where things are in a data directory: the paths of partition
//! directories, the clean-close marker and the trash.
//! (The whole tree is drawn in the `log` module's documentation.)

use std::path::{Path, PathBuf};

use super::clock;

/// The directory holding every partition directory.
pub const PARTITIONS_DIR: &str = "partitions";

/// The directory partitions of deleted topics are moved to before they
/// are removed (emptied at every start).
pub const TRASH_DIR: &str = "trash";

/// Written by `Log::close` once everything is durable, removed (durably)
/// by `Log::open` before anything is written.
pub const CLEAN_FILE: &str = "clean";

/// The directory of partition `partition` of the topic `name` of
/// incarnation `incarnation`: `<data_dir>/partitions/<name>@<partition>@<incarnation:016x>`.
/// `@` is outside the topic alphabet, so the name is unambiguous; the
/// incarnation keeps a topic created again under a deleted name away from
/// whatever of the old one a crash left behind.
/// A name longer than 200 bytes is cut there (the incarnation alone makes
/// the directory unique), so the whole stays within a file name's 255 bytes.
pub fn partition_dir(data_dir: &Path, name: &str, partition: u32, incarnation: u64) -> PathBuf {
    // Topic names are ASCII, so any byte index is a char boundary.
    let cut = name.get(..name.len().min(200)).unwrap_or(name);
    data_dir
        .join(PARTITIONS_DIR)
        .join(format!("{cut}@{partition}@{incarnation:016x}"))
}

/// Parse a partition directory's name into (topic name, cut at 200 bytes;
/// partition; incarnation).
pub fn parse_partition_dir(name: &str) -> Option<(&str, u32, u64)> {
    let (rest, incarnation) = name.rsplit_once('@')?;
    let (topic, partition) = rest.rsplit_once('@')?;
    if incarnation.len() != 16 {
        return None;
    }
    Some((
        topic,
        partition.parse().ok()?,
        u64::from_str_radix(incarnation, 16).ok()?,
    ))
}

/// A fresh directory name for `name` in `trash/`: the clock makes it
/// unique (deletions run one at a time under the admin lock, and leftovers
/// are removed at start); the name is cut so that the whole stays within a
/// file name's 255 bytes (a topic name may have 249).
pub(super) fn unique_name(name: &str) -> String {
    // Topic names are ASCII, so any byte index is a char boundary.
    let cut = name.get(..name.len().min(200)).unwrap_or("topic");
    format!("{:016x}-{cut}", clock::now_ns())
}
