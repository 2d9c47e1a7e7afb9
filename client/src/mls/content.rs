//! The application content of an MLS application message (docs/MLS.md
//! §2.1): our own framing inside MLS's encryption — version, kind, the send
//! time, the body, and Padmé padding — the same bytes in Rust and JS.
//! Two kinds: a text, and a views message (the sender's digests of the
//! device lists it holds, [`super::views`]; never shown as a message).

use crate::crypto::Fingerprint;
use crate::crypto::envelope::padded_len;

/// The framing version this code writes and reads.
pub const CONTENT_VERSION: u8 = 1;

/// Bytes before the body: version, kind, sent-at, body length.
const HEAD_LEN: usize = 1 + 1 + 8 + 4;

/// The largest body an application message carries (1 MiB): bounded before
/// anything is allocated.
pub const MAX_BODY: usize = 1 << 20;

/// What an application message holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContentKind {
    /// A UTF-8 text message.
    Text,
    /// A views message: the device lists the sender holds for member
    /// accounts (docs/MLS.md §4.7), a control message, not shown.
    Views,
}

impl ContentKind {
    const fn code(self) -> u8 {
        match self {
            ContentKind::Text => 1,
            ContentKind::Views => 2,
        }
    }

    fn from_code(code: u8) -> Option<ContentKind> {
        match code {
            1 => Some(ContentKind::Text),
            2 => Some(ContentKind::Views),
            _ => None,
        }
    }
}

/// Why decrypted application data is not a valid content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContentError {
    /// Shorter than its head, or than the body it announces.
    #[error("application content is truncated")]
    Truncated,
    /// A framing version we do not read.
    #[error("application content version {0} is not one this client reads (1)")]
    UnknownVersion(u8),
    /// A kind we do not know.
    #[error("application content kind {0} is unknown")]
    UnknownKind(u8),
    /// A body over [`MAX_BODY`].
    #[error("an application message body is at most {MAX_BODY} bytes, not {0}")]
    TooLarge(usize),
    /// Padding that is not `0x80 0x00*` to the Padmé bucket of the body: a
    /// sender that pads otherwise makes its messages recognisable.
    #[error("application content is not padded as the framing requires")]
    BadPadding,
    /// A text body that is not UTF-8.
    #[error("a text message is not UTF-8")]
    NotUtf8,
    /// A views body that is not whole entries, holds more than
    /// [`MAX_VIEWS`], or names an account twice or out of
    /// order.
    #[error("a views message is malformed ({0})")]
    BadViews(&'static str),
}

/// One application message's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// What the body is.
    pub kind: ContentKind,
    /// When the sender sent it (ms since the Unix epoch, the sender's clock).
    pub sent_at: u64,
    /// The body.
    pub body: Vec<u8>,
}

impl Content {
    /// A text message sent at `sent_at`.
    pub fn text(text: &str, sent_at: u64) -> Content {
        Content {
            kind: ContentKind::Text,
            sent_at,
            body: text.as_bytes().to_vec(),
        }
    }

    /// The framed, padded bytes (what MLS encrypts).
    ///
    /// # Errors
    /// [`ContentError::TooLarge`].
    pub fn encode(&self) -> Result<Vec<u8>, ContentError> {
        let n = self.body.len();
        if n > MAX_BODY {
            return Err(ContentError::TooLarge(n));
        }
        let total = padded_len(HEAD_LEN + n).ok_or(ContentError::TooLarge(n))?;
        let mut out = Vec::with_capacity(total);
        out.push(CONTENT_VERSION);
        out.push(self.kind.code());
        out.extend_from_slice(&self.sent_at.to_be_bytes());
        out.extend_from_slice(&u32::try_from(n).expect("≤ MAX_BODY").to_be_bytes());
        out.extend_from_slice(&self.body);
        out.push(0x80);
        out.resize(total, 0);
        Ok(out)
    }

    /// Parses and checks decrypted application data.
    ///
    /// # Errors
    /// Every [`ContentError`].
    pub fn decode(bytes: &[u8]) -> Result<Content, ContentError> {
        if bytes.len() < HEAD_LEN {
            return Err(ContentError::Truncated);
        }
        if bytes[0] != CONTENT_VERSION {
            return Err(ContentError::UnknownVersion(bytes[0]));
        }
        let kind = ContentKind::from_code(bytes[1]).ok_or(ContentError::UnknownKind(bytes[1]))?;
        let sent_at = u64::from_be_bytes(bytes[2..10].try_into().expect("8 bytes"));
        let n = u32::from_be_bytes(bytes[10..14].try_into().expect("4 bytes")) as usize;
        if n > MAX_BODY {
            return Err(ContentError::TooLarge(n));
        }
        let end = HEAD_LEN + n;
        if bytes.len() <= end {
            return Err(ContentError::Truncated);
        }
        let total = padded_len(end).ok_or(ContentError::BadPadding)?;
        if bytes.len() != total || bytes[end] != 0x80 || bytes[end + 1..].iter().any(|&b| b != 0) {
            return Err(ContentError::BadPadding);
        }
        let body = bytes[HEAD_LEN..end].to_vec();
        if kind == ContentKind::Text && std::str::from_utf8(&body).is_err() {
            return Err(ContentError::NotUtf8);
        }
        if kind == ContentKind::Views {
            decode_views(&body)?;
        }
        Ok(Content {
            kind,
            sent_at,
            body,
        })
    }
}

/// The most accounts one views message names (a group has no bound of its
/// own; 1024 keeps a views message under 74 KiB). Checked before anything
/// is allocated.
pub const MAX_VIEWS: usize = 1024;

/// One entry: account fp, version, SHA-256.
pub(crate) const VIEW_LEN: usize = 32 + 8 + 32;

/// The device list a member holds for one account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct View {
    /// The account.
    pub account: Fingerprint,
    /// The version of its list the member accepted.
    pub version: u64,
    /// SHA-256 of that list's signed bytes.
    pub digest: [u8; 32],
}

/// The body of a views message: `views` in ascending account order.
///
/// # Errors
/// [`ContentError::BadViews`] over [`MAX_VIEWS`], or accounts not strictly
/// ascending.
pub fn encode_views(views: &[View]) -> Result<Vec<u8>, ContentError> {
    if views.len() > MAX_VIEWS {
        return Err(ContentError::BadViews("too many accounts"));
    }
    if views.windows(2).any(|w| w[0].account >= w[1].account) {
        return Err(ContentError::BadViews("accounts not in ascending order"));
    }
    let mut out = Vec::with_capacity(2 + views.len() * VIEW_LEN);
    out.extend_from_slice(
        &u16::try_from(views.len())
            .expect("≤ MAX_VIEWS")
            .to_be_bytes(),
    );
    for v in views {
        out.extend_from_slice(v.account.as_bytes());
        out.extend_from_slice(&v.version.to_be_bytes());
        out.extend_from_slice(&v.digest);
    }
    Ok(out)
}

/// Parses a views body.
///
/// # Errors
/// [`ContentError::BadViews`]: not `2 + 72 × count` bytes, over
/// [`MAX_VIEWS`], an account twice or out of order.
pub fn decode_views(body: &[u8]) -> Result<Vec<View>, ContentError> {
    let count = body
        .get(..2)
        .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
        .ok_or(ContentError::BadViews("truncated"))?;
    if count > MAX_VIEWS {
        return Err(ContentError::BadViews("too many accounts"));
    }
    if body.len() != 2 + count * VIEW_LEN {
        return Err(ContentError::BadViews("not whole entries"));
    }
    let views: Vec<View> = body[2..]
        .chunks_exact(VIEW_LEN)
        .map(|e| View {
            account: Fingerprint::from_bytes(e[..32].try_into().expect("32 bytes")),
            version: u64::from_be_bytes(e[32..40].try_into().expect("8 bytes")),
            digest: e[40..].try_into().expect("32 bytes"),
        })
        .collect();
    if views.windows(2).any(|w| w[0].account >= w[1].account) {
        return Err(ContentError::BadViews("accounts not in ascending order"));
    }
    Ok(views)
}

impl Content {
    /// A views message sent at `sent_at`.
    ///
    /// # Errors
    /// As [`encode_views`].
    pub fn views(views: &[View], sent_at: u64) -> Result<Content, ContentError> {
        Ok(Content {
            kind: ContentKind::Views,
            sent_at,
            body: encode_views(views)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::envelope::padme;

    #[test]
    fn contents_round_trip_at_padme_sizes() {
        for n in [0usize, 1, 13, 27, 100, 1024, 5000, 65_537] {
            let body = "x".repeat(n);
            let c = Content::text(&body, 1_733_000_000_000 + n as u64);
            let bytes = c.encode().expect("encode");
            assert_eq!(bytes.len(), padme(HEAD_LEN + n + 1).expect("fits"));
            assert_eq!(Content::decode(&bytes).expect("decode"), c);
        }
    }

    #[test]
    fn bad_contents_are_named() {
        let good = Content::text("hello", 5).encode().expect("encode");
        assert_eq!(Content::decode(&good[..5]), Err(ContentError::Truncated));
        let mut v = good.clone();
        v[0] = 2;
        assert_eq!(Content::decode(&v), Err(ContentError::UnknownVersion(2)));
        let mut k = good.clone();
        k[1] = 9;
        assert_eq!(Content::decode(&k), Err(ContentError::UnknownKind(9)));
        let mut big = good.clone();
        big[10..14].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(
            Content::decode(&big),
            Err(ContentError::TooLarge(u32::MAX as usize))
        );
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(Content::decode(&longer), Err(ContentError::BadPadding));
        let mut marker = good.clone();
        marker[HEAD_LEN + 5] = 0x81;
        assert_eq!(Content::decode(&marker), Err(ContentError::BadPadding));
        let mut utf = Content::text("hello", 5).encode().expect("encode");
        utf[HEAD_LEN] = 0xff;
        assert_eq!(Content::decode(&utf), Err(ContentError::NotUtf8));
        assert_eq!(
            Content {
                kind: ContentKind::Text,
                sent_at: 0,
                body: vec![b'a'; MAX_BODY + 1]
            }
            .encode(),
            Err(ContentError::TooLarge(MAX_BODY + 1))
        );
    }
}
