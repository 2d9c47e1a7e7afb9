//! How a conversation's events are shown, and the read loop: take the
//! events the SDK delivered, print them, and only then acknowledge them.
//!
//! # Crash safety (docs/MLS.md §10.2)
//! The SDK writes the MLS state, the next offset and the events it
//! delivered in one atomic write of the group's file, and keeps those
//! events until they are acknowledged (the next write). This loop prints a
//! batch of events — each line with one `write(2)` — syncs stdout when it
//! is a regular file, and then acknowledges the batch. So a process killed at any moment loses nothing: events
//! processed and not yet printed are still in the file and printed by the
//! next start. What a kill can cause is a repeat: between the `write(2)`
//! of a line and the rename of the group file that acknowledges its
//! batch, the line is out but still unacknowledged, and the next start
//! prints it (and the rest of its batch) again, with the same offset.
//! `--after OFFSET` closes that window: events at or below OFFSET are
//! acknowledged without being printed, so a caller that passes the last
//! offset its output holds gets every event exactly once.

use std::time::Duration;

use anyhow::Context as _;
use hermit_client::mls::{Conversation, Event, WelcomeRefused};

use super::device::ConversationResult as _;
use crate::exit::{ExitClass, INTEGRITY};

/// How long one long poll of `--follow` waits for a record.
pub const POLL: Duration = Duration::from_secs(2);

/// `text` or `jsonl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per message: offset, sender's account fingerprint and the
    /// text, tab-separated, the text escaped; other events on stderr.
    Text,
    /// One JSON object per event on stdout.
    Jsonl,
}

/// Why reading stops before the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// This device was removed from the group.
    Removed,
    /// The conversation cannot go on (a suspected fork, deleted records):
    /// why.
    Stuck(String),
}

impl Stop {
    /// The error a stuck conversation ends the command with (exit 5).
    pub fn into_result(self, topic: &str) -> anyhow::Result<()> {
        match self {
            Stop::Removed => Ok(()),
            Stop::Stuck(why) => Err(anyhow::anyhow!(
                "{why}: this device stopped reading {topic}; another member must re-add it \
                 (`hermit group add {topic} DEVICE_PUBKEY` with this device's .pub file)"
            ))
            .class(INTEGRITY),
        }
    }
}

/// Prints events of one conversation.
#[derive(Debug, Clone)]
pub struct Printer {
    /// How.
    pub format: Format,
    /// The group topic (in JSON lines).
    pub topic: String,
    /// Events at or below this offset are not printed (`--after`).
    pub after: Option<u64>,
}

impl Printer {
    /// Prints `events` in order: messages (and in `jsonl` every event) on
    /// stdout, one `write(2)` per line; in `text` the other events on
    /// stderr. Returns what stops the reading, if anything; an error only
    /// when stdout fails (then nothing may be acknowledged).
    pub fn print(&self, events: &[Event]) -> anyhow::Result<Option<Stop>> {
        let mut stop = None;
        for e in events {
            match e {
                Event::Removed { .. } => stop = Some(Stop::Removed),
                Event::ForkSuspected { offset, epoch } => {
                    stop = Some(Stop::Stuck(format!(
                        "the record at offset {offset} claims epoch {epoch} and does not open: \
                         the broker may be showing members different logs (a fork)"
                    )));
                }
                Event::CatchUpImpossible { next, log_start } => {
                    stop = Some(Stop::Stuck(format!(
                        "the records from offset {next} this device needs were deleted \
                         (the topic now starts at {log_start})"
                    )));
                }
                _ => {}
            }
            if e.offset()
                .is_some_and(|o| self.after.is_some_and(|a| o <= a))
            {
                continue;
            }
            match self.format {
                Format::Jsonl => {
                    let line = format!("{}\n", crate::out::json_line(&self.json(e)));
                    crate::out::write(line.as_bytes())?;
                }
                Format::Text => {
                    if let Event::Message {
                        offset,
                        sender,
                        text,
                        ..
                    } = e
                    {
                        let line = format!(
                            "{offset}\t{}\t{}\n",
                            sender.account.to_hex(),
                            crate::out::escaped(text)
                        );
                        crate::out::write(line.as_bytes())?;
                    } else if let Some(note) = note(e) {
                        errln!("{note}");
                    }
                }
            }
        }
        Ok(stop)
    }

    fn json(&self, e: &Event) -> serde_json::Value {
        use serde_json::json;
        let member = |m: &hermit_client::mls::MemberId| json!({"account": m.account.to_hex(), "device": m.device.to_hex()});
        let mut v = match e {
            Event::Message {
                offset,
                sender,
                sent_at,
                text,
            } => json!({
                "event": "message",
                "offset": offset,
                "sender": sender.account.to_hex(),
                "sender_device": sender.device.to_hex(),
                "sent_at": sent_at,
                "text": text,
            }),
            Event::MemberAdded { offset, member: m } => {
                json!({"event": "member_added", "offset": offset, "member": member(m)})
            }
            Event::MemberRemoved { offset, member: m } => {
                json!({"event": "member_removed", "offset": offset, "member": member(m)})
            }
            Event::EpochChanged {
                offset,
                epoch,
                authenticator,
            } => json!({
                "event": "epoch_changed",
                "offset": offset,
                "epoch": epoch,
                "authenticator": hex(authenticator),
            }),
            Event::CommitLost { epoch } => json!({"event": "commit_lost", "epoch": epoch}),
            Event::Removed { offset } => json!({"event": "removed", "offset": offset}),
            Event::RecordRefused { offset, reason } => {
                json!({"event": "record_refused", "offset": offset, "reason": reason})
            }
            Event::ForkSuspected { offset, epoch } => {
                json!({"event": "fork_suspected", "offset": offset, "epoch": epoch})
            }
            Event::CatchUpImpossible { next, log_start } => {
                json!({"event": "catch_up_impossible", "next": next, "log_start": log_start})
            }
            Event::SplitView {
                offset,
                account,
                member: m,
                version,
                seen,
            } => json!({
                "event": "split_view",
                "tier": "error",
                "offset": offset,
                "account": account.to_hex(),
                "member": member(m),
                "version": version,
                "seen": seen,
            }),
            Event::LeafRefused {
                offset,
                account,
                device,
                reason,
            } => json!({
                "event": "leaf_refused",
                "offset": offset,
                "account": account.to_hex(),
                "device": device.to_hex(),
                "reason": reason,
            }),
            Event::DeviceNotListed {
                offset,
                account,
                device,
                list_version,
            } => json!({
                "event": "device_not_listed",
                "offset": offset,
                "account": account.to_hex(),
                "device": device.to_hex(),
                "list_version": list_version,
            }),
            Event::DeviceRemoved {
                offset,
                account,
                device,
                by_device,
                at,
                list_version,
            } => json!({
                "event": "device_removed",
                "offset": offset,
                "account": account.to_hex(),
                "device": device.to_hex(),
                "by_device": by_device.to_hex(),
                "at": at,
                "list_version": list_version,
            }),
            _ => json!({"event": "other", "offset": e.offset()}),
        };
        v["topic"] = self.topic.clone().into();
        v
    }
}

/// Reports the Welcomes the device-list check refused (docs/MLS.md §4.3):
/// in `text`, an error line each on stderr; in `jsonl`, a
/// `welcome_refused` record each on stdout.
pub fn print_refused(format: Format, refused: &[WelcomeRefused]) -> anyhow::Result<()> {
    for r in refused {
        match format {
            Format::Jsonl => {
                let v = serde_json::json!({
                    "event": "welcome_refused",
                    "offset": r.offset,
                    "account": r.account.to_hex(),
                    "device": r.device.to_hex(),
                    "reason": r.reason,
                });
                crate::out::write(format!("{}\n", crate::out::json_line(&v)).as_bytes())?;
            }
            Format::Text => errln!(
                "error: the invitation at offset {} of this device's welcome topic was refused \
                 (device {} of account {}): {}",
                r.offset,
                r.device.to_hex(),
                r.account.to_hex(),
                crate::out::escaped(&r.reason)
            ),
        }
    }
    Ok(())
}

/// A line for stderr about an event that is not a message (text output).
fn note(e: &Event) -> Option<String> {
    Some(match e {
        Event::MemberAdded { offset, member } => format!(
            "[{offset}] joined: device {} of account {}",
            member.device.to_hex(),
            member.account.to_hex()
        ),
        Event::MemberRemoved { offset, member } => format!(
            "[{offset}] left: device {} of account {}",
            member.device.to_hex(),
            member.account.to_hex()
        ),
        Event::EpochChanged {
            offset,
            epoch,
            authenticator,
        } => format!(
            "[{offset}] epoch {epoch}, authenticator {}",
            hex(authenticator)
        ),
        Event::Removed { offset } => {
            format!("[{offset}] this device was removed from the conversation")
        }
        Event::RecordRefused { offset, reason } => {
            format!("[{offset}] warning: a record was skipped: {reason}")
        }
        Event::SplitView {
            offset,
            account,
            member,
            version,
            seen,
        } => {
            let what = if seen < version {
                format!(
                    "holds version {version}, newer than the version {seen} the broker serves this device (withheld)"
                )
            } else {
                format!("holds another list with the same version {version}")
            };
            format!(
                "[{offset}] error: split view of account {}'s device list: device {} of account {} {what}",
                account.to_hex(),
                member.device.to_hex(),
                member.account.to_hex()
            )
        }
        Event::LeafRefused {
            offset,
            account,
            device,
            reason,
        } => format!(
            "[{offset}] error: a change adding device {} of account {} was refused: {reason}",
            device.to_hex(),
            account.to_hex()
        ),
        Event::DeviceNotListed {
            offset,
            account,
            device,
            list_version,
        } => format!(
            "[{offset}] warning: device {} of account {} is not on its device list (version \
             {list_version}): dropped, to be removed by its account",
            device.to_hex(),
            account.to_hex()
        ),
        Event::DeviceRemoved {
            offset,
            account,
            device,
            by_device,
            at,
            list_version,
        } => format!(
            "[{offset}] removed: device {} of account {}, dropped from its device list (version \
             {list_version}), removed by its device {} at {}",
            device.to_hex(),
            account.to_hex(),
            by_device.to_hex(),
            super::devices::rfc3339(*at)
        ),
        // Retried by the SDK; the others end the reading with an error.
        _ => return None,
    })
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// When stdout is a regular file, syncs it to disk, so that what was
/// printed survives a power loss once it is acknowledged (a pipe or a
/// terminal cannot be synced: their reader decides).
pub fn sync_stdout_file() -> anyhow::Result<()> {
    use std::os::fd::AsFd as _;
    let stdout = std::io::stdout();
    let fd = stdout.as_fd();
    let regular = rustix::fs::fstat(fd).is_ok_and(|st| {
        rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
    });
    if regular {
        rustix::fs::fsync(fd).context("cannot sync stdout (a file) before acknowledging")?;
    }
    Ok(())
}

/// Reads `c` from its next unprinted event: prints each batch of events,
/// then acknowledges it. Without `follow`, stops once the topic's end is
/// processed and printed; with it, long-polls for more until Ctrl-C, the
/// end of stdout, or this device's removal.
pub async fn read(c: &mut Conversation, printer: &Printer, follow: bool) -> anyhow::Result<()> {
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        let before = c.next_offset();
        let wait = if follow { POLL } else { Duration::ZERO };
        // Cancelling on Ctrl-C is safe: every write of the state is whole.
        let events = tokio::select! {
            r = c.receive(wait) => r.or_say(|| format!("cannot read {}", printer.topic))?,
            _ = &mut ctrl_c => return Ok(()),
        };
        // Printed first: a failure here (stdout closed) leaves them unacknowledged.
        let stop = printer.print(&events)?;
        if !events.is_empty() {
            sync_stdout_file()?;
        }
        c.ack()
            .or_say(|| "cannot acknowledge what was printed".into())?;
        if let Some(stop) = stop {
            return stop.into_result(&printer.topic);
        }
        if !follow && events.is_empty() && c.next_offset() == before {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermit_client::crypto::Fingerprint;
    use hermit_client::mls::MemberId;

    #[test]
    fn json_lines_name_the_event_topic_and_sender() {
        let p = Printer {
            format: Format::Jsonl,
            topic: "mls.ab".into(),
            after: None,
        };
        let sender = MemberId {
            account: Fingerprint::from_bytes([1; 32]),
            device: Fingerprint::from_bytes([2; 32]),
        };
        let v = p.json(&Event::Message {
            offset: 7,
            sender,
            sent_at: 9,
            text: "hi\u{1b}".into(),
        });
        assert_eq!(v["event"], "message");
        assert_eq!(v["offset"], 7);
        assert_eq!(v["sender"], "01".repeat(32));
        assert_eq!(v["sender_device"], "02".repeat(32));
        assert_eq!(v["text"], "hi\u{1b}");
        assert_eq!(v["topic"], "mls.ab");
    }
}
