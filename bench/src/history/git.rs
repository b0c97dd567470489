//! The git commands of the evaluation, run on a bare `--shared` clone that the evaluation
//! owns: the repository under study is only read (its refs and work tree are never
//! touched; the objects the evaluation writes land in the clone).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::git_tree::{TreeEntry, base_command, parse_ls_tree};

/// The all-zero object id `git diff-tree` prints for a side where the path is absent.
const NULL_OID: &str = "0000000000000000000000000000000000000000";

/// A repository, driven through the `git` binary.
pub struct Git {
    dir: PathBuf,
    /// A long-lived `git cat-file --batch`: one process for every blob read instead of
    /// one per blob (a run reads tens of thousands).
    batch: RefCell<Option<Batch>>,
}

struct Batch {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Drop for Batch {
    fn drop(&mut self) {
        // Closing its input ends `cat-file --batch`; wait so that no zombie is left.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One path's change between two trees (`git diff-tree -r --no-renames`).
#[derive(Debug, Clone)]
pub struct RawChange {
    /// Repository-relative path.
    pub path: String,
    /// Mode at the base (`000000` when absent).
    pub old_mode: String,
    /// Mode on the side (`000000` when deleted).
    pub new_mode: String,
    /// Blob at the base, `None` when the side added the path.
    pub old_oid: Option<String>,
    /// Blob on the side, `None` when the side deleted the path.
    pub new_oid: Option<String>,
}

/// What `git merge-tree --write-tree` says of a three-way merge.
#[derive(Debug, Clone, Default)]
pub struct MergeTruth {
    /// The merged tree (conflicted files with git's markers in it).
    pub tree: String,
    /// The conflicted paths.
    pub conflicted: BTreeSet<String>,
    /// For each path git wrote a `CONFLICT` message about, the conflict types
    /// (`contents`, `modify/delete`, `rename/delete`, …).
    pub types: BTreeMap<String, BTreeSet<String>>,
}

/// A non-merge commit and the files it touches.
#[derive(Debug, Clone)]
pub struct CommitFiles {
    /// The commit.
    pub id: String,
    /// Its (only) parent.
    pub parent: String,
    /// The paths it changes against its parent (as `git log --name-only` prints them).
    pub files: BTreeSet<String>,
}

/// One hunk of a `-U0` diff, as xdiff counts lines: old lines `start .. start + len`
/// replaced by new lines `new_start .. new_start + new_len` (zero-based; `len == 0` is an
/// insertion before old line `start`, `new_len == 0` a deletion before new line
/// `new_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hunk {
    /// Zero-based first old line (or insertion point).
    pub start: usize,
    /// Old lines replaced.
    pub len: usize,
    /// Zero-based first new line (or, for a deletion, where it was).
    pub new_start: usize,
    /// New lines in their place.
    pub new_len: usize,
}

impl Git {
    /// A bare `--shared` clone of `source` (a repository or its git directory) in `into`.
    /// `--shared` borrows the source's objects through `objects/info/alternates`, so the
    /// clone is instant and the source is only read.
    pub fn clone_from(source: &Path, into: &Path) -> Result<Git> {
        let dir = into.join("repo.git");
        let out = base_command()
            .args(["clone", "--quiet", "--bare", "--shared"])
            .arg(source)
            .arg(&dir)
            .output()
            .context("running git clone")?;
        if !out.status.success() {
            bail!(
                "git clone --bare --shared {} failed: {}",
                source.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(Git {
            dir,
            batch: RefCell::new(None),
        })
    }

    /// The clone's git directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn command(&self) -> Command {
        let mut c = base_command();
        c.arg("--git-dir").arg(&self.dir);
        c
    }

    /// The clone's git directory.
    pub fn git_dir(&self) -> &Path {
        &self.dir
    }

    /// Runs git with `args`; its stdout, or an error naming the command when it fails.
    fn run(&self, args: &[&str]) -> Result<Vec<u8>> {
        let (code, out, err) = self.run_status(args, None)?;
        if code != 0 {
            bail!(
                "git {} failed ({code}): {}",
                args.join(" "),
                String::from_utf8_lossy(&err).trim()
            );
        }
        Ok(out)
    }

    /// Runs git with `args` (and `input` on its stdin): exit code, stdout, stderr.
    fn run_status(&self, args: &[&str], input: Option<&[u8]>) -> Result<(i32, Vec<u8>, Vec<u8>)> {
        let mut child = self
            .command()
            .args(args)
            .stdin(if input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("starting git {}", args.join(" ")))?;
        if let Some(bytes) = input {
            let mut stdin = child.stdin.take().context("git's stdin")?;
            stdin.write_all(bytes)?;
        }
        let out = child.wait_with_output()?;
        // Killed by a signal: no code; report it as an error code git never uses.
        Ok((out.status.code().unwrap_or(-1), out.stdout, out.stderr))
    }

    fn text(&self, args: &[&str]) -> Result<String> {
        Ok(String::from_utf8(self.run(args)?)?.trim().to_owned())
    }

    /// The commit `rev` names.
    pub fn commit_of(&self, rev: &str) -> Result<String> {
        self.text(&[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ])
    }

    /// The tree of `rev`.
    pub fn tree_of(&self, rev: &str) -> Result<String> {
        self.text(&[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{tree}}"),
        ])
    }

    /// The merge commits with exactly two parents reachable from HEAD, newest first:
    /// (merge, first parent, second parent).
    pub fn merges(&self) -> Result<Vec<(String, String, String)>> {
        let out = String::from_utf8(self.run(&[
            "rev-list",
            "--merges",
            "--parents",
            "--topo-order",
            "HEAD",
        ])?)?;
        Ok(out
            .lines()
            .filter_map(|l| {
                let ids: Vec<&str> = l.split_whitespace().collect();
                match ids[..] {
                    [m, p1, p2] => Some((m.to_owned(), p1.to_owned(), p2.to_owned())),
                    _ => None, // octopus merges: no two-sided truth
                }
            })
            .collect())
    }

    /// The non-merge, non-root commits reachable from HEAD in topological order (newest
    /// first), each with the files it touches.
    pub fn commits_with_files(&self) -> Result<Vec<CommitFiles>> {
        let out = self.run(&[
            "-c",
            "core.quotePath=false",
            "log",
            "--no-merges",
            "--topo-order",
            "--no-renames",
            "--format=%x01%H %P",
            "--name-only",
            "HEAD",
        ])?;
        let out = String::from_utf8_lossy(&out);
        let mut commits: Vec<CommitFiles> = Vec::new();
        let mut current: Option<CommitFiles> = None;
        for line in out.lines() {
            if let Some(header) = line.strip_prefix('\u{1}') {
                commits.extend(current.take());
                let mut ids = header.split_whitespace();
                let id = ids.next().unwrap_or_default().to_owned();
                // A root commit has no parent to be a base: left out.
                current = ids.next().map(|parent| CommitFiles {
                    id,
                    parent: parent.to_owned(),
                    files: BTreeSet::new(),
                });
            } else if !line.is_empty()
                && let Some(c) = current.as_mut()
            {
                c.files.insert(line.to_owned());
            }
        }
        commits.extend(current);
        Ok(commits)
    }

    /// The merge base of two commits (the first, when there are several).
    pub fn merge_base(&self, a: &str, b: &str) -> Result<Option<String>> {
        let (code, out, _) = self.run_status(&["merge-base", a, b], None)?;
        Ok((code == 0).then(|| String::from_utf8_lossy(&out).trim().to_owned()))
    }

    /// `commit`'s change (against its first parent) applied onto `onto` by git's own merge,
    /// as a cherry-pick does it but without a work tree: the tree, or `None` when that
    /// itself conflicts.
    pub fn cherry_pick_tree(&self, onto: &str, commit: &str) -> Result<Option<String>> {
        let base = format!("--merge-base={commit}^");
        let (code, out, err) = self.run_status(
            &[
                "merge-tree",
                "--write-tree",
                "--name-only",
                &base,
                onto,
                commit,
            ],
            None,
        )?;
        match code {
            0 => Ok(Some(
                String::from_utf8_lossy(&out)
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            )),
            1 => Ok(None),
            _ => bail!(
                "git merge-tree (cherry-pick of {commit}) failed: {}",
                String::from_utf8_lossy(&err).trim()
            ),
        }
    }

    /// What git's merge of `a` and `b` over `base` says: the ground truth.
    pub fn merge_truth(&self, base: &str, a: &str, b: &str) -> Result<MergeTruth> {
        let base_arg = format!("--merge-base={base}");
        let (code, out, err) = self.run_status(
            &[
                "merge-tree",
                "--write-tree",
                "--name-only",
                "-z",
                &base_arg,
                a,
                b,
            ],
            None,
        )?;
        if code != 0 && code != 1 {
            bail!(
                "git merge-tree failed ({code}): {}",
                String::from_utf8_lossy(&err).trim()
            );
        }
        parse_merge_tree(&out, code == 1)
    }

    /// The paths that differ between two trees, renames left as deletion plus addition
    /// (the forecast compares paths, as a checkout's changes are listed by path).
    pub fn diff_trees(&self, from: &str, to: &str) -> Result<Vec<RawChange>> {
        let out = self.run(&["diff-tree", "-r", "-z", "--no-renames", from, to])?;
        let mut fields = out.split(|&b| b == 0);
        let mut changes = Vec::new();
        while let Some(meta) = fields.next() {
            if meta.is_empty() {
                continue;
            }
            let meta = String::from_utf8_lossy(meta);
            let path = fields
                .next()
                .context("diff-tree: a change without a path")?;
            // ":old_mode new_mode old_oid new_oid status"
            let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            let [old_mode, new_mode, old_oid, new_oid, _status] = parts[..] else {
                bail!("diff-tree: unexpected line {meta:?}");
            };
            let present = |oid: &str| (oid != NULL_OID).then(|| oid.to_owned());
            changes.push(RawChange {
                path: String::from_utf8_lossy(path).into_owned(),
                old_mode: old_mode.to_owned(),
                new_mode: new_mode.to_owned(),
                old_oid: present(old_oid),
                new_oid: present(new_oid),
            });
        }
        Ok(changes)
    }

    /// Every file of `tree`.
    pub fn ls_tree(&self, tree: &str) -> Result<Vec<TreeEntry>> {
        parse_ls_tree(&self.run(&["ls-tree", "-r", "-l", "-z", tree])?)
    }

    /// The content of blob `oid`.
    pub fn cat(&self, oid: &str) -> Result<Vec<u8>> {
        let mut slot = self.batch.borrow_mut();
        if slot.is_none() {
            let mut child = self
                .command()
                .args(["cat-file", "--batch"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .context("starting git cat-file --batch")?;
            let input = child.stdin.take().context("cat-file's stdin")?;
            let output = BufReader::new(child.stdout.take().context("cat-file's stdout")?);
            *slot = Some(Batch {
                child,
                input,
                output,
            });
        }
        let batch = slot.as_mut().expect("just started");
        writeln!(batch.input, "{oid}")?;
        batch.input.flush()?;
        let mut header = String::new();
        batch.output.read_line(&mut header)?;
        // "<oid> <type> <size>", or "<oid> missing"
        let size: usize = match header.split_whitespace().collect::<Vec<_>>()[..] {
            [_, _, size] => size.parse().context("cat-file: size")?,
            _ => bail!("cat-file {oid}: {}", header.trim()),
        };
        let mut content = vec![0; size + 1]; // and the newline after it
        batch.output.read_exact(&mut content)?;
        content.pop();
        Ok(content)
    }

    /// Writes `bytes` as a blob into the clone; its id.
    pub fn write_blob(&self, bytes: &[u8]) -> Result<String> {
        let (code, out, err) = self.run_status(&["hash-object", "-w", "--stdin"], Some(bytes))?;
        if code != 0 {
            bail!("git hash-object: {}", String::from_utf8_lossy(&err).trim());
        }
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// `git merge-file` of three blobs (ours, the base, theirs), run as the daemon runs it
    /// (`-p --object-id`, git's default diff algorithm): its exit code (0 clean, 1‥127 the
    /// number of conflicting hunks, other codes a merge git refused) and whether git
    /// refused it because the files are binary.
    pub fn merge_file(&self, ours: &str, base: &str, theirs: &str) -> Result<(i32, bool)> {
        let (code, _, err) = self.run_status(
            &["merge-file", "-p", "--object-id", ours, base, theirs],
            None,
        )?;
        Ok((code, String::from_utf8_lossy(&err).contains("binary")))
    }

    /// The hunks of `from` → `to` (two blobs), in `from`'s lines, by the histogram diff
    /// that `merge-tree`'s ort strategy merges with.
    pub fn hunks(&self, from: &str, to: &str) -> Result<Vec<Hunk>> {
        let out = self.run(&[
            "diff",
            "--no-ext-diff",
            "--no-color",
            "--histogram",
            "-U0",
            from,
            to,
        ])?;
        Ok(String::from_utf8_lossy(&out)
            .lines()
            .filter_map(parse_hunk_header)
            .collect())
    }
}

/// `@@ -s,l +s2,l2 @@` → a [`Hunk`]. In git's format `s` is one-based, and for `l == 0`
/// it is the line *after which* lines were inserted (the same on the new side).
fn parse_hunk_header(line: &str) -> Option<Hunk> {
    let mut sides = line.strip_prefix("@@ -")?.split(' ');
    let old = sides.next()?;
    let new = sides.next()?.strip_prefix('+')?;
    let range = |side: &str| -> Option<(usize, usize)> {
        let (s, l) = match side.split_once(',') {
            Some((s, l)) => (s.parse::<usize>().ok()?, l.parse::<usize>().ok()?),
            None => (side.parse::<usize>().ok()?, 1),
        };
        Some(if l == 0 {
            (s, 0)
        } else {
            (s.saturating_sub(1), l)
        })
    };
    let ((start, len), (new_start, new_len)) = (range(old)?, range(new)?);
    Some(Hunk {
        start,
        len,
        new_start,
        new_len,
    })
}

/// `merge-tree --write-tree --name-only -z`: the tree, the conflicted paths, an empty
/// field, then per message `<n> NUL <path>… <type> NUL <message> NUL`.
pub fn parse_merge_tree(out: &[u8], conflicted: bool) -> Result<MergeTruth> {
    let fields: Vec<String> = out
        .split(|&b| b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    let mut truth = MergeTruth {
        tree: fields
            .first()
            .map(|t| t.trim().to_owned())
            .unwrap_or_default(),
        ..MergeTruth::default()
    };
    if !conflicted {
        return Ok(truth); // a clean merge prints its tree only
    }
    let mut i = 1; // after the tree
    while i < fields.len() && !fields[i].is_empty() {
        truth.conflicted.insert(fields[i].clone());
        i += 1;
    }
    i += 1;
    while i < fields.len() {
        let Ok(n) = fields[i].parse::<usize>() else {
            break; // the trailing empty field
        };
        let paths = fields.get(i + 1..i + 1 + n).unwrap_or_default();
        let kind = fields.get(i + 1 + n).cloned().unwrap_or_default();
        if kind.starts_with("CONFLICT") {
            let kind = kind
                .trim_start_matches("CONFLICT (")
                .trim_end_matches(')')
                .to_owned();
            for p in paths {
                truth
                    .types
                    .entry(p.clone())
                    .or_default()
                    .insert(kind.clone());
            }
        }
        i += n + 3;
    }
    Ok(truth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_headers_in_xdiff_lines() {
        let hunk = |start, len, new_start, new_len| {
            Some(Hunk {
                start,
                len,
                new_start,
                new_len,
            })
        };
        assert_eq!(parse_hunk_header("@@ -3,2 +3,4 @@ fn"), hunk(2, 2, 2, 4));
        assert_eq!(parse_hunk_header("@@ -7 +7 @@"), hunk(6, 1, 6, 1));
        // Inserted after line 5: before zero-based line 5, as new lines 5 and 6.
        assert_eq!(parse_hunk_header("@@ -5,0 +6,2 @@"), hunk(5, 0, 5, 2));
        // Lines 3-4 deleted: the new side has none, after its line 2.
        assert_eq!(parse_hunk_header("@@ -3,2 +2,0 @@"), hunk(2, 2, 2, 0));
    }

    #[test]
    fn merge_tree_output_with_messages() {
        let out = b"0477\0t/a.py\0t/b.py\0\x001\0t/a.py\0Auto-merging\0Auto-merging t/a.py\n\x001\0t/a.py\0CONFLICT (contents)\0CONFLICT (content): Merge conflict in t/a.py\n\x002\0t/b.py\0t/c.py\0CONFLICT (rename/delete)\0...\n\0";
        let t = parse_merge_tree(out, true).unwrap();
        assert_eq!(
            t.conflicted.iter().collect::<Vec<_>>(),
            ["t/a.py", "t/b.py"]
        );
        assert_eq!(t.types["t/a.py"].iter().collect::<Vec<_>>(), ["contents"]);
        assert_eq!(
            t.types["t/c.py"].iter().collect::<Vec<_>>(),
            ["rename/delete"]
        );
    }
}
