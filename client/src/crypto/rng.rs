//! The userspace CSPRNG used for IVs, salts and content keys.
//!
//! One `getrandom` call seeds a ChaCha12 generator (`rand::rngs::StdRng`); after
//! that, random bytes cost no system call for the generator itself. Each
//! [`Sealer`](super::Sealer) and [`ChatCrypto`](super::ChatCrypto) owns one
//! [`Csprng`], so no lock is shared between them; the state sealer and
//! [`BlindingKey::generate_group`](super::BlindingKey::generate_group) seed a
//! fresh one for each call.
//!
//! # fork()
//!
//! A child made by `fork()` starts with a copy of its parent's memory,
//! generator state included: without care, parent and child (and every
//! sibling) would draw the same bytes next, and an AES-GCM IV drawn twice
//! under one key gives away the XOR of two plaintexts and the key's
//! authentication subkey. So the first generator made registers a
//! `pthread_atfork` child handler that adds one to a process-wide *fork
//! epoch*; every [`Csprng`] remembers the epoch it was seeded in and
//! compares it before each draw (one relaxed atomic load), reseeding from
//! the operating system first when it changed. A forked child, or a child
//! of a child, therefore never repeats its parent's or a sibling's IVs,
//! salts or content keys. `client/tests/rng_fork.rs` forks a process that
//! has sealed and checks it.
//!
//! Why not compare `getpid()` on each draw: it is a system call, and
//! measured on `seal_direct/27B` it doubled the cost of sealing a small
//! record (≈210 ns → ≈430 ns); the epoch check is not measurable. If the
//! handler cannot be registered (`pthread_atfork` fails only for lack of
//! memory), generators fall back to that process id comparison.
//!
//! What it does not cover: a child made without libc's `fork` (a raw
//! `clone` system call, which runs no fork handlers) that draws before it
//! `exec`s; and one process snapshot restored twice (CRIU, a VM snapshot),
//! whose copies keep their memory and process id.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rand::rngs::{StdRng, SysRng};
use rand::{Rng as _, SeedableRng};

/// The operating system's random source failed while seeding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SeedError;

/// Forks this process has been through: the atfork child handler adds
/// one in each new child.
static FORK_EPOCH: AtomicU64 = AtomicU64::new(0);
/// Whether the handler is registered (else generators compare process ids).
static HANDLER: AtomicBool = AtomicBool::new(false);
static REGISTER: Once = Once::new();

/// Runs in the child, in the thread that called `fork`, before `fork`
/// returns there: an atomic add is async-signal-safe.
extern "C" fn forked_child() {
    FORK_EPOCH.fetch_add(1, Ordering::Relaxed);
}

fn register_fork_handler() {
    REGISTER.call_once(|| {
        // SAFETY: `forked_child` is an `extern "C" fn()` that lives as long
        // as the process and does only an atomic add; no prepare or parent
        // handler is registered.
        let rc = unsafe { libc::pthread_atfork(None, None, Some(forked_child)) };
        HANDLER.store(rc == 0, Ordering::Relaxed);
    });
}

/// Where a generator was seeded: compared before each draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The fork epoch at seeding (the atfork handler is registered).
    Epoch(u64),
    /// The process id at seeding (the handler could not be registered).
    Pid(u32),
}

impl Origin {
    fn current() -> Self {
        if HANDLER.load(Ordering::Relaxed) {
            Origin::Epoch(FORK_EPOCH.load(Ordering::Relaxed))
        } else {
            Origin::Pid(std::process::id())
        }
    }
}

/// A ChaCha12 CSPRNG seeded from the operating system, reseeded in a new
/// process after `fork()` (see the [module docs](self)).
pub(crate) struct Csprng {
    rng: StdRng,
    /// The process (fork epoch) the generator was last seeded in.
    origin: Origin,
}

impl Csprng {
    /// Fills `dest` with random bytes; in a process other than the one it
    /// was seeded in (a forked child), reseeds from the OS first.
    ///
    /// # Errors
    /// [`SeedError`] if that reseed fails; `dest` is left untouched then.
    pub(crate) fn fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), SeedError> {
        if Origin::current() != self.origin {
            *self = seeded()?;
        }
        self.rng.fill_bytes(dest);
        Ok(())
    }
}

/// A fresh [`Csprng`], seeded from the OS in the current process.
pub(crate) fn seeded() -> Result<Csprng, SeedError> {
    register_fork_handler();
    Ok(Csprng {
        rng: StdRng::try_from_rng(&mut SysRng).map_err(|_| SeedError)?,
        origin: Origin::current(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generator with a fixed seed, on record as seeded at `origin`.
    fn fixed(origin: Origin) -> Csprng {
        Csprng {
            rng: StdRng::from_seed([7; 32]),
            origin,
        }
    }

    #[test]
    fn a_generator_from_another_process_reseeds_before_drawing() {
        register_fork_handler();
        let here = Origin::current();
        // Two copies of one generator state, as after a fork: one seeded
        // here, one on record as seeded before a fork (another epoch) or
        // in another process.
        let elsewhere = match here {
            Origin::Epoch(e) => Origin::Epoch(e.wrapping_add(1)),
            Origin::Pid(p) => Origin::Pid(p.wrapping_add(1)),
        };
        let (mut a, mut child, mut b) = (fixed(here), fixed(elsewhere), fixed(here));
        let [mut x, mut y, mut z] = [[0u8; 32]; 3];
        a.fill_bytes(&mut x).expect("draw");
        child.fill_bytes(&mut y).expect("draw");
        b.fill_bytes(&mut z).expect("draw");
        assert_ne!(x, y, "a copied generator from another process repeated");
        assert_eq!(child.origin, here, "reseeded in this process");
        assert_eq!(x, z, "same seed, same process: the state is simply used");
    }

    #[test]
    fn the_fork_handler_is_registered() {
        register_fork_handler();
        assert!(HANDLER.load(Ordering::Relaxed), "pthread_atfork failed");
    }
}
