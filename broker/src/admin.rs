//! The admin HTTP listener (`admin_listen`): `/metrics` in the Prometheus
//! text format, `/healthz` and `/readyz` (docs/OPERATIONS.md, "Metrics and
//! health").
//!
//! It is bound before the log is opened, so `/readyz` answers 503 while the
//! data directory is recovered and 200 once the broker serves; 503 again
//! from the first shutdown signal on.
//!
//! **Blind.** `/metrics` carries numbers and, as labels, topic and group
//! names, partition numbers, principals (the fingerprints ACLs name) and
//! fixed reason words — never a record key, a payload byte or anything a
//! record's envelope holds: the broker parses none of them.
//!
//! **Bounded.** Per-partition series exist only for the
//! `metrics_top_topics` busiest topics (bytes in and out since the last
//! choice, re-made at most every [`RECHOOSE`]), per-group series for at
//! most `metrics_top_groups` (largest lag first), per-principal throttling
//! for `metrics_top_principals`; totals cover everything. So a million
//! inboxes are a few hundred series, not a million.
//!
//! The encoder is `prometheus-client`'s: it escapes label values and
//! writes the exposition format; every value is read from the broker's own
//! counters when scraped (one [`Collector`]), so the record path pays one
//! relaxed atomic add per counter and no registry lookup.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::auth::AuthError;
use crate::config::Config;
use crate::log::Topic;
use crate::metrics::HistogramSnapshot;
use crate::net::Server;

/// The busiest topics are chosen again when the last choice is this old.
pub const RECHOOSE: Duration = Duration::from_secs(10);

/// Admin connections served at once; more are closed unanswered.
const MAX_CONNECTIONS: usize = 16;

/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// How long writing an answer may take.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The shortest bearer token accepted from `admin_token_file`.
pub const MIN_TOKEN_LEN: usize = 16;

/// Where the broker is in its life, as `/readyz` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Opening and recovering the data directory, binding listeners.
    Starting = 0,
    /// Serving.
    Ready = 1,
    /// Shutting down: draining connections, then the final fsync.
    Stopping = 2,
}

/// Why the admin listener could not start.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// `admin_token_file` could not be read.
    #[error("admin_token_file {}: {source}", path.display())]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The token is too short or not one line.
    #[error("admin_token_file {}: {reason}", path.display())]
    BadToken {
        /// The file.
        path: PathBuf,
        /// What is wrong (never the token).
        reason: String,
    },
    /// The address cannot be bound.
    #[error("cannot listen on {addr} (admin_listen): {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The bearer token `/metrics` requires. Never printed.
struct Token(zeroize::Zeroizing<Vec<u8>>);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    fn load(path: &Path) -> Result<Token, AdminError> {
        let bytes = zeroize::Zeroizing::new(std::fs::read(path).map_err(|source| {
            AdminError::TokenFile {
                path: path.to_owned(),
                source,
            }
        })?);
        let bad = |reason: &str| AdminError::BadToken {
            path: path.to_owned(),
            reason: reason.to_owned(),
        };
        let text = std::str::from_utf8(&bytes).map_err(|_| bad("not UTF-8"))?;
        let token = text.strip_suffix('\n').unwrap_or(text);
        let token = token.strip_suffix('\r').unwrap_or(token);
        if token.len() < MIN_TOKEN_LEN {
            return Err(bad(&format!(
                "the token must be at least {MIN_TOKEN_LEN} characters"
            )));
        }
        if token.bytes().any(|b| !b.is_ascii_graphic()) {
            return Err(bad(
                "the token must be one line of printable ASCII without spaces",
            ));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            if let Ok(meta) = std::fs::metadata(path)
                && meta.permissions().mode() & 0o077 != 0
            {
                tracing::warn!(target: "audit", file = %path.display(), "admin_token_file is readable by other users (chmod 600 it)");
            }
        }
        Ok(Token(zeroize::Zeroizing::new(token.as_bytes().to_vec())))
    }

    /// Whether an `Authorization` header value carries this token (in time
    /// that does not depend on where a wrong token differs).
    fn accepts(&self, header: Option<&str>) -> bool {
        let Some(given) = header.and_then(|h| {
            let (scheme, rest) = h.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(rest.trim())
        }) else {
            return false;
        };
        let (a, b) = (given.as_bytes(), &self.0[..]);
        if a.len() != b.len() {
            return false;
        }
        let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
        std::hint::black_box(diff) == 0
    }
}

/// What `/metrics` reads, once the server exists.
struct Sources {
    server: Server,
}

/// The busiest topics, as last chosen.
#[derive(Default)]
struct Choice {
    /// When they were last chosen again from scratch.
    at: Option<Instant>,
    topics: Vec<Arc<Topic>>,
}

struct Inner {
    phase: AtomicU8,
    token: Option<Token>,
    sources: OnceLock<Sources>,
    started: Instant,
    choice: Mutex<Choice>,
    top_topics: usize,
    top_groups: usize,
    top_principals: usize,
}

/// The admin listener's state, shared by its connections and the broker's
/// start and shutdown (cloning gives another handle).
#[derive(Clone)]
pub struct Admin {
    inner: Arc<Inner>,
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
            inner: Arc::new(Inner {
                phase: AtomicU8::new(Phase::Starting as u8),
                token,
                sources: OnceLock::new(),
                started: Instant::now(),
                choice: Mutex::new(Choice::default()),
                top_topics: config.metrics_top_topics as usize,
                top_groups: config.metrics_top_groups as usize,
                top_principals: config.metrics_top_principals as usize,
            }),
        };
        Ok(Some((admin, listener)))
    }

    /// Where the broker is in its life.
    pub fn phase(&self) -> Phase {
        match self.inner.phase.load(Ordering::Acquire) {
            0 => Phase::Starting,
            1 => Phase::Ready,
            _ => Phase::Stopping,
        }
    }

    /// Give `/metrics` the server to read (once it exists).
    pub fn attach(&self, server: &Server) {
        let _ = self.inner.sources.set(Sources {
            server: server.clone(),
        });
    }

    /// The broker serves: `/readyz` answers 200.
    pub fn set_ready(&self) {
        let _ = self.inner.phase.compare_exchange(
            Phase::Starting as u8,
            Phase::Ready as u8,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// The broker is shutting down: `/readyz` answers 503 from now on.
    pub fn set_stopping(&self) {
        self.inner
            .phase
            .store(Phase::Stopping as u8, Ordering::Release);
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
                    "/readyz" => match self.phase() {
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
                        let authorized =
                            self.inner.token.as_ref().is_none_or(|t| {
                                t.accepts(request.header("authorization").as_deref())
                            });
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
        let mut registry = Registry::default();
        registry.register_collector(Box::new(Scrape(self.clone())));
        let mut out = String::new();
        // Writing to a String cannot fail; a collector error would be ours.
        if let Err(e) = prometheus_client::encoding::prometheus_text::encode(&mut out, &registry) {
            tracing::error!(error = %e, "cannot encode /metrics");
        }
        out
    }

    /// The busiest topics and how many topics with traffic were left out.
    ///
    /// Every [`RECHOOSE`] they are chosen again: the most bytes in and out
    /// since the last choice first (ties by all-time traffic, so the set
    /// stays steady when nothing moves). In between, the set keeps its
    /// members, and room left in it goes to the busiest others at once, so
    /// a new topic shows up on the next scrape while there is room.
    fn busiest(&self, server: &Server) -> (Vec<Arc<Topic>>, u64) {
        let mut choice = self.inner.choice.lock().unwrap_or_else(|p| p.into_inner());
        let again = choice.at.is_none_or(|t| t.elapsed() >= RECHOOSE);
        // Incarnations are unique among every topic ever created here.
        let keep: HashSet<u64> = if again {
            HashSet::new()
        } else {
            choice.topics.iter().map(|t| t.incarnation()).collect()
        };
        let (mut kept, mut others): (Vec<_>, Vec<_>) = (Vec::new(), Vec::new());
        for t in server.log().topics() {
            let Some(stats) = t.stats() else { continue };
            let (mut recent, mut total) = (0u64, 0u64);
            for s in stats.iter() {
                let now = s.traffic();
                let before = if again {
                    s.ranked.swap(now, Ordering::Relaxed)
                } else {
                    s.ranked.load(Ordering::Relaxed)
                };
                recent = recent.saturating_add(now.saturating_sub(before));
                total = total.saturating_add(now);
            }
            if total == 0 {
                continue;
            }
            if keep.contains(&t.incarnation()) {
                kept.push(t);
            } else {
                others.push((recent, total, t));
            }
        }
        let with_traffic = kept.len() + others.len();
        let room = self.inner.top_topics.saturating_sub(kept.len());
        others.sort_unstable_by_key(|o| std::cmp::Reverse((o.0, o.1)));
        kept.extend(others.into_iter().take(room).map(|(_, _, t)| t));
        kept.truncate(self.inner.top_topics);
        let hidden = (with_traffic - kept.len()) as u64;
        choice.topics = kept;
        if again {
            choice.at = Some(Instant::now());
        }
        (choice.topics.clone(), hidden)
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

/// One scrape: reads every source when encoded.
struct Scrape(Admin);

impl std::fmt::Debug for Scrape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scrape")
    }
}

type Labels<const N: usize> = [(&'static str, String); N];

fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, v: u64) -> std::fmt::Result {
    e.encode_descriptor(name, help, None, MetricType::Counter)?
        .encode_counter::<NoLabelSet, u64, u64>(&v, None)
}

fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, v: impl Into<f64>) -> std::fmt::Result {
    e.encode_descriptor(name, help, None, MetricType::Gauge)?
        .encode_gauge(&v.into())
}

fn counters<S: EncodeLabelSet>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: &[(S, u64)],
) -> std::fmt::Result {
    let mut m = e.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (labels, v) in rows {
        m.encode_family(labels)?
            .encode_counter::<NoLabelSet, u64, u64>(v, None)?;
    }
    Ok(())
}

fn gauges<S: EncodeLabelSet>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: &[(S, u64)],
) -> std::fmt::Result {
    let mut m = e.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, v) in rows {
        m.encode_family(labels)?.encode_gauge(v)?;
    }
    Ok(())
}

fn histogram(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    h: &HistogramSnapshot,
) -> std::fmt::Result {
    e.encode_descriptor(name, help, None, MetricType::Histogram)?
        .encode_histogram::<NoLabelSet>(h.sum, h.count, &h.buckets, None)
}

impl Collector for Scrape {
    fn encode(&self, mut e: DescriptorEncoder) -> std::fmt::Result {
        let admin = &self.0;
        let inner = &admin.inner;
        let e = &mut e;
        gauge(
            e,
            "hermit_ready",
            "1 when the broker serves; 0 while it recovers or shuts down.",
            u32::from(admin.phase() == Phase::Ready),
        )?;
        gauge(
            e,
            "hermit_uptime_seconds",
            "Seconds since the broker process started its admin listener.",
            inner.started.elapsed().as_secs_f64(),
        )?;
        e.encode_descriptor(
            "hermit_build",
            "The broker's version.",
            None,
            MetricType::Info,
        )?
        .encode_info(&[("version", env!("CARGO_PKG_VERSION"))])?;
        process(e)?;
        let Some(sources) = inner.sources.get() else {
            return Ok(());
        };
        let server = &sources.server;
        let log = server.log();
        let m = server.metrics();
        let get = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);

        // Traffic: totals over every topic, then the busiest topics' partitions.
        let [ri, bi, ro, bo] = log.traffic_totals();
        counter(e, "hermit_records_in", "Records appended, all topics.", ri)?;
        counter(
            e,
            "hermit_bytes_in",
            "Record batch bytes appended, all topics.",
            bi,
        )?;
        counter(
            e,
            "hermit_records_out",
            "Offsets served by fetches, all topics (compaction's holes among them).",
            ro,
        )?;
        counter(
            e,
            "hermit_bytes_out",
            "Record batch bytes served by fetches, all topics.",
            bo,
        )?;
        gauge(e, "hermit_topics", "Topics.", log.topic_count() as f64)?;
        let (shown, hidden) = admin.busiest(server);
        gauge(
            e,
            "hermit_metrics_topics_hidden",
            "Topics with traffic that have no per-partition series (metrics_top_topics).",
            hidden as f64,
        )?;
        let mut rows: [Vec<(Labels<2>, u64)>; 6] = Default::default();
        for t in &shown {
            let Some(stats) = t.stats() else { continue };
            for (p, s) in stats.iter().enumerate() {
                let labels = || [("topic", t.name().to_owned()), ("partition", p.to_string())];
                for (i, v) in s.totals().into_iter().enumerate() {
                    rows[i].push((labels(), v));
                }
                if let Some(part) = log.peek_partition(t, p as u32) {
                    let (start, end) = part.bounds();
                    rows[4].push((labels(), start));
                    rows[5].push((labels(), end));
                }
            }
        }
        let [r_in, b_in, r_out, b_out, starts, ends] = rows;
        counters(
            e,
            "hermit_partition_records_in",
            "Records appended (busiest topics).",
            &r_in,
        )?;
        counters(
            e,
            "hermit_partition_bytes_in",
            "Record batch bytes appended (busiest topics).",
            &b_in,
        )?;
        counters(
            e,
            "hermit_partition_records_out",
            "Offsets served by fetches (busiest topics).",
            &r_out,
        )?;
        counters(
            e,
            "hermit_partition_bytes_out",
            "Record batch bytes served by fetches (busiest topics).",
            &b_out,
        )?;
        gauges(
            e,
            "hermit_partition_log_start",
            "First stored offset (open partitions of the busiest topics).",
            &starts,
        )?;
        gauges(
            e,
            "hermit_partition_log_end",
            "High watermark: the offset the next visible record gets (open partitions of the busiest topics).",
            &ends,
        )?;

        // Groups: of the busiest topics, the largest lags first.
        let by_name: std::collections::HashMap<&str, &Arc<Topic>> =
            shown.iter().map(|t| (t.name(), t)).collect();
        // Collected under the offset shards' locks, measured after them:
        // the partition cache's lock is never taken inside a shard's.
        let mut commits: Vec<(String, &Arc<Topic>, u32, u64)> = Vec::new();
        server.engine().offsets().for_each(|g, t, p, committed| {
            if let Some(topic) = by_name.get(t) {
                commits.push((g.to_owned(), topic, p, committed));
            }
        });
        let mut groups: Vec<(u64, Labels<3>, u64)> = commits
            .into_iter()
            .map(|(g, topic, p, committed)| {
                let end = log
                    .peek_partition(topic, p)
                    .map(|part| part.high_watermark());
                let lag = end.map_or(0, |end| end.saturating_sub(committed));
                let labels = [
                    ("group", g),
                    ("topic", topic.name().to_owned()),
                    ("partition", p.to_string()),
                ];
                (lag, labels, committed)
            })
            .collect();
        groups.sort_unstable_by_key(|g| std::cmp::Reverse(g.0));
        groups.truncate(inner.top_groups);
        let lags: Vec<_> = groups.iter().map(|(lag, l, _)| (l.clone(), *lag)).collect();
        let committed: Vec<_> = groups.into_iter().map(|(_, l, c)| (l, c)).collect();
        gauges(
            e,
            "hermit_group_committed_offset",
            "A group's committed offset (busiest topics, metrics_top_groups).",
            &committed,
        )?;
        gauges(
            e,
            "hermit_group_lag",
            "High watermark minus the committed offset, for open partitions (busiest topics, metrics_top_groups).",
            &lags,
        )?;

        // Storage.
        let (round_ns, round_size) = log.sync_histograms();
        histogram(
            e,
            "hermit_fsync_seconds",
            "Duration of a group-commit round: the fsyncs (or one syncfs) that make a round's writes durable.",
            &round_ns.snapshot(),
        )?;
        histogram(
            e,
            "hermit_group_commit_partitions",
            "Partitions made durable per group-commit round.",
            &round_size.snapshot(),
        )?;
        let sync = log.sync_stats();
        counter(
            e,
            "hermit_fsync_rounds",
            "Group-commit rounds.",
            sync.rounds,
        )?;
        counter(
            e,
            "hermit_fsyncs",
            "Partition (or slab) fdatasyncs issued.",
            sync.fsyncs,
        )?;
        counter(
            e,
            "hermit_syncfs",
            "Whole-file-system syncs issued (large rounds).",
            sync.syncfs,
        )?;
        gauge(
            e,
            "hermit_open_files",
            "Segment files held open by partitions.",
            log.open_files() as f64,
        )?;
        let (open, evictions) = log.open_partitions();
        gauge(e, "hermit_open_partitions", "Partitions open.", open as f64)?;
        counter(
            e,
            "hermit_partition_evictions",
            "Idle partitions closed to stay within open_files.",
            evictions,
        )?;
        let (hits, misses) = log.cache_stats();
        counter(
            e,
            "hermit_partition_cache_hits",
            "Partition lookups answered by the open-partition cache.",
            hits,
        )?;
        counter(
            e,
            "hermit_partition_cache_misses",
            "Partitions opened because they were not open.",
            misses,
        )?;

        // Requests.
        histogram(
            e,
            "hermit_produce_latency_seconds",
            "From a produce request to its answer (after its fsync, for durable acks).",
            &m.produce_latency.snapshot(),
        )?;
        histogram(
            e,
            "hermit_fetch_latency_seconds",
            "From a fetch request to its answer, for fetches that did not wait for data.",
            &m.fetch_latency.snapshot(),
        )?;
        gauge(
            e,
            "hermit_fetches_parked",
            "Long polls waiting for data.",
            get(&m.fetches_parked) as f64,
        )?;
        counter(
            e,
            "hermit_fetches_not_parked",
            "Long polls answered at once because max_parked_fetches were parked.",
            get(&m.fetches_not_parked),
        )?;
        counter(
            e,
            "hermit_bad_requests",
            "Malformed requests (each closed its connection).",
            get(&m.bad_requests),
        )?;

        // Connections.
        gauge(
            e,
            "hermit_connections_open",
            "Connections open.",
            get(&m.connections_open) as f64,
        )?;
        counter(
            e,
            "hermit_connections_accepted",
            "Connections accepted.",
            get(&m.connections_accepted),
        )?;
        let refused = [
            (
                [("reason", "max_connections".to_owned())],
                get(&m.connections_refused),
            ),
            (
                [("reason", "per_address".to_owned())],
                get(&m.refused_by_address),
            ),
            (
                [("reason", "per_principal".to_owned())],
                get(&m.refused_by_principal),
            ),
            ([("reason", "websocket".to_owned())], get(&m.ws_refused)),
        ];
        counters(
            e,
            "hermit_connections_refused",
            "Connections refused, by reason.",
            &refused,
        )?;
        counter(
            e,
            "hermit_websocket_upgrades",
            "WebSocket upgrades accepted.",
            get(&m.ws_upgrades),
        )?;

        // Access and quotas.
        let failures: Vec<_> = AuthError::REASONS
            .iter()
            .zip(&m.auth_failures)
            .map(|(r, c)| ([("reason", (*r).to_owned())], get(c)))
            .collect();
        counters(
            e,
            "hermit_auth_failures",
            "Authentications refused, by reason.",
            &failures,
        )?;
        counter(
            e,
            "hermit_unauthorized",
            "Requests refused by the access rules.",
            get(&m.unauthorized),
        )?;
        let throttled = [
            (
                [("direction", "produce".to_owned())],
                get(&m.produce_throttled),
            ),
            ([("direction", "fetch".to_owned())], get(&m.fetch_throttled)),
        ];
        counters(
            e,
            "hermit_throttled",
            "Answers delayed by a byte rate, all callers.",
            &throttled,
        )?;
        let mut per_principal = Vec::new();
        for (who, [p, f]) in server.quotas().most_throttled(inner.top_principals) {
            let name = who.map_or_else(|| "anonymous".to_owned(), |w| w.to_string());
            for (direction, v) in [("produce", p), ("fetch", f)] {
                per_principal.push((
                    [
                        ("principal", name.clone()),
                        ("direction", direction.to_owned()),
                    ],
                    v,
                ));
            }
        }
        counters(
            e,
            "hermit_principal_throttled",
            "Answers delayed by a byte rate, for the most throttled principals (metrics_top_principals).",
            &per_principal,
        )?;
        counter(
            e,
            "hermit_receive_budget_waits",
            "Times a connection waited for receive_budget_bytes.",
            get(&m.receive_budget_waits),
        )?;
        Ok(())
    }
}

/// CPU time, resident memory and descriptors of this process (Linux `/proc`).
fn process(e: &mut DescriptorEncoder) -> std::fmt::Result {
    if let Ok(stat) = std::fs::read_to_string("/proc/self/stat")
        && let Some((_, rest)) = stat.rsplit_once(") ")
    {
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the command name: field 14 (utime) and 15 (stime) are at 11 and 12.
        let ticks: u64 = [11, 12]
            .iter()
            .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
            .sum();
        let hz = rustix::param::clock_ticks_per_second() as f64;
        e.encode_descriptor(
            "hermit_process_cpu_seconds",
            "CPU time (user and system) of the broker process.",
            None,
            MetricType::Counter,
        )?
        .encode_counter::<NoLabelSet, f64, f64>(&(ticks as f64 / hz), None)?;
    }
    if let Ok(statm) = std::fs::read_to_string("/proc/self/statm")
        && let Some(pages) = statm
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u64>().ok())
    {
        let bytes = pages * rustix::param::page_size() as u64;
        gauge(
            e,
            "hermit_process_resident_memory_bytes",
            "Resident memory of the broker process.",
            bytes as f64,
        )?;
    }
    if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
        gauge(
            e,
            "hermit_process_open_fds",
            "File descriptors the broker process has open.",
            fds.count() as f64,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_compared_whole_and_never_printed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "s3cret-token-0123456789\n").unwrap();
        let t = Token::load(&path).unwrap();
        assert!(t.accepts(Some("Bearer s3cret-token-0123456789")));
        assert!(t.accepts(Some("bearer  s3cret-token-0123456789 ")));
        assert!(!t.accepts(Some("Bearer s3cret-token-012345678")));
        assert!(!t.accepts(Some("Bearer s3cret-token-0123456780")));
        assert!(!t.accepts(Some("Basic s3cret-token-0123456789")));
        assert!(!t.accepts(None));
        assert_eq!(format!("{t:?}"), "Token(..)");
        std::fs::write(&path, "short\n").unwrap();
        let e = Token::load(&path).unwrap_err().to_string();
        assert!(e.contains("at least 16"), "{e}");
        assert!(!e.contains("short\n"), "the token is not in the error: {e}");
    }
}
