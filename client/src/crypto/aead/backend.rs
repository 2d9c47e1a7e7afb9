//! The contract every AES-GCM backend of `crypto::aead` fulfils, and the
//! sizes and error they share.

/// IV length (96 bits).
pub(crate) const IV_LEN: usize = 12;
/// Tag length (128 bits).
pub(crate) const TAG_LEN: usize = 16;
/// Key length (256 bits).
pub(crate) const KEY_LEN: usize = 32;
/// AES-128-GCM key length (MLS ciphersuite 2).
pub(crate) const KEY_LEN_128: usize = 16;

/// The tag did not verify: wrong key, IV, associated data, ciphertext or tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AuthFailed;

/// What an AES-GCM backend provides: 96-bit IVs, detached 128-bit tags,
/// plaintexts far below GCM's 64 GiB limit (callers bound them).
pub(super) trait Backend {
    /// The name `AEAD_BACKEND` reports.
    const NAME: &'static str;
    /// An expanded AES-256-GCM key (key schedule and GHASH key computed
    /// once), wiped when dropped; moving it must not copy the expanded key.
    type Key256: Send + Sync;

    /// Expands `key`.
    fn expand_256(key: &[u8; KEY_LEN]) -> Self::Key256;
    /// Encrypts `in_out` in place and returns the tag.
    fn seal_256(
        key: &Self::Key256,
        iv: &[u8; IV_LEN],
        aad: &[u8],
        in_out: &mut [u8],
    ) -> [u8; TAG_LEN];
    /// Checks `tag` and decrypts `ciphertext` into `out` (same length).
    fn open_256(
        key: &Self::Key256,
        iv: &[u8; IV_LEN],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8; TAG_LEN],
        out: &mut [u8],
    ) -> Result<(), AuthFailed>;
    /// AES-128-GCM with a key used once: encrypts `in_out` in place and
    /// returns the tag; the expanded key is wiped before returning.
    fn seal_128(
        key: &[u8; KEY_LEN_128],
        iv: &[u8; IV_LEN],
        aad: &[u8],
        in_out: &mut [u8],
    ) -> [u8; TAG_LEN];
    /// AES-128-GCM with a key used once: `sealed` is the ciphertext
    /// followed by its tag; checks the tag and decrypts in place, returning
    /// the plaintext's length (unspecified bytes on failure; a `sealed`
    /// shorter than a tag fails).
    fn open_128(
        key: &[u8; KEY_LEN_128],
        iv: &[u8; IV_LEN],
        aad: &[u8],
        sealed: &mut [u8],
    ) -> Result<usize, AuthFailed>;
}
