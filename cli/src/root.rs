//! Which repository a command works on, and where its `.wit/` files live.

use std::path::{Path, PathBuf};

use crate::exit::Failure;

/// The per-repository directory.
pub const WIT_DIR: &str = ".wit";

/// The repository a command works on.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The repository root (absolute).
    pub root: PathBuf,
}

impl Repo {
    /// `<root>/.wit`.
    pub fn wit_dir(&self) -> PathBuf {
        self.root.join(WIT_DIR)
    }

    /// `<root>/.wit/daemon.sock`.
    pub fn socket(&self) -> PathBuf {
        self.wit_dir().join("daemon.sock")
    }

    /// `<root>/.wit/daemon.pid`.
    pub fn pid_file(&self) -> PathBuf {
        self.wit_dir().join("daemon.pid")
    }

    /// `<root>/.wit/daemon.log`.
    pub fn log_file(&self) -> PathBuf {
        self.wit_dir().join("daemon.log")
    }

    /// `<root>/.wit/startup.lock`: serializes auto-starts.
    pub fn startup_lock(&self) -> PathBuf {
        self.wit_dir().join("startup.lock")
    }

    /// `<root>/.wit/session.id`: the shared fallback identity.
    pub fn session_file(&self) -> PathBuf {
        self.wit_dir().join("session.id")
    }

    /// Creates `.wit/` when missing.
    pub fn ensure_wit_dir(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(self.wit_dir())
    }

    /// A path given on the command line (relative to the current directory) as the
    /// repo-relative, `/`-separated path the protocol speaks.
    pub fn relative(&self, arg: &str) -> Result<String, Failure> {
        let cwd = std::env::current_dir()?;
        let abs = normalize(&cwd.join(arg));
        let root = normalize(&self.root);
        let rel = abs.strip_prefix(&root).map_err(|_| {
            Failure::Usage(format!(
                "{arg} is outside the repository {}",
                self.root.display()
            ))
        })?;
        Ok(rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"))
    }
}

/// Finds the repository: `WIT_REPO_ROOT`, else the nearest directory upward holding
/// `.wit/`, else the git top level (the nearest directory holding `.git`).
///
/// Looking for `.git` ourselves instead of running `git rev-parse` keeps `wit status` from
/// spawning a process on every call.
pub fn discover() -> Result<Repo, Failure> {
    if let Some(root) = std::env::var_os("WIT_REPO_ROOT").filter(|v| !v.is_empty()) {
        let root = PathBuf::from(root);
        let root = root
            .canonicalize()
            .map_err(|e| Failure::Usage(format!("WIT_REPO_ROOT={}: {e}", root.display())))?;
        return Ok(Repo { root });
    }
    let cwd = std::env::current_dir()?;
    find_upward(&cwd).map(|root| Repo { root }).ok_or_else(|| {
        Failure::Usage(format!(
            "no repository here: neither .wit/ nor .git was found in {} or above \
             (run `wit init` in your repository, or set WIT_REPO_ROOT)",
            cwd.display()
        ))
    })
}

/// Like [`discover`], but falls back to the current directory (for `wit init`).
pub fn discover_or_cwd() -> Result<Repo, Failure> {
    match discover() {
        Ok(r) => Ok(r),
        Err(Failure::Usage(_)) if std::env::var_os("WIT_REPO_ROOT").is_none() => Ok(Repo {
            root: std::env::current_dir()?,
        }),
        Err(e) => Err(e),
    }
}

fn find_upward(start: &Path) -> Option<PathBuf> {
    if let Some(dir) = start.ancestors().find(|d| d.join(WIT_DIR).is_dir()) {
        return Some(dir.to_path_buf());
    }
    start
        .ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Resolves `.` and `..` lexically (the path need not exist).
fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wit_dir_wins_over_git_and_nearest_wins() {
        let t = std::env::temp_dir().join(format!("wit-root-test-{}", std::process::id()));
        let deep = t.join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(t.join(".git")).unwrap();
        assert_eq!(find_upward(&deep), Some(t.clone()));
        std::fs::create_dir_all(t.join("a/.wit")).unwrap();
        assert_eq!(find_upward(&deep), Some(t.join("a")));
        std::fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Path::new("/r/a/../b/./c")),
            PathBuf::from("/r/b/c")
        );
    }
}
