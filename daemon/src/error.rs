//! The daemon's startup and shutdown errors (request errors are JSON-RPC errors instead).

use std::path::PathBuf;

/// Why [`crate::run_blocking`] could not serve, or stopped with a failure.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// Another daemon holds this repository's lock file; it was left alone.
    #[error("a daemon is already running for this repository (pid {}, socket {})",
        .pid.map_or_else(|| "unknown".to_owned(), |p| p.to_string()), .socket.display())]
    AlreadyRunning {
        /// The running daemon's pid, when its pid file could be read.
        pid: Option<u32>,
        /// Its socket.
        socket: PathBuf,
    },
    /// The repository root is not a usable directory.
    #[error("repository root {}: {reason}", .root.display())]
    InvalidRoot {
        /// The root as given.
        root: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A file-system or socket operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What the daemon was doing.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// `.wit/` or a file in it was refused (a symlink, another owner, committed to git…);
    /// the message says why and how to fix it.
    #[error("{0}")]
    Boundary(#[from] wit_boundary::WitDirError),
    /// The state database could not be opened or migrated.
    #[error("state database: {0}")]
    Store(#[from] rusqlite::Error),
    /// The shared (PostgreSQL) store could not be reached or refused; the message names
    /// it by host and database only.
    #[error("{0}")]
    SharedStore(String),
    /// The repository's daemon, asked to serve this worktree too, failed to.
    #[error("the repository's daemon could not serve this worktree: {0}")]
    Hosted(String),
}

impl DaemonError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        DaemonError::Io {
            context: context.into(),
            source,
        }
    }

    /// Whether this is [`DaemonError::AlreadyRunning`].
    pub fn is_already_running(&self) -> bool {
        matches!(self, DaemonError::AlreadyRunning { .. })
    }
}
