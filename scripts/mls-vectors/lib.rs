//! Nothing: this package exists to be fetched, never built (see Cargo.toml).
