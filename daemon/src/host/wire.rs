//! What a starting `wit daemon run` and the repository's daemon say to each other on
//! `host.sock` (in the `.wit/` holding the shared state): one JSON line each way, then
//! the connection stays open while the worktree is served.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The control socket's name in the state's `.wit/`.
pub(crate) const SOCKET: &str = "host.sock";
/// The lock the one hosting daemon holds (flock), in the same directory.
pub(crate) const LOCK: &str = "host.lock";
/// Longest line either side reads.
pub(crate) const MAX_LINE: u64 = 64 * 1024;

/// "Serve this worktree too."
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Attach {
    /// The worktree's root (canonical).
    pub attach: PathBuf,
    /// What must be equal for the host to serve it as its own process would.
    pub compat: Compat,
}

/// What decides whether a daemon process would serve a worktree exactly as a daemon
/// started for it alone would: the same build, and the same value of every environment
/// variable the daemon reads ([`ENV_KEYS`], git's configuration variables it keeps). The
/// rest of the environment (an agent's own variables, `WIT_REPO_ROOT`, which names the
/// worktree) does not change how a worktree is served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Compat {
    version: String,
    /// The executable's device and inode (a rebuilt `wit` at the same path differs).
    exe: Option<(u64, u64)>,
    env: BTreeMap<String, String>,
}

/// The variables the daemon reads: its store, log level and watch cap, where the user's
/// configuration (store URL, trusted plugins) is, and where `git` is found.
const ENV_KEYS: &[&str] = &[
    "WIT_STORE_URL",
    "WIT_LOG",
    "WIT_MAX_WATCHES",
    "WIT_TEST_PORTABLE_WATCHER",
    "HOME",
    "XDG_CONFIG_HOME",
    "PATH",
];

impl Compat {
    /// This process's.
    pub(crate) fn current() -> Self {
        use std::os::unix::fs::MetadataExt;
        let exe = std::fs::metadata("/proc/self/exe")
            .ok()
            .map(|m| (m.dev(), m.ino()));
        let env = ENV_KEYS
            .iter()
            .chain(wit_boundary::git::KEPT.iter())
            .filter_map(|k| {
                std::env::var_os(k).map(|v| ((*k).to_owned(), v.to_string_lossy().into_owned()))
            })
            .collect();
        Self {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            exe,
            env,
        }
    }

    /// Why a worktree started with `theirs` cannot be served by a process with `self`.
    pub(crate) fn mismatch(&self, theirs: &Compat) -> Option<String> {
        if self.version != theirs.version {
            return Some(format!(
                "it runs wit {} and this is wit {}",
                self.version, theirs.version
            ));
        }
        if self.exe.is_none() || self.exe != theirs.exe {
            return Some("it runs another wit executable".into());
        }
        let keys: std::collections::BTreeSet<&String> =
            self.env.keys().chain(theirs.env.keys()).collect();
        let differ: Vec<&str> = keys
            .into_iter()
            .filter(|k| self.env.get(*k) != theirs.env.get(*k))
            .map(String::as_str)
            .collect();
        (!differ.is_empty()).then(|| {
            format!(
                "its environment differs ({})",
                wit_core::text::escape(&differ.join(", "))
            )
        })
    }
}

/// The host's answers.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Reply {
    /// The worktree's socket answers; this process serves it, and logs to `log`.
    Ready { pid: u32, log: PathBuf },
    /// Another daemon serves the worktree already.
    AlreadyRunning { pid: Option<u32> },
    /// Not served here, for this reason: the starter serves it itself.
    Refused { reason: String },
    /// Serving it failed, for this reason.
    Failed { reason: String },
    /// The worktree is no longer served.
    Stopped,
}

/// One line (without its newline) of at most [`MAX_LINE`] bytes; `None` at the end of
/// the stream or on a longer line.
pub(crate) async fn read_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut line = String::new();
    let n = reader.take(MAX_LINE).read_line(&mut line).await.ok()?;
    if n == 0 || !line.ends_with('\n') {
        return None;
    }
    line.pop();
    Some(line)
}

/// `value` as one line.
pub(crate) fn line<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_different_build_or_environment_is_a_mismatch_and_says_which() {
        let ours = Compat::current();
        assert_eq!(ours.mismatch(&ours.clone()), None);
        let mut theirs = ours.clone();
        theirs.version = "0.0.0-other".into();
        assert!(ours.mismatch(&theirs).unwrap().contains("0.0.0-other"));
        let mut theirs = ours.clone();
        theirs
            .env
            .insert("WIT_STORE_URL".into(), "postgresql://x/y".into());
        assert!(ours.mismatch(&theirs).unwrap().contains("WIT_STORE_URL"));
        let mut theirs = ours.clone();
        theirs.exe = Some((0, 0));
        assert!(ours.mismatch(&theirs).is_some());
    }
}
