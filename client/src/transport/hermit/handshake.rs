//! Opening a connection to a HermitMQ broker: TCP, TLS for `hermits://`,
//! the hellos, and `Authenticate` when the broker asks for it and the client
//! has an identity. Only then does the connection (see
//! [`connection`](super::connection)) start carrying requests.

use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use hermit_protocol::auth::{DialledName, MECHANISM_P256_ECDSA_BOUND, TLS_EXPORTER_LEN};
use hermit_protocol::frame::{
    Authenticate, FrameCheck, ResponseBody, check_response, decode_response,
};
use hermit_protocol::header::ResponseHeader;
use hermit_protocol::hello::{
    BROKER_HELLO_V3_LEN, BROKER_ID_LEN, BrokerFlags, BrokerHello, HELLO_LEN, Hello,
    PROTOCOL_VERSION, VERSION_3,
};
use hermit_protocol::{Request, Status, WireError};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use super::connection::{Conn, Handshake, READ_CHUNK, Stream};
use crate::crypto::{Fingerprint, Identity};
use crate::error::ClientError;
use crate::local::{KnownBrokers, Pin, hex};

/// What opening a connection needs besides the address, fixed for the
/// life of a [`crate::Client`].
pub(crate) struct OpenOptions {
    pub(crate) connect_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) max_response: u32,
    /// `Some` for `hermits://`: the configuration (built once, at the first
    /// connect) and the name the broker's certificate must carry.
    pub(crate) tls: Option<TlsTarget>,
    /// Signs each connection's nonce when the broker asks for authentication.
    pub(crate) identity: Option<Arc<Identity>>,
    /// The pins of the client state directory: the broker id is checked
    /// against them before anything is signed, and pinned on first contact.
    pub(crate) known_brokers: Option<Arc<KnownBrokers>>,
}

/// Where a `hermits://` connection goes: the configuration and the server
/// name (the URL's host) the certificate is checked against.
pub(crate) struct TlsTarget {
    pub(crate) config: Arc<rustls::ClientConfig>,
    pub(crate) server_name: String,
}

/// The hello version this client sends. A broker that speaks only another
/// version answers with its own hello and closes.
const CLIENT_VERSION: u8 = PROTOCOL_VERSION;

/// Connect (TCP, then TLS for `hermits://`), exchange hellos, authenticate
/// when the broker asks and an identity is set, and start the reader and
/// writer tasks. The connection is handed out only after all of that, so
/// every request on it runs as the principal.
pub(crate) async fn connect(
    addr: &str,
    id: u64,
    opts: &OpenOptions,
) -> Result<Arc<Conn>, ClientError> {
    let connect_err = |source| ClientError::connect(addr, source);
    let connect_timeout = opts.connect_timeout;
    let setup = async {
        let tcp = TcpStream::connect(addr).await.map_err(connect_err)?;
        tcp.set_nodelay(true).map_err(connect_err)?;
        match &opts.tls {
            None => {
                let mut tcp = tcp;
                let hs = handshake(&mut tcp, addr, None, opts).await?;
                Ok::<_, ClientError>((Stream::Plain(tcp), hs))
            }
            Some(t) => {
                let mut tls = crate::tls::connect(tcp, &t.server_name, t.config.clone())
                    .await
                    .map_err(connect_err)?;
                // Only TLS 1.3 is offered, so there is always one.
                let binding = crate::tls::channel_binding(&tls).ok_or_else(|| {
                    connect_err(std::io::Error::other(
                        "the TLS connection is not TLS 1.3: no channel binding to sign",
                    ))
                })?;
                let hs = handshake(&mut tls, addr, Some(binding), opts).await?;
                Ok((Stream::Tls(Box::new(tls)), hs))
            }
        }
    };
    let (stream, hs) = match tokio::time::timeout(connect_timeout, setup).await {
        Ok(r) => r?,
        Err(_) => {
            return Err(connect_err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no hello within {connect_timeout:?}"),
            )));
        }
    };
    Ok(Conn::start(
        id,
        addr,
        stream,
        hs,
        // Ids used by the handshake are done with.
        AUTH_CORRELATION_ID + 1,
        opts.request_timeout,
        opts.max_response,
    ))
}

/// Correlation id of the `Authenticate` request, the first frame of a connection.
const AUTH_CORRELATION_ID: u32 = 1;

/// Hellos, then `Authenticate` when the broker asks for it, signed for
/// the host of `addr` and, over TLS, the connection's `channel_binding`.
async fn handshake<S>(
    stream: &mut S,
    addr: &str,
    channel_binding: Option<[u8; TLS_EXPORTER_LEN]>,
    opts: &OpenOptions,
) -> Result<Handshake, ClientError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    handshake_as(stream, addr, channel_binding, opts, CLIENT_VERSION).await
}

/// [`handshake`] with the hello's version as a parameter (tests speak 3
/// before the client does).
async fn handshake_as<S>(
    stream: &mut S,
    addr: &str,
    channel_binding: Option<[u8; TLS_EXPORTER_LEN]>,
    opts: &OpenOptions,
    version: u8,
) -> Result<Handshake, ClientError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let io_err = |source| ClientError::connect(addr, source);
    let hello = Hello { version, value: 0 };
    stream.write_all(&hello.encode()).await.map_err(io_err)?;
    let mut buf = [0u8; BROKER_HELLO_V3_LEN];
    stream
        .read_exact(&mut buf[..HELLO_LEN])
        .await
        .map_err(io_err)?;
    let head = Hello::decode(&buf[..HELLO_LEN])?;
    // A version-2 head (a broker serving anonymous v2 answers that way, as
    // main's client accepted) means no flags and no authentication.
    if head.version != version && head.version != 2 {
        return Err(ClientError::UnsupportedVersion {
            broker: head.version,
            client: version,
        });
    }
    if head.version != VERSION_3 {
        // A version-2 broker: no flags, no authentication.
        return Ok(Handshake {
            max_frame: head.value,
            fetch_min_bytes: false,
            leftover: BytesMut::new(),
        });
    }
    stream
        .read_exact(&mut buf[HELLO_LEN..])
        .await
        .map_err(io_err)?;
    let broker = BrokerHello::decode(&buf)?;
    // Before anything is signed: is this the broker this name and port had?
    let new_pin = match &opts.known_brokers {
        Some(known) => check_pin(known, addr, &broker.broker_id)?,
        None => None,
    };
    let leftover = match auth_plan(broker.flags, opts.identity.as_deref(), addr)? {
        None => BytesMut::new(),
        Some(identity) => {
            let proof = Proof {
                broker: &broker,
                identity,
                channel_binding: channel_binding.as_ref().map_or(&[][..], |b| &b[..]),
            };
            authenticate(stream, addr, &proof, opts.max_response).await?
        }
    };
    if let (Some(known), Some((name, port))) = (&opts.known_brokers, new_pin) {
        known
            .pin(&name, port, &broker.broker_id)
            .map_err(|e| ClientError::KnownBrokers(Arc::new(e)))?;
    }
    Ok(Handshake {
        max_frame: broker.max_frame,
        fetch_min_bytes: broker.flags.has(BrokerFlags::FETCH_MIN_BYTES),
        leftover,
    })
}

/// Check the broker id a hello presented against the pin for the host and
/// port of `addr`: `Some((name, port))` when nothing is pinned yet (to pin
/// once the handshake succeeds), `None` when it matches (or `addr` has no
/// port to pin by), [`ClientError::BrokerChanged`] when another id is.
fn check_pin(
    known: &KnownBrokers,
    addr: &str,
    id: &[u8; BROKER_ID_LEN],
) -> Result<Option<(DialledName, u16)>, ClientError> {
    let Some(port) = addr
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse::<u16>().ok())
    else {
        return Ok(None);
    };
    let Ok(name) = DialledName::of_address(addr) else {
        return Ok(None);
    };
    match known.check(&name, port, id) {
        Pin::Matches => Ok(None),
        Pin::New => Ok(Some((name, port))),
        Pin::Differs(pinned) => {
            tracing::warn!(target: "audit", addr, pinned = %hex(&pinned), presented = %hex(id), "a pinned broker presented another broker id");
            Err(ClientError::BrokerChanged {
                addr: addr.to_owned(),
                pinned: hex(&pinned),
                presented: hex(id),
                file: known.path(),
            })
        }
    }
}

/// Whether to authenticate on a connection whose broker hello says `flags`:
/// `Some(identity)` to sign, `None` to go on anonymously (or as the
/// principal a client certificate already named), or the typed error when
/// the broker requires a principal the client cannot prove.
fn auth_plan<'a>(
    flags: BrokerFlags,
    identity: Option<&'a Identity>,
    addr: &str,
) -> Result<Option<&'a Identity>, ClientError> {
    if flags.has(BrokerFlags::AUTHENTICATED) {
        return Ok(None);
    }
    let offered = flags.has(BrokerFlags::AUTH_AVAILABLE) || flags.has(BrokerFlags::AUTH_REQUIRED);
    match identity {
        Some(identity) if offered => Ok(Some(identity)),
        None if flags.has(BrokerFlags::AUTH_REQUIRED) => Err(ClientError::AuthRequired {
            addr: addr.to_owned(),
        }),
        _ => Ok(None),
    }
}

/// What an `Authenticate` proves and binds: the broker's hello, the
/// identity that signs, the connection's TLS channel binding (or empty).
struct Proof<'a> {
    broker: &'a BrokerHello,
    identity: &'a Identity,
    channel_binding: &'a [u8],
}

/// Send `Authenticate` (mechanism 2: signed for the host of `addr` and
/// the channel binding) and wait for its answer; returns the bytes read
/// past it.
async fn authenticate<S>(
    stream: &mut S,
    addr: &str,
    proof: &Proof<'_>,
    max_response: u32,
) -> Result<BytesMut, ClientError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let io_err = |source| ClientError::connect(addr, source);
    let identity = proof.identity;
    let name = DialledName::of_address(addr)
        .map_err(|e| {
            io_err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("cannot sign for the host of {addr:?}: {e}"),
            ))
        })?
        .to_string();
    let signature = identity.sign_auth(
        &proof.broker.nonce,
        &proof.broker.broker_id,
        name.as_bytes(),
        proof.channel_binding,
    );
    let mut frame = BytesMut::with_capacity(512);
    Request::Authenticate(Authenticate {
        mechanism: MECHANISM_P256_ECDSA_BOUND,
        spki: identity.public_key().spki_der(),
        signature: &signature,
        name: name.as_bytes(),
        channel_binding: proof.channel_binding,
    })
    .encode(AUTH_CORRELATION_ID, &mut frame)?;
    stream.write_all(&frame).await.map_err(io_err)?;
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    let len = loop {
        match check_response(&buf, max_response)? {
            FrameCheck::Complete { len } => break len,
            FrameCheck::Incomplete { .. } => {
                if stream.read_buf(&mut buf).await.map_err(io_err)? == 0 {
                    return Err(ClientError::lost(
                        addr,
                        "closed by the broker during authentication",
                    ));
                }
            }
        }
    };
    let frame = buf.split_to(len);
    let answer = decode_response(&frame)?;
    if answer.correlation_id != AUTH_CORRELATION_ID {
        // A connection-level notice (shutting down, too many connections).
        let why = match answer.body {
            Err(e) => format!("{}: {}", e.status, e.message),
            Ok(_) => "unexpected answer".to_owned(),
        };
        return Err(ClientError::lost(
            addr,
            format!("closed by the broker: {why}"),
        ));
    }
    match answer.body {
        Ok(ResponseBody::Authenticate { principal }) => {
            if &principal != identity.fingerprint().as_bytes() {
                return Err(ClientError::AuthFailed {
                    addr: addr.to_owned(),
                    message: format!(
                        "the broker named principal {} instead of this identity's {}",
                        Fingerprint::from_bytes(principal).to_hex(),
                        identity.fingerprint().to_hex()
                    ),
                });
            }
            tracing::debug!(addr, principal = %identity.fingerprint().to_hex(), "authenticated");
            Ok(buf)
        }
        Ok(_) => Err(ClientError::Protocol(WireError::InvalidField {
            field: "response op",
            value: u64::from(ResponseHeader::peek(&frame).map_or(0, |h| h.op)),
        })),
        Err(e) if e.status == Status::Unauthorized => Err(ClientError::AuthFailed {
            addr: addr.to_owned(),
            message: e.message.to_owned(),
        }),
        Err(e) => Err(ClientError::Broker {
            status: e.status,
            message: e.message.to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermit_protocol::frame::{
        ErrorBody, Limits, decode_request, encode_error, encode_response,
    };
    use hermit_protocol::{Op, Request};

    const NONCE: [u8; 32] = [5; 32];
    const BROKER_ID: [u8; 16] = [6; 16];

    fn opts(identity: Option<Arc<Identity>>) -> OpenOptions {
        OpenOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(5),
            max_response: 1 << 20,
            tls: None,
            identity,
            known_brokers: None,
        }
    }

    /// The broker's half of a handshake over `peer`: its hello with
    /// `flags`, then, when an `Authenticate` comes, the broker's own
    /// verifier decides; `answer` may replace the principal it returns.
    async fn broker_side(
        mut peer: tokio::io::DuplexStream,
        flags: u32,
        answer: Option<[u8; 32]>,
    ) -> Option<Vec<u8>> {
        let mut hello = [0u8; HELLO_LEN];
        peer.read_exact(&mut hello).await.ok()?;
        assert_eq!(Hello::decode(&hello).unwrap().version, VERSION_3);
        let ours = BrokerHello {
            max_frame: 1 << 20,
            flags: BrokerFlags(flags),
            nonce: NONCE,
            broker_id: BROKER_ID,
        };
        peer.write_all(&ours.encode()).await.ok()?;
        let mut len = [0u8; 4];
        peer.read_exact(&mut len).await.ok()?;
        let mut frame = len.to_vec();
        frame.resize(4 + u32::from_be_bytes(len) as usize, 0);
        peer.read_exact(&mut frame[4..]).await.ok()?;
        let req = decode_request(&frame, &Limits::default()).unwrap();
        let Request::Authenticate(a) = req.request else {
            panic!("first frame is not Authenticate: {:?}", req.request)
        };
        let mut out = BytesMut::new();
        let challenge = hermit_broker::auth::Challenge {
            nonce: &NONCE,
            broker_id: &BROKER_ID,
            arrived_at: Some(std::net::Ipv4Addr::LOCALHOST.into()),
            tls_exporter: None,
        };
        let policy = hermit_broker::auth::ProofPolicy::default();
        match hermit_broker::auth::verify_authenticate(&a, &challenge, &policy) {
            Ok(p) => encode_response(
                req.correlation_id,
                &ResponseBody::Authenticate {
                    principal: answer.unwrap_or(*p.as_bytes()),
                },
                &mut out,
            )
            .unwrap(),
            Err(e) => encode_error(
                req.correlation_id,
                Op::Authenticate as u8,
                &ErrorBody {
                    status: Status::Unauthorized,
                    message: &e.to_string(),
                    bounds: None,
                },
                &mut out,
            )
            .unwrap(),
        }
        peer.write_all(&out).await.ok()?;
        Some(frame)
    }

    #[tokio::test]
    async fn authenticates_first_with_a_signature_the_broker_verifies() {
        let id = Arc::new(Identity::generate().unwrap());
        let (mut client, peer) = tokio::io::duplex(4096);
        let flags = BrokerFlags::AUTH_REQUIRED | BrokerFlags::AUTH_AVAILABLE;
        let broker = tokio::spawn(broker_side(peer, flags, None));
        let hs = handshake_as(&mut client, "localhost:1", None, &opts(Some(id)), VERSION_3)
            .await
            .unwrap();
        assert_eq!(hs.max_frame, 1 << 20);
        assert!(hs.leftover.is_empty());
        broker.await.unwrap().expect("an Authenticate frame");
    }

    #[tokio::test]
    async fn another_principal_in_the_answer_is_refused() {
        let id = Arc::new(Identity::generate().unwrap());
        let (mut client, peer) = tokio::io::duplex(4096);
        let broker = tokio::spawn(broker_side(
            peer,
            BrokerFlags::AUTH_AVAILABLE,
            Some([0; 32]),
        ));
        let err = handshake_as(&mut client, "localhost:1", None, &opts(Some(id)), VERSION_3)
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::AuthFailed { .. }), "{err}");
        assert!(
            err.to_string().contains("instead of this identity"),
            "{err}"
        );
        broker.await.unwrap();
    }

    #[tokio::test]
    async fn required_without_identity_is_a_typed_error_and_sends_nothing() {
        let (mut client, peer) = tokio::io::duplex(4096);
        let broker = tokio::spawn(broker_side(peer, BrokerFlags::AUTH_REQUIRED, None));
        let err = handshake_as(&mut client, "localhost:1", None, &opts(None), VERSION_3)
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::AuthRequired { .. }), "{err}");
        assert!(err.to_string().contains("--identity"), "{err}");
        drop(client);
        assert!(broker.await.unwrap().is_none(), "no frame after the hello");
    }

    #[test]
    fn auth_plan_follows_the_flags() {
        let id = Identity::generate().unwrap();
        let f = BrokerFlags;
        // Anonymous broker: never authenticate, even with an identity.
        assert!(auth_plan(f(0), Some(&id), "a").unwrap().is_none());
        let avail = BrokerFlags::AUTH_AVAILABLE;
        assert!(auth_plan(f(avail), None, "a").unwrap().is_none());
        assert!(auth_plan(f(avail), Some(&id), "a").unwrap().is_some());
        // A client certificate already named the principal.
        let done = BrokerFlags::AUTH_REQUIRED | BrokerFlags::AUTHENTICATED;
        assert!(auth_plan(f(done), None, "a").unwrap().is_none());
        assert!(auth_plan(f(BrokerFlags::AUTH_REQUIRED), None, "a").is_err());
    }
}
