//! The power-loss simulation: a file system behind the storage engine's
//! I/O seam that forgets what was not synced ([`fs`]), its generator
//! ([`rng`]), and the harness that drives a log over it ([`harness`]).
#![allow(dead_code)]

pub mod fs;
pub mod harness;
pub mod rng;
