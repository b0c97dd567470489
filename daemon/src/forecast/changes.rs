//! What this daemon's checkout changed against one merge base, file by file.
//!
//! A base is a commit: its tree is listed once (path → blob), and each file is compared
//! by content with its blob there. An analysed file's definitions are compared with
//! `wit_forecast::diff_symbols` (the base's version analysed by the same analyzer, the
//! current one taken from the analysis service, whose cache the index's re-read of the
//! saved file has just filled), and the changed ones get the callees the checkout's code
//! graph resolves. Every changed file's current content is kept privately for git's merge
//! with another checkout's version (`super::texts`) and published by its content id. Only
//! the saved file is looked at on a save.
//!
//! **Cost.** A scan runs three git processes whatever the number of files (`ls-tree`,
//! `diff --name-only`, `ls-files -o`); base versions are read through the forecast
//! thread's one pair of `cat-file --batch-check` / `--batch` readers (`git::Batch`, the
//! size asked first: a version over `[analysis] max_file_bytes` is never read, and the
//! file is published as *too large to compare*). Contents are hashed here. A base with
//! more than [`MAX_CHANGED`] changed files is not scanned at all: the checkout is
//! `too-many-changes` until it has fewer.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;
use std::sync::Arc;

use wit_boundary::RepoFileError;
use wit_core::Analysis;
use wit_core::text::escape;
use wit_forecast::{CallRef, FileChange, Version, diff_symbols};

use super::git::{self, Batch, Blob};
use super::texts::Texts;
use crate::analysis::{AnalysisService, FileOutcome};
use crate::index::RepoIndex;

/// Base versions kept analysed (by blob id): the files being edited, each analysed once
/// however often it is saved.
const KEPT: usize = 64;

/// Most changed files one scan compares (against one base). A branch that changes more
/// (a hostile one with 50,000, a tree reformatted) is stated `too-many-changes` rather
/// than costing minutes of every daemon's time at each HEAD move.
pub(crate) const MAX_CHANGED: usize = 2_000;

/// What a scan against one base found.
pub(crate) enum Scan {
    /// Every change against it.
    Done(Base),
    /// More changed files than [`MAX_CHANGED`] (this many): not compared.
    TooMany(usize),
    /// git could not answer (the base is gone, not a repository).
    Failed,
}

/// A version of a file as read for a comparison.
enum Read {
    /// Not there.
    Absent,
    /// Its bytes.
    Bytes(Arc<Vec<u8>>),
    /// Over the size limit: its size, never read.
    TooLarge(u64),
}

/// One merge base and what the checkout changed against it.
pub(crate) struct Base {
    /// The commit.
    pub id: String,
    /// Its regular files: path → blob id (shared with the process's other worktrees).
    tree: Arc<crate::process::Tree>,
    /// The changed files as last published.
    pub files: BTreeMap<String, FileChange>,
}

/// A small first-in first-out cache.
struct Kept<T> {
    map: HashMap<String, T>,
    order: VecDeque<String>,
}

impl<T: Clone> Kept<T> {
    fn new() -> Self {
        Self {
            map: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    fn get_or(&mut self, key: &str, make: impl FnOnce() -> Option<T>) -> Option<T> {
        if let Some(v) = self.map.get(key) {
            return Some(v.clone());
        }
        let v = make()?;
        if self.order.len() >= KEPT
            && let Some(old) = self.order.pop_front()
        {
            self.map.remove(&old);
        }
        self.order.push_back(key.to_owned());
        self.map.insert(key.to_owned(), v.clone());
        Some(v)
    }
}

/// Computes the checkout's changes (blocking: git processes, reads, parses).
pub(crate) struct Tracker {
    root: std::path::PathBuf,
    analysis: Arc<AnalysisService>,
    index: Arc<RepoIndex>,
    limit: u64,
    contents: Kept<Arc<Vec<u8>>>,
    analysed: Kept<Arc<Analysis>>,
    /// The published texts (and the merges of pairs).
    pub texts: Texts,
    /// The serving process: its worktrees read a merge base's tree once.
    process: Arc<crate::process::Process>,
}

/// The bytes of a version read under the limit, `None` when absent.
fn bytes(read: Read) -> Option<Arc<Vec<u8>>> {
    match read {
        Read::Bytes(b) => Some(b),
        Read::Absent | Read::TooLarge(_) => None,
    }
}

/// Paths that are never a checkout's change: wit's and git's own directories.
pub(crate) fn own_files(rel: &str) -> bool {
    rel == ".wit" || rel.starts_with(".wit/") || rel == ".git" || rel.starts_with(".git/")
}

impl Tracker {
    /// A tracker of the checkout at `root` (canonical).
    pub(crate) fn new(
        root: &Path,
        analysis: Arc<AnalysisService>,
        index: Arc<RepoIndex>,
        limit: u64,
        texts: Texts,
        process: Arc<crate::process::Process>,
    ) -> Self {
        Self {
            process,
            root: root.to_owned(),
            analysis,
            index,
            limit,
            contents: Kept::new(),
            analysed: Kept::new(),
            texts,
        }
    }

    /// `id`'s tree and every change against it (a full scan, at start and when a base is
    /// new: `git diff` against it, then each changed file, the base versions read through
    /// `batch`).
    pub(crate) fn scan(&mut self, id: &str, batch: &mut Batch) -> Scan {
        let Some(changed) = crate::index::files::changed_since(&self.root, id) else {
            return Scan::Failed;
        };
        if changed.len() > MAX_CHANGED {
            return Scan::TooMany(changed.len());
        }
        let Some(tree) = self.process.trees.get_or(id, || git::tree(&self.root, id)) else {
            return Scan::Failed;
        };
        let mut base = Base {
            id: id.to_owned(),
            tree,
            files: BTreeMap::new(),
        };
        for rel in changed {
            // Listed by git (`ls-files -o --exclude-standard` for the untracked): not
            // ignored.
            if let Some(change) = self.file(&base, &rel, batch, Some(true)) {
                base.files.insert(rel, change);
            }
        }
        Scan::Done(base)
    }

    /// Compares `rel` again with `base` after a save; whether its change is new
    /// (`base.files` updated).
    /// `listed`: whether git lists the file (does not ignore it), when already known.
    pub(crate) fn update(
        &mut self,
        base: &mut Base,
        rel: &str,
        batch: &mut Batch,
        listed: Option<bool>,
    ) -> bool {
        let now = self.file(base, rel, batch, listed);
        if base.files.get(rel) == now.as_ref() {
            return false;
        }
        match now {
            Some(change) => base.files.insert(rel.to_owned(), change),
            None => base.files.remove(rel),
        };
        true
    }

    /// How `rel` differs from `base`, `None` when it does not (or cannot be read: a
    /// symlink, a FIFO is no change of the checkout's). A version over the size limit is
    /// never read: the file is [`FileChange::Uncompared`], *too large to compare*.
    /// `listed`: whether git lists the file as not ignored, when known (else asked).
    fn file(
        &mut self,
        base: &Base,
        rel: &str,
        batch: &mut Batch,
        listed: Option<bool>,
    ) -> Option<FileChange> {
        if own_files(rel) {
            return None;
        }
        let now = match wit_boundary::read_repo_file(&self.root, rel, self.limit) {
            Ok(bytes) => Read::Bytes(Arc::new(bytes)),
            Err(RepoFileError::NotFound { .. }) => Read::Absent,
            Err(RepoFileError::TooLarge { size, .. }) => Read::TooLarge(size),
            Err(e) => {
                tracing::debug!(
                    "forecast: {} not compared: {}",
                    escape(rel),
                    escape(&e.to_string())
                );
                return None;
            }
        };
        let was_id = base.tree.get(rel);
        let limit = self.limit;
        let was = match was_id {
            Some(id) => {
                let mut large = None;
                let got = self.contents.get_or(id, || match batch.read(id, limit) {
                    Blob::Bytes(b) => Some(Arc::new(b)),
                    Blob::TooLarge(size) => {
                        large = Some(size);
                        None
                    }
                    Blob::Missing => None,
                });
                match (got, large) {
                    (Some(bytes), _) => Read::Bytes(bytes),
                    (None, Some(size)) => Read::TooLarge(size),
                    (None, None) => return None,
                }
            }
            None => Read::Absent,
        };
        match (&was, &now) {
            (Read::Absent, Read::Absent) => return None,
            (Read::Bytes(w), Read::Bytes(n)) if w == n => return None,
            // Not at the base and not tracked: only when git does not ignore it.
            (Read::Absent, _) if !listed.unwrap_or_else(|| git::listed(&self.root, rel)) => {
                return None;
            }
            // Both over the limit, the same size: git compares them (without either
            // being held whole here).
            (Read::TooLarge(w), Read::TooLarge(n))
                if w == n && !git::differs(&self.root, &base.id, rel) =>
            {
                return None;
            }
            _ => {}
        }
        let large = |what: &str, size: u64| FileChange::Uncompared {
            why: format!(
                "too large to compare: {what} is {size} bytes, over the forecast's limit \
                     of {limit} bytes ([analysis] max_file_bytes)"
            ),
        };
        let (was, now) = match (was, now) {
            (_, Read::TooLarge(size)) => return Some(large("its version", size)),
            (Read::TooLarge(size), _) => return Some(large("the base's version", size)),
            (w, n) => (bytes(w), bytes(n)),
        };
        if self.analysis.supports(rel) {
            match self.symbols(
                rel,
                was_id.map(String::as_str),
                was.as_deref().map(Vec::as_slice),
                now.as_deref().map(Vec::as_slice),
            ) {
                Ok(change) => return Some(change),
                Err(note) => return Some(self.text(now.as_deref().map(Vec::as_slice), Some(note))),
            }
        }
        Some(self.text(now.as_deref().map(Vec::as_slice), None))
    }

    /// A file compared as text: its content kept for the other checkouts' merges.
    fn text(&mut self, now: Option<&[u8]>, note: Option<String>) -> FileChange {
        match now.map(|bytes| self.texts.keep(bytes)) {
            None => FileChange::Text { blob: None, note },
            Some(Ok(id)) => FileChange::Text {
                blob: Some(id),
                note,
            },
            Some(Err(why)) => FileChange::Uncompared { why },
        }
    }

    /// The changed definitions of an analysed file, or why it could not be analysed.
    fn symbols(
        &mut self,
        rel: &str,
        was_id: Option<&str>,
        was: Option<&[u8]>,
        now: Option<&[u8]>,
    ) -> Result<FileChange, String> {
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).map_err(|_| "not UTF-8".to_owned());
        let was_text = was.map(text).transpose()?;
        let now_text = now.map(text).transpose()?;
        let was_analysis = match (was_id, &was_text) {
            (Some(id), Some(source)) => {
                let analyzer = self
                    .analysis
                    .registry()
                    .for_path(rel)
                    .ok_or("no analyzer")?
                    .clone();
                let made = self
                    .analysed
                    .get_or(id, || analyzer.analyze_full(source).ok().map(Arc::new));
                Some(made.ok_or("its base version did not analyse")?)
            }
            _ => None,
        };
        let now_analysis = match (&now, &now_text) {
            (Some(bytes), Some(_)) => match self.analysis.analyse_read(rel, bytes) {
                FileOutcome::Analysed(a) => Some(a),
                FileOutcome::Failed(why) => return Err(format!("not analysed: {why}")),
                _ => return Err("not analysed".into()),
            },
            _ => None,
        };
        let mut symbols = diff_symbols(
            was_text
                .as_deref()
                .zip(was_analysis.as_deref())
                .map(|(source, analysis)| Version { source, analysis }),
            now_text
                .as_deref()
                .zip(now_analysis.as_deref())
                .map(|(source, analysis)| Version { source, analysis }),
        );
        // What the changed code calls, as the checkout's graph resolves it (name-only
        // guesses are left out: a forecast names a caller only when resolution links it).
        let names: Vec<String> = symbols
            .iter()
            .filter(|c| c.change.has_new_code())
            .map(|c| c.name.clone())
            .collect();
        if !names.is_empty() {
            let found = self
                .index
                .resolved_calls_of_each(rel, &names, now_analysis.as_ref());
            let mut calls: HashMap<&str, Vec<CallRef>> = names
                .iter()
                .map(String::as_str)
                .zip(found)
                .filter_map(|(name, list)| Some((name, list?)))
                .collect();
            for c in &mut symbols {
                if let Some(list) = calls.remove(c.name.as_str()) {
                    c.calls = list;
                }
            }
            // And the members of types it reads or writes (resolved receivers only).
            if let Some(analysis) = &now_analysis {
                let uses = self.index.member_uses_of_each(rel, &names, analysis, false);
                let mut by_name: HashMap<&str, Vec<wit_forecast::UseRef>> =
                    names.iter().map(String::as_str).zip(uses).collect();
                for c in &mut symbols {
                    if let Some(list) = by_name.remove(c.name.as_str()) {
                        c.uses = list;
                    }
                }
            }
        }
        // The whole current content, kept for git's merge with another checkout's
        // version of the file (the textual kind: adjacent definitions, text outside them).
        let blob = match now {
            Some(bytes) => match self.texts.keep(bytes) {
                Ok(id) => Some(id),
                Err(why) => {
                    tracing::info!(
                        "forecast: {} is not kept for git's merge: {}",
                        escape(rel),
                        escape(&why)
                    );
                    None
                }
            },
            None => None,
        };
        Ok(FileChange::Symbols {
            symbols,
            deleted: now.is_none(),
            blob,
        })
    }

    /// The blob of `rel` at `base` (for git's merge of a file both changed).
    pub(crate) fn base_blob<'b>(base: &'b Base, rel: &str) -> Option<&'b str> {
        base.tree.get(rel).map(String::as_str)
    }
}
