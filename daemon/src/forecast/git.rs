//! The git plumbing the forecast needs, each a `git` process in the checkout (the
//! repository's own git, with the checkout's config; `core.fsmonitor` off, no external
//! diff or text conversion, so that no command named by a configuration runs).
//!
//! Objects are only ever *read* from the repository's object database ([`Batch`], one
//! pair of `cat-file` processes per scan, sizes asked before contents): a checkout's
//! uncommitted content is never written there (see `super::content` for where it goes).
//! Every command is built by `wit_boundary::git::command`, which clears the `GIT_*`
//! variables that could point it at another repository, index or object database.

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

/// Which of `paths` git ignores (`git check-ignore --stdin`: a file git tracks is never
/// ignored), in one process for a whole round of saves; `None` when git cannot answer.
pub(crate) fn ignored(root: &Path, paths: &[&str]) -> Option<std::collections::HashSet<String>> {
    let mut cmd = git(root);
    cmd.args(["check-ignore", "--stdin", "-z"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = cmd.spawn().ok()?;
    let mut stdin = child.stdin.take()?;
    let input: Vec<u8> = paths
        .iter()
        .flat_map(|p| p.bytes().chain(std::iter::once(0)))
        .collect();
    // Written from its own thread while git answers: a long list cannot fill both pipes.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    // 0: some are ignored, 1: none is; anything else is a failure.
    if !matches!(out.status.code(), Some(0 | 1)) {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(
        text.split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

/// Whether git ignores `rel` or would not list it (untracked and ignored).
pub(crate) fn listed(root: &Path, rel: &str) -> bool {
    files::git_files(root, &[rel]).is_some_and(|f| f.iter().any(|x| x == rel))
}

/// What the object database holds under an id, as [`Batch::read`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Blob {
    /// No such blob (or not a blob).
    Missing,
    /// A blob of this many bytes, more than the caller reads: never read.
    TooLarge(u64),
    /// Its content.
    Bytes(Vec<u8>),
}

/// One pair of `git cat-file` processes serving every read of the forecast thread (scans,
/// saves, merges): the size of a blob is asked first (`--batch-check`), its content read
/// (`--batch`) only when it is under the caller's limit, so a hostile history's 200 MB
/// blob costs a line of output, never its size in memory. Each process starts at its
/// first use and ends when the batch rests ([`Batch::rest`], after a while unused) or is
/// dropped (its stdin closed); git finds objects written since it started (it looks
/// again when one is missing).
pub(crate) struct Batch {
    root: PathBuf,
    check: Option<Cat>,
    read: Option<Cat>,
    used: Option<std::time::Instant>,
}

/// One `git cat-file` process: requests go one at a time, and each answer is read
/// before the next is sent (no `--buffer`: git flushes after each), so neither pipe can
/// fill while the other side waits.
struct Cat {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Cat {
    fn start(root: &Path, mode: &str) -> Option<Cat> {
        let mut cmd = git(root);
        cmd.args(["cat-file", mode])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut child = cmd.spawn().ok()?;
        let stdin = child.stdin.take()?;
        let stdout = std::io::BufReader::new(child.stdout.take()?);
        Some(Cat {
            child,
            stdin,
            stdout,
        })
    }

    /// Sends `id`; the answer's header: `Some((kind, size))`, `None` for a missing
    /// object. `Err` when the process failed (it is then dropped).
    fn ask(&mut self, id: &str) -> std::io::Result<Option<(String, u64)>> {
        use std::io::BufRead;
        writeln!(self.stdin, "{id}")?;
        self.stdin.flush()?;
        let mut line = String::new();
        if self.stdout.read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let mut parts = line.trim_end().split(' ');
        let (_, kind, size) = (parts.next(), parts.next(), parts.next());
        match (kind, size.and_then(|s| s.parse::<u64>().ok())) {
            (Some(kind), Some(size)) => Ok(Some((kind.to_owned(), size))),
            // `<id> missing` (or ambiguous): nothing follows.
            _ => Ok(None),
        }
    }
}

impl Drop for Cat {
    fn drop(&mut self) {
        // Closing stdin ends git; reap it so no zombie stays.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Batch {
    /// A batch over the object database of the checkout at `root` (nothing started yet).
    pub(crate) fn new(root: &Path) -> Batch {
        Batch {
            root: root.to_owned(),
            check: None,
            read: None,
            used: None,
        }
    }

    /// Ends the processes when unused for `idle`: a checkout nobody edits keeps no git
    /// process alive.
    pub(crate) fn rest(&mut self, idle: std::time::Duration) {
        if self.used.is_some_and(|at| at.elapsed() >= idle) {
            self.check = None;
            self.read = None;
            self.used = None;
        }
    }

    /// The blob `id`, read only when it is at most `limit` bytes.
    pub(crate) fn read(&mut self, id: &str, limit: u64) -> Blob {
        if !is_object_id(id) {
            return Blob::Missing;
        }
        self.used = Some(std::time::Instant::now());
        let size = match Self::with(&self.root, &mut self.check, "--batch-check", |c| c.ask(id)) {
            Some(Some((kind, size))) if kind == "blob" => size,
            _ => return Blob::Missing,
        };
        if size > limit {
            return Blob::TooLarge(size);
        }
        let got = Self::with(&self.root, &mut self.read, "--batch", |c| {
            use std::io::Read;
            let Some((kind, size)) = c.ask(id)? else {
                return Ok(None);
            };
            if kind != "blob" || size > limit {
                // Changed between the two questions (a repacked or replaced object): the
                // content that follows is read past, never kept.
                std::io::copy(&mut (&mut c.stdout).take(size + 1), &mut std::io::sink())?;
                return Ok(None);
            }
            let mut bytes = Vec::with_capacity(size as usize);
            (&mut c.stdout).take(size).read_to_end(&mut bytes)?;
            let mut newline = [0u8; 1];
            c.stdout.read_exact(&mut newline)?;
            Ok((bytes.len() as u64 == size).then_some(bytes))
        });
        match got {
            Some(Some(bytes)) => Blob::Bytes(bytes),
            _ => Blob::Missing,
        }
    }

    /// Runs `f` on the process in `slot` (started when missing); a process that failed is
    /// dropped, and `None` returned.
    fn with<T>(
        root: &Path,
        slot: &mut Option<Cat>,
        mode: &str,
        f: impl FnOnce(&mut Cat) -> std::io::Result<T>,
    ) -> Option<T> {
        if slot.is_none() {
            *slot = Cat::start(root, mode);
        }
        match f(slot.as_mut()?) {
            Ok(v) => Some(v),
            Err(_) => {
                *slot = None;
                None
            }
        }
    }
}

/// Whether the working tree's `rel` differs from its version at `base` (for a file too
/// large to read and compare here; git compares it without holding it whole).
pub(crate) fn differs(root: &Path, base: &str, rel: &str) -> bool {
    if !is_object_id(base) {
        return true;
    }
    let mut cmd = git(root);
    cmd.args([
        "--literal-pathspecs",
        "diff",
        "--quiet",
        "--no-ext-diff",
        "--no-textconv",
        base,
        "--",
        rel,
    ]);
    !cmd.status().is_ok_and(|s| s.success())
}

/// git's own three-way merge of one file (`git merge-file`, the algorithm `git merge`
/// uses for a file's content) of the three files given, none of them changed: the
/// versions are private copies (see `super::content`), never objects written to the
/// repository's database.
pub(crate) fn merge_file(root: &Path, a: &Path, base: &Path, b: &Path) -> TextVerdict {
    let mut cmd = git(root);
    cmd.args(["merge-file", "-p", "--"])
        .arg(a)
        .arg(base)
        .arg(b)
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
