//! What every command that talks to a broker shares: the `--broker` flag,
//! the async runtime, and quiet logging to stderr.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use hermit_client::crypto::Identity;
use hermit_client::{Client, ClientCert, ClientOptions};

use crate::exit::client_error;

/// `--broker` and its TLS settings, shared by the client commands.
#[derive(Debug, Clone, clap::Args)]
pub struct BrokerAddr {
    /// Broker address: `host:port` or `hermit://host:port` (plain TCP),
    /// `hermits://host:port` (TLS), or a `nats://` URL for the NATS transport.
    #[arg(
        long,
        short = 'b',
        env = "HERMIT_BROKER",
        default_value = "127.0.0.1:9092",
        value_name = "ADDR"
    )]
    pub broker: String,
    /// For `hermits://`: PEM file of the CA that signed the broker's
    /// certificate (`ca.pem` from `hermit tls self-signed`) [default: the
    /// system's trust store].
    #[arg(long, env = "HERMIT_CA", value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// For `hermits://` with mutual TLS: the client certificate chain (PEM).
    #[arg(
        long,
        env = "HERMIT_TLS_CERT",
        value_name = "FILE",
        requires = "tls_key"
    )]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of `--tls-cert`.
    #[arg(
        long,
        env = "HERMIT_TLS_KEY",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,
}

impl BrokerAddr {
    /// Connect, authenticating with `identity` when the broker asks for it
    /// (exit 3 when the broker cannot be reached, 4 when authentication
    /// is required or refused).
    pub async fn connect(&self, identity: Option<&Identity>) -> anyhow::Result<Client> {
        let options = ClientOptions {
            identity: identity.cloned().map(Arc::new),
            tls_ca: self.ca.clone(),
            tls_client_cert: match (&self.tls_cert, &self.tls_key) {
                (Some(cert), Some(key)) => Some(ClientCert {
                    cert: cert.clone(),
                    key: key.clone(),
                }),
                _ => None,
            },
            ..ClientOptions::default()
        };
        Client::connect(self.broker.clone(), options)
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
