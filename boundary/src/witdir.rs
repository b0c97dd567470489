//! The `.wit/` directory of a repository, and every file wit keeps in it.
//!
//! `.wit/` holds what only wit should write: the daemon's socket, lock, pid file, log and
//! state, and the shared session id. A repository cannot be allowed to ship any of it: a
//! committed `.wit/daemon.log -> ~/.bashrc` would have the daemon append to the user's
//! shell start-up file, a committed `.wit/session.id` would set every agent's identity.
//! So `.wit/` is used only when:
//!
//! 1. it is a real directory, not a symlink (`.wit -> ../../somewhere` is refused);
//! 2. it is owned by the effective uid;
//! 3. nobody else can write into it (no group/other write bit). A wit-made `.wit/` is
//!    0700; one that is only readable by others (0755, as older wit versions made it) is
//!    tightened to 0700 after the next check;
//! 4. git tracks nothing under it ([`WitDir::check_not_committed`]; run when the daemon
//!    starts, when `wit init` runs, before a readable `.wit/` is tightened, and before the
//!    CLI uses the shared session id).
//!
//! Inside, every file is opened with `O_NOFOLLOW` (a symlink is refused), must be a
//! regular file owned by the effective uid, and is created with mode 0600 (`create_new`
//! where the file must be new). Group/other bits on an existing file are removed.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::identity::euid;

/// The name of the per-repository directory.
pub const WIT_DIR_NAME: &str = ".wit";

/// Why `.wit/` or a file in it was refused.
#[derive(Debug, thiserror::Error)]
pub enum WitDirError {
    /// `.wit` is a symlink.
    #[error(
        "{} is a symlink (to {}); wit uses only a real directory it made itself, so that a \
         repository cannot send wit's files elsewhere. Remove it (`rm {}`) and run wit again",
        .dir.display(), .target.display(), .dir.display()
    )]
    Symlink {
        /// The `.wit` path.
        dir: PathBuf,
        /// Where it points.
        target: PathBuf,
    },
    /// `.wit` exists but is not a directory.
    #[error("{} exists and is not a directory; remove it and run wit again", .dir.display())]
    NotDirectory {
        /// The `.wit` path.
        dir: PathBuf,
    },
    /// `.wit` belongs to another user.
    #[error(
        "{} belongs to uid {owner}, not to you (uid {me}); wit only uses a .wit/ of its own \
         user. Remove it, or run wit as its owner",
        .dir.display()
    )]
    ForeignOwner {
        /// The `.wit` path.
        dir: PathBuf,
        /// Its owner.
        owner: u32,
        /// The effective uid.
        me: u32,
    },
    /// `.wit` can be written by other users, who could have put files in it.
    #[error(
        "{} is writable by other users (mode {mode:04o}), so files in it may not be wit's; \
         remove it (`rm -rf {}`) and run wit again (wit recreates it with mode 0700)",
        .dir.display(), .dir.display()
    )]
    WritableByOthers {
        /// The `.wit` path.
        dir: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// git tracks files under `.wit/`: the directory came with the repository.
    #[error(
        "{} is committed to this repository ({}), so it came with the repository instead of \
         being made by wit, and wit refuses to use it. Remove it from git and the disk \
         (`git rm -r --cached .wit && rm -rf .wit`, then add `.wit/` to .gitignore) and run \
         wit again",
        .dir.display(), .files.join(", ")
    )]
    Committed {
        /// The `.wit` path.
        dir: PathBuf,
        /// The tracked files (the first few).
        files: Vec<String>,
    },
    /// A file in `.wit/` is not one wit would have made.
    #[error("{}: refused: {why}", .path.display())]
    FileRefused {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// An I/O error.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl WitDirError {
    fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        WitDirError::Io {
            context: context.into(),
            source,
        }
    }

    /// An I/O error about `path`.
    pub(crate) fn io_at(path: &Path, source: std::io::Error) -> Self {
        Self::io(format!("{}", path.display()), source)
    }

    fn refused(path: &Path, why: impl Into<String>) -> Self {
        WitDirError::FileRefused {
            path: path.to_owned(),
            why: why.into(),
        }
    }
}

/// How a file in `.wit/` is opened. Every mode refuses symlinks and non-regular files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read an existing file.
    Read,
    /// Read and write, creating it (0600) when missing, never truncating (lock files).
    ReadWrite,
    /// Append, creating it (0600) when missing (the log).
    Append,
    /// Create a new file (0600); fails when it exists (`create_new`).
    CreateNew,
    /// Write from scratch: create (0600) or truncate (the pid file).
    Truncate,
}

/// What [`WitDir::socket_state`] found at `.wit/daemon.sock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketState {
    /// Nothing there.
    Missing,
    /// A socket owned by the effective uid.
    Ours,
}

/// Paths of wit's files under `<repo>/.wit/`, and the checked ways to use them.
///
/// ```
/// let w = wit_boundary::WitDir::new("/repo");
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

    /// `<root>/.wit/<name>`.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// `<root>/.wit/daemon.sock`: the Unix socket clients connect to.
    pub fn socket(&self) -> PathBuf {
        self.file("daemon.sock")
    }

    /// `<root>/.wit/daemon.pid`: the running daemon's pid, in decimal.
    pub fn pid_file(&self) -> PathBuf {
        self.file("daemon.pid")
    }

    /// `<root>/.wit/daemon.lock`: flock'ed by the running daemon (single instance).
    pub fn lock_file(&self) -> PathBuf {
        self.file("daemon.lock")
    }

    /// `<root>/.wit/daemon.log`: the daemon's log.
    pub fn log_file(&self) -> PathBuf {
        self.file("daemon.log")
    }

    /// `<root>/.wit/state.db`: the SQLite state.
    pub fn database(&self) -> PathBuf {
        self.file("state.db")
    }

    /// `<root>/.wit/startup.lock`: serializes the CLI's daemon auto-starts.
    pub fn startup_lock(&self) -> PathBuf {
        self.file("startup.lock")
    }

    /// `<root>/.wit/session.id`: the shared fallback identity.
    pub fn session_file(&self) -> PathBuf {
        self.file("session.id")
    }

    /// Checks `.wit/` (rules 1–3 of the module docs). `Ok(false)` when it does not exist.
    pub fn check(&self) -> Result<bool, WitDirError> {
        let meta = match std::fs::symlink_metadata(&self.dir) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(WitDirError::io(format!("{}", self.dir.display()), e)),
        };
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&self.dir).unwrap_or_default();
            return Err(WitDirError::Symlink {
                dir: self.dir.clone(),
                target,
            });
        }
        if !meta.is_dir() {
            return Err(WitDirError::NotDirectory {
                dir: self.dir.clone(),
            });
        }
        let me = euid();
        if meta.uid() != me {
            return Err(WitDirError::ForeignOwner {
                dir: self.dir.clone(),
                owner: meta.uid(),
                me,
            });
        }
        let mode = meta.mode() & 0o7777;
        if mode & 0o022 != 0 {
            return Err(WitDirError::WritableByOthers {
                dir: self.dir.clone(),
                mode,
            });
        }
        if mode & 0o077 != 0 {
            // Readable by others, as wit before 0.2 made it: adopt it once it is proven not
            // to have come with the repository.
            self.check_not_committed()?;
            std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| WitDirError::io(format!("chmod 0700 {}", self.dir.display()), e))?;
        }
        Ok(true)
    }

    /// Creates `.wit/` with mode 0700 when missing, then [`WitDir::check`]s it.
    pub fn ensure(&self) -> Result<(), WitDirError> {
        match std::fs::DirBuilder::new().mode(0o700).create(&self.dir) {
            Ok(()) => {
                // The umask can only have removed bits; make it exactly 0700.
                std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o700))
                    .map_err(|e| {
                        WitDirError::io(format!("chmod 0700 {}", self.dir.display()), e)
                    })?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(WitDirError::io(
                    format!("creating {}", self.dir.display()),
                    e,
                ));
            }
        }
        self.check().map(|_| ())
    }

    /// Refuses a `.wit/` that git tracks files in (rule 4). Passes when git is missing or
    /// the root is not in a git work tree: without git there is no clone to come from.
    pub fn check_not_committed(&self) -> Result<(), WitDirError> {
        let out = crate::git::command(&self.root)
            .args(["ls-files", "-z", "--cached", "--", WIT_DIR_NAME])
            .output();
        let Ok(out) = out else { return Ok(()) };
        if !out.status.success() || out.stdout.is_empty() {
            return Ok(());
        }
        let files: Vec<String> = out
            .stdout
            .split(|b| *b == 0)
            .filter(|f| !f.is_empty())
            .take(3)
            .map(|f| crate_escape(&String::from_utf8_lossy(f)))
            .collect();
        Err(WitDirError::Committed {
            dir: self.dir.clone(),
            files,
        })
    }

    /// Checks an SQLite database of `.wit/` before SQLite opens it: `name` (created when
    /// missing) and each companion file SQLite may already have beside it (`-wal`, `-shm`,
    /// `-journal`) must be a regular file of ours, not a symlink — SQLite itself follows
    /// symlinks for its companions. Creating the database here (0600) also keeps SQLite
    /// from creating it with the umask's mode.
    pub fn check_database(&self, name: &str) -> Result<(), WitDirError> {
        drop(self.open(name, Access::ReadWrite)?);
        self.check_companions(name, Access::ReadWrite)
    }

    /// [`WitDir::check_database`] for a database only to be read, never created:
    /// `Ok(false)` when `name` does not exist.
    pub fn check_existing_database(&self, name: &str) -> Result<bool, WitDirError> {
        match self.open(name, Access::Read) {
            Ok(_) => {}
            Err(WitDirError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(false);
            }
            Err(e) => return Err(e),
        }
        self.check_companions(name, Access::Read)?;
        Ok(true)
    }

    /// Checks each companion file SQLite may already have beside the database `name`.
    fn check_companions(&self, name: &str, access: Access) -> Result<(), WitDirError> {
        for suffix in ["-wal", "-shm", "-journal"] {
            let companion = format!("{name}{suffix}");
            if std::fs::symlink_metadata(self.file(&companion)).is_ok() {
                drop(self.open(&companion, access)?);
            }
        }
        Ok(())
    }

    /// Opens the file `name` of `.wit/` (see [`Access`]); the directory must have been
    /// checked ([`WitDir::check`] or [`WitDir::ensure`]).
    pub fn open(&self, name: &str, access: Access) -> Result<File, WitDirError> {
        let path = self.file(name);
        let mut opts = OpenOptions::new();
        match access {
            Access::Read => opts.read(true),
            Access::ReadWrite => opts.read(true).write(true).create(true),
            Access::Append => opts.append(true).create(true),
            Access::CreateNew => opts.write(true).create_new(true),
            Access::Truncate => opts.write(true).create(true).truncate(true),
        };
        opts.mode(0o600)
            .custom_flags(libc_flags::NOFOLLOW | libc_flags::NONBLOCK | libc_flags::NOCTTY);
        let file = match opts.open(&path) {
            Ok(f) => f,
            Err(e) if e.raw_os_error() == Some(libc_flags::ELOOP) => {
                let target = std::fs::read_link(&path).unwrap_or_default();
                return Err(WitDirError::refused(
                    &path,
                    format!(
                        "it is a symlink (to {}); wit never follows symlinks in .wit/. \
                         Remove it and run wit again",
                        target.display()
                    ),
                ));
            }
            Err(e) => return Err(WitDirError::io(format!("{}", path.display()), e)),
        };
        let meta = file
            .metadata()
            .map_err(|e| WitDirError::io(format!("{}", path.display()), e))?;
        if !meta.is_file() {
            return Err(WitDirError::refused(
                &path,
                format!(
                    "not a regular file (a {}); remove it and run wit again",
                    crate::repo_file::kind_of(&meta)
                ),
            ));
        }
        let me = euid();
        if meta.uid() != me {
            return Err(WitDirError::refused(
                &path,
                format!("it belongs to uid {}, not to you (uid {me})", meta.uid()),
            ));
        }
        if meta.mode() & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(|e| WitDirError::io(format!("chmod 0600 {}", path.display()), e))?;
        }
        Ok(file)
    }

    /// Reads the small file `name` (at most `limit` bytes) as text; `Ok(None)` when it
    /// does not exist.
    pub fn read_small(&self, name: &str, limit: u64) -> Result<Option<String>, WitDirError> {
        let file = match self.open(name, Access::Read) {
            Ok(f) => f,
            Err(WitDirError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let mut bytes = Vec::new();
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| WitDirError::io(format!("reading {}", self.file(name).display()), e))?;
        Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Reads the pid file; `None` when it is absent, refused or malformed.
    pub fn read_pid(&self) -> Option<u32> {
        self.read_small("daemon.pid", 32)
            .ok()
            .flatten()?
            .trim()
            .parse()
            .ok()
    }

    /// Removes the file `name` (a symlink is removed itself, never its target).
    /// Succeeds when it is absent.
    pub fn remove(&self, name: &str) -> Result<(), WitDirError> {
        match std::fs::remove_file(self.file(name)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(WitDirError::io(
                format!("removing {}", self.file(name).display()),
                e,
            )),
        }
    }

    /// Checks `.wit/daemon.sock` before anyone connects to it (see [`check_socket`]).
    pub fn socket_state(&self) -> Result<SocketState, WitDirError> {
        check_socket(&self.socket())
    }
}

/// Checks a daemon socket before connecting to it: it must be a socket (not a symlink to
/// someone else's) owned by the effective uid.
pub fn check_socket(path: &Path) -> Result<SocketState, WitDirError> {
    use std::os::unix::fs::FileTypeExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(SocketState::Missing),
        Err(e) => return Err(WitDirError::io(format!("{}", path.display()), e)),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).unwrap_or_default();
        return Err(WitDirError::refused(
            path,
            format!(
                "it is a symlink (to {}), not the daemon's socket; wit talks only to a \
                 socket its own daemon made. Remove it (`rm {}`) and run wit again",
                target.display(),
                path.display()
            ),
        ));
    }
    if !meta.file_type().is_socket() {
        return Err(WitDirError::refused(
            path,
            format!(
                "not a socket (a {}); remove it and run wit again",
                crate::repo_file::kind_of(&meta)
            ),
        ));
    }
    let me = euid();
    if meta.uid() != me {
        return Err(WitDirError::refused(
            path,
            format!(
                "the socket belongs to uid {}, not to you (uid {me}); wit talks only to a \
                 daemon of its own user",
                meta.uid()
            ),
        ));
    }
    Ok(SocketState::Ours)
}

/// Control characters of a git path, escaped for a message.
fn crate_escape(s: &str) -> String {
    s.chars().flat_map(char::escape_default).collect()
}

/// The few `open(2)` flag values used with std's `custom_flags`.
mod libc_flags {
    pub const NOFOLLOW: i32 = rustix::fs::OFlags::NOFOLLOW.bits() as i32;
    pub const NONBLOCK: i32 = rustix::fs::OFlags::NONBLOCK.bits() as i32;
    pub const NOCTTY: i32 = rustix::fs::OFlags::NOCTTY.bits() as i32;
    pub const ELOOP: i32 = rustix::io::Errno::LOOP.raw_os_error();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn repo() -> (tempfile::TempDir, WitDir) {
        let d = tempfile::tempdir().unwrap();
        let w = WitDir::new(d.path().canonicalize().unwrap());
        (d, w)
    }

    fn mode(p: &Path) -> u32 {
        std::fs::symlink_metadata(p).unwrap().mode() & 0o777
    }

    /// A database only read (another checkout's index) is never created, and neither it
    /// nor a companion of it is opened through a symlink.
    #[test]
    fn an_existing_database_is_checked_without_creating_it_or_following_symlinks() {
        let (d, w) = repo();
        w.ensure().unwrap();
        assert!(!w.check_existing_database("index.db").unwrap());
        assert!(!w.file("index.db").exists(), "created");
        std::fs::write(w.file("index.db"), b"").unwrap();
        assert!(w.check_existing_database("index.db").unwrap());
        let outside = d.path().join("elsewhere");
        std::fs::write(&outside, b"").unwrap();
        symlink(&outside, w.file("index.db-wal")).unwrap();
        assert!(w.check_existing_database("index.db").is_err());
        std::fs::remove_file(w.file("index.db-wal")).unwrap();
        std::fs::remove_file(w.file("index.db")).unwrap();
        symlink(&outside, w.file("index.db")).unwrap();
        assert!(w.check_existing_database("index.db").is_err());
    }

    #[test]
    fn ensure_creates_a_private_directory_and_private_files() {
        let (_d, w) = repo();
        w.ensure().unwrap();
        assert_eq!(mode(w.dir()), 0o700);
        drop(w.open("daemon.log", Access::Append).unwrap());
        assert_eq!(mode(&w.log_file()), 0o600);
        assert!(w.open("daemon.log", Access::CreateNew).is_err());
    }

    #[test]
    fn a_symlinked_wit_dir_is_refused_and_its_target_untouched() {
        let (d, w) = repo();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::set_permissions(elsewhere.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        symlink(elsewhere.path(), d.path().join(".wit")).unwrap();
        let e = w.ensure().unwrap_err();
        assert!(matches!(e, WitDirError::Symlink { .. }), "{e}");
        assert_eq!(mode(elsewhere.path()), 0o755);
    }

    #[test]
    fn symlinks_inside_wit_are_refused_and_never_followed() {
        let (_d, w) = repo();
        w.ensure().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let bashrc = outside.path().join(".bashrc");
        std::fs::write(&bashrc, "keep\n").unwrap();
        symlink(&bashrc, w.log_file()).unwrap();
        symlink(&bashrc, w.startup_lock()).unwrap();
        for (name, access) in [
            ("daemon.log", Access::Append),
            ("startup.lock", Access::ReadWrite),
            ("startup.lock", Access::Truncate),
            ("daemon.log", Access::Read),
        ] {
            let e = w.open(name, access).unwrap_err();
            assert!(e.to_string().contains("symlink"), "{name}: {e}");
        }
        assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "keep\n");
    }

    #[test]
    fn a_wit_dir_writable_by_others_is_refused_and_a_readable_one_tightened() {
        let (_d, w) = repo();
        std::fs::create_dir(w.dir()).unwrap();
        std::fs::set_permissions(w.dir(), std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(
            w.check().unwrap_err(),
            WitDirError::WritableByOthers { .. }
        ));
        std::fs::set_permissions(w.dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(w.check().unwrap());
        assert_eq!(mode(w.dir()), 0o700);
    }

    #[test]
    fn a_fifo_in_wit_is_refused_without_blocking() {
        let (_d, w) = repo();
        w.ensure().unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            w.session_file(),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = w.read_small("session.id", 100).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
    }
}
