//! MLS devices for the conversation tests: each with its own key, state
//! directory and connection (as its own principal) to a real broker.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hermit_client::crypto::Identity;
use hermit_client::local::StateDir;
use hermit_client::mls::{Conversation, Device, Event};
use hermit_client::{Client, ClientOptions};

/// A device of its own account, with a published device list and
/// `key_packages` KeyPackages.
pub async fn account_device(
    addr: SocketAddr,
    root: &Path,
    name: &str,
    key_packages: usize,
) -> Device {
    account_device_at(&addr.to_string(), root, name, key_packages).await
}

/// [`account_device`] on any broker URL (`nats://…` included).
pub async fn account_device_at(url: &str, root: &Path, name: &str, key_packages: usize) -> Device {
    let identity = Identity::generate().expect("key");
    let device = open_device_at(url, root, name, identity).await;
    device.publish_device_list(&[]).await.expect("device list");
    device
        .publish_key_packages(key_packages)
        .await
        .expect("key packages");
    device
}

/// Opens the device `identity` with the state directory `root/name`.
pub async fn open_device(addr: SocketAddr, root: &Path, name: &str, identity: Identity) -> Device {
    open_device_at(&addr.to_string(), root, name, identity).await
}

/// [`open_device`] on any broker URL (`nats://…` included).
pub async fn open_device_at(url: &str, root: &Path, name: &str, identity: Identity) -> Device {
    let dir = Arc::new(StateDir::open(root.join(name)).expect("state dir"));
    let options = ClientOptions {
        identity: Some(Arc::new(identity.clone())),
        ..ClientOptions::default()
    };
    let client = Client::connect(url, options).await.expect("connect");
    Device::open(identity, dir, client).expect("open device")
}

/// Receives until `pred` holds for an event (acknowledging as it goes);
/// returns every event seen. Waits by long polls, up to 20 s in all.
pub async fn receive_until(
    c: &mut Conversation,
    mut pred: impl FnMut(&Event) -> bool,
) -> Vec<Event> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let events = c
            .receive(Duration::from_millis(500))
            .await
            .expect("receive");
        c.ack().expect("ack");
        let done = events.iter().any(&mut pred);
        seen.extend(events);
        if done {
            return seen;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no matching event within 20 s; saw {seen:#?}"
        );
    }
}

/// The texts of the message events, in order.
pub fn texts(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Message { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// A conversation of `n` accounts (one device each): the first creates it
/// and invites the others one by one; every member has caught up.
pub async fn group_of(
    addr: SocketAddr,
    root: &Path,
    n: usize,
    key_packages: usize,
) -> (Vec<Device>, Vec<Conversation>) {
    let mut devices = Vec::new();
    for i in 0..n {
        devices.push(account_device(addr, root, &format!("member{i}"), key_packages).await);
    }
    let mut first = devices[0].create_conversation().await.expect("create");
    let topic = first.topic().to_owned();
    for d in &devices[1..] {
        first
            .invite(d.account().fingerprint())
            .await
            .expect("invite");
    }
    let mut convs = vec![first];
    for d in &devices[1..] {
        assert_eq!(
            d.accept_welcomes().await.expect("welcomes"),
            vec![topic.clone()]
        );
        convs.push(d.conversation(&topic).expect("open"));
    }
    for c in &mut convs {
        c.catch_up().await.expect("catch up");
        c.receive(Duration::ZERO).await.expect("receive");
        c.ack().expect("ack");
    }
    (devices, convs)
}

/// Catches every member up and returns the events each had waiting.
pub async fn drain(convs: &mut [Conversation]) -> Vec<Vec<Event>> {
    let mut all = Vec::new();
    for c in convs.iter_mut() {
        c.catch_up().await.expect("catch up");
        let events = c.receive(Duration::ZERO).await.expect("receive");
        c.ack().expect("ack");
        all.push(events);
    }
    all
}

/// Asserts every member is at one epoch with one epoch authenticator.
pub fn assert_agree(convs: &[Conversation], context: &str) {
    let epoch = convs[0].epoch();
    let auth = convs[0].epoch_authenticator().expect("authenticator");
    for (i, c) in convs.iter().enumerate() {
        assert_eq!(c.epoch(), epoch, "member {i} epoch ({context})");
        assert_eq!(
            c.epoch_authenticator().expect("authenticator"),
            auth,
            "member {i} authenticator ({context})"
        );
    }
}

/// A copy of the state directory `root/from` at `root/to` (what a thief
/// who took the device's disk has): every file but the lock.
pub fn copy_state(root: &Path, from: &str, to: &str) {
    let dst = root.join(to);
    std::fs::create_dir_all(&dst).expect("mkdir");
    std::fs::set_permissions(&dst, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("chmod");
    for e in std::fs::read_dir(root.join(from)).expect("read dir") {
        let e = e.expect("entry");
        if e.file_name() != "lock" {
            std::fs::copy(e.path(), dst.join(e.file_name())).expect("copy");
        }
    }
}

/// An account device whose identity the test keeps (to open copies of its
/// state as the same device).
pub async fn account_device_with_key(
    addr: SocketAddr,
    root: &Path,
    name: &str,
    key_packages: usize,
) -> (Device, Identity) {
    let identity = Identity::generate().expect("key");
    let device = open_device(addr, root, name, identity.clone()).await;
    device.publish_device_list(&[]).await.expect("device list");
    device
        .publish_key_packages(key_packages)
        .await
        .expect("key packages");
    (device, identity)
}

/// Alice (an account device) and Bob (one whose key the test keeps) in a
/// conversation Alice made and invited Bob to; Bob has joined.
pub struct Pair {
    /// Alice's device.
    pub alice: Device,
    /// Bob's device.
    pub bob: Device,
    /// Bob's key (to open copies of his state as him).
    pub bob_key: Identity,
    /// Alice's side of the conversation.
    pub a: Conversation,
    /// Bob's side.
    pub b: Conversation,
}

/// See [`Pair`].
pub async fn pair(addr: SocketAddr, root: &Path) -> Pair {
    let alice = account_device(addr, root, "alice", 2).await;
    let (bob, bob_key) = account_device_with_key(addr, root, "bob", 2).await;
    let mut a = alice.create_conversation().await.expect("create");
    a.invite(bob.account().fingerprint()).await.expect("invite");
    bob.accept_welcomes().await.expect("welcomes");
    let b = bob.conversation(a.topic()).expect("open");
    Pair {
        alice,
        bob,
        bob_key,
        a,
        b,
    }
}

// ---- what a broker with admin rights can do to `dir.<account>` -------------

/// Writes `value` under `key` in `account`'s directory topic, as anyone
/// with the broker's admin rights can (auth is off in these tests).
pub async fn write_dir(
    c: &Client,
    account: &hermit_client::crypto::Fingerprint,
    key: &[u8],
    value: &[u8],
) {
    let mut b = hermit_protocol::BatchBuilder::new(key);
    b.push(value);
    c.produce(
        &hermit_client::mls::device_list::directory_topic(account),
        0,
        hermit_client::Ack::Durable,
        b.finish(1).unwrap().into(),
    )
    .await
    .expect("produce to a directory topic");
}

/// Writes `list` under `account`'s device-list key ([`write_dir`]).
pub async fn write_list(c: &Client, account: &hermit_client::crypto::Fingerprint, list: &[u8]) {
    write_dir(
        c,
        account,
        hermit_client::mls::device_list::DEVICES_KEY,
        list,
    )
    .await;
}

/// Empties `account`'s directory topic (deleted and made again).
pub async fn refill(c: &Client, account: &hermit_client::crypto::Fingerprint) {
    let topic = hermit_client::mls::device_list::directory_topic(account);
    c.delete_topic(&topic).await.expect("delete");
    c.create_topic(
        &topic,
        hermit_client::TopicSettings {
            partitions: 1,
            cleanup: hermit_client::Cleanup::Compact,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .await
    .expect("create");
}

/// Empties `account`'s directory topic and puts `list` (bytes the account
/// once signed) back alone: a rollback.
pub async fn roll_back(c: &Client, account: &hermit_client::crypto::Fingerprint, list: &[u8]) {
    refill(c, account).await;
    write_list(c, account, list).await;
}

/// A device bound to `account` (the list naming it published first, the
/// binding signed with that version), with `key_packages` KeyPackages.
pub async fn bound_device(
    account: &Device,
    addr: std::net::SocketAddr,
    root: &std::path::Path,
    name: &str,
) -> (Device, Identity) {
    let key = Identity::generate().expect("key");
    let binding = account.bind(key.public_key()).await.expect("bind");
    let dir = hermit_client::local::StateDir::open(root.join(name)).expect("state dir");
    Device::store_binding(&dir, &key, &binding).expect("store binding");
    drop(dir);
    let device = open_device(addr, root, name, key.clone()).await;
    device.publish_key_packages(2).await.expect("key packages");
    (device, key)
}
