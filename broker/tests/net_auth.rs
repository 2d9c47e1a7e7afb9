//! Authentication and access control over real sockets: protocol version 3,
//! `Authenticate` with ECDSA P-256 over the connection's nonce and the
//! broker id, and the chat-inbox ACL (docs/SECURITY.md).

mod netcommon;

use hermit_broker::config::{AuthMode, Config};
use hermit_protocol::auth::{
    MECHANISM_P256_ECDSA, MECHANISM_P256_ECDSA_BOUND, transcript, transcript_bound,
};
use hermit_protocol::frame::Authenticate;
use hermit_protocol::hello::{BrokerFlags, HELLO_LEN, Hello};
use hermit_protocol::{Ack, Request, Status};
use netcommon::*;
use p256::ecdsa::Signature;
use p256::ecdsa::signature::Signer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn inbox_acl(admins: Vec<String>) -> impl FnOnce(&mut Config) {
    move |c: &mut Config| {
        c.auth = AuthMode::Required;
        c.admins = admins;
        c.acl = inbox_rules();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_acl_lets_alice_write_to_bob_and_only_bob_read_it() {
    let (alice, bob, mallory, admin) = (Key::new(), Key::new(), Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), inbox_acl(vec![admin.hex.clone()])).await;
    let inbox = format!("inbox.{}", bob.hex);
    let group = format!("{}.chat", bob.hex);

    // The admin creates Bob's inbox (nobody else may create topics).
    let mut adm = connect_as(broker.addr(), &admin).await;
    let r = adm.call(&create_req(&inbox, 1)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);

    // Anonymous: the hello says authentication is required; nothing is allowed.
    let mut anon = Raw::connect(broker.addr()).await;
    let flags = anon.hello.unwrap().flags;
    assert!(flags.has(BrokerFlags::AUTH_REQUIRED) && flags.has(BrokerFlags::AUTH_AVAILABLE));
    for req in [
        Request::DeleteTopic(topic(&inbox)),
        fetch_req(&inbox, 0, 0, 1 << 20, 0),
        commit_req(&group, &inbox, 0),
        produce_req(&inbox, 0, &batch(1, 10, 0), Ack::Durable),
    ] {
        let r = anon.call(&req).await;
        assert_eq!(r.status, Status::Unauthorized, "{req:?}");
        assert!(r.message.contains("as anonymous"), "{}", r.message);
        assert!(
            r.message.contains("requires authentication"),
            "{}",
            r.message
        );
    }
    // The connection stays open after a refusal.
    assert_eq!(anon.call(&Request::Ping).await.status, Status::Ok);

    // Alice produces to Bob's inbox, but may not read it back.
    let mut a = connect_as(broker.addr(), &alice).await;
    let sent = batch(3, 27, 7);
    let r = a.produce(&inbox, &sent, Ack::Durable).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    let r = a.fetch(&inbox, 0, 1 << 20, 0).await;
    assert_eq!(r.status, Status::Unauthorized);
    assert!(
        r.message
            .contains(&format!("consume {inbox} as {}", alice.hex)),
        "{}",
        r.message
    );
    // Nor create a topic of her own by producing to it.
    let r = a
        .produce(&format!("inbox.{}", alice.hex), &sent, Ack::Durable)
        .await;
    assert_eq!(r.status, Status::UnknownTopic, "{}", r.message);
    assert!(r.message.contains("may not create it"), "{}", r.message);

    // Bob reads it, commits in his group and sees it in Metadata.
    let mut b = connect_as(broker.addr(), &bob).await;
    let got = read_all(&mut b, &inbox, 0).await;
    assert_eq!(got.len(), 1);
    assert_eq!(&got[0].1[33..], &sent[33..]);
    assert_eq!(
        b.call(&commit_req(&group, &inbox, 3)).await.status,
        Status::Ok
    );
    let r = b.call(&committed_req(&group, &inbox)).await;
    assert_eq!(r.committed, Some(Some(3)));
    let r = b.call(&Request::Metadata(None)).await;
    assert_eq!(r.topics, Some(vec![inbox.clone()]));

    // Mallory: cannot consume Bob's inbox, commit Bob's group, or see it.
    let mut m = connect_as(broker.addr(), &mallory).await;
    assert_eq!(
        m.fetch(&inbox, 0, 1 << 20, 0).await.status,
        Status::Unauthorized
    );
    let r = m.call(&commit_req(&group, &inbox, 0)).await;
    assert_eq!(r.status, Status::Unauthorized);
    // A group of her own on Bob's topic is refused too: the topic is not hers.
    let mine = format!("{}.x", mallory.hex);
    assert_eq!(
        m.call(&commit_req(&mine, &inbox, 0)).await.status,
        Status::Unauthorized
    );
    assert_eq!(
        m.call(&Request::Metadata(None)).await.topics,
        Some(Vec::new())
    );
    assert_eq!(
        m.call(&Request::Metadata(Some(topic(&inbox)))).await.status,
        Status::Unauthorized
    );
    assert_eq!(
        m.call(&Request::DeleteTopic(topic(&inbox))).await.status,
        Status::Unauthorized
    );
    // Nothing of Mallory's reached the log; Bob's commit is untouched.
    let r = b.call(&committed_req(&group, &inbox)).await;
    assert_eq!(r.committed, Some(Some(3)));
    let got = read_all(&mut b, &inbox, 0).await;
    assert_eq!(got.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_authentications_are_refused_and_end_the_connection() {
    let (alice, other) = (Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), inbox_acl(Vec::new())).await;

    // A signature made for one connection does not work on another.
    let first = Raw::connect(broker.addr()).await;
    let h1 = first.hello.unwrap();
    let replayed = alice.sign_for(&h1.nonce, &h1.broker_id);
    let mut second = Raw::connect(broker.addr()).await;
    let h2 = second.hello.unwrap();
    assert_ne!(h1.nonce, h2.nonce, "every connection gets a fresh nonce");
    assert_eq!(h1.broker_id, h2.broker_id);
    refused(&mut second, &authenticate(&alice.spki, &replayed)).await;

    // Over another broker id.
    let mut c = Raw::connect(broker.addr()).await;
    let h = c.hello.unwrap();
    let sig = alice.sign_for(&h.nonce, &[0x55; 16]);
    refused(&mut c, &authenticate(&alice.spki, &sig)).await;

    // Forged: signed by another key, sent with Alice's SPKI.
    let mut c = Raw::connect(broker.addr()).await;
    let h = c.hello.unwrap();
    let forged: Signature = other.sk.sign(&transcript_bound(
        &h.nonce,
        &h.broker_id,
        DIALLED.as_bytes(),
        &[],
        &alice.spki,
    ));
    refused(&mut c, &authenticate(&alice.spki, &forged.to_bytes())).await;

    // An SPKI on another curve (P-384, generated by openssl).
    let mut c = Raw::connect(broker.addr()).await;
    refused(&mut c, &authenticate(&p384_spki(), &[1; 64])).await;

    // Truncated signature, truncated SPKI, unknown mechanism.
    let mut c = Raw::connect(broker.addr()).await;
    let h = c.hello.unwrap();
    let sig = alice.sign_for(&h.nonce, &h.broker_id);
    refused(&mut c, &authenticate(&alice.spki, &sig[..63])).await;
    let mut c = Raw::connect(broker.addr()).await;
    refused(&mut c, &authenticate(&alice.spki[..90], &sig)).await;
    let mut c = Raw::connect(broker.addr()).await;
    let h = c.hello.unwrap();
    let sig = alice.sign_for(&h.nonce, &h.broker_id);
    let r = c
        .call(&Request::Authenticate(Authenticate {
            mechanism: 3,
            spki: &alice.spki,
            signature: &sig,
            name: DIALLED.as_bytes(),
            channel_binding: &[],
        }))
        .await;
    assert_eq!(r.status, Status::Unauthorized);

    // Oversized: a field over the protocol's cap is a malformed frame.
    let mut c = Raw::connect(broker.addr()).await;
    let mut frame = vec![0u8; 4];
    frame.push(0x09);
    frame.extend_from_slice(&77u32.to_be_bytes());
    frame.push(1);
    frame.extend_from_slice(&600u16.to_be_bytes());
    frame.extend_from_slice(&[0u8; 600]);
    frame.extend_from_slice(&0u16.to_be_bytes());
    let len = (frame.len() - 4) as u32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    c.send_bytes(&frame).await;
    let rs = c.until_closed().await;
    assert!(
        rs.iter().any(|r| r.corr == 77 && r.status != Status::Ok),
        "{rs:?}"
    );

    // And the good one still works.
    let mut ok = connect_as(broker.addr(), &alice).await;
    assert_eq!(ok.call(&Request::Ping).await.status, Status::Ok);
    // Twice on one connection is refused, the first principal stays.
    let h = ok.hello.unwrap();
    let sig = other.sign_for(&h.nonce, &h.broker_id);
    let r = ok.call(&authenticate(&other.spki, &sig)).await;
    assert_eq!(r.status, Status::InvalidRequest, "{}", r.message);
}

/// `req` is answered `Unauthorized`, then the connection closes.
async fn refused(c: &mut Raw, req: &Request<'_>) {
    let r = c.call(req).await;
    assert_eq!(r.status, Status::Unauthorized, "{}", r.message);
    assert!(
        r.message.starts_with("authentication failed"),
        "{}",
        r.message
    );
    let rest = c.until_closed().await;
    assert!(rest.iter().all(|r| r.corr == 0), "{rest:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_client_is_served_only_when_anonymous_access_is_allowed() {
    async fn hello_v2(addr: std::net::SocketAddr) -> (Vec<u8>, tokio::net::TcpStream) {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let v2 = Hello {
            version: 2,
            value: 0,
        };
        s.write_all(&v2.encode()).await.unwrap();
        let mut head = vec![0u8; HELLO_LEN];
        s.read_exact(&mut head).await.unwrap();
        (head, s)
    }
    let dir = tempfile::tempdir().unwrap();
    let open = start(dir.path(), |_| {}).await;
    let (head, _s) = hello_v2(open.addr()).await;
    assert_eq!(Hello::decode(&head).unwrap().version, 2);

    let dir = tempfile::tempdir().unwrap();
    let closed = start(dir.path(), inbox_acl(Vec::new())).await;
    let (head, mut s) = hello_v2(closed.addr()).await;
    assert_eq!(Hello::decode(&head).unwrap().version, 3);
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).await.unwrap();
    // The rest of the version-3 hello, then the broker closed.
    assert_eq!(rest.len(), 61 - HELLO_LEN);
}

/// A P-384 SubjectPublicKeyInfo (`openssl ecparam -name secp384r1 -genkey | openssl ec -pubout`).
const P384_SPKI_HEX: &str = "3076301006072a8648ce3d020106052b81040022036200043527b0df6134f88e1629e643e15b8d3f86b8bac9ed43deededa46e2c33fd767789e881b1930eb0edff91c8a5ad3112b6a42f24dc5bee4722ce18e1806d3e6d18674071ccc8273e286df44ff574def46d677dfb207056d4ce105841a61ece6a31";

fn p384_spki() -> Vec<u8> {
    (0..P384_SPKI_HEX.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&P384_SPKI_HEX[i..i + 2], 16).unwrap())
        .collect()
}

/// A mechanism-1 proof (no name, no channel) over this connection.
fn unbound<'a>(spki: &'a [u8], sig: &'a [u8]) -> Request<'a> {
    Request::Authenticate(Authenticate {
        mechanism: MECHANISM_P256_ECDSA,
        spki,
        signature: sig,
        name: &[],
        channel_binding: &[],
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proof_must_name_this_broker_and_unbound_proofs_are_refused_where_required() {
    let alice = Key::new();
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        c.auth = AuthMode::Required;
        c.public_names = vec!["broker.example".into()];
    })
    .await;

    // Mechanism 1, correctly signed: refused, the connection ends.
    let mut c = Raw::connect(broker.addr()).await;
    let h = c.hello.unwrap();
    let sig = alice.sign(&transcript(&h.nonce, &h.broker_id, &alice.spki));
    let r = c.call(&unbound(&alice.spki, &sig)).await;
    assert_eq!(r.status, Status::Unauthorized);
    assert!(
        r.message.contains("mechanism 1") && r.message.contains("relayed"),
        "{}",
        r.message
    );
    assert!(c.until_closed().await.iter().all(|r| r.corr == 0));

    // Signed for the name of the server the client dialled — a relay's.
    let mut c = Raw::connect(broker.addr()).await;
    let h = c.hello.unwrap();
    let sig = alice.sign_bound(&h.nonce, &h.broker_id, b"relay.example", &[]);
    let req = Request::Authenticate(Authenticate {
        mechanism: MECHANISM_P256_ECDSA_BOUND,
        spki: &alice.spki,
        signature: &sig,
        name: b"relay.example",
        channel_binding: &[],
    });
    let r = c.call(&req).await;
    assert_eq!(r.status, Status::Unauthorized);
    assert!(r.message.contains("\"relay.example\""), "{}", r.message);

    // A channel binding on a plain TCP connection: its TLS ended elsewhere.
    let mut c = Raw::connect(broker.addr()).await;
    let h = c.hello.unwrap();
    let sig = alice.sign_bound(&h.nonce, &h.broker_id, b"broker.example", &[7; 32]);
    let req = Request::Authenticate(Authenticate {
        mechanism: MECHANISM_P256_ECDSA_BOUND,
        spki: &alice.spki,
        signature: &sig,
        name: b"broker.example",
        channel_binding: &[7; 32],
    });
    let r = c.call(&req).await;
    assert_eq!(r.status, Status::Unauthorized);
    assert!(r.message.contains("not TLS 1.3"), "{}", r.message);

    // A public name, and a loopback name from loopback, are this broker's.
    for name in [
        &b"broker.example"[..],
        b"Broker.Example.",
        b"localhost",
        DIALLED.as_bytes(),
    ] {
        let mut c = Raw::connect(broker.addr()).await;
        let h = c.hello.unwrap();
        let sig = alice.sign_bound(&h.nonce, &h.broker_id, name, &[]);
        let req = Request::Authenticate(Authenticate {
            mechanism: MECHANISM_P256_ECDSA_BOUND,
            spki: &alice.spki,
            signature: &sig,
            name,
            channel_binding: &[],
        });
        let r = c.call(&req).await;
        assert_eq!(
            r.status,
            Status::Ok,
            "{}: {}",
            String::from_utf8_lossy(name),
            r.message
        );
    }
    drop(broker);

    // Where authentication is optional, mechanism 1 still works (logged).
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.auth = AuthMode::Optional).await;
    let mut c = Raw::connect(broker.addr()).await;
    let h = c.hello.unwrap();
    let sig = alice.sign(&transcript(&h.nonce, &h.broker_id, &alice.spki));
    let r = c.call(&unbound(&alice.spki, &sig)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    drop(broker);
}
