//! Shared helpers for the client's real-socket tests: an in-process broker on
//! a real port, a stallable TCP proxy, a scripted fake broker.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(feature = "nats")]
pub mod nats;

use hermit_broker::config::Config;
use hermit_broker::embedded::EmbeddedBroker;
use hermit_client::{Client, ClientOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A free loopback port: bind port 0, note the port, release it. A broker
/// started (and restarted) on it keeps one address for the whole test.
pub fn free_addr() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind port 0");
    l.local_addr().expect("local addr")
}

/// Start a broker over `dir` on `addr` with `tweak` applied to the test config.
pub async fn broker_at(
    dir: &Path,
    addr: SocketAddr,
    tweak: impl FnOnce(&mut Config),
) -> EmbeddedBroker {
    let mut config = EmbeddedBroker::test_config();
    config.listen = addr;
    tweak(&mut config);
    EmbeddedBroker::start(dir, config)
        .await
        .expect("broker starts")
}

/// Start a broker on any free port.
pub async fn broker(dir: &Path, tweak: impl FnOnce(&mut Config)) -> EmbeddedBroker {
    broker_at(dir, SocketAddr::from(([127, 0, 0, 1], 0)), tweak).await
}

/// A client with default options.
pub async fn client(addr: SocketAddr) -> Client {
    Client::connect(addr.to_string(), ClientOptions::default())
        .await
        .expect("client connects")
}

/// A TCP proxy whose client-to-broker direction can be stalled: while
/// stalled it reads nothing from the client, so the client's writes back up
/// into its socket buffers and then into the client itself.
pub struct StallProxy {
    pub addr: SocketAddr,
    stalled: watch::Sender<bool>,
    pub forwarded_up: Arc<std::sync::atomic::AtomicU64>,
}

impl StallProxy {
    pub async fn start(upstream: SocketAddr) -> StallProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let (stalled, _) = watch::channel(false);
        let forwarded_up = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let rx = stalled.subscribe();
        let fwd = forwarded_up.clone();
        tokio::spawn(async move {
            while let Ok((down, _)) = listener.accept().await {
                let Ok(up) = TcpStream::connect(upstream).await else {
                    return;
                };
                let (mut dr, mut dw) = down.into_split();
                let (mut ur, mut uw) = up.into_split();
                let mut rx = rx.clone();
                let fwd = fwd.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        // Wait while stalled, before reading anything more.
                        while *rx.borrow_and_update() {
                            if rx.changed().await.is_err() {
                                return;
                            }
                        }
                        let n = tokio::select! {
                            r = dr.read(&mut buf) => match r { Ok(0) | Err(_) => return, Ok(n) => n },
                            _ = rx.changed() => continue,
                        };
                        if uw.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                        fwd.fetch_add(n as u64, Ordering::Relaxed);
                    }
                });
                tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut ur, &mut dw).await;
                });
            }
        });
        StallProxy {
            addr,
            stalled,
            forwarded_up,
        }
    }

    pub fn stall(&self, on: bool) {
        self.stalled.send_replace(on);
    }
}

/// A flag a test sets from one task and reads from another.
pub fn flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}
