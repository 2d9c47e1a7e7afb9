//! Fields several operations share: topic, group and cursor names, checked
//! against the naming rules as they are read.

use crate::codec::Reader;
use crate::error::WireError;
use crate::topic::{TopicName, validate_group};

/// A topic name (`u8` length + name), by the rules for names a client may use.
pub(crate) fn topic<'a>(r: &mut Reader<'a>) -> Result<TopicName<&'a str>, WireError> {
    let raw = r.bytes8()?;
    TopicName::from_wire(raw).map_err(|source| WireError::InvalidName {
        what: "topic",
        source,
    })
}

/// An optional cursor: empty = none, else a name by the topic charset rules
/// with the internal `__` prefix allowed (a cursor names a place in the
/// order of names, and the last name a broker scanned may be an internal one).
pub(crate) fn cursor<'a>(r: &mut Reader<'a>) -> Result<Option<TopicName<&'a str>>, WireError> {
    let raw = r.bytes8()?;
    if raw.is_empty() {
        return Ok(None);
    }
    TopicName::from_wire_any(raw)
        .map(Some)
        .map_err(|source| WireError::InvalidName {
            what: "topic",
            source,
        })
}

/// A consumer group name.
pub(crate) fn group<'a>(r: &mut Reader<'a>) -> Result<&'a str, WireError> {
    let g = r.str8("group")?;
    validate_group(g).map_err(|source| WireError::InvalidName {
        what: "group",
        source,
    })?;
    Ok(g)
}
