//! `hermit contacts add|list|show|verify|confirm|invite` (issue 37,
//! docs/MLS.md §4.5, §4.6): the accounts this device knows by name, their
//! keys taken from their signed device lists (trust on first use), whether
//! the user verified them by comparing safety numbers, and account-key
//! changes to confirm. `list`, `show` and `verify` read each contact's
//! `dir.` topic once (its list and its newest rotation statement).

use anyhow::Context as _;
use hermit_client::crypto::Fingerprint;
use hermit_client::mls::{Contact, ContactStatus, ConversationError, Device};
use hermit_client::trust::safety_number;
use serde_json::json;

use super::device::{ConversationResult as _, DeviceArgs, parse_fingerprint};
use super::devices::rfc3339;
use super::events::Format;
use crate::exit::{ExitClass, INTEGRITY, KEY_CHANGED, USAGE};

/// `hermit contacts …`
#[derive(Debug, clap::Subcommand)]
pub enum ContactsCommand {
    /// Add an account as a contact (or rename it): WHO is its fingerprint,
    /// `.pub` file, key file, base64 SPKI, or an invite (`hermit contacts
    /// invite` on their side; a chat-page link works too). Its key is
    /// taken from its signed device list, which must exist.
    Add {
        /// Who: fingerprint, key, or invite.
        who: String,
        /// The name to give it here (default: the invite's name hint).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// List the contacts: fingerprint, name, status (`key-changed`,
    /// `refused`, `stale`, `verified` or `unverified`), when added. Reads
    /// each contact's device list and rotation statement.
    List {
        /// `text` (tab-separated) or `jsonl`.
        #[arg(long, value_enum, default_value = "text")]
        output: Format,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Show one contact (by name or fingerprint prefix): its devices from
    /// its current device list, and the safety number with this account.
    Show {
        /// Name or fingerprint (at least 8 hex digits).
        who: String,
        /// `text` or `jsonl`.
        #[arg(long, value_enum, default_value = "text")]
        output: Format,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Print the safety number of this account and a contact's (60 digits,
    /// the same on both sides): compare it with theirs in person or over a
    /// channel you trust, then mark the contact verified with `--mark`.
    Verify {
        /// Name or fingerprint (at least 8 hex digits).
        who: String,
        /// The numbers matched: mark the contact verified.
        #[arg(long, conflicts_with = "unmark")]
        mark: bool,
        /// Mark the contact not verified.
        #[arg(long)]
        unmark: bool,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Confirm a contact's account-key change (after `hermit contacts
    /// show` warned of it): the new key is pinned, the name kept, and the
    /// contact is unverified until you compare the new safety number
    /// (printed, after the new fingerprint).
    Confirm {
        /// Name or fingerprint (at least 8 hex digits) of the old key.
        who: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// Print this account's invite: its fingerprint and a name hint, for
    /// `hermit contacts add` or the chat page on the other side.
    Invite {
        /// The name hint to put in it (shown to the other side as
        /// unverified).
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        device: DeviceArgs,
    },
}

/// An invite's text: `hermit-contact:<account fp hex>#<name hint>`.
fn invite_text(account: &Fingerprint, hint: Option<&str>) -> String {
    let hint: String = hint
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(64)
        .collect();
    format!(
        "hermit-contact:{}#{}",
        account.to_hex(),
        percent_encode(&hint)
    )
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn percent_decode(s: &str) -> Option<String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(s.get(i + 1..i + 3)?, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// An invite (`hermit-contact:<fp>#<hint>`, or a chat-page link whose
/// fragment holds `contact=<fp>` and `name=<hint>`): the account and the
/// name hint; `None` when `text` is not one.
fn parse_invite(text: &str) -> Option<(Fingerprint, Option<String>)> {
    let text = text.trim();
    let (fp, hint) = if let Some(rest) = text.strip_prefix("hermit-contact:") {
        let (fp, hint) = rest.split_once('#').unwrap_or((rest, ""));
        (fp.to_owned(), hint.to_owned())
    } else {
        let fragment = text.split_once('#')?.1;
        let mut fp = None;
        let mut hint = String::new();
        for part in fragment.split('&') {
            match part.split_once('=') {
                Some(("contact", v)) => fp = Some(v.to_owned()),
                Some(("name", v)) => hint = v.to_owned(),
                _ => {}
            }
        }
        (fp?, hint)
    };
    let fp = parse_fingerprint(&fp).ok()?;
    let hint = percent_decode(&hint).filter(|h| !h.trim().is_empty());
    Some((fp, hint))
}

/// The contact `who` names, or an error naming what to do.
fn find(d: &Device, who: &str) -> anyhow::Result<Contact> {
    d.contact(who)
        .or_say(|| "cannot read the contacts".into())?
        .with_context(|| format!("no contact {who:?}: `hermit contacts list` shows them"))
        .class(USAGE)
}

fn contact_json(c: &Contact) -> serde_json::Value {
    json!({
        "account": c.account.fingerprint().to_hex(),
        "name": c.name,
        "verified": c.verified(),
        "verified_at": c.verified_at,
        "added_at": c.added_at,
        "key_changed": c.pending.as_ref().map(|p| json!({
            "new": p.new.fingerprint().to_hex(),
            "issued_at": p.issued_at,
            "seen_at": p.seen_at,
        })),
    })
}

/// A contact's status word: `key-changed` (blocking), `stale` (its list
/// was signed over 30 days ago), `verified`, `unverified`.
fn status_word(s: &ContactStatus) -> &'static str {
    if s.contact.key_changed() {
        "key-changed"
    } else if s.stale {
        "stale"
    } else if s.contact.verified() {
        "verified"
    } else {
        "unverified"
    }
}

/// Refreshes the contact `c` (one read of its `dir.` topic); a refused
/// list or rotation statement is `Ok(Err(..))`, to show, other errors end
/// the command.
async fn refresh(
    d: &Device,
    c: &Contact,
) -> anyhow::Result<Result<ContactStatus, ConversationError>> {
    match d.refresh_contact(c.account.fingerprint()).await {
        Ok(s) => Ok(Ok(s)),
        Err(e @ (ConversationError::Rotation(_) | ConversationError::DeviceList(_))) => Ok(Err(e)),
        Err(e) => Err(super::device::conversation_error(e)
            .context(format!("cannot check the contact {}", c.name))),
    }
}

/// The blocking warning of a key change, on stderr, and the error (exit 6).
fn key_changed(c: &Contact) -> anyhow::Result<()> {
    let Some(p) = &c.pending else {
        return Ok(());
    };
    errln!(
        "warning: the account key of {} changed to {} (signed {}, seen {}): nothing is sent \
         to {} until you confirm it with `hermit contacts confirm {}`, then compare the new \
         safety number",
        c.name,
        p.new.fingerprint().to_hex(),
        rfc3339(p.issued_at),
        rfc3339(p.seen_at),
        c.name,
        c.name
    );
    Err(anyhow::anyhow!(
        "the account key of {} changed and is not confirmed",
        c.name
    ))
    .class(KEY_CHANGED)
}

/// The stale-list warning, on stderr.
fn warn_stale(s: &ContactStatus) {
    if s.stale {
        errln!(
            "warning: the device list of {} was signed {} (over 30 days ago): the broker may \
             be withholding a newer one",
            s.contact.name,
            rfc3339(s.list.issued_at())
        );
    }
}

/// Run a `hermit contacts` command.
pub fn run(cmd: ContactsCommand) -> anyhow::Result<()> {
    match cmd {
        ContactsCommand::Add { who, name, device } => device.run(async |d| {
            let (account, hint) = match parse_invite(&who) {
                Some(invite) => invite,
                None => (parse_fingerprint(&who)?, None),
            };
            let name = name
                .or(hint.clone())
                .unwrap_or_else(|| account.to_hex()[..16].to_owned());
            let c = d
                .add_contact(&account, &name)
                .await
                .or_say(|| format!("cannot add {} as a contact", account.to_hex()))?;
            outln!("{}\t{}", c.account.fingerprint().to_hex(), c.name)?;
            if let Some(h) = hint {
                eprintln!("the invite's name hint {h:?} is what the invite said, not verified");
            }
            eprintln!(
                "added {} ({}); compare safety numbers with `hermit contacts verify {}`",
                c.name,
                c.account.fingerprint().to_hex(),
                c.name
            );
            Ok(())
        }),
        ContactsCommand::List { output, device } => device.run(async |d| list(&d, output).await),
        ContactsCommand::Show {
            who,
            output,
            device,
        } => device.run(async |d| show(&d, &who, output).await),
        ContactsCommand::Verify {
            who,
            mark,
            unmark,
            device,
        } => device.run(async |d| {
            let c = find(&d, &who)?;
            let s = refresh(&d, &c)
                .await?
                .or_say(|| format!("the directory of {} is refused", c.name))?;
            key_changed(&s.contact)?;
            warn_stale(&s);
            outln!("{}", safety_number(d.account(), &c.account))?;
            if mark || unmark {
                let c = d
                    .set_verified(c.account.fingerprint(), mark)
                    .or_say(|| "cannot mark the contact".into())?;
                eprintln!(
                    "{} is now {}",
                    c.name,
                    if c.verified() {
                        "verified"
                    } else {
                        "not verified"
                    }
                );
            } else {
                eprintln!(
                    "compare these digits with {}'s (`hermit contacts verify` on their side, or \
                     their chat page); if they match, run again with --mark",
                    c.name
                );
            }
            Ok(())
        }),
        ContactsCommand::Confirm { who, device } => device.run(async |d| {
            let c = find(&d, &who)?;
            let confirmed = d
                .confirm_rotation(c.account.fingerprint())
                .await
                .or_say(|| format!("cannot confirm the key change of {}", c.name))?;
            outln!("{}", confirmed.account.fingerprint().to_hex())?;
            outln!("{}", safety_number(d.account(), &confirmed.account))?;
            eprintln!(
                "{} now has the account key {}; compare the new safety number above with \
                 theirs, then `hermit contacts verify {} --mark`",
                confirmed.name,
                confirmed.account.fingerprint().to_hex(),
                confirmed.name
            );
            Ok(())
        }),
        ContactsCommand::Invite { name, device } => device.run(async |d| {
            outln!(
                "{}",
                invite_text(d.account().fingerprint(), name.as_deref())
            )?;
            Ok(())
        }),
    }
}

/// `hermit contacts show`.
async fn show(d: &Device, who: &str, output: Format) -> anyhow::Result<()> {
    let c = find(d, who)?;
    let fp = *c.account.fingerprint();
    let status = refresh(d, &c)
        .await?
        .or_say(|| format!("the directory of {} is refused", c.name))?;
    let (c, list) = (&status.contact, &status.list);
    let number = safety_number(d.account(), &c.account);
    let devices: Vec<String> = list
        .devices()
        .iter()
        .filter_map(|l| hermit_client::crypto::PublicKey::from_sec1_bytes(&l.key).ok())
        .map(|k| k.fingerprint().to_hex())
        .collect();
    match output {
        Format::Jsonl => {
            let mut v = contact_json(c);
            v["devices"] = json!(devices);
            v["device_list_version"] = json!(list.version());
            v["safety_number"] = json!(number.digits());
            v["status"] = json!(status_word(&status));
            v["stale"] = json!(status.stale);
            v["device_list_issued_at"] = json!(list.issued_at());
            outln!("{v}")?;
        }
        Format::Text => {
            outln!("name\t{}", c.name)?;
            outln!("account\t{}", fp.to_hex())?;
            outln!("status\t{}", status_word(&status))?;
            if let Some(p) = &c.pending {
                outln!("key changed to\t{}", p.new.fingerprint().to_hex())?;
            }
            outln!("verified\t{}", if c.verified() { "yes" } else { "no" })?;
            outln!(
                "device list\tversion {}, signed {}{}",
                list.version(),
                rfc3339(list.issued_at()),
                if status.stale { " (stale)" } else { "" }
            )?;
            for dev in &devices {
                outln!("device\t{dev}")?;
            }
            outln!("safety number\t{number}")?;
        }
    }
    warn_stale(&status);
    key_changed(c)
}

/// `hermit contacts list`: each contact refreshed (one `dir.` read each);
/// a refused directory is shown as `refused` and makes the command exit 5
/// once all are listed.
async fn list(d: &Device, output: Format) -> anyhow::Result<()> {
    let mut refused = 0usize;
    for c in d.contacts().or_say(|| "cannot read the contacts".into())? {
        let (c, word, stale) = match refresh(d, &c).await? {
            Ok(s) => {
                warn_stale(&s);
                (s.contact.clone(), status_word(&s), s.stale)
            }
            Err(e) => {
                errln!("error: {}: {e}", c.name);
                refused += 1;
                (c, "refused", false)
            }
        };
        match output {
            Format::Jsonl => {
                let mut v = contact_json(&c);
                v["status"] = json!(word);
                v["stale"] = json!(stale);
                outln!("{v}")?;
            }
            Format::Text => outln!(
                "{}\t{}\t{word}\t{}",
                c.account.fingerprint().to_hex(),
                c.name,
                rfc3339(c.added_at)
            )?,
        }
    }
    if refused > 0 {
        return Err(anyhow::anyhow!(
            "{refused} contacts' device list or rotation statement was refused"
        ))
        .class(INTEGRITY);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invites_round_trip_as_text_and_as_a_page_link() {
        let fp = Fingerprint::from_bytes([0xab; 32]);
        let text = invite_text(&fp, Some("Bob Ø"));
        assert_eq!(parse_invite(&text), Some((fp, Some("Bob Ø".into()))));
        let link = format!(
            "https://chat.example/examples/chat/#contact={}&name=Bob%20%C3%98",
            fp.to_hex()
        );
        assert_eq!(parse_invite(&link), Some((fp, Some("Bob Ø".into()))));
        assert_eq!(
            parse_invite(&format!("hermit-contact:{}#", fp.to_hex())),
            Some((fp, None))
        );
        assert_eq!(parse_invite("hermit-contact:abcd#x"), None);
        assert_eq!(parse_invite("not an invite"), None);
    }
}
