//! [`Consumer`]: reads a topic's partitions with one long-poll fetch in
//! flight per partition, so the next batch is on its way while the
//! application handles the current one.
//!
//! # Positions and commits
//! - A partition's *position* is the offset of the next record
//!   [`Consumer::next`] will return from it.
//! - A record is *finished* once the application calls `next()` again after
//!   receiving it: calling `next()` says "I am done with everything you gave
//!   me before". The periodic commit (`auto_commit`) stores the position
//!   after the last finished record of each partition — never a record the
//!   application may still be working on — and [`Consumer::close`] does a
//!   final one.
//! - [`Consumer::commit`] stores the position after the last record
//!   *returned*, the one being handled included: call it once that record is
//!   handled.
//! - A committed offset is the next offset the group will read, so a new
//!   consumer of the group resumes exactly after the last committed record.
//!   Records returned but not committed before a crash are delivered again
//!   (at-least-once).
//!
//! # Streaming fetches
//! A fetch may ask the broker to hold it until `min_bytes` of whole
//! batches are there (or `min_wait` passed with some data there): fewer,
//! larger answers for a consumer following a busy log. The consumer
//! chooses per partition: after an answer that carried records (it is
//! catching up, or following a busy log) the next fetch asks
//! [`ConsumerOptions::stream_min_bytes`] with
//! [`ConsumerOptions::stream_min_wait`]; after an empty answer (a quiet
//! log, a chat) it asks [`ConsumerOptions::min_bytes`] (1 by default), so
//! the first record after a quiet spell is answered at once. A record
//! that follows another within a stream may so wait up to
//! `stream_min_wait` (2 ms by default); `stream_min_bytes = 1` turns
//! streaming fetches off. Only a broker that announced it is asked (older
//! ones answer on any data); over NATS there is no minimum to ask for.
//!
//! # Errors
//! Connection loss and other retriable errors are retried with backoff and
//! not reported. A batch that fails its CRC is reported by `next()` and
//! never skipped: the partition stays at that batch (every later call
//! returns the same error) until [`Consumer::seek`] moves it.
//! `OffsetOutOfRange` follows [`ResetPolicy`].

use std::sync::Arc;
use std::time::Duration;

use hermit_protocol::frame::TopicMetadata;
use hermit_protocol::{Status, WireError};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::client::Client;
use crate::error::ClientError;
use crate::records::{FetchResponse, Found, Record, RecordRef, Records};
use crate::transport::contract::FetchParams;

/// Where a consumer without a committed offset starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fallback {
    /// The oldest stored record.
    #[default]
    Earliest,
    /// The end of the partition: only records produced from now on.
    Latest,
}

/// Where reading starts, per partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartFrom {
    /// The group's committed offset; where there is none (or no group), `fallback`.
    Committed {
        /// Where to start without a committed offset.
        fallback: Fallback,
    },
    /// The oldest stored record.
    Earliest,
    /// The end of the partition at start.
    Latest,
    /// This offset in every partition.
    Offset(u64),
}

impl Default for StartFrom {
    fn default() -> Self {
        StartFrom::Committed {
            fallback: Fallback::Earliest,
        }
    }
}

/// What to do when the position is outside the stored range (retention
/// deleted it, or an explicit offset is beyond the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResetPolicy {
    /// Continue at the oldest stored record.
    #[default]
    Earliest,
    /// Continue at the end of the partition.
    Latest,
    /// Report [`ClientError::OffsetOutOfRange`] from `next()`.
    Error,
}

/// Consumer settings. Each field's doc ends with its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerOptions {
    /// Consumer group whose offsets are read and committed; `None` reads
    /// without committing. Default `None`.
    pub group: Option<String>,
    /// Partitions to read; `None` for all of the topic's. Default `None`.
    pub partitions: Option<Vec<u32>>,
    /// Where to start. Default: committed, else earliest.
    pub start: StartFrom,
    /// Out-of-range handling. Default `Earliest`.
    pub reset: ResetPolicy,
    /// Soft limit on one fetch's bytes (at least one batch is always returned). Default 1 MiB.
    pub max_bytes: u32,
    /// How long a fetch waits at the end of a partition for new data. Default 500 ms.
    pub max_wait: Duration,
    /// Bytes of whole batches the broker waits for before answering a
    /// fetch after an empty answer (see [streaming fetches](self#streaming-fetches));
    /// 1: answered as soon as anything is there. Ignored over NATS and by
    /// brokers that do not announce it. Default 1.
    pub min_bytes: u32,
    /// With `min_bytes > 1`: how long the broker may hold such a fetch once
    /// some data is there (capped by `max_wait`). Default 5 ms.
    pub min_wait: Duration,
    /// Bytes of whole batches the broker waits for before answering a
    /// fetch after an answer that carried records (catching up, or
    /// following a busy log); 1 turns streaming fetches off. Ignored over
    /// NATS and by brokers that do not announce it. Default 64 KiB.
    pub stream_min_bytes: u32,
    /// How long the broker may hold a streaming fetch once some data is
    /// there (capped by `max_wait`): the most a record in a stream waits
    /// for others to join it. Default 2 ms.
    pub stream_min_wait: Duration,
    /// Commit finished records this often (with a group). Default every 5 s.
    pub auto_commit: Option<Duration>,
    /// Wait before refetching after a retriable error. Default 100 ms.
    pub retry_backoff: Duration,
}

impl Default for ConsumerOptions {
    fn default() -> Self {
        ConsumerOptions {
            group: None,
            partitions: None,
            start: StartFrom::default(),
            reset: ResetPolicy::default(),
            max_bytes: 1 << 20,
            max_wait: Duration::from_millis(500),
            min_bytes: 1,
            min_wait: Duration::from_millis(5),
            stream_min_bytes: 64 << 10,
            stream_min_wait: Duration::from_millis(2),
            auto_commit: Some(Duration::from_secs(5)),
            retry_backoff: Duration::from_millis(100),
        }
    }
}

struct Part {
    partition: u32,
    /// Next offset `next()` returns from this partition.
    position: u64,
    /// Offset of the fetch in flight, or of the next one.
    fetch_at: u64,
    /// A fetch is in flight.
    in_flight: bool,
    /// The last answer carried records: the next fetch is a streaming one
    /// (`stream_min_bytes`).
    streaming: bool,
    /// Bumped to disown fetches in flight (reset, seek, error).
    generation: u64,
    /// After the last record returned by `next()`.
    returned: Option<u64>,
    /// After the last finished record.
    finished: Option<u64>,
    /// What the broker last acknowledged as committed.
    committed: Option<u64>,
}

struct FetchDone {
    pidx: usize,
    generation: u64,
    offset: u64,
    result: Result<FetchResponse, ClientError>,
}

/// Delivers a fetch task's outcome exactly once: if the task ends without
/// one (a panic unwinding through it), the drop sends a retriable error, so
/// the consumer never waits for an answer that cannot come.
struct Reply {
    tx: Option<mpsc::UnboundedSender<FetchDone>>,
    pidx: usize,
    generation: u64,
    offset: u64,
    addr: String,
}

impl Reply {
    /// Send `result`, unless something was sent already.
    fn deliver(&mut self, result: Result<FetchResponse, ClientError>) {
        if let Some(tx) = self.tx.take() {
            // The consumer may be gone; then nobody wants the answer.
            let _ = tx.send(FetchDone {
                pidx: self.pidx,
                generation: self.generation,
                offset: self.offset,
                result,
            });
        }
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        if self.tx.is_none() {
            return;
        }
        let addr = std::mem::take(&mut self.addr);
        self.deliver(Err(ClientError::ConnectionLost {
            addr,
            reason: "the fetch task ended without an answer".to_owned(),
        }));
    }
}

/// Reads records from a topic; see the [module docs](self) for positions,
/// commits and errors.
pub struct Consumer {
    client: Client,
    topic: Arc<str>,
    opts: ConsumerOptions,
    parts: Vec<Part>,
    tx: mpsc::UnboundedSender<FetchDone>,
    rx: mpsc::UnboundedReceiver<FetchDone>,
    current: Option<(usize, Records)>,
    next_auto_commit: Option<Instant>,
}

impl std::fmt::Debug for Consumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Consumer")
            .field("topic", &self.topic)
            .field("group", &self.opts.group)
            .field(
                "positions",
                &self
                    .parts
                    .iter()
                    .map(|p| (p.partition, p.position))
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Consumer {
    /// Start consuming `topic`: look up its partitions (creating the topic if
    /// the broker auto-creates), resolve every start position, and send the
    /// first fetches.
    pub async fn new(
        client: &Client,
        topic: &str,
        options: ConsumerOptions,
    ) -> Result<Consumer, ClientError> {
        let meta = match client.metadata(Some(topic)).await {
            Ok(m) => m,
            Err(e) if e.status() == Some(Status::UnknownTopic) => {
                // A fetch creates it when the broker auto-creates topics (and
                // fails with UnknownTopic when it does not).
                client.fetch(topic, 0, 0, 1, Duration::ZERO).await?;
                client.metadata(Some(topic)).await?
            }
            Err(e) => return Err(e),
        };
        let meta: TopicMetadata =
            meta.into_iter()
                .find(|t| t.name == topic)
                .ok_or_else(|| ClientError::Broker {
                    status: Status::UnknownTopic,
                    message: format!("metadata does not describe {topic}"),
                })?;
        let wanted: Vec<u32> = match &options.partitions {
            Some(p) => p.clone(),
            None => meta.partitions.iter().map(|p| p.partition).collect(),
        };
        let mut parts = Vec::with_capacity(wanted.len());
        for partition in wanted {
            let pm = meta
                .partitions
                .iter()
                .find(|p| p.partition == partition)
                .ok_or_else(|| ClientError::Broker {
                    status: Status::UnknownPartition,
                    message: format!("{topic} has no partition {partition}"),
                })?;
            let earliest = pm.log_start;
            let latest = pm.high_watermark;
            let fallback = |f: Fallback| match f {
                Fallback::Earliest => earliest,
                Fallback::Latest => latest,
            };
            let mut committed = None;
            let position = match options.start {
                StartFrom::Committed { fallback: f } => match &options.group {
                    Some(g) => {
                        committed = client.committed(g, topic, partition).await?;
                        committed.unwrap_or_else(|| fallback(f))
                    }
                    None => fallback(f),
                },
                StartFrom::Earliest => earliest,
                StartFrom::Latest => latest,
                StartFrom::Offset(o) => o,
            };
            parts.push(Part {
                partition,
                position,
                fetch_at: position,
                in_flight: false,
                streaming: false,
                generation: 0,
                returned: None,
                finished: None,
                committed,
            });
        }
        if parts.is_empty() {
            return Err(ClientError::InvalidArgument(format!(
                "no partitions to consume in {topic}"
            )));
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let next_auto_commit = match (&options.group, options.auto_commit) {
            (Some(_), Some(every)) => Some(Instant::now() + every),
            _ => None,
        };
        let mut c = Consumer {
            client: client.clone(),
            topic: Arc::from(topic),
            opts: options,
            parts,
            tx,
            rx,
            current: None,
            next_auto_commit,
        };
        c.start_fetches();
        Ok(c)
    }

    /// The topic.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// The position (next offset to return) of `partition`, if consumed.
    pub fn position(&self, partition: u32) -> Option<u64> {
        self.parts
            .iter()
            .find(|p| p.partition == partition)
            .map(|p| p.position)
    }

    /// Move `partition` to `offset`: what was fetched beyond is dropped.
    pub fn seek(&mut self, partition: u32, offset: u64) -> Result<(), ClientError> {
        let pidx = self
            .parts
            .iter()
            .position(|p| p.partition == partition)
            .ok_or_else(|| {
                ClientError::InvalidArgument(format!("partition {partition} is not consumed"))
            })?;
        self.reposition(pidx, offset);
        Ok(())
    }

    fn reposition(&mut self, pidx: usize, offset: u64) {
        if self.current.as_ref().is_some_and(|(i, _)| *i == pidx) {
            self.current = None;
        }
        let p = &mut self.parts[pidx];
        p.generation += 1;
        p.in_flight = false;
        p.position = offset;
        p.streaming = false;
        p.fetch_at = offset;
    }

    fn spawn_fetch(&mut self, pidx: usize, delay: Duration) {
        let params = self.fetch_params(self.parts[pidx].streaming);
        let p = &mut self.parts[pidx];
        p.in_flight = true;
        let (client, topic, tx) = (self.client.clone(), self.topic.clone(), self.tx.clone());
        let (partition, offset, generation) = (p.partition, p.fetch_at, p.generation);
        let addr = client.addr().to_owned();
        tokio::spawn(async move {
            let mut reply = Reply {
                tx: Some(tx),
                pidx,
                generation,
                offset,
                addr,
            };
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let result = client.fetch_with(&topic, partition, offset, params).await;
            reply.deliver(result);
        });
    }

    /// What a fetch asks: a streaming fetch after an answer with records,
    /// else the plain minimum (see [streaming fetches](self#streaming-fetches)).
    fn fetch_params(&self, streaming: bool) -> FetchParams {
        let o = &self.opts;
        let (min_bytes, min_wait) = if streaming {
            (o.stream_min_bytes, o.stream_min_wait)
        } else {
            (o.min_bytes, o.min_wait)
        };
        FetchParams::new(o.max_bytes, o.max_wait).with_min(min_bytes, min_wait)
    }

    fn start_fetches(&mut self) {
        for i in 0..self.parts.len() {
            if !self.parts[i].in_flight {
                self.spawn_fetch(i, Duration::ZERO);
            }
        }
    }

    /// Handle a fetch's outcome; `Err` is for the application.
    fn on_fetch(&mut self, done: FetchDone) -> Result<(), ClientError> {
        let p = &mut self.parts[done.pidx];
        if done.generation != p.generation {
            return Ok(()); // Disowned by a reset or seek.
        }
        p.in_flight = false;
        match done.result {
            Ok(resp) => {
                let next = match resp.next_offset() {
                    Ok(n) => n,
                    Err(e) => {
                        p.generation += 1;
                        return Err(e);
                    }
                };
                p.streaming = next.is_some();
                match next {
                    None => self.spawn_fetch(done.pidx, Duration::ZERO),
                    Some(next) if next <= done.offset => {
                        // The batch holding the offset asked for must come
                        // first; refetching would loop on the same answer.
                        p.generation += 1;
                        return Err(ClientError::Protocol(WireError::InvalidField {
                            field: "fetch response end offset",
                            value: next,
                        }));
                    }
                    Some(next) => {
                        p.fetch_at = next;
                        let records = resp.records_from(p.position);
                        // Keep the next fetch in flight while these are handled.
                        self.spawn_fetch(done.pidx, Duration::ZERO);
                        self.current = Some((done.pidx, records));
                    }
                }
                Ok(())
            }
            Err(ClientError::OffsetOutOfRange {
                log_start,
                high_watermark,
                message,
            }) => {
                let to = match self.opts.reset {
                    ResetPolicy::Earliest => log_start,
                    ResetPolicy::Latest => high_watermark,
                    ResetPolicy::Error => {
                        return Err(ClientError::OffsetOutOfRange {
                            log_start,
                            high_watermark,
                            message,
                        });
                    }
                };
                tracing::info!(topic = %self.topic, partition = p.partition, from = p.position, to, "offset out of range; resetting");
                self.reposition(done.pidx, to);
                self.spawn_fetch(done.pidx, Duration::ZERO);
                Ok(())
            }
            Err(e) if e.is_retriable() => {
                tracing::debug!(topic = %self.topic, partition = p.partition, error = %e, "fetch failed; retrying");
                let backoff = self.opts.retry_backoff;
                self.spawn_fetch(done.pidx, backoff);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Everything returned so far counts as finished.
    fn finish_returned(&mut self) {
        for p in &mut self.parts {
            p.finished = p.returned;
        }
    }

    /// The next record if one is already fetched: no waiting and no I/O,
    /// so a loop over a large fetch response costs no future per record.
    /// `None` means call [`Consumer::next`] (which may wait, and runs the
    /// periodic commit when it is due). Like `next`, it marks every record
    /// returned before as finished.
    pub fn try_next(&mut self) -> Option<Result<Record, ClientError>> {
        if self.current.is_none() || self.next_auto_commit.is_some_and(|t| t <= Instant::now()) {
            return None;
        }
        self.finish_returned();
        self.take_buffered()
    }

    /// Like [`Consumer::try_next`], but the record is borrowed from the
    /// fetch response: no reference count touched, nothing allocated (see
    /// [`RecordRef`]). The borrow ends before the next call; positions,
    /// commits and errors are exactly as with `try_next`.
    pub fn try_next_ref(&mut self) -> Option<Result<RecordRef<'_>, ClientError>> {
        if self.current.is_none() || self.next_auto_commit.is_some_and(|t| t <= Instant::now()) {
            return None;
        }
        self.finish_returned();
        match self.step()? {
            Ok(found) => {
                let (_, records) = self.current.as_ref()?;
                Some(Ok(records.view(found)))
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// A record from the current fetch response, if any is left.
    fn take_buffered(&mut self) -> Option<Result<Record, ClientError>> {
        match self.step()? {
            Ok(found) => {
                let (_, records) = self.current.as_ref()?;
                Some(Ok(records.view(found).to_record()))
            }
            Err(e) => Some(Err(e)),
        }
    }

    /// Step the current fetch response to its next record and move the
    /// partition's position past it.
    #[inline]
    fn step(&mut self) -> Option<Result<Found, ClientError>> {
        let (pidx, records) = self.current.as_mut()?;
        let pidx = *pidx;
        match records.advance() {
            Some(Ok(found)) => {
                let p = &mut self.parts[pidx];
                p.position = found.offset().saturating_add(1);
                p.returned = Some(p.position);
                Some(Ok(found))
            }
            Some(Err(e)) => {
                // Stay at the bad batch: disown the prefetch beyond it.
                self.current = None;
                let p = &mut self.parts[pidx];
                let at = p.position;
                self.reposition(pidx, at);
                Some(Err(e))
            }
            None => {
                self.current = None;
                None
            }
        }
    }

    /// The next record, waiting for one as long as it takes (wrap it in
    /// `tokio::time::timeout` to bound the wait). Calling it marks every
    /// record returned before as finished (see the module docs).
    pub async fn next(&mut self) -> Result<Record, ClientError> {
        self.finish_returned();
        if self.next_auto_commit.is_some_and(|t| t <= Instant::now()) {
            // Due while records keep coming too, not only while waiting.
            self.auto_commit().await;
        }
        loop {
            if let Some(r) = self.take_buffered() {
                return r;
            }
            self.start_fetches();
            let auto = self.next_auto_commit;
            tokio::select! {
                Some(done) = self.rx.recv() => self.on_fetch(done)?,
                _ = tokio::time::sleep_until(auto.unwrap_or_else(Instant::now)), if auto.is_some() => {
                    self.auto_commit().await;
                }
            }
        }
    }

    async fn auto_commit(&mut self) {
        if let Some(every) = self.opts.auto_commit {
            self.next_auto_commit = Some(Instant::now() + every);
        }
        if let Err(e) = self.commit_positions(|p| p.finished).await {
            tracing::warn!(topic = %self.topic, error = %e, "periodic commit failed; will retry");
        }
    }

    async fn commit_positions(
        &mut self,
        which: impl Fn(&Part) -> Option<u64>,
    ) -> Result<(), ClientError> {
        let Some(group) = self.opts.group.clone() else {
            return Err(ClientError::InvalidArgument(
                "commit needs a consumer group (ConsumerOptions::group)".into(),
            ));
        };
        for i in 0..self.parts.len() {
            let p = &self.parts[i];
            let Some(offset) = which(p) else { continue };
            if p.committed == Some(offset) {
                continue;
            }
            let partition = p.partition;
            self.client
                .commit(&group, &self.topic, partition, offset)
                .await?;
            self.parts[i].committed = Some(offset);
        }
        Ok(())
    }

    /// Commit the position after the last record returned by `next()` in
    /// each partition (the record being handled included).
    pub async fn commit(&mut self) -> Result<(), ClientError> {
        self.commit_positions(|p| p.returned).await
    }

    /// The committed offsets this consumer knows of (after its own commits,
    /// or read at start), by partition.
    pub fn committed(&self) -> Vec<(u32, Option<u64>)> {
        self.parts
            .iter()
            .map(|p| (p.partition, p.committed))
            .collect()
    }

    /// Stop: with a group and `auto_commit`, commit everything returned
    /// (the application is done with it); fetches in flight are abandoned.
    pub async fn close(mut self) -> Result<(), ClientError> {
        if self.opts.group.is_some() && self.opts.auto_commit.is_some() {
            self.commit().await?;
        }
        Ok(())
    }
}
