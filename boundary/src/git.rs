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

#[cfg(test)]
mod tests {
    use super::*;

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
