//! The bearer token `/metrics` requires (`admin_token_file`): read once,
//! compared in constant time, never printed.

use std::path::Path;

use super::error::AdminError;

/// The shortest bearer token accepted from `admin_token_file`.
pub const MIN_TOKEN_LEN: usize = 16;

/// The bearer token `/metrics` requires. Never printed.
pub(super) struct Token(zeroize::Zeroizing<Vec<u8>>);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    pub(super) fn load(path: &Path) -> Result<Token, AdminError> {
        let bytes = zeroize::Zeroizing::new(std::fs::read(path).map_err(|source| {
            AdminError::TokenFile {
                path: path.to_owned(),
                source,
            }
        })?);
        let bad = |reason: &str| AdminError::BadToken {
            path: path.to_owned(),
            reason: reason.to_owned(),
        };
        let text = std::str::from_utf8(&bytes).map_err(|_| bad("not UTF-8"))?;
        let token = text.strip_suffix('\n').unwrap_or(text);
        let token = token.strip_suffix('\r').unwrap_or(token);
        if token.len() < MIN_TOKEN_LEN {
            return Err(bad(&format!(
                "the token must be at least {MIN_TOKEN_LEN} characters"
            )));
        }
        if token.bytes().any(|b| !b.is_ascii_graphic()) {
            return Err(bad(
                "the token must be one line of printable ASCII without spaces",
            ));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            if let Ok(meta) = std::fs::metadata(path)
                && meta.permissions().mode() & 0o077 != 0
            {
                tracing::warn!(target: "audit", file = %path.display(), "admin_token_file is readable by other users (chmod 600 it)");
            }
        }
        Ok(Token(zeroize::Zeroizing::new(token.as_bytes().to_vec())))
    }

    /// Whether an `Authorization` header value carries this token (in time
    /// that does not depend on where a wrong token differs).
    pub(super) fn accepts(&self, header: Option<&str>) -> bool {
        let Some(given) = header.and_then(|h| {
            let (scheme, rest) = h.trim().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(rest.trim())
        }) else {
            return false;
        };
        let (a, b) = (given.as_bytes(), &self.0[..]);
        if a.len() != b.len() {
            return false;
        }
        let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
        std::hint::black_box(diff) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_compared_whole_and_never_printed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "s3cret-token-0123456789\n").unwrap();
        let t = Token::load(&path).unwrap();
        assert!(t.accepts(Some("Bearer s3cret-token-0123456789")));
        assert!(t.accepts(Some("bearer  s3cret-token-0123456789 ")));
        assert!(!t.accepts(Some("Bearer s3cret-token-012345678")));
        assert!(!t.accepts(Some("Bearer s3cret-token-0123456780")));
        assert!(!t.accepts(Some("Basic s3cret-token-0123456789")));
        assert!(!t.accepts(None));
        assert_eq!(format!("{t:?}"), "Token(..)");
        std::fs::write(&path, "short\n").unwrap();
        let e = Token::load(&path).unwrap_err().to_string();
        assert!(e.contains("at least 16"), "{e}");
        assert!(!e.contains("short\n"), "the token is not in the error: {e}");
    }
}
