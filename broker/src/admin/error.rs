//! Why the admin listener could not start.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;

use super::hosts::HostsError;

/// Why the admin listener could not start.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// `admin_token_file` could not be read.
    #[error("admin_token_file {}: {source}", path.display())]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The token is too short or not one line.
    #[error("admin_token_file {}: {reason}", path.display())]
    BadToken {
        /// The file.
        path: PathBuf,
        /// What is wrong (never the token).
        reason: String,
    },
    /// An `admin_hosts` entry is not a host name or an address.
    #[error(transparent)]
    Hosts(#[from] HostsError),
    /// The address cannot be bound.
    #[error("cannot listen on {addr} (admin_listen): {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: io::Error,
    },
}
