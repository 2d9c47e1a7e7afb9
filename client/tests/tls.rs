//! The broker's TLS building blocks (`hermit_broker::tls`) against the
//! client's (`hermit_client::tls`) over real sockets: a round trip, a client
//! that trusts another CA, mutual TLS naming the client's key, and a
//! `hermits://` client against a real broker behind a TLS acceptor.
//!
//! Certificates are made here with rcgen: a CA, a server certificate for
//! `localhost` and 127.0.0.1 signed by it, client certificates.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hermit_broker::tls::{TlsAcceptor, peer_spki, server_config};
use hermit_client::tls::{client_config, client_config_with_cert, connect};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// A CA: its certificate PEM and what signs with it.
struct Ca {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

fn ca(name: &str) -> Ca {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let key = KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    Ca {
        pem: cert.pem(),
        issuer: Issuer::new(params, key),
    }
}

/// A leaf certificate signed by `ca`: (cert PEM, key PEM, key's DER SPKI).
fn leaf(ca: &Ca, names: &[&str]) -> (String, String, Vec<u8>) {
    let params =
        CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, &ca.issuer).unwrap();
    (
        cert.pem(),
        key.serialize_pem(),
        rcgen::PublicKeyData::subject_public_key_info(&key),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A broker-side TLS endpoint on 127.0.0.1:0 that accepts one connection,
/// reports the handshake's outcome (the client's SPKI, if any) and echoes
/// what it reads until EOF.
struct Server {
    addr: std::net::SocketAddr,
    outcome: tokio::sync::oneshot::Receiver<std::io::Result<Option<Vec<u8>>>>,
}

async fn serve_once(config: Arc<rustls::ServerConfig>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, outcome) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        match TlsAcceptor::from(config).accept(tcp).await {
            Err(e) => {
                let _ = tx.send(Err(e));
            }
            Ok(mut tls) => {
                let _ = tx.send(Ok(peer_spki(tls.get_ref().1)));
                let mut buf = [0u8; 1024];
                loop {
                    match tls.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if tls.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                    }
                }
                let _ = tls.shutdown().await;
            }
        }
    });
    Server { addr, outcome }
}

/// Writes `msg`, reads the echo back.
async fn round_trip(
    tls: &mut hermit_client::tls::TlsStream<TcpStream>,
    msg: &[u8],
) -> std::io::Result<Vec<u8>> {
    tls.write_all(msg).await?;
    tls.flush().await?;
    let mut back = vec![0u8; msg.len()];
    tls.read_exact(&mut back).await?;
    Ok(back)
}

#[tokio::test]
async fn bytes_round_trip_under_the_brokers_ca_by_name_and_by_ip() {
    let dir = tempfile::tempdir().unwrap();
    let ca = ca("test CA");
    let (cert, key, _) = leaf(&ca, &["localhost", "127.0.0.1"]);
    let ca_file = write(dir.path(), "ca.pem", &ca.pem);
    let cert = write(dir.path(), "broker.pem", &cert);
    let key = write(dir.path(), "broker.key", &key);
    for name in ["localhost", "127.0.0.1"] {
        let server = serve_once(server_config(&cert, &key, None).unwrap()).await;
        let tcp = TcpStream::connect(server.addr).await.unwrap();
        let mut tls = connect(tcp, name, client_config(Some(&ca_file)).unwrap())
            .await
            .unwrap();
        assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"hermitmq"[..]));
        let msg = b"HMQ\x02 over TLS, and some more bytes".repeat(100);
        assert_eq!(round_trip(&mut tls, &msg).await.unwrap(), msg);
        // No client certificate was asked for: no key to name.
        assert_eq!(server.outcome.await.unwrap().unwrap(), None);
    }
}

#[tokio::test]
async fn a_client_trusting_another_ca_or_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let broker_ca = ca("test CA");
    let (cert, key, _) = leaf(&broker_ca, &["localhost"]);
    let cert = write(dir.path(), "broker.pem", &cert);
    let key = write(dir.path(), "broker.key", &key);
    let other = write(dir.path(), "other.pem", &ca("other CA").pem);
    let right = write(dir.path(), "ca.pem", &broker_ca.pem);
    for (ca_file, name) in [(&other, "localhost"), (&right, "broker.example")] {
        let server = serve_once(server_config(&cert, &key, None).unwrap()).await;
        let tcp = TcpStream::connect(server.addr).await.unwrap();
        let err = connect(tcp, name, client_config(Some(ca_file)).unwrap())
            .await
            .expect_err("the handshake must fail");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData, "{err}");
        assert!(server.outcome.await.unwrap().is_err());
    }
}

#[tokio::test]
async fn a_client_certificate_under_the_client_ca_names_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let server_ca = ca("server CA");
    let client_ca = ca("client CA");
    let (cert, key, _) = leaf(&server_ca, &["localhost"]);
    let cert = write(dir.path(), "broker.pem", &cert);
    let key = write(dir.path(), "broker.key", &key);
    let server_ca_file = write(dir.path(), "ca.pem", &server_ca.pem);
    let client_ca_file = write(dir.path(), "clients.pem", &client_ca.pem);
    let config = server_config(&cert, &key, Some(&client_ca_file)).unwrap();

    // With a certificate from the client CA: the server sees its key.
    let (c_cert, c_key, c_spki) = leaf(&client_ca, &["alice"]);
    let c_cert = write(dir.path(), "alice.pem", &c_cert);
    let c_key = write(dir.path(), "alice.key", &c_key);
    let server = serve_once(config.clone()).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let client = client_config_with_cert(Some(&server_ca_file), &c_cert, &c_key).unwrap();
    let mut tls = connect(tcp, "localhost", client).await.unwrap();
    assert_eq!(round_trip(&mut tls, b"ping").await.unwrap(), b"ping");
    let seen = server.outcome.await.unwrap().unwrap();
    assert_eq!(seen.as_deref(), Some(&c_spki[..]));
    // A P-256 SPKI: the 91 bytes the Authenticate op carries.
    assert_eq!(c_spki.len(), 91);

    // Without a certificate: still served (it may Authenticate), no key.
    let server = serve_once(config.clone()).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let mut tls = connect(
        tcp,
        "localhost",
        client_config(Some(&server_ca_file)).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(round_trip(&mut tls, b"ping").await.unwrap(), b"ping");
    assert_eq!(server.outcome.await.unwrap().unwrap(), None);

    // With a certificate from elsewhere (here: the server CA): refused.
    let (m_cert, m_key, _) = leaf(&server_ca, &["mallory"]);
    let m_cert = write(dir.path(), "mallory.pem", &m_cert);
    let m_key = write(dir.path(), "mallory.key", &m_key);
    let server = serve_once(config).await;
    let tcp = TcpStream::connect(server.addr).await.unwrap();
    let client = client_config_with_cert(Some(&server_ca_file), &m_cert, &m_key).unwrap();
    // In TLS 1.3 the client's side of the handshake may finish before the
    // server has judged its certificate: the refusal then arrives on the
    // first read.
    let refused = match connect(tcp, "localhost", client).await {
        Err(_) => true,
        Ok(mut tls) => round_trip(&mut tls, b"ping").await.is_err(),
    };
    assert!(
        refused,
        "a client certificate outside the client CA must be refused"
    );
    assert!(server.outcome.await.unwrap().is_err());
}

#[test]
fn config_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.pem");
    let e = client_config(Some(&missing)).unwrap_err();
    assert!(e.to_string().contains("nope.pem"), "{e}");
    let empty = write(dir.path(), "empty.pem", "");
    let e = client_config(Some(&empty)).unwrap_err();
    assert!(
        matches!(
            e,
            hermit_client::tls::TlsError::File(hermit_client::tls::PemError::NoCertificate { .. })
        ),
        "{e}"
    );
    let ca = ca("test CA");
    let ca_file = write(dir.path(), "ca.pem", &ca.pem);
    let e = client_config_with_cert(Some(&ca_file), &ca_file, &ca_file).unwrap_err();
    assert!(
        matches!(
            e,
            hermit_client::tls::TlsError::File(hermit_client::tls::PemError::NoKey { ref path })
                if path == &ca_file
        ),
        "{e}"
    );
}

/// A broker-side TLS stream as the broker's connection wants it (the
/// broker's TLS listener wraps its streams the same way).
struct BrokerTls(tokio_rustls::server::TlsStream<TcpStream>);

impl tokio::io::AsyncRead for BrokerTls {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for BrokerTls {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.0).poll_write(cx, buf)
    }
    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.0).poll_flush(cx)
    }
    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

impl hermit_broker::net::ByteStream for BrokerTls {}

/// A real broker (engine and connection state machine) behind a TLS
/// listener on 127.0.0.1:0; returns its port.
async fn tls_broker(
    data: &Path,
    config: Arc<rustls::ServerConfig>,
) -> (u16, Arc<hermit_broker::engine::Engine>) {
    let cfg = hermit_broker::embedded::EmbeddedBroker::test_config();
    let opts = cfg.log_options();
    let engine = Arc::new(hermit_broker::engine::Engine::open(data, opts).unwrap());
    let server = hermit_broker::net::Server::new(engine.clone(), cfg).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, peer)) = listener.accept().await else {
                return;
            };
            let acceptor = TlsAcceptor::from(config.clone());
            let server = server.clone();
            tokio::spawn(async move {
                if let Ok(tls) = acceptor.accept(tcp).await {
                    server.serve_stream(BrokerTls(tls), peer).await;
                }
            });
        }
    });
    (port, engine)
}

#[tokio::test]
async fn a_hermits_client_produces_and_fetches_through_a_tls_broker() {
    use hermit_client::{Ack, Client, ClientError, ClientOptions};
    use hermit_protocol::BatchBuilder;

    let dir = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let broker_ca = ca("test CA");
    let (cert, key, _) = leaf(&broker_ca, &["localhost", "127.0.0.1"]);
    let ca_file = write(dir.path(), "ca.pem", &broker_ca.pem);
    let other_ca = write(dir.path(), "other.pem", &ca("other CA").pem);
    let cert = write(dir.path(), "broker.pem", &cert);
    let key = write(dir.path(), "broker.key", &key);
    let (port, _engine) = tls_broker(data.path(), server_config(&cert, &key, None).unwrap()).await;

    let options = ClientOptions {
        tls_ca: Some(ca_file.clone()),
        ..ClientOptions::default()
    };
    for url in [
        format!("hermits://localhost:{port}"),
        format!("hermits://127.0.0.1:{port}"),
    ] {
        let client = Client::connect(url.clone(), options.clone()).await.unwrap();
        let mut b = BatchBuilder::new(b"");
        b.push(b"sealed elsewhere, carried over TLS");
        let batch = b.finish(1).unwrap();
        let offset = client
            .produce("tls-topic", 0, Ack::Durable, batch.into())
            .await
            .unwrap();
        let f = client
            .fetch(
                "tls-topic",
                0,
                offset,
                1 << 20,
                std::time::Duration::from_millis(10),
            )
            .await
            .unwrap();
        let payloads: Vec<Vec<u8>> = f.records().map(|r| r.unwrap().value.to_vec()).collect();
        assert!(
            payloads
                .iter()
                .any(|p| p == b"sealed elsewhere, carried over TLS"),
            "{url}"
        );
    }

    // Trusting another CA: the connect fails (retriable like any connect
    // failure, with rustls' reason in the chain), nothing is sent.
    let wrong = ClientOptions {
        tls_ca: Some(other_ca),
        ..ClientOptions::default()
    };
    let err = Client::connect(format!("hermits://localhost:{port}"), wrong)
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Connect { .. }), "{err}");
    let chain = format!("{:?}", std::error::Error::source(&err));
    assert!(chain.contains("InvalidCertificate"), "{chain}");

    // A CA file that is not there: a typed setup error naming it.
    let missing = ClientOptions {
        tls_ca: Some(dir.path().join("nope.pem")),
        ..ClientOptions::default()
    };
    let err = Client::connect(format!("hermits://localhost:{port}"), missing)
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Tls(_)), "{err}");
    assert!(err.to_string().contains("nope.pem"), "{err}");
}
