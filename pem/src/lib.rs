//! The TLS files HermitMQ reads — PEM certificate chains and private keys —
//! read one way by the broker (its listener's certificate, the client CA)
//! and by the client (a CA file, a client certificate). rustls'
//! `PemObject` does the parsing; this crate only decides which file is
//! read how, and which error names it.
//!
//! Transport security only: the broker links it beside rustls, never on
//! the record path.

use std::io;
use std::path::{Path, PathBuf};

use rustls::pki_types::pem::{self, PemObject as _};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The ALPN protocol name HermitMQ speaks over TLS. The broker offers only
/// this one: a client that asks for another (say `h2`) is refused in the
/// handshake rather than fed frames it cannot read.
pub const ALPN: &[u8] = b"hermitmq";

/// Why a PEM file could not be used. Each variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum PemError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: io::Error,
    },
    /// The file is not valid PEM.
    #[error("{} is not valid PEM: {source}", path.display())]
    Pem {
        /// The file.
        path: PathBuf,
        /// What the PEM parser said.
        source: pem::Error,
    },
    /// The file holds no `BEGIN CERTIFICATE` section.
    #[error("{} holds no certificate (PEM `-----BEGIN CERTIFICATE-----` expected)", path.display())]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// The file holds no private key section.
    #[error("{} holds no private key (PEM PKCS#8 `BEGIN PRIVATE KEY` or SEC1 `BEGIN EC PRIVATE KEY` expected)", path.display())]
    NoKey {
        /// The file.
        path: PathBuf,
    },
}

impl PemError {
    /// What rustls' PEM reader said about `path`: it could not read the
    /// file ([`PemError::Read`]), or the file is not PEM ([`PemError::Pem`]).
    fn from_pem(path: &Path, e: pem::Error) -> PemError {
        let path = path.to_owned();
        match e {
            pem::Error::Io(source) => PemError::Read { path, source },
            source => PemError::Pem { path, source },
        }
    }
}

/// Every certificate in a PEM file, in order; at least one.
///
/// # Errors
/// The file cannot be read, is not PEM, or holds no certificate.
pub fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, PemError> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| PemError::from_pem(path, e))?;
    if certs.is_empty() {
        return Err(PemError::NoCertificate {
            path: path.to_owned(),
        });
    }
    Ok(certs)
}

/// The first private key in a PEM file.
///
/// # Errors
/// The file cannot be read, is not PEM, or holds no private key.
pub fn load_key(path: &Path) -> Result<PrivateKeyDer<'static>, PemError> {
    // The file's bytes are the key: read here to be wiped once parsed
    // (rustls keeps its own copy), not through rustls' buffered reader.
    let bytes = std::fs::read(path)
        .map(zeroize::Zeroizing::new)
        .map_err(|e| PemError::from_pem(path, pem::Error::Io(e)))?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| match e {
        pem::Error::NoItemsFound => PemError::NoKey {
            path: path.to_owned(),
        },
        e => PemError::from_pem(path, e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let e = load_certs(&missing).unwrap_err();
        assert!(
            matches!(e, PemError::Read { ref path, .. } if path == &missing),
            "{e}"
        );
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no pem here\n").unwrap();
        assert!(
            matches!(load_certs(&empty), Err(PemError::NoCertificate { ref path }) if path == &empty)
        );
        assert!(matches!(load_key(&empty), Err(PemError::NoKey { ref path }) if path == &empty));
        let bad = dir.path().join("bad.pem");
        std::fs::write(
            &bad,
            "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        let e = load_certs(&bad).unwrap_err();
        assert!(matches!(e, PemError::Pem { .. }), "{e}");
        assert!(e.to_string().contains("bad.pem"), "{e}");
    }
}
