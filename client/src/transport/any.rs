//! `AnyTransport`, `Link` and `PartitionHandle`: whichever transport a
//! client uses, behind the contract, by delegation — one `match` per call,
//! no boxed trait objects.

use std::sync::Arc;

use bytes::Bytes;
use hermit_protocol::{Ack, Request};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ClientError;
use crate::options::ClientOptions;
use crate::records::FetchResponse;
use crate::transport::contract::FetchParams;
use crate::transport::contract::{BatchId, BatchLimits, BatchLink, SubmitError, Transport};
use crate::transport::endpoint::{Endpoint, TransportKind};
use crate::transport::hermit;
use crate::transport::hermit::connection::Conn;
#[cfg(feature = "nats")]
use crate::transport::nats;
use crate::transport::reply::ReplyTo;

/// The transport behind a [`Client`](crate::Client), chosen by its URL.
#[derive(Clone)]
pub(crate) enum AnyTransport {
    Hermit(Arc<hermit::Hermit>),
    #[cfg(feature = "nats")]
    Nats(Arc<nats::Nats>),
}

/// A connection of whichever transport, for the producer's sender task.
#[derive(Clone)]
pub(crate) enum Link {
    Hermit(Arc<Conn>),
    #[cfg(feature = "nats")]
    Nats(nats::NatsLink),
}

/// A partition handle of whichever transport.
pub(crate) enum PartitionHandle {
    Hermit(hermit::HermitPartition),
    #[cfg(feature = "nats")]
    Nats(nats::NatsPartition),
}

impl AnyTransport {
    /// Connect to the endpoint `url` names and return once the first
    /// connection is open.
    pub(crate) async fn connect(
        url: &str,
        options: ClientOptions,
    ) -> Result<AnyTransport, ClientError> {
        Ok(match Endpoint::parse(url)? {
            Endpoint::Hermit { addr, tls } => {
                AnyTransport::Hermit(Arc::new(hermit::Hermit::connect(addr, tls, options).await?))
            }
            #[cfg(feature = "nats")]
            Endpoint::Nats {
                servers,
                options: nats,
            } => AnyTransport::Nats(Arc::new(
                nats::Nats::connect(url, servers, nats, options).await?,
            )),
            #[cfg(not(feature = "nats"))]
            Endpoint::Nats { .. } => {
                return Err(ClientError::InvalidArgument(format!(
                    "{url}: this build of hermit-client has no NATS transport (cargo feature `nats`)"
                )));
            }
        })
    }
}

/// Call a [`Transport`] method on whichever transport `$self` holds. The
/// call names the trait, so each variant must implement the contract.
macro_rules! delegate {
    ($self:ident, $t:ident => $call:expr) => {
        match $self {
            AnyTransport::Hermit($t) => $call,
            #[cfg(feature = "nats")]
            AnyTransport::Nats($t) => $call,
        }
    };
}

impl Transport for AnyTransport {
    type Partition = PartitionHandle;
    type Link = Link;

    fn kind(&self) -> TransportKind {
        delegate!(self, t => Transport::kind(t))
    }

    fn connections_opened(&self) -> u64 {
        delegate!(self, t => Transport::connections_opened(t))
    }

    fn permits(&self) -> &Arc<Semaphore> {
        delegate!(self, t => Transport::permits(t))
    }

    fn batch_limits(&self) -> BatchLimits {
        delegate!(self, t => Transport::batch_limits(t))
    }

    async fn produce(
        &self,
        topic: &str,
        partition: u32,
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        delegate!(self, t => Transport::produce(t, topic, partition, ack, batch).await)
    }

    async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        params: FetchParams,
    ) -> Result<FetchResponse, ClientError> {
        delegate!(self, t => Transport::fetch(t, topic, partition, offset, params).await)
    }

    async fn call(&self, request: &Request<'_>) -> Result<Bytes, ClientError> {
        delegate!(self, t => Transport::call(t, request).await)
    }

    fn partition_handle(
        &self,
        topic: &Arc<str>,
        partition: u32,
        ack: Ack,
    ) -> Result<PartitionHandle, ClientError> {
        Ok(match self {
            AnyTransport::Hermit(t) => {
                PartitionHandle::Hermit(Transport::partition_handle(t, topic, partition, ack)?)
            }
            #[cfg(feature = "nats")]
            AnyTransport::Nats(t) => {
                PartitionHandle::Nats(Transport::partition_handle(t, topic, partition, ack)?)
            }
        })
    }

    async fn link(&self) -> Result<Link, ClientError> {
        Ok(match self {
            AnyTransport::Hermit(t) => Link::Hermit(Transport::link(t).await?),
            #[cfg(feature = "nats")]
            AnyTransport::Nats(t) => Link::Nats(Transport::link(t).await?),
        })
    }
}

impl BatchLink for Link {
    type Partition = PartitionHandle;

    fn id(&self) -> u64 {
        match self {
            Link::Hermit(l) => BatchLink::id(l),
            #[cfg(feature = "nats")]
            Link::Nats(l) => BatchLink::id(l),
        }
    }

    fn is_usable(&self) -> bool {
        match self {
            Link::Hermit(l) => BatchLink::is_usable(l),
            #[cfg(feature = "nats")]
            Link::Nats(l) => BatchLink::is_usable(l),
        }
    }

    async fn submit(
        &self,
        partition: &PartitionHandle,
        batch: &Bytes,
        id: BatchId,
        reply: ReplyTo,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), SubmitError> {
        match (self, partition) {
            (Link::Hermit(l), PartitionHandle::Hermit(p)) => {
                BatchLink::submit(l, p, batch, id, reply, permit).await
            }
            #[cfg(feature = "nats")]
            (Link::Nats(l), PartitionHandle::Nats(p)) => {
                BatchLink::submit(l, p, batch, id, reply, permit).await
            }
            // One client has one transport, and the producer takes its
            // links and handles from that one; with a single transport
            // compiled in, this arm cannot be reached at all.
            #[allow(unreachable_patterns)]
            _ => Err(SubmitError::Refused(ClientError::InvalidArgument(
                "a partition handle of another transport".to_owned(),
            ))),
        }
    }
}
