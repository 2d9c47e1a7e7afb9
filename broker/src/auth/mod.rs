//! Who a connection is, and what it may do (protocol version 3).
//!
//! Pure logic, no I/O except the broker id file: the connection state machine
//! calls it. Nothing here touches a record's bytes; it verifies one ECDSA
//! signature per connection and compares names.
//!
//! # Layout
//! - [`options`]: [`AuthMode`] and the `[[acl]]` rules as written, checked
//!   and compiled by [`Acl::compile`].
//! - [`principal`]: [`Principal`], a client's identity, the SHA-256 fingerprint of its
//!   canonical P-256 SPKI — the same value the client SDK shows.
//! - [`verify`]: [`verify_authenticate`] checks an `Authenticate` request
//!   against this connection's nonce, the broker id, the broker's names and
//!   the connection's TLS channel ([`Challenge`], [`ProofPolicy`]).
//! - [`names`]: [`BrokerNames`], the names a proof may name.
//! - [`acl`]: [`Acl`], compiled once from the configuration; [`Acl::check`]
//!   answers "may this caller do this action on this topic", allocation-free.
//! - [`preset`]: the named rule sets `acl_preset` adds (`chat-inbox`), in
//!   one table.
//! - [`broker_id`]: [`BrokerId`] (made once per data directory) and
//!   [`fresh_nonce`] (once per connection).
//!
//! # Using it from a connection
//! 1. On accept: `let nonce = fresh_nonce();` and send it with
//!    [`BrokerId::as_bytes`] in the `BrokerHello`. Start with
//!    `acl.who(None)` (anonymous), or `acl.who(Some(p))` when a TLS client
//!    certificate named `p` ([`Principal::from_certificate_der`]).
//! 2. On `Authenticate`: `verify_authenticate(request, challenge, policy)` → `Principal`, then
//!    `who = acl.who(Some(principal))`. An error is sent back as is (its
//!    `Display` is safe for the client and for logs).
//! 3. Before an operation: [`AuthMode::requires_principal`] says whether an
//!    anonymous caller is refused outright (only `Ping`/`Authenticate` before
//!    authenticating); then [`Acl::check`] / [`Acl::check_group`] per request.

pub mod acl;
pub mod broker_id;
pub mod names;
pub mod options;
pub mod preset;
pub mod principal;
pub mod verify;

pub use acl::{Acl, AclError, Action, Denied, Who};
pub use broker_id::{BrokerId, BrokerIdError, fresh_nonce};
pub use names::{BrokerNames, PublicNameError};
pub use options::{AclRule, AuthMode};
pub use principal::{PRINCIPAL_HEX_LEN, PRINCIPAL_LEN, Principal};
pub use verify::{AuthError, Challenge, ProofPolicy, verify_authenticate, verify_signature};
