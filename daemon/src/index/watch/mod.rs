//! Keeping the index current: a watch on every directory holding an indexed file (and
//! the root), non-recursively, so that ignored trees such as `node_modules/` cost no
//! watches; a directory created later is watched when it appears. On Linux the watches
//! are inotify's ([`linux`]: only content, creation, deletion and renames); elsewhere, or
//! when inotify cannot start, `notify`'s ([`portable`]).
//!
//! The watches come out of the user's allowance, so there is a cap on them ([`budget`]:
//! `WIT_MAX_WATCHES`, by default a sixteenth of the allowance). The directories holding
//! the most files are watched first (a watch then covers as many files as it can); past
//! the cap, directories are listed every [`poll::POLL_INTERVAL`] instead ([`poll`]), so
//! a change there is still seen, a little later. When watches free up (a watched
//! directory removed), polled directories take them. `daemon.status` says how many
//! directories are watched and polled ([`Gauge`]).
//!
//! A path is re-read ([`RepoIndex::refresh`]) once its writes settle: [`QUIET`] after its
//! last event, or [`MAX_WAIT`] after its first when it keeps changing. An edited file is
//! re-analysed, a deleted or renamed-away one removed, a new one added when it is
//! indexable and git does not ignore it (asked once per batch).
//!
//! Why settle first: a save is a truncation and then writes, and a file read in between
//! is a fragment of the file. Analysed, the fragment costs a parse of its own and leaves
//! the analysis service's incremental state at the fragment, so the next analysis of the
//! real file parses nearly all of it again. And a request that touches the file right
//! after the save (an agent saves, then locks) answers from its own analysis (see
//! `RepoIndex::verify_with`), which this re-read then finds in the analysis cache instead
//! of parsing the file a second time.

pub(crate) mod budget;
#[cfg(target_os = "linux")]
mod linux;
pub(crate) mod poll;
mod portable;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::{RepoIndex, files};

/// How long a path must be free of events before it is re-read.
const QUIET: Duration = Duration::from_millis(15);
/// The longest a path that keeps changing waits to be re-read (from its first event).
const MAX_WAIT: Duration = Duration::from_millis(100);

/// A path a source reported as changed (created, written, deleted, renamed).
pub(super) struct Change {
    /// Relative to the root.
    rel: String,
    /// It is a directory that just appeared (created or renamed into place).
    new_dir: bool,
}

/// How a wait for changes ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    /// Changes (if any) were delivered.
    Ok,
    /// The source lost events (its queue overflowed): everything must be looked at.
    Overflow,
    /// The source is gone.
    Closed,
}

/// Wakes a watcher waiting in [`Source::wait`] (which then returns with nothing new):
/// [`RepoIndex::stop`] ends an idle watcher at once, so the watcher waits without a
/// timeout instead of waking every few seconds to look whether it was stopped.
pub(crate) type Waker = Box<dyn Fn() + Send + Sync>;

/// Where change events come from.
pub(super) trait Source: Send {
    /// What wakes this source's [`Source::wait`] from another thread.
    fn waker(&self) -> Waker;
    /// Watches the directory `rel` of `root` (non-recursively).
    fn watch(&mut self, root: &Path, rel: &str) -> Result<(), String>;
    /// Waits up to `timeout` (`None`: until something happens) for changes; appends them
    /// to `out` with the moment each was read, and to `forgotten` the directories whose
    /// watch went away with them.
    fn wait(
        &mut self,
        timeout: Option<Duration>,
        out: &mut Vec<(Instant, Change)>,
        forgotten: &mut Vec<String>,
    ) -> Status;
}

/// The watcher: its source, the root, the budget of watches and the directories past it.
pub(super) struct Watcher {
    root: PathBuf,
    source: Box<dyn Source>,
    budget: budget::Budget,
    /// Directories watched now (the root included).
    watches: usize,
    poller: poll::Poller,
}

/// What the watcher does, for `daemon.status` (kept by the index, updated by the
/// watcher's thread).
#[derive(Default)]
pub(crate) struct Gauge {
    /// `inotify`, `portable`, or empty while there is no watcher.
    source: Mutex<(&'static str, String)>,
    cap: AtomicUsize,
    watched: AtomicUsize,
    polled: AtomicUsize,
    interval_ms: AtomicU64,
}

impl Gauge {
    /// `{source, watched, cap, capSource, capReached, polled, pollIntervalMs}`: see
    /// `daemon.status` in `openrpc.extensions.json`.
    pub(crate) fn json(&self) -> serde_json::Value {
        let (source, cap_source) = self
            .source
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let polled = self.polled.load(Ordering::Relaxed);
        serde_json::json!({
            "source": if source.is_empty() { "none" } else { source },
            "watched": self.watched.load(Ordering::Relaxed),
            "cap": self.cap.load(Ordering::Relaxed),
            "capSource": cap_source,
            "capReached": polled > 0,
            "polled": polled,
            "pollIntervalMs": self.interval_ms.load(Ordering::Relaxed),
        })
    }
}

/// When a path (or a new directory) became due, as its events came in.
#[derive(Clone, Copy)]
struct Due {
    first: Instant,
    last: Instant,
}

impl Due {
    fn at(&self) -> Instant {
        (self.last + QUIET).min(self.first + MAX_WAIT)
    }
}

/// Paths and new directories waiting to settle.
#[derive(Default)]
struct Pending {
    paths: HashMap<String, Due>,
    dirs: HashMap<String, Due>,
}

impl Pending {
    fn note(map: &mut HashMap<String, Due>, rel: String, now: Instant) {
        map.entry(rel).and_modify(|d| d.last = now).or_insert(Due {
            first: now,
            last: now,
        });
    }

    /// The earliest moment something is due.
    fn next(&self) -> Option<Instant> {
        self.paths
            .values()
            .chain(self.dirs.values())
            .map(Due::at)
            .min()
    }

    /// Takes what is due at `now`.
    fn take_due(&mut self, now: Instant) -> (BTreeSet<String>, BTreeSet<String>) {
        let take = |map: &mut HashMap<String, Due>| {
            let due: BTreeSet<String> = map
                .iter()
                .filter(|(_, d)| d.at() <= now)
                .map(|(p, _)| p.clone())
                .collect();
            for p in &due {
                map.remove(p);
            }
            due
        };
        (take(&mut self.paths), take(&mut self.dirs))
    }
}

impl Watcher {
    /// Starts watching the root (or polling it, with a cap of 0); `None` (logged) when the
    /// platform refuses.
    pub(super) fn start(index: &RepoIndex) -> Option<Self> {
        let (source, name) = Self::source(&index.root)?;
        let budget = budget::Budget::from_env();
        *index
            .watching
            .source
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = (name, budget.source.clone());
        index.watching.cap.store(budget.cap, Ordering::Relaxed);
        index.set_waker(source.waker());
        let mut watcher = Self {
            root: index.root.clone(),
            source,
            budget,
            watches: 0,
            poller: poll::Poller::default(),
        };
        if watcher.budget.cap == 0 {
            watcher.poller.add(&index.root, "");
        } else if let Err(e) = watcher.source.watch(&index.root, "") {
            tracing::warn!("no file watcher on the root: {e}; the index is refreshed on use only");
            return None;
        } else {
            watcher.watches = 1;
            index.watched_lock().insert(String::new());
        }
        watcher.report(index);
        Some(watcher)
    }

    fn source(root: &Path) -> Option<(Box<dyn Source>, &'static str)> {
        #[cfg(target_os = "linux")]
        if std::env::var_os("WIT_TEST_PORTABLE_WATCHER").is_none() {
            match linux::InotifySource::new() {
                Ok(s) => return Some((Box::new(s), "inotify")),
                Err(e) => tracing::info!("inotify: {e}; using the portable watcher"),
            }
        }
        match portable::NotifySource::new(root) {
            Ok(s) => Some((Box::new(s), "portable")),
            Err(e) => {
                tracing::warn!("no file watcher: {e}; the index is refreshed on use only");
                None
            }
        }
    }

    /// Watches the directories of `files` (and their ancestors), those holding the most
    /// files first (then the shallowest, then in path order), up to the cap; the rest are
    /// polled.
    pub(super) fn watch_dirs_of(&mut self, index: &RepoIndex, files: &[String]) {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for f in files {
            let Some((dir, _)) = f.rsplit_once('/') else {
                continue;
            };
            *counts.entry(dir).or_default() += 1;
            let mut d = dir;
            while let Some((parent, _)) = d.rsplit_once('/') {
                counts.entry(parent).or_default();
                d = parent;
            }
        }
        let mut dirs: Vec<(&str, usize)> = counts.into_iter().collect();
        dirs.sort_by(|(a, n), (b, m)| {
            m.cmp(n)
                .then(a.matches('/').count().cmp(&b.matches('/').count()))
                .then(a.cmp(b))
        });
        for (d, _) in dirs {
            self.watch_dir(index, d);
        }
        self.report(index);
    }

    /// Watches `rel`, or polls it when the budget is spent.
    fn watch_dir(&mut self, index: &RepoIndex, rel: &str) {
        if index.watched_lock().contains(rel) || self.poller.contains(rel) {
            return;
        }
        if self.watches >= self.budget.cap {
            self.poller.add(&self.root, rel);
            return;
        }
        match self.source.watch(&self.root, rel) {
            Ok(()) => {
                self.watches += 1;
                index.watched_lock().insert(rel.to_owned());
            }
            Err(e) => tracing::debug!("not watching {}: {e}", wit_core::text::escape(rel)),
        }
    }

    /// Moves polled directories to watches while the budget allows (watches freed by
    /// directories removed); what changed in them before their watch began goes to
    /// `out`.
    fn promote(&mut self, index: &RepoIndex, out: &mut Vec<Change>) {
        while self.watches < self.budget.cap && self.poller.len() > 0 {
            // The watch first, then the last comparison: nothing falls between the two.
            let Some(rel) = self.poller.take_first(&self.root, out) else {
                break;
            };
            self.watch_dir(index, &rel);
        }
    }

    /// Publishes the counts for `daemon.status`.
    fn report(&self, index: &RepoIndex) {
        let g = &index.watching;
        g.watched.store(self.watches, Ordering::Relaxed);
        g.polled.store(self.poller.len(), Ordering::Relaxed);
        g.interval_ms
            .store(self.poller.interval().as_millis() as u64, Ordering::Relaxed);
    }

    /// Notes a change, read at `at`, as pending.
    fn take(change: Change, pending: &mut Pending, at: Instant) {
        let rel = change.rel;
        if rel.starts_with(".git/") || rel == ".git" || rel.starts_with(".wit") {
            return;
        }
        if change.new_dir {
            Pending::note(&mut pending.dirs, rel.clone(), at);
        }
        Pending::note(&mut pending.paths, rel, at);
    }

    /// Serves changes until the source goes away or the index is stopped.
    pub(super) fn run(mut self, index: &RepoIndex) {
        let mut pending = Pending::default();
        let mut changes = Vec::new();
        let mut forgotten = Vec::new();
        let mut polled = Vec::new();
        loop {
            if index.stopped() {
                return;
            }
            let next = match (pending.next(), self.poller.due()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            // Nothing due: wait for a change or for `RepoIndex::stop`'s wake-up, however long.
            let timeout = next.map(|due| due.saturating_duration_since(Instant::now()));
            let status = self.source.wait(timeout, &mut changes, &mut forgotten);
            for (at, change) in changes.drain(..) {
                Self::take(change, &mut pending, at);
            }
            if !forgotten.is_empty() {
                let mut watched = index.watched_lock();
                for dir in forgotten.drain(..) {
                    if watched.remove(&dir) {
                        self.watches = self.watches.saturating_sub(1);
                    }
                }
            }
            if self.poller.due().is_some_and(|due| due <= Instant::now()) {
                self.promote(index, &mut polled);
                self.poller.scan(&self.root, &mut polled);
                let now = Instant::now();
                for change in polled.drain(..) {
                    Self::take(change, &mut pending, now);
                }
                self.report(index);
            }
            match status {
                Status::Ok => {}
                Status::Closed => return,
                Status::Overflow => {
                    tracing::warn!(
                        "the file watcher lost events (its queue overflowed): re-reading every indexed file"
                    );
                    pending = Pending::default();
                    index.rescan();
                    continue;
                }
            }
            let (paths, dirs) = pending.take_due(Instant::now());
            if !paths.is_empty() || !dirs.is_empty() {
                self.handle(index, paths, dirs);
            }
        }
    }

    fn handle(&mut self, index: &RepoIndex, paths: BTreeSet<String>, new_dirs: BTreeSet<String>) {
        // New directories (not ignored): watch them, and look at what they hold.
        let mut candidates: Vec<String> = Vec::new();
        for dir in new_dirs {
            if !index.filter.allows(&format!("{dir}/x")) || files::is_ignored(&self.root, &dir) {
                continue;
            }
            self.watch_dir(index, &dir);
            candidates.extend(files::git_files(&self.root, &[dir.as_str()]).unwrap_or_default());
        }
        let mut unknown: Vec<String> = Vec::new();
        let mut settled: Vec<String> = Vec::new();
        for rel in paths {
            if index.contains(&rel) || index.config_loaded(&rel) {
                index.refresh(&rel);
                settled.push(rel);
            } else if index.indexable(&rel) || index.config_file(&rel) {
                unknown.push(rel);
            } else {
                settled.push(rel);
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
                self.watch_dir(index, dir);
            }
            index.refresh(&rel);
            settled.push(rel);
        }
        self.report(index);
        // After the index: the forecast asks the graph about the files just re-read.
        for rel in settled {
            index.settled(&rel);
        }
    }
}

/// Whether `path` is a directory itself, not a symlink to one.
fn real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// `path` relative to `root`, as a `/`-separated UTF-8 string.
pub(super) fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let s = rel.to_str()?;
    (!s.is_empty()).then(|| s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of the repository that is a symlink (here to a directory outside it)
    /// is never watched, by either source: its events would be another tree's.
    #[test]
    fn a_symlinked_directory_is_never_watched() {
        let outside = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        std::fs::create_dir(root.join("src")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("src/evil")).unwrap();
        let mut sources: Vec<Box<dyn Source>> =
            vec![Box::new(portable::NotifySource::new(root).unwrap())];
        #[cfg(target_os = "linux")]
        sources.push(Box::new(linux::InotifySource::new().unwrap()));
        for mut source in sources {
            assert!(source.watch(root, "src").is_ok());
            assert!(source.watch(root, "src/evil").is_err());
            // Nothing happening outside reaches the watcher.
            std::fs::write(outside.path().join("a.ts"), "export function f() {}\n").unwrap();
            let (mut changes, mut forgotten) = (Vec::new(), Vec::new());
            source.wait(
                Some(Duration::from_millis(50)),
                &mut changes,
                &mut forgotten,
            );
            assert!(
                changes.is_empty(),
                "{:?}",
                changes.iter().map(|(_, c)| &c.rel).collect::<Vec<_>>()
            );
        }
    }

    /// Either source's waker ends a wait that has no timeout (how `RepoIndex::stop` ends
    /// an idle watcher), from another thread, and a wake-up given before the wait is not
    /// lost.
    #[test]
    fn a_waker_ends_a_wait_without_timeout_on_both_sources() {
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        let mut sources: Vec<Box<dyn Source>> =
            vec![Box::new(portable::NotifySource::new(root).unwrap())];
        #[cfg(target_os = "linux")]
        sources.push(Box::new(linux::InotifySource::new().unwrap()));
        for mut source in sources {
            source.watch(root, "").unwrap();
            let (mut changes, mut forgotten) = (Vec::new(), Vec::new());
            // Given before the wait.
            source.waker()();
            let status = source.wait(None, &mut changes, &mut forgotten);
            assert_eq!(status, Status::Ok);
            // Given while the wait is under way, from another thread.
            let wake = source.waker();
            let waking = std::thread::spawn(move || {
                // (Not a synchronisation: woken before or during the wait, it must end.)
                std::thread::sleep(Duration::from_millis(20));
                wake();
            });
            let status = source.wait(None, &mut changes, &mut forgotten);
            assert_eq!(status, Status::Ok);
            assert!(changes.is_empty() && forgotten.is_empty());
            waking.join().unwrap();
        }
    }

    /// A path is due `QUIET` after its last event, but never later than `MAX_WAIT` after
    /// its first: a file rewritten every few milliseconds is still re-read.
    #[test]
    fn a_path_settles_after_quiet_or_at_most_max_wait() {
        let t0 = Instant::now();
        let mut p = Pending::default();
        Pending::note(&mut p.paths, "a.ts".into(), t0);
        assert_eq!(p.next(), Some(t0 + QUIET));
        assert!(p.take_due(t0 + QUIET / 2).0.is_empty());
        // Events every QUIET/2 keep it waiting, up to MAX_WAIT.
        let mut now = t0;
        while now < t0 + MAX_WAIT {
            now += QUIET / 2;
            Pending::note(&mut p.paths, "a.ts".into(), now);
            if now + QUIET / 2 < t0 + MAX_WAIT {
                assert!(p.take_due(now + QUIET / 2).0.is_empty(), "{:?}", now - t0);
            }
        }
        assert_eq!(p.next(), Some(t0 + MAX_WAIT));
        let (paths, dirs) = p.take_due(t0 + MAX_WAIT);
        assert_eq!(paths.into_iter().collect::<Vec<_>>(), ["a.ts"]);
        assert!(dirs.is_empty());
        assert_eq!(p.next(), None);
    }
}
