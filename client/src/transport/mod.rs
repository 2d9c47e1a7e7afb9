//! Transports: how a [`Client`](crate::Client) reaches the log it writes to
//! and reads from. The producer, the consumer, the sealed producer and
//! consumer and the CLI all go through [`Client`](crate::Client), so they
//! run unchanged over either:
//!
//! - **HermitMQ** (`hermit://host:port`, or a bare `host:port`): one
//!   multiplexed TCP connection to a HermitMQ broker (the default).
//! - **NATS JetStream** (`nats://host:port[,host:port…][?option=value&…]`,
//!   cargo feature `nats`): replicated JetStream streams on one NATS server
//!   or a cluster. The mapping (topics, offsets, groups) is in
//!   `docs/SCALE-OUT.md`; the offset encoding in [`nats_offset`].
//!
//! Which one is chosen by [`Endpoint::parse`] from the URL given to
//! [`Client::connect`](crate::Client::connect). Dispatch is a `match` on a
//! two-variant enum (no boxed trait objects): the HermitMQ hot path pays
//! one predictable branch per batch.

pub(crate) mod hermit;
#[cfg(feature = "nats")]
pub(crate) mod nats;
pub mod nats_offset;

use std::sync::Arc;

use crate::connection::Conn;
use crate::error::ClientError;

/// Which transport a [`Client`](crate::Client) uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportKind {
    /// A HermitMQ broker.
    Hermit,
    /// A NATS JetStream server or cluster.
    Nats,
}

/// Settings of the NATS transport, given as query parameters of the
/// `nats://` URL (`?replicas=3&partitions=4&auto_create=false`). Unknown
/// parameters are refused: a typo must not silently fall back to a default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NatsOptions {
    /// `replicas`: copies of every stream the client creates (1..=5). `None`
    /// picks 3 when the server is part of a cluster and 1 otherwise.
    /// Default `None`.
    pub replicas: Option<usize>,
    /// `partitions`: partitions of a topic created on first use (as the
    /// broker's `default_partitions`). Default 1.
    pub default_partitions: u32,
    /// `auto_create`: create a topic on its first produce, fetch or commit
    /// (as the broker's `auto_create`). Default `true`.
    pub auto_create: bool,
}

impl Default for NatsOptions {
    fn default() -> Self {
        NatsOptions {
            replicas: None,
            default_partitions: 1,
            auto_create: true,
        }
    }
}

/// A parsed broker URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `hermit://host:port` or `host:port`.
    Hermit {
        /// `host:port`, resolved at every (re)connect.
        addr: String,
    },
    /// `nats://host:port[,host:port…][?options]`.
    Nats {
        /// Seed servers, each as `nats://host:port` (the client also learns
        /// the other members of a cluster from the servers).
        servers: Vec<String>,
        /// Transport settings from the query string.
        options: NatsOptions,
    },
}

const HERMIT_SCHEME: &str = "hermit://";
const NATS_SCHEME: &str = "nats://";

impl Endpoint {
    /// Parse a broker URL: `hermit://host:port`, a bare `host:port`, or
    /// `nats://host:port[,host:port…][?replicas=N&partitions=N&auto_create=BOOL]`.
    pub fn parse(url: &str) -> Result<Endpoint, ClientError> {
        let url = url.trim();
        let bad = |why: &str| ClientError::InvalidArgument(format!("broker URL {url:?}: {why}"));
        if let Some(rest) = strip_prefix_ignore_case(url, NATS_SCHEME) {
            let (hosts, query) = match rest.split_once('?') {
                Some((h, q)) => (h, Some(q)),
                None => (rest, None),
            };
            let mut servers = Vec::new();
            for host in hosts.split(',') {
                let host = host.trim();
                let host = strip_prefix_ignore_case(host, NATS_SCHEME).unwrap_or(host);
                if host.is_empty() || host.contains('/') || host.contains("://") {
                    return Err(bad("expected nats://host:port[,host:port…]"));
                }
                servers.push(format!("{NATS_SCHEME}{host}"));
            }
            let mut options = NatsOptions::default();
            for pair in query.into_iter().flat_map(|q| q.split('&')) {
                if pair.is_empty() {
                    continue;
                }
                let (k, v) = pair
                    .split_once('=')
                    .ok_or_else(|| bad(&format!("option {pair:?} has no value")))?;
                match k {
                    "replicas" => {
                        let n: usize = v
                            .parse()
                            .ok()
                            .filter(|n| (1..=5).contains(n))
                            .ok_or_else(|| bad("replicas must be 1..=5"))?;
                        options.replicas = Some(n);
                    }
                    "partitions" => {
                        let max = hermit_protocol::frame::MAX_PARTITIONS;
                        options.default_partitions = v
                            .parse()
                            .ok()
                            .filter(|n| (1..=max).contains(n))
                            .ok_or_else(|| bad(&format!("partitions must be 1..={max}")))?;
                    }
                    "auto_create" => {
                        options.auto_create = match v {
                            "true" | "1" => true,
                            "false" | "0" => false,
                            _ => return Err(bad("auto_create must be true or false")),
                        }
                    }
                    other => {
                        return Err(bad(&format!(
                            "unknown option {other:?} (known: replicas, partitions, auto_create)"
                        )));
                    }
                }
            }
            return Ok(Endpoint::Nats { servers, options });
        }
        let addr = strip_prefix_ignore_case(url, HERMIT_SCHEME).unwrap_or(url);
        if addr.contains("://") {
            return Err(bad("unknown scheme (expected hermit:// or nats://)"));
        }
        if addr.is_empty() || addr.contains(['/', '?', ',']) {
            return Err(bad("expected host:port"));
        }
        Ok(Endpoint::Hermit {
            addr: addr.to_owned(),
        })
    }

    /// The transport this endpoint selects.
    pub fn kind(&self) -> TransportKind {
        match self {
            Endpoint::Hermit { .. } => TransportKind::Hermit,
            Endpoint::Nats { .. } => TransportKind::Nats,
        }
    }
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// The transport behind a [`Client`](crate::Client): an enum, so calls are
/// a `match`, not a virtual call.
#[derive(Clone)]
pub(crate) enum Transport {
    Hermit(Arc<hermit::Hermit>),
    #[cfg(feature = "nats")]
    Nats(Arc<nats::Nats>),
}

/// What the producer's sender task sends batches on: a live HermitMQ
/// connection, or the NATS transport (whose connection is managed by the
/// NATS client library; its `epoch` changes at every reconnect).
#[derive(Clone)]
pub(crate) enum Link {
    Hermit(Arc<Conn>),
    #[cfg(feature = "nats")]
    Nats(nats::NatsLink),
}

impl Link {
    /// Identifies the underlying connection: batches of one partition in
    /// flight on an older connection are answered before more are sent.
    pub(crate) fn id(&self) -> u64 {
        match self {
            Link::Hermit(c) => c.id,
            #[cfg(feature = "nats")]
            Link::Nats(n) => n.epoch,
        }
    }

    /// Whether new requests may be sent on it.
    pub(crate) fn is_usable(&self) -> bool {
        match self {
            Link::Hermit(c) => c.is_usable(),
            #[cfg(feature = "nats")]
            Link::Nats(n) => n.is_usable(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_select_the_transport() {
        assert_eq!(
            Endpoint::parse("127.0.0.1:9092").unwrap(),
            Endpoint::Hermit {
                addr: "127.0.0.1:9092".into()
            }
        );
        assert_eq!(
            Endpoint::parse("hermit://broker.local:9092").unwrap(),
            Endpoint::Hermit {
                addr: "broker.local:9092".into()
            }
        );
        assert_eq!(
            Endpoint::parse(
                "nats://a:4222,b:4223,nats://c:4224?replicas=3&partitions=4&auto_create=false"
            )
            .unwrap(),
            Endpoint::Nats {
                servers: vec![
                    "nats://a:4222".into(),
                    "nats://b:4223".into(),
                    "nats://c:4224".into()
                ],
                options: NatsOptions {
                    replicas: Some(3),
                    default_partitions: 4,
                    auto_create: false
                }
            }
        );
        assert_eq!(
            Endpoint::parse("NATS://a:4222").unwrap().kind(),
            TransportKind::Nats
        );
        assert_eq!(
            Endpoint::parse("nats://a:4222").unwrap(),
            Endpoint::Nats {
                servers: vec!["nats://a:4222".into()],
                options: NatsOptions::default()
            }
        );
    }

    #[test]
    fn bad_urls_are_refused_not_guessed() {
        for bad in [
            "",
            "kafka://a:9092",
            "hermit://a:9092/x",
            "nats://",
            "nats://a:4222,,b:4222",
            "nats://a:4222?replica=3",
            "nats://a:4222?replicas=0",
            "nats://a:4222?replicas=7",
            "nats://a:4222?partitions=0",
            "nats://a:4222?auto_create=maybe",
            "nats://a:4222?replicas",
        ] {
            let err = Endpoint::parse(bad).unwrap_err();
            assert!(
                matches!(err, ClientError::InvalidArgument(_)),
                "{bad}: {err}"
            );
        }
    }
}
