//! The checkout's HEAD as the claims compare with it: which commit it is (git is asked
//! only when something git keeps about HEAD moved), and a file's version in it, read and
//! analysed once per commit.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use wit_core::Analysis;

use crate::index::files;

/// How often git is asked about HEAD even when nothing it keeps seems to have moved (a
/// ref packed, a clock that went backwards).
const FULL_CHECK: Duration = Duration::from_secs(30);

/// HEAD versions kept analysed: the files being edited, each read and analysed once per
/// commit however often it is edited.
const KEPT: usize = 128;

/// The size and time of each file git keeps about HEAD.
type Stamp = Vec<Option<(std::time::SystemTime, u64)>>;

/// One file as HEAD has it.
pub(crate) struct HeadFile {
    /// Its text.
    pub source: String,
    /// Its analysis.
    pub analysis: Arc<Analysis>,
}

/// A file's version at HEAD.
#[derive(Clone)]
pub(crate) enum AtHead {
    /// HEAD has it, analysed.
    File(Arc<HeadFile>),
    /// HEAD does not have it (a new file, or no commit yet).
    Absent,
    /// It cannot be compared: too large, not UTF-8, not analysable, or git failed.
    Unknown(String),
}

/// HEAD, watched.
pub(crate) struct Head {
    root: PathBuf,
    /// The repository's common git directory (refs of a linked worktree live there).
    common: Option<PathBuf>,
    /// This checkout's own git directory, asked once.
    git_dir: Option<Option<PathBuf>>,
    stamp: Option<Stamp>,
    checked: Option<Instant>,
    commit: Option<String>,
    files: HashMap<(String, String), AtHead>,
    order: VecDeque<(String, String)>,
}

impl Head {
    /// HEAD of the checkout at `root` (canonical), whose common git directory is `common`.
    pub(crate) fn new(root: &Path, common: Option<PathBuf>) -> Self {
        Head {
            root: root.to_owned(),
            common,
            git_dir: None,
            stamp: None,
            checked: None,
            commit: None,
            files: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// The HEAD commit now (`None`: no commit yet, or not a git checkout), and whether it
    /// is another than at the last call.
    pub(crate) fn commit(&mut self) -> (Option<String>, bool) {
        let stamp = self.stamp();
        let fresh = self.checked.is_some_and(|at| at.elapsed() < FULL_CHECK);
        if fresh && self.stamp.as_ref() == Some(&stamp) {
            return (self.commit.clone(), false);
        }
        self.stamp = Some(stamp);
        self.checked = Some(Instant::now());
        let mut cmd = files::git(&self.root);
        cmd.args(["rev-parse", "--verify", "-q", "HEAD^{commit}"]);
        let now = cmd
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_owned())
            .filter(|s| is_object_id(s));
        let moved = now != self.commit;
        self.commit = now;
        (self.commit.clone(), moved)
    }

    /// What git keeps about HEAD, as sizes and times: HEAD, its reflog, the branch's ref,
    /// the packed refs.
    fn stamp(&mut self) -> Stamp {
        if self.git_dir.is_none() {
            let mut cmd = files::git(&self.root);
            cmd.args(["rev-parse", "--absolute-git-dir"]);
            self.git_dir = Some(
                cmd.output()
                    .ok()
                    .filter(|o| o.status.success())
                    .and_then(|o| String::from_utf8(o.stdout).ok())
                    .map(|s| PathBuf::from(s.trim())),
            );
        }
        let Some(Some(dir)) = self.git_dir.clone() else {
            return Vec::new();
        };
        let meta = |p: &Path| {
            std::fs::symlink_metadata(p)
                .ok()
                .map(|m| (m.modified().unwrap_or(std::time::UNIX_EPOCH), m.len()))
        };
        let common = self.common.clone().unwrap_or_else(|| dir.clone());
        let mut paths = vec![
            dir.join("HEAD"),
            dir.join("logs/HEAD"),
            common.join("packed-refs"),
        ];
        if let Some(name) = branch_ref(&dir) {
            paths.push(common.join(name));
        }
        paths.iter().map(|p| meta(p)).collect()
    }

    /// `rel` at `commit`, read (at most `limit` bytes) and analysed with `analyse`,
    /// remembered for the next edits of the file.
    pub(crate) fn file(
        &mut self,
        commit: &str,
        rel: &str,
        limit: u64,
        analyse: impl FnOnce(&str) -> Result<Analysis, String>,
    ) -> AtHead {
        let key = (commit.to_owned(), rel.to_owned());
        if let Some(found) = self.files.get(&key) {
            return found.clone();
        }
        let found = match blob(&self.root, commit, rel, limit) {
            Ok(None) => AtHead::Absent,
            Ok(Some(bytes)) => match String::from_utf8(bytes) {
                Ok(source) => match analyse(&source) {
                    Ok(a) => AtHead::File(Arc::new(HeadFile {
                        source,
                        analysis: Arc::new(a),
                    })),
                    Err(why) => AtHead::Unknown(format!("HEAD's version did not analyse: {why}")),
                },
                Err(_) => AtHead::Unknown("HEAD's version is not UTF-8".into()),
            },
            Err(why) => AtHead::Unknown(why),
        };
        if self.order.len() >= KEPT
            && let Some(old) = self.order.pop_front()
        {
            self.files.remove(&old);
        }
        self.order.push_back(key.clone());
        self.files.insert(key, found.clone());
        found
    }
}

/// The files whose working-tree content differs from HEAD (tracked ones, and untracked
/// ones git does not ignore), at most `max`; `None` when git cannot say.
pub(crate) fn changed_files(root: &Path, max: usize) -> Option<Vec<String>> {
    let list = |args: &[&str]| -> Option<Vec<String>> {
        let mut cmd = files::git(root);
        cmd.args(args);
        let out = cmd.output().ok().filter(|o| o.status.success())?;
        Some(
            out.stdout
                .split(|b| *b == 0)
                .filter(|s| !s.is_empty())
                .filter_map(|s| String::from_utf8(s.to_vec()).ok())
                .collect(),
        )
    };
    let mut names = list(&[
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "HEAD",
        "--",
    ])?;
    names.extend(list(&["ls-files", "-z", "-o", "--exclude-standard"])?);
    names.sort();
    names.dedup();
    names.truncate(max);
    Some(names)
}

/// Whether `s` is a full object id (SHA-1 or SHA-256 hex).
fn is_object_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The ref HEAD names in the git directory `dir` (`refs/heads/main`), when it names one
/// by a plain relative path; read through the boundary (no symlink out, no FIFO, at most
/// 4 KiB), since a repository's `.git` may have been written by someone else.
fn branch_ref(dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let bytes = wit_boundary::read_repo_file(&dir, "HEAD", 4096).ok()?;
    let head = String::from_utf8(bytes).ok()?;
    let name = head.trim().strip_prefix("ref: ")?;
    let plain = name.starts_with("refs/")
        && !name
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..");
    plain.then(|| name.to_owned())
}

/// The content of `rel` in `commit` (`None`: not there, or not a regular file), read with
/// one `git cat-file --batch` whose header gives the size first: a blob over `limit`
/// bytes is refused without being read.
fn blob(root: &Path, commit: &str, rel: &str, limit: u64) -> Result<Option<Vec<u8>>, String> {
    if !is_object_id(commit) {
        return Err("HEAD is not an object id".into());
    }
    // One line names the object: a path with a newline cannot be asked this way.
    if rel.contains(['\n', '\r']) {
        return Err("a file name with a line break is not compared".into());
    }
    let mut cmd = files::git(root);
    cmd.args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| format!("running git: {e}"))?;
    let ask = child
        .stdin
        .take()
        .map(|mut i| i.write_all(format!("{commit}:{rel}\n").as_bytes()));
    let answer = (|| -> Result<Option<Vec<u8>>, String> {
        ask.ok_or("git's input")?
            .map_err(|e| format!("asking git: {e}"))?;
        let out = child.stdout.take().ok_or("git's output")?;
        let mut out = BufReader::new(out);
        let mut header = String::new();
        out.read_line(&mut header)
            .map_err(|e| format!("reading git: {e}"))?;
        let mut parts = header.split_whitespace();
        let (_, kind, size) = (parts.next(), parts.next(), parts.next());
        match (kind, size.and_then(|s| s.parse::<u64>().ok())) {
            (Some("blob"), Some(size)) if size > limit => Err(format!(
                "HEAD's version is larger than {limit} bytes (the analysis limit)"
            )),
            (Some("blob"), Some(size)) => {
                let mut bytes = vec![0u8; size as usize];
                out.read_exact(&mut bytes)
                    .map_err(|e| format!("reading git: {e}"))?;
                Ok(Some(bytes))
            }
            // `missing`, or a tree or a submodule at that path: no file at HEAD.
            _ => Ok(None),
        }
    })();
    // Whatever was read, the process ends here (a large blob left unread included).
    let _ = child.kill();
    let _ = child.wait();
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(root: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn head_moves_are_seen_and_a_large_blob_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        git(&root, &["init", "-q"]);
        let mut head = Head::new(&root, None);
        assert_eq!(head.commit(), (None, false), "no commit yet");
        std::fs::write(root.join("a.ts"), "export function f() {}\n").unwrap();
        std::fs::write(root.join("big.ts"), "x".repeat(4096)).unwrap();
        git(&root, &["add", "."]);
        git(&root, &["commit", "-qm", "one"]);
        let (first, moved) = head.commit();
        assert!(first.is_some() && moved);
        assert_eq!(head.commit(), (first.clone(), false));
        let commit = first.unwrap();
        let analyse = |_: &str| Ok(Analysis::default());
        assert!(
            matches!(head.file(&commit, "a.ts", 1024, analyse), AtHead::File(f) if f.source.starts_with("export"))
        );
        assert!(matches!(
            head.file(&commit, "new.ts", 1024, analyse),
            AtHead::Absent
        ));
        assert!(
            matches!(head.file(&commit, "big.ts", 1024, analyse), AtHead::Unknown(w) if w.contains("larger than 1024"))
        );
        std::fs::write(root.join("a.ts"), "export function g() {}\n").unwrap();
        git(&root, &["commit", "-qam", "two"]);
        let (second, moved) = head.commit();
        assert!(moved && second.as_deref() != Some(commit.as_str()));
    }
}
