//! One `GET /metrics` over a plain `TcpStream`: the broker's admin
//! listener speaks HTTP/1.1 and closes every connection after its answer,
//! so a request line, three headers and a read to the end are all the
//! HTTP this needs (no client crate, no async runtime).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use anyhow::Context;
use zeroize::Zeroizing;

/// Longest body read: far above what a broker's guarded series add up to,
/// low enough that a wrong port cannot fill memory.
pub const MAX_BODY: usize = 16 << 20;

/// Longest status line and headers.
const MAX_HEAD: usize = 64 << 10;

/// Connecting, each read, and the whole exchange are bounded by this: a
/// broker that stopped answering is reported instead of freezing the view.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// Where to scrape, and with what.
#[derive(Clone)]
pub struct Target {
    /// `host:port` as given (also the `Host` header).
    pub addr: String,
    /// The bearer token, if the broker wants one.
    pub token: Option<Zeroizing<String>>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("addr", &self.addr)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// The admin listener answered, but not with 200: shown as the error line
/// and, for `--once`, the exit status (401/403: 4, others: 3).
#[derive(Debug)]
pub struct HttpStatus {
    /// The status code.
    pub code: u16,
    /// The reason phrase and the body's first line, escaped for a terminal.
    detail: String,
}

impl std::fmt::Display for HttpStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "/metrics answered {}{}", self.code, self.detail)
    }
}

impl std::error::Error for HttpStatus {}

impl Target {
    /// `--admin` as given: `host:port`, or `http://host:port[/]`.
    pub fn new(admin: &str, token: Option<Zeroizing<String>>) -> anyhow::Result<Target> {
        let addr = admin.strip_prefix("http://").unwrap_or(admin);
        let addr = addr.strip_suffix('/').unwrap_or(addr);
        if addr.is_empty() || addr.contains(['/', ' ', '\r', '\n']) {
            anyhow::bail!("--admin {admin:?} is not host:port");
        }
        Ok(Target {
            addr: addr.to_owned(),
            token,
        })
    }

    /// Fetch `/metrics` and return its body as text.
    pub fn scrape(&self) -> anyhow::Result<String> {
        let deadline = Instant::now() + TIMEOUT;
        let mut stream = self.connect()?;
        let mut request = Zeroizing::new(Vec::with_capacity(256));
        // Writing into a Vec cannot fail.
        let _ = write!(
            request,
            "GET /metrics HTTP/1.1\r\nHost: {}\r\nUser-Agent: hermit-top/{}\r\n\
             Accept: text/plain; version=0.0.4\r\nConnection: close\r\n",
            self.addr,
            env!("CARGO_PKG_VERSION")
        );
        if let Some(token) = &self.token {
            let _ = write!(request, "Authorization: Bearer {}\r\n", token.as_str());
        }
        request.extend_from_slice(b"\r\n");
        stream
            .set_write_timeout(Some(TIMEOUT))
            .and_then(|()| stream.write_all(&request))
            .with_context(|| format!("cannot send the request to {}", self.addr))?;
        let raw = read_all(&mut stream, deadline, MAX_HEAD + MAX_BODY)
            .with_context(|| format!("cannot read the answer of {}", self.addr))?;
        let body = parse_response(&raw).with_context(|| format!("{} answered", self.addr))??;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    fn connect(&self) -> anyhow::Result<TcpStream> {
        let addrs = self
            .addr
            .to_socket_addrs()
            .with_context(|| format!("cannot resolve {}", self.addr))?;
        let mut last = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, TIMEOUT) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        let e = last.unwrap_or_else(|| std::io::Error::other("no address"));
        Err(anyhow::Error::new(e).context(format!("cannot connect to {}", self.addr)))
    }
}

/// Read to the end of the stream, at most `cap` bytes, by `deadline`.
fn read_all(stream: &mut TcpStream, deadline: Instant, cap: usize) -> anyhow::Result<Vec<u8>> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 64 << 10];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            anyhow::bail!("no complete answer within {} s", TIMEOUT.as_secs());
        }
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(&mut buf) {
            Ok(0) => return Ok(raw),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                anyhow::bail!("no complete answer within {} s", TIMEOUT.as_secs())
            }
            Err(e) => return Err(e.into()),
        };
        if raw.len() + n > cap {
            anyhow::bail!("the answer is larger than {} MiB", MAX_BODY >> 20);
        }
        raw.extend_from_slice(&buf[..n]);
    }
}

/// A whole HTTP/1.x response: its body when the status is 200, the status
/// as [`HttpStatus`] otherwise. The outer error is a response that is not
/// HTTP or is cut short.
fn parse_response(raw: &[u8]) -> anyhow::Result<Result<Vec<u8>, HttpStatus>> {
    let head_end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .context("not an HTTP response (no end of headers)")?;
    let head = std::str::from_utf8(&raw[..head_end]).context("headers are not text")?;
    let body = &raw[head_end + 4..];
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or("");
    let code = parts.next().and_then(|c| c.parse::<u16>().ok());
    let (true, Some(code)) = (version.starts_with("HTTP/1."), code) else {
        anyhow::bail!("not an HTTP response ({:.60})", escape(status_line));
    };
    let reason = parts.next().unwrap_or("").trim();
    let mut content_length = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            content_length = Some(
                value
                    .parse::<usize>()
                    .with_context(|| format!("bad Content-Length {:.40}", escape(value)))?,
            );
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.to_ascii_lowercase().contains("chunked");
        }
    }
    let body = if chunked {
        dechunk(body)?
    } else if let Some(len) = content_length {
        if body.len() < len {
            anyhow::bail!("body cut short ({} of {len} bytes)", body.len());
        }
        body[..len].to_vec()
    } else {
        body.to_vec()
    };
    if code != 200 {
        let first = String::from_utf8_lossy(&body);
        let first = first.lines().next().unwrap_or("").trim();
        let mut detail = String::new();
        if !reason.is_empty() {
            detail = format!(" {}", escape(reason));
        }
        if !first.is_empty() {
            detail.push_str(&format!(": {:.200}", escape(first)));
        }
        return Ok(Err(HttpStatus { code, detail }));
    }
    Ok(Ok(body))
}

/// A chunked body, decoded (extensions and trailers ignored).
fn dechunk(mut rest: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .context("chunked body cut short")?;
        let size_text = std::str::from_utf8(&rest[..line_end]).unwrap_or("");
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .with_context(|| format!("bad chunk size {:.20}", escape(size_text)))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        if rest.len() < size.saturating_add(2) {
            anyhow::bail!("chunked body cut short");
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

/// Text from the network, safe to print on a terminal.
fn escape(s: &str) -> String {
    crate::out::escaped(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(raw: &[u8]) -> Vec<u8> {
        parse_response(raw).expect("HTTP").expect("status 200")
    }

    #[test]
    fn bodies_by_length_by_chunks_and_to_the_end() {
        assert_eq!(
            ok(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"),
            b"hello"
        );
        assert_eq!(ok(b"HTTP/1.0 200 OK\r\n\r\nto the end\n"), b"to the end\n");
        assert_eq!(
            ok(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\
                 5\r\nhello\r\nA;ext=1\r\n, chunked!\r\n0\r\n\r\n"),
            b"hello, chunked!"
        );
    }

    #[test]
    fn a_status_other_than_200_is_the_error() {
        let e = parse_response(
            b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 22\r\n\r\nbearer token needed\r\n\r\n",
        )
        .expect("HTTP")
        .expect_err("401");
        assert_eq!(e.code, 401);
        assert_eq!(
            e.to_string(),
            "/metrics answered 401 Unauthorized: bearer token needed"
        );
        // What the broker sends is escaped before it reaches a terminal.
        let e = parse_response(b"HTTP/1.1 500 \x1b[2J\r\n\r\n\x1b]0;x\x07\n")
            .expect("HTTP")
            .expect_err("500");
        assert_eq!(
            e.to_string(),
            "/metrics answered 500 \\x1b[2J: \\x1b]0;x\\x07"
        );
    }

    #[test]
    fn what_is_not_http_is_an_error() {
        for raw in [
            &b""[..],
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n",
            b"SSH-2.0-OpenSSH\r\n\r\n",
            b"HTTP/1.1 abc OK\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ] {
            assert!(
                parse_response(raw).is_err(),
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn admin_addresses() {
        assert_eq!(
            Target::new("127.0.0.1:9644", None).expect("ok").addr,
            "127.0.0.1:9644"
        );
        assert_eq!(
            Target::new("http://host:1/", None).expect("ok").addr,
            "host:1"
        );
        assert!(Target::new("host:1/metrics", None).is_err());
        assert!(Target::new("", None).is_err());
        let t = Target::new("h:1", Some(Zeroizing::new("s3cret".into()))).expect("ok");
        assert!(!format!("{t:?}").contains("s3cret"));
    }
}
