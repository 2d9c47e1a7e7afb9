//! Sealed chats over a real in-process broker: Alice → Bob DIRECT, ad hoc
//! MULTI, a three-member group with a shared key secret, padding and
//! signatures, the DIRECT → MULTI switch, and what the broker sees as keys.

mod sealed_support;

use hermit_client::crypto::seal::DIRECT_LIMIT;
use hermit_client::crypto::{
    BlindingKey, Mode, OpenError, OpenedMode, PublicKey, SealError, SigningIdentity,
};
use hermit_client::{RecordErrorKind, SealedError, SealedGroup, SealedProducerOptions};
use sealed_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alice_to_bob_direct_arrives_exactly() {
    let env = Env::start().await;
    let (alice, bob) = (env.party(), env.party());
    let topic = "chat.direct";
    let big: Vec<u8> = (0..64 * 1024).map(|i| (i * 7 % 251) as u8).collect();
    let texts: [&[u8]; 5] = [
        b"",
        "Grüße, Алиса! 你好 🦀 — ça va ?".as_bytes(),
        "\u{feff}starts with a BOM".as_bytes(),
        b"\xff\xfe not UTF-8 at all \xc3",
        &big,
    ];
    let mut sent = Vec::new();
    for t in texts {
        let d = alice
            .sp
            .send(topic, Some(b"alice+bob"), t, &[bob.public()])
            .await
            .expect("queued");
        assert_eq!(d.mode(), Mode::Direct);
        let seq = d.seq();
        sent.push((seq, d.await.expect("delivered")));
    }

    let mut c = env.reader(&bob, &[&alice], topic).await;
    let blinded = BlindingKey::pairwise(&bob.id, &alice.public()).blind(b"alice+bob");
    let mut last_seq = 0;
    for (t, (seq, at)) in texts.iter().zip(&sent) {
        let r = opened(&mut c).await;
        assert_eq!(r.plaintext.as_bytes(), *t);
        if t.starts_with("\u{feff}".as_bytes()) {
            assert!(r.plaintext.to_str().expect("utf-8").starts_with('\u{feff}'));
        }
        assert_eq!(r.sender, *alice.id.fingerprint());
        assert_eq!(r.seq, Some(*seq));
        assert!(*seq > last_seq, "seq strictly increases");
        last_seq = *seq;
        assert_eq!((r.partition, r.offset), (at.partition, at.offset));
        assert_eq!(&*r.topic, topic);
        assert_eq!(r.mode, OpenedMode::Direct);
        assert_eq!(r.gap, None);
        assert!(!r.late && !r.signed);
        assert!(r.padded, "padded by default");
        // The broker saw the blinded key, which Bob can recompute.
        assert_eq!(&r.key[..], &blinded.0[..]);
        // Text comes back exactly: a BOM kept, invalid UTF-8 refused, not mended.
        match std::str::from_utf8(t) {
            Ok(s) => assert_eq!(r.plaintext.to_str(), Ok(s)),
            Err(_) => assert!(r.plaintext.to_str().is_err()),
        }
    }

    // Bob answers under the same logical key: both directions share the key
    // the broker compacts by. Alice sees her own record as an echo.
    bob.sp
        .send(
            topic,
            Some(b"alice+bob"),
            "Привет".as_bytes(),
            &[alice.public()],
        )
        .await
        .expect("queued")
        .await
        .expect("delivered");
    let mut a = env.reader(&alice, &[&bob], topic).await;
    for _ in &texts {
        let e = failed(&mut a).await;
        assert!(
            matches!(e.kind, RecordErrorKind::NotForMe { own: true, mode: Mode::Direct, sender } if sender == alice.id.kid()),
            "{e:?}"
        );
        assert!(!e.holds_commit());
    }
    let reply = opened(&mut a).await;
    assert_eq!(reply.plaintext.to_str(), Ok("Привет"));
    assert_eq!(reply.sender, *bob.id.fingerprint());
    assert_eq!(&reply.key[..], &blinded.0[..]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_recipients_get_one_multi_record_blinded_with_the_senders_key() {
    let env = Env::start().await;
    let (alice, bob, carol, dave) = (env.party(), env.party(), env.party(), env.party());
    let topic = "chat.multi";
    let d = alice
        .sp
        .send(
            topic,
            Some(b"plans"),
            b"lunch at noon",
            &[carol.public(), bob.public()],
        )
        .await
        .expect("queued");
    assert_eq!(d.mode(), Mode::Multi);
    let at = d.await.expect("delivered");

    // The documented derivation: K_pair(alice, alice) over
    // u16(n) || sorted recipient fingerprints || key.
    let mut fps = [*bob.id.fingerprint(), *carol.id.fingerprint()];
    fps.sort();
    let mut input = 2u16.to_be_bytes().to_vec();
    for fp in &fps {
        input.extend_from_slice(fp.as_bytes());
    }
    input.extend_from_slice(b"plans");
    let expected = BlindingKey::pairwise(&alice.id, &alice.public()).blind(&input);

    for who in [&bob, &carol] {
        let mut c = env.reader(who, &[&alice], topic).await;
        let r = opened(&mut c).await;
        assert_eq!(r.plaintext.as_bytes(), b"lunch at noon");
        assert_eq!(r.mode, OpenedMode::Multi);
        assert_eq!(r.offset, at.offset);
        assert_eq!(&r.key[..], &expected.0[..]);
        // Not the pairwise key of either conversation.
        assert_ne!(
            &r.key[..],
            &BlindingKey::pairwise(&who.id, &alice.public())
                .blind(b"plans")
                .0[..]
        );
    }
    let mut d = env.reader(&dave, &[&alice], topic).await;
    let e = failed(&mut d).await;
    assert!(matches!(
        e.kind,
        RecordErrorKind::NotForMe {
            own: false,
            mode: Mode::Multi,
            ..
        }
    ));

    // Refused before anything is queued.
    let err = alice
        .sp
        .send(topic, None, b"x", &[])
        .await
        .expect_err("no one");
    assert!(
        matches!(err, SealedError::Seal(SealError::NoRecipients)),
        "{err:?}"
    );
    let err = alice
        .sp
        .send(topic, None, b"x", &[bob.public(), bob.public()])
        .await
        .expect_err("twice");
    assert!(
        matches!(err, SealedError::Seal(SealError::DuplicateRecipient { .. })),
        "{err:?}"
    );
    let err = alice
        .sp
        .send(topic, None, b"x", &[alice.public()])
        .await
        .expect_err("self");
    assert!(
        matches!(err, SealedError::Seal(SealError::SelfRecipient)),
        "{err:?}"
    );
    let err = alice
        .sp
        .send(topic, None, b"x", &[bob.public(), alice.public()])
        .await
        .expect_err("self among others");
    assert!(
        matches!(err, SealedError::Seal(SealError::SelfRecipient)),
        "{err:?}"
    );
    let alone = SealedGroup::generate(vec![alice.public()]).expect("rng");
    let err = alice
        .sp
        .send_group(topic, &alone, None, b"x")
        .await
        .expect_err("nobody else");
    assert!(
        matches!(err, SealedError::Seal(SealError::NoRecipients)),
        "{err:?}"
    );
    // Nothing was queued, not even an empty batch.
    assert_eq!(env.producer.buffered_bytes(), 0);
    env.producer.flush().await;
    let mut c = env.reader(&bob, &[&alice], topic).await;
    opened(&mut c).await;
    quiet(&mut c, std::time::Duration::from_millis(300)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_member_group_reads_each_other_and_outsiders_see_not_for_me() {
    let env = Env::start().await;
    let (alice, bob, carol) = (env.party(), env.party(), env.party());
    let (dave, erin) = (env.party(), env.party());
    let members: Vec<PublicKey> = vec![alice.public(), bob.public(), carol.public()];

    // Alice creates the group and hands its secret to the others, sealed.
    let alice_group = SealedGroup::generate(members.clone()).expect("rng");
    alice
        .sp
        .send(
            "room.keys",
            None,
            alice_group.key().group_secret_bytes(),
            &[bob.public(), carol.public()],
        )
        .await
        .expect("queued")
        .await
        .expect("delivered");
    let mut groups = vec![alice_group];
    for who in [&bob, &carol] {
        let mut c = env.reader(who, &[&alice], "room.keys").await;
        let r = opened(&mut c).await;
        let secret: [u8; 32] = r.plaintext.as_bytes().try_into().expect("32-byte secret");
        groups.push(SealedGroup::new(
            members.clone(),
            BlindingKey::from_group_secret(secret),
        ));
    }

    let parties = [&alice, &bob, &carol];
    let topic = "room";
    for round in 0..2 {
        for (i, p) in parties.iter().enumerate() {
            let text = format!("round {round} from member {i}");
            let d =
                p.sp.send_group(topic, &groups[i], Some(b"today"), text.as_bytes())
                    .await
                    .expect("queued");
            assert_eq!(d.mode(), Mode::Multi);
            d.await.expect("delivered");
        }
    }

    let key = groups[0].blind(b"today");
    for (i, me) in parties.iter().enumerate() {
        let others: Vec<&Party> = parties
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, p)| *p)
            .collect();
        let mut c = env.reader(me, &others, topic).await;
        let mut got = Vec::new();
        for n in 0..6 {
            let from = n % 3;
            match next(&mut c).await {
                Ok(r) => {
                    assert_ne!(from, i);
                    assert_eq!(r.sender, *parties[from].id.fingerprint());
                    assert_eq!(r.mode, OpenedMode::Multi);
                    assert_eq!(r.gap, None);
                    // One blinded key for the whole group, whoever sent.
                    assert_eq!(&r.key[..], &key.0[..]);
                    got.push(r.plaintext.to_str().expect("utf-8").to_owned());
                }
                Err(e) => {
                    assert_eq!(from, i, "only our own records are not for us: {e:#}");
                    assert!(
                        matches!(e.kind, RecordErrorKind::NotForMe { own: true, .. }),
                        "{e:?}"
                    );
                }
            }
        }
        let want: Vec<String> = (0..6)
            .filter(|n| n % 3 != i)
            .map(|n| format!("round {} from member {}", n / 3, n % 3))
            .collect();
        assert_eq!(got, want, "member {i}");
    }

    // Dave trusts everyone, Erin no one: both get the explicit variant for
    // every record, never a plaintext and never silence.
    let mut d = env.reader(&dave, &[&alice, &bob, &carol], topic).await;
    let mut e = env.reader(&erin, &[], topic).await;
    for n in 0..6 {
        for c in [&mut d, &mut e] {
            let err = failed(c).await;
            assert_eq!(err.offset, n as u64);
            match err.kind {
                RecordErrorKind::NotForMe { sender, own, mode } => {
                    assert_eq!(sender, parties[n % 3].id.kid());
                    assert!(!own);
                    assert_eq!(mode, Mode::Multi);
                }
                other => panic!("expected NotForMe, got {other:?}"),
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn padded_signed_records_and_the_direct_limit() {
    let env = Env::start().await;
    let signing = SigningIdentity::generate().expect("rng");
    let alice = env.party_with(SealedProducerOptions {
        padding: true,
        signing: Some(signing.clone()),
        ..SealedProducerOptions::default()
    });
    let bob = env.party();
    let topic = "chat.signed";
    let text = b"one hundred bytes? no, but padded to a bucket anyway.";
    let first = alice
        .sp
        .send(topic, Some(b"k"), text, &[bob.public()])
        .await
        .expect("queued");
    assert_eq!(first.mode(), Mode::Direct);
    first.await.expect("delivered");

    // Past the per-K_pair limit the pair switches to MULTI; the key stays
    // the conversation's.
    alice.sp.restore_direct_seals(&bob.public(), DIRECT_LIMIT);
    assert_eq!(alice.sp.direct_seals(bob.id.fingerprint()), DIRECT_LIMIT);
    let second = alice
        .sp
        .send(topic, Some(b"k"), text, &[bob.public()])
        .await
        .expect("queued");
    assert_eq!(second.mode(), Mode::Multi);
    second.await.expect("delivered");

    let mut c = env.reader(&bob, &[], topic).await;
    c.trust_signer(&alice.public(), signing.public_key())
        .expect("trust");
    c.require_signatures(true);
    let key = BlindingKey::pairwise(&bob.id, &alice.public()).blind(b"k");
    for mode in [OpenedMode::Direct, OpenedMode::Multi] {
        let r = opened(&mut c).await;
        assert!(r.signed && r.padded);
        assert_eq!(r.mode, mode);
        assert_eq!(r.plaintext.as_bytes(), text);
        assert_eq!(&r.key[..], &key.0[..]);
    }

    // A reader that does not know the signing key refuses signed records.
    let mut c = env.reader(&bob, &[&alice], topic).await;
    let e = failed(&mut c).await;
    assert_eq!(
        e.open_error(),
        Some(&OpenError::UnknownSigner {
            kid: alice.id.kid()
        })
    );
    assert!(e.holds_commit());

    // The signing key must not be the ECDH key pair.
    let same = SigningIdentity::from_pkcs8_der(&alice.id.to_pkcs8_der()).expect("same key");
    let err = hermit_client::SealedProducer::new(
        &env.producer,
        alice.id.clone(),
        SealedProducerOptions {
            padding: false,
            signing: Some(same),
            ..SealedProducerOptions::default()
        },
    )
    .expect_err("refused");
    assert!(matches!(
        err,
        SealedError::Seal(SealError::SigningKeyIsIdentityKey)
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequence_numbers_keep_rising_across_producer_restarts() {
    let env = Env::start().await;
    let bob = env.party();
    let alice_id = hermit_client::crypto::Identity::generate().expect("rng");
    let topic = "chat.restart";
    let mut seqs = Vec::new();
    for _ in 0..2 {
        // A new sealed producer of the same identity: a restarted app.
        let sp = hermit_client::SealedProducer::new(
            &env.producer,
            alice_id.clone(),
            SealedProducerOptions::default(),
        )
        .expect("sealer");
        for _ in 0..3 {
            let d = sp
                .send(topic, None, b"hi", &[bob.public()])
                .await
                .expect("queued");
            seqs.push(d.seq());
            d.await.expect("delivered");
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");

    let mut c = hermit_client::SealedConsumer::new(
        &env.client,
        bob.id.clone(),
        vec![alice_id.public_key().clone()],
        topic,
        from_start(),
    )
    .await
    .expect("consumer");
    for (i, seq) in seqs.iter().enumerate() {
        let r = opened(&mut c).await;
        assert_eq!(r.seq, Some(*seq));
        // The second run starts a new block of numbers: a gap that looks like
        // a restart, not a replay.
        if i == 3 {
            let gap = r.gap.expect("the restart shows as a gap");
            assert!(gap.looks_like_restart(), "{gap:?}");
        } else {
            assert_eq!(r.gap, None);
        }
    }
    assert_eq!(c.high_water(alice_id.fingerprint()), seqs.last().copied());
}

/// `try_next` opens what one fetch brought without waiting, says `None`
/// once that is used up (nothing is lost: `next` goes on from there), and
/// the first records to new peers — a key to derive, a DIRECT reservation
/// to save, both done outside the producer's lock before the record is
/// sealed — arrive exactly once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn try_next_opens_fetched_records_without_waiting() {
    let env = Env::start().await;
    let (alice, bob, carol) = (env.party(), env.party(), env.party());
    let topic = "chat.try_next";
    let mut deliveries = Vec::new();
    for i in 0..200u32 {
        // Alternating peers: each first record finds its key and its
        // reservation missing; every record after that finds both.
        let to = if i % 2 == 0 { &bob } else { &carol };
        deliveries.push(
            alice
                .sp
                .send(topic, None, &i.to_be_bytes(), &[to.public()])
                .await
                .expect("queued"),
        );
    }
    for d in deliveries {
        d.await.expect("delivered");
    }

    let mut c = env.reader(&bob, &[&alice], topic).await;
    // Nothing fetched yet: `try_next` does not wait, and does no I/O.
    assert!(c.try_next().is_none());
    let mut got = vec![opened(&mut c).await];
    let mut not_for_me = 0;
    // The first fetch brought every record (200 small ones): the rest come
    // from `try_next` alone.
    while let Some(r) = c.try_next() {
        match r.expect("no transport error") {
            Ok(o) => got.push(o),
            Err(e) => {
                assert!(matches!(e.kind, RecordErrorKind::NotForMe { .. }), "{e:?}");
                not_for_me += 1;
            }
        }
    }
    let values: Vec<u32> = got
        .iter()
        .map(|o| u32::from_be_bytes(o.plaintext.as_bytes().try_into().expect("4 bytes")))
        .collect();
    assert_eq!(values, (0..200).step_by(2).collect::<Vec<u32>>());
    assert_eq!(not_for_me, 100, "Carol's records, every one read");
    assert!(got.windows(2).all(|w| w[0].seq < w[1].seq));
    // Used up: `try_next` says so, and `next` waits for more.
    assert!(c.try_next().is_none());
    quiet(&mut c, std::time::Duration::from_millis(200)).await;
}
