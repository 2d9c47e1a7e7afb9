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
