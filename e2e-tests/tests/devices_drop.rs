//! `hermit devices drop` through `hermit` processes against a real broker
//! (`auth = "required"`, `acl_preset = "chat-inbox"`; issue 37 item 3,
//! docs/MLS.md §4.4): Bob's account device binds a laptop, both join
//! Alice's group, Bob drops the laptop; Alice's `group read` shows a
//! `device_removed` event naming the laptop, Bob's account device as the
//! one that removed it, and when; the laptop reads that it was removed and
//! nothing Alice sends after.

use std::time::{SystemTime, UNIX_EPOCH};

use hermit_e2e_tests::mls::{MlsUser, chat_inbox_broker, messages};
use hermit_e2e_tests::path_str;

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

fn jsonl(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn a_dropped_device_is_removed_and_members_see_who_and_when() {
    let dir = tempfile::tempdir().unwrap();
    let broker = chat_inbox_broker(dir.path());
    let addr = broker.addr().to_string();
    let alice = MlsUser::new(dir.path(), "alice", &addr);
    let bob = MlsUser::new(dir.path(), "bob", &addr);
    let laptop = MlsUser::new(dir.path(), "bob-laptop", &addr);
    for u in [&alice, &bob] {
        u.ok(&["keypackages", "publish", "--count", "1"], b"");
    }
    // Bob's account binds the laptop; the laptop publishes its KeyPackages.
    let binding = bob.ok(&["devices", "add", path_str(&laptop.pub_file)], b"");
    laptop.ok(&["devices", "bind", "-"], binding.as_bytes());
    laptop.ok(&["keypackages", "publish", "--count", "1"], b"");

    // Alice invites Bob's account: both of his devices.
    let topic = alice.ok(&["group", "create"], b"").trim().to_owned();
    alice.ok(&["group", "invite", &topic, &bob.fp], b"");
    for u in [&bob, &laptop] {
        assert_eq!(u.ok(&["group", "join"], b"").trim(), topic, "{}", u.name);
    }

    let before = now_ms();
    let dropped = bob.ok(&["devices", "drop", &laptop.fp], b"");
    let after = now_ms();
    assert_eq!(dropped.trim(), topic, "removed from the one group");
    alice.ok(&["group", "send", &topic, "after the drop"], b"");

    let events = jsonl(&alice.ok(&["group", "read", &topic, "--output", "jsonl"], b""));
    let removed: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["event"] == "device_removed")
        .collect();
    assert_eq!(removed.len(), 1, "{events:#?}");
    let r = removed[0];
    assert_eq!(r["topic"], topic.as_str());
    assert_eq!(r["account"], bob.fp.as_str());
    assert_eq!(r["device"], laptop.fp.as_str());
    assert_eq!(r["by_device"], bob.fp.as_str(), "who removed it");
    let at = r["at"].as_u64().expect("when");
    assert!((before..=after).contains(&at), "{before} ≤ {at} ≤ {after}");
    assert_eq!(
        r["list_version"], 3,
        "v1 Bob, v2 with the laptop, v3 without"
    );
    assert!(
        !events.iter().any(|e| e["event"] == "member_removed"),
        "told once, as a dropped device: {events:#?}"
    );

    // The laptop reads that it was removed (its last event: reading stops
    // there) and not Alice's message.
    let out = laptop.ok(&["group", "read", &topic, "--output", "jsonl"], b"");
    let events = jsonl(&out);
    assert!(messages(&out).is_empty(), "{events:#?}");
    assert_eq!(
        events.last().map(|e| e["event"].clone()),
        Some("removed".into()),
        "{events:#?}"
    );
}
