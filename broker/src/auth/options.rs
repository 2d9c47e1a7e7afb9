//! The access part of the configuration, declared by the layer that
//! enforces it: the authentication mode and the `[[acl]]` rules as written.

use std::fmt;

use serde::Deserialize;

/// Whether clients authenticate (protocol version 3; docs/SECURITY.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AuthMode {
    /// No authentication: everyone may do everything. Only on loopback
    /// listeners unless `allow_anonymous = true`. Default.
    #[default]
    Off,
    /// Clients may authenticate; anonymous ones get what
    /// `principal = "anonymous"` rules allow, others what their rules allow.
    Optional,
    /// Only `Ping` and `Authenticate` before authenticating.
    Required,
}

impl AuthMode {
    /// Whether a caller that has not authenticated is refused every
    /// operation but `Ping` and `Authenticate`.
    pub const fn requires_principal(self) -> bool {
        matches!(self, AuthMode::Required)
    }

    /// Whether clients that cannot authenticate (protocol version 2) may be
    /// served at all.
    pub const fn serves_anonymous(self) -> bool {
        !self.requires_principal()
    }
}

impl fmt::Display for AuthMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AuthMode::Off => "off",
            AuthMode::Optional => "optional",
            AuthMode::Required => "required",
        })
    }
}

/// One `[[acl]]` rule as written in the file; compiled by
/// [`Acl::compile`](super::Acl::compile) (which checks every field).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AclRule {
    /// A fingerprint (64 hex digits), `"*"` (any authenticated principal) or `"anonymous"`.
    pub principal: String,
    /// Topic glob: `*` any run of characters, `?` one, `{principal}` the caller's fingerprint.
    pub topics: String,
    /// Actions granted: `produce`, `consume`, `create`, `delete`, `describe`, `claim`.
    pub allow: Vec<String>,
    /// Consumer groups a `consume` rule may use (glob). Default `{principal}.*`.
    #[serde(default)]
    pub groups: Option<String>,
}
