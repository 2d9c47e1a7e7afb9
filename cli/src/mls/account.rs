//! `hermit account rotate --to NEW_KEYFILE` (docs/MLS.md §4.6): on the
//! account's own device, moves the account to a new key. The new key
//! becomes a new account — its own state directory, device list,
//! KeyPackages and topics — and a rotation statement signed by both keys
//! is published under the old fingerprint, where contacts find it (they
//! see a blocking warning until they confirm it).
//!
//! The old device stays in its conversations. With `--add-to-groups` it
//! also adds the new key's device to each of them (one Commit each; the
//! new key then runs `hermit group join`); without, members invite the new
//! account once they confirmed. Either way contacts send nothing to the
//! group until they confirm.

use std::path::PathBuf;

use anyhow::Context as _;
use hermit_client::mls::Device;

use super::device::{ConversationResult as _, DeviceArgs, conversation, conversation_error};
use super::devices::rfc3339;
use crate::exit::{ExitClass, USAGE};
use crate::keys::{unlock, unlock_with};
use crate::password::PasswordArgs;

/// The variable the new key file's password may come from.
pub const TO_PASSWORD_ENV: &str = "HERMIT_TO_PASSWORD";

/// `hermit account …`
#[derive(Debug, clap::Subcommand)]
pub enum AccountCommand {
    /// On the account's own device: rotate the account to the key of
    /// NEW_KEYFILE (`hermit keygen`). Publishes the new account's device
    /// list and KeyPackages, then the rotation statement signed by both
    /// keys; prints the new fingerprint. Contacts must confirm it.
    Rotate(RotateArgs),
}

/// `hermit account rotate`
#[derive(Debug, clap::Args)]
pub struct RotateArgs {
    /// The new account's key file.
    #[arg(long, value_name = "NEW_KEYFILE")]
    to: PathBuf,
    /// Read the new key file's password from the first line of FILE (`-`:
    /// stdin). Without it: `HERMIT_TO_PASSWORD`, else `HERMIT_PASSWORD`
    /// (both keys under one password), else the terminal. Never an
    /// argument.
    #[arg(long, value_name = "FILE")]
    to_password_file: Option<PathBuf>,
    /// The new account's state directory [default: the new key's own].
    #[arg(long, value_name = "DIR")]
    to_state_dir: Option<PathBuf>,
    /// How many KeyPackages the new account publishes.
    #[arg(long, default_value_t = 20)]
    count: usize,
    /// Also add the new key's device to every conversation of this
    /// device (it joins with `hermit group join`).
    #[arg(long)]
    add_to_groups: bool,
    #[command(flatten)]
    device: DeviceArgs,
}

/// Run a `hermit account` command.
pub fn run(cmd: AccountCommand) -> anyhow::Result<()> {
    match cmd {
        AccountCommand::Rotate(args) => rotate(&args),
    }
}

/// The new key, unlocked with its own password source.
fn unlock_new(args: &RotateArgs) -> anyhow::Result<hermit_client::crypto::Identity> {
    if args.to_password_file.is_some() {
        let source = PasswordArgs {
            password_file: args.to_password_file.clone(),
        };
        return unlock(&args.to, &source);
    }
    if let Some(v) = std::env::var_os(TO_PASSWORD_ENV) {
        use std::os::unix::ffi::OsStringExt as _;
        return unlock_with(&args.to, &zeroize::Zeroizing::new(v.into_vec()));
    }
    unlock(
        &args.to,
        &PasswordArgs {
            password_file: None,
        },
    )
}

fn rotate(args: &RotateArgs) -> anyhow::Result<()> {
    let stdin = std::path::Path::new("-");
    if args.to_password_file.as_deref() == Some(stdin)
        && args.device.identity.password.password_file.as_deref() == Some(stdin)
    {
        return Err(anyhow::anyhow!(
            "--password-file - and --to-password-file - cannot both read stdin: give one of the passwords in a file"
        ))
        .class(USAGE);
    }
    let old = args.device.identity.unlock()?;
    let new = unlock_new(args)?;
    if old.public_key() == new.public_key() {
        return Err(anyhow::anyhow!("--to is this account's own key")).class(USAGE);
    }
    let mut new_broker = args.device.broker.clone();
    new_broker.state_dir.clone_from(&args.to_state_dir);
    args.device.run_unlocked(old, async |d| {
        if !d.is_account() {
            return Err(anyhow::anyhow!(
                "this device belongs to the account {}: run `hermit account rotate` on the \
                 account's own device (it holds the key the statement must be signed with)",
                d.account().fingerprint().to_hex()
            ))
            .class(USAGE);
        }
        let (client, dir) = new_broker.connect_with_state(&new).await?;
        let nd = Device::open(new.clone(), dir, client)
            .map_err(conversation_error)
            .context("cannot open the new account's MLS state")?;
        if !nd.is_account() {
            return Err(anyhow::anyhow!(
                "the key {} is bound as a device of the account {}: give a fresh key \
                 (`hermit keygen`) or its own --to-state-dir",
                nd.fingerprint().to_hex(),
                nd.account().fingerprint().to_hex()
            ))
            .class(USAGE);
        }
        nd.publish_key_packages(args.count)
            .await
            .or_say(|| "cannot publish the new account's KeyPackages".into())?;
        let s = d
            .publish_rotation(&nd)
            .await
            .or_say(|| "cannot publish the rotation".into())?;
        if args.add_to_groups {
            add_to_groups(&d, s.new_key()).await?;
        }
        outln!("{}", s.new_key().fingerprint().to_hex())?;
        eprintln!(
            "the account {} rotated to {} at {}: your contacts see a blocking warning until \
             they confirm it (`hermit contacts confirm`) and should compare the new safety \
             number; use the new key file from now on",
            s.old().fingerprint().to_hex(),
            s.new_key().fingerprint().to_hex(),
            rfc3339(s.issued_at())
        );
        Ok(())
    })
}

/// Adds the new account's device to each conversation of `d` it is still
/// in; a conversation where that fails is named on stderr and skipped.
async fn add_to_groups(d: &Device, new: &hermit_client::crypto::PublicKey) -> anyhow::Result<()> {
    let mut topics = d
        .conversations()
        .or_say(|| "cannot list the conversations".into())?;
    topics.sort();
    for topic in topics {
        let mut c = conversation(d, &topic)?;
        if c.is_removed() {
            continue;
        }
        match c.add_devices(std::slice::from_ref(new)).await {
            Ok(_) => eprintln!("added the new key's device to {topic}"),
            Err(e) => errln!("warning: cannot add the new key's device to {topic}: {e}"),
        }
    }
    Ok(())
}
