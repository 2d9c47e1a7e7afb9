//! TLS to a HermitMQ broker (`hermits://`): the rustls client configuration
//! and the handshake over an open TCP stream.
//!
//! The *ring* provider is named explicitly (not rustls' process-wide
//! default), so the configuration does not depend on which providers other
//! crates in the program happened to enable. Only TLS 1.3 is offered: an
//! `Authenticate` signs the connection's TLS 1.3 exporter value
//! ([`channel_binding`]), and a server must not be able to make the client
//! sign without one by answering with TLS 1.2.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use hermit_pem::PemError;
use hermit_protocol::auth::{TLS_EXPORTER_LABEL, TLS_EXPORTER_LEN};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use tokio::net::TcpStream;

pub use tokio_rustls::client::TlsStream;

/// The ALPN protocol name HermitMQ speaks over TLS (the broker offers only it).
pub use hermit_pem::ALPN;

/// Why a TLS client configuration could not be built. Each variant names the
/// file at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A PEM file could not be read, is not PEM, or lacks the certificate
    /// or key it must hold (the error names the file).
    #[error(transparent)]
    File(#[from] PemError),
    /// A certificate of the CA file is not a usable trust anchor.
    #[error("{} holds a certificate that is not a usable CA: {source}", path.display())]
    BadCa {
        /// The CA file.
        path: PathBuf,
        /// What rustls said.
        source: rustls::Error,
    },
    /// No CA file was given and the system trust store has no usable root.
    #[error(
        "no usable root certificate in the system trust store ({details}); give the broker's CA file"
    )]
    NoSystemRoots {
        /// What went wrong while loading the store, if anything.
        details: String,
    },
    /// rustls refused the client certificate chain and key.
    #[error("cannot use client certificate {} with key {}: {source}", cert.display(), key.display())]
    CertKey {
        /// The certificate chain file.
        cert: PathBuf,
        /// The private key file.
        key: PathBuf,
        /// What rustls said.
        source: rustls::Error,
    },
    /// The ring provider refused the default protocol versions (does not
    /// happen with the versions rustls ships; kept as an error, not a panic).
    #[error("TLS setup failed: {0}")]
    Setup(rustls::Error),
}

/// The client configuration for `hermits://`: trust only the CA certificates
/// in the PEM file `ca` (a development CA from `hermit tls self-signed`, a
/// company CA), or, without one, the system's trust store. No client
/// certificate. ALPN: [`ALPN`].
pub fn client_config(ca: Option<&Path>) -> Result<Arc<ClientConfig>, TlsError> {
    let config = builder(ca)?.with_no_client_auth();
    Ok(finish(config))
}

/// Like [`client_config`], and present the certificate chain in `cert` (PEM)
/// with its private key `key` (PEM PKCS#8, SEC1 or PKCS#1) for mutual TLS.
pub fn client_config_with_cert(
    ca: Option<&Path>,
    cert: &Path,
    key: &Path,
) -> Result<Arc<ClientConfig>, TlsError> {
    let chain = load_certs(cert)?;
    let private_key = load_key(key)?;
    let config = builder(ca)?
        .with_client_auth_cert(chain, private_key)
        .map_err(|source| TlsError::CertKey {
            cert: cert.to_owned(),
            key: key.to_owned(),
            source,
        })?;
    Ok(finish(config))
}

/// The TLS handshake over `tcp`, checking the broker's certificate against
/// `server_name` (a DNS name or an IP address literal, as in the URL).
///
/// Errors are `io::Error`s as the rest of a connection's are: an invalid
/// `server_name` is `InvalidInput`; a certificate that does not verify is
/// `InvalidData` with rustls' reason inside.
pub async fn connect(
    tcp: TcpStream,
    server_name: &str,
    config: Arc<ClientConfig>,
) -> io::Result<TlsStream<TcpStream>> {
    let name = ServerName::try_from(server_name.to_owned()).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{server_name:?} is not a valid TLS server name: {e}"),
        )
    })?;
    tokio_rustls::TlsConnector::from(config)
        .connect(name, tcp)
        .await
}

/// The RFC 9266 `tls-exporter` channel binding of a TLS 1.3 connection
/// (label `EXPORTER-Channel-Binding`, no context, 32 bytes), which an
/// `Authenticate` signs; `None` if the connection is not TLS 1.3.
pub fn channel_binding(stream: &TlsStream<TcpStream>) -> Option<[u8; TLS_EXPORTER_LEN]> {
    let conn = stream.get_ref().1;
    if conn.protocol_version() != Some(rustls::ProtocolVersion::TLSv1_3) {
        return None;
    }
    conn.export_keying_material([0u8; TLS_EXPORTER_LEN], TLS_EXPORTER_LABEL, None)
        .ok()
}

fn builder(
    ca: Option<&Path>,
) -> Result<rustls::ConfigBuilder<ClientConfig, rustls::client::WantsClientCert>, TlsError> {
    let roots = match ca {
        Some(path) => {
            let mut roots = RootCertStore::empty();
            for c in load_certs(path)? {
                roots.add(c).map_err(|source| TlsError::BadCa {
                    path: path.to_owned(),
                    source,
                })?;
            }
            roots
        }
        None => system_roots()?,
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(TlsError::Setup)?
        .with_root_certificates(roots))
}

fn finish(mut config: ClientConfig) -> Arc<ClientConfig> {
    config.alpn_protocols = vec![ALPN.to_vec()];
    Arc::new(config)
}

/// The system's trust store. A store that is partly unreadable still counts
/// as long as one root loads (distributions ship odd files next to the
/// bundle); an empty one is an error, since every handshake would fail.
fn system_roots() -> Result<RootCertStore, TlsError> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    let (added, ignored) = roots.add_parsable_certificates(found.certs);
    if ignored > 0 || !found.errors.is_empty() {
        tracing::debug!(
            added,
            ignored,
            errors = found.errors.len(),
            "system trust store partly unusable"
        );
    }
    if roots.is_empty() {
        let details = if found.errors.is_empty() {
            "no certificates found".to_owned()
        } else {
            found
                .errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        return Err(TlsError::NoSystemRoots { details });
    }
    Ok(roots)
}

// PEM files are read once, the same way, by the broker and the client
// (`hermit-pem`, rustls parsing); what is ours is which error names which file.

fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    Ok(hermit_pem::load_certs(path)?)
}

fn load_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    Ok(hermit_pem::load_key(path)?)
}
