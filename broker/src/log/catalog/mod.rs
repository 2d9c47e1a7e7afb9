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
//!
//! # Layout
//! - `entry`: the entries and their format, encoded and decoded.
//! - `replay`: reading a catalog file front to back ([`read`]).
//! - `file`: the open [`Catalog`] of a running broker.

mod entry;
mod file;
mod replay;
#[cfg(test)]
mod tests;

pub use entry::{Entry, StoredSettings, split_entries};
pub use file::{CATALOG_FILE, Catalog, remove_leftovers};
pub use replay::{Replay, read};
