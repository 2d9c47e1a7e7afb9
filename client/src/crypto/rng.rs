//! The userspace CSPRNG used for IVs, salts and content keys.
//!
//! One `getrandom` call seeds a ChaCha12 generator (`rand::rngs::StdRng`); after
//! that, random bytes cost no system call. Each [`Sealer`](super::Sealer) and
//! [`ChatCrypto`](super::ChatCrypto) owns one, so no lock is shared between them.

use rand::SeedableRng;
use rand::rngs::{StdRng, SysRng};

/// The operating system's random source failed while seeding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SeedError;

/// A ChaCha12 CSPRNG seeded from the operating system.
pub(crate) fn seeded() -> Result<StdRng, SeedError> {
    StdRng::try_from_rng(&mut SysRng).map_err(|_| SeedError)
}
