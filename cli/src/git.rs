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

/// One file the commit being prepared changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedPath {
    /// Repo-relative path.
    pub path: String,
    /// Whether the commit deletes it.
    pub deleted: bool,
}

/// Staged added, copied, modified and deleted files. Renames are reported as delete + add
/// (`--no-renames`), so a renamed and edited file is still checked, and so is the symbol
/// that left with the old path. Deletions count because deleting a file breaks every
/// accepted contract on its symbols.
pub fn staged_paths(root: &Path) -> Result<Vec<StagedPath>, String> {
    let out = git(
        root,
        &[
            "diff",
            "--cached",
            "--name-status",
            "-z",
            "--no-renames",
            "--diff-filter=ACMD",
        ],
    )?;
    // `-z --name-status` gives `STATUS NUL PATH NUL` pairs.
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
    let mut paths = Vec::new();
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        paths.push(StagedPath {
            path: String::from_utf8_lossy(path).into_owned(),
            deleted: status.first() == Some(&b'D'),
        });
    }
    Ok(paths)
}

/// The content `file` has in the commit being prepared: its index content, or nothing
/// for a deleted file.
pub fn staged_file_content(root: &Path, file: &StagedPath) -> Result<Vec<u8>, String> {
    if file.deleted {
        Ok(Vec::new())
    } else {
        staged_content(root, &file.path)
    }
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
