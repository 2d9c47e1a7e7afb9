//! JetStream API requests of the NATS transport, and what their failures
//! mean to a client.

use async_nats::HeaderMap;
use async_nats::jetstream;
use async_nats::jetstream::context::{
    PublishError, PublishErrorKind, RequestError, RequestErrorKind,
};
use async_nats::jetstream::response::Response;

use super::jetstream::js_error;
use super::transport::Nats;
use crate::error::ClientError;

impl Nats {
    /// The largest message the server accepts.
    pub(super) fn max_payload(&self) -> usize {
        self.client.server_info().max_payload
    }

    pub(super) fn lost(&self, why: impl std::fmt::Display) -> ClientError {
        ClientError::lost(&self.url, why.to_string())
    }

    pub(super) fn request_error(&self, what: &str, e: &RequestError) -> ClientError {
        match e.kind() {
            RequestErrorKind::TimedOut => ClientError::Timeout {
                what: "NATS request",
                after: self.request_timeout,
            },
            RequestErrorKind::NoResponders => self.lost(format!(
                "{what}: no JetStream server answered (JetStream off, or no leader yet)"
            )),
            RequestErrorKind::Other => self.lost(format!("{what}: {e}")),
        }
    }

    /// A JetStream API request (`$JS.API.<subject>`): the outer error is
    /// the transport's, the inner one JetStream's refusal.
    pub(super) async fn api_raw<T: serde::de::DeserializeOwned>(
        &self,
        subject: &str,
        body: &(impl serde::Serialize + ?Sized),
    ) -> Result<Result<T, jetstream::Error>, ClientError> {
        match self
            .js
            .request::<_, _, Response<T>>(subject.to_owned(), body)
            .await
        {
            Ok(Response::Ok(v)) => Ok(Ok(v)),
            Ok(Response::Err { error }) => Ok(Err(error)),
            Err(e) => Err(self.request_error(subject, &e)),
        }
    }

    /// A JetStream API request, refusals mapped to typed errors.
    pub(super) async fn api<T: serde::de::DeserializeOwned>(
        &self,
        subject: &str,
        body: &(impl serde::Serialize + ?Sized),
    ) -> Result<T, ClientError> {
        self.api_raw(subject, body)
            .await?
            .map_err(|e| js_error(subject, &e))
    }

    /// Refuse a message the server would refuse (it closes the connection
    /// over a message above its `max_payload`).
    pub(super) fn check_size(
        &self,
        subject: &str,
        headers: &HeaderMap,
        payload: usize,
    ) -> Result<(), ClientError> {
        let header_bytes: usize = headers
            .iter()
            .map(|(k, vs)| {
                let k: &str = k.as_ref();
                vs.iter()
                    .map(|v| k.len() + v.as_str().len() + 4)
                    .sum::<usize>()
            })
            .sum::<usize>()
            + 12;
        let len = (subject.len() + header_bytes + payload) as u64;
        let max = self.max_payload() as u64;
        if header_bytes as u64 + payload as u64 > max {
            return Err(ClientError::RequestTooLarge { len, max });
        }
        Ok(())
    }

    pub(super) fn publish_error(&self, e: &PublishError) -> ClientError {
        match e.kind() {
            PublishErrorKind::TimedOut => ClientError::Timeout {
                what: "NATS publish ack",
                after: self.request_timeout,
            },
            PublishErrorKind::StreamNotFound => {
                self.lost("no JetStream stream answered the publish (no leader, or deleted)")
            }
            PublishErrorKind::BrokenPipe => self.lost("connection closed before the ack"),
            _ => {
                let source =
                    std::error::Error::source(e).and_then(|s| s.downcast_ref::<jetstream::Error>());
                match source {
                    Some(js) => js_error("publish", js),
                    None => self.lost(format!("publish failed: {e}")),
                }
            }
        }
    }
}
