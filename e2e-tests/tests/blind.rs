//! The broker is blind: after messages with a unique marker went through
//! it (CLI and SDK, keyed and keyless, DIRECT and MULTI, consumed by a
//! group so offsets were committed too), no file under its data directory
//! holds the marker, any 8-byte piece of any plaintext, or a logical key.
//! The broker runs as deployed for chat: `auth = "required"` and the
//! inbox ACL, every client authenticated, the inboxes made by the admin.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hermit_client::crypto::Identity;
use hermit_client::sealed::{SealedConsumer, SealedProducer};
use hermit_client::{Client, ClientOptions, ConsumerOptions, Producer, ProducerOptions};
use hermit_e2e_tests::{
    PASSWORD, assert_ok, auth_config, create_topic, fingerprint, keygen, path_str, run_hermit,
    start_configured,
};

const WINDOW: usize = 8;

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn no_plaintext_reaches_the_brokers_disk() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (admin, admin_pub) = keygen(dir.path(), "admin");
    let config = auth_config(dir.path(), &fingerprint(&admin_pub), "");
    let broker = start_configured(dir.path(), &config);
    let addr = broker.addr().to_string();
    let marker = format!(
        "MARKER-{}-{:x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let logical_key = format!("conversation-key-{marker}");
    let mut plaintexts: Vec<Vec<u8>> = Vec::new();

    // Through the CLI: keyed, to one and to two recipients, and a whole file.
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let (_, carol_pub) = keygen(dir.path(), "carol");
    let bob_fp = fingerprint(&bob_pub);
    let bob_inbox = format!("inbox.{bob_fp}");
    create_topic(&addr, &admin, &bob_inbox);
    let env = [
        ("HERMIT_PASSWORD", PASSWORD),
        ("HERMIT_BROKER", addr.as_str()),
    ];
    let lines: Vec<String> = (0..20)
        .map(|i| format!("{marker} line {i}: the quick brown fox jumps over the lazy dog"))
        .collect();
    let input = lines.join("\n") + "\n";
    plaintexts.extend(lines.iter().map(|l| l.as_bytes().to_vec()));
    for to in [
        vec![path_str(&bob_pub)],
        vec![path_str(&bob_pub), path_str(&carol_pub)],
    ] {
        let mut args = vec![
            "produce",
            "-t",
            &bob_inbox,
            "-i",
            path_str(&alice),
            "-k",
            &logical_key,
        ];
        for t in &to {
            args.extend(["--to", t]);
        }
        let out = run_hermit(&args, input.as_bytes(), &env);
        assert_ok(&out);
    }
    let doc: Vec<u8> = (0..64 * 1024u32)
        .map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789"[(i * 7 % 36) as usize])
        .chain(marker.bytes())
        .collect();
    let doc_file = dir.path().join("doc.txt");
    std::fs::write(&doc_file, &doc).unwrap();
    let out = run_hermit(
        &[
            "produce",
            "-t",
            &bob_inbox,
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
            "--file",
            path_str(&doc_file),
        ],
        b"",
        &env,
    );
    assert_ok(&out);
    plaintexts.push(doc);
    // Bob reads it all with a group, so commits land on disk too.
    let out = run_hermit(
        &[
            "consume",
            "-t",
            &bob_inbox,
            "-i",
            path_str(&bob),
            "--trust",
            path_str(&alice_pub),
            "-g",
            &format!("{bob_fp}.bob"),
            "--exit-on-end",
        ],
        b"",
        &env,
    );
    assert_ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .matches(&marker)
            .count()
            >= 41
    );

    // Through the SDK, binary plaintexts too.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let me = Identity::generate().unwrap();
        let peer = Identity::generate().unwrap();
        let peer_fp = peer.public_key().fingerprint().to_hex();
        let peer_inbox = format!("inbox.{peer_fp}");
        create_topic(&addr, &admin, &peer_inbox);
        let as_ = |id: &Identity| ClientOptions {
            identity: Some(Arc::new(id.clone())),
            ..ClientOptions::default()
        };
        let client = Client::connect(addr.clone(), as_(&me)).await.unwrap();
        let peer_client = Client::connect(addr.clone(), as_(&peer)).await.unwrap();
        let producer = Producer::new(&client, ProducerOptions::default());
        let sealed = SealedProducer::new(&producer, me.clone(), Default::default()).unwrap();
        for i in 0..50u32 {
            let mut p = marker.as_bytes().to_vec();
            p.extend((0..200u32).map(|j| (i.wrapping_mul(31) ^ j) as u8));
            sealed
                .send(
                    &peer_inbox,
                    Some(logical_key.as_bytes()),
                    &p,
                    &[peer.public_key().clone()],
                )
                .await
                .unwrap();
            plaintexts.push(p);
        }
        sealed.flush().await;
        let mut c = SealedConsumer::new(
            &peer_client,
            peer,
            vec![me.public_key().clone()],
            &peer_inbox,
            ConsumerOptions {
                group: Some(format!("{peer_fp}.sdk-reader")),
                ..ConsumerOptions::default()
            },
        )
        .await
        .unwrap();
        for _ in 0..50 {
            c.next().await.unwrap().unwrap();
        }
        c.commit().await.unwrap();
        c.close().await.unwrap();
        producer.close().await;
    });
    // A graceful stop: everything is written and fsynced.
    assert_eq!(broker.terminate().unwrap().code(), Some(0));

    let mut needles: HashSet<&[u8]> = HashSet::new();
    for p in &plaintexts {
        needles.extend(p.windows(WINDOW));
    }
    needles.extend(logical_key.as_bytes().windows(WINDOW));
    let all = files(&data);
    assert!(
        all.iter()
            .any(|f| f.extension().is_some_and(|e| e == "log"))
    );
    let mut scanned = 0usize;
    for f in all {
        let bytes = std::fs::read(&f).unwrap();
        scanned += bytes.len();
        assert!(
            !bytes.windows(marker.len()).any(|w| w == marker.as_bytes()),
            "{} holds the marker",
            f.display()
        );
        if let Some((at, w)) = bytes
            .windows(WINDOW)
            .enumerate()
            .find(|(_, w)| needles.contains(w))
        {
            panic!(
                "{} holds plaintext bytes {:?} at {at}",
                f.display(),
                String::from_utf8_lossy(w)
            );
        }
    }
    let sent: usize = plaintexts.iter().map(Vec::len).sum();
    assert!(
        scanned > sent,
        "the data was on disk ({scanned} bytes for {sent} of plaintext)"
    );
}
