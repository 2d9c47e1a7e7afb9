//! [`ProducerOptions`]: batching, acknowledgement, memory and retry settings.

use std::time::Duration;

use hermit_protocol::Ack;

/// Producer settings. Each field's doc ends with its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerOptions {
    /// When the broker acknowledges: [`Ack::Durable`] (after an fsync covers
    /// the batch) or [`Ack::Written`] (after the write). A broker running
    /// `fsync = never` refuses durable produces with `NotDurable`, and so
    /// does the NATS transport unless its URL says the servers sync every
    /// write ([`NatsOptions::servers_sync_every_write`]; `docs/SCALE-OUT.md`
    /// §4.1). Default `Durable`.
    ///
    /// [`NatsOptions::servers_sync_every_write`]: crate::NatsOptions::servers_sync_every_write
    pub ack: Ack,
    /// How long a batch waits for more records before it is sent. Default 5 ms
    /// (the original client used 100 ms).
    pub linger: Duration,
    /// Records per batch; a batch is sent as soon as it holds this many. Default 100.
    pub batch_records: u32,
    /// Bytes per batch (header, key and records); a batch is sent before it
    /// would grow past this. A single larger record gets a batch of its own.
    /// Default 256 KiB.
    pub batch_bytes: usize,
    /// Bytes of records (plus batch headers and keys) held from `send` until
    /// acknowledged; `send` waits while it is full. A record larger than the
    /// whole buffer is accepted only when the buffer is empty. Default 32 MiB.
    pub buffer_bytes: usize,
    /// Batches in flight (sent, not yet answered) at once. Durable acks wait
    /// for an fsync, so this many batches per fsync is the durable
    /// throughput ceiling. Keep it below the client's `max_in_flight`.
    /// Default 256.
    pub max_in_flight: usize,
    /// Wait before resending batches after a retriable failure. Default 100 ms.
    pub retry_backoff: Duration,
    /// A batch not acknowledged this long after its first record was written
    /// (linger included) fails. Default 120 s.
    pub delivery_timeout: Duration,
}

impl Default for ProducerOptions {
    fn default() -> Self {
        ProducerOptions {
            ack: Ack::Durable,
            linger: Duration::from_millis(5),
            batch_records: 100,
            batch_bytes: 256 * 1024,
            buffer_bytes: 32 << 20,
            max_in_flight: 256,
            retry_backoff: Duration::from_millis(100),
            delivery_timeout: Duration::from_secs(120),
        }
    }
}
