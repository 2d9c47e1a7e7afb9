//! `Ping` (0x08): one round trip, nothing else.
//!
//! ```text
//! request : (empty)
//! response: (empty)
//! ```
//!
//! The simplest operation: its request and response have no body, so the op
//! table encodes and decodes it without calling this module. It is here so
//! that every op has its module, the place its wire format is written down.
