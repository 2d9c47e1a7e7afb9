//! Real `nats-server` processes for the NATS transport tests: one server
//! with JetStream, or a cluster with routes, each on free loopback ports
//! with its own store directory. Every process is killed by the PID this
//! helper spawned, when the test ends (or on purpose, mid-test).
//!
//! A missing `nats-server` fails the test with instructions: the tests are
//! not skipped (`scripts/test.sh` installs it).

use std::fs::File;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hermit_client::{Client, ClientOptions};

use super::free_addr;

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

/// One `nats-server` process.
pub struct NatsServer {
    pub name: String,
    pub port: u16,
    pub store: PathBuf,
    args: Vec<String>,
    log: PathBuf,
    child: Option<Child>,
}

impl NatsServer {
    fn spawn(name: &str, dir: &Path, port: u16, extra: &[String]) -> NatsServer {
        let mut args = vec!["-js".to_owned()];
        args.extend_from_slice(extra);
        NatsServer::spawn_with(name, dir, port, &args)
    }

    fn spawn_with(name: &str, dir: &Path, port: u16, extra: &[String]) -> NatsServer {
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
        let mut s = NatsServer {
            name: name.to_owned(),
            port,
            store,
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
        let child = Command::new(nats_server_bin())
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
        NatsServer::spawn("solo", dir, free_addr().port(), &[])
    }

    /// A single server with JetStream and the configuration file `config`
    /// (e.g. an `authorization { … }` block), written next to its store.
    pub fn with_config(dir: &Path, config: &str) -> NatsServer {
        let file = dir.join("nats-server.conf");
        std::fs::write(&file, config).expect("write the nats-server config");
        NatsServer::spawn(
            "conf",
            dir,
            free_addr().port(),
            &["-c".to_owned(), file.display().to_string()],
        )
    }

    /// A server without JetStream (a misconfiguration the client must name).
    pub fn without_jetstream(dir: &Path) -> NatsServer {
        NatsServer::spawn_with("plain", dir, free_addr().port(), &[])
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
    pub fn start(dir: &Path, n: usize) -> NatsCluster {
        let client_ports: Vec<u16> = (0..n).map(|_| free_addr().port()).collect();
        let route_ports: Vec<u16> = (0..n).map(|_| free_addr().port()).collect();
        let routes = route_ports
            .iter()
            .map(|p| format!("nats://127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(",");
        let nodes = (0..n)
            .map(|i| {
                NatsServer::spawn(
                    &format!("n{i}"),
                    dir,
                    client_ports[i],
                    &[
                        "--cluster_name".to_owned(),
                        "hermit".to_owned(),
                        "--cluster".to_owned(),
                        format!("nats://127.0.0.1:{}", route_ports[i]),
                        "--routes".to_owned(),
                        routes.clone(),
                    ],
                )
            })
            .collect();
        NatsCluster { nodes }
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
