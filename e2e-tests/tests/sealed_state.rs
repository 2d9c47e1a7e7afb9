//! Issue 19 through real processes: `hermit consume --group` keeps its
//! replay state (sealed to its own key, in `state.<fingerprint>`) across a
//! process restart, so a record replayed through the broker is refused as a
//! duplicate; without the ACL rule for the state topic it says which rule is
//! missing; text output shows escape sequences instead of obeying them.
//! Issue 32: the state's generation is anchored in the CLI's state
//! directory, so an older state the broker serves again is refused (exit 5).

use std::time::Duration;

use bytes::Bytes;
use hermit_client::crypto::KeyFile;
use hermit_client::{Ack, Client, ClientOptions};
use hermit_e2e_tests::{
    INBOX_ACL, PASSWORD, assert_ok, auth_config, create_topic, fingerprint, keygen, path_str,
    run_hermit, start_configured,
};
use hermit_protocol::BatchBuilder;
use serde_json::Value;

const PW: (&str, &str) = ("HERMIT_PASSWORD", PASSWORD);

fn jsonl(out: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn a_restarted_consumer_refuses_a_record_replayed_through_the_broker() {
    let dir = tempfile::tempdir().unwrap();
    let (admin, admin_pub) = keygen(dir.path(), "admin");
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let [admin_fp, bob_fp] = [&admin_pub, &bob_pub].map(|p| fingerprint(p));
    let config = auth_config(dir.path(), &admin_fp, "");
    let broker = start_configured(dir.path(), &config);
    let addr = broker.addr().to_string();
    let env = [PW, ("HERMIT_BROKER", addr.as_str())];
    let inbox = format!("inbox.{bob_fp}");
    create_topic(&addr, &admin, &inbox);
    let group = format!("{bob_fp}.chat");
    let send = |text: &str| {
        let out = run_hermit(
            &[
                "produce",
                "-t",
                &inbox,
                "-i",
                path_str(&alice),
                "--to",
                path_str(&bob_pub),
            ],
            format!("{text}\n").as_bytes(),
            &env,
        );
        assert_ok(&out);
    };
    // Bob reads his inbox as `consume` with `extra` flags, one JSON line per record.
    let consume = |extra: &[&str]| {
        let mut args = vec![
            "consume",
            "-t",
            &inbox,
            "-i",
            path_str(&bob),
            "--trust",
            path_str(&alice_pub),
            "--output",
            "jsonl",
        ];
        args.extend_from_slice(extra);
        run_hermit(&args, b"", &env)
    };
    // One producer run: consecutive sequence numbers.
    send("first\nsecond");
    // Bob's first run reads both, commits, saves his state, exits.
    let out = consume(&["-g", &group, "-c", "2"]);
    assert_ok(&out);
    let seen = jsonl(&out);
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0]["payload"], "first");

    // The broker's operator (here: the admin) appends Alice's first record
    // again, byte for byte, then Alice sends a new one.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let text = std::fs::read_to_string(&admin).unwrap();
        let id = KeyFile::from_armor(&text)
            .unwrap()
            .unlock(PASSWORD.as_bytes())
            .unwrap();
        let opts = ClientOptions {
            identity: Some(std::sync::Arc::new(id)),
            ..ClientOptions::default()
        };
        let client = Client::connect(addr.clone(), opts).await.unwrap();
        let r = client
            .fetch(&inbox, 0, 0, 1 << 20, Duration::ZERO)
            .await
            .unwrap();
        let first = r.records().next().unwrap().unwrap();
        let mut b = BatchBuilder::new(&first.key);
        b.push(&first.value);
        let batch = Bytes::from(b.finish(0).unwrap());
        client
            .produce(&inbox, 0, Ack::Durable, batch)
            .await
            .unwrap();
    });
    send("third");

    // A new process: the replay is refused, the new record opens.
    let out = consume(&["-g", &group, "-c", "2"]);
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["offset"], 2);
    let error = lines[0]["error"]
        .as_str()
        .expect("the replay is an error line");
    assert!(error.contains("replayed"), "{error}");
    assert!(
        lines[0].get("payload").is_none(),
        "no plaintext for the replay"
    );
    assert_eq!(lines[1]["payload"], "third");
    assert_eq!(out.status.code(), Some(4), "a record failed to open");

    // `--no-state` is the old behaviour: a group reads the first two, and
    // after a restart the replay opens again as a message.
    let other = format!("{bob_fp}.other");
    let stateless = ["-g", other.as_str(), "--no-state", "-c", "2"];
    assert_ok(&consume(&stateless));
    let out = consume(&stateless);
    assert_ok(&out);
    let lines = jsonl(&out);
    assert_eq!(
        lines[0]["payload"], "first",
        "without state the replay opens again"
    );
    assert_eq!(lines[0]["offset"], 2);
}

/// The admin's client (the broker's operator plays the lying broker).
async fn admin_client(addr: &str, admin: &std::path::Path) -> Client {
    let text = std::fs::read_to_string(admin).unwrap();
    let id = KeyFile::from_armor(&text)
        .unwrap()
        .unlock(PASSWORD.as_bytes())
        .unwrap();
    let opts = ClientOptions {
        identity: Some(std::sync::Arc::new(id)),
        ..ClientOptions::default()
    };
    Client::connect(addr.to_owned(), opts).await.unwrap()
}

/// THE ROLLBACK through real processes: `hermit consume --group` anchors
/// the generation of each state it saves in its state directory; when the
/// broker serves an older state record again (byte for byte) with the
/// commit that went with it, the next run refuses to read (exit 5) and says
/// why; a fresh `--state-dir` (a new device) accepts it, and the record
/// read since is delivered again — the limitation the anchor removes.
#[test]
fn a_restarted_cli_consumer_refuses_an_older_state_served_again() {
    let dir = tempfile::tempdir().unwrap();
    let (admin, admin_pub) = keygen(dir.path(), "admin");
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let [admin_fp, bob_fp] = [&admin_pub, &bob_pub].map(|p| fingerprint(p));
    let config = auth_config(dir.path(), &admin_fp, "");
    let broker = start_configured(dir.path(), &config);
    let addr = broker.addr().to_string();
    let env = [PW, ("HERMIT_BROKER", addr.as_str())];
    let inbox = format!("inbox.{bob_fp}");
    create_topic(&addr, &admin, &inbox);
    let group = format!("{bob_fp}.chat");
    let send = |text: &str| {
        let args = [
            "produce",
            "-t",
            &inbox,
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
        ];
        assert_ok(&run_hermit(&args, format!("{text}\n").as_bytes(), &env));
    };
    let consume = |extra: &[&str]| {
        let mut args = vec![
            "consume",
            "-t",
            &inbox,
            "-i",
            path_str(&bob),
            "--trust",
            path_str(&alice_pub),
            "--output",
            "jsonl",
            "-g",
            &group,
            "-c",
            "1",
        ];
        args.extend_from_slice(extra);
        run_hermit(&args, b"", &env)
    };
    let state_topic = format!("state.{bob_fp}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    let admin_client = rt.block_on(admin_client(&addr, &admin));

    send("first");
    let out = consume(&[]);
    assert_ok(&out);
    assert_eq!(jsonl(&out)[0]["payload"], "first");
    // The state record of that run (generation 1), as the broker holds it.
    let (key, old_state) = rt.block_on(async {
        let r = admin_client
            .fetch(&state_topic, 0, 0, 1 << 20, Duration::ZERO)
            .await
            .unwrap();
        let rec = r.records().next().unwrap().unwrap();
        (rec.key, rec.value)
    });
    send("second");
    let out = consume(&[]);
    assert_ok(&out);
    assert_eq!(jsonl(&out)[0]["payload"], "second");

    // The broker serves the first state again, with its commit.
    rt.block_on(async {
        let mut b = BatchBuilder::new(&key);
        b.push(&old_state);
        let batch = Bytes::from(b.finish(0).unwrap());
        admin_client
            .produce(&state_topic, 0, Ack::Durable, batch)
            .await
            .unwrap();
        admin_client.commit(&group, &inbox, 0, 1).await.unwrap();
    });
    let out = consume(&[]);
    assert_eq!(out.status.code(), Some(5), "an integrity failure");
    assert!(out.stdout.is_empty(), "nothing delivered");
    let err = String::from_utf8_lossy(&out.stderr);
    for needle in [
        "the broker served an older state than this device wrote",
        "anchored generation 2",
        "found generation 1",
        "state-anchors",
    ] {
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }

    // A new device (an empty state directory) cannot know: it accepts.
    let fresh = dir.path().join("new-device");
    let out = consume(&["--state-dir", path_str(&fresh)]);
    assert_ok(&out);
    assert_eq!(
        jsonl(&out)[0]["payload"],
        "second",
        "delivered again on a device without the anchor"
    );
}

#[test]
fn without_the_state_rule_the_error_names_it_and_text_output_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let (admin, admin_pub) = keygen(dir.path(), "admin");
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let [admin_fp, bob_fp] = [&admin_pub, &bob_pub].map(|p| fingerprint(p));
    // The inbox rules without the state topic's.
    let inbox_only = INBOX_ACL
        .split("[[acl]]\nprincipal = \"*\"\ntopics = \"state.")
        .next()
        .unwrap();
    let config = dir.path().join("hermit.toml");
    std::fs::write(
        &config,
        format!("auth = \"required\"\nadmins = [\"{admin_fp}\"]\n{inbox_only}"),
    )
    .unwrap();
    let broker = start_configured(dir.path(), &config);
    let addr = broker.addr().to_string();
    let env = [PW, ("HERMIT_BROKER", addr.as_str())];
    let inbox = format!("inbox.{bob_fp}");
    create_topic(&addr, &admin, &inbox);

    let out = run_hermit(
        &[
            "produce",
            "-t",
            &inbox,
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
        ],
        b"\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x1b[0m\n",
        &env,
    );
    assert_eq!(out.status.code(), Some(4), "an authorization failure");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("state.{principal}"), "{err}");
    // Opting out works (and the counts then last one run).
    let out = run_hermit(
        &[
            "produce",
            "-t",
            &inbox,
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
            "--no-state",
        ],
        b"\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x1b[0m\n",
        &env,
    );
    assert_ok(&out);

    let read = |extra: &[&str]| {
        let mut args = vec![
            "consume",
            "-t",
            &inbox,
            "-i",
            path_str(&bob),
            "--trust",
            path_str(&alice_pub),
            "-c",
            "1",
        ];
        args.extend_from_slice(extra);
        run_hermit(&args, b"", &env)
    };
    let out = read(&[]);
    assert_ok(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "\\x1b[2J\\x1b]0;pwned\\x07\\x1b[31mred\\x1b[0m\n",
        "shown, not obeyed"
    );
    let out = read(&["--raw"]);
    assert_ok(&out);
    assert_eq!(out.stdout, b"\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x1b[0m\n");
    // A group needs the state topic too: refused with the rule named.
    let out = read(&["-g", &format!("{bob_fp}.chat")]);
    assert_eq!(out.status.code(), Some(4), "an authorization failure");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("state.{principal}"), "{err}");
}
