//! The front door of every connection: the per-address and global
//! connection caps, the TLS handshake (and the principal of a client
//! certificate), the HTTP request of a WebSocket listener (an upgrade or a
//! static file), then the connection itself — or a refusal that says why.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hermit_protocol::frame::{ErrorBody, encode_error};
use hermit_protocol::hello::{BrokerFlags, BrokerHello, HELLO_LEN, Hello, NONCE_LEN, VERSION_3};
use hermit_protocol::{Op, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use super::admission::Admitted;
use super::connection::Connection;
use super::shared::{Arrival, Shared};
use super::stream::ByteStream;
use super::{http, ws};
use crate::auth::Principal;
use crate::tls::{self, TlsAcceptor};

/// Finish the TLS handshake (within the handshake timeout) and learn the
/// principal of a verified client certificate; `None` if it failed.
async fn tls_handshake(
    shared: &Shared,
    acceptor: TlsAcceptor,
    tcp: TcpStream,
    peer: SocketAddr,
) -> Option<(TlsStream<TcpStream>, Option<Principal>)> {
    let limit = Duration::from_millis(shared.options.handshake_timeout_ms);
    let stream = match tokio::time::timeout(limit, acceptor.accept(tcp)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            tracing::debug!(%peer, error = %e, "TLS handshake failed");
            return None;
        }
        Err(_) => {
            tracing::debug!(%peer, "no TLS handshake within the handshake timeout");
            return None;
        }
    };
    let principal = match tls::peer_spki(stream.get_ref().1) {
        None => None,
        Some(spki) => match Principal::from_spki(&spki) {
            Ok(p) => {
                tracing::info!(target: "audit", %peer, principal = %p, "authenticated by client certificate");
                Some(p)
            }
            Err(e) => {
                // A certificate the CA signed but whose key is not P-256: it
                // names no principal; the client may still Authenticate.
                tracing::info!(target: "audit", %peer, error = %e, "client certificate names no principal");
                None
            }
        },
    };
    Some((stream, principal))
}

impl Arrival {
    /// A connection over `stream`, TLS, whose client certificate named
    /// `principal`: with its exporter value when it is TLS 1.3.
    fn tls(stream: &TlsStream<TcpStream>, principal: Option<Principal>) -> Arrival {
        let (tcp, conn) = stream.get_ref();
        Arrival {
            tls: true,
            principal,
            tls_exporter: tls::channel_binding(conn),
            ..Arrival::at(tcp.local_addr().ok().map(|l| l.ip()))
        }
    }
}

/// A TLS connection: the handshake, then the protocol.
pub(super) async fn serve_tls(
    shared: Arc<Shared>,
    acceptor: TlsAcceptor,
    tcp: TcpStream,
    peer: SocketAddr,
    admitted: Admitted,
) {
    let Some((stream, principal)) = tls_handshake(&shared, acceptor, tcp, peer).await else {
        return;
    };
    let arrival = Arrival::tls(&stream, principal);
    serve(shared, stream, peer, arrival, admitted).await
}

/// A WebSocket connection: TLS first for `wss_listen`, then the HTTP
/// request (an upgrade, or a static file from `web_root`), then the
/// protocol over [`ws::WsStream`].
pub(super) async fn serve_ws(
    shared: Arc<Shared>,
    acceptor: Option<TlsAcceptor>,
    tcp: TcpStream,
    peer: SocketAddr,
    admitted: Admitted,
) {
    match acceptor {
        None => {
            let arrival = Arrival::at(tcp.local_addr().ok().map(|l| l.ip()));
            upgrade(shared, tcp, peer, arrival, admitted).await
        }
        Some(a) => {
            let Some((stream, principal)) = tls_handshake(&shared, a, tcp, peer).await else {
                return;
            };
            let arrival = Arrival::tls(&stream, principal);
            upgrade(shared, stream, peer, arrival, admitted).await
        }
    }
}

/// Read the HTTP request on a WebSocket listener and upgrade it, serve a
/// file, or refuse it.
async fn upgrade<S>(
    shared: Arc<Shared>,
    mut stream: S,
    peer: SocketAddr,
    mut arrival: Arrival,
    admitted: Admitted,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let limit = Duration::from_millis(shared.options.handshake_timeout_ms);
    let refused = || shared.metrics.ws_refused.fetch_add(1, Ordering::Relaxed);
    let (request, rest) = match http::read_head(&mut stream, limit).await {
        Ok(r) => r,
        Err(e) => {
            refused();
            tracing::debug!(%peer, error = %e, "WebSocket listener: no usable request");
            if let Some((status, reason)) = e.status() {
                let _ = tokio::time::timeout(
                    limit,
                    http::respond(&mut stream, status, reason, None, &e.to_string()),
                )
                .await;
            }
            return;
        }
    };
    if !request.wants_websocket() {
        let answer = async {
            match &shared.options.web_root {
                Some(root) => {
                    shared.metrics.files_served.fetch_add(1, Ordering::Relaxed);
                    http::serve_file(&mut stream, root, &request, arrival.tls).await
                }
                None => {
                    let body = format!(
                        "this port speaks HermitMQ over WebSocket (subprotocol {})",
                        http::SUBPROTOCOL
                    );
                    let header = Some("Upgrade: websocket");
                    http::respond(&mut stream, 426, "Upgrade Required", header, &body).await
                }
            }
        };
        // Bounded like the request: a client that does not read its
        // answer does not keep the task.
        let _ = tokio::time::timeout(limit.max(Duration::from_secs(30)), answer).await;
        return;
    }
    let response = match http::accept_upgrade(&request, &shared.origins) {
        Ok(r) => r,
        Err(refusal) => {
            refused();
            tracing::info!(
                target: "audit",
                %peer,
                status = refusal.status,
                reason = %refusal.message,
                "WebSocket upgrade refused"
            );
            let _ = tokio::time::timeout(
                limit,
                http::respond(
                    &mut stream,
                    refusal.status,
                    refusal.reason,
                    refusal.header,
                    &refusal.message,
                ),
            )
            .await;
            return;
        }
    };
    let wrote = tokio::time::timeout(limit, async {
        stream.write_all(&response).await?;
        stream.flush().await
    })
    .await;
    if !matches!(wrote, Ok(Ok(()))) {
        return;
    }
    shared.metrics.ws_upgrades.fetch_add(1, Ordering::Relaxed);
    let max_message = shared.options.ws_max_message;
    // The length prefix is not part of a frame's length.
    arrival.max_frame = Some(shared.limits.max_frame.min(max_message - 4));
    let ws = ws::WsStream::new(
        stream,
        rest,
        max_message as usize,
        shared.stop.subscribe(),
        shared.metrics.clone(),
        shared.send_budget.clone(),
    );
    serve(shared, ws, peer, arrival, admitted).await
}

/// Serve one admitted stream as a connection until it closes.
pub(super) async fn serve<S: ByteStream>(
    shared: Arc<Shared>,
    stream: S,
    peer: SocketAddr,
    arrival: Arrival,
    admitted: Admitted,
) {
    let stop = shared.stop.subscribe();
    Connection::new(stream, peer, arrival, shared, stop, admitted)
        .run()
        .await
}

/// How long a refused connection is kept to read the client's hello (so
/// the refusal answers its version and the close is not a reset): bounded,
/// so refused sockets do not pile up.
const REFUSE_LINGER: Duration = Duration::from_millis(250);

/// Answer a connection over a limit: its hello, then a `TooManyConnections`
/// notice (correlation id 0) saying which, then close.
pub(super) async fn refuse<S: ByteStream>(mut stream: S, shared: Arc<Shared>, message: &str) {
    let mut hello = [0u8; HELLO_LEN];
    // Not heard within the linger: answered as a version-3 client.
    let version = match tokio::time::timeout(REFUSE_LINGER, stream.read_exact(&mut hello)).await {
        Ok(Ok(_)) => match Hello::decode(&hello) {
            Ok(theirs) => theirs.version,
            Err(_) => return,
        },
        Ok(Err(_)) => return,
        Err(_) => VERSION_3,
    };
    let mut out = bytes::BytesMut::new();
    if version >= VERSION_3 {
        // No nonce worth signing: this connection is about to close.
        let ours = BrokerHello {
            max_frame: shared.limits.max_frame,
            flags: BrokerFlags::default(),
            nonce: [0; NONCE_LEN],
            broker_id: *shared.broker_id.as_bytes(),
        };
        out.extend_from_slice(&ours.encode());
    } else {
        out.extend_from_slice(&Hello::broker(shared.limits.max_frame).encode());
    }
    let body = ErrorBody {
        status: Status::TooManyConnections,
        message,
        bounds: None,
    };
    let _ = encode_error(0, Op::Ping as u8, &body, &mut out);
    let write = async {
        stream.write_all(&out).await?;
        stream.flush().await
    };
    let _ = tokio::time::timeout(REFUSE_LINGER, write).await;
}
