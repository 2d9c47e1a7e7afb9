//! Writes the seed inputs of every target: real, valid inputs built with the
//! crates' own encoders, so the fuzzer starts past the first checks.
//!
//! `cargo run -p hermit-fuzz --example seeds [-- TARGET…]` writes
//! `fuzz/corpus/<target>/seed-*` (all targets when none is named). Seeds
//! are deterministic: running it again rewrites the same files.

use std::path::{Path, PathBuf};

use bytes::BytesMut;
use hermit_protocol::frame::{
    Authenticate, Commit, Committed, CreateTopic, ErrorBody, Fetch, ListTopics, PartitionMetadata,
    Produce, Request, ResponseBody, TopicMetadata, TopicPage, TopicSettings, encode_error,
    encode_response,
};
use hermit_protocol::hello::{BrokerFlags, BrokerHello};
use hermit_protocol::record::BatchBuilder;
use hermit_protocol::{Ack, Cleanup, Hello, Op, RecordHeader, Status, TopicName};

/// Makes one target's seeds.
type Seeds = fn() -> Vec<Vec<u8>>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    let all: &[(&str, Seeds)] = &[
        ("frame", frame),
        ("batch", batch),
        ("recovery", recovery),
        ("envelope", envelope),
        ("sealkey", sealkey),
        ("chat", chat),
        ("ws", ws),
        ("config", config),
    ];
    for (name, make) in all {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == name) {
            continue;
        }
        write(&root.join(name), &make())?;
    }
    Ok(())
}

fn write(dir: &Path, seeds: &[Vec<u8>]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (i, s) in seeds.iter().enumerate() {
        std::fs::write(dir.join(format!("seed-{i:03}")), s)?;
    }
    println!("{}: {} seeds", dir.display(), seeds.len());
    Ok(())
}

fn sample_batch(key: &[u8], records: &[&[u8]]) -> Vec<u8> {
    let mut b = BatchBuilder::new(key);
    for r in records {
        b.push(r);
    }
    b.finish(1_700_000_000_000_000_000)
        .expect("a batch of at least one record")
}

fn frame() -> Vec<Vec<u8>> {
    let topic = TopicName::new("orders").expect("a valid name");
    let batch = sample_batch(b"k", &[b"hello", b"world"]);
    let header = RecordHeader::decode(&batch).expect("a built batch");
    let requests = [
        Request::Produce(Produce {
            topic,
            partition: 0,
            ack: Ack::Written,
            header,
            batch: &batch,
        }),
        Request::Fetch(Fetch {
            topic,
            partition: 1,
            offset: 7,
            max_bytes: 1 << 20,
            max_wait_ms: 100,
            min_bytes: 1,
            min_wait_ms: 0,
        }),
        // With the optional trailing part (min_bytes, min_wait_ms).
        Request::Fetch(Fetch {
            topic,
            partition: 1,
            offset: 7,
            max_bytes: 1 << 20,
            max_wait_ms: 100,
            min_bytes: 64 << 10,
            min_wait_ms: 2,
        }),
        Request::Commit(Commit {
            group: "g1",
            topic,
            partition: 0,
            offset: 42,
        }),
        Request::Committed(Committed {
            group: "g1",
            topic,
            partition: 0,
        }),
        Request::Metadata(None),
        Request::Metadata(Some(topic)),
        Request::CreateTopic(CreateTopic {
            topic,
            settings: TopicSettings {
                partitions: 3,
                cleanup: Cleanup::Compact,
                retention_ms: 0,
                retention_bytes: u64::MAX,
            },
        }),
        Request::DeleteTopic(topic),
        Request::Ping,
        Request::Authenticate(Authenticate {
            mechanism: 1,
            spki: &[0x30; 91],
            signature: &[0x30; 64],
            name: &[],
            channel_binding: &[],
        }),
        Request::ListTopics(ListTopics {
            after: Some(topic),
            limit: 10,
        }),
        Request::ListTopics(ListTopics {
            after: None,
            limit: 1000,
        }),
    ];
    let mut seeds = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        let mut out = BytesMut::new();
        r.encode(i as u32, &mut out).expect("a valid request");
        seeds.push(out.to_vec());
    }
    let topics = vec![TopicMetadata {
        name: "orders".into(),
        cleanup: Cleanup::Delete,
        retention_ms: 1000,
        retention_bytes: u64::MAX,
        partitions: vec![PartitionMetadata {
            partition: 0,
            log_start: 0,
            high_watermark: 9,
        }],
    }];
    let bodies = [
        ResponseBody::Produce { base_offset: 5 },
        ResponseBody::Fetch {
            high_watermark: 9,
            log_start: 0,
            records: &batch,
        },
        ResponseBody::Commit,
        ResponseBody::Committed { offset: Some(3) },
        ResponseBody::Committed { offset: None },
        ResponseBody::Metadata(topics.clone()),
        ResponseBody::CreateTopic,
        ResponseBody::DeleteTopic,
        ResponseBody::Ping,
        ResponseBody::Authenticate { principal: [7; 32] },
        ResponseBody::ListTopics(TopicPage {
            topics,
            next: Some("orders".into()),
        }),
    ];
    for (i, b) in bodies.iter().enumerate() {
        let mut out = BytesMut::new();
        encode_response(100 + i as u32, b, &mut out).expect("a valid response");
        seeds.push(out.to_vec());
    }
    for (status, bounds) in [
        (Status::OffsetOutOfRange, Some((1, 9))),
        (Status::UnknownTopic, None),
    ] {
        let mut out = BytesMut::new();
        let err = ErrorBody {
            status,
            message: "no such thing",
            bounds,
        };
        encode_error(200, Op::Fetch as u8, &err, &mut out).expect("a valid error");
        seeds.push(out.to_vec());
    }
    seeds.push(Hello::client().encode().to_vec());
    seeds.push(
        BrokerHello {
            max_frame: 1 << 20,
            flags: BrokerFlags(1),
            nonce: [9; 32],
            broker_id: [3; 16],
        }
        .encode()
        .to_vec(),
    );
    seeds
}

fn batch() -> Vec<Vec<u8>> {
    let one = sample_batch(b"", &[b"x"]);
    let two = sample_batch(b"key", &[b"alpha", b"", b"gamma"]);
    let tomb = BatchBuilder::tombstone(b"gone", 5);
    let mut stream = Vec::new();
    for b in [&one, &two, &tomb] {
        stream.extend_from_slice(b);
    }
    let mut seeds = Vec::new();
    for b in [&one, &two, &tomb, &stream] {
        // Mode 0 (CRCs as given) and mode 1 (CRCs recomputed first).
        for mode in [0u8, 1] {
            let mut s = vec![mode];
            s.extend_from_slice(b);
            seeds.push(s);
        }
    }
    // A torn stream: the last batch cut short.
    let mut torn = vec![1u8];
    torn.extend_from_slice(&stream[..stream.len() - 3]);
    seeds.push(torn);
    seeds
}

fn ws() -> Vec<Vec<u8>> {
    use hermit_fuzz::broker::put_frame;
    let hello = Hello::client().encode();
    let mut ping = BytesMut::new();
    Request::Ping.encode(1, &mut ping).expect("a ping");
    let mut produce = BytesMut::new();
    let batch = sample_batch(b"k", &[b"hello"]);
    Request::Produce(Produce {
        topic: TopicName::new("orders").expect("a valid name"),
        partition: 0,
        ack: Ack::Written,
        header: RecordHeader::decode(&batch).expect("a built batch"),
        batch: &batch,
    })
    .encode(2, &mut produce)
    .expect("a produce");
    let close = 1000u16.to_be_bytes();
    let mut seeds = Vec::new();
    // [read size - 1, bytes read with the head, frames…]
    let mut s = vec![255, 0];
    put_frame(&mut s, 0x2, &hello);
    put_frame(&mut s, 0x2, &ping);
    put_frame(&mut s, 0x9, b"are you there");
    put_frame(&mut s, 0x2, &produce);
    put_frame(&mut s, 0x8, &close);
    seeds.push(s.clone());
    // The same read 3 bytes at a time, 5 of them with the head.
    s[0] = 2;
    s[1] = 5;
    seeds.push(s);
    // A fragmented message: first part (binary, not final), continuation.
    let mut s = vec![16, 0];
    put_frame(&mut s, 0x2, &hello);
    let mut frag = Vec::new();
    put_frame(&mut frag, 0x2, &produce[..10]);
    frag[0] &= 0x7f;
    s.extend_from_slice(&frag);
    put_frame(&mut s, 0x0, &produce[10..]);
    put_frame(&mut s, 0x8, &close);
    seeds.push(s);
    // Violations: a text message; a message that is not one frame; an
    // unmasked frame; a message over the limit.
    let mut s = vec![64, 0];
    put_frame(&mut s, 0x2, &hello);
    put_frame(&mut s, 0x1, b"hi");
    seeds.push(s);
    let mut s = vec![64, 0];
    put_frame(&mut s, 0x2, &hello);
    put_frame(&mut s, 0x2, &ping[..ping.len() - 1]);
    seeds.push(s);
    let mut s = vec![64, 0];
    s.extend_from_slice(&[0x82, 8]);
    s.extend_from_slice(&hello);
    seeds.push(s);
    let mut s = vec![64, 0];
    put_frame(&mut s, 0x2, &hello);
    put_frame(
        &mut s,
        0x2,
        &vec![0; hermit_fuzz::broker::WS_MAX_MESSAGE + 1],
    );
    seeds.push(s);
    seeds
}

fn config() -> Vec<Vec<u8>> {
    let files: &[&str] = &[
        "",
        "listen = \"0.0.0.0:9092\"\ndata_dir = \"/var/lib/hermit\"\nfsync = \"always\"\n\
         retention_ms = 259200000\nmax_connections = 2000\nlog_format = \"json\"\n\
         auth = \"required\"\n[[acl]]\nprincipal = \"*\"\ntopics = \"inbox.*\"\n\
         allow = [\"produce\"]\n[[acl]]\nprincipal = \"*\"\ntopics = \"inbox.{principal}\"\n\
         allow = [\"consume\", \"describe\"]\n",
        "fsync = \"interval:50\"\nsegment_bytes = 1048576\nindex_interval_bytes = 0\n\
         retention_bytes = \"unlimited\"\nrecovery_mode = \"absolute-consistency\"\n\
         verify_rolled = \"startup\"\npartition_slots = false\n",
        "ws_listen = \"127.0.0.1:9094\"\nallowed_origins = [\"https://chat.example.com\"]\n\
         ws_max_message = 65536\nproduce_bytes_per_sec = 1000000\n\
         fetch_bytes_per_sec = \"unlimited\"\nmax_partitions = 128\ndefault_partitions = 4\n",
        "tls_listen = \"127.0.0.1:9093\"\ntls_cert = \"cert.pem\"\ntls_key = \"key.pem\"\n\
         tls_client_ca = \"ca.pem\"\nadmins = [\"0000000000000000000000000000000000000000000000000000000000000000\"]\n",
        "verify_sealed = \"background\"\nmax_payload = 1024\nmax_key = 16\n\
         receive_budget_bytes = 4096\n",
    ];
    let mut seeds: Vec<Vec<u8>> = files.iter().map(|f| f.as_bytes().to_vec()).collect();
    let mut with_flags = files[2].as_bytes().to_vec();
    with_flags.extend_from_slice(b"\0fsync=never\nmax_connections=10\nauto_create=false\n");
    seeds.push(with_flags);
    seeds
}

fn recovery() -> Vec<Vec<u8>> {
    // A log of three batches at offsets 0, 1 and 4 (base offsets patched as
    // the broker stores them).
    let mut log = Vec::new();
    let mut next = 0u64;
    for records in [&[&b"a"[..]][..], &[b"bb", b"cc", b"dd"], &[b"e"]] {
        let mut b = sample_batch(b"key", records);
        hermit_protocol::record::patch_base_offset(&mut b, next);
        next += records.len() as u64;
        log.extend_from_slice(&b);
    }
    let mut seeds = Vec::new();
    // Each mode: delete/compact x tolerate/absolute x no index/stale index.
    for mode in 0u8..8 {
        let mut s = vec![mode];
        s.extend_from_slice(&log);
        seeds.push(s);
    }
    // A torn tail; a flipped byte in the middle batch (fenced: valid batches follow).
    let mut torn = vec![0u8];
    torn.extend_from_slice(&log[..log.len() - 5]);
    seeds.push(torn);
    let mut flipped = vec![0u8];
    flipped.extend_from_slice(&log);
    flipped[1 + 40 + 40] ^= 0x55;
    seeds.push(flipped);
    seeds.push(vec![0u8]);
    seeds
}

fn envelope() -> Vec<Vec<u8>> {
    use hermit_fuzz::crypto::seal;
    let mut seeds = Vec::new();
    // Raw records (mode 0): DIRECT, MULTI, padded, signed.
    for how in 0u8..8 {
        let mut s = vec![0u8];
        s.extend_from_slice(&seal(how, b"attack at dawn"));
        seeds.push(s);
    }
    // Seal-then-edit (mode bit 0): no edit, and one flipped byte.
    for mode in [1u8, 3, 7, 15] {
        let mut s = vec![mode, 5];
        s.extend_from_slice(b"hello");
        seeds.push(s.clone());
        s.extend_from_slice(&[0, 30, 0x01]);
        seeds.push(s);
    }
    seeds
}

fn sealkey() -> Vec<Vec<u8>> {
    use hermit_client::crypto::{KdfParams, KeyFile};
    let id = &hermit_fuzz::crypto::keys().recipient;
    let cheap = KdfParams::insecure_for_tests(8, 1, 1).expect("cheap parameters");
    let file = KeyFile::wrap(id, hermit_fuzz::crypto::SEALKEY_PASSWORD, cheap).expect("wrap");
    let mut bin = vec![0u8];
    bin.extend_from_slice(file.as_bytes());
    let mut armor = vec![1u8];
    armor.extend_from_slice(file.to_armor().as_bytes());
    let mut crlf = vec![1u8];
    crlf.extend_from_slice(file.to_armor().replace('\n', "\r\n").as_bytes());
    vec![bin, armor, crlf]
}

fn chat() -> Vec<Vec<u8>> {
    use hermit_client::crypto::ChatCrypto;
    let k = hermit_fuzz::crypto::keys();
    let mut c = ChatCrypto::new(&k.sender, k.recipient.public_key()).expect("a ChatCrypto");
    let mut seeds = Vec::new();
    for text in ["hi", "", "a longer message with some words in it \u{1F600}"] {
        let m = c.encrypt_str(text).expect("encrypt");
        let mut s = m.data.into_bytes();
        s.push(0);
        s.extend_from_slice(m.iv.as_bytes());
        seeds.push(s);
    }
    let mut own = vec![0xff];
    own.extend_from_slice(b"round trip");
    seeds.push(own);
    seeds
}
