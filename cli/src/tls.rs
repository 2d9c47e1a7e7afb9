//! `hermit tls self-signed`: a development CA and a broker certificate
//! signed by it, so a TLS listener can be tried without a real CA.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};

use crate::exit::{ExitClass, USAGE};
use crate::keys::write_file;

/// `hermit tls …`
#[derive(Debug, clap::Subcommand)]
pub enum TlsCommand {
    /// Write a development CA (ca.pem, ca.key) and a broker certificate
    /// signed by it (broker.pem, broker.key) into DIR.
    ///
    /// For trying TLS on a laptop or in tests, not for production: the CA
    /// key sits next to the certificates, unprotected (mode 0600).
    SelfSigned(SelfSignedArgs),
}

/// `hermit tls self-signed`
#[derive(Debug, clap::Args)]
pub struct SelfSignedArgs {
    /// The directory to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// A DNS name the broker certificate is valid for (repeatable)
    /// [default: localhost, unless --ip is given].
    #[arg(long = "name", value_name = "DNS")]
    names: Vec<String>,
    /// An IP address the broker certificate is valid for (repeatable)
    /// [default: 127.0.0.1, unless --name is given].
    #[arg(long = "ip", value_name = "IP")]
    ips: Vec<IpAddr>,
    /// Days the certificates stay valid.
    #[arg(long, value_name = "N", default_value_t = 365,
          value_parser = clap::value_parser!(u32).range(1..=36500))]
    days: u32,
    /// Overwrite existing files.
    #[arg(long)]
    force: bool,
}

/// The four files, as written.
#[derive(Debug)]
struct Written {
    ca_pem: PathBuf,
    ca_key: PathBuf,
    broker_pem: PathBuf,
    broker_key: PathBuf,
}

/// Run a `hermit tls` command.
pub fn run(cmd: TlsCommand) -> anyhow::Result<()> {
    match cmd {
        TlsCommand::SelfSigned(args) => {
            let w = self_signed(&args)?;
            let dir = args.out.display();
            eprintln!(
                "wrote {} and {} (development CA), {} and {} (broker certificate)",
                w.ca_pem.display(),
                w.ca_key.display(),
                w.broker_pem.display(),
                w.broker_key.display()
            );
            eprintln!("broker config (TOML):");
            eprintln!("  tls_listen = \"127.0.0.1:9093\"");
            eprintln!("  tls_cert = \"{}\"", w.broker_pem.display());
            eprintln!("  tls_key = \"{}\"", w.broker_key.display());
            eprintln!("clients: --ca {dir}/ca.pem (and a hermits:// broker URL)");
            Ok(())
        }
    }
}

fn self_signed(args: &SelfSignedArgs) -> anyhow::Result<Written> {
    let dir = &args.out;
    let w = Written {
        ca_pem: dir.join("ca.pem"),
        ca_key: dir.join("ca.key"),
        broker_pem: dir.join("broker.pem"),
        broker_key: dir.join("broker.key"),
    };
    if !args.force {
        for p in [&w.ca_pem, &w.ca_key, &w.broker_pem, &w.broker_key] {
            if p.exists() {
                return Err(anyhow::anyhow!(
                    "{} exists; use --force to overwrite it",
                    p.display()
                ))
                .class(USAGE);
            }
        }
    }
    let mut sans = Vec::new();
    for n in &args.names {
        let dns = Some(n)
            .filter(|n| is_dns_name(n))
            .and_then(|n| n.clone().try_into().ok())
            .with_context(|| format!("--name {n:?} is not a DNS name (for an address, use --ip)"))
            .class(USAGE)?;
        sans.push(SanType::DnsName(dns));
    }
    sans.extend(args.ips.iter().map(|ip| SanType::IpAddress(*ip)));
    if sans.is_empty() {
        sans.push(SanType::DnsName(
            "localhost".try_into().context("localhost is a DNS name")?,
        ));
        sans.push(SanType::IpAddress(IpAddr::from([127, 0, 0, 1])));
    }

    let now = time::OffsetDateTime::now_utc();
    // A day back: a client whose clock runs a little behind still accepts it.
    let not_before = now - time::Duration::days(1);
    let not_after = now + time::Duration::days(i64::from(args.days));

    let mut ca = CertificateParams::default();
    ca.distinguished_name = rcgen::DistinguishedName::new();
    ca.distinguished_name
        .push(DnType::CommonName, "HermitMQ development CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca.not_before = not_before;
    ca.not_after = not_after;
    let ca_key = KeyPair::generate().context("cannot generate the CA key")?;
    let ca_cert = ca
        .self_signed(&ca_key)
        .context("cannot make the CA certificate")?;

    let mut broker = CertificateParams::default();
    broker.distinguished_name = rcgen::DistinguishedName::new();
    broker
        .distinguished_name
        .push(DnType::CommonName, "HermitMQ broker");
    broker.subject_alt_names = sans;
    broker.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    broker.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    broker.not_before = not_before;
    broker.not_after = not_after;
    let broker_key = KeyPair::generate().context("cannot generate the broker key")?;
    let issuer = Issuer::new(ca, ca_key);
    let broker_cert = broker
        .signed_by(&broker_key, &issuer)
        .context("cannot sign the broker certificate")?;

    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // Keys first: a certificate without its key is no use, and the
    // certificates are what a later run's overwrite check sees.
    write_key(&w.ca_key, &issuer.key().serialize_pem())?;
    write_key(&w.broker_key, &broker_key.serialize_pem())?;
    write_file(&w.ca_pem, ca_cert.pem().as_bytes(), 0o644)?;
    write_file(&w.broker_pem, broker_cert.pem().as_bytes(), 0o644)?;
    Ok(w)
}

/// A host name as certificates carry it: dot-separated labels of letters,
/// digits and inner hyphens, 1–63 bytes each, at most 253 in all, not all
/// digits at the end (that would be an IP address); `*.` may lead. rcgen
/// would take any IA5 string, which no client then matches.
fn is_dns_name(name: &str) -> bool {
    let name = name.strip_prefix("*.").unwrap_or(name);
    let label_ok = |l: &str| {
        (1..=63).contains(&l.len())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    name.len() <= 253
        && name.split('.').all(label_ok)
        && name
            .rsplit('.')
            .next()
            .is_some_and(|tld| !tld.bytes().all(|b| b.is_ascii_digit()))
}

fn write_key(path: &Path, pem: &str) -> anyhow::Result<()> {
    let pem = zeroize::Zeroizing::new(pem.to_owned());
    write_file(path, pem.as_bytes(), 0o600)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(subcommand)]
        cmd: TlsCommand,
    }

    fn args(extra: &[&str]) -> SelfSignedArgs {
        let mut argv = vec!["t", "self-signed"];
        argv.extend(extra);
        match Cli::try_parse_from(argv).unwrap().cmd {
            TlsCommand::SelfSigned(a) => a,
        }
    }

    /// The files serve a real handshake: the broker side built by
    /// `hermit_broker::tls::server_config`, the client trusting only ca.pem.
    #[tokio::test]
    async fn the_files_serve_a_handshake_for_each_name() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("tls");
        let a = args(&[
            "--out",
            out.to_str().unwrap(),
            "--name",
            "broker.test",
            "--ip",
            "127.0.0.1",
        ]);
        let w = self_signed(&a).unwrap();
        let server = hermit_broker::tls::server_config(&w.broker_pem, &w.broker_key, None).unwrap();
        let client = hermit_client::tls::client_config(Some(&w.ca_pem)).unwrap();
        for (name, ok) in [
            ("broker.test", true),
            ("127.0.0.1", true),
            ("localhost", false),
        ] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let acceptor = hermit_broker::tls::TlsAcceptor::from(server.clone());
            let accept = tokio::spawn(async move {
                let (tcp, _) = listener.accept().await.unwrap();
                acceptor.accept(tcp).await.map(|_| ())
            });
            let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
            let r = hermit_client::tls::connect(tcp, name, client.clone()).await;
            assert_eq!(r.is_ok(), ok, "{name}: {:?}", r.err());
            assert_eq!(accept.await.unwrap().is_ok(), ok, "{name}");
        }
        // Without --force, nothing is overwritten.
        let before = std::fs::read(&w.ca_key).unwrap();
        let again = self_signed(&a).unwrap_err();
        assert!(format!("{again:#}").contains("--force"), "{again:#}");
        assert_eq!(std::fs::read(&w.ca_key).unwrap(), before);
        let mut forced = a;
        forced.force = true;
        self_signed(&forced).unwrap();
        assert_ne!(std::fs::read(&w.ca_key).unwrap(), before);
    }

    #[test]
    fn dns_names_are_checked() {
        for ok in ["localhost", "broker.example.com", "*.example.com", "a-b.c1"] {
            assert!(is_dns_name(ok), "{ok}");
        }
        for bad in ["", "not a name!", "-a.b", "a..b", "127.0.0.1", "a_b", "*"] {
            assert!(!is_dns_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_bad_name_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let a = args(&[
            "--out",
            dir.path().to_str().unwrap(),
            "--name",
            "not a name!",
        ]);
        let e = self_signed(&a).unwrap_err();
        assert_eq!(crate::exit::code_for(&e), USAGE, "{e:#}");
        assert!(!dir.path().join("ca.pem").exists());
    }
}
