//! `wit-boundary`: the one place where wit opens files that a repository controls.
//!
//! A repository is untrusted input: it may have been cloned from an attacker, and every
//! file in it (`.wit/`, `wit.toml`, source files, the names of files) may have been
//! written to turn wit against its user. Everything wit reads or writes under a
//! repository goes through this crate, which holds these rules:
//!
//! - [`WitDir`]: `.wit/` is used only when it is a real directory (not a symlink), owned by
//!   the effective uid, private (mode 0700) and not committed to git. Every file in it is
//!   opened with `O_NOFOLLOW` (a symlink is refused, never followed), must be a regular
//!   file owned by the effective uid, is created 0600 (`create_new` where it is new), and
//!   the socket must be a socket owned by the effective uid.
//! - [`repo_file`]: repository files (sources, `wit.toml`, `CLAUDE.md`, …) are opened
//!   beneath the root (`openat2(RESOLVE_BENEATH)`: a symlink may point within the
//!   repository, never out of it), non-blocking (a FIFO never hangs the caller), and must
//!   be regular files under a size cap.
//! - [`repo_dir`]: a repository directory is listed through a descriptor opened the
//!   same way, its entries `stat`ed without following a symlink.
//! - [`library`]: a plugin library is opened once, without following symlinks; its bytes
//!   are read from that descriptor, hashed, checked (ELF dependencies) and loaded from a
//!   sealed in-memory copy, so the code that runs is exactly the code that was hashed.
//!
//! - [`content`]: contents one daemon hands another (the forecast's uncommitted file
//!   versions) live in private directories under `.wit/`, named by their SHA-256, never in
//!   the repository's object database.
//! - [`git`]: the `git` command run against a repository, with every `GIT_*` variable that
//!   could point it elsewhere removed, in one place.
//!
//! Errors say what was refused, why, and how to fix it: they are shown to users as is.

pub mod content;
pub mod git;
pub mod identity;
pub mod library;
pub mod repo_dir;
pub mod repo_file;
pub mod witdir;

pub use repo_file::{RepoFileError, read_repo_file, remove_repo_file, write_repo_file};
pub use witdir::{WitDir, WitDirError};
