//! Reading a catalog file, front to back, without changing it: the valid
//! entries, the corrupt ranges skipped, and where a torn tail starts.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::entry::{ENTRY_HEAD, Entry, MAGIC, MAGIC_V1, MAX_BODY};
use crate::log::error::{IoContext, Result, StorageError};

/// What reading a catalog file found.
#[derive(Debug, Default)]
pub struct Replay {
    /// Every valid entry, in file order.
    pub entries: Vec<(u64, Entry)>,
    /// Corrupt byte ranges `[from, to)` skipped (valid entries follow each).
    pub skipped: Vec<(u64, u64)>,
    /// Where a torn tail starts (nothing valid after it), if there is one.
    pub torn_at: Option<u64>,
    /// Where the last valid entry ends.
    pub valid_end: u64,
}

/// Read a catalog file without changing it (recovery and `hermit log check`).
pub fn read(path: &Path) -> Result<Replay> {
    let file = File::open(path).ctx("open catalog", path)?;
    let len = file.metadata().ctx("stat catalog", path)?.len();
    let mut magic = [0u8; 8];
    if len < MAGIC.len() as u64 {
        // Torn while it was being created: no entry can have been durable.
        return Ok(Replay {
            torn_at: Some(0),
            ..Replay::default()
        });
    }
    file.read_exact_at(&mut magic, 0)
        .ctx("read catalog", path)?;
    if &magic == MAGIC_V1 {
        return Err(StorageError::BadMetadata {
            path: path.to_path_buf(),
            message: "a topic catalog of a development version before slots (HMQCAT1); \
                      this version cannot read it"
                .into(),
        });
    }
    if &magic != MAGIC {
        return Err(StorageError::BadMetadata {
            path: path.to_path_buf(),
            message: "not a HermitMQ topic catalog (bad magic)".into(),
        });
    }
    let mut out = Replay {
        valid_end: MAGIC.len() as u64,
        ..Replay::default()
    };
    let mut reader = BufReader::with_capacity(1 << 16, &file);
    reader
        .seek(SeekFrom::Start(MAGIC.len() as u64))
        .ctx("read catalog", path)?;
    let mut pos = MAGIC.len() as u64;
    let mut body = Vec::with_capacity(MAX_BODY);
    while pos < len {
        match next_entry(&mut reader, len - pos, &mut body).ctx("read catalog", path)? {
            Some(entry) => {
                let size = (ENTRY_HEAD + body.len()) as u64;
                out.entries.push((pos, entry));
                pos += size;
                out.valid_end = pos;
            }
            None => {
                // Corruption: look for the next valid entry after it.
                match resync(&file, path, pos + 1, len)? {
                    Some(at) => {
                        out.skipped.push((pos, at));
                        pos = at;
                        reader.seek(SeekFrom::Start(at)).ctx("read catalog", path)?;
                    }
                    None => {
                        out.torn_at = Some(pos);
                        break;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The next entry from `r` (at most `remaining` bytes left in the file):
/// `None` if the bytes there are not a whole valid entry.
pub(super) fn next_entry(
    r: &mut impl Read,
    remaining: u64,
    body: &mut Vec<u8>,
) -> std::io::Result<Option<Entry>> {
    if remaining < ENTRY_HEAD as u64 {
        return Ok(None);
    }
    let mut head = [0u8; ENTRY_HEAD];
    r.read_exact(&mut head)?;
    let n = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let crc = u32::from_be_bytes([head[4], head[5], head[6], head[7]]);
    if n == 0 || n > MAX_BODY || (ENTRY_HEAD + n) as u64 > remaining {
        return Ok(None);
    }
    body.resize(n, 0);
    r.read_exact(body)?;
    if crc32c::crc32c(body) != crc {
        return Ok(None);
    }
    Ok(Entry::decode(body))
}

/// The first position at or after `from` where a valid entry starts.
fn resync(file: &File, path: &Path, from: u64, len: u64) -> Result<Option<u64>> {
    let mut buf = vec![0u8; (len.saturating_sub(from)).min(1 << 20) as usize];
    let mut base = from;
    while base < len {
        let n = ((len - base) as usize).min(buf.len());
        file.read_exact_at(&mut buf[..n], base)
            .ctx("read catalog", path)?;
        for i in 0..n {
            let rest = &buf[i..n];
            if rest.len() < ENTRY_HEAD {
                break;
            }
            let body_len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            if body_len == 0 || body_len > MAX_BODY {
                continue;
            }
            let mut body = Vec::new();
            let mut slice = if rest.len() >= ENTRY_HEAD + body_len {
                &rest[..ENTRY_HEAD + body_len]
            } else {
                // The entry crosses the buffer's end: read it whole.
                let at = base + i as u64;
                if at + (ENTRY_HEAD + body_len) as u64 > len {
                    continue;
                }
                let mut whole = vec![0u8; ENTRY_HEAD + body_len];
                file.read_exact_at(&mut whole, at)
                    .ctx("read catalog", path)?;
                if next_entry(&mut whole.as_slice(), whole.len() as u64, &mut body)
                    .ctx("read catalog", path)?
                    .is_some()
                {
                    return Ok(Some(at));
                }
                continue;
            };
            if next_entry(&mut slice, (ENTRY_HEAD + body_len) as u64, &mut body)
                .ctx("read catalog", path)?
                .is_some()
            {
                return Ok(Some(base + i as u64));
            }
        }
        if n < buf.len() || base + (n as u64) >= len {
            break;
        }
        // Overlap by one entry so none is missed at the seam.
        base += (n - (ENTRY_HEAD + MAX_BODY).min(n - 1)) as u64;
    }
    Ok(None)
}
