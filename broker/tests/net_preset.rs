//! The `chat-inbox` preset over real sockets (docs/SECURITY.md §3): a
//! listing never enumerates the principals who use the broker. Anyone
//! authenticated still reads any device list (`dir.`) and claims or reads
//! any device's KeyPackages (`keypackages.`) by name, but ListTopics and
//! Metadata show each principal only its own; what they still show
//! everyone is the MLS and group conversations, named at random.

mod netcommon;

use std::net::SocketAddr;

use hermit_broker::config::{AuthMode, Config};
use hermit_protocol::frame::MAX_LIST_LIMIT;
use hermit_protocol::{Ack, Request, Status};
use netcommon::*;

/// `auth = "required"` and the preset alone: no rule written by hand.
fn preset_only(c: &mut Config) {
    c.auth = AuthMode::Required;
    c.acl_preset = Some("chat-inbox".into());
}

/// Every name ListTopics shows this connection, following its cursors.
async fn listed(raw: &mut Raw) -> Vec<String> {
    let mut names = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let r = raw.call(&list_req(after.as_deref(), MAX_LIST_LIMIT)).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
        let (topics, next) = r.page.expect("a ListTopics page");
        names.extend(topics.into_iter().map(|t| t.name));
        match next {
            Some(n) => after = Some(n),
            None => return names,
        }
    }
}

/// What a device publishes, as the SDKs do it: its account's device list
/// (`dir.`), its KeyPackages (`keypackages.`: partition 0 claimed,
/// partition 1 the last-resort one), its Welcome topic and its inbox; each
/// created by the principal itself.
async fn publish(addr: SocketAddr, key: &Key, tag: u64) -> Vec<String> {
    let mut raw = connect_as(addr, key).await;
    let dir = format!("dir.{}", key.hex);
    let kp = format!("keypackages.{}", key.hex);
    let welcome = format!("welcome.{}", key.hex);
    let inbox = format!("inbox.{}", key.hex);
    for (t, partitions) in [(&dir, 1), (&kp, 2), (&welcome, 1), (&inbox, 1)] {
        let r = raw.call(&create_req(t, partitions)).await;
        assert_eq!(r.status, Status::Ok, "create {t}: {}", r.message);
    }
    for (t, partition) in [(&dir, 0), (&kp, 0), (&kp, 1)] {
        let b = batch(1, 40, tag);
        let r = raw.call(&produce_req(t, partition, &b, Ack::Durable)).await;
        assert_eq!(
            r.status,
            Status::Ok,
            "produce {t}/{partition}: {}",
            r.message
        );
    }
    let mut mine = vec![dir, kp, welcome, inbox];
    mine.sort();
    mine
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_inbox_preset_lists_no_one_elses_device_list_or_keypackages() {
    let (alice, bob, mallory) = (Key::new(), Key::new(), Key::new());
    let dir = scratch_dir();
    let broker = start(dir.path(), preset_only).await;
    let addr = broker.addr();
    publish(addr, &alice, 1).await;
    let bobs = publish(addr, &bob, 2).await;
    // A conversation of Alice's: its name is random, and no one may
    // describe it (a listing must not hand out conversations' names).
    let group = "mls.0123456789abcdef0123456789abcdef";
    let mut a = connect_as(addr, &alice).await;
    let r = a.call(&create_req(group, 1)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);

    // Mallory's listing names neither Alice nor Bob, nor the conversation.
    let mut m = connect_as(addr, &mallory).await;
    let seen = listed(&mut m).await;
    for who in [&alice, &bob] {
        assert!(
            !seen.iter().any(|n| n.contains(&who.hex)),
            "Mallory's listing names a principal: {seen:?}"
        );
    }
    assert!(seen.is_empty(), "{seen:?}");
    // Metadata of every topic is filtered the same way; of one of Bob's
    // topics, refused.
    let r = m.call(&Request::Metadata(None)).await;
    assert_eq!(r.topics, Some(Vec::new()), "{}", r.message);
    let bob_dir = format!("dir.{}", bob.hex);
    let bob_kp = format!("keypackages.{}", bob.hex);
    for t in [&bob_dir, &bob_kp] {
        let r = m.call(&Request::Metadata(Some(topic(t)))).await;
        assert_eq!(r.status, Status::Unauthorized, "{t}: {}", r.message);
        // Nor may a listing start after it: that would tell it exists.
        let r = m.call(&list_req(Some(t), 10)).await;
        assert_eq!(r.status, Status::InvalidRequest, "{t}: {}", r.message);
    }

    // By name, Mallory still reads Bob's device list and last-resort
    // KeyPackage, and claims one of his KeyPackages: what inviting him takes.
    let r = m.fetch(&bob_dir, 0, 1 << 20, 0).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(r.batch_bases(), [0]);
    let r = m.call(&fetch_req(&bob_kp, 1, 0, 1 << 20, 0)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(r.batch_bases(), [0]);
    let r = m.call(&claim_req(&bob_kp, 0, [7; 16])).await;
    assert_eq!(r.claimed.map(|c| (c.0, c.1)), Some((0, 1)), "{}", r.message);

    // Bob's listing shows his own topics, never Alice's or the conversation.
    let mut b = connect_as(addr, &bob).await;
    assert_eq!(listed(&mut b).await, bobs);
    // By name, the conversation is still written and read (its members know it).
    let r = m.fetch(group, 0, 1 << 20, 0).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    broker.shutdown().await.unwrap();
}
