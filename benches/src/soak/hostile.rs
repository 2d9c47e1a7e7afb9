//! The hostile clients: raw sockets speaking just enough of the protocol to
//! misbehave. Each [`Kind`] runs in slots that reconnect until told to stop;
//! bursts of connections past `max_connections` and the file-descriptor
//! storm are run by the soak at its chosen times.
//!
//! Every loop here is bounded: a slot's connection lives at most its kind's
//! `life`, every connect and read has a timeout, and everything stops when
//! the stop signal is raised.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::BytesMut;
use hermit_protocol::frame::{self, Fetch, FrameCheck, Request};
use hermit_protocol::hello::{BROKER_HELLO_V3_LEN, Hello};
use hermit_protocol::record::{BatchBuilder, RecordHeader};
use hermit_protocol::topic::TopicName;
use hermit_protocol::{Ack, Op, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedReadHalf;
use tokio::sync::watch;
use tokio::time::Instant;

use super::rng::Rng;

/// A way of misbehaving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Slowloris in the hello: one byte of it per second.
    SlowHello,
    /// Slowloris mid-frame: the hello, then a small produce one byte every 2 s.
    SlowFrame,
    /// The head of a produce frame announcing a 50 MiB batch, then its
    /// payload trickled at 40 KiB/s.
    BigHead,
    /// Random bytes, after a valid hello or instead of one.
    Garbage,
    /// Half-open: connects and never reads or writes.
    Silent,
    /// Half-open: the hello, then `shutdown(Write)` and silence.
    HalfClose,
    /// Pipelines fetches of a full topic and never reads an answer.
    Deaf,
    /// A fetch (a large read, or a long poll), then closes before the
    /// answer is read.
    MidFetch,
}

/// Every kind; `--hostile N` slots are dealt out over them in this order.
pub const KINDS: [Kind; 8] = [
    Kind::SlowHello,
    Kind::SlowFrame,
    Kind::BigHead,
    Kind::Garbage,
    Kind::Silent,
    Kind::HalfClose,
    Kind::Deaf,
    Kind::MidFetch,
];

impl Kind {
    /// Short stable name (report and JSON).
    pub fn name(self) -> &'static str {
        match self {
            Kind::SlowHello => "slow_hello",
            Kind::SlowFrame => "slow_frame",
            Kind::BigHead => "big_head",
            Kind::Garbage => "garbage",
            Kind::Silent => "silent",
            Kind::HalfClose => "half_close",
            Kind::Deaf => "deaf",
            Kind::MidFetch => "mid_fetch",
        }
    }

    /// The name of its figure in the report: connections of this kind made.
    pub fn figure(self) -> &'static str {
        match self {
            Kind::SlowHello => "hostile_slow_hello",
            Kind::SlowFrame => "hostile_slow_frame",
            Kind::BigHead => "hostile_big_head",
            Kind::Garbage => "hostile_garbage",
            Kind::Silent => "hostile_silent",
            Kind::HalfClose => "hostile_half_close",
            Kind::Deaf => "hostile_deaf",
            Kind::MidFetch => "hostile_mid_fetch",
        }
    }
}

/// What the connections of one kind came to.
#[derive(Debug, Default)]
pub struct Stats {
    /// Connections opened.
    pub connections: AtomicU64,
    /// Connects that failed or timed out.
    pub connect_failed: AtomicU64,
    /// Connections the broker closed (EOF or reset seen).
    pub closed_by_broker: AtomicU64,
    /// Connections this side ended (its life was over, or the soak stopped).
    pub closed_by_us: AtomicU64,
    /// Longest a connection lived before the broker closed it, ms.
    pub max_life_ms: AtomicU64,
}

impl Stats {
    fn add(&self, outcome: Outcome) {
        match outcome {
            Outcome::ConnectFailed => {
                self.connect_failed.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Outcome::BrokerClosed(d) => {
                self.closed_by_broker.fetch_add(1, Ordering::Relaxed);
                self.max_life_ms
                    .fetch_max(d.as_millis() as u64, Ordering::Relaxed);
            }
            Outcome::WeClosed => {
                self.closed_by_us.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    /// (connections, connect failures, closed by the broker, closed by us, longest life ms).
    pub fn snapshot(&self) -> [u64; 5] {
        [
            &self.connections,
            &self.connect_failed,
            &self.closed_by_broker,
            &self.closed_by_us,
            &self.max_life_ms,
        ]
        .map(|c| c.load(Ordering::Relaxed))
    }
}

/// How one hostile connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    ConnectFailed,
    /// After this long.
    BrokerClosed(Duration),
    WeClosed,
}

/// What the hostile slots need to know.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The broker.
    pub addr: SocketAddr,
    /// A topic the good clients fill (for fetches worth reading).
    pub full_topic: String,
    /// The broker's `handshake_timeout_ms`.
    pub handshake: Duration,
    /// Raised when the soak stops.
    pub stop: watch::Receiver<bool>,
}

/// A topic the hostile clients may write to (auto-created).
pub const HOSTILE_TOPIC: &str = "soak.hostile";
/// A topic nobody writes to: a fetch on it is a parked long poll.
pub const EMPTY_TOPIC: &str = "soak.hostile.empty";

const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// A slot's pause between two connections.
const SLOT_PAUSE: Duration = Duration::from_millis(500);

async fn connect(addr: SocketAddr) -> Option<TcpStream> {
    match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(addr)).await {
        Ok(Ok(s)) => Some(s),
        _ => None,
    }
}

fn stopped(stop: &watch::Receiver<bool>) -> bool {
    *stop.borrow()
}

/// Resolves when the stop signal is raised (never, if its sender is gone
/// without raising it: the soak's own deadlines end things then).
async fn until_stopped(stop: &mut watch::Receiver<bool>) {
    if stop.wait_for(|s| *s).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Run one slot of `kind` until the stop signal: connect, misbehave, repeat.
pub async fn slot(kind: Kind, ctx: Ctx, stats: Arc<Stats>, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut stop = ctx.stop.clone();
    while !stopped(&stop) {
        let outcome = tokio::select! {
            o = one(kind, &ctx, &mut rng) => o,
            _ = until_stopped(&mut stop) => Outcome::WeClosed,
        };
        stats.add(outcome);
        // A pause between connections: kinds the broker ends at once
        // (garbage, half-close) would otherwise cycle hundreds of times a
        // second and spend the loopback's ephemeral ports in TIME_WAIT.
        tokio::time::sleep(SLOT_PAUSE).await;
    }
}

/// Bytes trickled: `pattern` repeated to `len` bytes.
struct Slow {
    pattern: Vec<u8>,
    len: usize,
}

impl Slow {
    fn none() -> Slow {
        Slow {
            pattern: vec![0],
            len: 0,
        }
    }

    fn bytes(b: Vec<u8>) -> Slow {
        let len = b.len();
        Slow {
            pattern: if b.is_empty() { vec![0] } else { b },
            len,
        }
    }

    fn chunk(&self, pos: usize, n: usize) -> Vec<u8> {
        (pos..(pos + n).min(self.len))
            .map(|i| self.pattern[i % self.pattern.len()])
            .collect()
    }
}

/// Write `prefix` at once, then `slow` `chunk` bytes every `every`, reading
/// (and dropping) whatever the broker sends, until the broker closes the
/// connection or `life` is over.
async fn trickle(
    stream: TcpStream,
    prefix: &[u8],
    slow: Slow,
    chunk: usize,
    every: Duration,
    life: Duration,
) -> Outcome {
    let started = Instant::now();
    let deadline = started + life;
    let (mut rd, mut wr) = stream.into_split();
    let closed = || Outcome::BrokerClosed(started.elapsed());
    match tokio::time::timeout_at(deadline, wr.write_all(prefix)).await {
        Ok(Ok(())) => {}
        Ok(Err(_)) => return closed(),
        Err(_) => return Outcome::WeClosed,
    }
    let mut pos = 0;
    let mut tick = tokio::time::interval_at(started + every, every);
    let mut sink = vec![0u8; 4096];
    loop {
        tokio::select! {
            r = rd.read(&mut sink) => match r {
                Ok(0) | Err(_) => return closed(),
                Ok(_) => {}
            },
            _ = tick.tick(), if pos < slow.len => {
                let bytes = slow.chunk(pos, chunk);
                pos += bytes.len();
                // A broker that stopped reading (waiting for receive
                // budget) fills the socket: bounded by the life too.
                match tokio::time::timeout_at(deadline, wr.write_all(&bytes)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(_)) => return closed(),
                    Err(_) => return Outcome::WeClosed,
                }
            }
            _ = tokio::time::sleep_until(deadline) => return Outcome::WeClosed,
        }
    }
}

/// Read and drop until the broker closes the connection or `deadline`.
async fn await_close(rd: &mut OwnedReadHalf, started: Instant, deadline: Instant) -> Outcome {
    let mut sink = vec![0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, rd.read(&mut sink)).await {
            Ok(Ok(0) | Err(_)) => return Outcome::BrokerClosed(started.elapsed()),
            Ok(Ok(_)) => {}
            Err(_) => return Outcome::WeClosed,
        }
    }
}

fn hello() -> [u8; 8] {
    Hello::client().encode()
}

/// A whole produce frame of one small record to [`HOSTILE_TOPIC`].
fn small_produce(corr: u32) -> Vec<u8> {
    let mut b = BatchBuilder::new(b"");
    b.push(&[0x5a; 100]);
    let batch = b.finish(0).expect("a 100-byte record makes a valid batch");
    encode(
        &Request::Produce(frame::Produce {
            topic: TopicName::new(HOSTILE_TOPIC).expect("a valid topic name"),
            partition: 0,
            ack: Ack::Written,
            header: RecordHeader::decode(&batch).expect("a batch just built has a valid header"),
            batch: &batch,
        }),
        corr,
    )
}

fn encode(r: &Request<'_>, corr: u32) -> Vec<u8> {
    let mut out = BytesMut::new();
    // Only names and lengths from this file: they fit.
    r.encode(corr, &mut out)
        .expect("the hostile clients' requests are well formed");
    out.to_vec()
}

/// The head of a produce frame whose batch announces `payload` bytes:
/// length prefix, op, correlation id, topic, partition, ack, batch header.
pub fn big_produce_head(topic: &str, payload: u32) -> Vec<u8> {
    let header = RecordHeader {
        base_offset: 0,
        crc: 0,
        timestamp_ns: 0,
        key_len: 0,
        payload_len: payload,
        record_count: 1,
    }
    .encode();
    let body_len = 1 + 4 + (1 + topic.len()) + 4 + 1 + header.len() + payload as usize;
    let mut out = Vec::with_capacity(4 + body_len - payload as usize);
    out.extend_from_slice(&(body_len as u32).to_be_bytes());
    out.push(Op::Produce as u8);
    out.extend_from_slice(&7u32.to_be_bytes());
    out.push(topic.len() as u8);
    out.extend_from_slice(topic.as_bytes());
    out.extend_from_slice(&0u32.to_be_bytes());
    out.push(Ack::Durable as u8);
    out.extend_from_slice(&header);
    out
}

fn fetch(topic: &str, offset: u64, max_bytes: u32, max_wait_ms: u32, corr: u32) -> Vec<u8> {
    encode(
        &Request::Fetch(Fetch {
            topic: TopicName::new(topic).expect("the soak's topic names are valid"),
            partition: 0,
            offset,
            max_bytes,
            max_wait_ms,
            min_bytes: 1,
            min_wait_ms: 0,
        }),
        corr,
    )
}

/// One connection of `kind`.
async fn one(kind: Kind, ctx: &Ctx, rng: &mut Rng) -> Outcome {
    let Some(stream) = connect(ctx.addr).await else {
        return Outcome::ConnectFailed;
    };
    let started = Instant::now();
    let handshake_life = ctx.handshake * 3;
    match kind {
        Kind::SlowHello => {
            let slow = Slow::bytes(hello().to_vec());
            trickle(stream, &[], slow, 1, Duration::from_secs(1), handshake_life).await
        }
        Kind::SlowFrame => {
            let slow = Slow::bytes(small_produce(1));
            let life = Duration::from_secs(60);
            trickle(stream, &hello(), slow, 1, Duration::from_secs(2), life).await
        }
        Kind::BigHead => {
            let payload = frame::DEFAULT_MAX_PAYLOAD;
            let mut prefix = hello().to_vec();
            prefix.extend_from_slice(&big_produce_head(HOSTILE_TOPIC, payload));
            let slow = Slow {
                pattern: (0..4096u32).map(|i| (i * 31) as u8).collect(),
                len: payload as usize,
            };
            let every = Duration::from_millis(100);
            trickle(stream, &prefix, slow, 4096, every, Duration::from_secs(60)).await
        }
        Kind::Garbage => {
            let mut bytes = if rng.below(2) == 0 {
                hello().to_vec()
            } else {
                Vec::new()
            };
            let n = 1 + rng.below(4096) as usize;
            bytes.extend((0..n).map(|_| rng.next() as u8));
            let life = Duration::from_secs(10);
            trickle(stream, &bytes, Slow::none(), 1, life, life).await
        }
        Kind::Silent => {
            let (mut rd, _wr) = stream.into_split();
            await_close(&mut rd, started, started + handshake_life).await
        }
        Kind::HalfClose => {
            let (mut rd, mut wr) = stream.into_split();
            if wr.write_all(&hello()).await.is_err() || wr.shutdown().await.is_err() {
                return Outcome::BrokerClosed(started.elapsed());
            }
            await_close(&mut rd, started, started + Duration::from_secs(10)).await
        }
        Kind::Deaf => {
            let mut stream = stream;
            let mut out = hello().to_vec();
            for corr in 1..=64 {
                out.extend_from_slice(&fetch(&ctx.full_topic, 0, 1 << 20, 0, corr));
            }
            let deadline = started + Duration::from_secs(30);
            // A write still blocked at the deadline is fine: deaf is the point.
            if let Ok(Err(_)) = tokio::time::timeout_at(deadline, stream.write_all(&out)).await {
                return Outcome::BrokerClosed(started.elapsed());
            }
            // Never read: the answers pile up in the socket and the broker.
            tokio::time::sleep_until(deadline).await;
            Outcome::WeClosed
        }
        Kind::MidFetch => {
            let mut stream = stream;
            let long_poll = rng.below(2) == 0;
            let mut out = hello().to_vec();
            out.extend_from_slice(&if long_poll {
                fetch(EMPTY_TOPIC, 0, 1 << 20, 10_000, 1)
            } else {
                fetch(&ctx.full_topic, 0, 4 << 20, 0, 1)
            });
            let deadline = started + Duration::from_secs(5);
            if !matches!(
                tokio::time::timeout_at(deadline, stream.write_all(&out)).await,
                Ok(Ok(()))
            ) {
                return Outcome::BrokerClosed(started.elapsed());
            }
            // The broker's hello, then a few bytes of the answer (or, for
            // the long poll, a moment parked): then gone, the rest unread.
            let mut head = vec![0u8; BROKER_HELLO_V3_LEN + if long_poll { 0 } else { 100 }];
            match tokio::time::timeout_at(deadline, stream.read_exact(&mut head)).await {
                Ok(Ok(_)) => {}
                Ok(Err(_)) => return Outcome::BrokerClosed(started.elapsed()),
                // Less to read than asked for (an early, small topic): go anyway.
                Err(_) => return Outcome::WeClosed,
            }
            if long_poll {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            // Unread bytes make the close a reset.
            drop(stream);
            Outcome::WeClosed
        }
    }
}

/// What a burst of connections past the limit came to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Burst {
    /// Connections the broker served (no notice within the wait).
    pub accepted: u64,
    /// Connections refused with `TooManyConnections`.
    pub refused: u64,
    /// Connections that failed otherwise (connect refused or timed out,
    /// closed without a notice, another status).
    pub failed: u64,
}

/// How long a burst connection waits for the broker's hello.
const HELLO_WAIT: Duration = Duration::from_secs(10);

/// How a burst connection that got no notice this long counts as served.
const NOTICE_WAIT: Duration = Duration::from_millis(500);

/// `n` connections at once, each sending its hello and waiting for a
/// `TooManyConnections` notice; all held until every one has its answer,
/// then closed together.
pub async fn burst(addr: SocketAddr, n: u64) -> Burst {
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..n {
        set.spawn(async move {
            let Some(mut s) = connect(addr).await else {
                return (2, None);
            };
            if s.write_all(&hello()).await.is_err() {
                return (2, None);
            }
            let mut theirs = [0u8; BROKER_HELLO_V3_LEN];
            // A loaded broker may take seconds to greet (its connections
            // share two cores); not hearing from it is a failure only then.
            let deadline = Instant::now() + HELLO_WAIT;
            if !matches!(
                tokio::time::timeout_at(deadline, s.read_exact(&mut theirs)).await,
                Ok(Ok(_))
            ) {
                return (2, None);
            }
            let mut buf = BytesMut::with_capacity(1024);
            let until = Instant::now() + NOTICE_WAIT;
            loop {
                match frame::check_response(&buf, 1 << 16) {
                    Ok(FrameCheck::Complete { len }) => {
                        let refused = matches!(
                            frame::decode_response(&buf[..len]),
                            Ok(f) if f.correlation_id == 0
                                && matches!(&f.body, Err(e) if e.status == Status::TooManyConnections)
                        );
                        return (if refused { 1 } else { 2 }, Some(s));
                    }
                    Ok(FrameCheck::Incomplete { .. }) => {}
                    Err(_) => return (2, Some(s)),
                }
                match tokio::time::timeout_at(until, s.read_buf(&mut buf)).await {
                    Err(_) => return (0, Some(s)),
                    Ok(Ok(0) | Err(_)) => return (2, None),
                    Ok(Ok(_)) => {}
                }
            }
        });
    }
    let mut b = Burst::default();
    // Held until the end: the accepted ones keep their permits meanwhile.
    let mut held = Vec::new();
    while let Some(r) = set.join_next().await {
        let Ok((what, stream)) = r else {
            b.failed += 1;
            continue;
        };
        match what {
            0 => b.accepted += 1,
            1 => b.refused += 1,
            _ => b.failed += 1,
        }
        held.extend(stream);
    }
    drop(held);
    b
}

/// What the file-descriptor storm came to.
#[derive(Debug, Default)]
pub struct Storm {
    /// Connects attempted.
    pub attempts: AtomicU64,
    /// Connects that completed (accepted by the broker or queued in its backlog).
    pub connected: AtomicU64,
    /// Connects that failed or timed out.
    pub failed: AtomicU64,
    /// Connections the broker closed (its handshake timeout, or refused).
    pub closed_by_broker: AtomicU64,
}

/// `slots` connections held open without a hello until `until`, each
/// reopened when the broker closes it: more than the broker's
/// RLIMIT_NOFILE leaves room for, so that its `accept` fails with EMFILE.
pub async fn storm(addr: SocketAddr, slots: u64, until: Instant, stats: Arc<Storm>) {
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..slots {
        let stats = stats.clone();
        set.spawn(async move {
            while Instant::now() < until {
                stats.attempts.fetch_add(1, Ordering::Relaxed);
                let connected = tokio::time::timeout_at(until, TcpStream::connect(addr)).await;
                let Ok(Ok(s)) = connected else {
                    stats.failed.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                stats.connected.fetch_add(1, Ordering::Relaxed);
                let (mut rd, _wr) = s.into_split();
                if let Outcome::BrokerClosed(_) = await_close(&mut rd, Instant::now(), until).await
                {
                    stats.closed_by_broker.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        });
    }
    while set.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermit_protocol::frame::Limits;

    #[test]
    fn the_big_head_passes_the_frame_checks_and_waits_for_its_payload() {
        let head = big_produce_head(HOSTILE_TOPIC, frame::DEFAULT_MAX_PAYLOAD);
        match frame::check_request(&head, &Limits::default()) {
            Ok(FrameCheck::Incomplete { need }) => {
                assert_eq!(need, head.len() + frame::DEFAULT_MAX_PAYLOAD as usize)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn slow_bytes_repeat_their_pattern_to_their_length() {
        let s = Slow {
            pattern: vec![1, 2, 3],
            len: 7,
        };
        assert_eq!(s.chunk(0, 4), [1, 2, 3, 1]);
        assert_eq!(s.chunk(4, 10), [2, 3, 1]);
        assert!(s.chunk(7, 1).is_empty());
        assert_eq!(
            small_produce(1).len(),
            u32::from_be_bytes(small_produce(1)[..4].try_into().unwrap()) as usize + 4
        );
    }
}
