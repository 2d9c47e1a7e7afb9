//! ConditionalProduce over real sockets: the access it needs (`produce`,
//! checked before anything happens), the `EndMoved` refusal with the
//! partition's bounds, and the frame judged as early as a Produce's.

mod netcommon;

use hermit_broker::config::{AclRule, AuthMode, Config};
use hermit_protocol::{Ack, Status};
use netcommon::*;

/// Alice may consume and describe `log.*` but not produce; Bob may do both.
fn rules(alice: &Key, bob: &Key) -> impl FnOnce(&mut Config) {
    let rule = |who: &Key, allow: &[&str]| AclRule {
        principal: who.hex.clone(),
        topics: "log.*".into(),
        allow: allow.iter().map(|a| (*a).to_owned()).collect(),
        groups: None,
    };
    let acl = vec![
        rule(alice, &["consume", "describe", "claim"]),
        rule(bob, &["produce", "consume", "describe", "create"]),
    ];
    move |c: &mut Config| {
        c.auth = AuthMode::Required;
        c.acl = acl;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conditional_produce_needs_produce_and_a_refused_one_writes_nothing() {
    let (alice, bob) = (Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), rules(&alice, &bob)).await;
    let mut a = connect_as(broker.addr(), &alice).await;
    let mut b = connect_as(broker.addr(), &bob).await;
    let one = batch(1, 10, 1);

    // Without `produce` (even with `claim` and `consume`): Unauthorized, the
    // topic not created, nothing written; the connection stays open.
    let r = a
        .call(&conditional_req("log.a", 0, &one, Ack::Durable))
        .await;
    assert_eq!(r.status, Status::Unauthorized, "{}", r.message);
    assert!(r.message.contains("produce log.a"), "{}", r.message);
    let r = b
        .call(&hermit_protocol::Request::Metadata(Some(topic("log.a"))))
        .await;
    assert_eq!(r.status, Status::UnknownTopic, "{}", r.message);

    // Bob may: the first at 0 appends (creating the topic), a second at 0
    // is told the end, 1, with the log start.
    let r = b
        .call(&conditional_req("log.a", 0, &one, Ack::Durable))
        .await;
    assert_eq!(
        (r.status, r.base_offset),
        (Status::Ok, Some(0)),
        "{}",
        r.message
    );
    let r = b
        .call(&conditional_req("log.a", 0, &one, Ack::Durable))
        .await;
    assert_eq!(r.status, Status::EndMoved, "{}", r.message);
    assert_eq!(r.bounds, Some((0, 1)));
    // Alice, refused again at the right end: still one record.
    let r = a
        .call(&conditional_req("log.a", 1, &one, Ack::Durable))
        .await;
    assert_eq!(r.status, Status::Unauthorized);
    assert_eq!(
        a.call(&hermit_protocol::Request::Ping).await.status,
        Status::Ok
    );
    let r = a.fetch("log.a", 0, 1 << 20, 0).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(r.batch_bases(), vec![0]);
    assert_eq!(r.fetch.as_ref().unwrap().0, 1);
}

/// A conditional produce larger than a control frame is taken (it carries
/// a batch, as Produce does), and one whose batch breaks the limits is
/// refused from its header and closes the connection, as Produce's would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conditional_produce_frame_is_judged_like_a_produce() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.max_payload = 64 * 1024).await;
    let mut c = Raw::connect(broker.addr()).await;
    let big = batch(4, 8 * 1024, 2);
    let r = c.call(&conditional_req("big", 0, &big, Ack::Durable)).await;
    assert_eq!(
        (r.status, r.base_offset),
        (Status::Ok, Some(0)),
        "{}",
        r.message
    );
    let too_big = batch(2, 40 * 1024, 3);
    let r = c
        .call(&conditional_req("big", 4, &too_big, Ack::Written))
        .await;
    assert_eq!(r.status, Status::PayloadTooLarge, "{}", r.message);
    assert!(c.until_closed().await.is_empty());
    // Nothing of it reached the log.
    let mut d = Raw::connect(broker.addr()).await;
    assert_eq!(d.fetch("big", 0, 1 << 20, 0).await.fetch.unwrap().0, 4);
}
