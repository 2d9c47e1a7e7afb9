use super::*;
use crate::record::{BatchBuilder, RecordHeader};
use crate::topic::{MAX_NAME_LEN, TopicName};
use proptest::prelude::*;

fn topic_strategy() -> impl Strategy<Value = String> {
    "[A-Za-z0-9._-]{1,40}".prop_filter("not a valid topic", |s| TopicName::new(s.as_str()).is_ok())
}

fn group_strategy() -> impl Strategy<Value = String> {
    "[a-z0-9 éü/_-]{1,30}"
}

fn batch_strategy() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(any::<u8>(), 0..20),
        proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..60), 1..8),
        any::<u64>(),
    )
        .prop_map(|(key, recs, ts)| {
            let mut b = BatchBuilder::new(&key);
            for r in &recs {
                b.push(r);
            }
            b.finish(ts).unwrap()
        })
}

/// Owned twin of [`Request`] so proptest can generate it.
#[derive(Debug, Clone)]
enum OwnedRequest {
    Produce(String, u32, Ack, Vec<u8>),
    /// Topic, partition, offset, max_bytes, max_wait_ms, (min_bytes, min_wait_ms).
    Fetch(String, u32, u64, u32, u32, (u32, u32)),
    Commit(String, String, u32, u64),
    Committed(String, String, u32),
    Metadata(Option<String>),
    Create(String, u32, Cleanup, u64, u64),
    Delete(String),
    Ping,
    Authenticate(u8, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>),
    ListTopics(Option<String>, u32),
    ConditionalProduce(String, u32, Ack, u64, Vec<u8>),
    Claim(String, u32, [u8; CLAIM_ID_LEN]),
}

impl OwnedRequest {
    fn view(&self) -> Request<'_> {
        fn t(s: &str) -> TopicName<&str> {
            TopicName::new(s).unwrap()
        }
        match self {
            OwnedRequest::Produce(topic, partition, ack, batch) => Request::Produce(Produce {
                topic: t(topic),
                partition: *partition,
                ack: *ack,
                header: RecordHeader::decode(batch).unwrap(),
                batch,
            }),
            OwnedRequest::Fetch(topic, p, o, mb, mw, (nb, nw)) => Request::Fetch(Fetch {
                topic: t(topic),
                partition: *p,
                offset: *o,
                max_bytes: *mb,
                max_wait_ms: *mw,
                min_bytes: *nb,
                min_wait_ms: *nw,
            }),
            OwnedRequest::Commit(g, topic, p, o) => Request::Commit(Commit {
                group: g,
                topic: t(topic),
                partition: *p,
                offset: *o,
            }),
            OwnedRequest::Committed(g, topic, p) => Request::Committed(Committed {
                group: g,
                topic: t(topic),
                partition: *p,
            }),
            OwnedRequest::Metadata(topic) => Request::Metadata(topic.as_deref().map(t)),
            OwnedRequest::Create(topic, n, c, rm, rb) => Request::CreateTopic(CreateTopic {
                topic: t(topic),
                settings: TopicSettings {
                    partitions: *n,
                    cleanup: *c,
                    retention_ms: *rm,
                    retention_bytes: *rb,
                },
            }),
            OwnedRequest::Delete(topic) => Request::DeleteTopic(t(topic)),
            OwnedRequest::Ping => Request::Ping,
            OwnedRequest::Authenticate(m, spki, sig, name, cb) => {
                // Mechanism 1 carries no name or channel binding.
                let unbound = *m == crate::auth::MECHANISM_P256_ECDSA;
                Request::Authenticate(Authenticate {
                    mechanism: *m,
                    spki,
                    signature: sig,
                    name: if unbound { &[] } else { name },
                    channel_binding: if unbound { &[] } else { cb },
                })
            }
            OwnedRequest::ListTopics(after, limit) => Request::ListTopics(ListTopics {
                after: after.as_deref().map(|a| TopicName::new_any(a).unwrap()),
                limit: *limit,
            }),
            OwnedRequest::ConditionalProduce(topic, partition, ack, end, batch) => {
                Request::ConditionalProduce(ConditionalProduce {
                    produce: Produce {
                        topic: t(topic),
                        partition: *partition,
                        ack: *ack,
                        header: RecordHeader::decode(batch).unwrap(),
                        batch,
                    },
                    expected_end: *end,
                })
            }
            OwnedRequest::Claim(topic, partition, id) => Request::Claim(Claim {
                topic: t(topic),
                partition: *partition,
                claim_id: *id,
            }),
        }
    }
}

/// A `ListTopics` cursor: any topic name, internal ones included.
fn cursor_strategy() -> impl Strategy<Value = String> {
    prop_oneof![topic_strategy(), "__[a-z_]{1,20}"]
}

fn request_strategy() -> impl Strategy<Value = OwnedRequest> {
    let ack = || prop_oneof![Just(Ack::Written), Just(Ack::Durable)];
    let cleanup = prop_oneof![Just(Cleanup::Delete), Just(Cleanup::Compact)];
    prop_oneof![
        (topic_strategy(), any::<u32>(), ack(), batch_strategy())
            .prop_map(|(t, p, a, b)| OwnedRequest::Produce(t, p, a, b)),
        (
            topic_strategy(),
            any::<u32>(),
            ack(),
            any::<u64>(),
            batch_strategy()
        )
            .prop_map(|(t, p, a, e, b)| OwnedRequest::ConditionalProduce(t, p, a, e, b)),
        (topic_strategy(), any::<u32>(), any::<[u8; CLAIM_ID_LEN]>())
            .prop_map(|(t, p, id)| OwnedRequest::Claim(t, p, id)),
        (
            topic_strategy(),
            any::<u32>(),
            any::<u64>(),
            any::<u32>(),
            any::<u32>(),
            // Without the trailing part, or with it (min_bytes > 1).
            prop_oneof![Just((1u32, 0u32)), (2..=u32::MAX, any::<u32>())],
        )
            .prop_map(|(t, p, o, mb, mw, hold)| OwnedRequest::Fetch(t, p, o, mb, mw, hold)),
        (
            group_strategy(),
            topic_strategy(),
            any::<u32>(),
            any::<u64>()
        )
            .prop_map(|(g, t, p, o)| OwnedRequest::Commit(g, t, p, o)),
        (group_strategy(), topic_strategy(), any::<u32>())
            .prop_map(|(g, t, p)| OwnedRequest::Committed(g, t, p)),
        proptest::option::of(topic_strategy()).prop_map(OwnedRequest::Metadata),
        (
            topic_strategy(),
            1..=MAX_PARTITIONS,
            cleanup,
            any::<u64>(),
            any::<u64>()
        )
            .prop_map(|(t, n, c, rm, rb)| OwnedRequest::Create(t, n, c, rm, rb)),
        topic_strategy().prop_map(OwnedRequest::Delete),
        Just(OwnedRequest::Ping),
        (
            any::<u8>(),
            proptest::collection::vec(any::<u8>(), 0..120),
            proptest::collection::vec(any::<u8>(), 0..80),
            proptest::collection::vec(any::<u8>(), 0..=253),
            proptest::collection::vec(any::<u8>(), 0..=32),
        )
            .prop_map(|(m, k, s, n, c)| OwnedRequest::Authenticate(m, k, s, n, c)),
        (proptest::option::of(cursor_strategy()), 1..=MAX_LIST_LIMIT)
            .prop_map(|(a, l)| OwnedRequest::ListTopics(a, l)),
    ]
}

fn encode_req(req: &Request<'_>, corr: u32) -> BytesMut {
    let mut out = BytesMut::new();
    req.encode(corr, &mut out).unwrap();
    out
}

proptest! {
    #[test]
    fn requests_round_trip(req in request_strategy(), corr in any::<u32>()) {
        let view = req.view();
        let bytes = encode_req(&view, corr);
        let limits = Limits::default();
        prop_assert_eq!(check_request(&bytes, &limits).unwrap(), FrameCheck::Complete { len: bytes.len() });
        // Every strict prefix is incomplete, never an error and never "complete".
        for cut in 0..bytes.len() {
            match check_request(&bytes[..cut], &limits).unwrap() {
                FrameCheck::Incomplete { need } => prop_assert!(need > cut),
                FrameCheck::Complete { .. } => prop_assert!(false, "prefix of {} judged complete", cut),
            }
        }
        let decoded = decode_request(&bytes, &limits).unwrap();
        prop_assert_eq!(decoded.correlation_id, corr);
        prop_assert_eq!(decoded.request, view);
    }

    #[test]
    fn request_decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let limits = Limits::default();
        let _ = check_request(&bytes, &limits);
        let _ = decode_request(&bytes, &limits);
    }

    #[test]
    fn mutated_requests_never_panic(req in request_strategy(), at in any::<proptest::sample::Index>(), val in any::<u8>()) {
        let mut bytes = encode_req(&req.view(), 1).to_vec();
        let i = at.index(bytes.len());
        bytes[i] = val;
        let limits = Limits::default();
        let _ = check_request(&bytes, &limits);
        let _ = decode_request(&bytes, &limits);
    }

    #[test]
    fn responses_round_trip(body in response_strategy(), corr in any::<u32>()) {
        let mut out = BytesMut::new();
        encode_response(corr, &body.view(), &mut out).unwrap();
        prop_assert_eq!(check_response(&out, u32::MAX).unwrap(), FrameCheck::Complete { len: out.len() });
        let back = decode_response(&out).unwrap();
        prop_assert_eq!(back.correlation_id, corr);
        prop_assert_eq!(back.op, body.view().op());
        prop_assert_eq!(back.body, Ok(body.view()));
    }

    #[test]
    fn errors_round_trip(code in 1u16..(Status::ALL.len() as u16), msg in ".{0,80}", bounds in any::<(u64, u64)>(), corr in any::<u32>()) {
        let status = Status::from_code(code).unwrap();
        let err = ErrorBody {
            status,
            message: &msg,
            bounds: status.carries_bounds().then_some(bounds),
        };
        let mut out = BytesMut::new();
        encode_error(corr, Op::Fetch as u8, &err, &mut out).unwrap();
        let back = decode_response(&out).unwrap();
        prop_assert_eq!(back.correlation_id, corr);
        prop_assert_eq!(back.body, Err(err));
    }

    #[test]
    fn topic_metadata_encoded_len_is_exact(topics in proptest::collection::vec(metadata_strategy(), 0..6), next in proptest::option::of(cursor_strategy())) {
        let sum: usize = topics.iter().map(TopicMetadata::encoded_len).sum();
        let mut out = BytesMut::new();
        encode_response(1, &ResponseBody::Metadata(topics.clone()), &mut out).unwrap();
        prop_assert_eq!(out.len() - 4, METADATA_FIXED_LEN + sum);
        let mut out = BytesMut::new();
        let page = TopicPage { topics, next: next.clone() };
        encode_response(1, &ResponseBody::ListTopics(page), &mut out).unwrap();
        // LIST_TOPICS_FIXED_LEN allows for the longest cursor.
        let cursor = next.map_or(0, |n| n.len());
        prop_assert_eq!(out.len() - 4, LIST_TOPICS_FIXED_LEN - MAX_NAME_LEN + cursor + sum);
    }

    #[test]
    fn response_decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = check_response(&bytes, 1 << 20);
        let _ = decode_response(&bytes);
    }
}

#[derive(Debug, Clone)]
enum OwnedResponse {
    Produce(u64),
    Fetch(u64, u64, Vec<u8>),
    Commit,
    Committed(Option<u64>),
    Metadata(Vec<TopicMetadata>),
    Create,
    Delete,
    Ping,
    Authenticate([u8; 32]),
    ListTopics(Vec<TopicMetadata>, Option<String>),
    ConditionalProduce(u64),
    Claim(u64, u64, Vec<u8>),
}

impl OwnedResponse {
    fn view(&self) -> ResponseBody<'_> {
        match self {
            OwnedResponse::Produce(o) => ResponseBody::Produce { base_offset: *o },
            OwnedResponse::Fetch(hw, ls, r) => ResponseBody::Fetch {
                high_watermark: *hw,
                log_start: *ls,
                records: r,
            },
            OwnedResponse::Commit => ResponseBody::Commit,
            OwnedResponse::Committed(o) => ResponseBody::Committed { offset: *o },
            OwnedResponse::Metadata(t) => ResponseBody::Metadata(t.clone()),
            OwnedResponse::Create => ResponseBody::CreateTopic,
            OwnedResponse::Delete => ResponseBody::DeleteTopic,
            OwnedResponse::Ping => ResponseBody::Ping,
            OwnedResponse::Authenticate(p) => ResponseBody::Authenticate { principal: *p },
            OwnedResponse::ListTopics(topics, next) => ResponseBody::ListTopics(TopicPage {
                topics: topics.clone(),
                next: next.clone(),
            }),
            OwnedResponse::ConditionalProduce(o) => {
                ResponseBody::ConditionalProduce { base_offset: *o }
            }
            OwnedResponse::Claim(offset, next, batch) => ResponseBody::Claim(Claimed {
                offset: *offset,
                next: *next,
                batch,
            }),
        }
    }
}

fn metadata_strategy() -> impl Strategy<Value = TopicMetadata> {
    (
        topic_strategy(),
        prop_oneof![Just(Cleanup::Delete), Just(Cleanup::Compact)],
        any::<u64>(),
        any::<u64>(),
        proptest::collection::vec(any::<(u32, u64, u64)>(), 0..5),
    )
        .prop_map(|(name, cleanup, rm, rb, parts)| TopicMetadata {
            name,
            cleanup,
            retention_ms: rm,
            retention_bytes: rb,
            partitions: parts
                .into_iter()
                .map(|(partition, log_start, high_watermark)| PartitionMetadata {
                    partition,
                    log_start,
                    high_watermark,
                })
                .collect(),
        })
}

fn response_strategy() -> impl Strategy<Value = OwnedResponse> {
    prop_oneof![
        any::<u64>().prop_map(OwnedResponse::Produce),
        (any::<u64>(), any::<u64>(), batch_strategy())
            .prop_map(|(hw, ls, r)| OwnedResponse::Fetch(hw, ls, r)),
        Just(OwnedResponse::Commit),
        proptest::option::of(any::<u64>()).prop_map(OwnedResponse::Committed),
        proptest::collection::vec(metadata_strategy(), 0..4).prop_map(OwnedResponse::Metadata),
        Just(OwnedResponse::Create),
        Just(OwnedResponse::Delete),
        Just(OwnedResponse::Ping),
        any::<[u8; 32]>().prop_map(OwnedResponse::Authenticate),
        (
            proptest::collection::vec(metadata_strategy(), 0..4),
            proptest::option::of(cursor_strategy())
        )
            .prop_map(|(t, n)| OwnedResponse::ListTopics(t, n)),
        any::<u64>().prop_map(OwnedResponse::ConditionalProduce),
        (any::<u64>(), any::<u64>(), batch_strategy())
            .prop_map(|(o, n, b)| OwnedResponse::Claim(o, n, b)),
    ]
}

fn produce_frame(topic: &str, batch: &[u8]) -> BytesMut {
    let mut out = BytesMut::new();
    out.put_u32(0);
    out.put_u8(Op::Produce as u8);
    out.put_u32(42);
    out.put_u8(topic.len() as u8);
    out.put_slice(topic.as_bytes());
    out.put_u32(0);
    out.put_u8(1);
    out.put_slice(batch);
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_be_bytes());
    out
}

fn small_batch() -> Vec<u8> {
    let mut b = BatchBuilder::new(b"k");
    b.push(b"hello");
    b.finish(1).unwrap()
}

#[test]
fn oversized_payload_is_refused_from_the_header_alone() {
    let limits = Limits::for_payload(1000, 16);
    let header = RecordHeader {
        payload_len: 1001,
        record_count: 1,
        ..Default::default()
    };
    let mut frame = produce_frame("t", &header.encode());
    // Announce the full (never sent) frame length.
    let len = (frame.len() - 4 + 1001) as u32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    let err = check_request(&frame, &limits).unwrap_err();
    assert_eq!(err.correlation_id, Some(42));
    assert_eq!(
        err.error,
        WireError::PayloadTooLarge {
            len: 1001,
            max: 1000
        }
    );
    assert_eq!(err.error.status(), Status::PayloadTooLarge);
}

#[test]
fn oversized_key_is_refused_early() {
    let limits = Limits::for_payload(1000, 16);
    let header = RecordHeader {
        key_len: 17,
        record_count: 1,
        ..Default::default()
    };
    let mut frame = produce_frame("t", &header.encode());
    let len = (frame.len() - 4 + 17) as u32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    let err = check_request(&frame, &limits).unwrap_err();
    assert_eq!(err.error.status(), Status::KeyTooLarge);
}

#[test]
fn frame_length_disagreeing_with_batch_is_refused() {
    let batch = small_batch();
    let mut frame = produce_frame("t", &batch);
    frame.put_u8(0); // one stray byte inside the frame
    let len = (frame.len() - 4) as u32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    let err = decode_request(&frame, &Limits::default()).unwrap_err();
    assert!(
        matches!(err.error, WireError::LengthMismatch { .. }),
        "{err:?}"
    );
}

#[test]
fn hostile_frame_lengths() {
    let limits = Limits::default();
    // Control ops may not announce large frames at all.
    let mut f = BytesMut::new();
    f.put_u32(MAX_CONTROL_FRAME + 1);
    f.put_u8(Op::Ping as u8);
    f.put_u32(7);
    let err = check_request(&f, &limits).unwrap_err();
    assert!(matches!(err.error, WireError::FrameTooLarge { .. }));
    assert_eq!(err.correlation_id, Some(7));
    // Past the frame limit.
    f[..4].copy_from_slice(&(limits.max_frame + 1).to_be_bytes());
    f[4] = Op::Produce as u8;
    assert!(matches!(
        check_request(&f, &limits).unwrap_err().error,
        WireError::FrameTooLarge { .. }
    ));
    // Shorter than op + correlation id.
    assert!(matches!(
        check_request(&[0, 0, 0, 2, 1, 0], &limits)
            .unwrap_err()
            .error,
        WireError::FrameTooShort { .. }
    ));
    // Unknown op.
    let err = check_request(&[0, 0, 0, 5, 0x7f, 0, 0, 0, 9], &limits).unwrap_err();
    assert_eq!(err.error, WireError::UnknownOp(0x7f));
    assert_eq!(err.error.status(), Status::UnknownOp);
}

#[test]
fn invalid_topics_in_requests_are_refused() {
    let limits = Limits::default();
    for bad in [
        &b"../x"[..],
        b"a/b",
        b"",
        b"caf\xc3\xa9",
        b"__consumer_offsets",
    ] {
        let mut out = BytesMut::new();
        out.put_u32(0);
        out.put_u8(Op::DeleteTopic as u8);
        out.put_u32(1);
        out.put_u8(bad.len() as u8);
        out.put_slice(bad);
        let len = (out.len() - 4) as u32;
        out[..4].copy_from_slice(&len.to_be_bytes());
        let err = decode_request(&out, &limits).unwrap_err();
        assert_eq!(err.error.status(), Status::InvalidTopicName, "{bad:?}");
    }
    let long = vec![b'x'; 250];
    let mut frame = produce_frame("t", &small_batch());
    frame.truncate(REQUEST_HEADER_LEN);
    frame.put_u8(250);
    frame.extend_from_slice(&long);
    frame.put_u32(0);
    frame.put_u8(1);
    frame.extend_from_slice(&small_batch());
    let len = (frame.len() - 4) as u32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    assert_eq!(
        decode_request(&frame, &limits).unwrap_err().error.status(),
        Status::InvalidTopicName
    );
}

#[test]
fn zero_record_batches_and_bad_magic_are_corrupt() {
    let mut batch = small_batch();
    batch[crate::record::RECORD_COUNT_AT..crate::record::RECORD_COUNT_AT + 4]
        .copy_from_slice(&0u32.to_be_bytes());
    let frame = produce_frame("t", &batch);
    let err = decode_request(&frame, &Limits::default()).unwrap_err();
    assert_eq!(err.error, WireError::EmptyBatch);
    assert_eq!(err.error.status(), Status::CorruptBatch);
    let mut batch = small_batch();
    batch[0] = 0x01;
    let err = decode_request(&produce_frame("t", &batch), &Limits::default()).unwrap_err();
    assert_eq!(err.error.status(), Status::CorruptBatch);
}

#[test]
fn fetch_header_matches_encode_response() {
    let records = small_batch();
    let mut full = BytesMut::new();
    encode_response(
        9,
        &ResponseBody::Fetch {
            high_watermark: 10,
            log_start: 2,
            records: &records,
        },
        &mut full,
    )
    .unwrap();
    let header = encode_fetch_header(9, 10, 2, records.len() as u32);
    assert_eq!(&full[..FETCH_RESPONSE_HEADER_LEN], &header[..]);
    assert_eq!(&full[FETCH_RESPONSE_HEADER_LEN..], &records[..]);
}

#[test]
fn metadata_count_bomb_is_refused_without_allocating() {
    let mut out = BytesMut::new();
    out.put_u32(0);
    out.put_u8(Op::Metadata as u8 | RESPONSE_BIT);
    out.put_u32(1);
    out.put_u16(0);
    out.put_u32(u32::MAX);
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_be_bytes());
    assert!(matches!(
        decode_response(&out),
        Err(WireError::UnexpectedEof { .. })
    ));
}

#[test]
fn oversized_and_truncated_authenticate_are_refused() {
    let limits = Limits::default();
    let good = Request::Authenticate(Authenticate {
        mechanism: 1,
        spki: &[1; 91],
        signature: &[2; 64],
        name: &[],
        channel_binding: &[],
    });
    let frame = encode_req(&good, 5);
    assert_eq!(decode_request(&frame, &limits).unwrap().request, good);
    // A field over MAX_AUTH_FIELD cannot be encoded, nor decoded.
    let big = [0u8; MAX_AUTH_FIELD + 1];
    let mut out = BytesMut::new();
    assert!(
        Request::Authenticate(Authenticate {
            mechanism: 1,
            spki: &big,
            signature: &[],
            name: &[],
            channel_binding: &[],
        })
        .encode(1, &mut out)
        .is_err()
    );
    let mut raw = BytesMut::new();
    raw.put_u32(0);
    raw.put_u8(Op::Authenticate as u8);
    raw.put_u32(9);
    raw.put_u8(1);
    raw.put_u16((MAX_AUTH_FIELD + 1) as u16);
    raw.put_slice(&big);
    raw.put_u16(0);
    let len = (raw.len() - 4) as u32;
    raw[..4].copy_from_slice(&len.to_be_bytes());
    let e = decode_request(&raw, &limits).unwrap_err();
    assert_eq!(e.correlation_id, Some(9));
    // Cut anywhere inside the body: refused with the correlation id known.
    for cut in REQUEST_HEADER_LEN..frame.len() {
        let mut f = BytesMut::from(&frame[..cut]);
        let len = (f.len() - 4) as u32;
        f[..4].copy_from_slice(&len.to_be_bytes());
        let e = decode_request(&f, &limits).unwrap_err();
        assert_eq!(e.correlation_id, Some(5), "cut at {cut}");
    }
}

/// A ListTopics request frame with raw fields.
fn list_topics_frame(after: &[u8], limit: u32, corr: u32) -> BytesMut {
    let mut out = BytesMut::new();
    out.put_u32(0);
    out.put_u8(Op::ListTopics as u8);
    out.put_u32(corr);
    out.put_u8(after.len() as u8);
    out.put_slice(after);
    out.put_u32(limit);
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_be_bytes());
    out
}

#[test]
fn list_topics_limits_and_cursors() {
    let limits = Limits::default();
    // Owned: the decoded request borrows the frame.
    let decode = |after: &[u8], limit| {
        let frame = list_topics_frame(after, limit, 7);
        decode_request(&frame, &limits).map(|f| match f.request {
            Request::ListTopics(l) => (l.after.map(|a| a.as_str().to_owned()), l.limit),
            other => panic!("decoded as {other:?}"),
        })
    };
    assert_eq!(decode(b"", 1).unwrap(), (None, 1));
    assert_eq!(
        decode(b"chat", MAX_LIST_LIMIT).unwrap(),
        (Some("chat".to_owned()), MAX_LIST_LIMIT)
    );
    // A cursor may name an internal topic: the broker may hand one out.
    assert_eq!(
        decode(b"__consumer_offsets", 10).unwrap(),
        (Some("__consumer_offsets".to_owned()), 10)
    );
    // A limit of 0 or over MAX_LIST_LIMIT is malformed (the connection closes).
    for limit in [0, MAX_LIST_LIMIT + 1, u32::MAX] {
        let e = decode(b"", limit).unwrap_err();
        assert_eq!(e.correlation_id, Some(7));
        assert_eq!(
            e.error,
            WireError::InvalidField {
                field: "limit",
                value: u64::from(limit)
            }
        );
        assert_eq!(e.error.status(), Status::InvalidRequest);
    }
    // A cursor is held to the charset rules of topic names.
    for bad in [&b"../x"[..], b"a b", b"caf\xc3\xa9", b".", b".."] {
        let e = decode(bad, 10).unwrap_err();
        assert_eq!(e.error.status(), Status::InvalidTopicName, "{bad:?}");
    }
    let long = vec![b'x'; 250];
    assert_eq!(
        decode(&long, 10).unwrap_err().error.status(),
        Status::InvalidTopicName
    );
    // Truncated anywhere, or with bytes after the limit: refused.
    let frame = list_topics_frame(b"chat", 5, 3);
    for cut in REQUEST_HEADER_LEN..frame.len() {
        let mut f = BytesMut::from(&frame[..cut]);
        let len = (f.len() - 4) as u32;
        f[..4].copy_from_slice(&len.to_be_bytes());
        assert!(decode_request(&f, &limits).is_err(), "cut at {cut}");
    }
    let mut long_frame = frame.clone();
    long_frame.put_u8(0);
    let len = (long_frame.len() - 4) as u32;
    long_frame[..4].copy_from_slice(&len.to_be_bytes());
    assert!(matches!(
        decode_request(&long_frame, &limits).unwrap_err().error,
        WireError::LengthMismatch { .. }
    ));
    // The largest request is a control frame.
    let longest = "x".repeat(MAX_NAME_LEN);
    let max = Request::ListTopics(ListTopics {
        after: Some(TopicName::new_any(longest.as_str()).unwrap()),
        limit: MAX_LIST_LIMIT,
    });
    let mut out = BytesMut::new();
    max.encode(1, &mut out).unwrap();
    assert!(out.len() - 4 <= MAX_CONTROL_FRAME as usize);
}

fn one_topic() -> TopicMetadata {
    TopicMetadata {
        name: "t".into(),
        cleanup: Cleanup::Delete,
        retention_ms: 1,
        retention_bytes: 2,
        partitions: vec![PartitionMetadata {
            partition: 0,
            log_start: 0,
            high_watermark: 3,
        }],
    }
}

#[test]
fn list_topics_pages_over_the_limit_are_refused_both_ways() {
    let page = TopicPage {
        topics: vec![one_topic(); MAX_LIST_LIMIT as usize + 1],
        next: None,
    };
    let mut out = BytesMut::from(&b"keep"[..]);
    let e = encode_response(1, &ResponseBody::ListTopics(page), &mut out).unwrap_err();
    assert!(matches!(
        e,
        WireError::TooLong {
            field: "topics",
            ..
        }
    ));
    assert_eq!(&out[..], b"keep", "nothing is written for a refused page");
    // A decoder refuses such a count before reading (or reserving) anything.
    let mut out = BytesMut::new();
    out.put_u32(0);
    out.put_u8(Op::ListTopics as u8 | RESPONSE_BIT);
    out.put_u32(1);
    out.put_u16(0);
    out.put_u32(MAX_LIST_LIMIT + 1);
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_be_bytes());
    assert!(matches!(
        decode_response(&out),
        Err(WireError::InvalidField {
            field: "topic count",
            ..
        })
    ));
    // A count the frame cannot hold: refused without allocating.
    let mut out = BytesMut::new();
    out.put_u32(0);
    out.put_u8(Op::ListTopics as u8 | RESPONSE_BIT);
    out.put_u32(1);
    out.put_u16(0);
    out.put_u32(MAX_LIST_LIMIT);
    out.put_u8(0);
    let len = (out.len() - 4) as u32;
    out[..4].copy_from_slice(&len.to_be_bytes());
    assert!(matches!(
        decode_response(&out),
        Err(WireError::UnexpectedEof { .. })
    ));
    // A page without its cursor is truncated; a bad cursor is refused.
    let mut good = BytesMut::new();
    let page = TopicPage {
        topics: vec![one_topic()],
        next: Some("t".into()),
    };
    encode_response(2, &ResponseBody::ListTopics(page.clone()), &mut good).unwrap();
    assert_eq!(
        decode_response(&good).unwrap().body,
        Ok(ResponseBody::ListTopics(page))
    );
    let mut cut = BytesMut::from(&good[..good.len() - 2]);
    let len = (cut.len() - 4) as u32;
    cut[..4].copy_from_slice(&len.to_be_bytes());
    assert!(decode_response(&cut).is_err());
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] = b'/';
    assert!(matches!(
        decode_response(&bad),
        Err(WireError::InvalidName { .. })
    ));
}

#[test]
fn the_smallest_topic_metadata_is_min_topic_metadata_len() {
    assert_eq!(one_topic().encoded_len(), MIN_TOPIC_METADATA_LEN);
}

/// A conditional produce frame is a produce frame with the expected end
/// after the ack: its batch header is judged as early, and its size is
/// allowed up to `max_frame` like Produce's, not the control-frame limit.
#[test]
fn a_conditional_produce_is_checked_as_early_as_a_produce() {
    let limits = Limits::for_payload(1000, 16);
    let header = RecordHeader {
        payload_len: 1001,
        record_count: 1,
        ..Default::default()
    };
    let mut frame = produce_frame("t", &header.encode());
    frame[4] = Op::ConditionalProduce as u8;
    // Insert the expected end after topic (1 + 1 byte), partition and ack.
    let at = REQUEST_HEADER_LEN + 2 + 4 + 1;
    let mut with_end = frame[..at].to_vec();
    with_end.extend_from_slice(&7u64.to_be_bytes());
    with_end.extend_from_slice(&frame[at..]);
    let len = (with_end.len() - 4 + 1001) as u32;
    with_end[..4].copy_from_slice(&len.to_be_bytes());
    assert!(produce_prefix_buffered(&with_end));
    assert!(!produce_prefix_buffered(&with_end[..with_end.len() - 1]));
    let err = check_request(&with_end, &limits).unwrap_err();
    assert_eq!(err.error.status(), Status::PayloadTooLarge);
    // A valid one larger than a control frame is fine.
    let mut b = BatchBuilder::new(b"k");
    b.push(&[7u8; 2000]);
    let batch = b.finish(1).unwrap();
    let view = Request::ConditionalProduce(ConditionalProduce {
        produce: Produce {
            topic: TopicName::new("t").unwrap(),
            partition: 0,
            ack: Ack::Durable,
            header: RecordHeader::decode(&batch).unwrap(),
            batch: &batch,
        },
        expected_end: 9,
    });
    let bytes = encode_req(&view, 3);
    assert!(bytes.len() > MAX_CONTROL_FRAME as usize);
    assert_eq!(
        decode_request(&bytes, &Limits::default()).unwrap().request,
        view
    );
}

/// A claim request is a control frame of fixed shape: a claim id one byte
/// short, or one byte long, is refused.
#[test]
fn a_claim_with_a_short_or_long_id_is_refused() {
    let view = Request::Claim(Claim {
        topic: TopicName::new("keys").unwrap(),
        partition: 0,
        claim_id: [5; CLAIM_ID_LEN],
    });
    let good = encode_req(&view, 1);
    let mut short = good.to_vec();
    short.pop();
    let len = (short.len() - 4) as u32;
    short[..4].copy_from_slice(&len.to_be_bytes());
    assert!(decode_request(&short, &Limits::default()).is_err());
    let mut long = good.to_vec();
    long.push(0);
    let len = (long.len() - 4) as u32;
    long[..4].copy_from_slice(&len.to_be_bytes());
    assert!(decode_request(&long, &Limits::default()).is_err());
}

/// `EndMoved` carries the partition's bounds like `OffsetOutOfRange`; the
/// claim statuses carry none.
#[test]
fn end_moved_carries_the_log_end() {
    let err = ErrorBody {
        status: Status::EndMoved,
        message: "the log ends at 12",
        bounds: Some((3, 12)),
    };
    let mut out = BytesMut::new();
    encode_error(1, Op::ConditionalProduce as u8, &err, &mut out).unwrap();
    assert_eq!(decode_response(&out).unwrap().body, Err(err));
    for status in [Status::NothingToClaim, Status::RateLimited] {
        assert!(!status.carries_bounds());
    }
}

fn fetch_with(min_bytes: u32, min_wait_ms: u32) -> Request<'static> {
    Request::Fetch(Fetch {
        topic: TopicName::new("t").unwrap(),
        partition: 0,
        offset: 7,
        max_bytes: 1 << 20,
        max_wait_ms: 500,
        min_bytes,
        min_wait_ms,
    })
}

#[test]
fn a_default_fetch_is_the_old_encoding_and_the_trailing_part_is_optional() {
    let limits = Limits::default();
    // min_bytes 1 (or 0): no trailing part, so an old broker reads it.
    let plain = encode_req(&fetch_with(1, 9), 3);
    assert_eq!(encode_req(&fetch_with(0, 0), 3), plain);
    let held = encode_req(&fetch_with(4096, 20), 3);
    assert_eq!(held.len(), plain.len() + 8);
    assert_eq!(&held[plain.len()..], &[0, 0, 0x10, 0, 0, 0, 0, 20]);
    // Old body: min_bytes 1, min_wait 0.
    assert_eq!(
        decode_request(&plain, &limits).unwrap().request,
        fetch_with(1, 0)
    );
    assert_eq!(
        decode_request(&held, &limits).unwrap().request,
        fetch_with(4096, 20)
    );
    // A trailing part cut short, or followed by more bytes, is refused.
    for extra in [&[0u8, 0, 0, 2][..], &[0, 0, 0, 2, 0, 0, 0, 1, 9][..]] {
        let mut out = plain.clone();
        out.extend_from_slice(extra);
        let len = (out.len() - 4) as u32;
        out[..4].copy_from_slice(&len.to_be_bytes());
        assert!(decode_request(&out, &limits).is_err(), "{extra:?}");
    }
}
