//! The names this broker answers to, which a mechanism-2 `Authenticate`
//! must name (docs/PROTOCOL.md §1): what stops a server the client dialled
//! under another name from relaying the client's proof to this broker.
//!
//! A name is served when it is one of `public_names`, when the broker's TLS
//! certificate is valid for it (DNS names with wildcards and IP addresses,
//! as a TLS client checks them), or — for a connection that arrived at a
//! loopback address — `localhost`, or that very address (a client that
//! dialled 127.0.0.2 reached a server at 127.0.0.2, not this broker at
//! 127.0.0.1).

use std::net::IpAddr;

use hermit_protocol::auth::{DialledName, NameError};
use rustls::pki_types::{CertificateDer, ServerName};

/// The names a broker serves: `public_names`, its certificate's names, and
/// loopback names to loopback peers.
#[derive(Debug, Clone, Default)]
pub struct BrokerNames {
    listed: Vec<DialledName>,
    certificate: Option<CertificateDer<'static>>,
}

/// A `public_names` entry that is not a host name or address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("public_names entry {entry:?} is not a host name or IP address: {source}")]
pub struct PublicNameError {
    /// The entry as written.
    pub entry: String,
    /// What is wrong with it.
    #[source]
    pub source: NameError,
}

impl BrokerNames {
    /// The names of `public_names` (each normalized as a client normalizes
    /// what it dialled) and of the broker's TLS `certificate`, if any.
    ///
    /// # Errors
    /// [`PublicNameError`] for an entry that is no host name or address.
    pub fn new(
        public_names: &[String],
        certificate: Option<CertificateDer<'static>>,
    ) -> Result<BrokerNames, PublicNameError> {
        let listed = public_names
            .iter()
            .map(|entry| {
                DialledName::parse(entry).map_err(|source| PublicNameError {
                    entry: entry.clone(),
                    source,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(BrokerNames {
            listed,
            certificate,
        })
    }

    /// Whether a client that dialled `name` reached this broker, on a
    /// connection that arrived at the broker's address `arrived_at`.
    pub fn serves(&self, name: &DialledName, arrived_at: Option<IpAddr>) -> bool {
        self.listed.contains(name) || self.certificate_names(name) || loopback(name, arrived_at)
    }

    /// Whether the broker has names other than loopback ones.
    pub fn has_public_names(&self) -> bool {
        !self.listed.is_empty() || self.certificate.is_some()
    }

    fn certificate_names(&self, name: &DialledName) -> bool {
        let Some(der) = &self.certificate else {
            return false;
        };
        let Ok(cert) = webpki::EndEntityCert::try_from(der) else {
            return false;
        };
        let server_name = match name {
            DialledName::Ip(ip) => ServerName::IpAddress((*ip).into()),
            DialledName::Dns(dns) => match ServerName::try_from(dns.as_str()) {
                Ok(n) => n,
                Err(_) => return false,
            },
        };
        cert.verify_is_valid_for_subject_name(&server_name).is_ok()
    }
}

/// Whether `name` is a loopback name for a connection that arrived at
/// `arrived_at`: `localhost` (or `*.localhost`) on any loopback address, a
/// loopback address only as itself.
fn loopback(name: &DialledName, arrived_at: Option<IpAddr>) -> bool {
    let Some(at) = arrived_at.map(|a| a.to_canonical()) else {
        return false;
    };
    if !at.is_loopback() {
        return false;
    }
    match name {
        DialledName::Ip(ip) => ip.to_canonical() == at,
        DialledName::Dns(_) => name.is_loopback(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> DialledName {
        DialledName::parse(s).unwrap()
    }

    fn cert_for(names: &[&str]) -> CertificateDer<'static> {
        let ck = rcgen::generate_simple_self_signed(
            names.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>(),
        )
        .unwrap();
        ck.cert.der().clone()
    }

    #[test]
    fn public_names_certificate_names_and_loopback_on_loopback() {
        let names = BrokerNames::new(
            &["Broker.Example.COM.".into(), "[2001:db8::7]".into()],
            Some(cert_for(&["*.hermit.test", "tls.example", "192.0.2.9"])),
        )
        .unwrap();
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        let (public, lo1, lo6) = (ip("192.0.2.1"), ip("127.0.0.1"), ip("::1"));
        for served in [
            "broker.example.com",
            "2001:db8:0:0::7",
            "a.hermit.test",
            "tls.example",
            "192.0.2.9",
        ] {
            assert!(names.serves(&name(served), public), "{served}");
        }
        for not in [
            "relay.example",
            "example.com",
            "hermit.test",
            "a.b.hermit.test",
            "192.0.2.10",
        ] {
            for at in [public, lo1, lo6, None] {
                assert!(!names.serves(&name(not), at), "{not}");
            }
        }
        // Loopback names on loopback only; a loopback address only as itself.
        assert!(names.serves(&name("localhost"), lo1));
        assert!(names.serves(&name("localhost"), lo6));
        assert!(names.serves(&name("127.0.0.1"), lo1));
        assert!(names.serves(&name("127.0.0.1"), ip("::ffff:127.0.0.1")));
        assert!(names.serves(&name("::1"), lo6));
        assert!(
            !names.serves(&name("127.0.0.2"), lo1),
            "another loopback address is another server"
        );
        assert!(!names.serves(&name("::1"), lo1));
        for lo in ["localhost", "127.0.0.1"] {
            assert!(!names.serves(&name(lo), public), "{lo}");
            assert!(!names.serves(&name(lo), None), "{lo}");
        }
        assert!(names.has_public_names());
        assert!(!BrokerNames::default().has_public_names());
    }

    #[test]
    fn a_bad_public_name_is_named() {
        let e = BrokerNames::new(&["bad name".into()], None).unwrap_err();
        assert_eq!(e.entry, "bad name");
        assert!(e.to_string().contains("\"bad name\""), "{e}");
    }
}
