//! `hermit keygen`, `hermit pubkey`, `hermit key import|export`, and the
//! reading and writing of key files.
//!
//! # Files
//! - **Key file** (`alice.key`): SEALKEY v1 (docs/ENVELOPE.md §6) in its
//!   armored text form, mode 0600. The private key is wrapped under the
//!   password; the public key is in clear.
//! - **Public key file** (`alice.pub`): what you hand to peers. One line of
//!   standard base64 of the 91-byte SPKI (exactly Web Crypto's
//!   `exportKey('spki')`), optionally preceded by `#` comment lines; blank
//!   lines are ignored. `hermit keygen` writes
//!   `# hermit public key, fingerprint: 3f2a 9c01 …` above it.
//!
//! Wherever a public key is expected (`--to`, `--trust`, `--peer`, `pubkey`)
//! any of these is accepted: a `.pub` file, a SEALKEY key file (its clear
//! public key; no password needed), a PEM `-----BEGIN PUBLIC KEY-----` file,
//! or the base64 SPKI itself.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hermit_client::crypto::{Identity, KdfParams, KeyFile, KeyFileError, PublicKey};
use zeroize::Zeroizing;

use crate::exit::{AUTH, ExitClass, FAILURE, INTEGRITY, USAGE};
use crate::password::PasswordArgs;

/// Larger than any key or public key file (SEALKEY armor is capped at 16 KiB).
const MAX_FILE: u64 = 16 * 1024;

/// `hermit keygen`
#[derive(Debug, clap::Args)]
pub struct KeygenArgs {
    #[command(flatten)]
    dest: KeyOut,
    #[command(flatten)]
    password: PasswordArgs,
}

/// Where a new key file and its public key go (`keygen`, `key import`).
#[derive(Debug, clap::Args)]
pub struct KeyOut {
    /// Where to write the password-protected private key (SEALKEY armor, mode 0600).
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
    /// Where to write the public key [default: FILE with `.pub` for `.key`].
    #[arg(long, value_name = "FILE")]
    pub_out: Option<PathBuf>,
    /// Overwrite existing files.
    #[arg(long)]
    force: bool,
}

impl KeyOut {
    /// The public key's path, once neither file would be overwritten unasked.
    fn checked(&self) -> anyhow::Result<PathBuf> {
        let pub_out = self.pub_out.clone().unwrap_or_else(|| pub_path(&self.out));
        if same_path(&self.out, &pub_out) {
            return Err(anyhow::anyhow!(
                "--out and --pub-out both name {}: the public key would overwrite the private key",
                self.out.display()
            ))
            .class(USAGE);
        }
        refuse_overwrite(&[&self.out, &pub_out], self.force)?;
        Ok(pub_out)
    }
}

/// Whether `a` and `b` name the same file: equal as given, or once their
/// directories are resolved (`k` and `./k`, `d/k` and `d/../d/k`, through
/// symlinked directories). A directory that does not exist yet compares as
/// given only.
fn same_path(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    let resolved = |p: &Path| -> Option<PathBuf> {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(dir.canonicalize().ok()?.join(p.file_name()?))
    };
    matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// `hermit pubkey`
#[derive(Debug, clap::Args)]
pub struct PubkeyArgs {
    /// A key file, a `.pub` file, or a base64 SPKI. No password is needed.
    key: String,
    /// Print only the fingerprint (64 hex digits).
    #[arg(long)]
    fingerprint: bool,
}

/// `hermit key …`
#[derive(Debug, clap::Subcommand)]
pub enum KeyCommand {
    /// Wrap a PKCS#8 private key (e.g. from Web Crypto's
    /// `exportKey('pkcs8')`) into a password-protected key file.
    ///
    /// The key is read from stdin or --pkcs8-file, never from the command
    /// line (where `ps` and shell history would show it). Base64, with or
    /// without PEM `-----BEGIN PRIVATE KEY-----` lines.
    Import {
        /// Read the base64 PKCS#8 from FILE (`-`: stdin, the default).
        #[arg(long, value_name = "FILE")]
        pkcs8_file: Option<PathBuf>,
        #[command(flatten)]
        dest: KeyOut,
        #[command(flatten)]
        password: PasswordArgs,
    },
    /// Print a key file's private key in the clear, as Web Crypto imports it:
    /// one JSON line `{"pkcs8": B64, "spki": B64, "fingerprint": HEX}`.
    Export {
        /// The key file.
        key: PathBuf,
        #[command(flatten)]
        password: PasswordArgs,
    },
}

/// `--identity` and its password, shared by every command that uses one's own key.
#[derive(Debug, Clone, clap::Args)]
pub struct IdentityArgs {
    /// Your key file (from `hermit keygen` or `hermit key import`).
    #[arg(long, short = 'i', env = "HERMIT_IDENTITY", value_name = "FILE")]
    pub identity: PathBuf,
    #[command(flatten)]
    pub password: PasswordArgs,
}

/// `--identity` for commands that need a key only to authenticate (`hermit
/// topics`): without it the command runs anonymously and asks no password.
#[derive(Debug, Clone, clap::Args)]
pub struct AuthIdentityArgs {
    /// Your key file: authenticates you when the broker offers or requires
    /// it [default: anonymous].
    #[arg(long, short = 'i', env = "HERMIT_IDENTITY", value_name = "FILE")]
    pub identity: Option<PathBuf>,
    #[command(flatten)]
    pub password: PasswordArgs,
}

impl AuthIdentityArgs {
    /// Unlock the key file when one is given (exit 4 on a wrong password).
    pub fn unlock(&self) -> anyhow::Result<Option<Identity>> {
        self.identity
            .as_deref()
            .map(|path| unlock(path, &self.password))
            .transpose()
    }
}

impl IdentityArgs {
    /// Read the key file and unlock it (exit 4 on a wrong password).
    pub fn unlock(&self) -> anyhow::Result<Identity> {
        unlock(&self.identity, &self.password)
    }
}

/// Run `hermit keygen`.
pub fn keygen(args: KeygenArgs) -> anyhow::Result<()> {
    let out = &args.dest.out;
    let pub_out = args.dest.checked()?;
    let password = args.password.new_password(&out.display().to_string())?;
    let identity = Identity::generate().context("cannot generate a key pair")?;
    write_identity(&identity, &password, KdfParams::RECOMMENDED, out, &pub_out)?;
    out!("{}", pub_file_text(identity.public_key()))?;
    eprintln!(
        "wrote {} (private key, keep it) and {} (public key, give it to your peers)",
        out.display(),
        pub_out.display()
    );
    Ok(())
}

/// Run `hermit pubkey`.
pub fn pubkey(args: PubkeyArgs) -> anyhow::Result<()> {
    let key = load_public_key(&args.key)?;
    if args.fingerprint {
        outln!("{}", key.fingerprint().to_hex())?;
    } else {
        out!("{}", pub_file_text(&key))?;
    }
    Ok(())
}

/// Run a `hermit key` command.
pub fn key(cmd: KeyCommand) -> anyhow::Result<()> {
    match cmd {
        KeyCommand::Import {
            pkcs8_file,
            dest,
            password,
        } => {
            let key_from_stdin = pkcs8_file.as_ref().is_none_or(|p| p.as_os_str() == "-");
            if key_from_stdin
                && password
                    .password_file
                    .as_ref()
                    .is_some_and(|p| p.as_os_str() == "-")
            {
                return Err(anyhow::anyhow!(
                    "the PKCS#8 key and --password-file - cannot both come from stdin: \
                     give one of them as a file (--pkcs8-file FILE, --password-file FILE) \
                     or the password in HERMIT_PASSWORD"
                ))
                .class(USAGE);
            }
            let out = &dest.out;
            let pub_out = dest.checked()?;
            let text = read_secret_text(pkcs8_file.as_deref())?;
            let identity = parse_pkcs8(&text)?;
            let pw = password.new_password(&out.display().to_string())?;
            write_identity(&identity, &pw, KdfParams::RECOMMENDED, out, &pub_out)?;
            out!("{}", pub_file_text(identity.public_key()))?;
            eprintln!("imported into {} and {}", out.display(), pub_out.display());
            Ok(())
        }
        KeyCommand::Export { key, password } => {
            let identity = unlock(&key, &password)?;
            eprintln!(
                "warning: this prints the private key of {} in the clear",
                key.display()
            );
            let pkcs8 = identity.to_pkcs8_base64();
            let line = Zeroizing::new(
                serde_json::json!({
                    "pkcs8": pkcs8.as_str(),
                    "spki": identity.public_key().to_spki_base64(),
                    "fingerprint": identity.fingerprint().to_hex(),
                })
                .to_string(),
            );
            outln!("{}", line.as_str())?;
            Ok(())
        }
    }
}

/// `alice.key` → `alice.pub`; any other name gets `.pub` appended.
pub fn pub_path(key: &Path) -> PathBuf {
    if key.extension().is_some_and(|e| e == "key") {
        key.with_extension("pub")
    } else {
        let mut s = key.as_os_str().to_owned();
        s.push(".pub");
        PathBuf::from(s)
    }
}

/// The `.pub` file for `key`: a comment with the fingerprint, then the SPKI.
pub fn pub_file_text(key: &PublicKey) -> String {
    format!(
        "# hermit public key, fingerprint: {}\n{}\n",
        key.fingerprint(),
        key.to_spki_base64()
    )
}

fn refuse_overwrite(paths: &[&Path], force: bool) -> anyhow::Result<()> {
    if force {
        return Ok(());
    }
    for p in paths {
        if p.exists() {
            return Err(anyhow::anyhow!(
                "{} exists; use --force to overwrite it",
                p.display()
            ))
            .class(USAGE);
        }
    }
    Ok(())
}

/// Wrap `identity` under `password` and write the key file (0600) and the
/// public key file.
pub fn write_identity(
    identity: &Identity,
    password: &[u8],
    params: KdfParams,
    out: &Path,
    pub_out: &Path,
) -> anyhow::Result<()> {
    let file = KeyFile::wrap(identity, password, params).context("cannot wrap the key")?;
    write_file(out, file.to_armor().as_bytes(), 0o600)?;
    write_file(
        pub_out,
        pub_file_text(identity.public_key()).as_bytes(),
        0o644,
    )
}

/// Write `bytes` to `path` with permissions `mode`, replacing any file
/// there atomically: a temporary file in the same directory is written and
/// fsynced, renamed over `path`, and the directory is fsynced. A crash or a
/// failed write leaves either the old file or the new one, never neither,
/// and a pre-existing file's permissions never carry over to a new key.
pub fn write_file(path: &Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .with_context(|| format!("{} does not name a file", path.display()))
        .class(USAGE)?;
    // Created 0600 by tempfile, then set to `mode` explicitly (not through
    // the umask), before any secret byte is written.
    let mut tmp = tempfile::Builder::new()
        .prefix(&{
            let mut p = std::ffi::OsString::from(".");
            p.push(name);
            p.push(".");
            p
        })
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))
        .and_then(|()| tmp.write_all(bytes))
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    // On failure the temporary file is removed when `PersistError` drops.
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot fsync directory {}", dir.display()))
}

fn read_capped(path: &Path) -> anyhow::Result<Vec<u8>> {
    let f = std::fs::File::open(path)
        .with_context(|| format!("cannot open {}", path.display()))
        .class(USAGE)?;
    let mut bytes = Vec::new();
    f.take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(anyhow::anyhow!(
            "{} is larger than any key file ({MAX_FILE} bytes)",
            path.display()
        ))
        .class(INTEGRITY);
    }
    Ok(bytes)
}

/// Read text that holds a secret from a file or stdin (`None` or `-`).
fn read_secret_text(path: Option<&Path>) -> anyhow::Result<Zeroizing<String>> {
    let mut raw = Zeroizing::new(Vec::new());
    match path {
        Some(p) if p.as_os_str() != "-" => raw = Zeroizing::new(read_capped(p)?),
        _ => {
            std::io::stdin()
                .lock()
                .take(MAX_FILE + 1)
                .read_to_end(&mut raw)
                .context("cannot read stdin")?;
        }
    }
    let text = String::from_utf8(raw.to_vec())
        .map_err(|_| anyhow::anyhow!("the PKCS#8 input is not text (base64 expected)"))
        .class(USAGE)?;
    Ok(Zeroizing::new(text))
}

/// Base64 PKCS#8, whitespace anywhere, with or without PEM lines.
fn parse_pkcs8(text: &str) -> anyhow::Result<Identity> {
    let b64: Zeroizing<String> = Zeroizing::new(
        text.lines()
            .filter(|l| !l.trim_start().starts_with("-----"))
            .flat_map(|l| l.chars())
            .filter(|c| !c.is_ascii_whitespace())
            .collect(),
    );
    if b64.is_empty() {
        return Err(anyhow::anyhow!("no PKCS#8 key given")).class(USAGE);
    }
    Identity::from_pkcs8_base64(&b64)
        .context("cannot import the private key")
        .class(USAGE)
}

/// Parse a SEALKEY file in binary or armored form.
fn parse_key_file(path: &Path, bytes: &[u8]) -> anyhow::Result<KeyFile> {
    let parsed = if bytes.starts_with(b"SEALKEY") {
        KeyFile::from_bytes(bytes)
    } else {
        let text =
            std::str::from_utf8(bytes).map_err(|_| KeyFileError::Armor { reason: "not text" });
        text.and_then(KeyFile::from_armor)
    };
    parsed
        .with_context(|| format!("{} is not a valid key file", path.display()))
        .class(INTEGRITY)
}

/// Open a key file with the password from `password`.
pub fn unlock(path: &Path, password: &PasswordArgs) -> anyhow::Result<Identity> {
    let file = parse_key_file(path, &read_capped(path)?)?;
    let pw = password.existing(&path.display().to_string())?;
    unlock_file(path, &file, &pw)
}

/// Open a key file with `password` (taken from elsewhere than
/// [`PasswordArgs`], e.g. a second key's own variable).
pub fn unlock_with(path: &Path, password: &crate::password::Password) -> anyhow::Result<Identity> {
    let file = parse_key_file(path, &read_capped(path)?)?;
    unlock_file(path, &file, password)
}

fn unlock_file(
    path: &Path,
    file: &KeyFile,
    pw: &crate::password::Password,
) -> anyhow::Result<Identity> {
    let class = |e: &KeyFileError| match e {
        KeyFileError::WrongPasswordOrModified
        | KeyFileError::KdfBelowFloor { .. }
        | KeyFileError::PublicKeyMismatch
        | KeyFileError::InvalidPrivateKey => AUTH,
        _ => FAILURE,
    };
    file.unlock(pw).map_err(|e| {
        let code = class(&e);
        Err::<(), _>(e)
            .class(code)
            .with_context(|| format!("cannot unlock {}", path.display()))
            .unwrap_err()
    })
}

/// A public key from a `.pub` file, a key file, a PEM SPKI file or a base64
/// SPKI given directly (see the module docs).
pub fn load_public_key(value: &str) -> anyhow::Result<PublicKey> {
    let path = Path::new(value);
    if !path.exists() {
        return PublicKey::from_spki_base64(value.trim())
            .map_err(|_| {
                anyhow::anyhow!("{value:?} is neither a file nor a base64 SPKI public key")
            })
            .class(USAGE);
    }
    let bytes = read_capped(path)?;
    if bytes.starts_with(b"SEALKEY") {
        return Ok(parse_key_file(path, &bytes)?.public_key().clone());
    }
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| anyhow::anyhow!("{} is not a public key file (not text)", path.display()))
        .class(INTEGRITY)?;
    if text.trim_start().starts_with("-----BEGIN SEALKEY") {
        return Ok(parse_key_file(path, &bytes)?.public_key().clone());
    }
    let parsed = if text.trim_start().starts_with("-----BEGIN PUBLIC KEY-----") {
        let b64: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("-----"))
            .flat_map(|l| l.chars())
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        B64.decode(b64)
            .map_err(anyhow::Error::from)
            .and_then(|der| PublicKey::from_spki_der(&der).map_err(Into::into))
    } else {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        match lines.as_slice() {
            [one] => PublicKey::from_spki_base64(one).map_err(Into::into),
            _ => Err(anyhow::anyhow!(
                "expected one line of base64 SPKI (besides # comments), found {}",
                lines.len()
            )),
        }
    };
    parsed
        .with_context(|| format!("{} is not a public key file", path.display()))
        .class(INTEGRITY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pub_path_replaces_key_or_appends() {
        assert_eq!(pub_path(Path::new("a/alice.key")), Path::new("a/alice.pub"));
        assert_eq!(pub_path(Path::new("alice")), Path::new("alice.pub"));
        assert_eq!(pub_path(Path::new("alice.pem")), Path::new("alice.pem.pub"));
    }

    #[test]
    fn same_path_sees_through_dot_and_dot_dot() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        assert!(same_path(Path::new("k"), Path::new("k")));
        assert!(same_path(Path::new("k"), Path::new("./k")));
        assert!(same_path(&d.join("sub/k"), &d.join("sub/../sub/k")));
        assert!(!same_path(&d.join("sub/k"), &d.join("k")));
        assert!(!same_path(Path::new("k"), Path::new("k.pub")));
        // A missing directory compares as given.
        assert!(same_path(&d.join("no/k"), &d.join("no/k")));
        assert!(!same_path(&d.join("no/k"), &d.join("no/./j")));
    }

    #[test]
    fn every_public_key_form_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let id = Identity::generate().unwrap();
        let spki = id.public_key().to_spki_base64();
        let pubf = dir.path().join("a.pub");
        std::fs::write(&pubf, pub_file_text(id.public_key())).unwrap();
        let pem = dir.path().join("a.pem");
        std::fs::write(
            &pem,
            format!(
                "-----BEGIN PUBLIC KEY-----\n{}\n{}\n-----END PUBLIC KEY-----\n",
                &spki[..64],
                &spki[64..]
            ),
        )
        .unwrap();
        let keyf = dir.path().join("a.key");
        let weak = KdfParams::insecure_for_tests(64, 1, 1).unwrap();
        let kf = KeyFile::wrap(&id, b"pw", weak).unwrap();
        std::fs::write(&keyf, kf.to_armor()).unwrap();
        let bin = dir.path().join("a.bin");
        std::fs::write(&bin, kf.as_bytes()).unwrap();
        for v in [
            spki.clone(),
            pubf.display().to_string(),
            pem.display().to_string(),
            keyf.display().to_string(),
            bin.display().to_string(),
        ] {
            assert_eq!(&load_public_key(&v).unwrap(), id.public_key(), "{v}");
        }
        let two = dir.path().join("two.pub");
        std::fs::write(&two, format!("{spki}\n{spki}\n")).unwrap();
        assert!(load_public_key(two.to_str().unwrap()).is_err());
        assert!(load_public_key("not-a-key").is_err());
    }

    #[test]
    fn pkcs8_accepts_pem_and_wrapped_lines() {
        let id = Identity::generate().unwrap();
        let b64 = id.to_pkcs8_base64();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n{}\n-----END PRIVATE KEY-----\n",
            &b64[..64],
            &b64[64..]
        );
        assert_eq!(parse_pkcs8(&pem).unwrap().public_key(), id.public_key());
        assert_eq!(parse_pkcs8(&b64).unwrap().public_key(), id.public_key());
        assert!(parse_pkcs8("  \n").is_err());
    }
}
