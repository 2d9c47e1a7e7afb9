//! A raw protocol client for the network tests: frames are built and read
//! by hand (through hermit-protocol), so the tests can send anything —
//! including what a well-behaved client never would.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use bytes::{BufMut, BytesMut};
use hermit_broker::config::Config;
use hermit_broker::embedded::EmbeddedBroker;
use hermit_protocol::auth::{MECHANISM_P256_ECDSA_BOUND, transcript_bound};
use hermit_protocol::frame::Authenticate;
use hermit_protocol::frame::{
    self, Commit, Committed, CreateTopic, ErrorBody, Fetch, Produce, ResponseBody, TopicSettings,
};
use hermit_protocol::hello::{BROKER_HELLO_V3_LEN, BrokerHello, Hello};
use hermit_protocol::record::{BatchBuilder, BatchIter, RecordHeader};
use hermit_protocol::{Ack, Cleanup, FrameCheck, Op, Request, Status, TopicName};
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::elliptic_curve::Generate as _;
use p256::pkcs8::EncodePublicKey;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response frame, owned.
#[derive(Debug, Clone)]
pub struct Resp {
    pub corr: u32,
    pub op: Op,
    pub status: Status,
    pub message: String,
    pub bounds: Option<(u64, u64)>,
    /// Produce: base offset.
    pub base_offset: Option<u64>,
    /// Fetch: (high watermark, log start, record bytes).
    pub fetch: Option<(u64, u64, Vec<u8>)>,
    pub committed: Option<Option<u64>>,
    /// Metadata: the topic names listed.
    pub topics: Option<Vec<String>>,
    /// Authenticate: the principal the broker now knows the connection as.
    pub principal: Option<[u8; 32]>,
    /// ListTopics: the topics of the page and its `next` cursor.
    pub page: Option<(Vec<hermit_protocol::frame::TopicMetadata>, Option<String>)>,
    /// Claim: (offset, next, the batch).
    pub claimed: Option<(u64, u64, Vec<u8>)>,
    /// The frame's length (after its length prefix).
    pub frame_len: usize,
}

impl Resp {
    pub fn from_frame(bytes: &[u8]) -> Resp {
        let f = frame::decode_response(bytes).expect("the broker sends valid frames");
        let mut r = Resp {
            corr: f.correlation_id,
            op: f.op,
            status: Status::Ok,
            message: String::new(),
            bounds: None,
            base_offset: None,
            fetch: None,
            committed: None,
            topics: None,
            principal: None,
            page: None,
            claimed: None,
            frame_len: bytes.len() - 4,
        };
        match f.body {
            Ok(
                ResponseBody::Produce { base_offset }
                | ResponseBody::ConditionalProduce { base_offset },
            ) => r.base_offset = Some(base_offset),
            Ok(ResponseBody::Fetch {
                high_watermark,
                log_start,
                records,
            }) => r.fetch = Some((high_watermark, log_start, records.to_vec())),
            Ok(ResponseBody::Committed { offset }) => r.committed = Some(offset),
            Ok(ResponseBody::Metadata(t)) => {
                r.topics = Some(t.into_iter().map(|t| t.name).collect())
            }
            Ok(ResponseBody::Authenticate { principal }) => r.principal = Some(principal),
            Ok(ResponseBody::ListTopics(p)) => r.page = Some((p.topics, p.next)),
            Ok(ResponseBody::Claim(c)) => r.claimed = Some((c.offset, c.next, c.batch.to_vec())),
            Ok(_) => {}
            Err(ErrorBody {
                status,
                message,
                bounds,
            }) => {
                r.status = status;
                r.message = message.to_owned();
                r.bounds = bounds;
            }
        }
        r
    }

    /// Base offsets of the batches of a fetch response.
    pub fn batch_bases(&self) -> Vec<u64> {
        let (_, _, bytes) = self.fetch.as_ref().expect("a fetch response");
        BatchIter::new(bytes)
            .map(|b| b.expect("whole batches").header.base_offset)
            .collect()
    }
}

/// A connection speaking the protocol by hand.
pub struct Raw {
    pub stream: TcpStream,
    buf: BytesMut,
    next: u32,
    /// The broker's version-3 hello, after [`Raw::connect`].
    pub hello: Option<BrokerHello>,
}

impl Raw {
    /// Connect without a hello.
    pub async fn connect_bare(addr: SocketAddr) -> Raw {
        Raw {
            stream: TcpStream::connect(addr).await.expect("connect"),
            buf: BytesMut::new(),
            next: 1,
            hello: None,
        }
    }

    /// Connect and exchange hellos.
    pub async fn connect(addr: SocketAddr) -> Raw {
        let mut raw = Raw::connect_bare(addr).await;
        raw.stream
            .write_all(&Hello::client().encode())
            .await
            .unwrap();
        let mut h = [0u8; BROKER_HELLO_V3_LEN];
        raw.stream.read_exact(&mut h).await.expect("broker hello");
        raw.hello = Some(BrokerHello::decode(&h).expect("a version-3 broker hello"));
        raw
    }

    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("write");
    }

    /// Send a request; returns its correlation id.
    pub async fn send(&mut self, req: &Request<'_>) -> u32 {
        let corr = self.next;
        self.next += 1;
        let mut out = BytesMut::new();
        req.encode(corr, &mut out).unwrap();
        self.send_bytes(&out).await;
        corr
    }

    /// Read the next response frame; `None` when the broker closed the connection.
    pub async fn recv(&mut self) -> Option<Resp> {
        loop {
            if let FrameCheck::Complete { len } =
                frame::check_response(&self.buf, u32::MAX).unwrap()
            {
                let bytes = self.buf.split_to(len);
                return Some(Resp::from_frame(&bytes));
            }
            let n = self.stream.read_buf(&mut self.buf).await.unwrap_or(0);
            if n == 0 {
                assert!(self.buf.is_empty(), "connection closed inside a frame");
                return None;
            }
        }
    }

    /// Read with a deadline (a bound on a wait that should end by itself).
    pub async fn recv_within(&mut self, d: Duration) -> Option<Resp> {
        tokio::time::timeout(d, self.recv())
            .await
            .expect("response within the deadline")
    }

    pub async fn call(&mut self, req: &Request<'_>) -> Resp {
        let corr = self.send(req).await;
        let r = self.recv().await.expect("a response");
        assert_eq!(r.corr, corr);
        r
    }

    pub async fn produce(&mut self, topic: &str, batch: &[u8], ack: Ack) -> Resp {
        self.call(&produce_req(topic, 0, batch, ack)).await
    }

    pub async fn fetch(&mut self, topic: &str, offset: u64, max_bytes: u32, wait_ms: u32) -> Resp {
        self.call(&fetch_req(topic, 0, offset, max_bytes, wait_ms))
            .await
    }

    /// Everything until the broker closes: the frames it sent first.
    pub async fn until_closed(&mut self) -> Vec<Resp> {
        let mut v = Vec::new();
        while let Some(r) = self.recv_within(Duration::from_secs(20)).await {
            v.push(r);
        }
        v
    }
}

pub fn topic(name: &str) -> TopicName<&str> {
    TopicName::new(name).unwrap()
}

pub fn produce_req<'a>(t: &'a str, partition: u32, batch: &'a [u8], ack: Ack) -> Request<'a> {
    Request::Produce(Produce {
        topic: topic(t),
        partition,
        ack,
        header: RecordHeader::decode(batch).unwrap(),
        batch,
    })
}

pub fn conditional_req<'a>(
    t: &'a str,
    expected_end: u64,
    batch: &'a [u8],
    ack: Ack,
) -> Request<'a> {
    let Request::Produce(produce) = produce_req(t, 0, batch, ack) else {
        unreachable!("produce_req makes a Produce")
    };
    Request::ConditionalProduce(hermit_protocol::frame::ConditionalProduce {
        produce,
        expected_end,
    })
}

pub fn fetch_req(
    t: &str,
    partition: u32,
    offset: u64,
    max_bytes: u32,
    wait_ms: u32,
) -> Request<'_> {
    Request::Fetch(Fetch {
        topic: topic(t),
        partition,
        offset,
        max_bytes,
        max_wait_ms: wait_ms,
        min_bytes: 1,
        min_wait_ms: 0,
    })
}

/// A fetch held until `min_bytes` are there (or `min_wait_ms` passed with
/// some data, or `wait_ms`).
pub fn fetch_min_req(
    t: &str,
    offset: u64,
    wait_ms: u32,
    min_bytes: u32,
    min_wait_ms: u32,
) -> Request<'_> {
    Request::Fetch(Fetch {
        topic: topic(t),
        partition: 0,
        offset,
        max_bytes: 1 << 20,
        max_wait_ms: wait_ms,
        min_bytes,
        min_wait_ms,
    })
}

pub fn commit_req<'a>(group: &'a str, t: &'a str, offset: u64) -> Request<'a> {
    Request::Commit(Commit {
        group,
        topic: topic(t),
        partition: 0,
        offset,
    })
}

pub fn claim_req(t: &str, partition: u32, id: [u8; 16]) -> Request<'_> {
    Request::Claim(hermit_protocol::frame::Claim {
        topic: topic(t),
        partition,
        claim_id: id,
    })
}

pub fn committed_req<'a>(group: &'a str, t: &'a str) -> Request<'a> {
    Request::Committed(Committed {
        group,
        topic: topic(t),
        partition: 0,
    })
}

pub fn list_req(after: Option<&str>, limit: u32) -> Request<'_> {
    Request::ListTopics(hermit_protocol::frame::ListTopics {
        after: after.map(|a| TopicName::new_any(a).unwrap()),
        limit,
    })
}

pub fn create_req(t: &str, partitions: u32) -> Request<'_> {
    Request::CreateTopic(CreateTopic {
        topic: topic(t),
        settings: TopicSettings {
            partitions,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        },
    })
}

/// A batch of `n` records of `size` bytes, tagged by `tag` so contents are checkable.
pub fn batch(n: usize, size: usize, tag: u64) -> Vec<u8> {
    let mut b = BatchBuilder::new(b"");
    for i in 0..n {
        let mut rec = Vec::with_capacity(size.max(16));
        rec.extend_from_slice(&tag.to_be_bytes());
        rec.extend_from_slice(&(i as u64).to_be_bytes());
        rec.resize(size.max(16), (tag % 251) as u8);
        b.push(&rec);
    }
    b.finish(1_700_000_000_000_000_000 + tag).unwrap()
}

/// A raw produce frame for a batch, with an arbitrary topic byte string.
pub fn raw_produce_frame(topic: &[u8], batch: &[u8], corr: u32) -> Vec<u8> {
    let mut out = BytesMut::new();
    out.put_u32(0);
    out.put_u8(Op::Produce as u8);
    out.put_u32(corr);
    out.put_u8(topic.len() as u8);
    out.put_slice(topic);
    out.put_u32(0);
    out.put_u8(Ack::Written as u8);
    out.put_slice(batch);
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_be_bytes());
    out.to_vec()
}

/// A temporary data directory on tmpfs when the machine has one (fsync is
/// free there: tests that create thousands of topics, where durability is
/// not what they test, stay fast), else in the default temporary directory.
/// The same as the storage tests' `common::scratch_dir`.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(d) = tempfile::Builder::new()
            .prefix("hermit-test")
            .tempdir_in(shm)
    {
        return d;
    }
    tempfile::tempdir().expect("temp dir")
}

/// Start an embedded broker with `tweak` applied to the test config.
pub async fn start(dir: &Path, tweak: impl FnOnce(&mut Config)) -> EmbeddedBroker {
    let mut config = EmbeddedBroker::test_config();
    tweak(&mut config);
    EmbeddedBroker::start(dir, config)
        .await
        .expect("start broker")
}

/// Read a whole partition from `from` through the high watermark.
pub async fn read_all(raw: &mut Raw, t: &str, from: u64) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut offset = from;
    loop {
        let r = raw.fetch(t, offset, 1 << 20, 0).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
        let (hw, _, bytes) = r.fetch.unwrap();
        for b in BatchIter::new(&bytes) {
            let b = b.unwrap();
            b.verify_crc().unwrap();
            offset = b.header.next_offset().unwrap();
            out.push((b.header.base_offset, b.as_bytes().to_vec()));
        }
        if offset >= hw {
            return out;
        }
    }
}

/// A principal's key pair, as a client holds it.
pub struct Key {
    pub sk: SigningKey,
    pub spki: Vec<u8>,
    /// The principal (fingerprint) in lowercase hex.
    pub hex: String,
}

impl Key {
    pub fn new() -> Key {
        let secret = p256::SecretKey::try_generate_from_rng(&mut rand::rngs::SysRng).unwrap();
        let sk = SigningKey::from(secret);
        let spki = sk
            .verifying_key()
            .to_public_key_der()
            .unwrap()
            .as_bytes()
            .to_vec();
        let hex = Sha256::digest(&spki)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Key { sk, spki, hex }
    }

    /// A raw r‖s signature over the mechanism-2 transcript for this
    /// connection, dialled as [`DIALLED`] over plain TCP.
    pub fn sign_for(&self, nonce: &[u8; 32], broker_id: &[u8; 16]) -> Vec<u8> {
        self.sign_bound(nonce, broker_id, DIALLED.as_bytes(), &[])
    }

    /// A raw r‖s signature over `message`.
    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        let sig: Signature = self.sk.sign(message);
        sig.to_bytes().to_vec()
    }

    /// A raw r‖s signature over the mechanism-2 transcript for `name` and
    /// `channel_binding`.
    pub fn sign_bound(
        &self,
        nonce: &[u8; 32],
        broker_id: &[u8; 16],
        name: &[u8],
        channel_binding: &[u8],
    ) -> Vec<u8> {
        self.sign(&transcript_bound(
            nonce,
            broker_id,
            name,
            channel_binding,
            &self.spki,
        ))
    }
}

/// Connect and authenticate as `key`.
pub async fn connect_as(addr: std::net::SocketAddr, key: &Key) -> Raw {
    let mut raw = Raw::connect(addr).await;
    let hello = raw.hello.unwrap();
    let sig = key.sign_for(&hello.nonce, &hello.broker_id);
    let r = raw.call(&authenticate(&key.spki, &sig)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    let expected: [u8; 32] = Sha256::digest(&key.spki).into();
    assert_eq!(r.principal, Some(expected));
    raw
}

/// The name the tests' clients dial the broker by: a loopback address,
/// which a broker serves to loopback peers.
pub const DIALLED: &str = "127.0.0.1";

/// A mechanism-2 `Authenticate` for a client that dialled [`DIALLED`] over
/// plain TCP.
pub fn authenticate<'a>(spki: &'a [u8], signature: &'a [u8]) -> Request<'a> {
    Request::Authenticate(Authenticate {
        mechanism: MECHANISM_P256_ECDSA_BOUND,
        spki,
        signature,
        name: DIALLED.as_bytes(),
        channel_binding: &[],
    })
}

impl Raw {
    /// Connect from the local address `local` (e.g. 127.0.0.2) and exchange hellos.
    pub async fn connect_from(local: std::net::IpAddr, addr: SocketAddr) -> Raw {
        let socket = match local {
            std::net::IpAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
            std::net::IpAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
        }
        .expect("socket");
        socket.bind(SocketAddr::new(local, 0)).expect("bind");
        let mut raw = Raw {
            stream: socket.connect(addr).await.expect("connect"),
            buf: BytesMut::new(),
            next: 1,
            hello: None,
        };
        raw.stream
            .write_all(&Hello::client().encode())
            .await
            .unwrap();
        let mut h = [0u8; BROKER_HELLO_V3_LEN];
        raw.stream.read_exact(&mut h).await.expect("broker hello");
        raw.hello = Some(BrokerHello::decode(&h).expect("a version-3 broker hello"));
        raw
    }
}

/// Raise this process's open-file soft limit to its hard limit (tests that
/// hold thousands of sockets).
pub fn raise_nofile_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    limit.current = limit.maximum;
    setrlimit(Resource::Nofile, limit).expect("raise RLIMIT_NOFILE to the hard limit");
}

/// Poll `cond` (a metric, a counter) until it holds; panics after `within`.
/// For state that has no event to await, e.g. the broker noticing a close.
pub async fn eventually(within: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + within;
    while !cond() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "condition not reached within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The chat-inbox rules of docs/SECURITY.md §3: anyone authenticated may
/// write to any `inbox.<fingerprint>`, only its owner may read and see it.
pub fn inbox_rules() -> Vec<hermit_broker::config::AclRule> {
    vec![
        hermit_broker::config::AclRule {
            principal: "*".into(),
            topics: "inbox.*".into(),
            allow: vec!["produce".into()],
            groups: None,
        },
        hermit_broker::config::AclRule {
            principal: "*".into(),
            topics: "inbox.{principal}".into(),
            allow: vec!["consume".into(), "describe".into()],
            groups: None,
        },
    ]
}
