//! The chat page's origin through a real `hermit broker` process serving
//! `js/` as its `web_root` (as the README runs it): every answer — a page, a
//! script, the vendored hash-wasm, a redirect, a 404, a refused method —
//! carries the Content-Security-Policy of docs/SECURITY.md §5, with
//! `connect-src` naming the broker's own WebSocket origin as the browser
//! addressed it; and nothing under `node_modules` is served.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

use hermit_e2e_tests::{path_str, start_broker};

/// One request on its own connection (the broker answers one per
/// connection and closes): the status line and the headers, lowercased
/// names.
fn ask(addr: SocketAddr, method: &str, target: &str, host: &str) -> (u16, Vec<(String, String)>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "{method} {target} HTTP/1.1\r\nHost: {host}\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let text = String::from_utf8_lossy(&answer);
    let head = text.split("\r\n\r\n").next().unwrap_or_default();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Vec<&'a str> {
    headers
        .iter()
        .filter(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .collect()
}

#[test]
fn every_web_root_answer_carries_the_content_security_policy() {
    let dir = tempfile::tempdir().unwrap();
    let js = Path::new(env!("CARGO_MANIFEST_DIR")).join("../js");
    let broker = start_broker(
        &dir.path().join("data"),
        "127.0.0.1:0",
        &["--ws-listen", "127.0.0.1:0", "--web-root", path_str(&js)],
    );
    let ws = broker
        .ws_addr(Duration::from_secs(30))
        .expect("the broker logs its WebSocket listener");
    let host = ws.to_string();

    let cases = [
        ("GET", "/examples/chat/", 200),
        ("HEAD", "/examples/chat/index.html", 200),
        ("GET", "/examples/chat/app.js", 200),
        ("GET", "/examples/chat/style.css", 200),
        ("GET", "/examples/chat/vendor/hash-wasm/index.esm.js", 200),
        ("GET", "/src/index.js", 200),
        ("GET", "/examples/chat", 301),
        ("GET", "/no/such/file", 404),
        ("POST", "/examples/chat/", 405),
        // The packages are installed (`npm ci`), and never served.
        ("GET", "/node_modules/hash-wasm/dist/index.esm.js", 404),
        ("GET", "/node_modules/hash-wasm/package.json", 404),
        (
            "GET",
            "/examples/../node_modules/puppeteer-core/package.json",
            404,
        ),
    ];
    assert!(
        js.join("node_modules/hash-wasm/dist/index.esm.js").exists(),
        "run `npm ci` in js/ first: the 404s below must be refusals, not missing files"
    );
    for (method, target, want) in cases {
        let (status, headers) = ask(ws, method, target, &host);
        assert_eq!(status, want, "{method} {target}");
        let csp = header(&headers, "content-security-policy");
        assert_eq!(csp.len(), 1, "{method} {target}: one policy, got {csp:?}");
        let csp = csp[0];
        for directive in [
            "default-src 'none'",
            "script-src 'self' 'wasm-unsafe-eval' 'sha256-",
            &format!("connect-src 'self' ws://{host};"),
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "object-src 'none'",
        ] {
            assert!(
                csp.contains(directive),
                "{method} {target}: no {directive:?} in {csp:?}"
            );
        }
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("'unsafe-eval'") && !csp.contains('*'),
            "{method} {target}: {csp}"
        );
        assert_eq!(
            header(&headers, "x-content-type-options"),
            ["nosniff"],
            "{method} {target}"
        );
    }

    // A Host that is not host[:port] is not copied into the policy.
    let (status, headers) = ask(ws, "GET", "/examples/chat/", "evil; script-src *");
    assert_eq!(status, 200);
    let csp = header(&headers, "content-security-policy")[0];
    assert!(csp.contains("connect-src 'self'; "), "{csp}");
    assert!(!csp.contains("evil"), "{csp}");
}
