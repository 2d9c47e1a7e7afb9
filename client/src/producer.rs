//! [`Producer`]: records are appended straight into per-(topic, partition,
//! key) batch buffers and sent when a batch is full (`batch_records`,
//! `batch_bytes`) or has waited `linger`; many batches are in flight at once.
//!
//! # Data path
//! ```text
//! send / send_with ──(one short lock)──▶ open batch (Vec: header gap, key, len|record …)
//!        │ full or lingered: closed
//!        ▼
//! sender task: header + CRC written in place ─▶ per-partition queue ─▶ link.submit (transport)
//!        ▲                                                                  │
//!        └──────────── completions (channel, no allocation per batch) ◀─────┘
//! ```
//! A batch is *open* while records go into it and *closed* once it is full
//! or has lingered: closed to new records, it goes to the sender task.
//! (Sealing is the cryptography's word: records are sealed, batches closed.)
//! The sender task knows transports only through their contract
//! (`crate::transport`: `Transport`, `BatchLink`): a per-partition handle
//! made once, a link to submit on, completions on its channel.
//! A record's bytes are written once, into the buffer that goes to the
//! socket (over HermitMQ one `writev` per wake-up sends many batches). A [`Delivery`] is an `Arc` of its batch's outcome plus
//! the record's index: no allocation, no task and no channel per record.
//!
//! # Guarantees
//! - **Order.** Records with the same topic, partition and key are written in
//!   the order `send` was called (and keyless records of one partition too).
//!   Batches with different keys in one partition may interleave in the order
//!   they were closed. Retries never reorder a partition: after a retriable
//!   failure nothing more is sent to that partition until every batch in
//!   flight to it has been answered; the failed ones are then resent in their
//!   original order. A failed batch followed by a *successful* later batch of
//!   the same partition (possible only with a per-request broker error such
//!   as `StorageError`, not with a lost connection) cannot be resent without
//!   reordering; it is failed with its error instead.
//! - **At least once.** A batch whose connection died before its answer may
//!   already have been written by the broker (for example it was appended,
//!   then the broker crashed before acknowledging). Resending it then
//!   duplicates its records. Nothing acknowledged is lost, but consumers must
//!   tolerate duplicates.
//! - **Bounded memory.** Every byte of a record counts against
//!   `buffer_bytes` from `send` until its batch is acknowledged or failed;
//!   `send` waits (back-pressure) while the buffer is full. Besides, the
//!   producer keeps the buffers of up to 16 finished batches (each at most
//!   `batch_bytes` and a header) to write later batches into, so a busy
//!   producer does not allocate (and fault in) a buffer per batch.
//! - **Delivery timeout.** A batch still not acknowledged `delivery_timeout`
//!   after its first record was written (linger included) fails with the
//!   last error seen.
//!
//! # Layout
//! - `options`: [`ProducerOptions`].
//! - `send`: the [`Producer`] handle — `send`, `send_with`, `flush`, `close`.
//! - `accumulator`: open batches per topic, partition and key, and the
//!   bookkeeping shared with the sender task (bytes held, closed batches,
//!   linger deadlines).
//! - `delivery`: [`Delivery`], [`Delivered`] and the outcome every record
//!   of a batch shares.
//! - `sender`: the sender task — header and CRC, per-partition queues,
//!   submission on the transport's link.
//! - `retry`: answers — finished batches, retries in order, the delivery
//!   timeout.
//! - `topics`: partition counts, looked up and refreshed.
//! - `shared`: what the handle and the task share.

mod accumulator;
mod delivery;
mod options;
mod retry;
mod send;
mod sender;
mod shared;
mod topics;

pub use delivery::{Delivered, Delivery};
pub use options::ProducerOptions;
pub use send::Producer;
