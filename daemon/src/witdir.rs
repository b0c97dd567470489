//! The `.wit/` directory of a repository and the daemon's files in it.

use std::path::{Path, PathBuf};

/// The name of the per-repository directory.
pub const WIT_DIR_NAME: &str = ".wit";

/// Paths of the daemon's files under `<repo>/.wit/`.
///
/// ```
/// let w = wit_daemon::WitDir::new("/repo");
/// assert_eq!(w.socket(), std::path::Path::new("/repo/.wit/daemon.sock"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WitDir {
    root: PathBuf,
    dir: PathBuf,
}

impl WitDir {
    /// The `.wit/` directory of the repository at `root` (no I/O).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let dir = root.join(WIT_DIR_NAME);
        Self { root, dir }
    }

    /// The repository root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/.wit`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `<root>/.wit/daemon.sock`: the Unix socket clients connect to.
    pub fn socket(&self) -> PathBuf {
        self.dir.join("daemon.sock")
    }

    /// `<root>/.wit/daemon.pid`: the running daemon's pid, in decimal.
    pub fn pid_file(&self) -> PathBuf {
        self.dir.join("daemon.pid")
    }

    /// `<root>/.wit/daemon.lock`: flock'ed by the running daemon (single instance).
    pub fn lock_file(&self) -> PathBuf {
        self.dir.join("daemon.lock")
    }

    /// `<root>/.wit/daemon.log`: the daemon's log.
    pub fn log_file(&self) -> PathBuf {
        self.dir.join("daemon.log")
    }

    /// `<root>/.wit/state.db`: the SQLite state.
    pub fn database(&self) -> PathBuf {
        self.dir.join("state.db")
    }

    /// Reads the pid file; `None` when it is absent or malformed.
    pub fn read_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.pid_file())
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}
