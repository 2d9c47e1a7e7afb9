//! The broker id (signed by every `Authenticate`, so a signature made for one
//! broker never works on another) and the per-connection nonce.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use hermit_protocol::hello::{BROKER_ID_LEN, NONCE_LEN};
use rand::{Rng as _, TryRng as _};

/// Name of the file, inside the data directory, that holds the broker id.
pub const BROKER_ID_FILE: &str = "BROKER_ID";

/// 16 random bytes made once per data directory, stored in
/// `<data_dir>/BROKER_ID` as 32 lowercase hex digits and a newline.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct BrokerId([u8; BROKER_ID_LEN]);

/// Why the broker id could not be read or made.
#[derive(Debug, thiserror::Error)]
pub enum BrokerIdError {
    /// Reading, writing, syncing or renaming failed.
    #[error("broker id file {}: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The file exists but does not hold 32 hex digits. It is never
    /// overwritten: a new id would make this a different broker to every
    /// client that remembers it.
    #[error("broker id file {} is corrupt: expected 32 hex digits", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
    },
    /// The operating system's random number generator failed.
    #[error("cannot make a broker id: the operating system's random number generator failed")]
    Rng,
}

impl BrokerId {
    /// Wraps raw id bytes.
    pub const fn from_bytes(bytes: [u8; BROKER_ID_LEN]) -> Self {
        BrokerId(bytes)
    }

    /// The 16 id bytes, as sent in the broker hello.
    pub const fn as_bytes(&self) -> &[u8; BROKER_ID_LEN] {
        &self.0
    }

    /// Reads `<data_dir>/BROKER_ID`, or makes one if it does not exist (a new
    /// data directory, or one from before version 3). Call it with the data
    /// directory's `LOCK` held, so no other broker races the creation.
    ///
    /// Creation is atomic: a temporary file is written and fsynced, renamed
    /// into place, and the directory fsynced, so a crash leaves either no
    /// id (made again on the next start — no client could have used it) or
    /// the whole id.
    ///
    /// # Errors
    /// [`BrokerIdError`], naming the path.
    pub fn load_or_create(data_dir: &Path) -> Result<BrokerId, BrokerIdError> {
        let path = data_dir.join(BROKER_ID_FILE);
        match fs::read_to_string(&path) {
            Ok(text) => parse(text.trim_end_matches('\n'))
                .map(BrokerId)
                .ok_or(BrokerIdError::Invalid { path }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Self::create(data_dir, path),
            Err(source) => Err(BrokerIdError::Io { path, source }),
        }
    }

    fn create(data_dir: &Path, path: PathBuf) -> Result<BrokerId, BrokerIdError> {
        let mut id = [0u8; BROKER_ID_LEN];
        rand::rngs::SysRng
            .try_fill_bytes(&mut id)
            .map_err(|_| BrokerIdError::Rng)?;
        let id = BrokerId(id);
        let tmp = data_dir.join(format!("{BROKER_ID_FILE}.tmp"));
        let io_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| BrokerIdError::Io { path, source }
        };
        // A leftover temporary file from a crash is simply replaced.
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(io_err(&tmp))?;
        file.write_all(format!("{id}\n").as_bytes())
            .map_err(io_err(&tmp))?;
        file.sync_all().map_err(io_err(&tmp))?;
        drop(file);
        fs::rename(&tmp, &path).map_err(io_err(&path))?;
        File::open(data_dir)
            .and_then(|dir| dir.sync_all())
            .map_err(io_err(data_dir))?;
        Ok(id)
    }
}

fn parse(hex: &str) -> Option<[u8; BROKER_ID_LEN]> {
    let hex = hex.as_bytes();
    if hex.len() != 2 * BROKER_ID_LEN {
        return None;
    }
    let mut out = [0u8; BROKER_ID_LEN];
    for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        let digit = |c: u8| (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok());
        *byte = (digit(pair[0])? << 4) | digit(pair[1])?;
    }
    Some(out)
}

impl fmt::Display for BrokerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for BrokerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BrokerId({self})")
    }
}

/// 32 fresh random bytes for one connection's broker hello.
///
/// From the thread-local CSPRNG (ChaCha12 seeded from the operating system):
/// unpredictable, and no system call per connection. Panics only if the
/// operating system's random source fails when first seeding the thread.
pub fn fresh_nonce() -> [u8; NONCE_LEN] {
    let mut nonce = [0u8; NONCE_LEN];
    rand::rng().fill_bytes(&mut nonce);
    nonce
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_then_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let a = BrokerId::load_or_create(dir.path()).unwrap();
        let text = fs::read_to_string(dir.path().join(BROKER_ID_FILE)).unwrap();
        assert_eq!(text, format!("{a}\n"));
        assert_eq!(text.len(), 33);
        assert!(!dir.path().join("BROKER_ID.tmp").exists());
        assert_eq!(BrokerId::load_or_create(dir.path()).unwrap(), a);
        let other = tempfile::tempdir().unwrap();
        assert_ne!(BrokerId::load_or_create(other.path()).unwrap(), a);
    }

    #[test]
    fn a_damaged_id_is_an_error_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(BROKER_ID_FILE);
        for bad in ["", "abc\n", &"g".repeat(32), &"0".repeat(34)] {
            fs::write(&path, bad).unwrap();
            let e = BrokerId::load_or_create(dir.path()).unwrap_err();
            assert!(matches!(e, BrokerIdError::Invalid { .. }), "{e}");
            assert!(e.to_string().contains("BROKER_ID"), "{e}");
            assert_eq!(fs::read_to_string(&path).unwrap(), bad, "never overwritten");
        }
        // Upper-case hex written by hand is fine.
        fs::write(&path, "00112233445566778899AABBCCDDEEFF\n").unwrap();
        assert_eq!(
            BrokerId::load_or_create(dir.path()).unwrap().to_string(),
            "00112233445566778899aabbccddeeff"
        );
    }

    #[test]
    fn a_missing_dir_is_an_io_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let e = BrokerId::load_or_create(&missing).unwrap_err();
        assert!(matches!(e, BrokerIdError::Io { .. }), "{e}");
        assert!(e.to_string().contains("nope"), "{e}");
    }

    #[test]
    fn nonces_differ() {
        assert_ne!(fresh_nonce(), fresh_nonce());
    }
}
