//! Keeping the index current: `notify` (inotify on Linux) on every directory holding an
//! indexed file (and the root), non-recursively, so that ignored trees such as
//! `node_modules/` cost no watches; a directory created later is watched when it appears.
//!
//! Each event's paths are re-read at once ([`RepoIndex::refresh`]): an edited file is
//! re-analysed, a deleted or renamed-away one removed, a new one added when it is
//! indexable and git does not ignore it (asked once per batch of events).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};

use notify::{EventKind, RecursiveMode, Watcher as _};

use super::{RepoIndex, files};

/// How long the watcher waits after an event before re-reading (see [`Watcher::run`]).
const DEBOUNCE: std::time::Duration = std::time::Duration::from_millis(15);

/// The watcher and its event queue.
pub(super) struct Watcher {
    root: PathBuf,
    inner: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
    watched: HashSet<String>,
}

impl Watcher {
    /// Starts watching the root; `None` (logged) when the platform refuses.
    pub(super) fn start(root: &Path) -> Option<Self> {
        let (tx, events) = channel();
        let mut inner = match notify::recommended_watcher(move |e| {
            let _ = tx.send(e);
        }) {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!("no file watcher: {e}; the index is refreshed on use only");
                return None;
            }
        };
        if let Err(e) = inner.watch(root, RecursiveMode::NonRecursive) {
            tracing::warn!("no file watcher on the root: {e}");
            return None;
        }
        Some(Self {
            root: root.to_owned(),
            inner,
            events,
            watched: HashSet::from([String::new()]),
        })
    }

    /// Watches the directories of `files` (and their ancestors).
    pub(super) fn watch_dirs_of(&mut self, files: &[String]) {
        let mut dirs = BTreeSet::new();
        for f in files {
            let mut d = f.as_str();
            while let Some((parent, _)) = d.rsplit_once('/') {
                if !dirs.insert(parent.to_owned()) {
                    break;
                }
                d = parent;
            }
        }
        for d in dirs {
            self.watch_dir(&d);
        }
    }

    fn watch_dir(&mut self, rel: &str) {
        if self.watched.contains(rel) {
            return;
        }
        match self
            .inner
            .watch(&self.root.join(rel), RecursiveMode::NonRecursive)
        {
            Ok(()) => {
                self.watched.insert(rel.to_owned());
            }
            Err(e) => tracing::debug!("not watching {}: {e}", wit_core::text::escape(rel)),
        }
    }

    /// Serves events until the watcher goes away (the daemon exits).
    pub(super) fn run(mut self, index: &RepoIndex) {
        while let Ok(first) = self.events.recv() {
            let mut paths: BTreeSet<String> = BTreeSet::new();
            let mut new_dirs: BTreeSet<String> = BTreeSet::new();
            let mut take = |event: notify::Result<notify::Event>, paths: &mut BTreeSet<String>| {
                let Ok(event) = event else { return };
                if matches!(event.kind, EventKind::Access(_)) {
                    return;
                }
                for p in event.paths {
                    let Some(rel) = relative(&self.root, &p) else {
                        continue;
                    };
                    if rel.starts_with(".git/") || rel == ".git" || rel.starts_with(".wit") {
                        continue;
                    }
                    if matches!(
                        event.kind,
                        EventKind::Create(notify::event::CreateKind::Folder)
                    ) || (matches!(
                        event.kind,
                        EventKind::Create(_)
                            | EventKind::Modify(notify::event::ModifyKind::Name(_))
                    ) && p.is_dir())
                    {
                        new_dirs.insert(rel.clone());
                    }
                    paths.insert(rel);
                }
            };
            take(first, &mut paths);
            // A short pause first: a request that touches the file right after the write
            // (the usual case: an agent saves, then locks) re-indexes it from its own
            // incremental analysis, and this batch then finds it current instead of
            // parsing it a second time. Well within the 50 ms an edit may take to show.
            std::thread::sleep(DEBOUNCE);
            // Whatever else is queued by then goes in the same batch.
            while let Ok(more) = self.events.try_recv() {
                take(more, &mut paths);
            }
            self.handle(index, paths, new_dirs);
        }
    }

    fn handle(&mut self, index: &RepoIndex, paths: BTreeSet<String>, new_dirs: BTreeSet<String>) {
        // New directories (not ignored): watch them, and look at what they hold.
        let mut candidates: Vec<String> = Vec::new();
        for dir in new_dirs {
            if !index.filter.allows(&format!("{dir}/x")) || files::is_ignored(&self.root, &dir) {
                continue;
            }
            self.watch_dir(&dir);
            candidates.extend(files::git_files(&self.root, &[dir.as_str()]).unwrap_or_default());
        }
        let mut unknown: Vec<String> = Vec::new();
        for rel in paths {
            if index.contains(&rel) || rel == "tsconfig.json" {
                index.refresh(&rel);
            } else if index.indexable(&rel) {
                unknown.push(rel);
            }
        }
        if !unknown.is_empty() {
            // Not indexed yet: only if git does not ignore it.
            let refs: Vec<&str> = unknown.iter().map(String::as_str).collect();
            let allowed = files::git_files(&self.root, &refs).unwrap_or(unknown.clone());
            candidates.extend(allowed);
        }
        for rel in candidates {
            if let Some((dir, _)) = rel.rsplit_once('/') {
                self.watch_dir(dir);
            }
            index.refresh(&rel);
        }
    }
}

/// `path` relative to `root`, as a `/`-separated UTF-8 string.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let s = rel.to_str()?;
    (!s.is_empty()).then(|| s.to_owned())
}
