//! Nothing secret leaves the client: no plaintext, logical key, group secret
//! or private key reaches any file of the broker's data directory, and no
//! `Debug` output of the sealed types shows one.

mod sealed_support;

use std::collections::HashSet;
use std::path::Path;

use hermit_client::crypto::{BlindingKey, Identity, SigningIdentity};
use hermit_client::{SealedGroup, SealedProducerOptions};
use sealed_support::*;

const WINDOW: usize = 8;

/// Every 8-byte substring of `needles`.
fn windows(needles: &[Vec<u8>]) -> HashSet<[u8; WINDOW]> {
    needles
        .iter()
        .flat_map(|n| n.windows(WINDOW))
        .map(|w| w.try_into().expect("8 bytes"))
        .collect()
}

/// Every file under `dir` that holds one of `needles` (an 8-byte window).
fn files_containing(dir: &Path, needles: &HashSet<[u8; WINDOW]>) -> Vec<String> {
    let mut hits = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            files += 1;
            let bytes = std::fs::read(&path).expect("read file");
            if let Some(at) = bytes
                .windows(WINDOW)
                .position(|w| needles.contains(<&[u8; WINDOW]>::try_from(w).expect("8 bytes")))
            {
                hits.push(format!("{} at byte {at}", path.display()));
            }
        }
    }
    assert!(files > 3, "scanned only {files} files");
    hits
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The 32-byte private scalar inside a Web Crypto PKCS#8 (138 bytes).
fn scalar(id: &Identity) -> Vec<u8> {
    let der = id.to_pkcs8_der();
    assert_eq!(&der[34..36], &[0x04, 0x20], "OCTET STRING of 32 bytes");
    der[36..68].to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broker_never_stores_a_plaintext_a_key_name_or_a_secret() {
    let env = Env::start().await;
    let signing = SigningIdentity::generate().expect("rng");
    let alice = env.party_with(SealedProducerOptions {
        padding: true,
        signing: Some(signing.clone()),
        ..SealedProducerOptions::default()
    });
    let (bob, carol) = (env.party(), env.party());
    // Unique per run, so nothing else on disk can contain it by accident:
    // the fingerprint of a key that takes no part (a party's fingerprint is
    // public and names its state topic, which the topic catalog stores).
    let unused = Identity::generate().expect("os rng");
    let marker = format!("MARKER-{}", &unused.fingerprint().to_hex()[..24]);
    let members = vec![alice.public(), bob.public(), carol.public()];
    let group = SealedGroup::generate(members).expect("rng");

    let mut plaintexts: Vec<Vec<u8>> = Vec::new();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for i in 0..20 {
        let text =
            format!("{marker}: note {i} — meet behind the old mill at {i} o'clock, bring Ωmega");
        let key = format!("conversation {marker} {}", i % 3);
        let sp = &alice.sp;
        let d = match i % 3 {
            0 => {
                sp.send(
                    "notes",
                    Some(key.as_bytes()),
                    text.as_bytes(),
                    &[bob.public()],
                )
                .await
            }
            1 => {
                let to = [bob.public(), carol.public()];
                sp.send("notes", Some(key.as_bytes()), text.as_bytes(), &to)
                    .await
            }
            _ => {
                sp.send_group("notes", &group, Some(key.as_bytes()), text.as_bytes())
                    .await
            }
        }
        .expect("queued");
        d.await.expect("delivered");
        plaintexts.push(text.into_bytes());
        keys.push(key.into_bytes());
    }
    // Bob reads and commits: group offsets reach the disk too.
    let mut c = env
        .reader_with(
            &bob,
            &[&alice],
            "notes",
            hermit_client::ConsumerOptions {
                group: Some("reader".into()),
                ..from_start()
            },
        )
        .await;
    c.trust_signer(&alice.public(), signing.public_key())
        .expect("trust");
    for p in &plaintexts {
        assert_eq!(opened(&mut c).await.plaintext.as_bytes(), &p[..]);
    }
    c.commit().await.expect("commit");

    // Positive control: a plain record on another topic is found by the scan.
    let other = Identity::generate().expect("os rng");
    let control = format!("CONTROL-{} stored in clear", other.fingerprint().to_hex()).into_bytes();
    env.producer
        .send("control", b"", &control)
        .await
        .expect("queued")
        .await
        .expect("delivered");

    let Env {
        dir,
        broker,
        producer,
        ..
    } = env;
    producer.close().await;
    broker.shutdown().await.expect("clean shutdown");

    let mut secrets = vec![
        marker.clone().into_bytes(),
        group.key().group_secret_bytes().to_vec(),
        scalar(&alice.id),
        scalar(&bob.id),
        BlindingKey::pairwise(&alice.id, &bob.public())
            .group_secret_bytes()
            .to_vec(),
    ];
    secrets.extend(plaintexts);
    secrets.extend(keys);
    let hits = files_containing(dir.path(), &windows(&secrets));
    assert!(hits.is_empty(), "found on the broker's disk: {hits:#?}");
    let control_hits = files_containing(dir.path(), &windows(&[control]));
    assert_eq!(
        control_hits.len(),
        1,
        "the scan finds clear text: {control_hits:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debug_output_shows_no_secret() {
    let env = Env::start().await;
    let signing = SigningIdentity::generate().expect("rng");
    let options = SealedProducerOptions {
        padding: true,
        signing: Some(signing.clone()),
        ..SealedProducerOptions::default()
    };
    let alice = env.party_with(options.clone());
    let bob = env.party();
    let group = SealedGroup::generate(vec![alice.public(), bob.public()]).expect("rng");
    let text = "the eagle lands at midnight";
    let d = alice
        .sp
        .send(
            "dbg",
            Some(b"secret-key-name"),
            text.as_bytes(),
            &[bob.public()],
        )
        .await
        .expect("queued");
    let queued = format!("{d:?}");
    d.await.expect("delivered");
    env.producer
        .send("dbg", b"", b"\x01garbage")
        .await
        .expect("queued")
        .await
        .expect("delivered");

    let mut c = env.reader(&bob, &[&alice], "dbg").await;
    c.trust_signer(&alice.public(), signing.public_key())
        .expect("trust");
    let r = opened(&mut c).await;
    assert_eq!(r.plaintext.to_str(), Ok(text));
    let e = failed(&mut c).await;

    let outputs = [
        format!("{:?}", alice.sp),
        format!("{options:?}"),
        format!("{group:?}"),
        format!("{c:?}"),
        format!("{r:?}"),
        format!("{:?}", r.plaintext),
        format!("{e:?}"),
        format!("{e}"),
        format!("{e:#}"),
        queued,
    ];
    let pair = BlindingKey::pairwise(&alice.id, &bob.public());
    let mut forbidden: Vec<String> = vec![
        text.into(),
        "secret-key-name".into(),
        format!("{:?}", text.as_bytes()),
    ];
    let secrets: Vec<Vec<u8>> = vec![
        group.key().group_secret_bytes().to_vec(),
        pair.group_secret_bytes().to_vec(),
        scalar(&alice.id),
        scalar(&bob.id),
        signing.to_pkcs8_der().to_vec(),
        alice.id.to_pkcs8_der().to_vec(),
    ];
    for s in &secrets {
        forbidden.push(hex(s));
        forbidden.push(hex(&s[..8]));
        forbidden.push(format!("{:?}", &s[..8]).trim_end_matches(']').to_owned());
    }
    forbidden.push(alice.id.to_pkcs8_base64().to_string());
    forbidden.push(signing.to_pkcs8_base64().to_string());
    for out in &outputs {
        for f in &forbidden {
            assert!(!out.contains(f.as_str()), "{out} shows {f}");
        }
    }
    // What they do show.
    assert!(outputs[0].contains("redacted"), "{}", outputs[0]);
    assert!(outputs[2].contains("redacted"), "{}", outputs[2]);
    assert!(
        outputs[5].contains(&text.len().to_string()),
        "{}",
        outputs[5]
    );
}
