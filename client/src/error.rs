//! [`ClientError`], the one error type of the connection, producer and consumer.

use std::sync::Arc;
use std::time::Duration;

use hermit_protocol::frame::ErrorBody;
use hermit_protocol::topic::NameError;
use hermit_protocol::{Status, WireError};

/// Why a request, a send or a fetch failed.
///
/// Cheap to clone (every record of a failed batch carries the same error), so
/// I/O causes are held in an [`Arc`]. [`ClientError::is_retriable`] says
/// whether trying the same thing again may succeed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// No connection could be opened (refused, unreachable, name not
    /// resolved, or no hello within the connect timeout).
    #[error("cannot connect to {addr}")]
    Connect {
        /// The address as given to [`crate::Client::connect`].
        addr: String,
        /// Why.
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The connection ended before the answer arrived. The request may or may
    /// not have been carried out by the broker.
    #[error("connection to {addr} lost: {reason}")]
    ConnectionLost {
        /// The broker's address.
        addr: String,
        /// What ended it: an I/O error, the broker closing, or the broker's
        /// connection-level notice (`ShuttingDown`, `Timeout`, `TooManyConnections`).
        reason: String,
    },
    /// No answer within the request timeout. The connection it was sent on is
    /// closed, since its state is unknown; the request may have been carried out.
    #[error("{what} timed out after {after:?}")]
    Timeout {
        /// What timed out.
        what: &'static str,
        /// The limit that passed.
        after: Duration,
    },
    /// The broker answered with bytes that do not follow the protocol, or a
    /// fetched batch failed its structure check. The connection is closed.
    #[error("protocol error: {0}")]
    Protocol(#[from] WireError),
    /// The broker speaks another protocol version.
    #[error("the broker speaks protocol version {broker}; this client speaks {client}")]
    UnsupportedVersion {
        /// Version announced by the broker.
        broker: u8,
        /// Version of this client.
        client: u8,
    },
    /// A fetch offset lies outside the partition's stored range.
    #[error("offset out of range: the partition holds {log_start}..{high_watermark} ({message})")]
    OffsetOutOfRange {
        /// First offset still stored.
        log_start: u64,
        /// Offset the next record will get.
        high_watermark: u64,
        /// The broker's message.
        message: String,
    },
    /// A conditional produce expected another log end; nothing was
    /// appended. [`Client::conditional_produce`](crate::Client::conditional_produce)
    /// answers it as [`Conditional::EndMoved`](crate::Conditional::EndMoved).
    #[error("the log ends at {end}, not where expected ({message})")]
    EndMoved {
        /// First offset still stored.
        log_start: u64,
        /// The log end: the offset the next record gets.
        end: u64,
        /// The broker's message.
        message: String,
    },
    /// The broker refused the request with `status` (never `Ok`, nor
    /// `OffsetOutOfRange` or `EndMoved`, which have their own variants). An `Unauthorized`
    /// refusal shows the broker's message verbatim ("not authorized to
    /// consume inbox.… as …"): it already names the action, the topic and
    /// the principal.
    #[error("{}", BrokerDisplay(*status, message))]
    Broker {
        /// The status code.
        status: Status,
        /// The broker's message.
        message: String,
    },
    /// The broker at a dialled name and port presented another broker id
    /// than the one pinned for it in the `known-brokers` file of the client
    /// state directory: a different broker (a new data directory, or a
    /// substitute under the same name). Refused before anything is signed
    /// or sent. Not retriable.
    #[error(
        "the broker at {addr} presented broker id {presented}, but {} pins {pinned} for it: \
         it is not the broker this client knew there. If that broker was replaced on purpose \
         (a new data directory), remove its line from that file; otherwise do not use it",
        file.display()
    )]
    BrokerChanged {
        /// The dialled address.
        addr: String,
        /// The pinned id, hex.
        pinned: String,
        /// The id the broker presented, hex.
        presented: String,
        /// The `known-brokers` file holding the pin.
        file: std::path::PathBuf,
    },
    /// The client state directory's `known-brokers` file cannot be read or
    /// written. Not retriable.
    #[error("cannot use the pins of known brokers: {0}")]
    KnownBrokers(#[source] Arc<crate::local::KnownBrokersError>),
    /// The broker requires authentication (protocol version 3) and the
    /// client has no identity ([`crate::ClientOptions::identity`]). Not retriable.
    #[error("the broker at {addr} requires authentication: give an identity (--identity)")]
    AuthRequired {
        /// The broker's address.
        addr: String,
    },
    /// The broker refused the client's `Authenticate` (bad signature,
    /// unsupported key, …), or answered it with another principal than the
    /// identity's fingerprint; over NATS, the server refused the NATS
    /// credentials ([`crate::ClientOptions::nats_credentials`]) or wanted
    /// some. Not retriable: the same key fails again.
    #[error("authentication to {addr} failed: {message}")]
    AuthFailed {
        /// The broker's address.
        addr: String,
        /// The broker's reason, or what the client found wrong.
        message: String,
    },
    /// The TLS configuration for `hermits://` could not be built (a CA or
    /// client certificate file missing or unusable). Not retriable.
    #[error("TLS setup failed: {0}")]
    Tls(Arc<crate::tls::TlsError>),
    /// A fetched record batch failed its CRC: the consumer stops at it rather
    /// than skip it.
    #[error("corrupt batch at {topic}/{partition} offset {base_offset}")]
    CorruptBatch {
        /// Topic.
        topic: String,
        /// Partition.
        partition: u32,
        /// The batch's base offset.
        base_offset: u64,
        /// The CRC or layout failure.
        #[source]
        source: WireError,
    },
    /// A topic or group name breaks the naming rules (checked before sending).
    #[error("invalid {what} name {name:?}")]
    InvalidName {
        /// `"topic"` or `"group"`.
        what: &'static str,
        /// The name given.
        name: String,
        /// The rule it breaks.
        #[source]
        source: NameError,
    },
    /// A request frame would exceed the largest frame the broker accepts
    /// (announced in its hello); nothing was sent.
    #[error("request of {len} bytes exceeds the broker's frame limit of {max} bytes")]
    RequestTooLarge {
        /// Frame length (after the length prefix).
        len: u64,
        /// The broker's limit.
        max: u64,
    },
    /// The record writer passed to [`crate::Producer::send_with`] failed; the
    /// record was not added.
    #[error("record writer failed: {0}")]
    Write(Arc<dyn std::error::Error + Send + Sync>),
    /// An argument or option is unusable (e.g. a commit without a group).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The producer or consumer was closed.
    #[error("closed")]
    Closed,
}

struct BrokerDisplay<'a>(Status, &'a str);

impl std::fmt::Display for BrokerDisplay<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Status::Unauthorized => f.write_str(self.1),
            status => write!(f, "broker refused: {status}: {}", self.1),
        }
    }
}

impl ClientError {
    /// Whether the same operation may succeed if tried again (on this or a
    /// new connection): connection failures, timeouts, and the broker statuses
    /// that [`Status::is_retriable`] marks (`StorageError`, `ShuttingDown`,
    /// `TooManyConnections`, `Timeout`).
    pub fn is_retriable(&self) -> bool {
        match self {
            ClientError::Connect { .. }
            | ClientError::ConnectionLost { .. }
            | ClientError::Timeout { .. } => true,
            ClientError::Broker { status, .. } => status.is_retriable(),
            _ => false,
        }
    }

    /// The broker's status code, when the broker refused the request.
    pub fn status(&self) -> Option<Status> {
        match self {
            ClientError::Broker { status, .. } => Some(*status),
            ClientError::OffsetOutOfRange { .. } => Some(Status::OffsetOutOfRange),
            ClientError::EndMoved { .. } => Some(Status::EndMoved),
            _ => None,
        }
    }

    /// Whether this is a failure of authentication or authorization: no
    /// identity where one is required, a refused `Authenticate`, or a
    /// request refused with `Unauthorized` (the CLI's exit code 4).
    pub fn is_auth(&self) -> bool {
        matches!(
            self,
            ClientError::AuthRequired { .. }
                | ClientError::AuthFailed { .. }
                | ClientError::BrokerChanged { .. }
                | ClientError::Broker {
                    status: Status::Unauthorized,
                    ..
                }
        )
    }

    /// The broker's refusal as a typed error: [`ClientError::OffsetOutOfRange`]
    /// or [`ClientError::EndMoved`] with the partition's bounds, or
    /// [`ClientError::Broker`].
    pub(crate) fn refused(e: &ErrorBody<'_>) -> Self {
        match (e.status, e.bounds) {
            (Status::OffsetOutOfRange, Some((log_start, high_watermark))) => {
                ClientError::OffsetOutOfRange {
                    log_start,
                    high_watermark,
                    message: e.message.to_owned(),
                }
            }
            (Status::EndMoved, Some((log_start, end))) => ClientError::EndMoved {
                log_start,
                end,
                message: e.message.to_owned(),
            },
            (status, _) => ClientError::Broker {
                status,
                message: e.message.to_owned(),
            },
        }
    }

    pub(crate) fn topic_name(name: &str, source: NameError) -> Self {
        ClientError::InvalidName {
            what: "topic",
            name: name.to_owned(),
            source,
        }
    }

    /// Opening the connection to `addr` failed with `source`.
    pub(crate) fn connect(addr: &str, source: std::io::Error) -> Self {
        ClientError::Connect {
            addr: addr.to_owned(),
            source: std::sync::Arc::new(source),
        }
    }

    pub(crate) fn lost(addr: &str, reason: impl Into<String>) -> Self {
        ClientError::ConnectionLost {
            addr: addr.to_owned(),
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retriable_follows_the_status_and_the_transport() {
        let io = Arc::new(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert!(
            ClientError::Connect {
                addr: "x".into(),
                source: io
            }
            .is_retriable()
        );
        assert!(ClientError::lost("x", "eof").is_retriable());
        for status in Status::ALL {
            let e = ClientError::Broker {
                status,
                message: String::new(),
            };
            assert_eq!(e.is_retriable(), status.is_retriable(), "{status}");
            assert_eq!(e.status(), Some(status));
        }
        assert!(!ClientError::Closed.is_retriable());
        let oor = ClientError::OffsetOutOfRange {
            log_start: 1,
            high_watermark: 2,
            message: String::new(),
        };
        assert!(!oor.is_retriable());
        assert_eq!(oor.status(), Some(Status::OffsetOutOfRange));
        for e in [
            ClientError::AuthRequired { addr: "x".into() },
            ClientError::AuthFailed {
                addr: "x".into(),
                message: "bad signature".into(),
            },
        ] {
            assert!(!e.is_retriable(), "{e}");
            assert!(e.is_auth(), "{e}");
        }
    }

    #[test]
    fn unauthorized_shows_the_brokers_message_verbatim() {
        let message = "not authorized to consume inbox.ab as cd";
        let e = ClientError::Broker {
            status: Status::Unauthorized,
            message: message.into(),
        };
        assert_eq!(e.to_string(), message);
        assert!(e.is_auth() && !e.is_retriable());
        let other = ClientError::Broker {
            status: Status::UnknownTopic,
            message: "no such topic".into(),
        };
        assert_eq!(
            other.to_string(),
            format!("broker refused: {}: no such topic", Status::UnknownTopic)
        );
        assert!(!other.is_auth());
    }
}
