//! `hermit compat encrypt|decrypt`: the browser article's `ChatCrypto`
//! messages, `{"iv": B64, "data": B64}` under `K_pair = SHA-256(ECDH x)`,
//! so a developer can check by hand what browser code sends and reads.

use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use hermit_client::crypto::{ChatCrypto, CompatError, CompatMessage};

use crate::exit::{AUTH, ExitClass, INTEGRITY, USAGE};
use crate::keys::{IdentityArgs, load_public_key};

/// `hermit compat …`
#[derive(Debug, clap::Subcommand)]
pub enum CompatCommand {
    /// Encrypt the input (one message; each line with --lines) and print one
    /// `{"iv":…,"data":…}` JSON line per message, as `JSON.stringify` writes it.
    Encrypt {
        #[command(flatten)]
        io: CompatArgs,
    },
    /// Decrypt `{"iv":…,"data":…}` messages, one JSON object per line (or
    /// --iv/--data), and write their plaintexts to stdout. Exit 4 when one
    /// does not authenticate.
    Decrypt {
        #[command(flatten)]
        io: CompatArgs,
        /// The message's base64 IV (instead of JSON input; needs --data).
        #[arg(long, requires = "data", value_name = "B64")]
        iv: Option<String>,
        /// The message's base64 `ciphertext ‖ tag` (needs --iv).
        #[arg(long, requires = "iv", value_name = "B64")]
        data: Option<String>,
    },
}

/// Flags of both `compat` commands.
#[derive(Debug, clap::Args)]
pub struct CompatArgs {
    #[command(flatten)]
    identity: IdentityArgs,
    /// The other side's public key: base64 SPKI (Web Crypto's
    /// `exportKey('spki')`), a `.pub` file or a key file.
    #[arg(long, value_name = "SPKI_B64|FILE")]
    peer: String,
    /// Each input line is one message (encrypt); each plaintext is followed
    /// by a newline (decrypt).
    #[arg(long)]
    lines: bool,
    /// Input file [default: stdin].
    #[arg(value_name = "FILE|-")]
    input: Option<PathBuf>,
}

impl CompatArgs {
    fn crypto(&self) -> anyhow::Result<ChatCrypto> {
        let peer = load_public_key(&self.peer)?;
        let own = self.identity.unlock()?;
        ChatCrypto::new(&own, &peer).context("cannot set up ChatCrypto")
    }

    fn read_input(&self) -> anyhow::Result<Vec<u8>> {
        let mut buf = Vec::new();
        match &self.input {
            Some(p) if p.as_os_str() != "-" => {
                buf = std::fs::read(p)
                    .with_context(|| format!("cannot read {}", p.display()))
                    .class(USAGE)?;
            }
            _ => {
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut buf)
                    .context("cannot read stdin")?;
            }
        }
        Ok(buf)
    }
}

fn class(e: &CompatError) -> u8 {
    match e {
        CompatError::Decrypt => AUTH,
        _ => INTEGRITY,
    }
}

/// Run a `hermit compat` command.
pub fn run(cmd: CompatCommand) -> anyhow::Result<()> {
    // Plaintexts are the peer's bytes: unmodified on a pipe, escaped on a
    // terminal (out::payload).
    let terminal = crate::out::stdout_is_terminal();
    let mut out = std::io::stdout().lock();
    match cmd {
        CompatCommand::Encrypt { io } => {
            let mut crypto = io.crypto()?;
            let input = io.read_input()?;
            let mut emit = |msg: &[u8]| -> anyhow::Result<()> {
                let m = crypto.encrypt(msg).context("cannot encrypt")?;
                crate::out::checked(writeln!(out, "{}", m.to_json()))
            };
            if io.lines {
                for line in lines(&input) {
                    emit(line)?;
                }
            } else {
                emit(&input)?;
            }
        }
        CompatCommand::Decrypt { io, iv, data } => {
            let crypto = io.crypto()?;
            let messages: Vec<(usize, CompatMessage)> = match (iv, data) {
                (Some(iv), Some(data)) => vec![(1, CompatMessage { iv, data })],
                _ => {
                    let input = io.read_input()?;
                    let mut v = Vec::new();
                    for (i, line) in input.split(|&b| b == b'\n').enumerate() {
                        if line.iter().all(u8::is_ascii_whitespace) {
                            continue;
                        }
                        let msg = CompatMessage::from_json(line.trim_ascii())
                            .with_context(|| format!("line {}", i + 1))
                            .class(INTEGRITY)?;
                        v.push((i + 1, msg));
                    }
                    v
                }
            };
            for (line, msg) in messages {
                let plain = crypto.decrypt(&msg.data, &msg.iv).map_err(|e| {
                    let code = class(&e);
                    Err::<(), _>(e)
                        .class(code)
                        .with_context(|| format!("cannot decrypt the message on line {line}"))
                        .unwrap_err()
                })?;
                let mut shown = Vec::with_capacity(plain.len() + 1);
                crate::out::payload(&plain, terminal, &mut shown);
                if io.lines {
                    shown.push(b'\n');
                }
                crate::out::checked(out.write_all(&shown))?;
            }
        }
    }
    crate::out::checked(out.flush())
}

/// Lines without their `\n` (or `\r\n`); no empty last line for a final newline.
fn lines(input: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = input.strip_suffix(b"\n").unwrap_or(input);
    let empty = input.is_empty();
    body.split(|&b| b == b'\n')
        .filter(move |_| !empty)
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_split_like_a_text_file() {
        fn l(s: &[u8]) -> Vec<&[u8]> {
            super::lines(s).collect()
        }
        assert_eq!(l(b"a\nb\n"), [b"a" as &[u8], b"b"]);
        assert_eq!(l(b"a\r\n\nb"), [b"a" as &[u8], b"", b"b"]);
        assert!(l(b"").is_empty());
        assert_eq!(l(b"\n"), [b"" as &[u8]]);
    }
}
