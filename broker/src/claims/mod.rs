//! Claims: each partition's claim position, and the claims it remembers,
//! kept in the compacted internal topic `__claims` and in memory (rebuilt
//! from the topic at start), as [`offsets`](crate::offsets) keeps group
//! offsets. A claim hands the first durable batch at or after a
//! partition's position to one claimer and moves the position past it
//! (PROTOCOL.md, "Claim").
//!
//! Record layout in `__claims` (one record per batch, STORAGE.md §2.6):
//! key = `u8 len | topic | u32 partition`; payload = the client layout with
//! one record, the partition's whole claim state: `position u64 | n u16 |
//! n × (claim_id [16] | principal [32] | offset u64)` — the last
//! [`REMEMBERED`] claims, newest last. Compaction keeps the newest record
//! per key, which holds the whole state; a tombstone (empty payload)
//! forgets the key.
//!
//! # Layout
//! - `state`: one partition's state, its key and value, their codecs.
//! - `store`: [`ClaimStore`]: the shards, loading, recording, forgetting.
//! - `take`: one claim under its shard's lock ([`ClaimStore::take`]).

mod state;
mod store;
mod take;

pub use state::{CLAIM_ID_LEN, CLAIMS_TOPIC, PRINCIPAL_LEN, REMEMBERED};
pub use store::{ClaimStore, SHARDS};
pub use take::{ClaimRequest, Step};
