//! The repository index: every supported file's analysis in a [`wit_graph::Graph`],
//! built in the background at start, persisted in `.wit/index.db`, kept current by a
//! file watcher, and verified on use.
//!
//! - **Build**: a dedicated thread lists the files ([`files::list`]: what git does not
//!   ignore, narrowed by `wit.toml` `[graph]`), then worker threads (one per core, at a
//!   lower scheduling priority than the request threads) read each file through
//!   `wit_boundary`, hash it, and reuse the stored analysis when the hash matches (in
//!   this checkout's index, or for a linked worktree in the main worktree's, read
//!   beneath it: a second checkout parses only the files that differ) or analyse it
//!   otherwise. Files enter the graph one at a time (the database saves them
//!   in batches), so queries made during the build see the files indexed so far and wait
//!   for one file's insert at most; the daemon answers throughout.
//! - **Watcher** ([`watch`]): inotify (or `notify`) on the directories holding indexed
//!   files, up to a cap on the watches (past it, directories are listed every two
//!   seconds); a changed, created, renamed or deleted file is re-read and re-indexed.
//! - **Verified on use**: every answer built from the graph first re-reads the files it
//!   rests on (the symbol's own file and the files of the edges found) and compares their
//!   hash with the indexed one; a difference re-indexes the file and the answer is
//!   recomputed. So an answer never rests on stale content, even before the watcher's
//!   event arrives.
//!
//! The 256-file analysis cache of [`crate::analysis`] is unrelated and does not bound the
//! index: the index keeps analyses only (no sources, no syntax trees).

pub(crate) mod files;
mod persist;
pub(crate) mod shared;
mod watch;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use sha2::{Digest, Sha256};
use wit_boundary::WitDir;
use wit_core::Analysis;
use wit_core::analyzer::source_text;
use wit_core::text::escape;
use wit_graph::{Edge, FileBody, Graph, Overlay, SymbolRef};

use crate::analysis::{AnalysisService, FileOutcome};
use files::PathFilter;
use persist::IndexDb;
use shared::SharedIndex;

/// A file's content as the build found it: what another checkout of the same daemon
/// already holds, or an analysis (stored or made now).
enum Loaded {
    Body(FileBody),
    Analysis(Arc<Analysis>),
}

/// Files per batch entering the graph (and the database) during the build.
const BATCH: usize = 256;

/// Progress of the index, for `graph.status`.
#[derive(Default)]
struct Progress {
    ready: AtomicBool,
    listed: AtomicUsize,
    done: AtomicUsize,
    reused: AtomicUsize,
    /// Of `reused`: taken from another checkout the daemon serves.
    shared: AtomicUsize,
    analysed: AtomicUsize,
    failed: AtomicUsize,
    build_ms: AtomicU64,
}

/// The index of one repository.
pub(crate) struct RepoIndex {
    root: PathBuf,
    analysis: Arc<AnalysisService>,
    limit: u64,
    filter: PathFilter,
    /// What this checkout's graph shares with the other checkouts the daemon serves.
    shared: Arc<SharedIndex>,
    /// The graph; each file's entry is tagged with its content's SHA-256
    /// ([`Graph::tag`]): what the index holds of it.
    graph: RwLock<Graph>,
    db: Mutex<Option<IndexDb>>,
    progress: Progress,
    started: std::time::Instant,
    /// Per file, the analysis-service analysis the index last saw it with, and whether
    /// the index holds that content or only answered with it overlaid.
    synced: Mutex<HashMap<String, (Arc<Analysis>, Sync)>>,
    /// The directories (relative; `""` is the root) the file watcher watches: a question
    /// may leave an edited file of one of them to the watcher (see
    /// [`RepoIndex::verify_with`]). Empty when there is no watcher.
    watched: Mutex<std::collections::HashSet<String>>,
    /// Told of every path the watcher saw settle (the conflict forecast's and the
    /// claims' trigger).
    listeners: Mutex<Vec<Listener>>,
    /// What the watcher watches and polls (see [`watch::budget`]), for `daemon.status`.
    watching: watch::Gauge,
    /// Set when the checkout stops being served ([`RepoIndex::stop`]): the build and the
    /// watcher end, so that a daemon serving other worktrees keeps no thread for it.
    stopped: AtomicBool,
    /// Wakes the watcher's wait, so that [`RepoIndex::stop`] ends an idle watcher at once
    /// (`None` until the watcher has started, or when there is none).
    waker: Mutex<Option<watch::Waker>>,
}

/// What [`RepoIndex::listen`] takes.
pub(crate) type Listener = Box<dyn Fn(&str) + Send + std::marker::Sync>;

/// What the index knows of a file's analysis-service analysis (see
/// [`RepoIndex::verify_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sync {
    /// The index holds exactly that content.
    Current,
    /// A question was answered with it overlaid (its content not compared yet).
    Overlaid,
}

/// Most entries of [`RepoIndex::synced`] (then it starts afresh).
const SYNCED_MAX: usize = 256;

/// What re-reading one file found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refresh {
    /// Same content as indexed.
    Unchanged,
    /// Re-analysed (or newly indexed).
    Changed,
    /// Gone (or no longer indexable): removed.
    Removed,
    /// Not indexable and not indexed.
    Skipped,
}

fn hash(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

impl RepoIndex {
    /// An empty index of `root`; [`RepoIndex::start`] builds it.
    pub(crate) fn new(
        root: PathBuf,
        analysis: Arc<AnalysisService>,
        limit: u64,
        config: &wit_core::config::GraphConfig,
        shared: Arc<SharedIndex>,
    ) -> Self {
        Self {
            root,
            analysis,
            limit,
            filter: PathFilter::new(config),
            graph: RwLock::new(Graph::sharing(shared.graph())),
            shared,
            db: Mutex::new(None),
            progress: Progress::default(),
            started: std::time::Instant::now(),
            synced: Mutex::new(HashMap::new()),
            watched: Mutex::default(),
            listeners: Mutex::new(Vec::new()),
            watching: watch::Gauge::default(),
            stopped: AtomicBool::new(false),
            waker: Mutex::new(None),
        }
    }

    /// Starts the background build, then the watcher, on a thread of their own. The
    /// index in `base` (the main worktree's `.wit/`, for a linked worktree) is read beneath
    /// this checkout's own (see [`IndexDb::attach_base`]).
    /// The thread's handle (callers may drop it: the thread ends with the checkout).
    pub(crate) fn start(
        self: &Arc<Self>,
        wit: WitDir,
        base: Option<WitDir>,
    ) -> Option<std::thread::JoinHandle<()>> {
        let index = self.clone();
        let spawned = std::thread::Builder::new()
            .name("wit-index".into())
            .spawn(move || {
                // (Only the build's workers run at a lower priority: this thread serves
                // the watcher afterwards, whose latency counts.)
                // The watcher first, on the root and then on every directory listed,
                // before any file is analysed: no change made during the build, or
                // between the build's end (`ready`) and the watcher's loop, is lost (its
                // events wait until the build is over).
                let mut events = watch::Watcher::start(&index);
                let started = std::time::Instant::now();
                match IndexDb::open(&wit) {
                    Ok(mut db) => {
                        if let Some(base) = &base {
                            match db.attach_base(base) {
                                Ok(true) => tracing::info!(
                                    "the index reuses the main worktree's ({})",
                                    escape(&base.dir().display().to_string())
                                ),
                                Ok(false) => {}
                                Err(e) => tracing::warn!(
                                    "the main worktree's index is not used ({}); analysing \
                                     this checkout's files",
                                    escape(&e)
                                ),
                            }
                        }
                        *index.db_lock() = Some(db);
                    }
                    Err(e) => tracing::warn!("the index is not persisted: {}", escape(&e)),
                }
                let all = files::list(&index.root);
                if let Some(w) = events.as_mut() {
                    let watched: Vec<String> = all
                        .iter()
                        .filter(|f| !f.split('/').any(|c| c == "node_modules"))
                        .cloned()
                        .collect();
                    w.watch_dirs_of(&index, &watched);
                }
                index.build(all, started);
                if let Some(w) = events
                    && !index.stopped()
                {
                    w.run(&index);
                }
            });
        spawned
            .inspect_err(|e| tracing::error!("the index thread did not start: {e}"))
            .ok()
    }

    /// Ends the build (between two files) and the watcher (woken from its wait): the
    /// checkout is no longer served.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        // A watcher that registers its waker after this read sees `stopped` before it
        // waits (it looks at the top of every round), so no stop goes unnoticed.
        if let Some(wake) = self
            .waker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            wake();
        }
    }

    fn set_waker(&self, waker: watch::Waker) {
        *self.waker.lock().unwrap_or_else(|p| p.into_inner()) = Some(waker);
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    fn db_lock(&self) -> std::sync::MutexGuard<'_, Option<IndexDb>> {
        self.db.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn watched_lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.watched.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the watcher watches the directory of `rel`.
    fn watched(&self, rel: &str) -> bool {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        self.watched_lock().contains(dir)
    }

    /// The content hash of `rel` as indexed.
    fn indexed_hash(&self, rel: &str) -> Option<[u8; 32]> {
        self.read(|g| g.tag(rel))
    }

    /// Runs `f` on the graph (read lock).
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Graph) -> T) -> T {
        f(&self.graph.read().unwrap_or_else(|p| p.into_inner()))
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Graph> {
        self.graph.write().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `rel` belongs in the index (filter and language).
    pub(crate) fn indexable(&self, rel: &str) -> bool {
        self.filter.allows(rel) && self.analysis.supports(rel)
    }

    /// Whether the first build is over.
    pub(crate) fn ready(&self) -> bool {
        self.progress.ready.load(Ordering::Acquire)
    }

    /// Whether `rel` is indexed.
    pub(crate) fn contains(&self, rel: &str) -> bool {
        self.read(|g| g.get(rel).is_some())
    }

    /// The cold (or warm) build of `all`, every file git lists (begun at `t0`, the
    /// listing included in its time). The watcher watches the directories of all of them,
    /// not only of the indexed ones: the conflict forecast compares files no analyzer
    /// covers.
    fn build(&self, all: Vec<String>, t0: std::time::Instant) {
        let listed: Vec<String> = all.iter().filter(|f| self.indexable(f)).cloned().collect();
        self.progress.listed.store(listed.len(), Ordering::Relaxed);
        for rel in all.iter().filter(|f| self.config_file(f)) {
            self.load_config(rel);
        }
        let stored = self
            .db_lock()
            .as_ref()
            .map(|db| db.hashes())
            .unwrap_or_default();
        // The main worktree's hashes, listed the first time a file is neither another
        // checkout's of this process nor in this checkout's own index: a later worktree
        // served beside the main one never needs them.
        let base = std::sync::OnceLock::new();
        let base_of = |rel: &str| {
            base.get_or_init(|| {
                self.db_lock()
                    .as_ref()
                    .map(|db| db.base_hashes())
                    .unwrap_or_default()
            })
            .get(rel)
            .copied()
        };
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(1, 8);
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    crate::priority::lower_this_thread();
                    let mut batch: Vec<(String, [u8; 32], Loaded)> = Vec::new();
                    let mut rows = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(rel) = listed.get(i) else { break };
                        if self.stopped() {
                            break;
                        }
                        if let Some((h, analysis, row)) =
                            self.load_one(rel, stored.get(rel), &base_of)
                        {
                            batch.push((rel.clone(), h, analysis));
                            if let Some(row) = row {
                                rows.push((rel.clone(), row));
                            }
                        }
                        self.progress.done.fetch_add(1, Ordering::Relaxed);
                        if batch.len() >= BATCH {
                            self.commit(std::mem::take(&mut batch));
                            self.save(std::mem::take(&mut rows), &[]);
                        }
                    }
                    self.commit(batch);
                    self.save(rows, &[]);
                });
            }
        });
        let gone: Vec<String> = {
            let listed: std::collections::HashSet<&String> = listed.iter().collect();
            stored
                .keys()
                .filter(|k| !listed.contains(k))
                .cloned()
                .collect()
        };
        self.save(Vec::new(), &gone);
        if let Some(db) = self.db_lock().as_mut() {
            db.detach_base();
        }
        // The build's transient buffers (sources, trees, encoded rows) go back to the system.
        crate::footprint::trim_heap();
        let ms = t0.elapsed().as_millis() as u64;
        self.progress.build_ms.store(ms, Ordering::Relaxed);
        self.progress.ready.store(true, Ordering::Release);
        tracing::info!(
            files = listed.len(),
            reused = self.progress.reused.load(Ordering::Relaxed),
            shared = self.progress.shared.load(Ordering::Relaxed),
            analysed = self.progress.analysed.load(Ordering::Relaxed),
            ms,
            "repository index built"
        );
    }

    /// Stores rows and deletes `gone` in the index database, if there is one.
    fn save(&self, rows: Vec<(String, persist::Row)>, gone: &[String]) {
        if rows.is_empty() && gone.is_empty() {
            return;
        }
        if let Some(db) = self.db_lock().as_mut() {
            db.save(&rows, gone);
        }
    }

    /// Puts a batch of analyses into the graph, one file at a time: a request waiting to
    /// read the graph waits for one insert (tens of microseconds), never for a batch (256
    /// inserts took 5–10 ms, a request's whole budget several times over).
    /// An analysis's body is offered to the other checkouts; a body taken from them
    /// is already theirs.
    fn commit(&self, batch: impl IntoIterator<Item = (String, [u8; 32], Loaded)>) {
        for (rel, h, loaded) in batch {
            let mut graph = self.write();
            match loaded {
                Loaded::Body(body) => {
                    // Always of this family's names and of this path, with the tag `h`
                    // (found in `self.shared` by path and hash).
                    graph.insert_body(&rel, body);
                }
                Loaded::Analysis(analysis) => {
                    graph.insert_tagged(&rel, analysis, h);
                    if let Some(body) = graph.body(&rel) {
                        self.shared.keep(&body);
                    }
                }
            }
        }
    }

    /// Reads and analyses (or reuses) one file during the build: its hash, analysis and,
    /// when it had to be analysed, the row to store.
    fn load_one(
        &self,
        rel: &str,
        stored: Option<&[u8; 32]>,
        base: &dyn Fn(&str) -> Option<[u8; 32]>,
    ) -> Option<([u8; 32], Loaded, Option<persist::Row>)> {
        let bytes = match wit_boundary::read_repo_file(&self.root, rel, self.limit) {
            Ok(b) => b,
            Err(e) => {
                if !e.is_not_found() {
                    tracing::debug!("not indexed: {}", escape(&e.to_string()));
                }
                self.progress.failed.fetch_add(1, Ordering::Relaxed);
                return None;
            }
        };
        let h = hash(&bytes);
        // Another checkout of this daemon holds the same content: nothing to read or
        // decode, and nothing held twice.
        if let Some(body) = self.shared.find(rel, &h) {
            self.progress.reused.fetch_add(1, Ordering::Relaxed);
            self.progress.shared.fetch_add(1, Ordering::Relaxed);
            return Some((h, Loaded::Body(body), None));
        }
        if stored == Some(&h)
            && let Some(encoded) = self.db_lock().as_ref().and_then(|db| db.analysis(rel))
            && let Some(analysis) = persist::decode(&encoded)
        {
            self.progress.reused.fetch_add(1, Ordering::Relaxed);
            return Some((h, Loaded::Analysis(Arc::new(analysis)), None));
        }
        // The main worktree's analysis of the same content (its row read again: the
        // other daemon may have rewritten it since its hash was listed).
        if base(rel) == Some(h)
            && let Some((stored, encoded)) =
                self.db_lock().as_ref().and_then(|db| db.base_analysis(rel))
            && stored == h
            && let Some(analysis) = persist::decode(&encoded)
        {
            self.progress.reused.fetch_add(1, Ordering::Relaxed);
            return Some((h, Loaded::Analysis(Arc::new(analysis)), None));
        }
        let analysis = self.analyse(rel, &bytes)?;
        self.progress.analysed.fetch_add(1, Ordering::Relaxed);
        let encoded = persist::encode(&analysis)?;
        Some((h, Loaded::Analysis(analysis), Some((h, encoded))))
    }

    fn analyse(&self, rel: &str, bytes: &[u8]) -> Option<Arc<Analysis>> {
        let analyzer = self.analysis.registry().for_path(rel)?;
        let text = source_text(bytes).ok()?;
        match analyzer.analyze_full(text) {
            Ok(a) => Some(Arc::new(graph_view(a))),
            Err(e) => {
                tracing::debug!("not indexed: {}: {}", escape(rel), escape(&e.to_string()));
                self.progress.failed.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Whether `rel` is a configuration file module resolution reads (`tsconfig*.json`,
    /// `jsconfig.json`, `package.json`) in a part of the repository the index covers.
    pub(crate) fn config_file(&self, rel: &str) -> bool {
        wit_graph::is_config_file(rel) && self.filter.allows_config(rel)
    }

    /// Whether the graph holds the configuration file `rel` (loaded at the build, or
    /// since).
    pub(crate) fn config_loaded(&self, rel: &str) -> bool {
        self.read(|g| g.has_config_file(rel))
    }

    /// Gives the graph the current text of the configuration file `rel`, or tells it the
    /// file is gone (missing, refused by the boundary, over 1 MiB or not UTF-8).
    fn load_config(&self, rel: &str) {
        let text = wit_boundary::read_repo_file(&self.root, rel, 1 << 20)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        self.write().set_config_file(rel, text.as_deref());
    }

    /// Adds a listener told of every path the watcher sees settle, after the index has
    /// re-read it (indexed or not: the forecast compares files no analyzer covers too).
    pub(crate) fn listen(&self, listener: Listener) {
        self.listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(listener);
    }

    /// Tells the listeners that `rel` settled.
    fn settled(&self, rel: &str) {
        for l in self
            .listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            l(rel);
        }
    }

    /// Re-reads `rel` and brings the index in line with its current content (blocking).
    pub(crate) fn refresh(&self, rel: &str) -> Refresh {
        if self.config_file(rel) {
            self.load_config(rel);
            return Refresh::Changed;
        }
        let indexed = self.indexed_hash(rel);
        if !self.indexable(rel) {
            return match indexed {
                Some(_) => self.remove(rel),
                None => Refresh::Skipped,
            };
        }
        let bytes = match wit_boundary::read_repo_file(&self.root, rel, self.limit) {
            Ok(b) => b,
            // Missing, outside, refused (type, size) or unreadable: not indexable now.
            Err(_) => {
                return match indexed {
                    Some(_) => self.remove(rel),
                    None => Refresh::Skipped,
                };
            }
        };
        let h = hash(&bytes);
        if indexed == Some(h) {
            return Refresh::Unchanged;
        }
        // Changed to a content another checkout holds (a checkout or merge that made the
        // file what it is there): taken as it is. The stored row keeps the old hash, so a
        // restart re-analyses this one file.
        if let Some(body) = self.shared.find(rel, &h) {
            self.commit([(rel.to_owned(), h, Loaded::Body(body))]);
            return Refresh::Changed;
        }
        // Changed: through the analysis service, which reanalyses a file being edited
        // incrementally (its cache keeps the last syntax tree), given the bytes just read
        // and hashed, so that hash and analysis always match without a second read (a
        // second read could see a newer version, and the hash would then need a full
        // analysis of its own).
        match self.analysis.analyse_read(rel, &bytes) {
            FileOutcome::Analysed(fresh) => {
                self.adopt(rel, h, &fresh, true);
                Refresh::Changed
            }
            _ => match indexed {
                Some(_) => self.remove(rel),
                None => Refresh::Skipped,
            },
        }
    }

    /// Indexes `fresh`, the analysis service's analysis of `rel` whose content hashes to
    /// `h`, and (`store`) saves it. Requests do not store: the row left behind has the old
    /// hash, so a restart re-analyses that one file.
    fn adopt(&self, rel: &str, h: [u8; 32], fresh: &Arc<Analysis>, store: bool) {
        // The graph keeps its own compact copy (no signatures, call sites packed), so it
        // takes the service's analysis as it is; only the stored row needs the index's
        // view, and only when there is one to store.
        let row = store
            .then(|| persist::encode(&graph_view((**fresh).clone())))
            .flatten()
            .map(|encoded| (h, encoded));
        self.commit([(rel.to_owned(), h, Loaded::Analysis(fresh.clone()))]);
        if let Some(row) = row {
            self.save(vec![(rel.to_owned(), row)], &[]);
        }
    }

    /// Re-reads every file the index holds or git lists (after the watcher lost events):
    /// changed ones are re-analysed, new ones added, vanished ones removed; configuration
    /// files too.
    pub(crate) fn rescan(&self) {
        let listed: Vec<String> = files::list(&self.root)
            .into_iter()
            .filter(|f| self.indexable(f) || self.config_file(f))
            .collect();
        let mut all: std::collections::BTreeSet<String> = listed.into_iter().collect();
        all.extend(self.read(|g| g.paths().map(|p| p.to_string()).collect::<Vec<_>>()));
        all.extend(self.read(|g| g.config_files().map(str::to_owned).collect::<Vec<_>>()));
        for rel in &all {
            self.refresh(rel);
        }
    }

    fn remove(&self, rel: &str) -> Refresh {
        self.write().remove(rel);
        if let Some(db) = self.db_lock().as_mut() {
            db.save(&[], &[rel.to_owned()]);
        }
        Refresh::Removed
    }

    /// Verifies (re-reads) each of `files`; whether any changed.
    fn verify<'a>(&self, files: impl IntoIterator<Item = &'a str>) -> bool {
        let mut changed = false;
        let mut seen = std::collections::HashSet::new();
        for f in files {
            if seen.insert(f.to_owned())
                && !matches!(self.refresh(f), Refresh::Unchanged | Refresh::Skipped)
            {
                changed = true;
            }
        }
        changed
    }

    /// `f` over the graph, with the files its answer rests on verified: `file` itself
    /// (the caller did it, see [`RepoIndex::verify_with`]), then the files of the
    /// answer's edges; when any of them changed, the answer is computed again (at most
    /// three times, then the last one stands).
    fn fresh_edges(&self, file: &str, f: impl Fn(&Graph) -> Vec<Edge>) -> Vec<Edge> {
        let mut edges = self.read(&f);
        for _ in 0..3 {
            let mut files: Vec<&str> = Vec::new();
            for e in &edges {
                files.push(&e.caller.file);
                if let wit_graph::Target::Symbol(s) = &e.callee {
                    files.push(&s.file);
                }
            }
            files.retain(|f2| *f2 != file);
            if files.is_empty() || !self.verify(files) {
                break;
            }
            edges = self.read(&f);
        }
        edges
    }

    /// Brings the index in line with `file` for a question about it, unless `fresh` (the
    /// analysis service's current analysis of it, proven by byte comparison) is the one
    /// this index last verified the file against: the same analysis means the same
    /// content, so no second read is needed.
    ///
    /// Returns the analysis to overlay on the graph's copy of `file` for this question,
    /// if any. The first time a question comes with a `fresh` that keeps the file's
    /// interface (an edit inside function bodies, the usual case), the graph answers
    /// with `fresh` standing in for its copy (exactly, see [`wit_graph::Overlay`]):
    /// re-indexing the file (hashing it, interning every call site: ~0.15 ms for 2,000
    /// lines) is left to the watcher, which has an event for the write that changed it,
    /// and an agent editing a file does not pay for it on every request. Unless `fresh`
    /// is of the very content the index holds (an unchanged file analysed again after the
    /// service's cache let it go, as on a repository larger than that cache): then the
    /// graph's copy, and the answers it remembers, serve as they are. A content asked
    /// about a second time is stable: it is hashed and, if the watcher has not done so
    /// yet, indexed here. So is a file whose directory the watcher does not watch, or
    /// whose interface changed.
    fn verify_with(&self, file: &str, fresh: Option<&Arc<Analysis>>) -> Option<Arc<Analysis>> {
        let seen = fresh.and_then(|fresh| {
            let synced = self.synced.lock().unwrap_or_else(|p| p.into_inner());
            synced
                .get(file)
                .filter(|(a, _)| Arc::ptr_eq(a, fresh))
                .map(|(_, sync)| *sync)
        });
        match seen {
            Some(Sync::Current) => return None,
            // The first sight of a content is overlaid (most likely an edit in progress,
            // whose next version will not be this one); a content asked about again is
            // stable, and is brought into the index below.
            Some(Sync::Overlaid) => {}
            None => {
                if let Some(f) = fresh
                    && self.indexable(file)
                    && self.watched(file)
                    && self.read(|g| g.same_interface(file, f))
                {
                    // The content the index holds, seen again (analysed afresh after
                    // the service's cache let it go, say): current, and the graph's
                    // remembered answers hold. Hashed only when every definition is
                    // where the index has it; otherwise the contents differ for sure.
                    if self.read(|g| g.same_layout(file, f))
                        && let Some(h) = self.analysis.source_hash_of(file, f)
                        && self.indexed_hash(file) == Some(h)
                    {
                        self.remember(file, f, Sync::Current);
                        return None;
                    }
                    self.remember(file, f, Sync::Overlaid);
                    return Some(f.clone());
                }
            }
        }
        if !self.indexable(file) {
            return None;
        }
        // The service's cache holds the bytes `fresh` was made from: their hash says
        // whether the index is current, and if not, `fresh` is what it should hold (no
        // second read, no second parse).
        match fresh.and_then(|f| self.analysis.source_hash_of(file, f).map(|h| (f, h))) {
            Some((f, h)) => {
                if self.indexed_hash(file) != Some(h) {
                    self.adopt(file, h, f, false);
                }
                self.remember(file, f, Sync::Current);
            }
            None => {
                self.verify([file]);
            }
        }
        None
    }

    fn remember(&self, file: &str, fresh: &Arc<Analysis>, sync: Sync) {
        let mut synced = self.synced.lock().unwrap_or_else(|p| p.into_inner());
        if synced.len() >= SYNCED_MAX && !synced.contains_key(file) {
            synced.clear();
        }
        synced.insert(file.to_owned(), (fresh.clone(), sync));
    }

    /// The callers of `file:name` (verified, see [`RepoIndex::fresh_edges`]), or `None`
    /// when no such definition is indexed. `fresh`: the caller's current analysis of
    /// `file`, if it has one (see [`RepoIndex::verify_with`]).
    pub(crate) fn callers(
        &self,
        file: &str,
        name: &str,
        depth: usize,
        fresh: Option<&Arc<Analysis>>,
    ) -> Option<(SymbolRef, Vec<Edge>)> {
        self.edges_of(file, name, fresh, |g, target, overlay| {
            g.callers_with(target, depth, overlay)
        })
    }

    /// The direct callers of `file:name` in the files `within` accepts (verified, as
    /// [`RepoIndex::callers`]; see [`Graph::callers_within`]), or `None` when no such
    /// definition is indexed.
    pub(crate) fn callers_within(
        &self,
        file: &str,
        name: &str,
        fresh: Option<&Arc<Analysis>>,
        within: &dyn Fn(&str) -> bool,
    ) -> Option<(SymbolRef, Vec<Edge>)> {
        self.edges_of(file, name, fresh, |g, target, overlay| {
            g.callers_within(target, overlay, within)
        })
    }

    /// The callees of `file:name` (verified, as [`RepoIndex::callers`]).
    pub(crate) fn callees(
        &self,
        file: &str,
        name: &str,
        depth: usize,
        fresh: Option<&Arc<Analysis>>,
    ) -> Option<(SymbolRef, Vec<Edge>)> {
        self.edges_of(file, name, fresh, |g, target, overlay| {
            g.callees_with(target, depth, overlay)
        })
    }

    /// [`RepoIndex::callees`] of each of `names` in `file`, the file verified once (one
    /// question about one version of the file: see [`RepoIndex::verify_with`]).
    pub(crate) fn callees_of_each(
        &self,
        file: &str,
        names: &[String],
        depth: usize,
        fresh: Option<&Arc<Analysis>>,
    ) -> Vec<Option<(SymbolRef, Vec<Edge>)>> {
        let current = self.verify_with(file, fresh);
        let overlay = current
            .as_deref()
            .map(|analysis| Overlay { file, analysis });
        names
            .iter()
            .map(|name| {
                self.edges_in(file, name, overlay, |g, target, overlay| {
                    g.callees_with(target, depth, overlay)
                })
            })
            .collect()
    }

    /// What each of `names` (definitions of `file`) calls, as the forecast and the claims
    /// publish it: the direct calls the graph resolves (name-only guesses left out), one
    /// per callee at its first line; `None` for a name that is not a definition there.
    pub(crate) fn resolved_calls_of_each(
        &self,
        file: &str,
        names: &[String],
        fresh: Option<&Arc<Analysis>>,
    ) -> Vec<Option<Vec<wit_forecast::CallRef>>> {
        self.callees_of_each(file, names, 1, fresh)
            .into_iter()
            .map(|found| {
                let (_, edges) = found?;
                let mut list: Vec<wit_forecast::CallRef> = edges
                    .iter()
                    .filter(|e| e.resolution == wit_graph::Resolution::Resolved && e.depth == 1)
                    .map(|e| wit_forecast::CallRef {
                        callee: e.callee.path(),
                        line: e.line + 1,
                    })
                    .collect();
                list.sort();
                list.dedup_by(|a, b| a.callee == b.callee);
                Some(list)
            })
            .collect()
    }

    /// The members of types each of `names` (definitions of `file`) reads or writes: the
    /// accesses of `analysis` (the file's current analysis: the graph keeps none) as the
    /// graph resolves their receivers, the file verified first; as the forecast and the
    /// claims publish them. `undeclared`: see [`RepoIndex::member_uses_in`].
    pub(crate) fn member_uses_of_each(
        &self,
        file: &str,
        names: &[String],
        analysis: &Arc<Analysis>,
        undeclared: bool,
    ) -> Vec<Vec<wit_forecast::UseRef>> {
        if analysis.accesses.is_empty() {
            return vec![Vec::new(); names.len()];
        }
        self.verify_with(file, Some(analysis));
        names
            .iter()
            .map(|name| self.member_uses_in(file, analysis, name, undeclared))
            .collect()
    }

    /// What `name` of `file` reads or writes of types' members, from `analysis` (the
    /// file's version asked about, maybe an edit not made yet) against the graph as it is.
    /// `undeclared`: also the members the receiver's type does not declare (any more), as
    /// the claims need them: the sessions of one checkout share its graph, where another
    /// session's edit may have removed the member already
    /// ([`wit_graph::Graph::member_uses_undeclared`]).
    pub(crate) fn member_uses_in(
        &self,
        file: &str,
        analysis: &Analysis,
        name: &str,
        undeclared: bool,
    ) -> Vec<wit_forecast::UseRef> {
        self.read(|g| {
            if undeclared {
                g.member_uses_undeclared(file, analysis, name)
            } else {
                g.member_uses(file, analysis, name)
            }
        })
        .into_iter()
        .map(|u| wit_forecast::UseRef {
            member: u.member,
            line: u.line + 1,
            write: u.write,
            receiver: u.receiver,
        })
        .collect()
    }

    /// `file:name` and the edges `walk` finds from it, verified.
    fn edges_of(
        &self,
        file: &str,
        name: &str,
        fresh: Option<&Arc<Analysis>>,
        walk: impl Fn(&Graph, &SymbolRef, Option<Overlay<'_>>) -> Vec<Edge>,
    ) -> Option<(SymbolRef, Vec<Edge>)> {
        let current = self.verify_with(file, fresh);
        let overlay = current
            .as_deref()
            .map(|analysis| Overlay { file, analysis });
        self.edges_in(file, name, overlay, walk)
    }

    /// `file:name` and the edges `walk` finds from it, with `file` already verified
    /// (`overlay`: its fresh analysis, when it stands in for the index's copy).
    fn edges_in(
        &self,
        file: &str,
        name: &str,
        overlay: Option<Overlay<'_>>,
        walk: impl Fn(&Graph, &SymbolRef, Option<Overlay<'_>>) -> Vec<Edge>,
    ) -> Option<(SymbolRef, Vec<Edge>)> {
        let target = self.read(|g| g.symbol(file, name))?;
        let edges = self.fresh_edges(file, |g| walk(g, &target, overlay));
        Some((target, edges))
    }

    /// `graph.status`: whether the build is over, counts, time, persisted size.
    pub(crate) fn status(&self) -> serde_json::Value {
        let p = &self.progress;
        let ready = p.ready.load(Ordering::Acquire);
        let files = self.read(Graph::len);
        serde_json::json!({
            "state": if ready { "ready" } else { "building" },
            "files": files,
            "listed": p.listed.load(Ordering::Relaxed),
            "processed": p.done.load(Ordering::Relaxed),
            "reused": p.reused.load(Ordering::Relaxed),
            "shared": p.shared.load(Ordering::Relaxed),
            "analysed": p.analysed.load(Ordering::Relaxed),
            "failed": p.failed.load(Ordering::Relaxed),
            "buildMs": if ready { Some(p.build_ms.load(Ordering::Relaxed)) } else { None },
            "uptimeMs": self.started.elapsed().as_millis() as u64,
            "persistedBytes": self.db_lock().as_ref().map_or(0, IndexDb::size),
        })
    }

    /// The file watcher for `daemon.status`: directories watched and polled, the cap.
    pub(crate) fn watch_status(&self) -> serde_json::Value {
        self.watching.json()
    }

    /// Resolution counts over the whole graph (resolved, name-only, unresolved).
    pub(crate) fn resolution_counts(&self) -> (usize, usize, usize) {
        self.read(Graph::resolution_counts)
    }
}

/// What the index keeps (and persists) of an analysis: no signatures (answers needing
/// them analyse the file itself), but where the graph picks among overloads by their
/// parameters (a file with type bodies: Java), and, when call sites are present, no call
/// edges (they are the call sites de-duplicated).
fn graph_view(mut a: Analysis) -> Analysis {
    if a.bodies.is_empty() {
        for s in &mut a.symbols {
            s.signature = None;
        }
    }
    if !a.call_sites.is_empty() {
        a.calls = Vec::new();
    }
    a
}

#[cfg(test)]
mod tests;
