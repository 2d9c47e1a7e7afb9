//! MLS conversations through `hermit` processes only (docs/MLS.md §10),
//! against a real `hermit broker` with `auth = "required"` and
//! `acl_preset = "chat-inbox"` (the preset alone: no rule written by hand).
//!
//! - three users in one group: create, invite ×2, join, send from each,
//!   each reads the others' messages; then a second device of Alice's
//!   bound by her account, added, reading what follows; `devices list`,
//!   `keypackages status`, `group list`;
//! - the errors that say what to do: an invitee without KeyPackages, a
//!   second process on a state directory in use;
//! - `hermit chat` between two accounts, on pipes.

use std::time::{Duration, Instant};

use hermit_e2e_tests::mls::{MlsUser, chat_inbox_broker, messages, three_users_talk};
use hermit_e2e_tests::path_str;

#[test]
fn three_users_talk_in_one_group_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let broker = chat_inbox_broker(dir.path());
    let addr = broker.addr().to_string();
    let (users, topic) = three_users_talk(dir.path(), &addr);
    let [alice, bob, carol] = [&users[0], &users[1], &users[2]];

    // Who is there, as each command shows it.
    let list = alice.ok(&["group", "list"], b"");
    let mut accounts = [alice.fp.clone(), bob.fp.clone(), carol.fp.clone()];
    accounts.sort();
    let line = list.lines().next().expect("one conversation");
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields[0], topic);
    assert_eq!(fields[1], "2", "two Commits: two invitations");
    assert_eq!(fields[2], accounts.join(","));
    let devices = bob.ok(&["devices", "list", path_str(&alice.pub_file)], b"");
    assert!(
        devices.starts_with(&format!("{}\taccount\t", alice.fp)),
        "{devices}"
    );
    // Bob's two KeyPackages: one was used by his Welcome.
    assert_eq!(bob.ok(&["keypackages", "status"], b"").trim(), "2");

    // Alice's second device: her account binds it, it publishes, Alice adds it.
    let phone = MlsUser::new(dir.path(), "alice-phone", &addr);
    let binding = alice.ok(&["devices", "add", path_str(&phone.pub_file)], b"");
    phone.ok(&["devices", "bind", "-"], binding.as_bytes());
    phone.ok(&["keypackages", "publish", "--count", "1"], b"");
    let devices = carol.ok(&["devices", "list", &alice.fp], b"");
    assert!(
        devices.contains(&format!("{}\tdevice\t", phone.fp)),
        "{devices}"
    );
    alice.ok(&["group", "add", &topic, path_str(&phone.pub_file)], b"");
    assert_eq!(phone.ok(&["group", "join"], b"").trim(), topic);
    carol.ok(&["group", "send", &topic, "welcome, phone"], b"");
    let got = messages(&phone.ok(&["group", "read", &topic, "--output", "jsonl"], b""));
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["text"], "welcome, phone");
    assert_eq!(got[0]["sender"], carol.fp.as_str());
    // Text output: offset, sender, the text escaped.
    let text = bob.ok(&["group", "read", &topic], b"");
    let fields: Vec<&str> = text.trim_end().split('\t').collect();
    assert_eq!(fields[1..], [carol.fp.as_str(), "welcome, phone"], "{text}");
    fields[0].parse::<u64>().expect("an offset first");
}

#[test]
fn errors_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let broker = chat_inbox_broker(dir.path());
    let addr = broker.addr().to_string();
    let alice = MlsUser::new(dir.path(), "alice", &addr);
    let dave = MlsUser::new(dir.path(), "dave", &addr);
    let topic = alice.ok(&["group", "create"], b"").trim().to_owned();

    // Dave never published anything.
    let out = alice.run(&["group", "invite", &topic, path_str(&dave.pub_file)], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&dave.fp) && err.contains("`hermit keypackages publish`"),
        "{err}"
    );
    let out = alice.run(&["group", "read", "mls.00"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`hermit group list`"),
        "{out:?}"
    );

    // One process per state directory: while a reader follows, a second
    // command of Alice's is refused, naming the way out.
    let mut reader = alice.spawn(&["group", "read", &topic, "--follow"]);
    let lock = alice.state.join("lock");
    let pid = reader.id().to_string();
    let started = Instant::now();
    while std::fs::read_to_string(&lock)
        .ok()
        .map(|s| s.trim().to_owned())
        != Some(pid.clone())
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the reader never locked"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for args in [
        &["group", "send", &topic, "hi"][..],
        &["group", "read", &topic],
        &["group", "list"],
    ] {
        let out = alice.run(args, b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("in use by another process") && err.contains("--state-dir"),
            "{args:?}: {err}"
        );
    }
    reader.kill().unwrap();
    reader.wait().unwrap();
    alice.ok(&["group", "send", &topic, "now it works"], b"");
}

#[test]
fn two_accounts_chat_on_pipes() {
    let dir = tempfile::tempdir().unwrap();
    let broker = chat_inbox_broker(dir.path());
    let addr = broker.addr().to_string();
    let alice = MlsUser::new(dir.path(), "alice", &addr);
    let bob = MlsUser::new(dir.path(), "bob", &addr);
    // Bob has not published yet: Alice is told to ask him.
    let out = alice.run(&["chat", "--to", path_str(&bob.pub_file)], b"hi\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ask them to run `hermit keypackages publish`"),
        "{err}"
    );
    for u in [&alice, &bob] {
        u.ok(&["keypackages", "publish", "--count", "1"], b"");
    }
    // Alice starts the conversation; Bob's chat joins it from the Welcome.
    let out = alice.ok(&["chat", "--to", path_str(&bob.pub_file)], b"hi bob\n");
    assert_eq!(out, "");
    let out = bob.ok(&["chat", "--to", &alice.fp], b"hi alice\nhow are you\n");
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert_eq!(lines[0][1..], [alice.fp.as_str(), "hi bob"]);
    let out = alice.ok(&["chat", "--to", &bob.fp], b"");
    let texts: Vec<&str> = out.lines().map(|l| l.split('\t').nth(2).unwrap()).collect();
    assert_eq!(texts, ["hi alice", "how are you"], "{out}");
    // Both in one conversation, the same one.
    let a = alice.ok(&["group", "list"], b"");
    let b = bob.ok(&["group", "list"], b"");
    assert_eq!(a.lines().count(), 1, "{a}");
    assert_eq!(a, b);
}
