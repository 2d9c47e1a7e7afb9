//! The `Host` names the admin listener answers to (`admin_hosts`).
//!
//! A web page can make the visitor's browser send requests to a name the
//! page's own site controls and then re-point that name at `127.0.0.1`
//! (DNS rebinding): the browser then treats the admin listener as the
//! page's own origin and lets the page read `/metrics`, token-free on
//! loopback. Such a request carries the page's name in `Host`, never one
//! of ours, so answering only the names the listener is known by stops it.
//!
//! An IP address in `Host` cannot be rebound: a page can only read what its
//! own origin serves, and an origin named by an address is that address.
//! So besides the configured names, every loopback address and the address
//! the connection arrived on are accepted.

use std::net::IpAddr;

/// An invalid `admin_hosts` entry: its index and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`admin_hosts[{index}]`: {message}")]
pub struct HostsError {
    /// The entry's index in `admin_hosts`.
    pub index: usize,
    /// What is wrong with it.
    pub message: String,
}

/// The `Host` names an admin listener accepts, compiled from `admin_hosts`.
#[derive(Debug, Clone, Default)]
pub struct AdminHosts {
    /// Lowercase names without a trailing dot.
    names: Vec<String>,
    /// IP addresses listed (canonical: IPv4-mapped IPv6 as IPv4).
    addresses: Vec<IpAddr>,
    /// `"*"` was listed: any `Host`.
    any: bool,
}

impl AdminHosts {
    /// Compile `admin_hosts`: host names (`metrics.example.com`), IP
    /// addresses (`10.0.0.5`, `[fd00::5]` or `fd00::5`), or `"*"` for any
    /// `Host`. Without a port: any port is accepted. `localhost`, loopback
    /// addresses and the address a connection arrived on are accepted
    /// whatever the list holds.
    ///
    /// # Errors
    /// The first entry that is none of these.
    pub fn new(entries: &[String]) -> Result<AdminHosts, HostsError> {
        let mut hosts = AdminHosts::default();
        for (index, entry) in entries.iter().enumerate() {
            let err = |message: String| HostsError { index, message };
            if entry == "*" {
                hosts.any = true;
                continue;
            }
            let bare = entry
                .strip_prefix('[')
                .and_then(|e| e.strip_suffix(']'))
                .unwrap_or(entry);
            if let Ok(ip) = bare.parse::<IpAddr>() {
                hosts.addresses.push(ip.to_canonical());
                continue;
            }
            let name = normalize(entry);
            let valid = !name.is_empty()
                && name.len() <= 253
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
            if !valid {
                return Err(err(format!(
                    "{entry:?} is not a host name or an IP address (no scheme, port or \
                     path: any port is accepted), nor \"*\""
                )));
            }
            hosts.names.push(name);
        }
        Ok(hosts)
    }

    /// Whether `"*"` was listed: any `Host` is accepted.
    pub fn any(&self) -> bool {
        self.any
    }

    /// Whether a request whose `Host` header is `host` may be answered on a
    /// connection that arrived at address `local` (`None` if unknown).
    pub fn accepts(&self, host: &str, local: Option<IpAddr>) -> bool {
        if self.any {
            return true;
        }
        let Some(name) = host_name(host) else {
            return false;
        };
        let bare = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(&name);
        if name.starts_with('[') || bare.parse::<std::net::Ipv4Addr>().is_ok() {
            let Ok(ip) = bare.parse::<IpAddr>() else {
                return false;
            };
            let ip = ip.to_canonical();
            return ip.is_loopback()
                || local.is_some_and(|l| l.to_canonical() == ip)
                || self.addresses.contains(&ip);
        }
        name == "localhost" || self.names.contains(&name)
    }
}

/// The host of a `Host` header value (`name[:port]`, `[v6][:port]`),
/// lowercase and without a trailing dot; `None` when it is not one.
fn host_name(value: &str) -> Option<String> {
    let value = value.trim();
    let (host, port) = if value.starts_with('[') {
        value.split_at(value.find(']')? + 1)
    } else {
        value.split_at(value.find(':').unwrap_or(value.len()))
    };
    if !port.is_empty() {
        let digits = port.strip_prefix(':')?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
    }
    let host = normalize(host);
    (!host.is_empty()).then_some(host)
}

fn normalize(name: &str) -> String {
    name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(entries: &[&str]) -> AdminHosts {
        let entries: Vec<String> = entries.iter().map(|e| (*e).to_owned()).collect();
        AdminHosts::new(&entries).expect("valid entries")
    }

    #[test]
    fn loopback_names_and_the_local_address_by_default() {
        let h = hosts(&[]);
        let local: Option<IpAddr> = Some("10.0.0.5".parse().unwrap());
        for ok in [
            "localhost",
            "localhost:9644",
            "LocalHost.",
            "127.0.0.1",
            "127.0.0.1:1",
            "127.9.8.7:9644",
            "[::1]",
            "[::1]:9644",
            "[::ffff:127.0.0.1]:9644",
            "10.0.0.5:9644",
            "[::ffff:10.0.0.5]",
        ] {
            assert!(h.accepts(ok, local), "{ok}");
        }
        for bad in [
            "",
            "evil.example",
            "evil.example:9644",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "10.0.0.6:9644",
            "::1",
            "[::1",
            "localhost:",
            "localhost:96x4",
            "localhost, evil.example",
            "user@localhost",
        ] {
            assert!(!h.accepts(bad, local), "{bad}");
        }
        assert!(!h.accepts("10.0.0.5", None), "no local address known");
    }

    #[test]
    fn listed_names_and_addresses_add_to_the_default() {
        let h = hosts(&[
            "Metrics.Example.com.",
            "192.0.2.7",
            "[2001:db8::7]",
            "2001:db8::8",
        ]);
        for ok in [
            "metrics.example.com",
            "metrics.example.com.:443",
            "METRICS.EXAMPLE.COM",
            "192.0.2.7:9644",
            "[2001:db8::7]:9644",
            "[2001:db8::8]",
            "localhost",
        ] {
            assert!(h.accepts(ok, None), "{ok}");
        }
        for bad in ["example.com", "x.metrics.example.com", "192.0.2.8"] {
            assert!(!h.accepts(bad, None), "{bad}");
        }
        assert!(hosts(&["*"]).accepts("anything.example", None));
    }

    #[test]
    fn entries_that_are_not_hosts_are_refused_by_index() {
        for bad in [
            "",
            "http://x",
            "x:9644",
            "x/y",
            "a b",
            "[::1",
            "*.example.com",
        ] {
            let entries = vec!["ok.example".to_owned(), bad.to_owned()];
            let e = AdminHosts::new(&entries).expect_err(bad);
            assert_eq!(e.index, 1, "{bad}");
            assert!(e.to_string().starts_with("`admin_hosts[1]`"), "{e}");
        }
    }
}
