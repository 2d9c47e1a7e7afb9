//! Topic listings over real sockets: `ListTopics` pages (a cursor, a
//! limit, a bounded scan, the frame size) and `Metadata` of all topics,
//! answered only when it takes one page (docs/PROTOCOL.md §3).

mod netcommon;

use std::net::SocketAddr;

use hermit_broker::config::{AclRule, AuthMode, Config, FsyncPolicy};
use hermit_protocol::frame::{MAX_LIST_LIMIT, TopicMetadata};
use hermit_protocol::{Request, Status};
use netcommon::*;

/// Durability is not what these tests are about: topics are created fast
/// (with `scratch_dir`, on tmpfs where there is one).
fn quick(c: &mut Config) {
    c.fsync = FsyncPolicy::Never;
}

/// Create `names` over `conns` connections, each pipelining its share.
async fn create_all(addr: SocketAddr, key: Option<&Key>, names: &[String]) {
    let conns = 2;
    let mut tasks = Vec::new();
    for part in names.chunks(names.len().div_ceil(conns).max(1)) {
        let part = part.to_vec();
        let raw = match key {
            Some(k) => connect_as(addr, k).await,
            None => Raw::connect(addr).await,
        };
        tasks.push(tokio::spawn(async move {
            let mut raw = raw;
            let mut sent = Vec::new();
            for n in &part {
                sent.push(raw.send(&create_req(n, 1)).await);
            }
            for corr in sent {
                let r = raw.recv().await.expect("an answer to every create");
                assert_eq!(r.corr, corr);
                assert_eq!(r.status, Status::Ok, "{}", r.message);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

/// Every page of a listing with `limit`: (topics, next) each.
async fn pages(raw: &mut Raw, limit: u32) -> Vec<(Vec<TopicMetadata>, Option<String>)> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let r = raw.call(&list_req(after.as_deref(), limit)).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
        let (topics, next) = r.page.expect("a ListTopics page");
        assert!(topics.len() <= limit as usize);
        if let Some(n) = &next
            && !n.starts_with("__cursor.")
        {
            assert!(
                after
                    .as_deref()
                    .is_none_or(|a| a.starts_with("__cursor.") || n.as_str() > a),
                "the cursor moves forward"
            );
            assert_eq!(
                topics.last().map(|t| t.name.as_str()),
                Some(n.as_str()),
                "a cursor that is a name is the page's last topic"
            );
        }
        out.push((topics, next.clone()));
        match next {
            Some(n) => after = Some(n),
            None => return out,
        }
        assert!(out.len() < 10_000, "the listing never ends");
    }
}

fn names_of(pages: &[(Vec<TopicMetadata>, Option<String>)]) -> Vec<String> {
    pages
        .iter()
        .flat_map(|(t, _)| t.iter().map(|t| t.name.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_answers_one_page_and_list_topics_pages_every_topic_once_in_order() {
    let dir = scratch_dir();
    let broker = start(dir.path(), quick).await;
    let names: Vec<String> = (0..2500).map(|i| format!("t.{i:04}")).collect();
    create_all(broker.addr(), None, &names[..1000]).await;
    let mut raw = Raw::connect(broker.addr()).await;
    // A commit makes the internal __consumer_offsets topic hold data: it
    // is never listed, though it sorts among these names.
    assert_eq!(
        raw.call(&commit_req("g", "t.0001", 0)).await.status,
        Status::Ok
    );

    // Metadata of all topics: one page of 1,000 is answered…
    let r = raw.call(&Request::Metadata(None)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(r.topics.as_deref(), Some(&names[..1000]));
    // …one more is refused, saying what to do instead.
    create_all(broker.addr(), None, &names[1000..]).await;
    let r = raw.call(&Request::Metadata(None)).await;
    assert_eq!(r.status, Status::PayloadTooLarge);
    assert!(
        r.message.contains("more than 1000 topics") && r.message.contains("ListTopics"),
        "{}",
        r.message
    );
    // A refusal, not bad input: the connection stays open.
    assert_eq!(raw.call(&Request::Ping).await.status, Status::Ok);
    let r = raw.call(&Request::Metadata(Some(topic("t.2000")))).await;
    assert_eq!(r.topics, Some(vec!["t.2000".to_owned()]));

    // 2,500 topics in pages of 1,000: three pages.
    let got = pages(&mut raw, MAX_LIST_LIMIT).await;
    let sizes: Vec<usize> = got.iter().map(|(t, _)| t.len()).collect();
    assert_eq!(sizes, [1000, 1000, 500]);
    assert_eq!(got[0].1.as_deref(), Some("t.0999"));
    assert_eq!(got[1].1.as_deref(), Some("t.1999"));
    assert_eq!(got[2].1, None, "the last page ends the listing");
    assert_eq!(names_of(&got), names, "every topic once, in name order");
    let t = &got[0].0[1];
    assert_eq!((t.name.as_str(), t.partitions.len()), ("t.0001", 1));

    // A cursor in the middle, one that is no topic, and one past the end.
    let r = raw.call(&list_req(Some("t.2497"), 10)).await;
    let (topics, next) = r.page.unwrap();
    let listed: Vec<&str> = topics.iter().map(|t| t.name.as_str()).collect();
    assert_eq!((listed, next), (vec!["t.2498", "t.2499"], None));
    let r = raw.call(&list_req(Some("t.0100x"), 2)).await;
    let listed: Vec<String> = r.page.unwrap().0.into_iter().map(|t| t.name).collect();
    assert_eq!(listed, ["t.0101", "t.0102"]);
    let r = raw.call(&list_req(Some("zzz"), 5)).await;
    assert_eq!(r.page, Some((Vec::new(), None)));

    // Small pages walk the same listing.
    let small = pages(&mut raw, 7).await;
    assert_eq!(names_of(&small), names);
    assert!(small.iter().all(|(t, n)| t.len() == 7 || n.is_none()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_topics_limits_outside_1_to_1000_are_malformed() {
    let dir = scratch_dir();
    let broker = start(dir.path(), quick).await;
    for limit in [0, MAX_LIST_LIMIT + 1] {
        let mut raw = Raw::connect(broker.addr()).await;
        let corr = raw.send(&list_req(None, limit)).await;
        let answers = raw.until_closed().await;
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0].corr, corr);
        assert_eq!(answers[0].status, Status::InvalidRequest);
        assert!(
            answers[0].message.contains("limit"),
            "{}",
            answers[0].message
        );
    }
    // 1 and 1000 are fine.
    let mut raw = Raw::connect(broker.addr()).await;
    for limit in [1, MAX_LIST_LIMIT] {
        let r = raw.call(&list_req(None, limit)).await;
        assert_eq!(r.page, Some((Vec::new(), None)), "{}", r.message);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_stop_before_outgrowing_the_frame() {
    let dir = scratch_dir();
    // max_payload 1 KiB, no keys: frames of at most 1,327 bytes.
    let broker = start(dir.path(), |c| {
        quick(c);
        c.max_payload = 1024;
        c.max_key = 0;
    })
    .await;
    let names: Vec<String> = (0..50).map(|i| format!("f.{i:04}")).collect();
    create_all(broker.addr(), None, &names).await;
    let mut raw = Raw::connect(broker.addr()).await;
    // A topic whose metadata (1,229 bytes) no page of this connection can hold.
    assert_eq!(raw.call(&create_req("g.big", 60)).await.status, Status::Ok);
    let max_frame = raw.hello.unwrap().max_frame as usize;
    assert_eq!(max_frame, 1327);
    let mut after: Option<String> = None;
    let mut all = Vec::new();
    let mut sizes = Vec::new();
    let refused = loop {
        let r = raw.call(&list_req(after.as_deref(), MAX_LIST_LIMIT)).await;
        if r.status != Status::Ok {
            break r;
        }
        assert!(r.frame_len <= max_frame, "{} > {max_frame}", r.frame_len);
        let (topics, next) = r.page.unwrap();
        sizes.push(topics.len());
        all.extend(topics.into_iter().map(|t| t.name));
        after = Some(next.expect("g.big is still to come"));
    };
    // Each topic's metadata is 48 bytes: 22 fit in the room a page has.
    assert_eq!(sizes, [22, 22, 6]);
    assert_eq!(all, names);
    assert_eq!(refused.status, Status::PayloadTooLarge);
    assert!(
        refused.message.contains("g.big") && refused.message.contains("1327"),
        "{}",
        refused.message
    );
    // Declined, not malformed: the connection stays open.
    assert_eq!(raw.call(&Request::Ping).await.status, Status::Ok);
}

/// Two rules: anyone authenticated may describe (and consume) `{principal}.*`.
fn own_topics_acl(admin: &Key) -> impl FnOnce(&mut Config) {
    let admin = admin.hex.clone();
    move |c: &mut Config| {
        quick(c);
        c.auth = AuthMode::Required;
        c.admins = vec![admin];
        c.acl = vec![AclRule {
            principal: "*".into(),
            topics: "{principal}.*".into(),
            allow: vec!["describe".into(), "consume".into()],
            groups: None,
        }];
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_shows_only_what_the_caller_may_describe_with_a_bounded_scan() {
    let (alice, bob, admin) = (Key::new(), Key::new(), Key::new());
    let dir = scratch_dir();
    let broker = start(dir.path(), own_topics_acl(&admin)).await;
    // "0.…" sorts before every fingerprint, "z.…" after them all.
    let mut names: Vec<String> = (0..300).map(|i| format!("0.{i:04}")).collect();
    names.extend((0..300).map(|i| format!("z.{i:04}")));
    let mine = |k: &Key| -> Vec<String> { (0..30).map(|i| format!("{}.{i:02}", k.hex)).collect() };
    names.extend(mine(&alice));
    names.extend(mine(&bob));
    create_all(broker.addr(), Some(&admin), &names).await;

    for (key, other) in [(&alice, &bob), (&bob, &alice)] {
        let mut raw = connect_as(broker.addr(), key).await;
        let got = pages(&mut raw, 10).await;
        assert_eq!(names_of(&got), mine(key), "only its own topics, in order");
        assert!(
            !names_of(&got).iter().any(|n| n.starts_with(&other.hex)),
            "never another principal's"
        );
        // A page scans at most 8 × its limit catalog entries: the 300
        // topics before its own give empty pages that carry a cursor,
        // where an unbounded scan would have found its first 10 at once.
        assert!(got[0].0.is_empty() && got[0].1.is_some(), "{:?}", got[0]);
        // And no cursor names a topic it may not see: those are opaque.
        for (_, next) in &got {
            if let Some(n) = next {
                assert!(
                    n.starts_with("__cursor.") || n.starts_with(&key.hex),
                    "a cursor names only what the caller may see: {n}"
                );
            }
        }
        // A cursor this connection never handed out is refused; the
        // connection stays open.
        let r = raw.call(&list_req(Some("__cursor.99999"), 10)).await;
        assert_eq!(r.status, Status::InvalidRequest, "{}", r.message);
        assert_eq!(raw.call(&Request::Ping).await.status, Status::Ok);
        assert!(got.len() >= 661 / 80, "{} pages", got.len());
        // Metadata of all topics, small enough here, is filtered the same way.
        let r = raw.call(&Request::Metadata(None)).await;
        assert_eq!(r.topics, Some(mine(key)), "{}", r.message);
    }
    // An anonymous caller, where authentication is required, gets an empty
    // listing at once: no page, and no cursor naming a topic.
    let mut anon = Raw::connect(broker.addr()).await;
    let r = anon.call(&list_req(None, 10)).await;
    assert_eq!(r.page, Some((Vec::new(), None)), "{}", r.message);
    // The admin may describe everything.
    let mut adm = connect_as(broker.addr(), &admin).await;
    let mut all = names.clone();
    all.sort();
    assert_eq!(names_of(&pages(&mut adm, MAX_LIST_LIMIT).await), all);
}

/// What a caller sees of one ListTopics answer: status, message, the names
/// listed and the next cursor.
type Seen = (Status, String, Option<(Vec<String>, Option<String>)>);

/// Run the same ListTopics script as `key` against a broker: crafted
/// `after` values, names it may see, cursors it was given.
async fn list_script(addr: SocketAddr, key: &Key) -> Vec<Seen> {
    let mut raw = connect_as(addr, key).await;
    let mine = format!("inbox.{}", key.hex);
    let mut seen = Vec::new();
    let ask = async |raw: &mut Raw, after: Option<&str>, limit: u32| {
        let r = raw.call(&list_req(after, limit)).await;
        let page = r
            .page
            .map(|(t, n)| (t.into_iter().map(|t| t.name).collect(), n));
        (r.status, r.message, page)
    };
    // Crafted places in the order, around and among the hidden inboxes.
    for after in [
        "inbox.0", "inbox.5", "inbox.8", "inbox.f", "a", "inbox", "pub", "zzz",
    ] {
        for limit in [1, 3, 1000] {
            seen.push(ask(&mut raw, Some(after), limit).await);
        }
    }
    // Names it may see, and the whole listing in one page.
    for after in [None, Some(mine.as_str()), Some("pub.a"), Some("pub.e")] {
        seen.push(ask(&mut raw, after, 1000).await);
    }
    seen
}

/// Issue 31 item 2: no sequence of ListTopics requests tells a caller a
/// name it may not describe. Two brokers whose catalogs differ only in
/// names the caller may not see (other users' inboxes, sorting before or
/// after its own) give it the same answers to the same script, crafted
/// `after` values included; a walk with small pages lists the same names
/// (its page boundaries may differ: docs/SECURITY.md §3). On f19e5d6 an
/// `after` such as "inbox.5" was accepted, and whether a one-topic page
/// carried a cursor told how many hidden names sorted after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listings_do_not_depend_on_names_the_caller_may_not_see() {
    let (me, admin) = (Key::new(), Key::new());
    let rules = |c: &mut Config| {
        quick(c);
        c.auth = AuthMode::Required;
        c.admins = vec![admin.hex.clone()];
        c.acl = vec![
            AclRule {
                principal: "*".into(),
                topics: "pub.*".into(),
                allow: vec!["describe".into()],
                groups: None,
            },
            AclRule {
                principal: "*".into(),
                topics: "inbox.{principal}".into(),
                allow: vec!["describe".into(), "consume".into()],
                groups: None,
            },
        ];
    };
    let visible: Vec<String> = ["pub.a", "pub.b", "pub.c", "pub.d", "pub.e"]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("inbox.{}", me.hex)])
        .collect();
    let mut answers = Vec::new();
    let mut walks = Vec::new();
    for hidden_prefix in ["1", "9"] {
        let dir = scratch_dir();
        let broker = start(dir.path(), rules).await;
        let mut names = visible.clone();
        names.extend((0..12).map(|i| format!("inbox.{hidden_prefix}{i:063}")));
        create_all(broker.addr(), Some(&admin), &names).await;
        answers.push(list_script(broker.addr(), &me).await);
        let mut raw = connect_as(broker.addr(), &me).await;
        walks.push(names_of(&pages(&mut raw, 1).await));
    }
    assert_eq!(
        answers[0], answers[1],
        "the same answers, whatever is hidden"
    );
    assert_eq!(walks[0], walks[1], "the same names listed");
    let mut expected = visible.clone();
    expected.sort();
    assert_eq!(walks[0], expected);
}
