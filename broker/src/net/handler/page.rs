//! Pages of topic metadata, shared by ListTopics and Metadata: which
//! topics the caller may describe after a cursor, within a limit, a bounded
//! scan of the catalog and the connection's frame size.

use std::sync::Arc;

use hermit_protocol::frame::{TopicMetadata, TopicPage};
use hermit_protocol::topic::INTERNAL_PREFIX;

use crate::auth::Action;
use crate::engine::{Engine, StorageError, Topic};
use crate::net::session::Session;

/// A topic listing looks at no more than this many catalog entries per
/// topic a page may hold: a caller who may describe few of a million topics
/// gets short (even empty) pages with a cursor, never a scan of everything.
pub(super) const LIST_SCAN_FACTOR: usize = 8;

/// One page of the topics the caller may describe whose names sort
/// after `after`: at most `limit` of them, looking at no more than
/// `scan` catalog entries (`scan >= limit >= 1`), their metadata within
/// `room` bytes. Internal topics are never listed. The page's `next`
/// is the last name looked at when more entries remain, and says why
/// the page ended early. `TooBig` when the first topic to list alone
/// does not fit in `room` (its message says so; no page could hold it).
/// The names are chosen here; their metadata, which may open closed
/// partitions, is built off the async threads.
pub(super) async fn topic_page(
    s: &Session,
    after: Option<&str>,
    limit: usize,
    scan: usize,
    room: usize,
) -> Result<(TopicPage, Option<Cut>), PageError> {
    if s.who.is_anonymous() && s.shared.acl.mode().requires_principal() {
        // Nothing is allowed to it (docs/SECURITY.md): not even a scan,
        // whose cursor would name topics.
        return Ok((TopicPage::default(), None));
    }
    // One entry more than the scan may look at tells whether any remain.
    let entries = s.shared.engine.topics_after(after, scan + 1);
    let mut chosen = Vec::new();
    let mut last: Option<&str> = None;
    let mut cut = None;
    for (i, t) in entries.iter().enumerate() {
        if i == scan {
            cut = Some(Cut::Scan);
            break;
        }
        let name = t.name();
        // Internal topics (`__consumer_offsets`) are the broker's own.
        // `allows`, not `check`: no refusal is built per name passed over.
        if !name.starts_with(INTERNAL_PREFIX) && s.shared.acl.allows(&s.who, Action::Describe, name)
        {
            if chosen.len() == limit {
                // The page is full and another topic follows: resume
                // right before it (the entries after the last listed
                // one were looked at already).
                cut = Some(Cut::Limit);
                break;
            }
            chosen.push(t.clone());
        }
        last = Some(name);
    }
    let next = cut.and(last.map(str::to_owned));
    let metas = topics_metadata(s.shared.engine.clone(), chosen.clone())
        .await
        .map_err(PageError::Storage)?;
    let mut topics = Vec::with_capacity(metas.len());
    let mut used = 0;
    for (t, meta) in chosen.iter().zip(metas) {
        let len = meta.encoded_len();
        if used + len > room {
            let Some(prev) = topics.last().map(|m: &TopicMetadata| m.name.clone()) else {
                return Err(PageError::TooBig(format!(
                    "the metadata of topic {} ({len} bytes, {} partitions) does not \
                     fit in this connection's frames of {} bytes",
                    t.name(),
                    meta.partitions.len(),
                    s.max_frame()
                )));
            };
            let page = TopicPage {
                topics,
                next: Some(prev),
            };
            return Ok((page, Some(Cut::Frame)));
        }
        used += len;
        topics.push(meta);
    }
    Ok((TopicPage { topics, next }, cut))
}

/// The metadata of `topics`, built off the async threads (it may open
/// closed partitions).
pub(super) async fn topics_metadata(
    engine: Arc<Engine>,
    topics: Vec<Arc<Topic>>,
) -> Result<Vec<TopicMetadata>, StorageError> {
    tokio::task::spawn_blocking(move || {
        topics
            .iter()
            .map(|t| engine.topic_metadata(t))
            .collect::<Result<Vec<_>, _>>()
    })
    .await
    .unwrap_or_else(|e| Err(StorageError::panicked("metadata", e)))
}

/// Why a topic page could not be built.
#[derive(Debug)]
pub(super) enum PageError {
    /// The first topic to list does not fit in a frame (the message says so).
    TooBig(String),
    /// Opening a partition for its bounds failed.
    Storage(StorageError),
}

/// Why a topic page ended before the listing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// It holds as many topics as asked for, and more follow.
    Limit,
    /// Its scan looked at as many catalog entries as it may.
    Scan,
    /// The next topic's metadata would not fit in the frame.
    Frame,
}
