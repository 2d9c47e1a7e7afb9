//! Topic and consumer-group naming rules.
//!
//! Topic names become directory names on the broker, so the rules are strict:
//! 1–249 bytes of `[A-Za-z0-9._-]`, not `.` or `..`, and the `__` prefix is
//! reserved for internal topics. Validation happens once, when a name enters
//! the system; a [`TopicName`] is proof that it happened.

use std::fmt;

/// Longest topic or group name, in bytes.
pub const MAX_NAME_LEN: usize = 249;

/// Prefix reserved for the broker's internal topics (`__consumer_offsets`).
pub const INTERNAL_PREFIX: &str = "__";

/// Which naming rule a name broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The name is empty.
    #[error("name is empty")]
    Empty,
    /// The name is longer than [`MAX_NAME_LEN`] bytes.
    #[error("name is {len} bytes long (max {MAX_NAME_LEN})")]
    TooLong {
        /// Length in bytes.
        len: usize,
    },
    /// The name contains a byte outside the allowed set.
    #[error("byte 0x{byte:02x} at position {at} is not allowed (use A-Z a-z 0-9 . _ -)")]
    BadChar {
        /// The byte.
        byte: u8,
        /// Its position.
        at: usize,
    },
    /// The name is `.` or `..`.
    #[error("'.' and '..' are not names")]
    Dots,
    /// The name starts with the reserved `__` prefix.
    #[error("the '__' prefix is reserved for internal topics")]
    Reserved,
    /// A group name contains a control character or is not UTF-8.
    #[error("group names must be printable UTF-8")]
    NotPrintable,
}

fn check_topic_chars(name: &[u8]) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.len() > MAX_NAME_LEN {
        return Err(NameError::TooLong { len: name.len() });
    }
    if let Some(at) = name
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')))
    {
        return Err(NameError::BadChar { byte: name[at], at });
    }
    if name == b"." || name == b".." {
        return Err(NameError::Dots);
    }
    Ok(())
}

/// A validated topic name, borrowed or owned.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TopicName<S = String>(S);

impl<S: AsRef<str>> TopicName<S> {
    /// Validate a user topic name (the `__` prefix is refused).
    pub fn new(name: S) -> Result<Self, NameError> {
        check_topic_chars(name.as_ref().as_bytes())?;
        if name.as_ref().starts_with(INTERNAL_PREFIX) {
            return Err(NameError::Reserved);
        }
        Ok(TopicName(name))
    }

    /// Validate a name that may be internal (`__` allowed); for the broker's own topics
    /// and for reading names back from its own data directory.
    pub fn new_any(name: S) -> Result<Self, NameError> {
        check_topic_chars(name.as_ref().as_bytes())?;
        Ok(TopicName(name))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        self.0.as_ref()
    }

    /// Whether this is an internal topic.
    pub fn is_internal(&self) -> bool {
        self.as_str().starts_with(INTERNAL_PREFIX)
    }

    /// An owned copy.
    pub fn to_owned_name(&self) -> TopicName<String> {
        TopicName(self.as_str().to_owned())
    }
}

impl<'a> TopicName<&'a str> {
    /// Validate raw bytes from the wire as a user topic name.
    pub fn from_wire(bytes: &'a [u8]) -> Result<Self, NameError> {
        check_topic_chars(bytes)?;
        // The charset check above guarantees ASCII.
        let s = std::str::from_utf8(bytes).map_err(|_| NameError::NotPrintable)?;
        TopicName::new(s)
    }

    /// Validate raw bytes from the wire as a name that may be internal
    /// (`__` allowed): a `ListTopics` cursor, which names a place in the
    /// order of names, not a topic to act on.
    pub fn from_wire_any(bytes: &'a [u8]) -> Result<Self, NameError> {
        check_topic_chars(bytes)?;
        // The charset check above guarantees ASCII.
        let s = std::str::from_utf8(bytes).map_err(|_| NameError::NotPrintable)?;
        Ok(TopicName(s))
    }
}

impl<S: AsRef<str>> AsRef<str> for TopicName<S> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl<S: AsRef<str>> fmt::Display for TopicName<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<S: AsRef<str>> fmt::Debug for TopicName<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TopicName({:?})", self.as_str())
    }
}

impl std::borrow::Borrow<str> for TopicName<String> {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// Validate a consumer-group name: 1–249 bytes of printable UTF-8.
///
/// Group names never become paths; they are stored inside `__consumer_offsets` records.
pub fn validate_group(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.len() > MAX_NAME_LEN {
        return Err(NameError::TooLong { len: name.len() });
    }
    if name.chars().any(char::is_control) {
        return Err(NameError::NotPrintable);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_allowed_alphabet() {
        for ok in [
            "chat",
            "a",
            "A-Z_0.9",
            "x".repeat(249).as_str(),
            "..a",
            "_x",
        ] {
            assert!(TopicName::new(ok).is_ok(), "{ok} should be valid");
        }
    }

    #[test]
    fn rejects_traversal_and_junk() {
        let long = "x".repeat(250);
        let cases: [(&str, NameError); 8] = [
            ("", NameError::Empty),
            (".", NameError::Dots),
            ("..", NameError::Dots),
            ("../x", NameError::BadChar { byte: b'/', at: 2 }),
            ("a/b", NameError::BadChar { byte: b'/', at: 1 }),
            ("a b", NameError::BadChar { byte: b' ', at: 1 }),
            (&long, NameError::TooLong { len: 250 }),
            ("__consumer_offsets", NameError::Reserved),
        ];
        for (name, want) in cases {
            assert_eq!(TopicName::new(name).unwrap_err(), want, "{name:?}");
        }
        assert!(TopicName::new_any("__consumer_offsets").is_ok());
        assert!(matches!(
            TopicName::from_wire(b"caf\xc3\xa9"),
            Err(NameError::BadChar { byte: 0xc3, at: 3 })
        ));
        assert!(matches!(
            TopicName::from_wire(b"\xff"),
            Err(NameError::BadChar { .. })
        ));
    }

    #[test]
    fn group_rules() {
        assert!(validate_group("chat-app/dev ü").is_ok());
        assert_eq!(validate_group(""), Err(NameError::Empty));
        assert_eq!(validate_group("a\nb"), Err(NameError::NotPrintable));
        assert!(matches!(
            validate_group(&"g".repeat(250)),
            Err(NameError::TooLong { .. })
        ));
    }
}
