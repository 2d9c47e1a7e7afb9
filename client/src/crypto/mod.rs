//! End-to-end sealing, sans-I/O: nothing here touches a socket, a file or a clock
//! other than the system time for sequence numbers.
//!
//! The byte formats are specified in `docs/ENVELOPE.md`; this module implements
//! them and is the only place in HermitMQ that links a cryptography crate (the
//! broker stays blind by construction).
//!
//! # Layout
//! - `aead`: AES-GCM, the one AEAD of everything below (and of MLS): AWS-LC
//!   with run-time CPU dispatch, or RustCrypto's `aes-gcm` with the cargo
//!   feature `rustcrypto-aead` ([`AEAD_BACKEND`] says which).
//! - [`identity`]: P-256 ECDH identities and public keys, imported and exported
//!   byte-for-byte as the Web Crypto API does (base64 PKCS#8 / SPKI), fingerprints
//!   and key ids.
//! - [`keyfile`]: SEALKEY v1, the password-wrapped private key file (Argon2id +
//!   AES-256-GCM, RFC 7468 armor).
//! - [`compat`]: the browser article's `ChatCrypto` (`encrypt` / `decrypt` with the
//!   pairwise key and no context) for talking to existing Web Crypto code.
//! - [`envelope`]: the sealed record v1 wire format: header, zero-copy record view,
//!   the fields' offsets and the AADs' layout, [`FormatError`], the output
//!   buffers ([`RecordBuf`]), Padmé padding, context digests.
//! - [`seal`]: [`Sealer`], which writes DIRECT and MULTI records into a caller buffer
//!   with cached per-peer keys and a per-topic sequence generator ([`seq`]).
//! - [`open`]: [`Opener`], which checks, authenticates, de-duplicates ([`replay`])
//!   and decrypts records from trusted senders; what it returns ([`Opened`],
//!   [`OpenError`]) is defined in `opened`.
//! - [`signing`]: optional ECDSA P-256 signatures over records, with their own key
//!   (and their length).
//! - [`blind`]: blinded record keys the broker can compact by without learning them.
//!
//! The modules depend on each other one way: `aead`, `rng`, [`identity`]
//! at the bottom; [`signing`], [`envelope`] above them; [`seal`] and [`open`]
//! on top of the envelope (never the reverse).
//!
//! Every failure is a typed error; no input, however hostile, makes this module
//! panic. Secrets live in zeroize-on-drop types whose `Debug` is redacted.

pub mod blind;
pub mod compat;
pub mod envelope;
pub mod identity;
pub mod keyfile;
pub mod open;
pub mod replay;
pub mod seal;
pub mod seq;
pub mod signing;
pub mod state;

pub(crate) mod aead;
mod opened;
mod pairwise;
pub(crate) mod rng;

pub use aead::AEAD_BACKEND;
#[allow(deprecated)]
pub use blind::ConversationKey;
pub use blind::{BlindedKey, BlindingKey};
pub use compat::{ChatCrypto, CompatError, CompatMessage};
pub use envelope::{Flags, FormatError, Header, Mode, RecordBuf, RecordView};
pub use identity::{Fingerprint, Identity, KeyError, Kid, PublicKey};
pub use keyfile::{KdfParams, KeyFile, KeyFileError};
pub use open::{OpenError, Opened, OpenedMode, Opener, TrustError, WindowStart};
pub use replay::Gap;
pub use seal::{SealError, Sealed, Sealer};
pub use seq::SeqGen;
pub use signing::{SigningIdentity, SigningPublicKey};
pub use state::{StateError, open_state, seal_state};

#[cfg(test)]
mod tests {
    /// The sealer and opener move between tasks (a producer's flush task, a
    /// consumer's fetch task).
    #[test]
    fn sealer_and_opener_are_send() {
        fn send<T: Send>() {}
        send::<super::Sealer>();
        send::<super::Opener>();
        send::<super::ChatCrypto>();
    }
}
