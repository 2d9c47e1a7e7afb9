//! `hermit contacts` (issue 37) through `hermit` processes against a real
//! broker (`auth = "required"`, `acl_preset = "chat-inbox"`): Bob prints an
//! invite, Alice adds him from it (his key comes from his signed device
//! list), both print the same safety number, Alice marks him verified; the
//! list and show commands' JSON lines; an account without a device list
//! cannot be added.

use hermit_e2e_tests::mls::{MlsUser, chat_inbox_broker};

fn jsonl(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn contacts_from_an_invite_with_matching_safety_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let broker = chat_inbox_broker(dir.path());
    let addr = broker.addr().to_string();
    let alice = MlsUser::new(dir.path(), "alice", &addr);
    let bob = MlsUser::new(dir.path(), "bob", &addr);
    // Both publish their device lists (with their KeyPackages).
    for u in [&alice, &bob] {
        u.ok(&["keypackages", "publish", "--count", "1"], b"");
    }

    let invite = bob.ok(&["contacts", "invite", "--name", "Bob B."], b"");
    assert_eq!(invite.trim(), format!("hermit-contact:{}#Bob%20B.", bob.fp));
    let added = alice.ok(&["contacts", "add", invite.trim()], b"");
    assert_eq!(added.trim(), format!("{}\tBob B.", bob.fp));
    bob.ok(&["contacts", "add", &alice.fp, "--name", "Alice"], b"");

    // One safety number on both sides: 12 groups of 5 digits.
    let a = alice.ok(&["contacts", "verify", "Bob B."], b"");
    let b = bob.ok(&["contacts", "verify", "Alice"], b"");
    assert_eq!(a, b);
    let groups: Vec<&str> = a.trim().split(' ').collect();
    assert_eq!(groups.len(), 12, "{a}");
    assert!(
        groups
            .iter()
            .all(|g| g.len() == 5 && g.chars().all(|c| c.is_ascii_digit())),
        "{a}"
    );

    let list = jsonl(&alice.ok(&["contacts", "list", "--output", "jsonl"], b""));
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["account"], bob.fp.as_str());
    assert_eq!(list[0]["name"], "Bob B.");
    assert_eq!(list[0]["verified"], false);
    alice.ok(&["contacts", "verify", &bob.fp[..12], "--mark"], b"");
    let list = jsonl(&alice.ok(&["contacts", "list", "--output", "jsonl"], b""));
    assert_eq!(list[0]["verified"], true);
    let text = alice.ok(&["contacts", "list"], b"");
    assert!(
        text.starts_with(&format!("{}\tBob B.\tverified\t", bob.fp)),
        "{text}"
    );

    let show = jsonl(&alice.ok(&["contacts", "show", "Bob B.", "--output", "jsonl"], b""));
    assert_eq!(show[0]["devices"], serde_json::json!([bob.fp.as_str()]));
    assert_eq!(show[0]["device_list_version"], 1);
    assert_eq!(show[0]["safety_number"], a.trim().replace(' ', ""));

    // Someone who never published a device list: no key to pin.
    let carol = MlsUser::new(dir.path(), "carol", &addr);
    let out = alice.run(&["contacts", "add", &carol.fp, "--name", "Carol"], b"");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has published no device list"), "{err}");
    // An unknown contact is a usage error.
    let out = alice.run(&["contacts", "verify", "Nobody"], b"");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// Bob rotates his account key with `hermit account rotate
/// --add-to-groups` (his new key joins their group): Alice's
/// `contacts show` exits 6 with the blocking warning, her `group send` and
/// `group invite` exit 6 and nothing reaches the group (the next message
/// she sends, after confirming, takes the offset after Bob's Add Commit;
/// Bob reads only what was sent), `contacts confirm` pins the new key and prints the new
/// fingerprint and safety number.
#[test]
fn a_rotated_account_key_blocks_until_confirmed() {
    use hermit_e2e_tests::{fingerprint, keygen, path_str};
    let dir = tempfile::tempdir().unwrap();
    let broker = chat_inbox_broker(dir.path());
    let addr = broker.addr().to_string();
    let alice = MlsUser::new(dir.path(), "alice", &addr);
    let bob = MlsUser::new(dir.path(), "bob", &addr);
    for u in [&alice, &bob] {
        u.ok(&["keypackages", "publish", "--count", "2"], b"");
    }
    alice.ok(&["contacts", "add", &bob.fp, "--name", "bob"], b"");
    alice.ok(&["contacts", "verify", "bob", "--mark"], b"");
    let topic = alice.ok(&["group", "create"], b"").trim().to_owned();
    alice.ok(&["group", "invite", &topic, &bob.fp], b"");
    bob.ok(&["group", "join"], b"");
    alice.ok(&["group", "send", &topic, "before"], b"");

    let (new_key, new_pub) = keygen(dir.path(), "bob-new");
    let new_fp = fingerprint(&new_pub);
    let new_state = dir.path().join("bob-new-state");
    let out = bob.ok(
        &[
            "account",
            "rotate",
            "--to",
            path_str(&new_key),
            "--to-state-dir",
            path_str(&new_state),
            "--count",
            "2",
            "--add-to-groups",
        ],
        b"",
    );
    assert_eq!(out.trim(), new_fp);
    // The new key as a user of its own; Bob's old device added it to the
    // group (a Commit at the offset after Alice's message).
    let bob_new = MlsUser {
        name: "bob-new".into(),
        key: new_key.clone(),
        pub_file: new_pub.clone(),
        fp: new_fp.clone(),
        state: new_state.clone(),
        broker: addr.clone(),
    };
    assert_eq!(bob_new.ok(&["group", "join"], b"").trim(), topic);

    // Nothing is sent to either key: `group send` reads Bob's directory
    // itself (before any `contacts` command saw the change).
    let out = alice.run(&["group", "send", &topic, "blocked"], b"");
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("changed"),
        "{out:?}"
    );

    // The blocking warning, exit 6.
    let out = alice.run(&["contacts", "show", "bob"], b"");
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("changed to {new_fp}")) && err.contains("hermit contacts confirm"),
        "{err}"
    );
    let out = alice.run(&["contacts", "verify", "bob"], b"");
    assert_eq!(out.status.code(), Some(6), "{out:?}");
    assert!(out.stdout.is_empty(), "no safety number of a changed key");
    let list = jsonl(&alice.ok(&["contacts", "list", "--output", "jsonl"], b""));
    assert_eq!(list[0]["status"], "key-changed");
    assert_eq!(list[0]["verified"], false, "verified is reset");
    assert_eq!(list[0]["key_changed"]["new"], new_fp.as_str());
    let text = alice.ok(&["contacts", "list"], b"");
    assert!(text.contains("\tbob\tkey-changed\t"), "{text}");

    // Inviting the new account is blocked as well.
    let out = alice.run(&["group", "invite", &topic, &new_fp], b"");
    assert_eq!(out.status.code(), Some(6), "{out:?}");

    // Confirm: the new fingerprint and the new safety number.
    let confirmed = alice.ok(&["contacts", "confirm", "bob"], b"");
    let lines: Vec<&str> = confirmed.lines().collect();
    assert_eq!(lines.len(), 2, "{confirmed}");
    assert_eq!(lines[0], new_fp);
    assert_eq!(lines[1].split(' ').count(), 12, "{confirmed}");
    let show = jsonl(&alice.ok(&["contacts", "show", "bob", "--output", "jsonl"], b""));
    assert_eq!(show[0]["account"], new_fp.as_str());
    assert_eq!(show[0]["status"], "unverified");
    assert_eq!(show[0]["devices"], serde_json::json!([new_fp.as_str()]));
    assert_eq!(
        alice.ok(&["contacts", "verify", "bob"], b"").trim(),
        lines[1]
    );

    // The blocked message never reached the group: Bob's old device reads
    // only the two sent (the offsets say less: members' views messages,
    // docs/MLS.md §4.7, follow each change of members).
    alice.ok(&["group", "send", &topic, "after"], b"");
    let read = hermit_e2e_tests::mls::messages(
        &bob_new.ok(&["group", "read", &topic, "--output", "jsonl"], b""),
    );
    let texts: Vec<&str> = read.iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["after"], "the new key joined after the rotation");
    let read = hermit_e2e_tests::mls::messages(
        &bob.ok(&["group", "read", &topic, "--output", "jsonl"], b""),
    );
    let texts: Vec<&str> = read.iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["before", "after"]);
    // Inviting the new account: its device is in already.
    let out = alice.run(&["group", "invite", &topic, &new_fp], b"");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nothing to do"),
        "{out:?}"
    );
}
