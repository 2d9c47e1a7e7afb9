//! A relay cannot pass a client's Authenticate on (issue 32, docs/PROTOCOL.md
//! §1). A real broker (`auth = "required"`) and, in front of it, a relay
//! the client dials instead: it forwards the broker's hello and the
//! client's Authenticate byte for byte —
//! - over plain TCP, listening on 127.0.0.2 (so the client signs the name
//!   `127.0.0.2`, not the broker's 127.0.0.1);
//! - over TLS, with a valid certificate for the broker's own name
//!   (`localhost`) from the same test CA the client trusts, opening its own
//!   TLS connection to the broker (so the name passes and the TLS channel
//!   binding differs).
//!
//! The broker refuses the forwarded proof, for the Rust SDK and the CLI;
//! the same clients connecting directly still authenticate. The relay
//! counts what it forwarded, so a refusal is shown to follow a proof that
//! reached the broker (not a connection that never got there).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hermit_client::crypto::Identity;
use hermit_client::{Client, ClientError, ClientOptions};
use hermit_e2e_tests::*;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};

/// A test CA and certificates it signs for `localhost` and 127.0.0.1.
struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    pem: String,
}

impl TestCa {
    fn new() -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "relay test CA");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        TestCa {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A certificate for `localhost` and 127.0.0.1: (cert PEM, key PEM).
    fn leaf(&self) -> (String, String) {
        let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned()];
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(names)
            .unwrap()
            .signed_by(&key, &self.issuer)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

/// A port free on 127.0.0.1 now (the broker's TLS listener must differ
/// from `listen`).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Bytes a relay passed from its clients to the broker.
#[derive(Default)]
struct Forwarded(AtomicU64);

/// Copy both ways until either side closes, counting client→broker bytes.
async fn pipe<A, B>(client: A, broker: B, counted: Arc<Forwarded>)
where
    A: AsyncRead + AsyncWrite + Unpin,
    B: AsyncRead + AsyncWrite + Unpin,
{
    let (mut cr, mut cw) = tokio::io::split(client);
    let (mut br, mut bw) = tokio::io::split(broker);
    let up = async {
        let mut buf = [0u8; 4096];
        loop {
            use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
            let n = match cr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            counted.0.fetch_add(n as u64, Ordering::Relaxed);
            if bw.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut bw).await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut br, &mut cw).await;
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut cw).await;
    };
    tokio::join!(up, down);
}

/// A relay listening on `bind`, forwarding to `broker`: plain TCP, or TLS
/// terminated with `tls` = (relay's certificate chain and key, the CA the
/// relay trusts for the broker) and a new TLS connection to the broker.
async fn relay(
    bind: &str,
    broker: SocketAddr,
    tls: Option<(tokio_rustls::TlsAcceptor, tokio_rustls::TlsConnector)>,
) -> (SocketAddr, Arc<Forwarded>) {
    let listener = TcpListener::bind(bind).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counted = Arc::new(Forwarded::default());
    let c = counted.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (c, tls) = (c.clone(), tls.clone());
            tokio::spawn(async move {
                let Ok(upstream) = TcpStream::connect(broker).await else {
                    return;
                };
                match tls {
                    None => pipe(client, upstream, c).await,
                    Some((acceptor, connector)) => {
                        let Ok(client) = acceptor.accept(client).await else {
                            return;
                        };
                        let name = ServerName::try_from("localhost").unwrap();
                        let Ok(upstream) = connector.connect(name, upstream).await else {
                            return;
                        };
                        pipe(client, upstream, c).await
                    }
                }
            });
        }
    });
    (addr, counted)
}

/// The relay's TLS ends: its own certificate for `localhost` (from the
/// test CA), and a client configuration trusting that CA, speaking the
/// broker's ALPN.
fn relay_tls(ca: &TestCa) -> (tokio_rustls::TlsAcceptor, tokio_rustls::TlsConnector) {
    let (cert, key) = ca.leaf();
    let chain: Vec<CertificateDer<'static>> =
        vec![rustls::pki_types::pem::PemObject::from_pem_slice(cert.as_bytes()).unwrap()];
    let key: PrivateKeyDer<'static> =
        rustls::pki_types::pem::PemObject::from_pem_slice(key.as_bytes()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut server = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    server.alpn_protocols = vec![b"hermitmq".to_vec()];
    let mut roots = rustls::RootCertStore::empty();
    let ca_der: CertificateDer<'static> =
        rustls::pki_types::pem::PemObject::from_pem_slice(ca.pem.as_bytes()).unwrap();
    roots.add(ca_der).unwrap();
    let mut client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    client.alpn_protocols = vec![b"hermitmq".to_vec()];
    (
        tokio_rustls::TlsAcceptor::from(Arc::new(server)),
        tokio_rustls::TlsConnector::from(Arc::new(client)),
    )
}

/// The Rust SDK's outcome of connecting to `url` as `id`: the error text,
/// or `None` when it authenticated (and a ping went through).
async fn sdk_connect(url: &str, id: &Arc<Identity>, ca: &Path) -> Option<String> {
    let options = ClientOptions {
        identity: Some(id.clone()),
        tls_ca: Some(ca.to_owned()),
        connect_timeout: Duration::from_secs(10),
        ..ClientOptions::default()
    };
    match Client::connect(url, options).await {
        Ok(client) => {
            client
                .ping()
                .await
                .expect("an authenticated connection answers");
            None
        }
        Err(e) => {
            assert!(matches!(e, ClientError::AuthFailed { .. }), "{e}");
            Some(e.to_string())
        }
    }
}

/// The CLI's outcome of `hermit topics list` against `url`.
fn cli_connect(url: &str, key: &Path, ca: &Path) -> std::process::Output {
    run_hermit(
        &[
            "topics",
            "list",
            "--broker",
            url,
            "--ca",
            path_str(ca),
            "--identity",
            path_str(key),
        ],
        b"",
        &[("HERMIT_PASSWORD", PASSWORD)],
    )
}

/// The clients that go through a relay: the SDK as `id`, the CLI as the
/// holder of `key`, both trusting `ca`.
struct Through<'a> {
    rt: &'a tokio::runtime::Runtime,
    id: &'a Arc<Identity>,
    key: &'a Path,
    ca: &'a Path,
}

impl Through<'_> {
    /// Through the relay at `url` (which counts what it passes on in
    /// `forwarded`), the SDK and then the CLI are refused with `why` in the
    /// error, each after its Authenticate went through the relay.
    fn refused(&self, url: &str, forwarded: &Forwarded, why: &str) {
        let e = self
            .rt
            .block_on(sdk_connect(url, self.id, self.ca))
            .expect("the relayed proof is refused");
        assert!(e.contains(why), "{e}");
        let before = forwarded.0.load(Ordering::Relaxed);
        assert!(
            before > 8,
            "the relay passed the Authenticate on ({before} bytes)"
        );
        let out = cli_connect(url, self.key, self.ca);
        assert_code(&out, 4);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{err}");
        assert!(forwarded.0.load(Ordering::Relaxed) > before + 8);
    }
}

#[test]
fn a_relayed_authenticate_is_refused_over_tcp_and_tls_for_the_sdk_and_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (cert, key) = ca.leaf();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let (cert, key, ca_file) = (
        write("broker.pem", &cert),
        write("broker.key", &key),
        write("ca.pem", &ca.pem),
    );
    let (admin, admin_pub) = keygen(dir.path(), "admin");
    // Top-level keys before the [[acl]] tables of the inbox policy.
    let config = write(
        "hermit.toml",
        &format!(
            "auth = \"required\"\nadmins = [\"{}\"]\ntls_listen = \"127.0.0.1:{}\"\n\
             tls_cert = \"{}\"\ntls_key = \"{}\"\n{INBOX_ACL}",
            fingerprint(&admin_pub),
            free_port(),
            path_str(&cert),
            path_str(&key)
        ),
    );
    let broker = start_configured(dir.path(), &config);
    let plain = broker.addr();
    let tls = broker
        .tls_addr(Duration::from_secs(30))
        .expect("the TLS address");
    let id = Arc::new(Identity::generate().unwrap());
    let rt = tokio::runtime::Runtime::new().unwrap();

    // Directly, over TCP and TLS: both clients authenticate.
    let direct_tls = format!("hermits://localhost:{}", tls.port());
    for url in [plain.to_string(), direct_tls.clone()] {
        assert_eq!(rt.block_on(sdk_connect(&url, &id, &ca_file)), None, "{url}");
        assert_ok(&cli_connect(&url, &admin, &ca_file));
    }

    // Through the plain relay on 127.0.0.2: the name is the relay's.
    let (relay_addr, forwarded) = rt.block_on(relay("127.0.0.2:0", plain, None));
    let through = Through {
        rt: &rt,
        id: &id,
        key: &admin,
        ca: &ca_file,
    };
    through.refused(&relay_addr.to_string(), &forwarded, "\"127.0.0.2\"");

    // Through the TLS relay with a valid certificate for `localhost`: the
    // name passes, the TLS channel is the relay's.
    let (relay_addr, forwarded) = rt.block_on(relay("127.0.0.1:0", tls, Some(relay_tls(&ca))));
    let url = format!("hermits://localhost:{}", relay_addr.port());
    through.refused(&url, &forwarded, "channel binding");

    // And directly again: nothing the relays did stuck.
    assert_eq!(rt.block_on(sdk_connect(&direct_tls, &id, &ca_file)), None);
    let log = broker.stderr().join("\n");
    assert!(log.contains("relay"), "the broker logs why: {log}");
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}

#[test]
fn a_pinned_client_refuses_a_changed_broker_id_before_signing() {
    let dir = tempfile::tempdir().unwrap();
    let (key, key_pub) = keygen(dir.path(), "alice");
    let config = dir.path().join("hermit.toml");
    std::fs::write(
        &config,
        format!(
            "auth = \"required\"\nadmins = [\"{}\"]\n",
            fingerprint(&key_pub)
        ),
    )
    .unwrap();
    let state = dir.path().join("state");
    let env = [
        ("HERMIT_PASSWORD", PASSWORD),
        ("HERMIT_STATE_DIR", path_str(&state)),
    ];
    let listen = format!("127.0.0.1:{}", free_port());
    let list = || {
        run_hermit(
            &[
                "topics",
                "list",
                "--broker",
                &listen,
                "--identity",
                path_str(&key),
            ],
            b"",
            &env,
        )
    };
    let start = |data: &str| {
        start_broker(
            &dir.path().join(data),
            &listen,
            &["--config", path_str(&config)],
        )
    };

    // First contact pins the broker id; the same broker again is fine.
    let first = start("data-a");
    assert_ok(&list());
    assert_ok(&list());
    let pins = std::fs::read_to_string(state.join("known-brokers")).unwrap();
    let port = listen.rsplit_once(':').unwrap().1;
    assert!(pins.contains(&format!("127.0.0.1 {port} ")), "{pins}");
    // (The broker logs every Authenticate it sees: the check below can fail.)
    let log = first.stderr().join("\n");
    assert!(log.contains("authenticated"), "{log}");
    assert_eq!(first.terminate().unwrap().code(), Some(0));

    // Another broker (another data directory) at the same name and port.
    let second = start("data-b");
    let out = list();
    assert_code(&out, 4);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("broker id") && err.contains(path_str(&state.join("known-brokers"))),
        "{err}"
    );
    // The SDK with the same state directory refuses it too (the CLI has
    // let go of the directory).
    let rt = tokio::runtime::Runtime::new().unwrap();
    let id = Arc::new(Identity::generate().unwrap());
    let options = ClientOptions {
        identity: Some(id),
        state_dir: Some(Arc::new(hermit_client::StateDir::open(&state).unwrap())),
        ..ClientOptions::default()
    };
    let e = rt
        .block_on(Client::connect(listen.clone(), options.clone()))
        .expect_err("a changed broker id");
    assert!(matches!(e, ClientError::BrokerChanged { .. }), "{e}");
    // Nothing was signed for the substitute: it never saw an Authenticate.
    let log = second.stderr().join("\n");
    assert!(!log.contains("authenticat"), "{log}");

    // Removing the pin (the broker was replaced on purpose) lets it in.
    drop(options);
    std::fs::write(state.join("known-brokers"), "").unwrap();
    assert_ok(&list());
    assert_eq!(second.terminate().unwrap().code(), Some(0));
}
