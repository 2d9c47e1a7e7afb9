//! The admin HTTP listener (`admin_listen`): `/metrics` in the Prometheus
//! text format, `/healthz` and `/readyz` (docs/OPERATIONS.md, "Metrics and
//! health").
//!
//! It is bound before the log is opened, so `/readyz` answers 503 while the
//! data directory is recovered and 200 once the broker serves; 503 again
//! from the first shutdown signal on.
//!
//! **Blind.** `/metrics` carries numbers and, as labels, topic and group
//! names, partition numbers, principals (the fingerprints ACLs name) and
//! fixed reason words — never a record key, a payload byte or anything a
//! record's envelope holds: the broker parses none of them.
//!
//! **Bounded.** Per-partition series exist only for the
//! `metrics_top_topics` busiest topics (bytes in and out since the last
//! choice, re-made at most every [`RECHOOSE`]), per-group series for at
//! most `metrics_top_groups` (largest lag first), per-principal throttling
//! for `metrics_top_principals`; totals cover everything. So a million
//! inboxes are a few hundred series, not a million.
//!
//! The encoder is `prometheus-client`'s: it escapes label values and
//! writes the exposition format; every value is read from the broker's own
//! counters when scraped (one `prometheus_client` `Collector`), so the record path pays one
//! relaxed atomic add per counter and no registry lookup.
//!
//! **Guarded.** It answers only requests whose `Host` is one of its names
//! (loopback names, the address the connection arrived on, `admin_hosts`),
//! so a web page cannot read `/metrics` by re-pointing its own name at the
//! broker (DNS rebinding); [`MAX_CONNECTIONS`] connections serve any path
//! and [`PROBE_SLOTS`] more only the probes, each with [`HEAD_DEADLINE`] to
//! send its request, so clients that send nothing cannot silence the probes.
//!
//! # Layout
//! - `listener`: [`Admin`] — binding `admin_listen`, the HTTP answers of
//!   `/metrics`, `/healthz` and `/readyz`, the connection slots.
//! - [`hosts`]: [`AdminHosts`](hosts::AdminHosts), the `Host` names it answers to.
//! - `observed`: what the answers read: the broker's [`Phase`], its server
//!   once it exists, the busiest topics as last chosen.
//! - `scrape`: one `/metrics` scrape, section by section.
//! - `token`: the bearer token `/metrics` requires.
//! - `error`: [`AdminError`].

mod error;
pub mod hosts;
mod listener;
mod observed;
mod scrape;
mod token;

pub use error::AdminError;
pub use listener::{Admin, HEAD_DEADLINE, MAX_CONNECTIONS, PROBE_SLOTS};
pub use observed::{Phase, RECHOOSE};
pub use token::MIN_TOKEN_LEN;
