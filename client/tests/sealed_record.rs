//! Sealed record v1: round trips and one test per way a record must fail to open.

mod common;

use common::{MultiSpec, id};
use hermit_client::crypto::envelope::{self, Body, Flags, Header, Mode, RecordView};
use hermit_client::crypto::seal::DIRECT_LIMIT;
use hermit_client::crypto::{
    ChatCrypto, CompatError, Gap, Identity, OpenError, Opened, OpenedMode, Opener, PublicKey,
    SealError, Sealer, SigningIdentity, TrustError,
};

const TOPIC: &str = "orders.eu";
const MSG: &[u8] = b"twenty-seven bytes of text!";

struct Party {
    id: Identity,
    sealer: Sealer,
}

/// A sender whose records are unpadded: these tests pin the byte layout
/// (padding is on by default and tested where it is asked for).
fn party() -> Party {
    let id = id();
    let mut sealer = Sealer::new(id.clone()).expect("rng");
    sealer.set_padding(false);
    Party { sealer, id }
}

fn opener_trusting(me: &Identity, senders: &[&Identity]) -> Opener {
    let mut o = Opener::new(me.clone());
    for s in senders {
        o.trust(s.public_key()).expect("trust");
    }
    o
}

fn open_err(o: &mut Opener, topic: &str, record: &[u8]) -> OpenError {
    let mut out = b"keep".to_vec();
    let err = o
        .open_into(topic, record, &mut out)
        .expect_err("must not open");
    assert_eq!(out, b"keep", "a failed open leaves the buffer as it was");
    err
}

#[test]
fn direct_round_trips_all_sizes_into_vec_and_bytesmut() {
    let mut alice = party();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id]);
    let big = vec![0xa5; 64 * 1024];
    for pt in [&b""[..], MSG, "\u{feff}BOM ünïcødé ✓".as_bytes(), &big] {
        let mut buf = bytes::BytesMut::from(&b"prefix"[..]);
        let sealed = alice
            .sealer
            .seal_direct_into(TOPIC, bob.public_key(), pt, &mut buf)
            .expect("seal");
        assert_eq!(sealed.mode, Mode::Direct);
        assert_eq!(sealed.len, pt.len() + envelope::DIRECT_OVERHEAD);
        assert_eq!(&buf[..6], b"prefix");
        let mut out = b"x".to_vec();
        let opened = o.open_into(TOPIC, &buf[6..], &mut out).expect("open");
        assert_eq!(&out[1..], pt);
        assert_eq!(opened.len, pt.len());
        assert_eq!(opened.sender, *alice.id.fingerprint());
        assert_eq!(opened.mode, OpenedMode::Direct);
        assert_eq!(opened.seq, Some(sealed.seq));
        assert!(!opened.signed && !opened.padded && !opened.late);
        assert_eq!(opened.gap, None);
    }
}

#[test]
fn multi_round_trips_for_every_recipient_and_nobody_else() {
    let mut alice = party();
    let members: Vec<Identity> = (0..5).map(|_| id()).collect();
    let keys: Vec<PublicKey> = members.iter().map(|m| m.public_key().clone()).collect();
    let record = alice.sealer.seal_multi(TOPIC, &keys, MSG).expect("seal");
    assert_eq!(record.len(), 70 + 5 * 56 + MSG.len() + 16);
    for m in &members {
        let mut o = opener_trusting(m, &[&alice.id]);
        let (opened, pt) = o.open(TOPIC, &record).expect("member opens");
        assert_eq!(pt, MSG);
        assert_eq!(opened.mode, OpenedMode::Multi);
    }
    let outsider = id();
    let mut o = opener_trusting(&outsider, &[&alice.id]);
    assert_eq!(open_err(&mut o, TOPIC, &record), OpenError::NotARecipient);
}

#[test]
fn sequence_numbers_increase_per_topic_and_gaps_are_reported() {
    let mut alice = party();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id]);
    let records: Vec<Vec<u8>> = (0..6)
        .map(|_| {
            alice
                .sealer
                .seal_direct(TOPIC, bob.public_key(), MSG)
                .expect("seal")
        })
        .collect();
    let seqs: Vec<u64> = records
        .iter()
        .map(|r| Header::parse(r).expect("header").seq)
        .collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    // Another topic has its own sequence, also starting at unix_ms << 16.
    let other = alice
        .sealer
        .seal_direct("other", bob.public_key(), MSG)
        .expect("seal");
    assert!(Header::parse(&other).expect("header").seq >> 16 > 1_600_000_000_000);

    o.open(TOPIC, &records[0]).expect("first");
    // Records 1 and 2 are withheld: opening 3 reports them.
    let (opened, _) = o.open(TOPIC, &records[3]).expect("after a gap");
    assert_eq!(
        opened.gap,
        Some(Gap {
            first: seqs[1],
            last: seqs[2]
        })
    );
    // 2 arrives late: accepted once, flagged late.
    let (opened, _) = o.open(TOPIC, &records[2]).expect("late");
    assert!(opened.late);
    assert_eq!(o.high_water(TOPIC, alice.id.fingerprint()), Some(seqs[3]));
}

/// Every (topic, sender) pair has its own window, however records from
/// several senders and topics interleave: equal sequence numbers from two
/// senders both open, and each sender's replay is refused on its own
/// topic only (the opener remembers the last stream it used; this is what
/// that memo must never mix up).
#[test]
fn interleaved_senders_and_topics_keep_their_own_windows() {
    let (mut alice, mut carol) = (party(), party());
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id, &carol.id]);
    let other = "orders.us";
    // Above any clock-based start, so both senders count from the same place.
    const BASE: u64 = 1 << 62;
    for p in [&mut alice, &mut carol] {
        p.sealer.resume_topic(TOPIC, BASE).expect("resume");
        p.sealer.resume_topic(other, BASE).expect("resume");
    }
    let seal = |p: &mut Party, topic: &str| {
        p.sealer
            .seal_direct(topic, bob.public_key(), MSG)
            .expect("seal")
    };
    let a1 = seal(&mut alice, TOPIC);
    let c1 = seal(&mut carol, TOPIC);
    let a2 = seal(&mut alice, other);
    let c2 = seal(&mut carol, other);
    for (topic, r) in [(TOPIC, &a1), (TOPIC, &c1), (other, &a2), (other, &c2)] {
        let (opened, _) = o.open(topic, r).expect("a new stream's first record");
        assert_eq!(opened.seq, Some(BASE + 1), "the same seq from every stream");
    }
    for (topic, r) in [(TOPIC, &a1), (other, &c2), (TOPIC, &c1), (other, &a2)] {
        assert_eq!(
            open_err(&mut o, topic, r),
            OpenError::Replayed {
                seq: BASE + 1,
                highest: BASE + 1
            }
        );
    }
    let a3 = seal(&mut alice, TOPIC);
    let c3 = seal(&mut carol, TOPIC);
    assert_eq!(o.open(TOPIC, &a3).expect("next").0.seq, Some(BASE + 2));
    assert_eq!(o.open(TOPIC, &c3).expect("next").0.seq, Some(BASE + 2));
    assert_eq!(o.high_water(TOPIC, alice.id.fingerprint()), Some(BASE + 2));
    assert_eq!(o.high_water(other, alice.id.fingerprint()), Some(BASE + 1));
}

/// One sealer writing DIRECT records to peers in turn, on one topic and
/// on two: every record opens for its own recipient only (the sealer
/// remembers the last peer it sealed to; this is what that memo must never
/// mix up), and a forgotten peer's count starts again.
#[test]
fn direct_records_to_peers_in_turn_each_open_for_their_recipient() {
    let mut alice = party();
    let (bob, carol) = (id(), id());
    let mut for_bob = opener_trusting(&bob, &[&alice.id]);
    let mut for_carol = opener_trusting(&carol, &[&alice.id]);
    for topic in [TOPIC, TOPIC, "orders.us", TOPIC] {
        for to_bob in [true, false, true] {
            let (to, other) = if to_bob {
                (&bob, &carol)
            } else {
                (&carol, &bob)
            };
            let opener = if to_bob { &mut for_bob } else { &mut for_carol };
            let record = alice
                .sealer
                .seal_direct(topic, to.public_key(), MSG)
                .expect("seal");
            let (_, plaintext) = opener
                .open(topic, &record)
                .expect("opens for its recipient");
            assert_eq!(plaintext, MSG);
            let mut theirs = opener_trusting(other, &[&alice.id]);
            assert!(matches!(
                open_err(&mut theirs, topic, &record),
                OpenError::NotForMe { .. }
            ));
        }
    }
    assert_eq!(alice.sealer.direct_seals(bob.fingerprint()), 8);
    assert_eq!(alice.sealer.direct_seals(carol.fingerprint()), 4);
    alice.sealer.forget_peer(bob.fingerprint());
    let record = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    for_bob
        .open(TOPIC, &record)
        .expect("opens after the key is derived again");
    assert_eq!(alice.sealer.direct_seals(bob.fingerprint()), 1);
    // Bob, the last peer sealed to, forgotten again: the next record, to
    // Carol, must not use what was remembered of him.
    alice.sealer.forget_peer(bob.fingerprint());
    let record = alice
        .sealer
        .seal_direct(TOPIC, carol.public_key(), MSG)
        .expect("seal");
    for_carol.open(TOPIC, &record).expect("opens for Carol");
}

#[test]
fn replayed_record_is_refused() {
    let mut alice = party();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id]);
    let record = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    let seq = Header::parse(&record).expect("header").seq;
    o.open(TOPIC, &record).expect("first time");
    assert_eq!(
        open_err(&mut o, TOPIC, &record),
        OpenError::Replayed { seq, highest: seq }
    );
    // The same holds for MULTI.
    let record = alice
        .sealer
        .seal_multi(TOPIC, &[bob.public_key().clone()], MSG)
        .expect("seal");
    o.open(TOPIC, &record).expect("first time");
    assert!(matches!(
        open_err(&mut o, TOPIC, &record),
        OpenError::Replayed { .. }
    ));
}

#[test]
fn records_older_than_the_window_are_refused_and_restored_marks_hold() {
    let alice = id();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice]);
    let old = common::direct(&alice, bob.public_key(), TOPIC, 1000, 0, [1; 12], MSG);
    let new = common::direct(
        &alice,
        bob.public_key(),
        TOPIC,
        1000 + 1024,
        0,
        [2; 12],
        MSG,
    );
    o.open(TOPIC, &new).expect("new");
    assert_eq!(
        open_err(&mut o, TOPIC, &old),
        OpenError::TooOld {
            seq: 1000,
            highest: 2024
        }
    );
    // A restarted reader that restores its high-water mark refuses old records.
    let mut restarted = opener_trusting(&bob, &[&alice]);
    restarted
        .restore_high_water(TOPIC, alice.fingerprint(), 2024)
        .expect("short topic");
    assert!(matches!(
        open_err(&mut restarted, TOPIC, &new),
        OpenError::Replayed { .. }
    ));
}

#[test]
fn record_moved_to_another_topic_does_not_open() {
    let mut alice = party();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id]);
    let direct = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    assert_eq!(
        open_err(&mut o, "orders.us", &direct),
        OpenError::DirectAuthFailed
    );
    let multi = alice
        .sealer
        .seal_multi(TOPIC, &[bob.public_key().clone()], MSG)
        .expect("seal");
    assert_eq!(
        open_err(&mut o, "orders.us", &multi),
        OpenError::WrapAuthFailed
    );
    // Both still open on their own topic.
    o.open(TOPIC, &direct).expect("direct");
    o.open(TOPIC, &multi).expect("multi");
}

#[test]
fn changed_seq_does_not_open() {
    let mut alice = party();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id]);
    let mut record = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    let seq = Header::parse(&record).expect("header").seq;
    record[12..20].copy_from_slice(&(seq + 5).to_be_bytes());
    assert_eq!(
        open_err(&mut o, TOPIC, &record),
        OpenError::DirectAuthFailed
    );
    let mut multi = alice
        .sealer
        .seal_multi(TOPIC, &[bob.public_key().clone()], MSG)
        .expect("seal");
    multi[12..20].copy_from_slice(&(seq + 50).to_be_bytes());
    assert_eq!(open_err(&mut o, TOPIC, &multi), OpenError::WrapAuthFailed);
}

#[test]
fn reflected_record_is_refused() {
    let mut alice = party();
    let bob = id();
    // Alice's opener trusts Bob; the broker hands her own record back.
    let mut o = opener_trusting(&alice.id, &[&bob]);
    let direct = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    assert_eq!(open_err(&mut o, TOPIC, &direct), OpenError::Reflected);
    let multi = alice
        .sealer
        .seal_multi(TOPIC, &[bob.public_key().clone()], MSG)
        .expect("seal");
    assert_eq!(open_err(&mut o, TOPIC, &multi), OpenError::Reflected);
    // K_pair is symmetric, so relabelling the sender as Bob must not help either.
    let mut relabelled = direct.clone();
    relabelled[4..12].copy_from_slice(bob.kid().as_bytes());
    relabelled[20..28].copy_from_slice(alice.id.kid().as_bytes());
    assert_eq!(
        open_err(&mut o, TOPIC, &relabelled),
        OpenError::DirectAuthFailed
    );
}

#[test]
fn unknown_sender_and_wrong_recipient() {
    let mut alice = party();
    let bob = id();
    let carol = id();
    let mut bob_trusts_nobody = Opener::new(bob.clone());
    let record = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    assert_eq!(
        open_err(&mut bob_trusts_nobody, TOPIC, &record),
        OpenError::UnknownSender {
            kid: alice.id.kid()
        }
    );
    let mut carol_o = opener_trusting(&carol, &[&alice.id]);
    assert_eq!(
        open_err(&mut carol_o, TOPIC, &record),
        OpenError::NotForMe {
            recipient: bob.kid()
        }
    );
}

#[test]
fn records_for_others_are_not_for_me_whatever_their_seq() {
    let alice = id();
    let bob = id();
    let carol = id();
    let mut carol_o = opener_trusting(&carol, &[&alice]);
    let to_carol = common::direct(&alice, carol.public_key(), TOPIC, 5000, 0, [1; 12], MSG);
    carol_o.open(TOPIC, &to_carol).expect("Carol's own record");
    // Older than Carol's window, but addressed to Bob: that is what she is told.
    let to_bob = common::direct(&alice, bob.public_key(), TOPIC, 10, 0, [2; 12], MSG);
    assert_eq!(
        open_err(&mut carol_o, TOPIC, &to_bob),
        OpenError::NotForMe {
            recipient: bob.kid()
        }
    );
    let multi_to_bob =
        MultiSpec::honest(&alice, TOPIC, 5000, &[bob.public_key().clone()], MSG).build();
    assert_eq!(
        open_err(&mut carol_o, TOPIC, &multi_to_bob),
        OpenError::NotARecipient
    );
}

#[test]
fn stripped_multi_entry_does_not_open() {
    let mut alice = party();
    let bob = id();
    let carol = id();
    let keys = [bob.public_key().clone(), carol.public_key().clone()];
    let record = alice.sealer.seal_multi(TOPIC, &keys, MSG).expect("seal");
    // Strip Carol's entry (the second) and fix up n: Bob must notice.
    let mut stripped = record[..68].to_vec();
    stripped.extend_from_slice(&1u16.to_be_bytes());
    stripped.extend_from_slice(&record[70..70 + 56]);
    stripped.extend_from_slice(&record[70 + 112..]);
    let mut bob_o = opener_trusting(&bob, &[&alice.id]);
    assert_eq!(
        open_err(&mut bob_o, TOPIC, &stripped),
        OpenError::WrapAuthFailed
    );
    // Stripping Bob's own entry leaves him out.
    let mut no_bob = record[..68].to_vec();
    no_bob.extend_from_slice(&1u16.to_be_bytes());
    no_bob.extend_from_slice(&record[70 + 56..]);
    assert_eq!(
        open_err(&mut bob_o, TOPIC, &no_bob),
        OpenError::NotARecipient
    );
    bob_o.open(TOPIC, &record).expect("the original opens");
}

#[test]
fn a_recipient_cannot_forge_a_payload_to_the_others() {
    let mut alice = party();
    let bob = id();
    let carol = id();
    let keys = [bob.public_key().clone(), carol.public_key().clone()];
    let record = alice.sealer.seal_multi(TOPIC, &keys, MSG).expect("seal");
    let n = 2;
    let payload_at = 70 + 56 * n;

    // Bob knows CK: he replaces the payload with his own, correctly encrypted
    // under CK with the right associated data.
    let ck = common::unwrap_ck(&bob, alice.id.public_key(), TOPIC, &record);
    let prefix = &record[..70];
    let rcpt: [u8; 32] = {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        h.update(bob.kid().as_bytes());
        h.update(carol.kid().as_bytes());
        h.finalize().into()
    };
    let ctx = common::ctx_digest(0x02, TOPIC, alice.id.public_key(), None);
    let aad = [prefix, &rcpt, &ctx].concat();
    let forged_payload = common::gcm_seal(&ck, [0; 12], &aad, b"pay mallory 1000 EUR");
    // The forged payload is valid under CK: only the wrap's payload hash stops it.
    assert_eq!(
        common::gcm_open(&ck, [0; 12], &aad, &forged_payload).as_deref(),
        Some(&b"pay mallory 1000 EUR"[..])
    );
    let mut forged = record[..payload_at].to_vec();
    forged.extend_from_slice(&forged_payload);

    let mut carol_o = opener_trusting(&carol, &[&alice.id]);
    assert_eq!(
        open_err(&mut carol_o, TOPIC, &forged),
        OpenError::WrapAuthFailed
    );
    carol_o
        .open(TOPIC, &record)
        .expect("the genuine record still opens");
}

#[test]
fn different_content_keys_for_different_members_are_caught_by_ck_commit() {
    let alice = id();
    let bob = id();
    let carol = id();
    let keys = vec![bob.public_key().clone(), carol.public_key().clone()];
    let mut spec = MultiSpec::honest(&alice, TOPIC, 1, &keys, MSG);
    // A malicious sender wraps a different CK for Carol (the payload and the
    // commitment use Bob's).
    spec.wrap_cks[1] = [8u8; 32];
    let record = spec.build();
    let mut bob_o = opener_trusting(&bob, &[&alice]);
    bob_o
        .open(TOPIC, &record)
        .expect("Bob's CK is the committed one");
    let mut carol_o = opener_trusting(&carol, &[&alice]);
    assert_eq!(
        open_err(&mut carol_o, TOPIC, &record),
        OpenError::CkCommitMismatch
    );
}

#[test]
fn payload_under_a_committed_but_wrong_key_fails_on_its_own_tag() {
    let alice = id();
    let bob = id();
    let keys = vec![bob.public_key().clone()];
    let mut spec = MultiSpec::honest(&alice, TOPIC, 1, &keys, MSG);
    spec.payload_ck = [3u8; 32];
    let mut o = opener_trusting(&bob, &[&alice]);
    assert_eq!(
        open_err(&mut o, TOPIC, &spec.build()),
        OpenError::PayloadAuthFailed
    );
}

#[test]
fn duplicate_own_entry_is_refused() {
    let alice = id();
    let bob = id();
    let keys = vec![bob.public_key().clone(), bob.public_key().clone()];
    let record = MultiSpec::honest(&alice, TOPIC, 1, &keys, MSG).build();
    let mut o = opener_trusting(&bob, &[&alice]);
    assert_eq!(
        open_err(&mut o, TOPIC, &record),
        OpenError::DuplicateEntry { kid: bob.kid() }
    );
}

#[test]
fn the_model_and_the_sdk_agree() {
    // Records built by the independent model open in the SDK (DIRECT and MULTI).
    let alice = id();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice]);
    let d = common::direct(&alice, bob.public_key(), TOPIC, 10, 0, [4; 12], MSG);
    assert_eq!(o.open(TOPIC, &d).expect("model DIRECT").1, MSG);
    let m = MultiSpec::honest(&alice, TOPIC, 11, &[bob.public_key().clone()], MSG).build();
    assert_eq!(o.open(TOPIC, &m).expect("model MULTI").1, MSG);
}

/// The error a single-bit flip at `offset` of an unsigned, unpadded DIRECT record
/// must give a reader that has not seen the record.
fn expected_direct_flip(offset: usize, bit: u8, original: &[u8]) -> OpenError {
    let flipped = original[offset] ^ (1 << bit);
    match offset {
        0 => OpenError::UnsupportedVersion { found: flipped },
        1 => OpenError::UnknownMode { found: flipped },
        2 if bit >= 2 => OpenError::ReservedFlags { flags: flipped },
        // SIGNED set on an 83-byte record: the 64-byte trailer leaves 19 bytes.
        2 if bit == 0 => OpenError::Truncated { need: 20, have: 19 },
        2 => OpenError::DirectAuthFailed,
        3 => OpenError::ReservedByte { found: flipped },
        4..=11 => {
            let mut kid = [0u8; 8];
            kid.copy_from_slice(&original[4..12]);
            kid[offset - 4] = flipped;
            OpenError::UnknownSender {
                kid: hermit_client::crypto::Kid::from_bytes(kid),
            }
        }
        20..=27 => {
            let mut kid = [0u8; 8];
            kid.copy_from_slice(&original[20..28]);
            kid[offset - 20] = flipped;
            OpenError::NotForMe {
                recipient: hermit_client::crypto::Kid::from_bytes(kid),
            }
        }
        // seq, IV, ciphertext, tag.
        _ => OpenError::DirectAuthFailed,
    }
}

#[test]
fn every_bit_flip_of_a_direct_record_fails_with_the_expected_error() {
    let mut alice = party();
    let bob = id();
    let record = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    assert_eq!(record.len(), 83);
    let mut o = opener_trusting(&bob, &[&alice.id]);
    for offset in 0..record.len() {
        for bit in 0..8 {
            let mut bad = record.clone();
            bad[offset] ^= 1 << bit;
            assert_eq!(
                open_err(&mut o, TOPIC, &bad),
                expected_direct_flip(offset, bit, &record),
                "flip of bit {bit} at offset {offset}"
            );
        }
    }
    o.open(TOPIC, &record).expect("the original still opens");
}

#[test]
fn every_bit_flip_of_a_multi_record_is_caught_by_the_recipient_it_concerns() {
    let mut alice = party();
    let members: Vec<Identity> = (0..3).map(|_| id()).collect();
    let keys: Vec<PublicKey> = members.iter().map(|m| m.public_key().clone()).collect();
    let record = alice.sealer.seal_multi(TOPIC, &keys, MSG).expect("seal");
    let n = members.len();
    let mut openers: Vec<Opener> = members
        .iter()
        .map(|m| opener_trusting(m, &[&alice.id]))
        .collect();
    for offset in 0..record.len() {
        for bit in 0..8 {
            let mut bad = record.clone();
            bad[offset] ^= 1 << bit;
            for (i, o) in openers.iter_mut().enumerate() {
                let entry = |j: usize| 70 + 56 * j;
                let in_own_kid = (entry(i)..entry(i) + 8).contains(&offset);
                let in_other_wrap = (0..n)
                    .filter(|&j| j != i)
                    .any(|j| (entry(j) + 8..entry(j) + 56).contains(&offset));
                let ctx = format!("member {i}, bit {bit} at offset {offset}");
                if in_other_wrap {
                    // Another member's wrapped key is not covered by my checks:
                    // that member fails (checked in its own iteration); I open it.
                    // A fresh opener, so the success does not move `o`'s window.
                    let mut fresh = opener_trusting(&members[i], &[&alice.id]);
                    let (_, pt) = fresh.open(TOPIC, &bad).expect(&ctx);
                    assert_eq!(pt, MSG, "{ctx}");
                    continue;
                }
                let err = o.open(TOPIC, &bad).expect_err(&ctx);
                let ok = match offset {
                    0 => matches!(err, OpenError::UnsupportedVersion { .. }),
                    1 => matches!(err, OpenError::UnknownMode { .. }),
                    2 if bit >= 2 => matches!(err, OpenError::ReservedFlags { .. }),
                    // SIGNED: the last 64 bytes become a "signature" and the
                    // entries no longer fit. PADDED: part of every AAD.
                    2 if bit == 0 => matches!(err, OpenError::Truncated { .. }),
                    2 => matches!(err, OpenError::WrapAuthFailed),
                    3 => matches!(err, OpenError::ReservedByte { .. }),
                    4..=11 => matches!(err, OpenError::UnknownSender { .. }),
                    68 | 69 => matches!(
                        err,
                        OpenError::Truncated { .. }
                            | OpenError::TooManyRecipients { .. }
                            | OpenError::NotARecipient
                            | OpenError::WrapAuthFailed
                    ),
                    _ if in_own_kid => err == OpenError::NotARecipient,
                    // seq, msg_salt, ck_commit, other kids, own wrap, payload.
                    _ => err == OpenError::WrapAuthFailed,
                };
                assert!(ok, "{ctx}: unexpected {err:?}");
            }
        }
    }
    for o in &mut openers {
        o.open(TOPIC, &record)
            .expect("the original opens for everyone");
    }
}

#[test]
fn padded_records_hide_exact_sizes_and_strip_cleanly() {
    let mut alice = party();
    alice.sealer.set_padding(true);
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id]);
    for len in [0usize, 1, 27, 100, 1000, 1025, 65_536] {
        let pt = vec![0x42u8; len];
        let record = alice
            .sealer
            .seal_direct(TOPIC, bob.public_key(), &pt)
            .expect("seal");
        let body = record.len() - envelope::DIRECT_OVERHEAD;
        assert_eq!(Some(body), envelope::padded_len(len));
        let (opened, out) = o.open(TOPIC, &record).expect("open");
        assert!(opened.padded);
        assert_eq!(out, pt);
        let multi = alice
            .sealer
            .seal_multi(TOPIC, &[bob.public_key().clone()], &pt)
            .expect("seal");
        assert_eq!(o.open(TOPIC, &multi).expect("open").1, pt);
    }
    // 100 and 101 bytes of plaintext land in the same bucket.
    let a = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), &[1; 100])
        .expect("seal");
    let b = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), &[1; 101])
        .expect("seal");
    assert_eq!(a.len(), b.len());
}

#[test]
fn malformed_padding_is_refused() {
    let alice = id();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice]);
    let no_marker = common::direct(
        &alice,
        bob.public_key(),
        TOPIC,
        1,
        Flags::PADDED,
        [0; 12],
        b"abc\0\0",
    );
    assert_eq!(open_err(&mut o, TOPIC, &no_marker), OpenError::BadPadding);
    let all_zero = common::direct(
        &alice,
        bob.public_key(),
        TOPIC,
        2,
        Flags::PADDED,
        [0; 12],
        &[0; 8],
    );
    assert_eq!(open_err(&mut o, TOPIC, &all_zero), OpenError::BadPadding);
    let fine = common::direct(
        &alice,
        bob.public_key(),
        TOPIC,
        3,
        Flags::PADDED,
        [0; 12],
        b"abc\x80\0",
    );
    assert_eq!(o.open(TOPIC, &fine).expect("valid padding").1, b"abc");
}

#[test]
fn signed_records_verify_and_every_signature_failure_has_its_variant() {
    let mut alice = party();
    let signer = SigningIdentity::generate().expect("rng");
    alice
        .sealer
        .set_signing_identity(Some(signer.clone()))
        .expect("separate key");
    let bob = id();
    let carol = id();
    let keys = [bob.public_key().clone(), carol.public_key().clone()];
    let direct = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    let multi = alice.sealer.seal_multi(TOPIC, &keys, MSG).expect("seal");
    assert_eq!(direct.len(), 83 + 64);

    let mut o = Opener::new(bob.clone());
    o.trust_signer(alice.id.public_key(), signer.public_key())
        .expect("trust");
    let (opened, _) = o.open(TOPIC, &direct).expect("signed DIRECT");
    assert!(opened.signed);
    assert!(o.open(TOPIC, &multi).expect("signed MULTI").0.signed);

    // A reader that does not know the signing key cannot check it.
    let mut no_key = opener_trusting(&bob, &[&alice.id]);
    assert_eq!(
        open_err(&mut no_key, TOPIC, &direct),
        OpenError::UnknownSigner {
            kid: alice.id.kid()
        }
    );
    // A broken signature (authenticated ciphertext intact).
    let mut o2 = Opener::new(bob.clone());
    o2.trust_signer(alice.id.public_key(), signer.public_key())
        .expect("trust");
    let mut bad_sig = direct.clone();
    let last = bad_sig.len() - 1;
    bad_sig[last] ^= 1;
    assert_eq!(
        open_err(&mut o2, TOPIC, &bad_sig),
        OpenError::SignatureInvalid
    );
    // In MULTI, another member's wrap is outside my AEAD checks but inside the
    // signature: a signed record is bit-for-bit intact or refused.
    let mut other_wrap = multi.clone();
    other_wrap[70 + 56 + 20] ^= 1;
    assert_eq!(
        open_err(&mut o2, TOPIC, &other_wrap),
        OpenError::SignatureInvalid
    );
    // Signed by someone else's signing key.
    let mut o3 = Opener::new(bob.clone());
    let other_signer = SigningIdentity::generate().expect("rng");
    o3.trust_signer(alice.id.public_key(), other_signer.public_key())
        .expect("trust");
    assert_eq!(
        open_err(&mut o3, TOPIC, &direct),
        OpenError::SignatureInvalid
    );

    // Requiring signatures refuses unsigned records.
    let mut plain = party();
    let mut strict = opener_trusting(&bob, &[&plain.id]);
    strict.require_signatures(true);
    let unsigned = plain
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    assert_eq!(open_err(&mut strict, TOPIC, &unsigned), OpenError::Unsigned);

    // The identity key may not double as the signing key.
    let same = SigningIdentity::from_pkcs8_der(&alice.id.to_pkcs8_der()).expect("same key");
    assert_eq!(
        alice.sealer.set_signing_identity(Some(same)),
        Err(SealError::SigningKeyIsIdentityKey)
    );
}

#[test]
fn legacy_records_are_refused_without_opt_in() {
    let alice = id();
    let bob = id();
    let mut chat = ChatCrypto::new(&alice, bob.public_key()).expect("rng");
    let legacy = chat.encrypt(MSG).expect("within budget").to_json();
    let mut o = opener_trusting(&bob, &[&alice]);
    assert_eq!(
        open_err(&mut o, TOPIC, legacy.as_bytes()),
        OpenError::LegacyRefused
    );

    o.allow_legacy(true);
    let (opened, pt) = o.open(TOPIC, legacy.as_bytes()).expect("opted in");
    assert_eq!(pt, MSG);
    assert_eq!(opened.mode, OpenedMode::Legacy);
    assert_eq!(opened.seq, None);
    assert_eq!(opened.sender, *alice.fingerprint());

    // Opted in, the compat format's length rules still apply, with their variants.
    let iv16 = r#"{"iv":"AAAAAAAAAAAAAAAAAAAAAA==","data":"AAAAAAAAAAAAAAAAAAAAAA=="}"#;
    assert_eq!(
        open_err(&mut o, TOPIC, iv16.as_bytes()),
        OpenError::LegacyMalformed(CompatError::IvLength { len: 16 })
    );
    let short_tag = r#"{"iv":"AAAAAAAAAAAAAAAA","data":"AAAAAAAAAAAAAAAAAAAA"}"#;
    assert_eq!(
        open_err(&mut o, TOPIC, short_tag.as_bytes()),
        OpenError::LegacyMalformed(CompatError::TruncatedTag { len: 15 })
    );
    let mut other = ChatCrypto::new(&id(), bob.public_key()).expect("rng");
    let stranger = other.encrypt(MSG).expect("within budget").to_json();
    assert_eq!(
        open_err(&mut o, TOPIC, stranger.as_bytes()),
        OpenError::LegacyAuthFailed
    );
}

#[test]
fn structural_errors_have_their_own_variants() {
    let mut alice = party();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id]);
    assert_eq!(
        open_err(&mut o, TOPIC, &[]),
        OpenError::Truncated { need: 1, have: 0 }
    );
    let record = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    assert_eq!(
        open_err(&mut o, TOPIC, &record[..40 + 15]),
        OpenError::Truncated { need: 16, have: 15 }
    );
    let multi = alice
        .sealer
        .seal_multi(TOPIC, &[bob.public_key().clone()], MSG)
        .expect("seal");
    let mut zero_n = multi.clone();
    zero_n[68..70].copy_from_slice(&0u16.to_be_bytes());
    assert_eq!(open_err(&mut o, TOPIC, &zero_n), OpenError::NoRecipients);
    let mut huge_n = multi.clone();
    huge_n[68..70].copy_from_slice(&4097u16.to_be_bytes());
    assert_eq!(
        open_err(&mut o, TOPIC, &huge_n),
        OpenError::TooManyRecipients { n: 4097 }
    );
    let long_topic = "t".repeat(70_000);
    assert_eq!(
        open_err(&mut o, &long_topic, &record),
        OpenError::TopicTooLong { len: 70_000 }
    );
}

#[test]
fn sealer_refuses_bad_recipient_lists_without_writing() {
    let mut alice = party();
    let bob = id();
    let mut out = b"keep".to_vec();
    let own = alice.id.public_key().clone();
    let cases: Vec<(Vec<PublicKey>, SealError)> = vec![
        (vec![], SealError::NoRecipients),
        (vec![own.clone()], SealError::SelfRecipient),
        (
            vec![bob.public_key().clone(), bob.public_key().clone()],
            SealError::DuplicateRecipient { kid: bob.kid() },
        ),
        (
            vec![bob.public_key().clone(); 4097],
            SealError::TooManyRecipients { n: 4097 },
        ),
    ];
    for (recipients, want) in cases {
        assert_eq!(
            alice
                .sealer
                .seal_multi_into(TOPIC, &recipients, MSG, &mut out),
            Err(want)
        );
    }
    assert_eq!(
        alice.sealer.seal_direct_into(TOPIC, &own, MSG, &mut out),
        Err(SealError::SelfRecipient)
    );
    assert_eq!(
        alice
            .sealer
            .seal_direct_into(&"t".repeat(70_000), bob.public_key(), MSG, &mut out),
        Err(SealError::TopicTooLong { len: 70_000 })
    );
    assert_eq!(out, b"keep");
}

#[test]
fn trust_refuses_own_key() {
    let bob = id();
    let mut o = Opener::new(bob.clone());
    assert_eq!(o.trust(bob.public_key()), Err(TrustError::OwnKey));
    let alice = id();
    o.trust(alice.public_key()).expect("trust");
    o.trust(alice.public_key()).expect("trusting twice is fine");
    assert!(o.distrust(alice.fingerprint()));
    assert!(!o.distrust(alice.fingerprint()));
}

#[test]
fn past_the_direct_limit_the_sealer_switches_to_multi() {
    let mut alice = party();
    let bob = id();
    let mut o = opener_trusting(&bob, &[&alice.id]);
    alice
        .sealer
        .restore_direct_seals(bob.public_key(), DIRECT_LIMIT - 1);
    let last_direct = alice
        .sealer
        .seal_direct(TOPIC, bob.public_key(), MSG)
        .expect("seal");
    assert_eq!(
        Header::parse(&last_direct).expect("header").mode,
        Mode::Direct
    );
    assert_eq!(alice.sealer.direct_seals(bob.fingerprint()), DIRECT_LIMIT);
    let mut out = Vec::new();
    let sealed = alice
        .sealer
        .seal_direct_into(TOPIC, bob.public_key(), MSG, &mut out)
        .expect("seal");
    assert_eq!(sealed.mode, Mode::Multi);
    let view = RecordView::parse(&out).expect("structure");
    assert_eq!(view.header.mode, Mode::Multi);
    assert!(matches!(view.body, Body::Multi { .. }));
    assert_eq!(view.body.entries().len(), 1);
    o.open(TOPIC, &last_direct).expect("direct");
    let (opened, pt): (Opened, Vec<u8>) = o.open(TOPIC, &out).expect("multi");
    assert_eq!(opened.mode, OpenedMode::Multi);
    assert_eq!(pt, MSG);
}

#[test]
fn sequence_resumes_above_a_persisted_value() {
    let mut alice = party();
    let bob = id();
    let far = u64::MAX / 2;
    alice.sealer.resume_topic(TOPIC, far).expect("short topic");
    let sealed = alice
        .sealer
        .seal_direct_into(TOPIC, bob.public_key(), MSG, &mut Vec::new())
        .expect("seal");
    assert_eq!(sealed.seq, far + 1);
    assert_eq!(alice.sealer.next_seq(TOPIC), Some(far + 2));
}
