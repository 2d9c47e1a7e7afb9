//! Conversations end to end through a real `hermit broker` process: Alice
//! and Bob with nothing but the `hermit` command (keys from `hermit keygen`,
//! `hermit produce` / `hermit consume` processes), and a three-member group
//! through the SDK.

use std::collections::BTreeSet;
use std::time::Duration;

use hermit_client::crypto::{ConversationKey, Identity, PublicKey};
use hermit_client::sealed::{OpenedRecord, SealedConsumer, SealedGroup, SealedProducer};
use hermit_client::{Client, ClientOptions, ConsumerOptions, Producer, ProducerOptions, StartFrom};
use hermit_e2e_tests::{
    PASSWORD, assert_ok, keygen, path_str, run_hermit, spawn_hermit, start_broker, wait_output,
};
use serde_json::Value;

const PW: (&str, &str) = ("HERMIT_PASSWORD", PASSWORD);

fn fingerprint(pub_file: &std::path::Path) -> String {
    let out = run_hermit(&["pubkey", "--fingerprint", path_str(pub_file)], b"", &[]);
    assert_ok(&out);
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn alice_and_bob_chat_through_hermit_processes() {
    let dir = tempfile::tempdir().unwrap();
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let broker = start_broker(&dir.path().join("data"), "127.0.0.1:0", &[]);
    let addr = broker.addr().to_string();
    let env = [PW, ("HERMIT_BROKER", addr.as_str())];

    // Bob listens first: his consumer waits for Alice's three messages.
    let bob_reads = spawn_hermit(
        &[
            "consume",
            "-t",
            "chat.alice-bob",
            "-i",
            path_str(&bob),
            "--trust",
            path_str(&alice_pub),
            "-c",
            "3",
            "--output",
            "jsonl",
        ],
        &env,
    );
    let said = ["Hi Bob!", "Grüße, 世界 🔐", "  spaces and\ttabs are kept  "];
    let input: String = said.iter().map(|l| format!("{l}\n")).collect();
    let sent = run_hermit(
        &[
            "produce",
            "-t",
            "chat.alice-bob",
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
            "--print-offsets",
        ],
        input.as_bytes(),
        &env,
    );
    assert_ok(&sent);
    let printed = String::from_utf8(sent.stdout).unwrap();
    let acked: Vec<Vec<u64>> = printed
        .lines()
        .map(|l| l.split('\t').map(|f| f.parse().unwrap()).collect())
        .collect();
    assert_eq!(acked.len(), 3, "{printed}");

    let out = wait_output(bob_reads, Duration::from_secs(60));
    assert_ok(&out);
    let records: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let alice_fp = fingerprint(&alice_pub);
    assert_eq!(records.len(), 3);
    for ((r, text), a) in records.iter().zip(said).zip(&acked) {
        assert_eq!(r["payload"], text);
        assert_eq!(r["sender"], alice_fp.as_str());
        assert_eq!(r["topic"], "chat.alice-bob");
        assert_eq!(r["partition"], a[0]);
        assert_eq!(r["offset"], a[1]);
        assert_eq!(r["seq"], a[2]);
        assert!(r.get("error").is_none());
    }

    // Bob answers; Alice reads the whole topic (text output) and stops at
    // its end. Her own messages are addressed to Bob: skipped quietly.
    let reply = run_hermit(
        &[
            "produce",
            "-t",
            "chat.alice-bob",
            "-i",
            path_str(&bob),
            "--to",
            path_str(&alice_pub),
        ],
        b"Hi Alice, got all three.\n",
        &env,
    );
    assert_ok(&reply);
    assert!(
        reply.stdout.is_empty(),
        "produce prints nothing unless asked"
    );
    let alice_reads = run_hermit(
        &[
            "consume",
            "-t",
            "chat.alice-bob",
            "-i",
            path_str(&alice),
            "--trust",
            path_str(&bob_pub),
            "--exit-on-end",
        ],
        b"",
        &env,
    );
    assert_ok(&alice_reads);
    assert_eq!(alice_reads.stdout, b"Hi Alice, got all three.\n");

    // A group remembers where it stopped: a second run reads only what is new.
    let group = |expect: &[u8]| {
        let out = run_hermit(
            &[
                "consume",
                "-t",
                "chat.alice-bob",
                "-i",
                path_str(&bob),
                "--trust",
                path_str(&alice_pub),
                "-g",
                "bob-phone",
                "--exit-on-end",
            ],
            b"",
            &env,
        );
        assert_ok(&out);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(expect)
        );
    };
    group(input.as_bytes());
    let more = run_hermit(
        &[
            "produce",
            "-t",
            "chat.alice-bob",
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
        ],
        b"one more\n",
        &env,
    );
    assert_ok(&more);
    group(b"one more\n");
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}

async fn read_n(c: &mut SealedConsumer, n: usize) -> Vec<OpenedRecord> {
    let mut got = Vec::new();
    while got.len() < n {
        let r = tokio::time::timeout(Duration::from_secs(30), c.next())
            .await
            .expect("records arrive")
            .expect("transport ok");
        match r {
            Ok(rec) => got.push(rec),
            Err(e) if e.is_not_for_me() => {}
            Err(e) => panic!("{e}"),
        }
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_three_member_group_through_the_sdk() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(&dir.path().join("data"), "127.0.0.1:0", &[]);
    let addr = broker.addr().to_string();
    let topic = "group.hikers";
    let ids: Vec<Identity> = (0..3).map(|_| Identity::generate().unwrap()).collect();
    let members: Vec<PublicKey> = ids.iter().map(|i| i.public_key().clone()).collect();
    let outsider = Identity::generate().unwrap();

    let client = Client::connect(addr.clone(), ClientOptions::default())
        .await
        .unwrap();
    let producer = Producer::new(&client, ProducerOptions::default());
    let senders: Vec<SealedProducer> = ids
        .iter()
        .map(|id| SealedProducer::new(&producer, id.clone(), Default::default()).unwrap())
        .collect();
    let consumer = |me: &Identity| {
        let trusted: Vec<PublicKey> = members
            .iter()
            .filter(|m| m.fingerprint() != me.fingerprint())
            .cloned()
            .collect();
        SealedConsumer::new(
            &client,
            me.clone(),
            trusted,
            topic,
            ConsumerOptions {
                start: StartFrom::Earliest,
                ..ConsumerOptions::default()
            },
        )
    };

    // Member 0 makes the group and hands its secret to the others, sealed.
    let group0 = SealedGroup::generate(members.clone()).unwrap();
    senders[0]
        .send(
            topic,
            None,
            group0.key().group_secret_bytes(),
            &members[1..],
        )
        .await
        .unwrap()
        .await
        .unwrap();
    let mut groups = vec![group0];
    let mut readers = Vec::new();
    for me in &ids[1..] {
        let mut c = consumer(me).await.unwrap();
        let secret = read_n(&mut c, 1).await.remove(0);
        let bytes: [u8; 32] = secret.plaintext.as_bytes().try_into().unwrap();
        groups.push(SealedGroup::new(
            members.clone(),
            ConversationKey::from_group_secret(bytes),
        ));
        readers.push(c);
    }
    readers.insert(0, consumer(&ids[0]).await.unwrap());

    // Everyone says something under one logical key.
    let mut keys = BTreeSet::new();
    for (i, s) in senders.iter().enumerate() {
        let text = format!("member {i}: summit at noon?");
        s.send_group(topic, &groups[i], Some(b"plans"), text.as_bytes())
            .await
            .unwrap()
            .await
            .unwrap();
        keys.insert(groups[i].blind(b"plans").0);
    }
    assert_eq!(
        keys.len(),
        1,
        "one logical key, one blinded key, whoever sent it"
    );

    for (i, r) in readers.iter_mut().enumerate() {
        // Members 1 and 2 already read the secret; member 0 skips its own record.
        let got = read_n(r, 2).await;
        let texts: BTreeSet<String> = got
            .iter()
            .map(|g| String::from_utf8(g.plaintext.to_vec()).unwrap())
            .collect();
        let expect: BTreeSet<String> = (0..3)
            .filter(|j| *j != i)
            .map(|j| format!("member {j}: summit at noon?"))
            .collect();
        assert_eq!(texts, expect, "member {i}");
        for g in &got {
            assert_eq!(&g.key[..], &keys.first().unwrap()[..]);
        }
    }

    // Someone who trusts every member but is not one reads nothing.
    let mut stranger = SealedConsumer::new(
        &client,
        outsider,
        members.clone(),
        topic,
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    for _ in 0..4 {
        let r = stranger.next().await.unwrap();
        assert!(r.as_ref().is_err_and(|e| e.is_not_for_me()), "{r:?}");
    }
    producer.close().await;
    drop(client);
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}
