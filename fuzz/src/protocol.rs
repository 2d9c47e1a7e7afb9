//! Targets in the wire crate: the frame decoder and the record-batch parser.

use bytes::BytesMut;
use hermit_protocol::frame::{
    self, FrameCheck, Limits, REQUEST_HEADER_LEN, Request, ResponseFrame, check_request,
    check_response, decode_request, decode_response,
};
use hermit_protocol::hello::{BROKER_HELLO_V3_LEN, BrokerHello, HELLO_LEN};
use hermit_protocol::record::{
    BatchBuilder, BatchIter, BatchView, CRC_AT, CRC_START, HEADER_LEN, RecordHeader, compute_crc,
    patch_base_offset,
};
use hermit_protocol::{Hello, Op};

/// Limits small enough that produce frames of fuzzer size reach every check
/// (a key over 1 KiB or a payload over 64 KiB is refused from the header).
const LIMITS: Limits = Limits {
    max_frame: (1 << 16) + (1 << 10) + 512,
    max_payload: 1 << 16,
    max_key: 1 << 10,
};

/// Largest response frame the client side accepts here.
const MAX_RESPONSE: u32 = 1 << 20;

/// The frame decoder, both directions, and the hellos.
///
/// Request side: whatever [`check_request`] says of the buffer,
/// [`decode_request`] agrees (a frame it delimits but cannot decode is an
/// error, never a panic); a request that decodes re-encodes to exactly the
/// bytes it came from (the encoding is canonical), every strict prefix of it
/// is `Incomplete` with a `need` inside the frame (a receiver reading it in
/// pieces never refuses it), and a produce request's batch view is the
/// frame's tail with the header it claims. Response side: a decoded response
/// re-encodes to a frame that decodes to the same value. Hellos round-trip.
pub fn frame(data: &[u8]) {
    request(data);
    response(data);
    hellos(data);
}

fn request(data: &[u8]) {
    let checked = check_request(data, &LIMITS);
    let Ok(FrameCheck::Complete { len }) = checked else {
        if let Ok(FrameCheck::Incomplete { need }) = checked {
            assert!(need > data.len(), "Incomplete needs no more than it has");
        }
        assert!(
            decode_request(data, &LIMITS).is_err(),
            "decoded a buffer check_request does not call a whole frame"
        );
        return;
    };
    assert!(
        (REQUEST_HEADER_LEN..=data.len()).contains(&len),
        "frame length {len} outside 9..={}",
        data.len()
    );
    let whole = &data[..len];
    if data.len() > len {
        // Trailing bytes belong to the next frame: decoding the whole buffer is refused.
        assert!(decode_request(data, &LIMITS).is_err());
    }
    let decoded = match decode_request(whole, &LIMITS) {
        Ok(f) => f,
        Err(e) => {
            // Complete means the header is there: the error can be answered.
            assert_eq!(
                e.correlation_id,
                Some(u32::from_be_bytes([whole[5], whole[6], whole[7], whole[8]]))
            );
            assert_eq!(e.op, Some(whole[4]));
            return;
        }
    };
    let mut out = BytesMut::new();
    decoded
        .request
        .encode(decoded.correlation_id, &mut out)
        .unwrap_or_else(|e| panic!("a decoded request does not re-encode: {e}"));
    assert_eq!(&out[..], whole, "decode -> encode is not the identity");
    assert_eq!(decoded.request.op() as u8, whole[4]);
    for k in 0..len {
        match check_request(&whole[..k], &LIMITS) {
            Ok(FrameCheck::Incomplete { need }) => {
                assert!(need > k && need <= len, "prefix {k}: need {need} of {len}")
            }
            other => panic!("prefix {k} of a valid {len}-byte frame: {other:?}"),
        }
    }
    if let Request::Produce(p) = decoded.request {
        assert_eq!(p.batch.len() as u64, p.header.batch_len());
        assert!(
            whole.ends_with(p.batch),
            "the batch is not the frame's tail"
        );
        assert_eq!(p.header.encode()[..], p.batch[..HEADER_LEN]);
        assert!(p.header.key_len <= LIMITS.max_key && p.header.payload_len <= LIMITS.max_payload);
        assert!(p.header.record_count >= 1);
    }
}

fn response(data: &[u8]) {
    let Ok(FrameCheck::Complete { len }) = check_response(data, MAX_RESPONSE) else {
        return;
    };
    assert!(len <= data.len());
    let Ok(decoded) = decode_response(&data[..len]) else {
        return;
    };
    let mut out = BytesMut::new();
    encode_response(&decoded, &mut out);
    let again = decode_response(&out)
        .unwrap_or_else(|e| panic!("a re-encoded response does not decode: {e}"));
    assert_eq!(
        again, decoded,
        "decode -> encode -> decode changed the response"
    );
    // A second encoding is byte-identical (the first normalised what the
    // decoder ignores, e.g. the offset of an absent committed offset).
    let mut twice = BytesMut::new();
    encode_response(&again, &mut twice);
    assert_eq!(out, twice);
}

fn encode_response(r: &ResponseFrame<'_>, out: &mut BytesMut) {
    let res = match &r.body {
        Ok(body) => {
            assert_eq!(body.op(), r.op);
            frame::encode_response(r.correlation_id, body, out)
        }
        Err(err) => {
            assert_eq!(
                err.bounds.is_some(),
                err.status == hermit_protocol::Status::OffsetOutOfRange
            );
            frame::encode_error(r.correlation_id, r.op as u8, err, out)
        }
    };
    res.unwrap_or_else(|e| panic!("a decoded response does not re-encode: {e}"));
}

fn hellos(data: &[u8]) {
    if data.len() >= HELLO_LEN
        && let Ok(h) = Hello::decode(&data[..HELLO_LEN])
    {
        assert_eq!(h.encode()[..], data[..HELLO_LEN]);
    }
    if data.len() >= BROKER_HELLO_V3_LEN
        && let Ok(h) = BrokerHello::decode(&data[..BROKER_HELLO_V3_LEN])
    {
        assert_eq!(h.encode()[..], data[..BROKER_HELLO_V3_LEN]);
    }
    let _ = Op::from_u8(data.first().copied().unwrap_or(0));
}

/// The record-batch parser and the record iterator.
///
/// The first byte is a mode: bit 0 set recomputes the CRC of each batch the
/// parser can delimit before the walk (a fuzzer rarely forges a CRC-32C, and
/// the record iterator and the rebuild below sit behind a valid one).
///
/// [`BatchIter`] yields views that tile the buffer from its start, each of
/// the length its header claims, with a header that re-encodes to its first
/// 33 bytes, key and payload inside it; after an error it yields nothing.
/// [`BatchView::verify_crc`] agrees with [`compute_crc`]. When
/// [`BatchView::records`] accepts a payload its records fill it exactly
/// (`record_count` length-prefixed records, or a tombstone), and
/// [`BatchBuilder`] rebuilds from them a batch byte-identical to the parsed
/// one (base offset patched back) when its CRC was valid — so the builder and
/// the parser agree on the layout.
pub fn batch(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut buf = rest.to_vec();
    if mode & 1 == 1 {
        fix_crcs(&mut buf);
    }
    let mut iter = BatchIter::new(&buf);
    let mut consumed = 0usize;
    for item in iter.by_ref() {
        let Ok(view) = item else {
            assert!(consumed < buf.len(), "an error past the end of the buffer");
            break;
        };
        let bytes = view.as_bytes();
        let len = bytes.len();
        assert_eq!(
            bytes.as_ptr() as usize - buf.as_ptr() as usize,
            consumed,
            "batches do not tile the buffer"
        );
        assert_eq!(len as u64, view.header.batch_len());
        assert_eq!(view.header.encode()[..], bytes[..HEADER_LEN]);
        assert_eq!(RecordHeader::decode(bytes).ok(), Some(view.header));
        assert_eq!(view.key().len(), view.header.key_len as usize);
        assert_eq!(view.payload().len(), view.header.payload_len as usize);
        assert_eq!(BatchView::parse(bytes).ok(), Some((view, len)));
        let crc_ok = view.verify_crc().is_ok();
        assert_eq!(crc_ok, compute_crc(bytes) == Some(view.header.crc));
        records(&view, crc_ok);
        consumed += len;
    }
    assert!(iter.next().is_none(), "the iterator yields after its end");
    assert!(consumed <= buf.len());
}

fn records(view: &BatchView<'_>, crc_ok: bool) {
    let h = view.header;
    let mut yielded = Vec::new();
    let mut failed = false;
    let mut it = view.records();
    for r in it.by_ref() {
        match r {
            Ok(rec) => yielded.push(rec),
            Err(_) => {
                failed = true;
                break;
            }
        }
        assert!(
            yielded.len() <= h.record_count as usize,
            "more records than the batch declares"
        );
    }
    assert!(
        it.next().is_none(),
        "the record iterator yields after an error"
    );
    let framed: usize = yielded.iter().map(|r| 4 + r.len()).sum();
    let tombstone = view.payload().is_empty() && h.record_count == 1;
    if failed {
        assert!(framed <= view.payload().len());
        return;
    }
    assert_eq!(yielded.len(), h.record_count as usize, "record count");
    if tombstone {
        assert_eq!(yielded, [&[] as &[u8]]);
    } else {
        assert_eq!(
            framed,
            view.payload().len(),
            "records do not fill the payload"
        );
    }
    let mut rebuilt = if tombstone {
        BatchBuilder::tombstone(view.key(), h.timestamp_ns)
    } else {
        let mut b = BatchBuilder::new(view.key());
        for r in &yielded {
            b.push(r);
        }
        b.finish(h.timestamp_ns)
            .unwrap_or_else(|e| panic!("rebuild failed: {e}"))
    };
    assert!(patch_base_offset(&mut rebuilt, h.base_offset));
    if crc_ok {
        assert_eq!(
            rebuilt,
            view.as_bytes(),
            "the builder disagrees with the parser"
        );
    } else {
        // Only the CRC field can differ.
        assert_eq!(rebuilt[..CRC_AT], view.as_bytes()[..CRC_AT]);
        assert_eq!(rebuilt[CRC_START..], view.as_bytes()[CRC_START..]);
    }
}

/// Recompute the CRC of every batch the header walk can delimit.
fn fix_crcs(buf: &mut [u8]) {
    let mut pos = 0usize;
    while pos < buf.len() {
        let Ok(h) = RecordHeader::decode(&buf[pos..]) else {
            return;
        };
        let Some(end) = usize::try_from(h.batch_len())
            .ok()
            .and_then(|n| pos.checked_add(n))
            .filter(|&end| end <= buf.len())
        else {
            return;
        };
        let crc = crc32c::crc32c(&buf[pos + CRC_START..end]);
        buf[pos + CRC_AT..pos + CRC_START].copy_from_slice(&crc.to_be_bytes());
        pos = end;
    }
}
