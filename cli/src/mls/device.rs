//! What every MLS command shares: this device (its key file, its state
//! directory, a connection as its principal), accounts named on the
//! command line, and the exit class of a conversation error.
//!
//! One process per device at a time: the state directory's lock refuses a
//! second (`hermit group read --follow` in one terminal and `hermit group
//! send` in another on the same key is refused; `hermit chat` does both).

use std::path::Path;

use anyhow::Context;
use hermit_client::crypto::{Fingerprint, Identity};
use hermit_client::mls::{Conversation, ConversationError, Device};

use crate::conn::BrokerAddr;
use crate::exit::{ExitClass, FAILURE, INTEGRITY, KEY_CHANGED, USAGE, client_error};
use crate::keys::{IdentityArgs, load_public_key};

/// The key file of this device, its password, the broker and the state
/// directory: what every MLS command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct DeviceArgs {
    #[command(flatten)]
    pub identity: IdentityArgs,
    #[command(flatten)]
    pub broker: BrokerAddr,
}

impl DeviceArgs {
    /// Unlocks the key file (asking for its password if need be), then
    /// runs `f` with the device opened on a small runtime.
    pub fn run<T>(&self, f: impl AsyncFnOnce(Device) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let identity = self.identity.unlock()?;
        self.run_unlocked(identity, f)
    }

    /// [`DeviceArgs::run`] with the key file already unlocked.
    pub fn run_unlocked<T>(
        &self,
        identity: Identity,
        f: impl AsyncFnOnce(Device) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        crate::conn::init_client_logging();
        crate::conn::runtime()?.block_on(async {
            let device = self.open(identity).await?;
            f(device).await
        })
    }

    /// Connects as `identity` and opens its device: its binding (made on
    /// first use when none is stored: the device is then its own account),
    /// KeyPackages and conversations, in its state directory.
    async fn open(&self, identity: Identity) -> anyhow::Result<Device> {
        let (client, dir) = self.broker.connect_with_state(&identity).await?;
        Device::open(identity, dir, client)
            .map_err(conversation_error)
            .context("cannot open this device's MLS state")
    }
}

/// Opens the conversation on `topic` of `device`, naming what to do when
/// this device has none.
pub fn conversation(device: &Device, topic: &str) -> anyhow::Result<Conversation> {
    device.conversation(topic).map_err(|e| match e {
        ConversationError::UnknownConversation { .. } => Err::<(), _>(anyhow::anyhow!(
            "this device has no conversation {topic}: `hermit group list` shows the ones it \
             has, `hermit group join` accepts invitations"
        ))
        .class(USAGE)
        .unwrap_err(),
        e => conversation_error(e).context(format!("cannot open the conversation {topic}")),
    })
}

/// An account (or a device) named on the command line: a fingerprint (64
/// hex digits, spaces allowed, as `hermit pubkey` shows it), or anything
/// `--to` takes (a `.pub` file, a key file, a base64 SPKI).
pub fn parse_fingerprint(value: &str) -> anyhow::Result<Fingerprint> {
    let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    if !Path::new(value).exists()
        && compact.len() == 64
        && compact.chars().all(|c| c.is_ascii_hexdigit())
    {
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&compact[2 * i..2 * i + 2], 16)
                .expect("two hex digits were checked");
        }
        return Ok(Fingerprint::from_bytes(bytes));
    }
    load_public_key(value)
        .map(|k| *k.fingerprint())
        .with_context(|| {
            format!("{value:?} is neither a fingerprint (64 hex digits) nor a public key")
        })
}

/// A conversation error with its exit class: the broker's as for every
/// command (3 connection, 4 refused, …), 2 for what the command line
/// named wrong, 5 for state or records that fail their checks (a damaged
/// state file, a device list, rotation statement or KeyPackage that does
/// not verify, a suspected fork), 6 when a contact's account key changed
/// and is not confirmed (nothing was sent), 1 otherwise. The SDK's
/// messages say what to do.
pub fn conversation_error(e: ConversationError) -> anyhow::Error {
    let code = match e {
        ConversationError::Client(c) => return client_error(c),
        ConversationError::UnknownConversation { .. } | ConversationError::Invalid(_) => USAGE,
        ConversationError::GroupFile(_)
        | ConversationError::Sealing(_)
        | ConversationError::DeviceList(_)
        | ConversationError::Rotation(_)
        | ConversationError::BadKeyPackage { .. }
        | ConversationError::Stuck { .. } => INTEGRITY,
        ConversationError::KeyChanged { .. } => KEY_CHANGED,
        _ => FAILURE,
    };
    Err::<(), _>(e).class(code).unwrap_err()
}

/// Why an invitation of `account` failed, with what to do about it: an
/// account that published no device list or KeyPackages must do so.
pub fn invite_error(e: ConversationError, account: &Fingerprint) -> anyhow::Error {
    let hint = match &e {
        ConversationError::NoKeyPackages { .. } | ConversationError::NoDeviceList { .. } => {
            " (ask them to run `hermit keypackages publish`)"
        }
        _ => "",
    };
    conversation_error(e).context(format!("cannot invite {}{hint}", account.to_hex()))
}

/// `conversation_error` for `Result`s.
pub trait ConversationResult<T> {
    /// Maps the error to its exit class and adds `what` was being done.
    fn or_say(self, what: impl FnOnce() -> String) -> anyhow::Result<T>;
}

impl<T> ConversationResult<T> for Result<T, ConversationError> {
    fn or_say(self, what: impl FnOnce() -> String) -> anyhow::Result<T> {
        self.map_err(|e| conversation_error(e).context(what()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_hex_with_or_without_spaces() {
        let id = Identity::generate().unwrap();
        let fp = *id.fingerprint();
        assert_eq!(parse_fingerprint(&fp.to_hex()).unwrap(), fp);
        assert_eq!(parse_fingerprint(&fp.to_string()).unwrap(), fp);
        assert_eq!(
            parse_fingerprint(&id.public_key().to_spki_base64()).unwrap(),
            fp
        );
        assert!(parse_fingerprint("abcd").is_err());
        assert!(parse_fingerprint(&"g".repeat(64)).is_err());
    }

    #[test]
    fn conversation_errors_exit_by_class() {
        let code = |e| crate::exit::code_for(&conversation_error(e));
        assert_eq!(
            code(ConversationError::UnknownConversation {
                topic: "mls.x".into()
            }),
            USAGE
        );
        assert_eq!(
            code(ConversationError::CommitStalled { attempts: 64 }),
            FAILURE
        );
        assert_eq!(
            code(ConversationError::Stuck {
                topic: "mls.x".into(),
                why: "fork"
            }),
            INTEGRITY
        );
        assert_eq!(
            code(ConversationError::Client(
                hermit_client::ClientError::Timeout {
                    what: "fetch",
                    after: std::time::Duration::from_secs(1),
                }
            )),
            crate::exit::CONNECTION
        );
        let fp = Fingerprint::from_bytes([1; 32]);
        assert_eq!(
            code(ConversationError::KeyChanged {
                account: fp,
                new: fp
            }),
            KEY_CHANGED
        );
    }
}
