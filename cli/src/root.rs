//! Which repository a command works on, and where its `.wit/` files live.

use std::path::{Path, PathBuf};

use wit_boundary::WitDir;

use crate::exit::Failure;

/// The per-repository directory.
pub const WIT_DIR: &str = wit_boundary::witdir::WIT_DIR_NAME;

/// The repository a command works on.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The repository root (absolute).
    pub root: PathBuf,
}

impl Repo {
    /// Its `.wit/` directory: paths, and the checked ways to open what is in it.
    pub fn wit(&self) -> WitDir {
        WitDir::new(&self.root)
    }

    /// `<root>/.wit/daemon.sock`.
    pub fn socket(&self) -> PathBuf {
        self.wit().socket()
    }

    /// `<root>/.wit/daemon.log`.
    pub fn log_file(&self) -> PathBuf {
        self.wit().log_file()
    }

    /// Creates `.wit/` (0700) when missing and checks that it is wit's own (see
    /// [`wit_boundary::witdir`]); a refusal says why and how to fix it.
    pub fn ensure_wit_dir(&self) -> Result<WitDir, Failure> {
        let wit = self.wit();
        wit.ensure().map_err(Failure::other)?;
        Ok(wit)
    }

    /// A symbol path given on the command line, `file:name` with `file` relative to the
    /// current directory (as every path on wit's command line is), as the protocol's
    /// repo-relative `file:name`. In `src/cli`, `client.ts:spawn` is `src/cli/client.ts:spawn`.
    pub fn symbol_path(&self, arg: &str) -> Result<String, Failure> {
        let arg = arg.trim();
        let Some((file, name)) = arg
            .split_once(':')
            .filter(|(f, n)| !f.is_empty() && !n.is_empty())
        else {
            return Err(Failure::Usage(format!(
                "{:?} is not a symbol path; write file:name, e.g. src/auth.ts:validateToken",
                wit_core::text::escape(arg)
            )));
        };
        Ok(format!("{}:{name}", self.relative(file)?))
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
/// `.wit/` or `.git` (so `.wit/` is found up to the git top level, never above it).
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

/// The nearest directory upward holding `.wit` or `.git`, whichever comes first: the
/// search never climbs above a git top level, so a `.wit/` planted in a shared parent
/// directory (another user's, or a hostile archive's) cannot capture the repositories
/// below it. Anything named `.wit` counts, symlinks included, so that a bad one is refused
/// with a reason instead of silently skipped.
fn find_upward(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| {
            std::fs::symlink_metadata(d.join(WIT_DIR)).is_ok()
                || std::fs::symlink_metadata(d.join(".git")).is_ok()
        })
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
    fn discovery_stops_at_the_git_top_level() {
        let t = tempfile::tempdir().unwrap();
        let t = t.path();
        let deep = t.join("repo/a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(t.join("repo/.git")).unwrap();
        // A .wit/ planted above the repository is never reached.
        std::fs::create_dir_all(t.join(".wit")).unwrap();
        assert_eq!(find_upward(&deep), Some(t.join("repo")));
        // A .wit/ inside the repository, below its top level, wins (nearest first).
        std::fs::create_dir_all(t.join("repo/a/.wit")).unwrap();
        assert_eq!(find_upward(&deep), Some(t.join("repo/a")));
        // A symlinked .wit still counts, so that it is refused rather than skipped.
        std::os::unix::fs::symlink(t.join(".wit"), deep.join(".wit")).unwrap();
        assert_eq!(find_upward(&deep), Some(deep.clone()));
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Path::new("/r/a/../b/./c")),
            PathBuf::from("/r/b/c")
        );
    }
}
