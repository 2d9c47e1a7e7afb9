//! What every command that talks to a broker shares: the `--broker` flag,
//! the async runtime, and quiet logging to stderr.

use anyhow::Context;
use hermit_client::{Client, ClientOptions};

use crate::exit::client_error;

/// `--broker`, shared by the client commands.
#[derive(Debug, Clone, clap::Args)]
pub struct BrokerAddr {
    /// Broker address: `host:port`, or a `nats://` URL for the NATS transport.
    #[arg(
        long,
        short = 'b',
        env = "HERMIT_BROKER",
        default_value = "127.0.0.1:9092",
        value_name = "ADDR"
    )]
    pub broker: String,
}

impl BrokerAddr {
    /// Connect (exit 3 when the broker cannot be reached).
    pub async fn connect(&self) -> anyhow::Result<Client> {
        Client::connect(self.broker.clone(), ClientOptions::default())
            .await
            .map_err(client_error)
    }
}

/// A small runtime for one command: the client's connection tasks and the
/// producer's sender task need a few workers at most.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Warnings and errors from the SDK to stderr (`RUST_LOG` overrides).
pub fn init_client_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
