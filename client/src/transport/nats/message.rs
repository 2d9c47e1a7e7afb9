//! One record batch ↔ one NATS message.
//!
//! The message body is the batch payload exactly as the producer wrote it —
//! `record_count × (u32 length, record bytes)`, each record a sealed
//! envelope — and the 33-byte batch header travels as headers: record
//! count, key (base64url; for a sealed topic the blinded key), producer
//! timestamp and the producer's CRC-32C. The base offset is not sent: the
//! stream sequence gives it. A consumer rebuilds the exact batch the broker
//! would have served and checks the producer's CRC over it, so corruption
//! anywhere between the producer and the consumer is caught as with the
//! broker.

use bytes::{BufMut, Bytes, BytesMut};
use hermit_protocol::WireError;
use hermit_protocol::record::{BatchView, HEADER_LEN, RecordHeader};

use super::names::{H_COUNT, H_CRC, H_KEY, H_TIMESTAMP, decode_b64, encode_b64};
use crate::error::ClientError;
use crate::transport::nats_offset::MAX_RECORDS_PER_BATCH;

/// A batch taken apart for publishing: headers as (name, value) pairs and
/// the payload as a slice of the batch (no copy).
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub headers: [(&'static str, String); 4],
    pub key: Bytes,
    pub payload: Bytes,
    pub count: u32,
}

/// Split one whole batch (header, key, payload) into headers and payload.
pub(crate) fn outgoing(batch: &Bytes) -> Result<Outgoing, ClientError> {
    let (view, len) = BatchView::parse(batch)?;
    if len != batch.len() {
        return Err(ClientError::InvalidArgument(format!(
            "a produce carries exactly one record batch; got {} bytes after it",
            batch.len() - len
        )));
    }
    let h = view.header;
    if h.record_count > MAX_RECORDS_PER_BATCH {
        return Err(ClientError::InvalidArgument(format!(
            "a batch of {} records: the NATS transport carries at most {MAX_RECORDS_PER_BATCH} per batch",
            h.record_count
        )));
    }
    let key_at = HEADER_LEN;
    let payload_at = key_at + h.key_len as usize;
    Ok(Outgoing {
        headers: [
            (H_COUNT, h.record_count.to_string()),
            (H_KEY, encode_b64(&batch[key_at..payload_at])),
            (H_TIMESTAMP, h.timestamp_ns.to_string()),
            (H_CRC, h.crc.to_string()),
        ],
        key: batch.slice(key_at..payload_at),
        payload: batch.slice(payload_at..len),
        count: h.record_count,
    })
}

/// The batch header fields read back from a message's headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Meta {
    pub count: u32,
    pub key: Vec<u8>,
    pub timestamp_ns: u64,
    pub crc: u32,
}

/// Read the batch fields from header values (`get` looks one up by name).
/// `None` when the message was not written by a HermitMQ producer.
pub(crate) fn meta<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Option<Meta> {
    let count: u32 = get(H_COUNT)?.parse().ok()?;
    if count == 0 || count > MAX_RECORDS_PER_BATCH {
        return None;
    }
    Some(Meta {
        count,
        key: match get(H_KEY) {
            Some(k) => decode_b64(k)?,
            None => Vec::new(),
        },
        timestamp_ns: get(H_TIMESTAMP)?.parse().ok()?,
        crc: get(H_CRC)?.parse().ok()?,
    })
}

/// Append the batch the broker would have stored for this message at
/// `base_offset`. A message without valid HermitMQ headers becomes a
/// one-record batch whose CRC cannot match: the consumer reports it as a
/// corrupt batch at its offset and never skips it.
pub(crate) fn append_batch(
    out: &mut BytesMut,
    base_offset: u64,
    meta: Option<&Meta>,
    payload: &[u8],
) -> Result<(), ClientError> {
    let payload_len = u32::try_from(payload.len()).map_err(|_| {
        ClientError::Protocol(WireError::InvalidField {
            field: "payload_len",
            value: payload.len() as u64,
        })
    })?;
    let (count, key, timestamp_ns, crc) = match meta {
        Some(m) => (m.count, &m.key[..], m.timestamp_ns, Some(m.crc)),
        None => (1, &[][..], 0, None),
    };
    let start = out.len();
    let mut header = RecordHeader {
        base_offset,
        crc: crc.unwrap_or(0),
        timestamp_ns,
        key_len: key.len() as u32,
        payload_len,
        record_count: count,
    };
    out.reserve(HEADER_LEN + key.len() + payload.len());
    out.put_slice(&header.encode());
    out.put_slice(key);
    out.put_slice(payload);
    if crc.is_none() {
        let real =
            hermit_protocol::record::compute_crc(&out[start..]).expect("invariant: a whole header");
        header.crc = real ^ 1;
        out[start..start + HEADER_LEN].copy_from_slice(&header.encode());
    }
    Ok(())
}

/// The payload of a committed-offset message.
pub(crate) fn encode_offset(offset: u64) -> Bytes {
    Bytes::copy_from_slice(&offset.to_be_bytes())
}

/// Inverse of [`encode_offset`].
pub(crate) fn decode_offset(payload: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(payload.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::FetchResponse;
    use hermit_protocol::BatchBuilder;
    use proptest::prelude::*;
    use std::collections::HashMap;
    use std::sync::Arc;

    fn round_trip(key: &[u8], records: &[Vec<u8>], base: u64) -> FetchResponse {
        let mut b = BatchBuilder::new(key);
        for r in records {
            b.push(r);
        }
        let batch = Bytes::from(b.finish(42).unwrap());
        let out = outgoing(&batch).unwrap();
        let headers: HashMap<&str, String> = out.headers.iter().cloned().collect();
        let m = meta(|n| headers.get(n).map(String::as_str)).unwrap();
        let mut buf = BytesMut::new();
        append_batch(&mut buf, base, Some(&m), &out.payload).unwrap();
        let mut expected = batch.to_vec();
        hermit_protocol::record::patch_base_offset(&mut expected, base);
        assert_eq!(&buf[..], &expected[..], "the rebuilt batch is the original");
        FetchResponse {
            topic: Arc::from("t"),
            partition: 0,
            high_watermark: 0,
            log_start: 0,
            batches: buf.freeze(),
        }
    }

    proptest! {
        #[test]
        fn a_batch_survives_the_trip_through_headers(
            key in proptest::collection::vec(any::<u8>(), 0..80),
            records in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..50), 1..20),
            seq in 1u64..1 << 40,
        ) {
            let base = crate::transport::nats_offset::NatsOffset::batch_base(seq, records.len() as u32);
            let f = round_trip(&key, &records, base);
            let got: Vec<(u64, Vec<u8>, Vec<u8>)> = f
                .records()
                .map(|r| r.map(|r| (r.offset, r.key.to_vec(), r.value.to_vec())))
                .collect::<Result<_, _>>()
                .unwrap();
            let want: Vec<(u64, Vec<u8>, Vec<u8>)> = records
                .iter()
                .enumerate()
                .map(|(i, r)| (base + i as u64, key.clone(), r.clone()))
                .collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn foreign_or_altered_messages_read_as_corrupt_batches() {
        // Not written by HermitMQ: no headers.
        let mut buf = BytesMut::new();
        append_batch(&mut buf, (2 << 16) - 1, None, b"plain text from elsewhere").unwrap();
        // Written by HermitMQ, one payload byte flipped in the store.
        let mut b = BatchBuilder::new(b"k");
        b.push(b"hello");
        let batch = Bytes::from(b.finish(1).unwrap());
        let out = outgoing(&batch).unwrap();
        let headers: HashMap<&str, String> = out.headers.iter().cloned().collect();
        let m = meta(|n| headers.get(n).map(String::as_str)).unwrap();
        let mut payload = out.payload.to_vec();
        payload[6] ^= 1;
        append_batch(&mut buf, (3 << 16) - 1, Some(&m), &payload).unwrap();
        let f = FetchResponse {
            topic: Arc::from("t"),
            partition: 0,
            high_watermark: 0,
            log_start: 0,
            batches: buf.freeze(),
        };
        assert!(matches!(
            f.records().next(),
            Some(Err(ClientError::CorruptBatch {
                base_offset: 131_071,
                ..
            }))
        ));
        assert!(matches!(
            f.records_from(2 << 16).next(),
            Some(Err(ClientError::CorruptBatch {
                base_offset: 196_607,
                ..
            }))
        ));
        assert_eq!(meta(|_| None), None);
        assert_eq!(decode_offset(&encode_offset(77)), Some(77));
    }

    #[test]
    fn more_than_one_batch_or_too_many_records_is_refused() {
        let mut b = BatchBuilder::new(b"");
        b.push(b"x");
        let one = b.finish(1).unwrap();
        let two = Bytes::from([one.clone(), one].concat());
        assert!(matches!(
            outgoing(&two),
            Err(ClientError::InvalidArgument(_))
        ));
        let mut b = BatchBuilder::new(b"");
        for _ in 0..=MAX_RECORDS_PER_BATCH {
            b.push(b"");
        }
        let big = Bytes::from(b.finish(1).unwrap());
        assert!(matches!(
            outgoing(&big),
            Err(ClientError::InvalidArgument(_))
        ));
    }
}
