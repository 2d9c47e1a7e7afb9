//! The sealer's random generator across `fork()`: a process that has already
//! sealed forks two children; parent and children then seal the same
//! plaintext to the same peer, and every one of them must have drawn its
//! own IVs, message salts and content keys (`crypto::rng`'s module docs).
//!
//! A real `fork(2)` through libc, as a program that embeds the SDK would do
//! it. This test binary has no harness (`harness = false` in Cargo.toml):
//! it runs on one thread, so the children may allocate and seal safely
//! after the fork (no lock can be held by a thread that does not exist in
//! the child). A child only seals, writes what it sealed to a pipe and
//! `_exit`s.

use std::fs::File;
use std::io::{Read as _, Write as _};
use std::os::fd::{FromRawFd as _, OwnedFd};

use hermit_client::crypto::envelope::{DIRECT_IV_AT, IV_LEN, MSG_SALT_LEN, MULTI_SALT_AT};
use hermit_client::crypto::{ChatCrypto, Identity, PublicKey, Sealer};

const TOPIC: &str = "inbox";
const PLAINTEXT: &[u8] = b"the same message, sealed in every process";

/// What one process drew through the sealing code paths.
#[derive(Debug, PartialEq, Eq)]
struct Draws {
    /// A DIRECT record: its IV is drawn from the sealer's generator.
    direct: Vec<u8>,
    /// A MULTI record: its content key and message salt are drawn.
    multi: Vec<u8>,
    /// A legacy `ChatCrypto` message's IV.
    compat_iv: String,
}

impl Draws {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for part in [&self.direct[..], &self.multi, self.compat_iv.as_bytes()] {
            out.extend_from_slice(&(part.len() as u32).to_be_bytes());
            out.extend_from_slice(part);
        }
        out
    }

    fn decode(mut bytes: &[u8]) -> Self {
        let mut parts = Vec::new();
        for _ in 0..3 {
            let (len, rest) = bytes.split_at(4);
            let len = u32::from_be_bytes(len.try_into().expect("4 bytes")) as usize;
            let (part, rest) = rest.split_at(len);
            parts.push(part.to_vec());
            bytes = rest;
        }
        assert!(bytes.is_empty(), "trailing bytes from the child");
        let compat_iv = String::from_utf8(parts.pop().expect("3 parts")).expect("base64");
        let multi = parts.pop().expect("3 parts");
        let direct = parts.pop().expect("3 parts");
        Self {
            direct,
            multi,
            compat_iv,
        }
    }

    fn direct_iv(&self) -> &[u8] {
        &self.direct[DIRECT_IV_AT..DIRECT_IV_AT + IV_LEN]
    }

    fn multi_salt(&self) -> &[u8] {
        &self.multi[MULTI_SALT_AT..MULTI_SALT_AT + MSG_SALT_LEN]
    }
}

struct Parties {
    sealer: Sealer,
    chat: ChatCrypto,
    peers: Vec<PublicKey>,
}

impl Parties {
    fn draw(&mut self) -> Draws {
        Draws {
            direct: self
                .sealer
                .seal_direct(TOPIC, &self.peers[0], PLAINTEXT)
                .expect("seal direct"),
            multi: self
                .sealer
                .seal_multi(TOPIC, &self.peers, PLAINTEXT)
                .expect("seal multi"),
            compat_iv: self.chat.encrypt(PLAINTEXT).expect("encrypt").iv,
        }
    }
}

/// Forks a child that draws once, writes its draws to a pipe and exits;
/// returns its pid and the pipe's read end.
fn fork_child(parties: &mut Parties) -> (libc::pid_t, File) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: pipe(2) just returned these descriptors; each is owned once.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: this process has one thread (no harness), so the child may
    // allocate and seal; it leaves through `_exit`, never returning here.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        drop(read);
        let bytes = parties.draw().encode();
        let ok = File::from(write).write_all(&bytes).is_ok();
        // SAFETY: ends the child without running the parent's exit handlers.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    drop(write);
    (pid, File::from(read))
}

fn collect(pid: libc::pid_t, mut pipe: File) -> Draws {
    let mut bytes = Vec::new();
    pipe.read_to_end(&mut bytes)
        .expect("read the child's draws");
    let mut status = 0;
    // SAFETY: `pid` is our child; `status` is a valid out-pointer.
    assert_eq!(
        unsafe { libc::waitpid(pid, &mut status, 0) },
        pid,
        "waitpid"
    );
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child {pid} failed: status {status}"
    );
    Draws::decode(&bytes)
}

fn main() {
    let me = Identity::generate().expect("os rng");
    let bob = Identity::generate().expect("os rng");
    let carol = Identity::generate().expect("os rng");
    let mut parties = Parties {
        sealer: Sealer::new(me.clone()).expect("os rng"),
        chat: ChatCrypto::new(&me, bob.public_key()).expect("os rng"),
        peers: vec![bob.public_key().clone(), carol.public_key().clone()],
    };
    // The generators are used before the fork: their state is what a
    // child inherits.
    let before = parties.draw();

    let (pid_a, pipe_a) = fork_child(&mut parties);
    let (pid_b, pipe_b) = fork_child(&mut parties);
    let parent = parties.draw();
    let a = collect(pid_a, pipe_a);
    let b = collect(pid_b, pipe_b);

    let all = [
        ("before the fork", &before),
        ("parent", &parent),
        ("child a", &a),
        ("child b", &b),
    ];
    for (i, (who, x)) in all.iter().enumerate() {
        for (whom, y) in &all[i + 1..] {
            assert_ne!(
                x.direct_iv(),
                y.direct_iv(),
                "{who} and {whom} drew the same DIRECT IV"
            );
            assert_ne!(
                x.multi_salt(),
                y.multi_salt(),
                "{who} and {whom} drew the same MULTI salt"
            );
            assert_ne!(
                x.compat_iv, y.compat_iv,
                "{who} and {whom} drew the same ChatCrypto IV"
            );
        }
    }
    // Everything else the records depend on is the same in every process
    // (key, topic, sequence number, plaintext): they differ only by what
    // was drawn, so the DIRECT records differ, not merely their IVs.
    assert_eq!(a.direct.len(), parent.direct.len());
    assert_ne!(a.direct, parent.direct);
    println!("rng_fork: parent and two forked children drew distinct IVs, salts and keys");
}
