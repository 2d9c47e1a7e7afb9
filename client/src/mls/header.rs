//! The clear part of a group record, read before MLS sees it (docs/MLS.md
//! §2, §3): an `MLSMessage` holding a `PrivateMessage` — version,
//! wire format, group id, epoch, content type and `authenticated_data`.
//! Every member applies the same checks to the same bytes, so a record
//! refused here is refused by all.

/// `mls10`, the only protocol version.
const MLS10: u16 = 1;
/// `mls_private_message`.
const PRIVATE_MESSAGE: u16 = 2;

/// What a `PrivateMessage` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentType {
    /// An application message.
    Application,
    /// A Proposal.
    Proposal,
    /// A Commit.
    Commit,
}

/// The clear header of a group record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClearHeader<'a> {
    /// The group id.
    pub group_id: &'a [u8],
    /// The epoch it was sent in.
    pub epoch: u64,
    /// What it is.
    pub content_type: ContentType,
}

/// Why a record is not a group record we process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderError {
    /// Too short, or a length that runs past the end.
    #[error("truncated")]
    Truncated,
    /// Not MLS 1.0.
    #[error("not MLS 1.0")]
    Version,
    /// Not a `PrivateMessage` (group topics carry nothing else).
    #[error("not a PrivateMessage")]
    WireFormat,
    /// An unknown content type.
    #[error("unknown content type")]
    ContentType,
    /// `authenticated_data` is not empty: it travels in clear, and our
    /// SDKs never fill it.
    #[error("authenticated_data is not empty")]
    AuthenticatedData,
}

/// An MLS variable-length vector's length (RFC 9420 §2.1.2: 1, 2 or 4
/// bytes, the top two bits saying which), and the rest after it.
fn varint(b: &[u8]) -> Result<(usize, &[u8]), HeaderError> {
    let first = *b.first().ok_or(HeaderError::Truncated)?;
    let (len, n) = match first >> 6 {
        0 => (1, usize::from(first & 0x3f)),
        1 => {
            let v = b.get(..2).ok_or(HeaderError::Truncated)?;
            (2, usize::from(u16::from_be_bytes([v[0] & 0x3f, v[1]])))
        }
        2 => {
            let v = b.get(..4).ok_or(HeaderError::Truncated)?;
            (
                4,
                u32::from_be_bytes([v[0] & 0x3f, v[1], v[2], v[3]]) as usize,
            )
        }
        _ => return Err(HeaderError::Truncated),
    };
    Ok((n, &b[len..]))
}

/// Reads the clear header of a group record.
///
/// # Errors
/// [`HeaderError`]: the record is not one to hand to MLS.
pub fn clear_header(record: &[u8]) -> Result<ClearHeader<'_>, HeaderError> {
    let u16_at = |i: usize| -> Result<u16, HeaderError> {
        let v = record.get(i..i + 2).ok_or(HeaderError::Truncated)?;
        Ok(u16::from_be_bytes([v[0], v[1]]))
    };
    if u16_at(0)? != MLS10 {
        return Err(HeaderError::Version);
    }
    if u16_at(2)? != PRIVATE_MESSAGE {
        return Err(HeaderError::WireFormat);
    }
    let (n, rest) = varint(&record[4..])?;
    let group_id = rest.get(..n).ok_or(HeaderError::Truncated)?;
    let rest = &rest[n..];
    let epoch = u64::from_be_bytes(
        rest.get(..8)
            .ok_or(HeaderError::Truncated)?
            .try_into()
            .expect("8 bytes"),
    );
    let content_type = match rest.get(8).ok_or(HeaderError::Truncated)? {
        1 => ContentType::Application,
        2 => ContentType::Proposal,
        3 => ContentType::Commit,
        _ => return Err(HeaderError::ContentType),
    };
    let (aad, _) = varint(&rest[9..])?;
    if aad != 0 {
        return Err(HeaderError::AuthenticatedData);
    }
    Ok(ClearHeader {
        group_id,
        epoch,
        content_type,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(group: &[u8], epoch: u64, ct: u8, aad: &[u8]) -> Vec<u8> {
        let mut r = vec![0, 1, 0, 2];
        r.push(group.len() as u8);
        r.extend_from_slice(group);
        r.extend_from_slice(&epoch.to_be_bytes());
        r.push(ct);
        r.push(aad.len() as u8);
        r.extend_from_slice(aad);
        r.extend_from_slice(&[0; 40]);
        r
    }

    #[test]
    fn the_clear_header_is_read_and_checked() {
        let g = [7u8; 32];
        let commit = record(&g, 9, 3, &[]);
        let h = clear_header(&commit).expect("valid");
        assert_eq!(h.group_id, &g[..]);
        assert_eq!(h.epoch, 9);
        assert_eq!(h.content_type, ContentType::Commit);
        assert_eq!(
            clear_header(&record(&g, 9, 1, b"x")),
            Err(HeaderError::AuthenticatedData)
        );
        assert_eq!(
            clear_header(&record(&g, 9, 4, &[])),
            Err(HeaderError::ContentType)
        );
        let mut welcome = record(&g, 9, 1, &[]);
        welcome[3] = 3;
        assert_eq!(clear_header(&welcome), Err(HeaderError::WireFormat));
        let mut v2 = record(&g, 9, 1, &[]);
        v2[1] = 2;
        assert_eq!(clear_header(&v2), Err(HeaderError::Version));
        assert_eq!(clear_header(&[0, 1, 0, 2, 40]), Err(HeaderError::Truncated));
        assert_eq!(clear_header(&[]), Err(HeaderError::Truncated));
    }

    #[test]
    fn two_byte_lengths_are_read() {
        let mut r = vec![0, 1, 0, 2, 0x40, 100];
        r.extend_from_slice(&[1; 100]);
        r.extend_from_slice(&5u64.to_be_bytes());
        r.extend_from_slice(&[1, 0]);
        let h = clear_header(&r).expect("valid");
        assert_eq!(h.group_id.len(), 100);
        assert_eq!(h.epoch, 5);
    }
}
