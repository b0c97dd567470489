//! The `git` command as wit runs it against a repository: the one place its environment
//! is decided.
//!
//! A daemon inherits the environment of whatever started it — often a `wit` command run
//! from a git hook, an alias or a script, where git itself has set `GIT_DIR`,
//! `GIT_INDEX_FILE`, `GIT_OBJECT_DIRECTORY` (a push's quarantine), or `GIT_CONFIG_*` (a
//! `git -c …` passed on to its hooks). Any of those would point the daemon's git at
//! another repository, index or object database, or add configuration, for as long as the
//! daemon runs. So every `GIT_*` variable is removed, except the ones that locate the
//! *user's* own configuration files ([`KEPT`]); the repository is named by `-C`, and
//! git finds everything else from there. `core.fsmonitor` is off (a repository's
//! configuration must not name a command for wit's git to run) and optional locks are
//! not taken (wit only reads; it must not contend with the user's own git).
//!
//! The CLI's git hooks do not use this: there, `GIT_INDEX_FILE` and friends are git's
//! own instructions for the commit being made, and are honoured.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// `GIT_*` variables left as they are: where the user's own (global, system)
/// configuration lives. Nothing a repository or a hook sets.
pub const KEPT: [&str; 3] = [
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
];

/// Whether `name` is a git variable [`command`] removes.
pub fn is_cleared(name: &OsStr) -> bool {
    name.as_bytes().starts_with(b"GIT_") && !KEPT.iter().any(|k| name == OsStr::new(k))
}

/// `git -C <dir>` with the environment of the module docs: every redirecting `GIT_*`
/// variable of this process removed, `core.fsmonitor` off, paths unquoted, no optional
/// locks; stdin and stderr null (callers that want stderr set it).
pub fn command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    for (name, _) in std::env::vars_os() {
        if is_cleared(&name) {
            cmd.env_remove(name);
        }
    }
    cmd.arg("-C")
        .arg(dir)
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotepath=off"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Whether `s` is a full object id (SHA-1 or SHA-256 hex): what is read back from a
/// repository or a shared store is checked before it reaches a command line.
pub fn is_object_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The ref HEAD names in the git directory `dir` (`refs/heads/main`), when it names one
/// by a plain relative path. HEAD is read as any file of a repository is: through the
/// boundary (no symlink out of `dir`, no FIFO or device, at most 4 KiB), since a
/// repository's `.git` may have been written by someone else.
pub fn head_ref(dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let bytes = crate::read_repo_file(&dir, "HEAD", 4096).ok()?;
    let head = String::from_utf8(bytes).ok()?;
    let name = head.trim().strip_prefix("ref: ")?;
    let plain = name.starts_with("refs/")
        && !name
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..");
    plain.then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_is_read_through_the_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let head = dir.path().join("HEAD");
        std::fs::write(&head, "ref: refs/heads/main\n").unwrap();
        assert_eq!(head_ref(dir.path()).as_deref(), Some("refs/heads/main"));
        // A detached HEAD, and a ref that climbs out: no ref.
        std::fs::write(&head, "0123456789012345678901234567890123456789\n").unwrap();
        assert_eq!(head_ref(dir.path()), None);
        std::fs::write(&head, "ref: refs/../../../etc/passwd\n").unwrap();
        assert_eq!(head_ref(dir.path()), None);
        // A FIFO planted as HEAD (a blocking read would hang the caller's thread) and a
        // symlink to a file outside: refused at once.
        std::fs::remove_file(&head).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &head,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(head_ref(dir.path()), None);
        std::fs::remove_file(&head).unwrap();
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), "ref: refs/heads/stolen\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), &head).unwrap();
        assert_eq!(head_ref(dir.path()), None);
    }

    #[test]
    fn object_ids_are_full_hex_ids_only() {
        assert!(is_object_id(&"a".repeat(40)));
        assert!(is_object_id(&"0".repeat(64)));
        for s in [
            "HEAD",
            "--output=x",
            "abc",
            &"g".repeat(40),
            &"a".repeat(41),
        ] {
            assert!(!is_object_id(s), "{s}");
        }
    }

    #[test]
    fn every_redirecting_variable_is_cleared_and_the_user_s_config_kept() {
        for name in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_COMMON_DIR",
            "GIT_OBJECT_DIRECTORY",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_CONFIG_PARAMETERS",
            "GIT_CONFIG_COUNT",
            "GIT_CONFIG_KEY_0",
            "GIT_NAMESPACE",
            "GIT_QUARANTINE_PATH",
        ] {
            assert!(is_cleared(OsStr::new(name)), "{name}");
        }
        for name in KEPT.iter().chain(&["HOME", "PATH", "XGIT_DIR"]) {
            assert!(!is_cleared(OsStr::new(name)), "{name}");
        }
    }
}
