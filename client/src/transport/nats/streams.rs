//! Topics as streams: a partition's stream found, created on first use
//! (auto-create) or forgotten once deleted, with its configuration checked;
//! the offsets stream.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::ErrorCode;
use async_nats::jetstream::stream::{self, DiscardPolicy, RetentionPolicy, StorageType};
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::{Cleanup, Status};

use super::jetstream::{
    CLUSTER_REPLICAS, DEDUP_WINDOW, Empty, StreamList, check_stream, checked_stream_name, js_error,
};
use super::names::{
    OFFSETS_ROOT, OFFSETS_STREAM, PartInfo, compacted_filter, parse_stream_name, partition_subject,
    stream_name, topic_filter,
};
use super::transport::Nats;
use crate::error::ClientError;
// Nothing panics under these locks (map inserts and removes only).
use crate::lock::lock;
use crate::options::topic_name;

impl Nats {
    pub(super) fn forget_stream(&self, stream: &str) {
        lock(&self.parts).retain(|_, p| p.stream != stream);
    }

    /// Stream info, `None` if there is no such stream.
    pub(super) async fn stream_info(
        &self,
        stream: &str,
    ) -> Result<Option<stream::Info>, ClientError> {
        let subject = format!("STREAM.INFO.{stream}");
        match self.api_raw::<stream::Info>(&subject, &Empty {}).await? {
            Ok(i) => Ok(Some(i)),
            Err(e) if e.error_code() == ErrorCode::STREAM_NOT_FOUND => Ok(None),
            Err(e) => Err(js_error(&subject, &e)),
        }
    }

    /// Every stream this transport made whose subjects fall under `filter`.
    pub(super) async fn list_streams(
        &self,
        filter: &str,
    ) -> Result<Vec<stream::Info>, ClientError> {
        #[derive(serde::Serialize)]
        struct Req<'a> {
            offset: usize,
            subject: &'a str,
        }
        let mut out = Vec::new();
        loop {
            let page: StreamList = self
                .api(
                    "STREAM.LIST",
                    &Req {
                        offset: out.len(),
                        subject: filter,
                    },
                )
                .await?;
            let got = page.streams.unwrap_or_default();
            let n = got.len();
            out.extend(got);
            if n == 0 || out.len() >= page.total {
                break;
            }
        }
        Ok(out)
    }

    /// The streams of `topic`, by partition.
    pub(super) async fn topic_streams(
        &self,
        topic: &str,
    ) -> Result<BTreeMap<u32, stream::Info>, ClientError> {
        let mut by_partition = BTreeMap::new();
        for info in self.list_streams(&topic_filter(topic)).await? {
            if let Some((t, p)) = parse_stream_name(&info.config.name)
                && t == topic
            {
                by_partition.insert(p, info);
            }
        }
        Ok(by_partition)
    }

    /// The stream of a partition, creating the topic on first use when
    /// `auto_create` is on (as the broker does on produce, fetch and commit).
    pub(super) async fn partition(
        &self,
        topic: &Arc<str>,
        partition: u32,
    ) -> Result<Arc<PartInfo>, ClientError> {
        if let Some(p) = lock(&self.parts).get(&(topic.clone(), partition)) {
            return Ok(p.clone());
        }
        topic_name(topic)?;
        let stream = checked_stream_name(topic, partition)?;
        let info = match self.stream_info(&stream).await? {
            Some(info) => info,
            None => {
                let _creating = self.creating.lock().await;
                match self.stream_info(&stream).await? {
                    Some(info) => info,
                    None => {
                        let existing = self.topic_streams(topic).await?;
                        if !existing.is_empty() {
                            return Err(ClientError::Broker {
                                status: Status::UnknownPartition,
                                message: format!(
                                    "{topic} has {} partitions, not {partition}",
                                    existing.len()
                                ),
                            });
                        }
                        if !self.opts.auto_create {
                            return Err(ClientError::Broker {
                                status: Status::UnknownTopic,
                                message: format!("unknown topic {topic} (auto_create=false)"),
                            });
                        }
                        let settings = TopicSettings {
                            partitions: self.opts.default_partitions,
                            cleanup: Cleanup::Delete,
                            retention_ms: 0,
                            retention_bytes: 0,
                        };
                        self.create_streams(topic, &settings).await?;
                        self.stream_info(&stream)
                            .await?
                            .ok_or_else(|| ClientError::Broker {
                                status: Status::UnknownPartition,
                                message: format!(
                                    "{topic} was created with {} partitions, not {partition}",
                                    settings.partitions
                                ),
                            })?
                    }
                }
            }
        };
        let part = Arc::new(PartInfo {
            compacted: info.config.max_messages_per_subject == 1,
            subject: partition_subject(topic, partition),
            stream,
        });
        lock(&self.parts).insert((topic.clone(), partition), part.clone());
        Ok(part)
    }

    pub(super) fn stream_config(
        &self,
        topic: &str,
        partition: u32,
        settings: &TopicSettings,
        replicas: usize,
    ) -> stream::Config {
        let compacted = settings.cleanup == Cleanup::Compact;
        stream::Config {
            name: stream_name(topic, partition),
            description: Some(format!(
                "HermitMQ topic {topic}, partition {partition} of {} (sealed records)",
                settings.partitions
            )),
            subjects: vec![if compacted {
                compacted_filter(topic, partition)
            } else {
                partition_subject(topic, partition)
            }],
            retention: RetentionPolicy::Limits,
            discard: DiscardPolicy::Old,
            max_age: match settings.retention_ms {
                0 | u64::MAX => Duration::ZERO,
                ms => Duration::from_millis(ms),
            },
            max_bytes: match settings.retention_bytes {
                0 | u64::MAX => -1,
                b => i64::try_from(b).unwrap_or(i64::MAX),
            },
            max_messages: -1,
            max_messages_per_subject: if compacted { 1 } else { -1 },
            max_consumers: -1,
            max_message_size: -1,
            storage: StorageType::File,
            num_replicas: replicas,
            duplicate_window: DEDUP_WINDOW,
            ..stream::Config::default()
        }
    }

    /// Create a stream with `config` (its replicas decided here), and check
    /// that the server kept every setting.
    pub(super) async fn create_stream(
        &self,
        mut make: impl FnMut(usize) -> stream::Config,
    ) -> Result<stream::Info, ClientError> {
        let decided = *lock(&self.replicas);
        let replicas = decided.unwrap_or(CLUSTER_REPLICAS);
        let config = make(replicas);
        let subject = format!("STREAM.CREATE.{}", config.name);
        let info = match self.api_raw::<stream::Info>(&subject, &config).await? {
            Err(e)
                if decided.is_none()
                    && e.error_code() == ErrorCode::STREAM_REPLICAS_NOT_SUPPORTED =>
            {
                // Not clustered: one replica is all there can be.
                tracing::debug!("single NATS server: streams get 1 replica");
                *lock(&self.replicas) = Some(1);
                let config = make(1);
                let info = self.api::<stream::Info>(&subject, &config).await?;
                check_stream(&config, &info.config)?;
                return Ok(info);
            }
            other => other.map_err(|e| js_error(&subject, &e))?,
        };
        check_stream(&config, &info.config)?;
        if decided.is_none() {
            *lock(&self.replicas) = Some(replicas);
        }
        Ok(info)
    }

    pub(super) async fn create_streams(
        &self,
        topic: &str,
        settings: &TopicSettings,
    ) -> Result<(), ClientError> {
        checked_stream_name(topic, settings.partitions.saturating_sub(1))?;
        for p in 0..settings.partitions {
            self.create_stream(|r| self.stream_config(topic, p, settings, r))
                .await?;
        }
        Ok(())
    }

    /// The offsets stream, created if missing; its replicas.
    pub(super) async fn ensure_offsets_stream(&self) -> Result<usize, ClientError> {
        self.offsets_ready
            .get_or_try_init(|| async {
                if let Some(info) = self.stream_info(OFFSETS_STREAM).await? {
                    return Ok(info.config.num_replicas);
                }
                self.create_stream(|replicas| stream::Config {
                    name: OFFSETS_STREAM.to_owned(),
                    description: Some(
                        "HermitMQ committed offsets (the newest per group, topic and partition) \
                         and claim states (per topic and partition)"
                            .to_owned(),
                    ),
                    subjects: vec![format!("{OFFSETS_ROOT}.>")],
                    retention: RetentionPolicy::Limits,
                    discard: DiscardPolicy::Old,
                    max_messages: -1,
                    max_bytes: -1,
                    max_messages_per_subject: 1,
                    max_consumers: -1,
                    max_message_size: -1,
                    storage: StorageType::File,
                    num_replicas: replicas,
                    duplicate_window: DEDUP_WINDOW,
                    ..stream::Config::default()
                })
                .await
                .map(|info| info.config.num_replicas)
            })
            .await
            .copied()
    }

    pub(super) fn unknown_after_delete(&self, topic: &str) -> ClientError {
        self.forget_topic(topic);
        ClientError::Broker {
            status: Status::UnknownTopic,
            message: format!("{topic} was deleted"),
        }
    }

    pub(super) fn forget_topic(&self, topic: &str) {
        lock(&self.parts).retain(|(t, _), _| &**t != topic);
        self.pullers.forget_topic(topic);
    }
}
