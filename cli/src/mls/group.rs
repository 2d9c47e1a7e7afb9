//! `hermit group …`: conversations on MLS, one command per operation
//! (docs/MLS.md §10). Each opens this device, does one thing and ends;
//! changes to a group (invite, add, remove, update) are Commits the SDK
//! makes after reading the whole topic and appends by conditional produce,
//! retrying when another member committed first.

use anyhow::Context;
use hermit_client::mls::{CommitOutcome, Conversation, Device};
use tokio::io::AsyncBufReadExt as _;

use super::device::{
    ConversationResult as _, DeviceArgs, conversation, invite_error, parse_fingerprint,
};
use super::events::{Format, Printer, print_refused, read};
use crate::exit::{ExitClass, USAGE};
use crate::keys::load_public_key;

/// The longest message `send` and `chat` take (bytes of one line).
pub const MAX_MESSAGE: usize = 1 << 20;

/// `hermit group …`
#[derive(Debug, clap::Subcommand)]
pub enum GroupCommand {
    /// Start a conversation with only this device in it; prints its topic.
    Create(DeviceArgs),
    /// Invite an account: every device on its device list joins (each
    /// needs a published KeyPackage: `hermit keypackages publish`).
    Invite {
        /// The conversation's topic (`mls.…`).
        topic: String,
        /// The account: fingerprint, `.pub` file, key file or base64 SPKI.
        account: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Accept the invitations waiting for this device; prints the topic of
    /// each conversation joined, and reports each invitation refused by
    /// the device-list check (an error line on stderr, or a
    /// `welcome_refused` JSON line).
    Join {
        /// `text`: one topic per line; `jsonl`: `joined` and
        /// `welcome_refused` JSON objects.
        #[arg(long, value_enum, default_value = "text")]
        output: Format,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Send a message, or one per line of stdin (`-`, which also keeps the
    /// text out of `ps`).
    Send {
        /// The conversation's topic.
        topic: String,
        /// The text, or `-` for stdin.
        text: String,
        /// Print the offset of each message sent.
        #[arg(long)]
        print_offsets: bool,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Print the messages not yet read on this device: offset, sender and
    /// text. Each is acknowledged once printed (see `--after`).
    Read(ReadArgs),
    /// Add one device (e.g. another device of a member's account).
    Add {
        /// The conversation's topic.
        topic: String,
        /// The device's public key (`.pub` file, key file or base64 SPKI).
        device_pubkey: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Remove a device by its fingerprint (`--account`: every device of an
    /// account).
    Remove {
        /// The conversation's topic.
        topic: String,
        /// The device's (or with `--account` the account's) fingerprint,
        /// or its public key.
        fingerprint: String,
        /// FINGERPRINT names an account: remove all its devices.
        #[arg(long)]
        account: bool,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Give this device a fresh leaf secret (post-compromise security:
    /// whoever copied its state before opens nothing sent after).
    Update {
        /// The conversation's topic.
        topic: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Leave: ask the other members to remove this device (the next one to
    /// commit does); `hermit group read` shows when it happened.
    Leave {
        /// The conversation's topic.
        topic: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// List this device's conversations: topic, epoch and the members'
    /// account fingerprints (comma-separated), `removed` when it was; with
    /// `--output jsonl` one object per conversation, with the epoch
    /// authenticator (hex) and every member's account and device.
    List(ListArgs),
}

/// `hermit group list`
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// `text`: `TOPIC<TAB>EPOCH<TAB>ACCOUNTS[<TAB>removed]`; `jsonl`:
    /// `{"topic", "epoch", "authenticator", "members": [{"account",
    /// "device"}], "removed"}` per conversation.
    #[arg(long, value_enum, default_value = "text")]
    output: Format,
    #[command(flatten)]
    device: DeviceArgs,
}

/// `hermit group read`
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// The conversation's topic.
    topic: String,
    /// Keep reading: wait for new messages until Ctrl-C.
    #[arg(long, short)]
    follow: bool,
    /// `text`: `OFFSET<TAB>SENDER<TAB>TEXT` per message (the sender's
    /// account fingerprint; the text with control characters escaped),
    /// other events on stderr; `jsonl`: one JSON object per event.
    #[arg(long, value_enum, default_value = "text")]
    output: Format,
    /// Acknowledge without printing every event at or below OFFSET: give
    /// the last offset your output holds, and a restart after a crash
    /// prints nothing twice (docs/MLS.md §10.2).
    #[arg(long, value_name = "OFFSET")]
    after: Option<u64>,
    #[command(flatten)]
    device: DeviceArgs,
}

/// Run a `hermit group` command.
pub fn run(cmd: GroupCommand) -> anyhow::Result<()> {
    match cmd {
        GroupCommand::Create(device) => device.run(async |d| {
            let c = d
                .create_conversation()
                .await
                .or_say(|| "cannot create a conversation".into())?;
            outln!("{}", c.topic())
        }),
        GroupCommand::Invite {
            topic,
            account,
            device,
        } => {
            let account = parse_fingerprint(&account).class(USAGE)?;
            device.run(async |d| {
                let mut c = conversation(&d, &topic)?;
                refresh_contacts(&c, &[account]).await?;
                let outcome = c
                    .invite(&account)
                    .await
                    .map_err(|e| invite_error(e, &account))?;
                report(&outcome, &format!("invited {}", account.to_hex()));
                Ok(())
            })
        }
        GroupCommand::Join { output, device } => device.run(async |d| {
            let welcomes = d
                .accept_welcomes_reporting()
                .await
                .or_say(|| "cannot accept invitations".into())?;
            if welcomes.joined.is_empty() && welcomes.refused.is_empty() {
                eprintln!("no invitation is waiting for this device");
            }
            for topic in &welcomes.joined {
                match output {
                    Format::Text => outln!("{topic}")?,
                    Format::Jsonl => outln!(
                        "{}",
                        crate::out::json_line(
                            &serde_json::json!({"event": "joined", "topic": topic})
                        )
                    )?,
                }
            }
            print_refused(output, &welcomes.refused)
        }),
        GroupCommand::Send {
            topic,
            text,
            print_offsets,
            device,
        } => device.run(async |d| send(&d, &topic, &text, print_offsets).await),
        GroupCommand::Read(args) => {
            let printer = Printer {
                format: args.output,
                topic: args.topic.clone(),
                after: args.after,
            };
            args.device.run(async |d| {
                let mut c = conversation(&d, &args.topic)?;
                read(&mut c, &printer, args.follow).await
            })
        }
        GroupCommand::Add {
            topic,
            device_pubkey,
            device,
        } => {
            let key = load_public_key(&device_pubkey)?;
            device.run(async |d| {
                let mut c = conversation(&d, &topic)?;
                refresh_contacts(&c, &[*key.fingerprint()]).await?;
                let outcome = c
                    .add_devices(std::slice::from_ref(&key))
                    .await
                    .or_say(|| format!("cannot add {}", key.fingerprint().to_hex()))?;
                report(&outcome, &format!("added {}", key.fingerprint().to_hex()));
                Ok(())
            })
        }
        GroupCommand::Remove {
            topic,
            fingerprint,
            account,
            device,
        } => {
            let fp = parse_fingerprint(&fingerprint).class(USAGE)?;
            device.run(async |d| {
                let mut c = conversation(&d, &topic)?;
                let outcome = if account {
                    c.remove_account(&fp).await
                } else {
                    c.remove_devices(&[fp]).await
                }
                .or_say(|| format!("cannot remove {}", fp.to_hex()))?;
                report(&outcome, &format!("removed {}", fp.to_hex()));
                Ok(())
            })
        }
        GroupCommand::Update { topic, device } => device.run(async |d| {
            let mut c = conversation(&d, &topic)?;
            let outcome = c
                .update()
                .await
                .or_say(|| "cannot update this device's leaf".into())?;
            report(&outcome, "updated this device's leaf");
            Ok(())
        }),
        GroupCommand::Leave { topic, device } => device.run(async |d| {
            let mut c = conversation(&d, &topic)?;
            c.leave().await.or_say(|| format!("cannot leave {topic}"))?;
            eprintln!(
                "asked to be removed from {topic}: the next member to commit removes this device"
            );
            Ok(())
        }),
        GroupCommand::List(args) => args.device.run(async |d| list(&d, args.output)),
    }
}

/// What a commit did, on stderr.
fn report(outcome: &CommitOutcome, what: &str) {
    match outcome {
        CommitOutcome::Committed {
            offset,
            epoch,
            attempts,
        } => eprintln!(
            "{what}: commit at offset {offset}, epoch {epoch}{}",
            if *attempts > 1 {
                format!(" ({attempts} attempts)")
            } else {
                String::new()
            }
        ),
        CommitOutcome::AlreadyDone => eprintln!("{what}: nothing to do (already so)"),
        _ => eprintln!("{what}"),
    }
}

/// Before anything is sent to a group: one read of the `dir.` topic of
/// each contact among its members and `extra` (docs/MLS.md §4.6), so that
/// a key change published since blocks the command (exit 6) instead of
/// being missed; a refused (forged) statement stops it too (exit 5).
pub async fn refresh_contacts(
    c: &Conversation,
    extra: &[hermit_client::crypto::Fingerprint],
) -> anyhow::Result<()> {
    c.refresh_contacts(extra)
        .await
        .or_say(|| "cannot check the contacts in this conversation".into())?;
    Ok(())
}

/// `hermit group send`: first what an earlier run left unsent (the
/// outbox), then `text` or each line of stdin.
async fn send(d: &Device, topic: &str, text: &str, print_offsets: bool) -> anyhow::Result<()> {
    let mut c = conversation(d, topic)?;
    refresh_contacts(&c, &[]).await?;
    c.resend_outbox()
        .await
        .or_say(|| format!("cannot catch up with {topic}"))?;
    if text != "-" {
        return send_one(&mut c, text, print_offsets).await;
    }
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await.context("cannot read stdin")? {
        send_one(&mut c, &line, print_offsets).await?;
    }
    Ok(())
}

/// Sends one message (refusing one over [`MAX_MESSAGE`]).
pub async fn send_one(c: &mut Conversation, text: &str, print_offset: bool) -> anyhow::Result<()> {
    if text.len() > MAX_MESSAGE {
        return Err(anyhow::anyhow!(
            "a message of {} bytes is over the limit of {MAX_MESSAGE}",
            text.len()
        ))
        .class(USAGE);
    }
    let offset = c
        .send_text(text)
        .await
        .or_say(|| format!("cannot send to {}", c.topic()))?;
    if print_offset {
        outln!("{offset}")?;
    }
    Ok(())
}

/// `hermit group list`.
fn list(d: &Device, output: Format) -> anyhow::Result<()> {
    let mut topics = d
        .conversations()
        .or_say(|| "cannot list the conversations".into())?;
    topics.sort();
    for topic in topics {
        let c = conversation(d, &topic)?;
        if output == Format::Jsonl {
            let authenticator = c
                .epoch_authenticator()
                .or_say(|| format!("cannot read the epoch authenticator of {topic}"))?;
            let members: Vec<_> = c
                .members()
                .iter()
                .map(|m| serde_json::json!({"account": m.account.to_hex(), "device": m.device.to_hex()}))
                .collect();
            outln!(
                "{}",
                serde_json::json!({
                    "topic": topic,
                    "epoch": c.epoch(),
                    "authenticator": super::events::hex(&authenticator),
                    "members": members,
                    "removed": c.is_removed(),
                })
            )?;
            continue;
        }
        let mut accounts: Vec<String> = c.members().iter().map(|m| m.account.to_hex()).collect();
        accounts.sort();
        accounts.dedup();
        outln!(
            "{topic}\t{}\t{}{}",
            c.epoch(),
            accounts.join(","),
            if c.is_removed() { "\tremoved" } else { "" }
        )?;
    }
    Ok(())
}
