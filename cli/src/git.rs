//! The few git queries wit needs, through the `git` command.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// Repo-relative paths of staged added, copied and modified files. Renames are reported
/// as delete + add (`--no-renames`), so a renamed and edited file is still checked.
pub fn staged_paths(root: &Path) -> Result<Vec<String>, String> {
    let out = git(
        root,
        &[
            "diff",
            "--cached",
            "--name-only",
            "-z",
            "--no-renames",
            "--diff-filter=ACM",
        ],
    )?;
    Ok(out
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect())
}

/// The staged (index) content of `path`.
pub fn staged_content(root: &Path, path: &str) -> Result<Vec<u8>, String> {
    git(root, &["show", &format!(":{path}")])
}

/// The directory git runs hooks from: `core.hooksPath` when set, else `.git/hooks`
/// (`git rev-parse --git-path hooks` resolves both, worktrees included).
pub fn hooks_dir(root: &Path) -> Result<PathBuf, String> {
    let out = git(root, &["rev-parse", "--git-path", "hooks"])?;
    let p = PathBuf::from(String::from_utf8_lossy(&out).trim());
    Ok(if p.is_absolute() { p } else { root.join(p) })
}
