//! [`Admin`]: the admin listener — bound before the log is opened, one
//! request per connection, a few connections at once (and a few more kept
//! for the probes), only for requests that name it in `Host`.

use std::fmt::Write as _;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::error::AdminError;
use super::hosts::AdminHosts;
use super::observed::{Observed, Phase};
use super::scrape;
use super::token::Token;
use crate::config::Config;
use crate::net::Server;
use crate::net::http::Request;

/// Admin connections served at once for any path; beyond them a
/// connection gets a probe slot, or is closed unanswered.
pub const MAX_CONNECTIONS: usize = 16;

/// Connections kept, beyond [`MAX_CONNECTIONS`], for `/healthz` and
/// `/readyz`: when clients that send nothing (or slowly) hold every other
/// connection, a probe still gets its answer. Any other path asked on one
/// is answered `503` with `Retry-After: 1`.
pub const PROBE_SLOTS: usize = 4;

/// How long a client may take to send its request head. Probes and
/// scrapers send it at once, in one packet; a client that sends nothing
/// holds a connection this long at most.
pub const HEAD_DEADLINE: Duration = Duration::from_secs(2);

/// How long writing an answer may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Which connections may use a slot: any request, or the probes only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Any,
    Probe,
}

/// The admin listener's state, shared by its connections and the broker's
/// start and shutdown (cloning gives another handle).
#[derive(Clone)]
pub struct Admin {
    observed: Arc<Observed>,
    token: Option<Arc<Token>>,
    hosts: Arc<AdminHosts>,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("phase", &self.phase())
            .finish_non_exhaustive()
    }
}

/// One answer: status line, content type, extra header lines, body.
struct Answer {
    status: u16,
    reason: &'static str,
    content_type: &'static str,
    extra: &'static [&'static str],
    body: Vec<u8>,
}

impl Answer {
    fn text(status: u16, reason: &'static str, body: &[u8]) -> Answer {
        Answer {
            status,
            reason,
            content_type: TEXT,
            extra: &[],
            body: body.to_vec(),
        }
    }

    fn with(mut self, extra: &'static [&'static str]) -> Answer {
        self.extra = extra;
        self
    }
}

impl Admin {
    /// Read `admin_token_file` (if set), compile `admin_hosts` and bind
    /// `admin_listen`; `None` when it is `"off"`. Serve with [`Admin::serve`].
    ///
    /// # Errors
    /// An unreadable or unusable token file, an invalid `admin_hosts`
    /// entry, or an address that cannot be bound.
    pub async fn bind(config: &Config) -> Result<Option<(Admin, TcpListener)>, AdminError> {
        let Some(addr) = config.admin_listen else {
            return Ok(None);
        };
        let token = config
            .admin_token_file
            .as_deref()
            .map(Token::load)
            .transpose()?;
        let hosts = AdminHosts::new(&config.admin_hosts)?;
        if hosts.any() {
            tracing::warn!(
                "admin_hosts = [\"*\"]: the admin listener answers any Host, so a web page that \
                 re-points its own name at this address can read what needs no token"
            );
        }
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| AdminError::Bind { addr, source })?;
        let admin = Admin {
            observed: Arc::new(Observed::new(
                config.metrics_top_topics as usize,
                config.metrics_top_groups as usize,
                config.metrics_top_principals as usize,
            )),
            token: token.map(Arc::new),
            hosts: Arc::new(hosts),
        };
        Ok(Some((admin, listener)))
    }

    /// Where the broker is in its life.
    pub fn phase(&self) -> Phase {
        self.observed.phase()
    }

    /// Give `/metrics` the server to read (once it exists).
    pub fn attach(&self, server: &Server) {
        let _ = self.observed.server.set(server.clone());
    }

    /// The broker serves: `/readyz` answers 200.
    pub fn set_ready(&self) {
        self.observed.set_ready();
    }

    /// The broker is shutting down: `/readyz` answers 503 from now on.
    pub fn set_stopping(&self) {
        self.observed.set_stopping();
    }

    /// Serve `listener` until the task is dropped (the process ends).
    pub async fn serve(self, listener: TcpListener) {
        let any = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        let probes = Arc::new(Semaphore::new(PROBE_SLOTS));
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "admin listener: accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let (permit, slot) = match any.clone().try_acquire_owned() {
                Ok(permit) => (permit, Slot::Any),
                Err(_) => match probes.clone().try_acquire_owned() {
                    Ok(permit) => (permit, Slot::Probe),
                    Err(_) => {
                        tracing::debug!(%peer, "admin listener: too many connections; closing one");
                        continue;
                    }
                },
            };
            let admin = self.clone();
            tokio::spawn(async move {
                admin.answer(stream, peer, slot).await;
                drop(permit);
            });
        }
    }

    async fn answer(&self, mut stream: TcpStream, peer: SocketAddr, slot: Slot) {
        let request = match crate::net::http::read_head(&mut stream, HEAD_DEADLINE).await {
            Ok((r, _)) => r,
            Err(e) => {
                if let Some((status, reason)) = e.status() {
                    let _ = tokio::time::timeout(
                        WRITE_TIMEOUT,
                        send(
                            &mut stream,
                            status,
                            reason,
                            TEXT,
                            &[],
                            e.to_string().as_bytes(),
                        ),
                    )
                    .await;
                }
                return;
            }
        };
        let local = stream.local_addr().ok().map(|a| a.ip());
        let answer = self.route(&request, peer, local, slot);
        let body = if request.method == "HEAD" {
            &[][..]
        } else {
            &answer.body[..]
        };
        let _ = tokio::time::timeout(
            WRITE_TIMEOUT,
            send(
                &mut stream,
                answer.status,
                answer.reason,
                answer.content_type,
                answer.extra,
                body,
            ),
        )
        .await;
    }

    /// The answer to `request`, which arrived from `peer` at address `local`
    /// on a connection holding `slot`.
    fn route(
        &self,
        request: &Request,
        peer: SocketAddr,
        local: Option<IpAddr>,
        slot: Slot,
    ) -> Answer {
        // Before anything else: a page that rebound its own name to this
        // address must learn nothing, not even which paths exist.
        let Some(host) = request.header("host") else {
            return Answer::text(400, "Bad Request", b"a Host header is required\n");
        };
        if !self.hosts.accepts(&host, local) {
            tracing::info!(target: "audit", %peer, host = ?host, "admin listener: request refused for its Host (admin_hosts)");
            return Answer::text(
                421,
                "Misdirected Request",
                b"this Host is not one of the admin listener's names (admin_hosts)\n",
            );
        }
        if request.method != "GET" && request.method != "HEAD" {
            return Answer::text(405, "Method Not Allowed", b"GET or HEAD only\n")
                .with(&["Allow: GET, HEAD"]);
        }
        let path = request.target.split('?').next().unwrap_or("");
        match path {
            "/healthz" => Answer::text(200, "OK", b"ok\n"),
            "/readyz" => match self.observed.phase() {
                Phase::Ready => Answer::text(200, "OK", b"ready\n"),
                Phase::Starting => Answer::text(503, "Service Unavailable", b"recovering\n"),
                Phase::Stopping => Answer::text(503, "Service Unavailable", b"shutting down\n"),
            },
            _ if slot == Slot::Probe => Answer::text(
                503,
                "Service Unavailable",
                b"busy: every admin connection is in use; only /healthz and /readyz are answered\n",
            )
            .with(&["Retry-After: 1"]),
            "/metrics" => {
                let authorized = self
                    .token
                    .as_ref()
                    .is_none_or(|t| t.accepts(request.header("authorization").as_deref()));
                if authorized {
                    Answer {
                        status: 200,
                        reason: "OK",
                        content_type: METRICS_TYPE,
                        extra: &[],
                        body: self.render().into_bytes(),
                    }
                } else {
                    tracing::info!(target: "audit", %peer, "admin listener: /metrics refused without the bearer token");
                    Answer::text(401, "Unauthorized", b"a bearer token is required\n")
                        .with(&["WWW-Authenticate: Bearer"])
                }
            }
            _ => Answer::text(
                404,
                "Not Found",
                b"not found: /metrics, /healthz, /readyz\n",
            ),
        }
    }

    /// The whole `/metrics` answer, in the Prometheus text format.
    pub fn render(&self) -> String {
        scrape::render(&self.observed)
    }
}

const TEXT: &str = "text/plain; charset=utf-8";
const METRICS_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

async fn send(
    stream: &mut TcpStream,
    status: u16,
    reason: &str,
    content_type: &str,
    extra: &[&str],
    body: &[u8],
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n",
        body.len()
    );
    for h in extra {
        let _ = write!(head, "{h}\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    stream.flush().await?;
    stream.shutdown().await
}
