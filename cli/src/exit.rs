//! Exit codes: 0 ok, 2 usage, and one distinct code per failure class.

/// Success.
#[allow(dead_code)]
pub const OK: u8 = 0;
/// Anything not classified below.
pub const FAILURE: u8 = 1;
/// Bad command line or configuration.
pub const USAGE: u8 = 2;
/// Could not reach or talk to the broker.
pub const CONNECTION: u8 = 3;
/// Wrong password, untrusted sender, a record that does not open.
pub const AUTH: u8 = 4;
/// Corrupt data (log check failures, damaged files).
pub const INTEGRITY: u8 = 5;
/// A contact's account key changed and the user has not confirmed it:
/// nothing was sent (`hermit contacts confirm`, docs/MLS.md §4.6).
pub const KEY_CHANGED: u8 = 6;

/// An error tagged with the exit code it should produce. It sits in the
/// error chain (so `{:#}` prints `connection failure: <cause>: ...`), where
/// [`code_for`] finds it even under further context.
#[derive(Debug)]
pub struct Classified {
    /// The exit code.
    pub code: u8,
    source: Box<dyn std::error::Error + Send + Sync + 'static>,
}

impl std::fmt::Display for Classified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.code {
            USAGE => "usage error",
            CONNECTION => "connection failure",
            AUTH => "authentication or decryption failure",
            INTEGRITY => "integrity failure",
            KEY_CHANGED => "a contact's account key changed",
            _ => "failure",
        };
        f.write_str(what)
    }
}

impl std::error::Error for Classified {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.source.as_ref())
    }
}

/// Extension to tag an error with an exit code class.
pub trait ExitClass<T> {
    /// Tag the error with `code`.
    fn class(self, code: u8) -> anyhow::Result<T>;
}

impl<T, E: Into<anyhow::Error>> ExitClass<T> for Result<T, E> {
    fn class(self, code: u8) -> anyhow::Result<T> {
        self.map_err(|e| {
            anyhow::Error::new(Classified {
                code,
                source: e.into().into(),
            })
        })
    }
}

/// The exit code for an error: the first [`Classified`] tag in its chain.
pub fn code_for(e: &anyhow::Error) -> u8 {
    e.chain()
        .find_map(|c| c.downcast_ref::<Classified>().map(|c| c.code))
        .unwrap_or(FAILURE)
}

/// Tag a client SDK error with its exit class: connection failures (refused,
/// lost, timed out, another protocol version) exit 3, authentication
/// required or refused and `Unauthorized` refusals 4, corrupt fetched data
/// 5, bad names and unusable TLS files 2, anything else 1.
pub fn client_error(e: hermit_client::ClientError) -> anyhow::Error {
    use hermit_client::{ClientError as E, Status};
    let code = match &e {
        e if e.is_auth() => AUTH,
        E::Connect { .. }
        | E::ConnectionLost { .. }
        | E::Timeout { .. }
        | E::UnsupportedVersion { .. }
        | E::Protocol(_) => CONNECTION,
        E::CorruptBatch { .. } => INTEGRITY,
        E::Broker {
            status: Status::CorruptData,
            ..
        } => INTEGRITY,
        E::InvalidName { .. } | E::InvalidArgument(_) | E::Tls(_) => USAGE,
        _ => FAILURE,
    };
    Err::<(), _>(e).class(code).unwrap_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_tag_in_the_chain_wins_under_context() {
        use anyhow::Context as _;
        let e = Err::<(), _>(std::io::Error::other("refused"))
            .class(CONNECTION)
            .context("cannot list topics")
            .unwrap_err();
        assert_eq!(code_for(&e), CONNECTION);
        assert_eq!(
            format!("{e:#}"),
            "cannot list topics: connection failure: refused"
        );
        assert_eq!(code_for(&anyhow::anyhow!("plain")), FAILURE);
    }
}
