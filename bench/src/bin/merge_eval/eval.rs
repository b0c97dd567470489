//! One merge of the history replayed: git alone, then with wit's driver, and each file
//! git left conflicted followed through.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use wit_bench::git_tree::base_command;
use wit_bench::history::git::{Git, MergeTruth, parse_merge_tree};

/// What became of one file git's merge left conflicted.
#[derive(Debug, Clone, Serialize)]
pub struct FileResult {
    /// The path.
    pub path: String,
    /// git's conflict types for it (`contents`, `add/add`, `modify/delete`, …).
    pub kinds: Vec<String>,
    /// A conflict of contents (`contents`, `add/add`): what a merge driver is asked to
    /// merge. The others (a deletion, a rename) are decided before any driver runs.
    pub contents: bool,
    /// Whether the driver covers the file (its extension has an analyzer).
    pub covered: bool,
    /// Whether the merge with the driver left it merged.
    pub merged: bool,
    /// For a merged file: equal to the merge commit's file, whitespace-normalized.
    pub equal: Option<bool>,
    /// For a merged file: byte for byte equal to the merge commit's.
    pub exact: Option<bool>,
    /// What the driver said about the file (its line on stderr), if anything.
    pub note: Option<String>,
    /// For a conflict of contents: how many conflicting regions git's merge left in it,
    /// and how many the merge with the driver left (0 when merged).
    pub regions: Option<(usize, usize)>,
}

/// One merge git stops on, replayed.
#[derive(Debug, Clone, Serialize)]
pub struct MergeResult {
    /// The merge commit.
    pub merge: String,
    /// Every file git left conflicted.
    pub files: Vec<FileResult>,
    /// Files git merged cleanly whose result the driver changed (none is expected: the
    /// driver keeps git's clean merges).
    pub changed_clean: Vec<String>,
}

/// Replays merges on a clone, with the driver `wit`.
pub struct Evaluator<'g> {
    git: &'g Git,
    /// `-c` settings that make `wit` the driver, as `wit hook install` writes them.
    driver: Vec<String>,
    /// The extensions the driver covers (the built-in analyzers').
    extensions: BTreeSet<String>,
}

/// `s` as one single-quoted `sh` word.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The text as whitespace-separated tokens: a comparison that ignores indentation,
/// blank lines and line breaks, and nothing else.
pub fn tokens(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .collect()
}

/// How many conflicting regions a merged file holds (lines opening a conflict).
pub fn regions(bytes: &[u8]) -> usize {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"<<<<<<< "))
        .count()
}

/// The driver's lines on stderr (`wit: <path>: …`), by path.
pub fn notes(stderr: &str) -> BTreeMap<String, String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("wit: "))
        .filter_map(|l| l.split_once(": "))
        .map(|(path, note)| (path.to_owned(), note.to_owned()))
        .collect()
}

impl<'g> Evaluator<'g> {
    /// Sets the clone up for the driver (its `info/attributes`, as `wit hook install`
    /// writes them for the built-in analyzers).
    pub fn new(git: &'g Git, wit: &Path) -> Result<Evaluator<'g>> {
        let wit = wit.to_str().context("the wit binary's path is not UTF-8")?;
        let extensions: BTreeSet<String> = wit_analyzers::builtin_registry()
            .extensions()
            .into_iter()
            .map(str::to_owned)
            .collect();
        let info = git.git_dir().join("info");
        std::fs::create_dir_all(&info)?;
        let lines: String = extensions
            .iter()
            .map(|e| format!("*.{e} merge={}\n", wit_merge::driver::NAME))
            .collect();
        std::fs::write(info.join("attributes"), lines)?;
        let name = wit_merge::driver::NAME;
        let driver = vec![
            format!(
                "merge.{name}.driver={}",
                wit_merge::driver::command(&sh_quote(wit))
            ),
            format!("merge.{name}.name={}", wit_merge::driver::DESCRIPTION),
            format!("merge.{name}.recursive=text"),
        ];
        Ok(Evaluator {
            git,
            driver,
            extensions,
        })
    }

    /// `git merge-tree --write-tree` of two commits (git's merge bases), with the driver
    /// or as git alone (`merge=wit` then names no driver, and git merges as its text
    /// driver does); git's answer and its stderr (where the driver writes).
    fn merge_tree(&self, driver: bool, p1: &str, p2: &str) -> Result<(MergeTruth, String)> {
        let mut c = base_command();
        c.arg("--git-dir").arg(self.git.git_dir());
        if driver {
            for setting in &self.driver {
                c.args(["-c", setting]);
            }
        }
        let out = c
            .args(["merge-tree", "--write-tree", "--name-only", "-z", p1, p2])
            .current_dir(self.git.git_dir())
            .env_remove("WIT_REPO_ROOT")
            .output()
            .context("running git merge-tree")?;
        let code = out.status.code().unwrap_or(-1);
        if code != 0 && code != 1 {
            bail!(
                "git merge-tree {p1} {p2} failed ({code}): {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok((
            parse_merge_tree(&out.stdout, code == 1)?,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    }

    fn covered(&self, path: &str) -> bool {
        Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| self.extensions.contains(e))
    }

    /// Replays `merge` (parents `p1`, `p2`); `None` when git merges it cleanly.
    pub fn evaluate(&mut self, merge: &str, p1: &str, p2: &str) -> Result<Option<MergeResult>> {
        let (plain, _) = self.merge_tree(false, p1, p2)?;
        if plain.conflicted.is_empty() {
            return Ok(None);
        }
        let (driven, stderr) = self.merge_tree(true, p1, p2)?;
        let notes = notes(&stderr);
        let mut files = Vec::new();
        for path in &plain.conflicted {
            let kinds: Vec<String> = plain
                .types
                .get(path)
                .map(|k| k.iter().cloned().collect())
                .unwrap_or_default();
            let contents = kinds.iter().any(|k| k == "contents" || k == "add/add");
            let merged = !driven.conflicted.contains(path);
            let (equal, exact) = if merged {
                let ours = self.git.cat(&format!("{}:{path}", driven.tree))?;
                match self.git.cat(&format!("{merge}:{path}")) {
                    Ok(theirs) => (Some(tokens(&ours) == tokens(&theirs)), Some(ours == theirs)),
                    // The merge commit has no such file (it resolved by deleting it).
                    Err(_) => (Some(false), Some(false)),
                }
            } else {
                (None, None)
            };
            let regions = if contents {
                let count = |tree: &str| -> usize {
                    self.git
                        .cat(&format!("{tree}:{path}"))
                        .map_or(0, |b| regions(&b))
                };
                let driver = if merged { 0 } else { count(&driven.tree) };
                Some((count(&plain.tree), driver))
            } else {
                None
            };
            files.push(FileResult {
                path: path.clone(),
                kinds,
                contents,
                covered: self.covered(path),
                merged,
                equal,
                exact,
                note: notes.get(path).cloned(),
                regions,
            });
        }
        let changed_clean = self
            .git
            .diff_trees(&plain.tree, &driven.tree)?
            .into_iter()
            .map(|c| c.path)
            .filter(|p| !plain.conflicted.contains(p))
            .collect();
        Ok(Some(MergeResult {
            merge: merge.to_owned(),
            files,
            changed_clean,
        }))
    }
}
