//! [`ClientOptions`]: how a [`Client`](crate::Client) connects, whichever
//! transport it uses; and the checks of topic and group names every
//! transport runs before anything is sent.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hermit_protocol::topic::{TopicName, validate_group};

use crate::crypto::Identity;
use crate::error::ClientError;
use crate::local::StateDir;
use crate::transport::endpoint::NatsCredentials;

/// Connection settings. Each field's doc ends with its default.
///
/// Over NATS (`nats://…`, see `docs/SCALE-OUT.md`): `connect_timeout` bounds
/// the first connection and the wait for JetStream to answer,
/// `request_timeout` every JetStream request and publish ack, `max_in_flight`
/// the produces and batches in flight, the backoffs the NATS client's
/// reconnects; `max_response_bytes` does not apply (the server's
/// `max_payload` does). Transport settings of NATS (replicas, partitions of
/// auto-created topics, auto-create) are options of the URL:
/// [`NatsOptions`](crate::NatsOptions).
///
/// `Debug` shows the identity's fingerprint only, never its key.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientOptions {
    /// Limit on opening a connection (TCP connect plus the hello). Default 5 s.
    pub connect_timeout: Duration,
    /// Limit on waiting for any answer (a fetch gets its `max_wait` on top).
    /// When it passes, the request fails with [`ClientError::Timeout`] and
    /// the connection is closed, failing the rest of its requests with
    /// [`ClientError::ConnectionLost`] (retriable). Default 30 s.
    pub request_timeout: Duration,
    /// Most requests in flight on the connection; further requests wait for
    /// a permit. Keep it at or below the broker's `max_in_flight` (1024), or the
    /// broker stops reading and requests queue in the socket. Default 512.
    pub max_in_flight: usize,
    /// First wait before reconnecting after a failed connect; doubles on each
    /// failure up to `reconnect_backoff_max`. Default 50 ms.
    pub reconnect_backoff: Duration,
    /// Longest wait between reconnect attempts. Default 2 s.
    pub reconnect_backoff_max: Duration,
    /// Largest response frame accepted (a fetch returns at least one whole
    /// batch even above its `max_bytes`). Default 128 MiB.
    pub max_response_bytes: u32,
    /// The key this client authenticates with (protocol version 3): when a
    /// broker offers or requires authentication, every connection signs its
    /// hello's nonce with it before any request is sent, and every request
    /// on it runs as the principal `fp(SPKI)` — the same fingerprint the
    /// identity's sealed records are addressed with. Without one the client
    /// stays anonymous, and a broker that requires authentication is refused
    /// with [`ClientError::AuthRequired`]. Not used over NATS. Default `None`.
    pub identity: Option<Arc<Identity>>,
    /// For `hermits://`: the PEM file of the CA certificates that may sign
    /// the broker's certificate (a development CA from `hermit tls
    /// self-signed`, a company CA). `None` trusts the system's roots.
    /// Default `None`.
    pub tls_ca: Option<PathBuf>,
    /// For `hermits://` with mutual TLS: the client certificate chain and
    /// its private key (PEM files), presented when the broker asks. Default
    /// `None`.
    pub tls_client_cert: Option<ClientCert>,
    /// For `nats://`: how to authenticate to the NATS server (user and
    /// password, token, nkey seed or `.creds` file). `None` connects
    /// without credentials, which a server with an `authorization` block
    /// refuses with [`ClientError::AuthFailed`]. Not used over HermitMQ
    /// (its principals are [`ClientOptions::identity`] keys). Default `None`.
    pub nats_credentials: Option<NatsCredentials>,
    /// The client state directory of the identity ([`StateDir`]): with one,
    /// every HermitMQ connection checks the broker id against the pin kept
    /// for the dialled name and port in its `known-brokers` file, refuses
    /// a changed one with [`ClientError::BrokerChanged`]
    /// before signing anything, and pins the id on first contact; and the
    /// sealed consumers and producers of this client anchor the generation
    /// of every sealed state they save in its `state-anchors` file and
    /// refuse an older state (or commit) from the broker
    /// ([`SealedError::StateRolledBack`](crate::SealedError::StateRolledBack),
    /// docs/ENVELOPE.md §13). Without one, nothing is pinned or anchored.
    /// Default `None`.
    pub state_dir: Option<Arc<StateDir>>,
}

/// A client certificate for mutual TLS: two PEM files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCert {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// Its private key (PKCS#8, SEC1 or PKCS#1), read when connecting.
    pub key: PathBuf,
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("max_in_flight", &self.max_in_flight)
            .field("reconnect_backoff", &self.reconnect_backoff)
            .field("reconnect_backoff_max", &self.reconnect_backoff_max)
            .field("max_response_bytes", &self.max_response_bytes)
            // The fingerprint names the principal; the key stays out of logs.
            .field(
                "identity",
                &self.identity.as_ref().map(|i| i.fingerprint().to_hex()),
            )
            .field("tls_ca", &self.tls_ca)
            .field("tls_client_cert", &self.tls_client_cert)
            // Its own Debug shows the kind and the user, never the secret.
            .field("nats_credentials", &self.nats_credentials)
            .field("state_dir", &self.state_dir.as_ref().map(|d| d.path()))
            .finish()
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_in_flight: 512,
            reconnect_backoff: Duration::from_millis(50),
            reconnect_backoff_max: Duration::from_secs(2),
            max_response_bytes: 128 << 20,
            identity: None,
            tls_ca: None,
            tls_client_cert: None,
            nats_credentials: None,
            state_dir: None,
        }
    }
}

pub(crate) fn topic_name(topic: &str) -> Result<TopicName<&str>, ClientError> {
    TopicName::new(topic).map_err(|e| ClientError::topic_name(topic, e))
}

pub(crate) fn group_name(group: &str) -> Result<&str, ClientError> {
    validate_group(group).map_err(|source| ClientError::InvalidName {
        what: "group",
        name: group.to_owned(),
        source,
    })?;
    Ok(group)
}
