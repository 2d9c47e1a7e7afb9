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

/// An error tagged with the exit code it should produce. It sits in the
/// error chain (so `{:#}` prints "connection failure: <cause>: ..."), where
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
