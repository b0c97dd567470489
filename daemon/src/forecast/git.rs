//! The git plumbing the forecast needs, each a `git` process in the checkout (the
//! repository's own git, with the checkout's config; `core.fsmonitor` off, no external
//! diff or text conversion, so that no command named by a configuration runs).
//!
//! Objects are read from, and written to, the repository's object database, which the
//! worktrees of one repository share: a blob one checkout writes ([`hash_object`]) is one
//! another checkout's daemon can merge ([`merge_file`]).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use wit_forecast::TextVerdict;

use crate::index::files;

fn git(root: &Path) -> Command {
    files::git(root)
}

/// The lines of a successful command's stdout (split at NUL when `z`).
fn output(mut cmd: Command, z: bool) -> Option<Vec<String>> {
    let out = cmd.output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let sep = if z { '\0' } else { '\n' };
    Some(
        text.split(sep)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

fn one(cmd: Command) -> Option<String> {
    output(cmd, false)?.into_iter().next()
}

/// Whether `s` is a full object id (SHA-1 or SHA-256 hex): values read back from the
/// shared store are checked before they reach a command line.
pub(crate) fn is_object_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The HEAD commit, `None` before the first commit or outside git.
pub(crate) fn head(root: &Path) -> Option<String> {
    let mut cmd = git(root);
    cmd.args(["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
    one(cmd).filter(|id| is_object_id(id))
}

/// The branch checked out, `None` on a detached HEAD.
pub(crate) fn branch(root: &Path) -> Option<String> {
    let mut cmd = git(root);
    cmd.args(["symbolic-ref", "-q", "--short", "HEAD"]);
    one(cmd)
}

/// The checkout's own git directory (`.git`, or `.git/worktrees/<name>`).
pub(crate) fn git_dir(root: &Path) -> Option<PathBuf> {
    let mut cmd = git(root);
    cmd.args(["rev-parse", "--absolute-git-dir"]);
    one(cmd).map(PathBuf::from)
}

/// An operation under way that rewrites the checkout (`rebasing`, `merging`), whose
/// intermediate states are not what the checkout will hand in.
pub(crate) fn in_progress(git_dir: &Path) -> Option<&'static str> {
    let exists = |name: &str| std::fs::symlink_metadata(git_dir.join(name)).is_ok();
    if exists("rebase-merge") || exists("rebase-apply") {
        Some("rebasing")
    } else if exists("MERGE_HEAD") || exists("CHERRY_PICK_HEAD") || exists("REVERT_HEAD") {
        Some("merging")
    } else {
        None
    }
}

/// The best common ancestor of two commits, `None` when they share no history (or one
/// is not in this repository).
pub(crate) fn merge_base(root: &Path, a: &str, b: &str) -> Option<String> {
    if !is_object_id(a) || !is_object_id(b) {
        return None;
    }
    let mut cmd = git(root);
    cmd.args(["merge-base", a, b]);
    one(cmd).filter(|id| is_object_id(id))
}

/// The regular files of `commit`'s tree: path → blob id (symlinks and submodules left
/// out: no file of theirs is read).
pub(crate) fn tree(root: &Path, commit: &str) -> Option<HashMap<String, String>> {
    let mut cmd = git(root);
    cmd.args(["ls-tree", "-r", "-z", "--full-tree", commit]);
    let lines = output(cmd, true)?;
    Some(
        lines
            .iter()
            .filter_map(|l| {
                let (meta, path) = l.split_once('\t')?;
                let mut parts = meta.split(' ');
                let (mode, kind, id) = (parts.next()?, parts.next()?, parts.next()?);
                (kind == "blob" && mode.starts_with("100"))
                    .then(|| (path.to_owned(), id.to_owned()))
            })
            .collect(),
    )
}

/// The files whose content in the working tree differs from `base`'s (tracked files, and
/// files git does not ignore that it does not track).
pub(crate) fn changed(root: &Path, base: &str) -> Option<Vec<String>> {
    let mut diff = git(root);
    diff.args([
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        base,
        "--",
    ]);
    let mut names = output(diff, true)?;
    let mut others = git(root);
    others.args(["ls-files", "-z", "-o", "--exclude-standard"]);
    names.extend(output(others, true)?);
    names.sort();
    names.dedup();
    Some(names)
}

/// Whether git ignores `rel` or would not list it (untracked and ignored).
pub(crate) fn listed(root: &Path, rel: &str) -> bool {
    files::git_files(root, &[rel]).is_some_and(|f| f.iter().any(|x| x == rel))
}

/// A blob's content, `None` when missing or larger than `limit`.
pub(crate) fn blob(root: &Path, id: &str, limit: u64) -> Option<Vec<u8>> {
    if !is_object_id(id) {
        return None;
    }
    let mut cmd = git(root);
    cmd.args(["cat-file", "blob", id]);
    let out = cmd.output().ok()?;
    (out.status.success() && out.stdout.len() as u64 <= limit).then_some(out.stdout)
}

/// Writes `bytes` as a blob into the object database; its id.
pub(crate) fn hash_object(root: &Path, bytes: &[u8]) -> Option<String> {
    let mut cmd = git(root);
    cmd.args(["hash-object", "-w", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = cmd.spawn().ok()?;
    let mut stdin = child.stdin.take()?;
    // Written from here while git reads: a large file cannot fill a pipe both wait on.
    let written = stdin.write_all(bytes);
    drop(stdin);
    let out = child.wait_with_output().ok()?;
    written.ok()?;
    if !out.status.success() {
        return None;
    }
    let id = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    is_object_id(&id).then_some(id)
}

/// git's own three-way merge of one file (`git merge-file`, the algorithm `git merge`
/// uses for a file's content): `base` is the blob at the merge base (`None`: the file is
/// new on both sides, merged against the empty blob).
pub(crate) fn merge_file(root: &Path, base: Option<&str>, a: &str, b: &str) -> TextVerdict {
    let empty;
    let base = match base {
        Some(id) => id,
        None => match hash_object(root, b"") {
            Some(id) => {
                empty = id;
                &empty
            }
            None => return TextVerdict::Unknown,
        },
    };
    if ![base, a, b].iter().all(|id| is_object_id(id)) {
        return TextVerdict::Unknown;
    }
    let mut cmd = git(root);
    cmd.args(["merge-file", "-p", "--object-id", a, base, b])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let Ok(out) = cmd.output() else {
        return TextVerdict::Unknown;
    };
    match out.status.code() {
        Some(0) => TextVerdict::Clean,
        Some(n @ 1..=127) => TextVerdict::Conflict {
            conflicts: n as usize,
        },
        // Two different versions of a binary file: git cannot merge them either.
        _ if String::from_utf8_lossy(&out.stderr).contains("binary") => {
            TextVerdict::Conflict { conflicts: 1 }
        }
        _ => TextVerdict::Unknown,
    }
}
