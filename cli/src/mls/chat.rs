//! `hermit chat --to PEER`: the conversation of this account and one other.
//!
//! It accepts waiting invitations first, so two people who both run `hermit
//! chat --to` the other end up in one conversation when one of them
//! started it; then it takes the conversation whose members are exactly
//! the two accounts (the first by topic, if several), or starts one and
//! invites the peer. Then each line of stdin is a message (a line REPL on
//! a terminal, where an empty line sends nothing), and incoming messages
//! are printed as `hermit group read` prints them, acknowledged once
//! printed (docs/MLS.md §10.2). On a pipe, it ends at the end of the input
//! after printing what has arrived by then.

use std::collections::BTreeSet;
use std::io::IsTerminal as _;
use std::time::Duration;

use hermit_client::crypto::Fingerprint;
use hermit_client::mls::{Conversation, Device};
use tokio::sync::mpsc;

use super::device::{
    ConversationResult as _, DeviceArgs, conversation, invite_error, parse_fingerprint,
};
use super::events::{Format, Printer, print_refused};
use super::group::send_one;
use crate::exit::{ExitClass, USAGE};

/// How long each wait for incoming messages lasts between lines typed.
const TICK: Duration = Duration::from_millis(250);

/// `hermit chat`
#[derive(Debug, clap::Args)]
pub struct ChatArgs {
    /// The other account: its public key file, key file or fingerprint.
    #[arg(long, value_name = "PEER")]
    to: String,
    /// How incoming messages are printed (as `hermit group read`).
    #[arg(long, value_enum, default_value = "text")]
    output: Format,
    #[command(flatten)]
    device: DeviceArgs,
}

/// Run `hermit chat`.
pub fn run(args: ChatArgs) -> anyhow::Result<()> {
    let peer = parse_fingerprint(&args.to).class(USAGE)?;
    args.device.run(async |d| {
        if d.account().fingerprint() == &peer {
            return Err(anyhow::anyhow!(
                "--to names this device's own account: chat with another account"
            ))
            .class(USAGE);
        }
        // A key change of the peer blocks before anything is sent (one
        // read of its `dir.` topic); then the other members' (exit 6).
        d.refresh_contacts_among(&[peer])
            .await
            .or_say(|| "cannot check the contact".into())?;
        d.check_key_changes([&peer])
            .or_say(|| format!("cannot chat with {}", peer.to_hex()))?;
        let mut c = find_or_start(&d, &peer, args.output).await?;
        let others: Vec<Fingerprint> = c
            .members()
            .iter()
            .map(|m| m.account)
            .filter(|a| *a != peer)
            .collect();
        d.refresh_contacts_among(&others)
            .await
            .or_say(|| "cannot check the contacts in this conversation".into())?;
        let printer = Printer {
            format: args.output,
            topic: c.topic().to_owned(),
            after: None,
        };
        let interactive = std::io::stdin().is_terminal();
        if interactive {
            eprintln!(
                "chatting with {} in {} (Ctrl-D or Ctrl-C to stop)",
                peer.to_hex(),
                c.topic()
            );
        }
        talk(&mut c, &printer, interactive).await
    })
}

/// The conversation of exactly this account and `peer`: joined from a
/// waiting invitation, already had, or new (then the peer is invited).
/// Invitations refused by the device-list check are reported as `format`
/// says.
async fn find_or_start(
    d: &Device,
    peer: &Fingerprint,
    format: Format,
) -> anyhow::Result<Conversation> {
    let welcomes = d
        .accept_welcomes_reporting()
        .await
        .or_say(|| "cannot accept invitations".into())?;
    print_refused(format, &welcomes.refused)?;
    let me = *d.account().fingerprint();
    let wanted: BTreeSet<Fingerprint> = [me, *peer].into();
    let mut topics = d
        .conversations()
        .or_say(|| "cannot list the conversations".into())?;
    topics.sort();
    for topic in topics {
        let mut c = conversation(d, &topic)?;
        let accounts: BTreeSet<Fingerprint> = c.members().iter().map(|m| m.account).collect();
        if c.is_removed() || accounts != wanted {
            continue;
        }
        // A device the peer added since: invited too (nothing claimed
        // when every listed device is in already).
        if let Err(e) = c.invite(peer).await {
            errln!("warning: cannot add the peer's new devices: {e}");
        }
        return Ok(c);
    }
    // Before making a conversation: can the peer be invited at all?
    d.device_list(peer)
        .await
        .map_err(|e| invite_error(e, peer))?;
    let mut c = d
        .create_conversation()
        .await
        .or_say(|| "cannot create a conversation".into())?;
    let topic = c.topic().to_owned();
    c.invite(peer).await.map_err(|e| {
        invite_error(e, peer).context(format!(
            "the conversation {topic} was made without them (`hermit group invite` it later)"
        ))
    })?;
    Ok(c)
}

/// Lines of stdin, read on a thread of their own (a blocking read of a
/// terminal must not hold the runtime's shutdown); the channel closes at
/// the end of the input.
fn stdin_lines() -> mpsc::Receiver<std::io::Result<String>> {
    let (tx, rx) = mpsc::channel(64);
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            if tx.blocking_send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Sends what is typed, prints what arrives, until the input ends or Ctrl-C.
async fn talk(c: &mut Conversation, printer: &Printer, interactive: bool) -> anyhow::Result<()> {
    use tokio::sync::mpsc::error::TryRecvError;
    c.resend_outbox()
        .await
        .or_say(|| format!("cannot catch up with {}", c.topic()))?;
    let mut input = stdin_lines();
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    let mut input_open = true;
    loop {
        while input_open {
            match input.try_recv() {
                Ok(line) => {
                    let line = line.map_err(anyhow::Error::from)?;
                    if !(interactive && line.trim().is_empty()) {
                        send_one(c, &line, false).await?;
                    }
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => input_open = false,
            }
        }
        let wait = if input_open { TICK } else { Duration::ZERO };
        let before = c.next_offset();
        let events = tokio::select! {
            r = c.receive(wait) => r.or_say(|| format!("cannot read {}", printer.topic))?,
            _ = &mut ctrl_c => return Ok(()),
        };
        let stop = printer.print(&events)?;
        if !events.is_empty() {
            super::events::sync_stdout_file()?;
        }
        c.ack()
            .or_say(|| "cannot acknowledge what was printed".into())?;
        if let Some(stop) = stop {
            return stop.into_result(&printer.topic);
        }
        // The input is over and everything that had arrived is printed.
        if !input_open && events.is_empty() && c.next_offset() == before {
            return Ok(());
        }
    }
}
