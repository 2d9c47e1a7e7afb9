//! Helpers shared by the `sealed_*` tests: a broker in a temp dir, parties
//! with a sealed producer, consumers, and raw produces for records the SDK
//! would never write.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use hermit_broker::embedded::EmbeddedBroker;
use hermit_client::crypto::{Identity, PublicKey};
use hermit_client::{
    Ack, Client, ClientOptions, ConsumerOptions, OpenedRecord, Producer, ProducerOptions, Received,
    SealedConsumer, SealedConsumerOptions, SealedProducer, SealedProducerOptions,
    SealedRecordError, StartFrom,
};
use hermit_protocol::BatchBuilder;

/// A broker over a fresh temp dir, and a client of it.
pub struct Env {
    pub dir: tempfile::TempDir,
    pub broker: EmbeddedBroker,
    pub client: Client,
    pub producer: Producer,
}

impl Env {
    pub async fn start() -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut config = EmbeddedBroker::test_config();
        // Some tests change segment files in place: partitions in
        // directories, not slots.
        config.partition_slots = false;
        let broker = EmbeddedBroker::start(dir.path(), config)
            .await
            .expect("broker starts");
        let client = Client::connect(broker.addr().to_string(), ClientOptions::default())
            .await
            .expect("client connects");
        let producer = Producer::new(&client, ProducerOptions::default());
        Env {
            dir,
            broker,
            client,
            producer,
        }
    }

    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    /// The first segment file of `topic`'s `partition`.
    pub fn segment(&self, topic: &str, partition: u32) -> PathBuf {
        hermit_broker::log::check::find_partition_dir(self.dir.path(), topic, partition)
            .expect("read the catalog")
            .expect("the topic exists")
            .join(format!("{:020}.log", 0))
    }

    /// A party: an identity and a sealed producer on the shared producer.
    pub fn party(&self) -> Party {
        self.party_with(SealedProducerOptions::default())
    }

    pub fn party_with(&self, options: SealedProducerOptions) -> Party {
        let id = Identity::generate().expect("os rng");
        let sp = SealedProducer::new(&self.producer, id.clone(), options).expect("sealer");
        Party { id, sp }
    }

    /// A consumer reading `topic` from the start, without a group.
    pub async fn reader(&self, who: &Party, trusted: &[&Party], topic: &str) -> SealedConsumer {
        self.reader_with(who, trusted, topic, from_start()).await
    }

    pub async fn reader_with(
        &self,
        who: &Party,
        trusted: &[&Party],
        topic: &str,
        options: impl Into<SealedConsumerOptions>,
    ) -> SealedConsumer {
        SealedConsumer::new(
            &self.client,
            who.id.clone(),
            trusted.iter().map(|p| p.public()).collect(),
            topic,
            options,
        )
        .await
        .expect("sealed consumer starts")
    }

    /// One batch holding `value` (exactly these bytes) on `partition`; its offset.
    pub async fn produce_raw(&self, topic: &str, partition: u32, key: &[u8], value: &[u8]) -> u64 {
        let mut b = BatchBuilder::new(key);
        b.push(value);
        let batch = b.finish(0).expect("batch");
        self.client
            .produce(topic, partition, Ack::Durable, Bytes::from(batch))
            .await
            .expect("raw produce")
    }
}

pub struct Party {
    pub id: Identity,
    pub sp: SealedProducer,
}

impl Party {
    pub fn public(&self) -> PublicKey {
        self.id.public_key().clone()
    }

    /// Seal `text` to `to` alone (DIRECT) on `topic` and wait until stored.
    pub async fn send_to(&self, topic: &str, text: &[u8], to: &Party) -> hermit_client::Delivered {
        self.sp
            .send(topic, None, text, &[to.public()])
            .await
            .expect("queued")
            .await
            .expect("delivered")
    }
}

pub fn from_start() -> ConsumerOptions {
    ConsumerOptions {
        start: StartFrom::Earliest,
        max_wait: Duration::from_millis(100),
        ..ConsumerOptions::default()
    }
}

/// The next item, within 20 s.
pub async fn next(c: &mut SealedConsumer) -> Received {
    tokio::time::timeout(Duration::from_secs(20), c.next())
        .await
        .expect("a record within 20 s")
        .expect("no transport error")
}

pub async fn opened(c: &mut SealedConsumer) -> OpenedRecord {
    match next(c).await {
        Ok(r) => r,
        Err(e) => panic!("expected an opened record, got {e:#}"),
    }
}

pub async fn failed(c: &mut SealedConsumer) -> SealedRecordError {
    match next(c).await {
        Ok(r) => panic!("expected a failure, got {r:?}"),
        Err(e) => e,
    }
}

/// Nothing arrives within `wait` (the call is cut short; the periodic commit
/// runs meanwhile).
pub async fn quiet(c: &mut SealedConsumer, wait: Duration) {
    if let Ok(r) = tokio::time::timeout(wait, c.next()).await {
        panic!("expected nothing, got {r:?}");
    }
}
