//! Records that must not open, each reported per record with its topic,
//! partition and offset while the consumer goes on: bytes changed on the
//! broker's disk (with the batch CRC fixed up, as a malicious broker would,
//! and without), crafted envelopes produced raw, replays, untrusted senders,
//! legacy records with and without opt-in.

mod sealed_support;

use std::os::unix::fs::FileExt as _;

use hermit_client::crypto::envelope::DIRECT_PREFIX_LEN;
use hermit_client::crypto::{ChatCrypto, OpenError, OpenedMode, Sealer};
use hermit_client::{ClientError, Consumer, RecordErrorKind, SealedRecordError};
use hermit_protocol::BatchView;
use hermit_protocol::record::{CRC_AT, HEADER_LEN, RECORD_LEN_PREFIX, compute_crc};
use sealed_support::*;

fn assert_at(e: &SealedRecordError, topic: &str, partition: u32, offset: u64) {
    assert_eq!(
        (&*e.topic, e.partition, e.offset),
        (topic, partition, offset),
        "{e:#}"
    );
}

/// Flips one ciphertext byte of the single-record batch holding `offset` in
/// `path`, in place, and recomputes the batch CRC if `fix_crc`.
fn tamper(path: &std::path::Path, offset: u64, fix_crc: bool) {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("open segment");
    let bytes = std::fs::read(path).expect("read segment");
    let mut pos = 0;
    loop {
        let (view, len) = BatchView::parse(&bytes[pos..]).expect("a batch");
        if view.header.base_offset == offset {
            assert_eq!(view.header.record_count, 1);
            let mut batch = bytes[pos..pos + len].to_vec();
            let at = HEADER_LEN + view.key().len() + RECORD_LEN_PREFIX + DIRECT_PREFIX_LEN + 3;
            batch[at] ^= 0x20;
            if fix_crc {
                let crc = compute_crc(&batch).expect("whole batch");
                batch[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_be_bytes());
            }
            file.write_all_at(&batch, pos as u64).expect("write back");
            file.sync_all().expect("sync");
            return;
        }
        pos += len;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_changed_on_disk_is_reported_and_reading_goes_on() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "tamper";
    let mut seqs = Vec::new();
    for text in ["first", "second, to be changed", "third"] {
        let d = alice
            .sp
            .send(topic, None, text.as_bytes(), &[bob.public()])
            .await
            .expect("queued");
        seqs.push(d.seq());
        assert_eq!(d.await.expect("delivered").offset, seqs.len() as u64 - 1);
    }
    // The broker rewrites the record and its batch CRC: the transport sees a
    // valid batch, only the seal can tell.
    tamper(&env.segment(topic, 0), 1, true);

    let mut c = env.reader(&bob, &[&alice], topic).await;
    assert_eq!(opened(&mut c).await.plaintext.as_bytes(), b"first");
    let e = failed(&mut c).await;
    assert_at(&e, topic, 0, 1);
    assert_eq!(e.kind, RecordErrorKind::Open(OpenError::DirectAuthFailed));
    assert!(e.holds_commit());
    let third = opened(&mut c).await;
    assert_eq!(
        (third.offset, third.plaintext.as_bytes()),
        (2, &b"third"[..])
    );
    // The forged record never moved the window: its number shows as missing.
    let gap = third.gap.expect("the refused record is a gap");
    assert_eq!((gap.first, gap.last), (seqs[1], seqs[1]));
    assert_eq!(c.held(), vec![(0, vec![1])]);
}

/// The borrowed path (`try_next_ref`) refuses, holds and reports exactly
/// as the owned one: the same tampered record, read through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_changed_on_disk_is_refused_on_the_borrowed_path_too() {
    let env = Env::start().await;
    let (alice, bob, carol) = (env.party(), env.party(), env.party());
    let topic = "tamper.ref";
    let mut seqs = Vec::new();
    for (text, to) in [
        ("first", &bob),
        ("second, to be changed", &bob),
        ("for carol", &carol),
        ("third", &bob),
    ] {
        let d = alice
            .sp
            .send(topic, None, text.as_bytes(), &[to.public()])
            .await
            .expect("queued");
        seqs.push(d.seq());
        d.await.expect("delivered");
    }
    tamper(&env.segment(topic, 0), 1, true);

    let mut c = env.reader(&bob, &[&alice], topic).await;
    // The first record comes through `next` (it waits for the fetch); the
    // others of that fetch are borrowed.
    assert_eq!(opened(&mut c).await.plaintext.as_bytes(), b"first");
    let e = c.try_next_ref().expect("fetched").expect("transport");
    let e = e.expect_err("the changed record must not open");
    assert_at(&e, topic, 0, 1);
    assert_eq!(e.kind, RecordErrorKind::Open(OpenError::DirectAuthFailed));
    let e = c.try_next_ref().expect("fetched").expect("transport");
    let e = e.expect_err("carol's record is not for bob");
    assert!(matches!(e.kind, RecordErrorKind::NotForMe { .. }), "{e}");
    let third = c.try_next_ref().expect("fetched").expect("transport");
    let third = third.expect("the third opens");
    assert_eq!(
        (third.topic, third.offset, third.plaintext, third.sender),
        (topic, 3, &b"third"[..], *alice.id.fingerprint())
    );
    assert!(format!("{third:?}").contains("<5 bytes redacted>"));
    let gap = third
        .gap
        .expect("the refused and carol's records are a gap");
    assert_eq!((gap.first, gap.last), (seqs[1], seqs[2]));
    assert!(c.try_next_ref().is_none(), "nothing more was fetched");
    assert_eq!(c.held(), vec![(0, vec![1])]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_changed_on_disk_without_its_crc_stops_the_partition_until_seek() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "tamper.crc";
    for text in ["first", "second, to be changed", "third"] {
        alice
            .sp
            .send(topic, None, text.as_bytes(), &[bob.public()])
            .await
            .expect("queued")
            .await
            .expect("delivered");
    }
    tamper(&env.segment(topic, 0), 1, false);

    let mut c = env.reader(&bob, &[&alice], topic).await;
    assert_eq!(opened(&mut c).await.offset, 0);
    // The broker serves the bytes it has; the consumer's CRC check refuses the
    // batch, as a transport error naming it, and stays there.
    for _ in 0..2 {
        let err = tokio::time::timeout(std::time::Duration::from_secs(20), c.next())
            .await
            .expect("an answer")
            .expect_err("corrupt batch");
        match err {
            ClientError::CorruptBatch {
                topic: t,
                partition,
                base_offset,
                ..
            } => assert_eq!((t.as_str(), partition, base_offset), (topic, 0, 1)),
            other => panic!("expected CorruptBatch, got {other:#}"),
        }
    }
    // The application decides to move past it.
    c.seek(0, 2).expect("seek");
    let third = opened(&mut c).await;
    assert_eq!(
        (third.offset, third.plaintext.as_bytes()),
        (2, &b"third"[..])
    );
    assert!(third.gap.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crafted_envelopes_with_valid_batches_fail_one_by_one() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "crafted";
    // A genuine record from Alice to Bob, to mutate.
    let mut sealer = Sealer::new(alice.id.clone()).expect("rng");
    let genuine = sealer
        .seal_direct(topic, bob.id.public_key(), b"genuine")
        .expect("seal");
    let mut flipped = genuine.clone();
    flipped[DIRECT_PREFIX_LEN + 2] ^= 1;
    let mut reserved = genuine.clone();
    reserved[3] = 7;
    let cases: Vec<(Vec<u8>, OpenError)> = vec![
        (
            b"\x02 not a record".to_vec(),
            OpenError::UnsupportedVersion { found: 2 },
        ),
        (
            genuine[..30].to_vec(),
            OpenError::Truncated { need: 0, have: 0 },
        ),
        (Vec::new(), OpenError::Truncated { need: 0, have: 0 }),
        (reserved, OpenError::ReservedByte { found: 7 }),
        (flipped, OpenError::DirectAuthFailed),
        // The same record moved to another topic.
        (
            sealer
                .seal_direct("elsewhere", bob.id.public_key(), b"moved")
                .expect("seal"),
            OpenError::DirectAuthFailed,
        ),
    ];
    let mut offsets = Vec::new();
    for (value, _) in &cases {
        offsets.push(env.produce_raw(topic, 0, b"", value).await);
    }
    let last = alice
        .sp
        .send(topic, None, b"still fine", &[bob.public()])
        .await
        .expect("queued")
        .await
        .expect("delivered");

    let mut c = env.reader(&bob, &[&alice], topic).await;
    for ((_, want), offset) in cases.iter().zip(&offsets) {
        let e = failed(&mut c).await;
        assert_at(&e, topic, 0, *offset);
        let got = e.open_error().expect("an opening error");
        match want {
            // Where the parser notices is its business; that it says so is ours.
            OpenError::Truncated { .. } => {
                assert!(matches!(got, OpenError::Truncated { .. }), "{got:?}")
            }
            _ => assert_eq!(got, want, "offset {offset}"),
        }
    }
    let r = opened(&mut c).await;
    assert_eq!(
        (r.offset, r.plaintext.as_bytes()),
        (last.offset, &b"still fine"[..])
    );
    assert_eq!(
        c.held(),
        vec![(0, offsets.clone())],
        "every failure holds until acknowledged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_untrusted_senders_and_legacy_records() {
    let env = Env::start().await;
    let (alice, bob, mallory) = (env.party(), env.party(), env.party());
    let topic = "chat.hostile";

    // 0: a genuine record.
    let first = alice
        .sp
        .send(topic, Some(b"k"), b"hello Bob", &[bob.public()])
        .await
        .expect("queued");
    let seq = first.seq();
    first.await.expect("delivered");
    // 1: the same envelope produced again, key and all (read back raw).
    let mut raw = Consumer::new(&env.client, topic, from_start())
        .await
        .expect("raw consumer");
    let stored = raw.next().await.expect("stored record");
    assert_eq!(
        env.produce_raw(topic, 0, &stored.key, &stored.value).await,
        1
    );
    // 2: Mallory, whom Bob does not trust.
    mallory
        .sp
        .send(topic, None, b"trust me", &[bob.public()])
        .await
        .expect("queued")
        .await
        .expect("delivered");
    // 3: a legacy ChatCrypto record from Alice.
    let legacy = ChatCrypto::new(&alice.id, bob.id.public_key())
        .expect("pair")
        .encrypt(b"from the browser")
        .expect("within budget")
        .to_json();
    assert_eq!(env.produce_raw(topic, 0, b"", legacy.as_bytes()).await, 3);
    // 4: genuine again.
    alice
        .sp
        .send(topic, Some(b"k"), b"still here", &[bob.public()])
        .await
        .expect("queued")
        .await
        .expect("delivered");

    let mut c = env.reader(&bob, &[&alice], topic).await;
    assert_eq!(opened(&mut c).await.seq, Some(seq));
    let e = failed(&mut c).await;
    assert_at(&e, topic, 0, 1);
    assert_eq!(
        e.open_error(),
        Some(&OpenError::Replayed { seq, highest: seq })
    );
    let e = failed(&mut c).await;
    assert_at(&e, topic, 0, 2);
    assert_eq!(
        e.open_error(),
        Some(&OpenError::UnknownSender {
            kid: mallory.id.kid()
        })
    );
    let e = failed(&mut c).await;
    assert_at(&e, topic, 0, 3);
    assert_eq!(e.open_error(), Some(&OpenError::LegacyRefused));
    let r = opened(&mut c).await;
    assert_eq!((r.offset, r.plaintext.as_bytes()), (4, &b"still here"[..]));

    // With the opt-in, the legacy record opens (no seq, no replay check).
    let mut c = env.reader(&bob, &[&alice], topic).await;
    c.allow_legacy(true);
    for _ in 0..3 {
        next(&mut c).await.ok();
    }
    let r = opened(&mut c).await;
    assert_eq!(r.offset, 3);
    assert_eq!(r.mode, OpenedMode::Legacy);
    assert_eq!(r.seq, None);
    assert_eq!(r.sender, *alice.id.fingerprint());
    assert_eq!(r.plaintext.as_bytes(), b"from the browser");
    assert_eq!(opened(&mut c).await.offset, 4);

    // Once Mallory is trusted, her record opens.
    let mut c = env.reader(&bob, &[&alice, &mallory], topic).await;
    for _ in 0..2 {
        next(&mut c).await.ok();
    }
    let r = opened(&mut c).await;
    assert_eq!((r.offset, r.sender), (2, *mallory.id.fingerprint()));
}
