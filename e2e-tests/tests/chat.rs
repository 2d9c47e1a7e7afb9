//! Conversations end to end through a real `hermit broker` process with
//! `auth = "required"` and the chat-inbox ACL (docs/SECURITY.md §3): Alice
//! and Bob with nothing but the `hermit` command (keys from `hermit keygen`,
//! `hermit produce` / `hermit consume` processes, each authenticating with
//! its own key) writing to each other's `inbox.<fingerprint>`, which the
//! admin created, and Mallory refused Bob's inbox; and a three-member group
//! through the SDK on a group topic only its members may use.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use hermit_client::crypto::{BlindingKey, Identity, PublicKey};
use hermit_client::sealed::{OpenedRecord, SealedConsumer, SealedGroup, SealedProducer};
use hermit_client::{
    Cleanup, Client, ClientOptions, ConsumerOptions, Producer, ProducerOptions, StartFrom,
    TopicSettings,
};
use hermit_e2e_tests::{
    PASSWORD, assert_code, assert_ok, auth_config, create_topic, fingerprint, keygen, path_str,
    run_hermit, spawn_hermit, start_configured, wait_output,
};
use serde_json::Value;

const PW: (&str, &str) = ("HERMIT_PASSWORD", PASSWORD);

#[test]
fn alice_and_bob_chat_through_hermit_processes() {
    let dir = tempfile::tempdir().unwrap();
    let (admin, admin_pub) = keygen(dir.path(), "admin");
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let (mallory, mallory_pub) = keygen(dir.path(), "mallory");
    let [admin_fp, alice_fp, bob_fp, mallory_fp] =
        [&admin_pub, &alice_pub, &bob_pub, &mallory_pub].map(|p| fingerprint(p));
    let config = auth_config(dir.path(), &admin_fp, "");
    let broker = start_configured(dir.path(), &config);
    let addr = broker.addr().to_string();
    let env = [PW, ("HERMIT_BROKER", addr.as_str())];
    // Nobody but an admin may create topics: the admin makes both inboxes.
    let alice_inbox = format!("inbox.{alice_fp}");
    let bob_inbox = format!("inbox.{bob_fp}");
    create_topic(&addr, &admin, &alice_inbox);
    create_topic(&addr, &admin, &bob_inbox);

    // Bob listens first: his consumer waits for Alice's three messages.
    let bob_reads = spawn_hermit(
        &[
            "consume",
            "-t",
            &bob_inbox,
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
            &bob_inbox,
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
    assert_eq!(records.len(), 3);
    for ((r, text), a) in records.iter().zip(said).zip(&acked) {
        assert_eq!(r["payload"], text);
        assert_eq!(r["sender"], alice_fp.as_str());
        assert_eq!(r["topic"], bob_inbox.as_str());
        assert_eq!(r["partition"], a[0]);
        assert_eq!(r["offset"], a[1]);
        assert_eq!(r["seq"], a[2]);
        assert!(r.get("error").is_none());
    }

    // Anyone may write to an inbox: Mallory drops a record addressed to
    // Bob into Alice's. Bob answers; Alice reads her whole inbox (text
    // output) and stops at its end. Mallory's record is addressed to
    // someone else: skipped quietly.
    let dropped = run_hermit(
        &[
            "produce",
            "-t",
            &alice_inbox,
            "-i",
            path_str(&mallory),
            "--to",
            path_str(&bob_pub),
        ],
        b"not for Alice\n",
        &env,
    );
    assert_ok(&dropped);
    let reply = run_hermit(
        &[
            "produce",
            "-t",
            &alice_inbox,
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
            &alice_inbox,
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

    // A group remembers where it stopped: a second run reads only what is
    // new. Groups belong to principals: Bob's are named `<his fp>.*`.
    let bob_phone = format!("{bob_fp}.phone");
    let group = |expect: &[u8]| {
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
                &bob_phone,
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
    // Text output shows the tab as `\t` (control characters never reach
    // the terminal as they are).
    group(input.replace('\t', "\\t").as_bytes());
    let more = run_hermit(
        &[
            "produce",
            "-t",
            &bob_inbox,
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

    // Mallory may write to Bob's inbox but not read it: exit 4, and the
    // broker's refusal names the action, the topic and who asked. The
    // action is `describe`: a consumer asks for the topic's metadata
    // before its first fetch, and that is what is refused first.
    let snoop = run_hermit(
        &[
            "consume",
            "-t",
            &bob_inbox,
            "--identity",
            path_str(&mallory),
            "--trust",
            path_str(&alice_pub),
            "--exit-on-end",
        ],
        b"",
        &env,
    );
    assert_code(&snoop, 4);
    let err = String::from_utf8_lossy(&snoop.stderr);
    assert!(
        err.contains(&format!(
            "not authorized to describe {bob_inbox} as {mallory_fp}"
        )),
        "{err}"
    );
    assert!(snoop.stdout.is_empty(), "Mallory read nothing");
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

/// A client of `addr` authenticating as `id`.
async fn connect_as(addr: &str, id: &Identity) -> Result<Client, hermit_client::ClientError> {
    Client::connect(
        addr.to_owned(),
        ClientOptions {
            identity: Some(Arc::new(id.clone())),
            ..ClientOptions::default()
        },
    )
    .await
}

/// `[[acl]]` rules giving each member, and only them, the group topic.
fn group_rules(topic: &str, members: &[PublicKey]) -> String {
    members
        .iter()
        .map(|m| {
            format!(
                "[[acl]]\nprincipal = \"{}\"\ntopics = \"{topic}\"\nallow = [\"produce\", \"consume\", \"describe\"]\n",
                m.fingerprint().to_hex()
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_three_member_group_through_the_sdk() {
    let dir = tempfile::tempdir().unwrap();
    let topic = "group.hikers";
    let ids: Vec<Identity> = (0..3).map(|_| Identity::generate().unwrap()).collect();
    let members: Vec<PublicKey> = ids.iter().map(|i| i.public_key().clone()).collect();
    // The admin may read every topic: the one who can read the group's
    // records without being a member.
    let admin = Identity::generate().unwrap();
    let outsider = Identity::generate().unwrap();
    // A group topic with its own rules (not each member's inbox): one
    // record per message, whatever the group's size.
    let config = auth_config(
        dir.path(),
        &admin.public_key().fingerprint().to_hex(),
        &group_rules(topic, &members),
    );
    let broker = start_configured(dir.path(), &config);
    let addr = broker.addr().to_string();
    let admin_client = connect_as(&addr, &admin).await.unwrap();
    admin_client
        .create_topic(
            topic,
            TopicSettings {
                partitions: 1,
                cleanup: Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .await
        .unwrap();

    let clients: Vec<Client> = {
        let mut v = Vec::new();
        for id in &ids {
            v.push(connect_as(&addr, id).await.unwrap());
        }
        v
    };
    let producers: Vec<Producer> = clients
        .iter()
        .map(|c| Producer::new(c, ProducerOptions::default()))
        .collect();
    let senders: Vec<SealedProducer> = ids
        .iter()
        .zip(&producers)
        .map(|(id, p)| SealedProducer::new(p, id.clone(), Default::default()).unwrap())
        .collect();
    let consumer = |i: usize| {
        let me = &ids[i];
        let trusted: Vec<PublicKey> = members
            .iter()
            .filter(|m| m.fingerprint() != me.fingerprint())
            .cloned()
            .collect();
        SealedConsumer::new(
            &clients[i],
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
    for i in 1..ids.len() {
        let mut c = consumer(i).await.unwrap();
        let secret = read_n(&mut c, 1).await.remove(0);
        let bytes: [u8; 32] = secret.plaintext.as_bytes().try_into().unwrap();
        groups.push(SealedGroup::new(
            members.clone(),
            BlindingKey::from_group_secret(bytes),
        ));
        readers.push(c);
    }
    readers.insert(0, consumer(0).await.unwrap());

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

    // Someone who is not a member may not even see the group's topic (a
    // consumer asks for its metadata first, so the refusal is `describe`)…
    let outsider_client = connect_as(&addr, &outsider).await.unwrap();
    let refused = SealedConsumer::new(
        &outsider_client,
        outsider.clone(),
        members.clone(),
        topic,
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await;
    let not_allowed = format!(
        "not authorized to describe {topic} as {}",
        outsider.public_key().fingerprint().to_hex()
    );
    match refused {
        Err(e) => assert!(format!("{e:#}").contains(&not_allowed), "{e:#}"),
        Ok(_) => panic!("an outsider opened a consumer on {topic}"),
    }
    // …and the admin, who may read it and trusts every member, opens nothing.
    let mut stranger = SealedConsumer::new(
        &admin_client,
        admin,
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
    for p in producers {
        p.close().await;
    }
    drop(clients);
    drop(admin_client);
    drop(outsider_client);
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}
