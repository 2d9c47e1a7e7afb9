//! `hermit top`: a live view of a broker, read from its admin listener's
//! `/metrics` (Prometheus text format), refreshed every interval; or, with
//! `--once`, one plain-text snapshot on stdout.
//!
//! - `scrape`: one `GET /metrics` (timeouts, size cap, bearer token).
//! - `expo`: the text format, read into samples.
//! - `model`: samples by meaning, rates between scrapes, quantiles.
//! - `view`: the numbers as text, the snapshot, the screen's layout.

mod expo;
mod model;
mod scrape;
mod view;

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use zeroize::Zeroizing;

use crate::exit::{AUTH, CONNECTION, ExitClass, USAGE};
use model::{Snapshot, View};
use scrape::{HttpStatus, Target};
use view::{Focus, Screen};

/// `hermit top`
#[derive(Debug, clap::Args)]
pub struct TopArgs {
    /// The broker's admin listener (`admin_listen`): `host:port`.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9644")]
    admin: String,
    /// A file whose first line is the bearer token for `/metrics` (the
    /// broker's `admin_token_file`). Never given on the command line.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Milliseconds between scrapes; rates are over this interval.
    #[arg(long, value_name = "MS", default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(100..=3_600_000))]
    interval: u64,
    /// Print one plain-text snapshot to stdout and exit (no full screen):
    /// two scrapes, `--interval` apart, so that it has rates.
    #[arg(long)]
    once: bool,
}

/// Longest token file read.
const MAX_TOKEN_FILE: u64 = 64 << 10;

/// Run `hermit top`.
pub fn run(args: TopArgs) -> anyhow::Result<()> {
    let token = args.token_file.as_deref().map(read_token).transpose()?;
    let target = Target::new(&args.admin, token).class(USAGE)?;
    let interval = Duration::from_millis(args.interval);
    if args.once {
        return once(&target, interval);
    }
    if !std::io::stdout().is_terminal() {
        return Err(anyhow::anyhow!(
            "stdout is not a terminal: use --once for a plain-text snapshot"
        ))
        .class(USAGE);
    }
    tui(target, interval)
}

/// The token: the file's first line, without surrounding whitespace. It
/// goes into a header, so only visible ASCII (what a bearer token is
/// made of) is accepted: a line break in it would add headers.
fn read_token(path: &Path) -> anyhow::Result<Zeroizing<String>> {
    let mut raw = Zeroizing::new(String::new());
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_TOKEN_FILE).read_to_string(&mut raw))
        .with_context(|| format!("cannot read the admin token from {}", path.display()))
        .class(USAGE)?;
    let token = raw.lines().next().unwrap_or("").trim();
    if token.is_empty() {
        return Err(anyhow::anyhow!("{} holds no token", path.display())).class(USAGE);
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(anyhow::anyhow!(
            "the token in {} has characters a bearer token cannot have",
            path.display()
        ))
        .class(USAGE);
    }
    Ok(Zeroizing::new(token.to_owned()))
}

/// A scrape, parsed, with when it was taken.
fn take(target: &Target) -> anyhow::Result<(Instant, Snapshot)> {
    let text = target.scrape().map_err(classify)?;
    let at = Instant::now();
    let parsed = expo::parse(&text);
    Ok((at, Snapshot::from_samples(&parsed.samples, parsed.skipped)))
}

/// Exit classes: a refused token 4, anything else about reaching or
/// hearing the broker 3.
fn classify(e: anyhow::Error) -> anyhow::Error {
    let code = match e.downcast_ref::<HttpStatus>() {
        Some(s) if s.code == 401 || s.code == 403 => AUTH,
        _ => CONNECTION,
    };
    Err::<(), _>(e).class(code).unwrap_err()
}

fn once(target: &Target, interval: Duration) -> anyhow::Result<()> {
    let (t0, first) = take(target)?;
    std::thread::sleep(interval);
    let (t1, second) = take(target)?;
    let secs = t1.duration_since(t0).as_secs_f64();
    let view = View::new(second, Some((&first, secs)));
    out!("{}", view::plain(&target.addr, &view))
}

/// Restores the terminal when the view ends, by return or by error
/// (`ratatui::init` also restores it on a panic).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

fn tui(target: Target, interval: Duration) -> anyhow::Result<()> {
    // Scrapes run on their own thread so that a slow broker (up to the
    // scrape timeout) never delays a key press or a redraw. It stops when
    // the receiver is gone (the send fails).
    let (tx, rx) = mpsc::channel();
    let addr = target.addr.clone();
    std::thread::Builder::new()
        .name("hermit-top-scrape".into())
        .spawn(move || {
            loop {
                let started = Instant::now();
                let result = take(&target).map_err(|e| format!("{e:#}"));
                if tx.send(result).is_err() {
                    return;
                }
                std::thread::sleep(interval.saturating_sub(started.elapsed()));
            }
        })
        .context("cannot start the scrape thread")?;

    // First, so that an init failing half-way (raw mode on, no alternate
    // screen) is undone too; restoring what was not set up is harmless.
    let _restore = Restore;
    let mut terminal = ratatui::try_init().context("cannot set up the terminal")?;
    let mut screen = Screen::default();
    let mut last: Option<(Instant, Snapshot)> = None;
    let mut view: Option<View> = None;
    let mut dirty = true;
    loop {
        if dirty {
            terminal
                .draw(|f| view::draw(f, &addr, view.as_ref(), &mut screen))
                .context("cannot draw")?;
            dirty = false;
        }
        // Keys are answered at once; a new scrape shows within this.
        if event::poll(Duration::from_millis(100)).context("cannot read the terminal")? {
            dirty = true;
            match event::read().context("cannot read the terminal")? {
                Event::Key(k) if k.kind != KeyEventKind::Release => {
                    let page = screen.page.max(1) as isize;
                    match k.code {
                        KeyCode::Char('q') | KeyCode::Esc => return Ok(()),
                        KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                            return Ok(());
                        }
                        KeyCode::Down | KeyCode::Char('j') => screen.scroll(1),
                        KeyCode::Up | KeyCode::Char('k') => screen.scroll(-1),
                        KeyCode::PageDown | KeyCode::Char(' ') => screen.scroll(page),
                        KeyCode::PageUp => screen.scroll(-page),
                        KeyCode::Home | KeyCode::Char('g') => screen.jump(false),
                        KeyCode::End | KeyCode::Char('G') => screen.jump(true),
                        KeyCode::Tab | KeyCode::BackTab => {
                            screen.focus = match screen.focus {
                                Focus::Topics => Focus::Groups,
                                Focus::Groups => Focus::Topics,
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        loop {
            let received = rx.try_recv();
            dirty |= received.is_ok();
            match received {
                Ok(Ok((at, snap))) => {
                    let then = last
                        .as_ref()
                        .map(|(t, s)| (s, at.duration_since(*t).as_secs_f64()));
                    let v = View::new(snap.clone(), then);
                    screen.push_fsync(&v);
                    screen.error = None;
                    view = Some(v);
                    last = Some((at, snap));
                }
                Ok(Err(e)) => screen.error = Some(e),
                Err(mpsc::TryRecvError::Empty) => break,
                Err(mpsc::TryRecvError::Disconnected) => {
                    anyhow::bail!("the scrape thread stopped")
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("token");
        std::fs::write(&path, "  abc.DEF-123_~+/=  \nsecond line\n").expect("write");
        assert_eq!(
            read_token(&path).expect("token").as_str(),
            "abc.DEF-123_~+/="
        );
        for bad in ["", "\n", "two words\n", "tab\there\n", "ünicode\n"] {
            std::fs::write(&path, bad).expect("write");
            let e = read_token(&path).expect_err(bad);
            assert_eq!(crate::exit::code_for(&e), USAGE, "{bad:?}");
        }
        let e = read_token(&dir.path().join("missing")).expect_err("missing");
        assert_eq!(crate::exit::code_for(&e), USAGE);
    }

    #[test]
    fn the_names_read_are_the_contracts() {
        let contract = include_str!("../../contrib/metrics.txt");
        let known: Vec<&str> = contract
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        for name in model::names::ALL {
            assert!(known.contains(name), "{name} is not in contrib/metrics.txt");
        }
    }
}
