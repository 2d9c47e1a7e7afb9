//! [`Admin`]: the admin listener — bound before the log is opened, one
//! request per connection, a few connections at once.

use std::fmt::Write as _;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::error::AdminError;
use super::observed::{Observed, Phase};
use super::scrape;
use super::token::Token;
use crate::config::Config;
use crate::net::Server;

/// Admin connections served at once; more are closed unanswered.
const MAX_CONNECTIONS: usize = 16;

/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// How long writing an answer may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The admin listener's state, shared by its connections and the broker's
/// start and shutdown (cloning gives another handle).
#[derive(Clone)]
pub struct Admin {
    observed: Arc<Observed>,
    token: Option<Arc<Token>>,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("phase", &self.phase())
            .finish_non_exhaustive()
    }
}

impl Admin {
    /// Read `admin_token_file` (if set) and bind `admin_listen`; `None`
    /// when it is `"off"`. Serve with [`Admin::serve`].
    ///
    /// # Errors
    /// An unreadable or unusable token file, or an address that cannot be bound.
    pub async fn bind(config: &Config) -> Result<Option<(Admin, TcpListener)>, AdminError> {
        let Some(addr) = config.admin_listen else {
            return Ok(None);
        };
        let token = config
            .admin_token_file
            .as_deref()
            .map(Token::load)
            .transpose()?;
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
        let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(c) => c,
                Err(e) => {
                    tracing::warn!(error = %e, "admin listener: accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                tracing::debug!(%peer, "admin listener: too many connections; closing one");
                continue;
            };
            let admin = self.clone();
            tokio::spawn(async move {
                admin.answer(stream, peer).await;
                drop(permit);
            });
        }
    }

    async fn answer(&self, mut stream: TcpStream, peer: SocketAddr) {
        let request = match crate::net::http::read_head(&mut stream, HEAD_TIMEOUT).await {
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
        let head_only = request.method == "HEAD";
        let path = request.target.split('?').next().unwrap_or("");
        let (status, reason, content_type, extra, body): (u16, &str, &str, &[&str], Vec<u8>) =
            if request.method != "GET" && !head_only {
                (
                    405,
                    "Method Not Allowed",
                    TEXT,
                    &["Allow: GET, HEAD"],
                    b"GET or HEAD only\n".to_vec(),
                )
            } else {
                match path {
                    "/healthz" => (200, "OK", TEXT, &[], b"ok\n".to_vec()),
                    "/readyz" => match self.observed.phase() {
                        Phase::Ready => (200, "OK", TEXT, &[], b"ready\n".to_vec()),
                        Phase::Starting => (
                            503,
                            "Service Unavailable",
                            TEXT,
                            &[],
                            b"recovering\n".to_vec(),
                        ),
                        Phase::Stopping => (
                            503,
                            "Service Unavailable",
                            TEXT,
                            &[],
                            b"shutting down\n".to_vec(),
                        ),
                    },
                    "/metrics" => {
                        let authorized = self
                            .token
                            .as_ref()
                            .is_none_or(|t| t.accepts(request.header("authorization").as_deref()));
                        if authorized {
                            (200, "OK", METRICS_TYPE, &[], self.render().into_bytes())
                        } else {
                            tracing::info!(target: "audit", %peer, "admin listener: /metrics refused without the bearer token");
                            (
                                401,
                                "Unauthorized",
                                TEXT,
                                &["WWW-Authenticate: Bearer"],
                                b"a bearer token is required\n".to_vec(),
                            )
                        }
                    }
                    _ => (
                        404,
                        "Not Found",
                        TEXT,
                        &[],
                        b"not found: /metrics, /healthz, /readyz\n".to_vec(),
                    ),
                }
            };
        let body = if head_only { &[][..] } else { &body[..] };
        let _ = tokio::time::timeout(
            WRITE_TIMEOUT,
            send(&mut stream, status, reason, content_type, extra, body),
        )
        .await;
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
