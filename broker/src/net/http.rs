//! The HTTP/1.1 in front of a WebSocket listener: read one request head
//! (bounded in size and time), then either upgrade it to a WebSocket
//! (RFC 6455 §4.2: version 13, a key, the `hermitmq.v3` subprotocol, an
//! allowed `Origin`) or answer it — with a static file from `web_root`, or
//! with a refusal that says what was wrong. Every answer other than the
//! upgrade closes the connection: static files are few and small, and one
//! request per connection keeps this front door simple to bound.

use std::fmt::Write as _;
use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use bytes::{BufMut as _, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The only subprotocol the listener speaks.
pub(crate) const SUBPROTOCOL: &str = "hermitmq.v3";
/// Largest request head (request line and headers) read before refusing.
const MAX_HEAD: usize = 8 * 1024;
/// Most headers in a request head.
const MAX_HEADERS: usize = 48;
/// Largest static file served.
const MAX_FILE: u64 = 32 << 20;
/// RFC 6455 §1.3: appended to the client's key before hashing.
const ACCEPT_GUID: &[u8] = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/// SHA-256 (base64) of the chat page's one inline script, its import map
/// (`js/examples/chat/index.html`); `a_hash_names_the_chat_pages_import_map`
/// fails when the two drift apart.
const IMPORT_MAP_SHA256: &str = "e9JSrX7LBs+K1KMIXH7Ksx1lRSjKvfb/v5bf6UkYjew=";

/// The browser origins a WebSocket listener lets in (`allowed_origins`).
///
/// A browser sends `Origin` with every WebSocket upgrade and a page cannot
/// forge it, so checking it stops a web page the user happens to open from
/// using the user's network position (a broker on loopback or a LAN) to
/// talk to the broker. Clients that are not browsers send what they like,
/// so this is no authentication: requests without `Origin` are not from a
/// browser and are let through to the protocol's own access control.
#[derive(Debug, Clone)]
pub struct Origins {
    /// Normalized `scheme://host[:port]` entries.
    allowed: Vec<String>,
    /// `"*"` was listed: any origin.
    any: bool,
}

impl Origins {
    /// Compile `allowed_origins`. Empty means loopback origins only
    /// (`http(s)://localhost`, `127.0.0.0/8`, `[::1]`, any port).
    ///
    /// # Errors
    /// An entry [`check_entry`](Origins::check_entry) refuses.
    pub fn new(entries: &[String]) -> Result<Origins, String> {
        let mut allowed = Vec::new();
        let mut any = false;
        for e in entries {
            Origins::check_entry(e)?;
            if e == "*" {
                any = true;
            } else {
                allowed.push(normalize(e));
            }
        }
        Ok(Origins { allowed, any })
    }

    /// Whether `entry` is a valid `allowed_origins` entry: `"*"`, or
    /// `http://` / `https://` followed by a host and an optional port, with
    /// no path, query, user or fragment.
    ///
    /// # Errors
    /// What is wrong with it.
    pub fn check_entry(entry: &str) -> Result<(), String> {
        if entry == "*" {
            return Ok(());
        }
        let rest = entry
            .strip_prefix("http://")
            .or_else(|| entry.strip_prefix("https://"))
            .ok_or_else(|| format!("{entry:?}: an origin starts with http:// or https://"))?;
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
            return Err(format!(
                "{entry:?}: an origin is scheme://host[:port], without a path"
            ));
        }
        Ok(())
    }

    /// Whether a browser page from `origin` may connect.
    pub fn allows(&self, origin: &str) -> bool {
        if self.any {
            return true;
        }
        if self.allowed.is_empty() {
            return is_loopback_origin(origin);
        }
        let origin = normalize(origin);
        self.allowed.contains(&origin)
    }
}

fn normalize(origin: &str) -> String {
    origin
        .strip_suffix('/')
        .unwrap_or(origin)
        .to_ascii_lowercase()
}

/// `http(s)://` + `localhost`, a 127/8 address or `[::1]`, any port.
fn is_loopback_origin(origin: &str) -> bool {
    let origin = origin.to_ascii_lowercase();
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = if let Some(v6) = rest.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, _)) => h,
            None => return false,
        }
    } else {
        rest.split(':').next().unwrap_or("")
    };
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// One request head, as far as this front door cares.
#[derive(Debug)]
pub(crate) struct Request {
    /// `GET`, `HEAD`, …
    pub(crate) method: String,
    /// The request target as sent (path and query).
    pub(crate) target: String,
    headers: Vec<(String, String)>,
}

impl Request {
    /// The value of header `name` (case-insensitive), if sent once or more
    /// (values of repeated headers joined with ", ", RFC 9110 §5.3).
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// Whether header `name` is a comma-separated list holding `token`
    /// (case-insensitive), as `Connection: keep-alive, Upgrade` does.
    fn has_token(&self, name: &str, token: &str) -> bool {
        self.header(name)
            .is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    }

    /// Whether this asks for a WebSocket upgrade at all.
    pub(crate) fn wants_websocket(&self) -> bool {
        self.has_token("upgrade", "websocket") && self.has_token("connection", "upgrade")
    }
}

/// Why no request head could be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HeadError {
    /// Not within the handshake timeout.
    #[error("no complete request head within the handshake timeout")]
    Timeout,
    /// Longer than [`MAX_HEAD`] or with more than [`MAX_HEADERS`] headers.
    #[error("request head too large")]
    TooLarge,
    /// Not HTTP/1.1.
    #[error("malformed request head: {0}")]
    Malformed(String),
    /// The client closed before finishing it.
    #[error("closed before a complete request head")]
    Closed,
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl HeadError {
    /// The status line to answer with, if any answer is worth sending.
    pub(crate) fn status(&self) -> Option<(u16, &'static str)> {
        match self {
            HeadError::Timeout => Some((408, "Request Timeout")),
            HeadError::TooLarge => Some((431, "Request Header Fields Too Large")),
            HeadError::Malformed(_) => Some((400, "Bad Request")),
            HeadError::Closed | HeadError::Io(_) => None,
        }
    }
}

/// Read one request head within `limit`; returns it and any bytes the
/// client sent after it (which belong to the WebSocket stream).
pub(crate) async fn read_head<S: AsyncRead + Unpin>(
    stream: &mut S,
    limit: Duration,
) -> Result<(Request, Bytes), HeadError> {
    let mut buf = BytesMut::with_capacity(1024);
    let read = async {
        loop {
            if buf.len() >= MAX_HEAD {
                return Err(HeadError::TooLarge);
            }
            // Never read past the head limit.
            let room = MAX_HEAD - buf.len();
            let mut chunk = (&mut buf).limit(room);
            if stream.read_buf(&mut chunk).await? == 0 {
                return Err(HeadError::Closed);
            }
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut req = httparse::Request::new(&mut headers);
            match req.parse(&buf) {
                Ok(httparse::Status::Partial) => continue,
                Ok(httparse::Status::Complete(n)) => {
                    if req.version != Some(1) {
                        return Err(HeadError::Malformed("HTTP/1.1 is required".into()));
                    }
                    let request = Request {
                        method: req.method.unwrap_or_default().to_owned(),
                        target: req.path.unwrap_or_default().to_owned(),
                        headers: req
                            .headers
                            .iter()
                            .map(|h| {
                                (
                                    h.name.to_owned(),
                                    String::from_utf8_lossy(h.value).trim().to_owned(),
                                )
                            })
                            .collect(),
                    };
                    return Ok((request, n));
                }
                Err(httparse::Error::TooManyHeaders) => return Err(HeadError::TooLarge),
                Err(e) => return Err(HeadError::Malformed(e.to_string())),
            }
        }
    };
    let (request, n) = tokio::time::timeout(limit, read)
        .await
        .map_err(|_| HeadError::Timeout)??;
    let rest = buf.split_off(n).freeze();
    Ok((request, rest))
}

/// Why an upgrade request is refused: the status and a sentence for the body.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub(crate) status: u16,
    pub(crate) reason: &'static str,
    pub(crate) message: String,
    /// An extra header line (without CRLF), e.g. `Sec-WebSocket-Version: 13`.
    pub(crate) header: Option<&'static str>,
}

impl Refusal {
    fn new(status: u16, reason: &'static str, message: impl Into<String>) -> Refusal {
        Refusal {
            status,
            reason,
            message: message.into(),
            header: None,
        }
    }
}

/// Check an upgrade request (RFC 6455 §4.2.1) and the listener's own
/// rules; on success returns the `101 Switching Protocols` response.
pub(crate) fn accept_upgrade(req: &Request, origins: &Origins) -> Result<Vec<u8>, Refusal> {
    if req.method != "GET" {
        return Err(Refusal::new(
            405,
            "Method Not Allowed",
            "a WebSocket upgrade is a GET",
        ));
    }
    if req.header("sec-websocket-version").as_deref() != Some("13") {
        let mut r = Refusal::new(426, "Upgrade Required", "WebSocket version 13 is required");
        r.header = Some("Sec-WebSocket-Version: 13");
        return Err(r);
    }
    let key = req.header("sec-websocket-key").unwrap_or_default();
    if B64.decode(key.as_bytes()).map(|k| k.len()) != Ok(16) {
        return Err(Refusal::new(
            400,
            "Bad Request",
            "Sec-WebSocket-Key must be 16 bytes in base64",
        ));
    }
    if let Some(origin) = req.header("origin")
        && !origins.allows(&origin)
    {
        return Err(Refusal::new(
            403,
            "Forbidden",
            format!("pages from {origin} may not connect (allowed_origins)"),
        ));
    }
    if !req.has_token("sec-websocket-protocol", SUBPROTOCOL) {
        return Err(Refusal::new(
            400,
            "Bad Request",
            format!("the WebSocket subprotocol {SUBPROTOCOL} is required"),
        ));
    }
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(key.as_bytes());
    ctx.update(ACCEPT_GUID);
    let accept = B64.encode(ctx.finish());
    Ok(format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n"
    )
    .into_bytes())
}

/// Write a short plain-text answer and close.
pub(crate) async fn respond<S: AsyncWrite + Unpin>(
    stream: &mut S,
    status: u16,
    reason: &str,
    header: Option<&str>,
    body: &str,
) -> io::Result<()> {
    let extra = header.map(|h| format!("{h}\r\n")).unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n{extra}\r\n",
        body.len() + 1
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.write_all(b"\n").await?;
    stream.flush().await?;
    stream.shutdown().await
}

/// The Content-Security-Policy of every answer from `web_root`
/// (docs/SECURITY.md §5): scripts from this origin only, plus the chat
/// page's import map by its hash (no other inline script, no `eval`, no
/// event-handler attributes); `'wasm-unsafe-eval'` because hash-wasm
/// compiles its Argon2 from bytes (`WebAssembly.compile`), which
/// `script-src` blocks without it; nothing may frame the page, change its
/// base URL or submit its forms anywhere; no plugins.
///
/// `connect-src` names the broker's own WebSocket origin: a page served
/// here connects back to the host and port it was loaded from, with `ws:`
/// (or `wss:` on a `wss_listen` listener). CSP Level 3 lets `'self'` match
/// that, but not every browser does, so the source is spelled out from the
/// request's `Host`. `Host` is the browser's own (a page cannot set it);
/// one that is not `host[:port]` (a DNS name, an IPv4 address or a
/// bracketed IPv6 one) is left out rather than copied into the header,
/// leaving `'self'`.
pub(crate) fn content_security_policy(host: Option<&str>, tls: bool) -> String {
    let mut connect = String::from("'self'");
    if let Some(host) = host.and_then(checked_host) {
        let scheme = if tls { "wss" } else { "ws" };
        let _ = write!(connect, " {scheme}://{host}");
    }
    format!(
        "default-src 'none'; script-src 'self' 'wasm-unsafe-eval' 'sha256-{IMPORT_MAP_SHA256}'; \
         style-src 'self'; img-src 'self'; connect-src {connect}; base-uri 'none'; \
         form-action 'none'; frame-ancestors 'none'; object-src 'none'"
    )
}

/// `host` lowercased if it is `name[:port]` with `name` a DNS name or
/// IPv4 address (letters, digits, `-`, `.`) or `[an IPv6 address]`, and
/// `port` 1–65535; anything else (a `;`, a space, a comma would add to
/// the policy) is `None`.
fn checked_host(host: &str) -> Option<String> {
    let host = host.trim().to_ascii_lowercase();
    let (name, port) = if let Some(v6) = host.strip_prefix('[') {
        let (addr, rest) = v6.split_once(']')?;
        addr.parse::<std::net::Ipv6Addr>().ok()?;
        let port = if rest.is_empty() {
            None
        } else {
            Some(rest.strip_prefix(':')?)
        };
        (&host[..addr.len() + 2], port)
    } else {
        match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host.as_str(), None),
        }
    };
    let dns = |n: &str| {
        !n.is_empty()
            && n.len() <= 253
            && n.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
    };
    if !name.starts_with('[') && !dns(name) {
        return None;
    }
    if let Some(port) = port {
        let digits =
            !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
        if !digits || !port.parse::<u16>().is_ok_and(|p| p > 0) {
            return None;
        }
    }
    Some(host)
}

/// Answer a plain GET or HEAD with a file from `root`, or 404. Paths are
/// percent-decoded, may not climb out of `root` (no `..`, no symbolic link
/// leading outside), hide dotfiles and `node_modules`, and map a directory
/// to its `index.html` (redirecting `/dir` to `/dir/` so relative links
/// work; the redirect is built from the checked path, so it never leaves
/// the origin). Every answer carries [`content_security_policy`] for the
/// request's `Host`; `tls`: the listener is `wss_listen`.
pub(crate) async fn serve_file<S: AsyncWrite + Unpin>(
    stream: &mut S,
    root: &Path,
    req: &Request,
    tls: bool,
) -> io::Result<()> {
    let csp = content_security_policy(req.header("host").as_deref(), tls);
    let headers = format!(
        "Content-Security-Policy: {csp}\r\nX-Content-Type-Options: nosniff\r\n\
         Referrer-Policy: no-referrer"
    );
    let not_found = format!("{headers}\r\nCache-Control: no-cache");
    if req.method != "GET" && req.method != "HEAD" {
        let allow = format!("Allow: GET, HEAD\r\n{headers}");
        return respond(
            stream,
            405,
            "Method Not Allowed",
            Some(&allow),
            "GET or HEAD only",
        )
        .await;
    }
    let path = req.target.split(['?', '#']).next().unwrap_or("");
    let Some(relative) = safe_relative(path) else {
        return respond(stream, 404, "Not Found", Some(&not_found), "not found").await;
    };
    let Some((file, redirect)) = resolve(root, &relative, path.ends_with('/')).await else {
        return respond(stream, 404, "Not Found", Some(&not_found), "not found").await;
    };
    if redirect {
        let location = directory_url(&relative);
        let head = format!(
            "HTTP/1.1 301 Moved Permanently\r\nLocation: {location}\r\nContent-Length: 0\r\n\
             {headers}\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await?;
        stream.flush().await?;
        return stream.shutdown().await;
    }
    let mut f = match tokio::fs::File::open(&file).await {
        Ok(f) => f,
        Err(_) => return respond(stream, 404, "Not Found", Some(&not_found), "not found").await,
    };
    let len = f.metadata().await?.len();
    if len > MAX_FILE {
        return respond(stream, 404, "Not Found", Some(&not_found), "not found").await;
    }
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {len}\r\nCache-Control: no-cache\r\n\
         {headers}\r\nConnection: close\r\n\r\n",
        content_type(&file)
    );
    stream.write_all(head.as_bytes()).await?;
    if req.method == "GET" {
        let mut limited = (&mut f).take(len);
        tokio::io::copy(&mut limited, stream).await?;
    }
    stream.flush().await?;
    stream.shutdown().await
}

/// The percent-decoded path segments of `path`, or `None` if it could
/// name something outside the root or hidden (`..`, dotfiles,
/// `node_modules`, NUL, backslashes, invalid UTF-8).
///
/// `node_modules` is hidden because a `web_root` that is a package
/// directory (`js/`) would otherwise serve every installed package — the
/// test runner, the type checker, a browser driver — and under `script-src
/// 'self'` each of those files is a script an injected `<script src>` may
/// load. Pages load vendored copies instead (`npm run vendor`). Compared
/// without case: on a case-insensitive file system `NODE_MODULES` opens it.
fn safe_relative(path: &str) -> Option<PathBuf> {
    let path = path.strip_prefix('/')?;
    let decoded = percent_decode(path)?;
    let mut out = PathBuf::new();
    for seg in decoded.split('/') {
        if seg.is_empty() || seg == "." {
            continue;
        }
        if seg.starts_with('.')
            || seg.contains(['\\', '\0'])
            || seg.eq_ignore_ascii_case("node_modules")
        {
            return None;
        }
        out.push(seg);
    }
    Some(out)
}

/// The URL of directory `relative` with its trailing slash, made from the
/// checked segments and never from the target as sent: `GET //evil.example`
/// must not answer `Location: //evil.example/`, a protocol-relative URL
/// that leaves this origin. Empty and `.` segments are gone, so the result
/// starts with exactly one `/`; each segment is percent-encoded again, so
/// no decoded `/`, `\`, CR or LF reaches the header.
fn directory_url(relative: &Path) -> String {
    let mut url = String::from("/");
    for seg in relative.iter() {
        for &b in seg.as_encoded_bytes() {
            if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b) {
                url.push(char::from(b));
            } else {
                let _ = write!(url, "%{b:02X}");
            }
        }
        url.push('/');
    }
    url
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The file to serve for `relative` under `root` (canonical, inside the
/// canonical root), and whether the client should be redirected to the
/// directory's URL with a trailing slash instead.
async fn resolve(root: &Path, relative: &Path, slash: bool) -> Option<(PathBuf, bool)> {
    let root = tokio::fs::canonicalize(root).await.ok()?;
    let mut path = tokio::fs::canonicalize(root.join(relative)).await.ok()?;
    if !path.starts_with(&root) {
        return None;
    }
    if tokio::fs::metadata(&path).await.ok()?.is_dir() {
        if !slash && !relative.as_os_str().is_empty() {
            return Some((path, true));
        }
        path = tokio::fs::canonicalize(path.join("index.html"))
            .await
            .ok()?;
        if !path.starts_with(&root) {
            return None;
        }
    }
    tokio::fs::metadata(&path)
        .await
        .ok()?
        .is_file()
        .then_some((path, false))
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "txt" | "md" | "ts" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_only_by_default() {
        let o = Origins::new(&[]).expect("empty is valid");
        for ok in [
            "http://localhost:8080",
            "http://127.0.0.1",
            "https://127.1.2.3:9094",
            "http://[::1]:3000",
            "HTTP://LOCALHOST",
        ] {
            assert!(o.allows(ok), "{ok}");
        }
        for bad in [
            "https://evil.example",
            "http://localhost.evil.example",
            "http://192.168.1.2",
            "null",
            "file://",
        ] {
            assert!(!o.allows(bad), "{bad}");
        }
    }

    #[test]
    fn listed_origins_match_exactly_and_star_matches_all() {
        let o = Origins::new(&["https://Chat.Example.com/".into()]).expect("valid");
        assert!(o.allows("https://chat.example.com"));
        assert!(!o.allows("http://chat.example.com"));
        assert!(!o.allows("https://chat.example.com:8443"));
        assert!(
            !o.allows("http://localhost"),
            "a list replaces the loopback default"
        );
        assert!(
            Origins::new(&["*".into()])
                .expect("valid")
                .allows("https://anything")
        );
        for bad in ["chat.example.com", "https://a/b", "https://", "ftp://x"] {
            assert!(Origins::new(&[bad.into()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_cannot_climb_or_reach_dotfiles() {
        assert_eq!(safe_relative("/a/b.js"), Some(PathBuf::from("a/b.js")));
        assert_eq!(safe_relative("/a%20b/c"), Some(PathBuf::from("a b/c")));
        assert_eq!(safe_relative("/"), Some(PathBuf::new()));
        for bad in [
            "/../etc/passwd",
            "/a/%2e%2e/%2e%2e/x",
            "/.git/config",
            "/a\\..\\b",
            "/a%00",
            "/%zz",
            "relative",
            "/node_modules/hash-wasm/dist/index.esm.js",
            "/a/Node_Modules/x.js",
            "/%6eode_modules/x.js",
        ] {
            assert_eq!(safe_relative(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_policy_names_the_hosts_own_websocket_origin_and_nothing_injected() {
        let csp = content_security_policy(Some("127.0.0.1:9094"), false);
        assert!(
            csp.contains("; connect-src 'self' ws://127.0.0.1:9094;"),
            "{csp}"
        );
        for directive in [
            "default-src 'none'",
            "script-src 'self' 'wasm-unsafe-eval' 'sha256-",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "object-src 'none'",
        ] {
            assert!(csp.contains(directive), "{directive}: {csp}");
        }
        assert!(!csp.contains("unsafe-inline") && !csp.contains("'unsafe-eval'"));
        let wss = content_security_policy(Some("Chat.Example.COM"), true);
        assert!(
            wss.contains("connect-src 'self' wss://chat.example.com;"),
            "{wss}"
        );
        let v6 = content_security_policy(Some("[::1]:8080"), false);
        assert!(v6.contains("connect-src 'self' ws://[::1]:8080;"), "{v6}");
        for bad in [
            "evil; script-src *",
            "a b",
            "a,b",
            "x:0",
            "x:65536",
            "x:",
            "[::1",
            "[::1]x",
            "[zz]:1",
            "a..b",
            "",
            "*",
            "host/path",
        ] {
            let csp = content_security_policy(Some(bad), false);
            assert!(csp.contains("connect-src 'self'; "), "{bad:?}: {csp}");
        }
        assert!(content_security_policy(None, false).contains("connect-src 'self'; "));
    }

    #[test]
    fn a_hash_names_the_chat_pages_import_map() {
        let page =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../js/examples/chat/index.html");
        let html = std::fs::read_to_string(&page).expect("the chat page is in the repository");
        let open = r#"<script type="importmap">"#;
        let start = html.find(open).expect("the page has an import map") + open.len();
        let len = html[start..].find("</script>").expect("a closed script");
        let digest =
            ring::digest::digest(&ring::digest::SHA256, &html.as_bytes()[start..start + len]);
        assert_eq!(
            B64.encode(digest),
            IMPORT_MAP_SHA256,
            "the import map in {} changed: set IMPORT_MAP_SHA256 to its hash",
            page.display()
        );
        assert_eq!(
            html.matches("<script").count(),
            2,
            "one inline script (the import map) and app.js"
        );
    }

    #[test]
    fn redirects_are_made_from_the_checked_segments() {
        let url = |target: &str| directory_url(&safe_relative(target).expect("a safe path"));
        assert_eq!(url("/sub"), "/sub/");
        assert_eq!(url("//evil.example"), "/evil.example/");
        assert_eq!(url("/%2F%2Fevil.example/./x"), "/evil.example/x/");
        assert_eq!(url("/a%20b"), "/a%20b/");
        assert_eq!(url("/x%0d%0ay:%20z"), "/x%0D%0Ay:%20z/");
        assert_eq!(url("/%C3%A9t%C3%A9"), "/%C3%A9t%C3%A9/");
    }

    #[test]
    fn the_accept_key_is_rfc_6455s_example() {
        // RFC 6455 §1.3: key "dGhlIHNhbXBsZSBub25jZQ==" → accept "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
        let req = Request {
            method: "GET".into(),
            target: "/".into(),
            headers: vec![
                ("Upgrade".into(), "websocket".into()),
                ("Connection".into(), "Upgrade".into()),
                (
                    "Sec-WebSocket-Key".into(),
                    "dGhlIHNhbXBsZSBub25jZQ==".into(),
                ),
                ("Sec-WebSocket-Version".into(), "13".into()),
                ("Sec-WebSocket-Protocol".into(), "chat, hermitmq.v3".into()),
            ],
        };
        let origins = Origins::new(&[]).expect("valid");
        let resp =
            String::from_utf8(accept_upgrade(&req, &origins).expect("accepted")).expect("utf8");
        assert!(
            resp.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
            "{resp}"
        );
        assert!(resp.contains("Sec-WebSocket-Protocol: hermitmq.v3\r\n"));
    }
}
