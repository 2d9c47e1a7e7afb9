//! TLS for the broker's listeners: the rustls server configuration built from
//! PEM files, and the public key of a client that authenticated with a
//! certificate.
//!
//! Transport security only: this module never sees a record. It uses the
//! *ring* provider explicitly (not rustls' process-wide default), so the
//! configuration does not depend on which providers other crates in the
//! binary happened to enable.

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use hermit_pem::PemError;
use hermit_protocol::auth::{TLS_EXPORTER_LABEL, TLS_EXPORTER_LEN};
use rustls::RootCertStore;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;

pub use rustls::{ServerConfig, ServerConnection};
pub use tokio_rustls::TlsAcceptor;

/// The ALPN protocol name HermitMQ speaks over TLS.
pub use hermit_pem::ALPN;

/// Why a TLS configuration could not be built. Each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A PEM file could not be read, is not PEM, or lacks the certificate
    /// or key it must hold (the error names the file).
    #[error(transparent)]
    File(#[from] PemError),
    /// A certificate of the client CA file is not a usable trust anchor.
    #[error("{} holds a certificate that is not a usable CA: {source}", path.display())]
    BadCa {
        /// The client CA file.
        path: PathBuf,
        /// What rustls said.
        source: rustls::Error,
    },
    /// The client certificate verifier could not be built from the CA file.
    #[error("cannot verify client certificates against {}: {source}", path.display())]
    Verifier {
        /// The client CA file.
        path: PathBuf,
        /// What rustls said.
        source: rustls::server::VerifierBuilderError,
    },
    /// rustls refused the certificate chain and key (e.g. the key does not
    /// belong to the certificate, or its algorithm is unsupported).
    #[error("cannot use certificate {} with key {}: {source}", cert.display(), key.display())]
    CertKey {
        /// The certificate chain file.
        cert: PathBuf,
        /// The private key file.
        key: PathBuf,
        /// What rustls said.
        source: rustls::Error,
    },
}

/// The server configuration for a TLS listener.
///
/// `cert` is a PEM certificate chain (the broker's certificate first, then
/// any intermediates); `key` its PEM private key (PKCS#8, SEC1 or PKCS#1).
/// With `client_ca`, clients *may* present a certificate, which must then
/// chain to a certificate in that PEM file; a client without one still
/// connects (and may Authenticate with its key, `docs/PROTOCOL.md`), so
/// mutual TLS is a way to name a principal, not a gate. ALPN: [`ALPN`].
pub fn server_config(
    cert: &Path,
    key: &Path,
    client_ca: Option<&Path>,
) -> Result<Arc<ServerConfig>, TlsError> {
    let chain = load_certs(cert)?;
    let private_key = load_key(key)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|source| TlsError::CertKey {
            cert: cert.to_owned(),
            key: key.to_owned(),
            source,
        })?;
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            for c in load_certs(ca)? {
                roots.add(c).map_err(|source| TlsError::BadCa {
                    path: ca.to_owned(),
                    source,
                })?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .allow_unauthenticated()
                .build()
                .map_err(|source| TlsError::Verifier {
                    path: ca.to_owned(),
                    source,
                })?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(chain, private_key)
        .map_err(|source| TlsError::CertKey {
            cert: cert.to_owned(),
            key: key.to_owned(),
            source,
        })?;
    config.alpn_protocols = vec![ALPN.to_vec()];
    Ok(Arc::new(config))
}

/// The DER SubjectPublicKeyInfo of the client's certificate, once the
/// handshake is done.
///
/// `None` when the client presented none (or the listener has no
/// `client_ca`, so none was asked for). rustls only keeps a client
/// certificate that its verifier accepted — a certificate that does not
/// chain to the client CA fails the handshake — so a `Some` here is a key
/// the client proved it holds. For a P-256 identity the SPKI is the same
/// 91 bytes the Authenticate op carries, so the caller can turn it into the
/// same principal.
pub fn peer_spki(conn: &ServerConnection) -> Option<Vec<u8>> {
    let cert = conn.peer_certificates()?.first()?;
    // Already parsed once by the verifier, so this does not fail in
    // practice; `None` rather than a panic if it ever did.
    let parsed = webpki::EndEntityCert::try_from(cert).ok()?;
    Some(parsed.subject_public_key_info().as_ref().to_vec())
}

/// The RFC 9266 `tls-exporter` channel binding of a TLS 1.3 connection
/// (label `EXPORTER-Channel-Binding`, no context, 32 bytes); `None` for
/// TLS 1.2, whose exporter is not safe to bind to without the extended
/// master secret, and before the handshake is done.
pub fn channel_binding(conn: &ServerConnection) -> Option<[u8; TLS_EXPORTER_LEN]> {
    if conn.protocol_version() != Some(rustls::ProtocolVersion::TLSv1_3) {
        return None;
    }
    conn.export_keying_material([0u8; TLS_EXPORTER_LEN], TLS_EXPORTER_LABEL, None)
        .ok()
}

/// The broker's own certificate (the first of the chain in `path`), whose
/// names a client may dial (`BrokerNames`).
///
/// # Errors
/// [`TlsError::File`] when the file cannot be read or holds no certificate.
pub fn leaf_certificate(path: &Path) -> Result<CertificateDer<'static>, TlsError> {
    let mut chain = load_certs(path)?;
    Ok(chain.swap_remove(0))
}

// PEM files are read once, the same way, by the broker and the client
// (`hermit-pem`, rustls parsing); what is ours is which error names which file.

fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    Ok(hermit_pem::load_certs(path)?)
}

fn load_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    Ok(hermit_pem::load_key(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn errors_name_the_file_at_fault() {
        let dir = tempfile::tempdir().unwrap();
        let ck = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let cert = write(dir.path(), "c.pem", &ck.cert.pem());
        let key = write(dir.path(), "c.key", &ck.signing_key.serialize_pem());
        assert!(server_config(&cert, &key, None).is_ok());
        assert!(server_config(&cert, &key, Some(&cert)).is_ok());

        let missing = dir.path().join("missing.pem");
        let e = server_config(&missing, &key, None).unwrap_err();
        assert!(
            matches!(e, TlsError::File(PemError::Read { ref path, .. }) if path == &missing),
            "{e}"
        );
        assert!(e.to_string().contains("missing.pem"));

        // A key where the certificate should be, and the other way round.
        let e = server_config(&key, &key, None).unwrap_err();
        assert!(
            matches!(e, TlsError::File(PemError::NoCertificate { ref path }) if path == &key),
            "{e}"
        );
        let e = server_config(&cert, &cert, None).unwrap_err();
        assert!(
            matches!(e, TlsError::File(PemError::NoKey { ref path }) if path == &cert),
            "{e}"
        );

        // A key of another certificate.
        let other = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let other_key = write(dir.path(), "o.key", &other.signing_key.serialize_pem());
        let e = server_config(&cert, &other_key, None).unwrap_err();
        assert!(matches!(e, TlsError::CertKey { .. }), "{e}");
        assert!(e.to_string().contains("o.key"), "{e}");

        let e = server_config(&cert, &key, Some(&key)).unwrap_err();
        assert!(
            matches!(e, TlsError::File(PemError::NoCertificate { ref path }) if path == &key),
            "{e}"
        );
    }
}
