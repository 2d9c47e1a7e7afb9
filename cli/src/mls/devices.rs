//! `hermit devices list|publish|add|bind|drop` and `hermit keypackages
//! publish|status` (docs/MLS.md §4, §5.1).
//!
//! An account is the device where it was made: the first MLS command run
//! with a key file makes that key its own account. A second device is
//! bound by the account instead: `hermit devices add NEW.pub` on the
//! account's device prints a binding, `hermit devices bind BINDING` on the
//! new device stores it — before the new device runs any other MLS
//! command.

use std::io::Read as _;

use anyhow::Context;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hermit_client::mls::{ConversationError, Device, DeviceBinding, DeviceList};

use super::device::{ConversationResult as _, DeviceArgs, conversation_error, parse_fingerprint};
use crate::exit::{ExitClass, USAGE};
use crate::keys::load_public_key;

/// `hermit devices …`
#[derive(Debug, clap::Subcommand)]
pub enum DevicesCommand {
    /// Print an account's device list (default: this device's account):
    /// each device's fingerprint, `account` or `device`, and when it was
    /// added; a list signed over 30 days ago is flagged stale on stderr.
    List {
        /// The account: a fingerprint, `.pub` file, key file or base64 SPKI.
        account: Option<String>,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Publish this account's device list (on the account's own device),
    /// so that others can invite it.
    Publish(DeviceArgs),
    /// On the account's device: bind a new device's key to this account.
    /// Prints the binding (base64) to give to `hermit devices bind` on the
    /// new device, and republishes the device list with the new device.
    Add {
        /// The new device's public key (`.pub` file, key file or base64 SPKI).
        pubkey: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// On the account's device: drop a device from this account's device
    /// list, then remove it from every conversation of this device where it
    /// is a member (others see who removed it, and when).
    Drop {
        /// The device's fingerprint (hex), `.pub` file, key file or base64 SPKI.
        device_fp: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// On a new device: store the binding `hermit devices add` printed on
    /// the account's device (`-`: read it from stdin). Run it before any
    /// other MLS command on this device.
    Bind {
        /// The binding, base64 (or `-` for stdin).
        binding: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
}

/// `hermit keypackages …`
#[derive(Debug, clap::Subcommand)]
pub enum KeyPackagesCommand {
    /// Publish KeyPackages (each lets one inviter add this device) and a
    /// fresh last-resort one; on an account's own device, also its device
    /// list if it has none yet. Prints how many private keys are held.
    Publish {
        /// How many KeyPackages to publish.
        #[arg(long, short, default_value_t = 20)]
        count: usize,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Print how many KeyPackage private keys this device holds (published
    /// and not yet used by a Welcome, the last-resort one included).
    Status(DeviceArgs),
}

/// Run a `hermit devices` command.
pub fn devices(cmd: DevicesCommand) -> anyhow::Result<()> {
    match cmd {
        DevicesCommand::List { account, device } => device.run(async |d| {
            let account = match account {
                Some(a) => parse_fingerprint(&a)?,
                None => *d.account().fingerprint(),
            };
            let list = d
                .device_list(&account)
                .await
                .or_say(|| format!("cannot read the device list of {}", account.to_hex()))?;
            if list.is_stale_now() {
                errln!(
                    "warning: this device list (version {}) was signed {}, over 30 days ago: \
                     stale (the broker may be withholding a newer one)",
                    list.version(),
                    rfc3339(list.issued_at())
                );
            }
            print_list(&list)
        }),
        DevicesCommand::Publish(device) => device.run(async |d| {
            let list = publish_list(&d, &[]).await?;
            eprintln!(
                "published the device list of {} (version {}, {} devices)",
                d.account().fingerprint().to_hex(),
                list.version(),
                list.devices().len()
            );
            Ok(())
        }),
        DevicesCommand::Add { pubkey, device } => {
            let key = load_public_key(&pubkey)?;
            device.run(async |d| {
                account_only(&d)?;
                // The list naming the device first, then the binding with
                // the version it got (docs/MLS.md §4.1).
                let binding = d
                    .bind(&key)
                    .await
                    .or_say(|| "cannot publish the device list".into())?;
                outln!("{}", B64.encode(binding.to_bytes()))?;
                eprintln!(
                    "device {} added to the device list (version {}); on it, run \
                     `hermit devices bind BINDING` with the line above, then \
                     `hermit keypackages publish`",
                    key.fingerprint().to_hex(),
                    binding.list_version()
                );
                Ok(())
            })
        }
        DevicesCommand::Drop { device_fp, device } => {
            let fp = parse_fingerprint(&device_fp)?;
            device.run(async |d| {
                account_only(&d)?;
                let (list, topics) = d
                    .drop_device(&fp)
                    .await
                    .or_say(|| format!("cannot drop the device {}", fp.to_hex()))?;
                for topic in &topics {
                    outln!("{topic}")?;
                }
                eprintln!(
                    "device {} dropped from the device list (version {}); removed from {} \
                     conversations",
                    fp.to_hex(),
                    list.version(),
                    topics.len()
                );
                Ok(())
            })
        }
        DevicesCommand::Bind { binding, device } => bind(&binding, &device),
    }
}

/// Run a `hermit keypackages` command.
pub fn key_packages(cmd: KeyPackagesCommand) -> anyhow::Result<()> {
    match cmd {
        KeyPackagesCommand::Publish { count, device } => device.run(async |d| {
            if d.is_account() {
                match d.device_list(d.account().fingerprint()).await {
                    Ok(_) => {}
                    Err(ConversationError::NoDeviceList { .. }) => {
                        publish_list(&d, &[]).await?;
                    }
                    Err(e) => {
                        return Err(conversation_error(e).context("cannot read the device list"));
                    }
                }
            }
            let held = d
                .publish_key_packages(count)
                .await
                .or_say(|| "cannot publish KeyPackages".into())?;
            outln!("{held}")?;
            eprintln!(
                "published {count} KeyPackages and a last-resort one for device {}; {held} \
                 private keys held",
                d.fingerprint().to_hex()
            );
            Ok(())
        }),
        KeyPackagesCommand::Status(device) => device.run(async |d| {
            outln!("{}", d.key_packages_held())?;
            Ok(())
        }),
    }
}

/// Refuses a device that is not the account's own, naming what to do.
fn account_only(d: &Device) -> anyhow::Result<()> {
    if !d.is_account() {
        return Err(anyhow::anyhow!(
            "this device belongs to the account {}, which signs the device list: run this \
             on the account's own device",
            d.account().fingerprint().to_hex()
        ))
        .class(USAGE);
    }
    Ok(())
}

/// Publishes the account's device list with `add` added, naming what to
/// do on a device that is not the account's.
async fn publish_list(
    d: &Device,
    add: &[hermit_client::crypto::PublicKey],
) -> anyhow::Result<DeviceList> {
    account_only(d)?;
    d.publish_device_list(add)
        .await
        .or_say(|| "cannot publish the device list".into())
}

fn print_list(list: &DeviceList) -> anyhow::Result<()> {
    for listed in list.devices() {
        let key = hermit_client::crypto::PublicKey::from_sec1_bytes(&listed.key)
            .context("the device list names a key that is not a P-256 point")?;
        let role = if listed.key == list.account().to_sec1_uncompressed() {
            "account"
        } else {
            "device"
        };
        outln!(
            "{}\t{role}\t{}",
            key.fingerprint().to_hex(),
            rfc3339(listed.added_at)
        )?;
    }
    Ok(())
}

/// Milliseconds since the Unix epoch as an RFC 3339 time (UTC, seconds).
pub(super) fn rfc3339(ms: u64) -> String {
    match time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000) {
        Ok(t) => format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        ),
        Err(_) => format!("{ms} ms"),
    }
}

/// `hermit devices bind`: checks the binding is for this key, then stores
/// it. No connection: only the state directory is touched.
fn bind(binding: &str, args: &DeviceArgs) -> anyhow::Result<()> {
    let text = if binding == "-" {
        let mut s = String::new();
        std::io::stdin()
            .take(4096)
            .read_to_string(&mut s)
            .context("cannot read the binding from stdin")?;
        s
    } else {
        binding.to_owned()
    };
    let bytes = B64
        .decode(text.trim())
        .context("the binding is not base64 (copy the line `hermit devices add` printed)")
        .class(USAGE)?;
    let binding = DeviceBinding::from_bytes(&bytes)
        .context("not a device binding")
        .class(USAGE)?;
    let identity = args.identity.unlock()?;
    let dir = args.broker.state_dir_of(&identity)?;
    Device::store_binding(&dir, &identity, &binding).or_say(|| {
        "the binding does not bind this key: give `hermit devices add` this device's .pub file"
            .into()
    })?;
    eprintln!(
        "device {} is now a device of the account {}; next: `hermit keypackages publish`",
        identity.fingerprint().to_hex(),
        binding.account().fingerprint().to_hex()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_are_rfc3339() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(1_700_000_000_123), "2023-11-14T22:13:20Z");
    }
}
