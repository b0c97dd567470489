//! The analysis service: the analyzer registry plus a cache of analysed files.
//!
//! A file is analysed once per content: the cache keeps, per path, the exact bytes it
//! analysed (a hit is a byte comparison, so an edit is always seen, whatever the time
//! stamps say), the analysis, and for the most recently used files the analyzer's state,
//! from which the built-ins reanalyse the next version incrementally. It is bounded in
//! files, estimated bytes and kept states.
//!
//! A content that is not the file's (an edit the guard is asked about, staged content)
//! does not make the cache forget the version on disk: that one stays beside it, analysis
//! only, until the disk changes. Otherwise every check of an edit that is then not made
//! (refused, failed, or asked about again) would pay a reanalysis of the unchanged file
//! on its answer's path.
//!
//! Reading and parsing are blocking: async callers go through `AppState::analyse_disk`,
//! which runs [`AnalysisService::analyse_disk`] (the read, the cache comparison and, on a miss,
//! the analysis) on the blocking pool. A file is read through `wit_boundary` only, under a
//! size cap (`[analysis] max_file_bytes` in `wit.toml`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use wit_boundary::RepoFileError;
use wit_core::text::escape;
use wit_core::{Analysis, IncrementalState, Registry, analyzer::source_text};

/// Builds the analyzer registry for the repository at `root`: the built-ins of
/// `wit-analyzers`, then the plugins `config` (its `wit.toml`) names, if the repository is
/// trusted. The one place where analyzers are gathered; the report says what became of
/// each plugin (for `analyzers.list`).
pub(crate) fn build_registry(
    root: &Path,
    config: &wit_core::Config,
) -> (Registry, crate::plugins::PluginsReport) {
    let mut registry = wit_analyzers::builtin_registry();
    let report = crate::plugins::load_configured(&mut registry, root, config);
    (registry, report)
}

/// What analysing a file gave.
#[derive(Debug, Clone)]
pub(crate) enum FileOutcome {
    /// Missing, or outside the repository.
    NotFound,
    /// No analyzer handles the file's extension.
    Unsupported,
    /// The file was refused (not a regular file, larger than the cap, unreadable), or the
    /// analyzer refused the content (binary, not UTF-8, nesting too deep, over its time
    /// budget, plugin failure). The reason may quote file content or names: escape it
    /// before logging.
    Failed(String),
    /// Symbols and call edges.
    Analysed(Arc<Analysis>),
}

impl FileOutcome {
    /// The analysis, when there is one.
    pub fn analysis(&self) -> Option<&Arc<Analysis>> {
        match self {
            FileOutcome::Analysed(a) => Some(a),
            _ => None,
        }
    }
}

/// Most files the cache remembers.
const CACHE_MAX_ENTRIES: usize = 256;
/// Most bytes (estimated) the cache holds: sources, analyses and analyzer state.
const CACHE_MAX_BYTES: usize = 24 * 1024 * 1024;
/// Most files whose analyzer state (syntax tree) is kept for incremental reanalysis; the
/// state is the big part of an entry, and only files being edited need it.
const CACHE_MAX_STATES: usize = 8;
/// Most bytes (estimated) of kept analyzer states.
const CACHE_MAX_STATE_BYTES: usize = 16 * 1024 * 1024;
/// Estimated bytes of analyzer state per source byte: a tree-sitter tree plus the
/// per-declaration results. Measured (RSS growth over 20 kept states of generated
/// ~55 KB files): 47 for TypeScript, 46 for Python.
const STATE_BYTES_PER_SOURCE_BYTE: usize = 48;

/// One remembered file: the exact content analysed, so a hit is proven by comparing bytes
/// (never by time stamps), its analysis, and the analyzer's state for the next version.
struct CacheEntry {
    source: Box<[u8]>,
    analysis: Arc<Analysis>,
    state: Option<IncrementalState>,
    /// Which analyzer made `state` (another one must not be handed it).
    analyzer: String,
    /// Estimated bytes held (see [`CacheEntry::cost`]).
    cost: usize,
    /// Recency, for eviction.
    used: u64,
    /// SHA-256 of `source`, computed when first asked for (by the repository index).
    hash: Option<[u8; 32]>,
    /// Whether `source` was read from the file (not a content analysed as if it were).
    on_disk: bool,
    /// The version on disk, when the entry's own is a content that is not (yet) the
    /// file's.
    disk: Option<Kept>,
}

/// A version of a file kept for its analysis only (no analyzer state).
struct Kept {
    source: Box<[u8]>,
    analysis: Arc<Analysis>,
    hash: Option<[u8; 32]>,
}

/// Where the bytes an analysis is made from came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Read from the file.
    Disk,
    /// Given by a caller as what the file would hold (a proposed edit, staged content).
    Given,
}

impl CacheEntry {
    fn cost(source: &[u8], analysis: &Analysis, has_state: bool) -> usize {
        let symbols: usize = analysis
            .symbols
            .iter()
            .map(|s| {
                std::mem::size_of::<wit_core::Symbol>()
                    + s.name.len()
                    + s.container.as_ref().map_or(0, String::len)
                    + s.signature.as_ref().map_or(0, String::len)
            })
            .sum();
        let calls: usize = analysis
            .calls
            .iter()
            .map(|c| std::mem::size_of::<wit_core::CallEdge>() + c.caller.len() + c.callee.len())
            .sum::<usize>()
            + analysis
                .call_sites
                .iter()
                .map(|c| {
                    std::mem::size_of::<wit_core::CallSite>()
                        + c.caller.len()
                        + c.callee.len()
                        + c.receiver.as_ref().map_or(0, String::len)
                })
                .sum::<usize>();
        let state = if has_state {
            Self::state_cost(source)
        } else {
            0
        };
        std::mem::size_of::<Self>() + source.len() + symbols + calls + state
    }

    /// [`CacheEntry::cost`] of the entry's own version plus the kept disk version's.
    fn total_cost(&self, has_state: bool) -> usize {
        Self::cost(&self.source, &self.analysis, has_state)
            + self
                .disk
                .as_ref()
                .map_or(0, |k| Self::cost(&k.source, &k.analysis, false))
    }

    fn state_cost(source: &[u8]) -> usize {
        source.len() * STATE_BYTES_PER_SOURCE_BYTE
    }
}

/// The analysis cache: keyed by path, valid only for the exact bytes it was made from,
/// bounded in entries, bytes and kept analyzer states (least recently used go first).
#[derive(Default)]
pub(crate) struct Cache {
    entries: HashMap<PathBuf, CacheEntry>,
    /// Estimated bytes of all entries, states included.
    bytes: usize,
    /// Entries holding a state, and those states' estimated bytes.
    states: usize,
    state_bytes: usize,
    clock: u64,
    /// Files being analysed right now, outside the lock. A second analysis of the same
    /// file waits for the first (see [`AnalysisService::analyse_bytes`]) instead of parsing it
    /// again from scratch (the first one holds the file's incremental state).
    busy: std::collections::HashSet<PathBuf>,
}

impl Cache {
    /// The cached analysis of `key` if it was made from exactly `content`.
    /// A read of the file (`origin`) finding the entry's own version makes that the
    /// version on disk: the one kept beside it is let go.
    fn hit(&mut self, key: &Path, content: &[u8], origin: Origin) -> Option<Arc<Analysis>> {
        self.clock += 1;
        let entry = self.entries.get_mut(key)?;
        entry.used = self.clock;
        if *entry.source != *content {
            let kept = entry.disk.as_ref().filter(|k| *k.source == *content)?;
            return Some(kept.analysis.clone());
        }
        let analysis = entry.analysis.clone();
        if origin == Origin::Disk && !entry.on_disk {
            entry.on_disk = true;
            if entry.disk.take().is_some() {
                let cost = entry.total_cost(entry.state.is_some());
                self.bytes = self.bytes - entry.cost + cost;
                entry.cost = cost;
            }
        }
        Some(analysis)
    }

    /// Takes the analyzer state of `key` for a reanalysis by `analyzer`.
    fn take_state(&mut self, key: &Path, analyzer: &str) -> Option<IncrementalState> {
        let entry = self.entries.get_mut(key)?;
        if entry.analyzer != analyzer {
            return None;
        }
        let state = entry.state.take()?;
        let cost = entry.total_cost(false);
        self.bytes = self.bytes - entry.cost + cost;
        entry.cost = cost;
        self.states -= 1;
        self.state_bytes -= CacheEntry::state_cost(&entry.source);
        Some(state)
    }

    /// Remembers the analysis of `content` (and the state for the next version), then
    /// evicts down to the bounds. A content given (`origin`) keeps the version on disk
    /// beside it.
    fn insert(
        &mut self,
        key: PathBuf,
        content: &[u8],
        analysis: Arc<Analysis>,
        state: Option<IncrementalState>,
        analyzer: &str,
        origin: Origin,
    ) {
        self.clock += 1;
        let old = self.entries.remove(&key);
        if let Some(old) = &old {
            self.add_counts(old, -1);
        }
        let disk = match (origin, old) {
            (Origin::Disk, _) | (Origin::Given, None) => None,
            (Origin::Given, Some(old)) if old.on_disk => Some(Kept {
                source: old.source,
                analysis: old.analysis,
                hash: old.hash,
            }),
            (Origin::Given, Some(old)) => old.disk,
        }
        .filter(|k| *k.source != *content);
        let mut entry = CacheEntry {
            source: content.into(),
            analysis,
            state,
            analyzer: analyzer.to_owned(),
            cost: 0,
            used: self.clock,
            hash: None,
            on_disk: origin == Origin::Disk,
            disk,
        };
        entry.cost = entry.total_cost(entry.state.is_some());
        self.add_counts(&entry, 1);
        self.entries.insert(key, entry);
        self.evict();
    }

    /// Adds (`sign` 1) or removes (-1) an entry's share of the totals.
    fn add_counts(&mut self, entry: &CacheEntry, sign: isize) {
        let state_bytes = if entry.state.is_some() {
            CacheEntry::state_cost(&entry.source)
        } else {
            0
        };
        let apply = |total: usize, n: usize| total.wrapping_add_signed(sign * n as isize);
        self.bytes = apply(self.bytes, entry.cost);
        self.states = apply(self.states, usize::from(entry.state.is_some()));
        self.state_bytes = apply(self.state_bytes, state_bytes);
    }

    fn evict(&mut self) {
        while self.states > CACHE_MAX_STATES || self.state_bytes > CACHE_MAX_STATE_BYTES {
            let oldest = self
                .entries
                .iter_mut()
                .filter(|(_, e)| e.state.is_some())
                .min_by_key(|(_, e)| e.used)
                .map(|(_, e)| e);
            let Some(entry) = oldest else { break };
            entry.state = None;
            let cost = entry.total_cost(false);
            self.bytes = self.bytes - entry.cost + cost;
            entry.cost = cost;
            self.states -= 1;
            self.state_bytes -= CacheEntry::state_cost(&entry.source);
        }
        while self.entries.len() > CACHE_MAX_ENTRIES || self.bytes > CACHE_MAX_BYTES {
            let Some(key) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(old) = self.entries.remove(&key) {
                self.add_counts(&old, -1);
            }
        }
    }

    /// How many files, estimated bytes and analyzer states the cache holds.
    #[cfg(test)]
    fn usage(&self) -> (usize, usize, usize) {
        assert!(self.state_bytes <= CACHE_MAX_STATE_BYTES);
        (self.entries.len(), self.bytes, self.states)
    }
}

/// The registry and the parse cache of one repository.
pub(crate) struct AnalysisService {
    root: PathBuf,
    registry: Registry,
    cache: Mutex<Cache>,
    /// Signalled whenever a file leaves [`Cache::busy`].
    done: Condvar,
}

impl AnalysisService {
    /// The service for the canonical repository `root`.
    pub fn new(root: PathBuf, registry: Registry) -> Self {
        Self {
            root,
            registry,
            cache: Mutex::new(Cache::default()),
            done: Condvar::new(),
        }
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Whether some analyzer handles `path`.
    pub fn supports(&self, path: &str) -> bool {
        self.registry.for_path(path).is_some()
    }

    /// Analyses the current disk content of `rel` (a normalized path relative to the
    /// repository root, see [`crate::paths`]), reading at most `limit` bytes.
    ///
    /// Blocking: it reads the file and may parse, so async code calls it through
    /// `AppState::analyse_disk`, on the blocking pool. The file is read only through
    /// [`wit_boundary::read_repo_file`]: beneath the root, with a non-blocking open (a FIFO
    /// or a device swapped in for a source file answers at once instead of hanging the
    /// thread), regular files only, at most `limit` bytes. A missing file, or one outside
    /// the repository, is [`FileOutcome::NotFound`]; one refused for its type or size, or
    /// unreadable, is [`FileOutcome::Failed`] with the reason, like any analysis failure.
    pub fn analyse_disk(&self, rel: &str, limit: u64) -> FileOutcome {
        if self.registry.for_path(rel).is_none() {
            return FileOutcome::Unsupported;
        }
        let bytes = match wit_boundary::read_repo_file(&self.root, rel, limit) {
            Ok(bytes) => bytes,
            Err(e @ (RepoFileError::NotFound { .. } | RepoFileError::Outside { .. })) => {
                tracing::debug!("not analysed: {}", escape(&e.to_string()));
                return FileOutcome::NotFound;
            }
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        self.analyse_bytes(rel, self.root.join(rel), &bytes, Origin::Disk)
    }

    /// Analyses `bytes`, the content of `rel` its caller has just read from disk (through
    /// the boundary), with the cache and incremental state of [`AnalysisService::analyse_disk`]:
    /// for the repository index, which has hashed these very bytes, so that the analysis
    /// and the hash it records always describe the same content (no second read).
    pub fn analyse_read(&self, rel: &str, bytes: &[u8]) -> FileOutcome {
        self.analyse_bytes(rel, self.root.join(rel), bytes, Origin::Disk)
    }

    /// Analyses `content` as if it were the file `rel`, never touching the disk. Shares
    /// the cache with disk analyses: the same bytes under the same path give the same
    /// analysis wherever they came from, and the version on disk stays cached beside it.
    pub fn analyse_content(&self, rel: &str, content: &str) -> FileOutcome {
        self.analyse_bytes(rel, self.root.join(rel), content.as_bytes(), Origin::Given)
    }

    /// The cached analysis of `content` as the file `rel`, if these bytes were analysed
    /// before (quick: no parsing, so async code may call it inline).
    pub fn cached_content(&self, rel: &str, content: &str) -> Option<Arc<Analysis>> {
        self.registry.for_path(rel)?;
        self.cache_lock()
            .hit(&self.root.join(rel), content.as_bytes(), Origin::Given)
    }

    /// The SHA-256 of the bytes `analysis` was made from, when it is the cache's current
    /// analysis of `rel` (for the repository index: the hash that goes with it).
    pub fn source_hash_of(&self, rel: &str, analysis: &Arc<Analysis>) -> Option<[u8; 32]> {
        use sha2::Digest;
        let mut cache = self.cache_lock();
        let entry = cache.entries.get_mut(&self.root.join(rel))?;
        let (source, hash) = if Arc::ptr_eq(&entry.analysis, analysis) {
            (&entry.source, &mut entry.hash)
        } else {
            let kept = entry
                .disk
                .as_mut()
                .filter(|k| Arc::ptr_eq(&k.analysis, analysis))?;
            (&kept.source, &mut kept.hash)
        };
        // Once per content: every request on an unchanged file asks again.
        Some(*hash.get_or_insert_with(|| sha2::Sha256::digest(source).into()))
    }

    fn analyse_bytes(&self, rel: &str, key: PathBuf, bytes: &[u8], origin: Origin) -> FileOutcome {
        let Some(analyzer) = self.registry.for_path(rel) else {
            return FileOutcome::Unsupported;
        };
        let mut state = {
            let mut cache = self.cache_lock();
            // One analysis of a file at a time: a request racing the index's watcher (or
            // another request) over a just-edited file would otherwise find no state (the
            // other holds it) and parse the whole file afresh, on a CPU the other needs.
            // Waiting instead gives a cache hit (same bytes) or an incremental reanalysis
            // from the state the first one puts back. The wait is bounded by the
            // analysis's own time budget.
            loop {
                if let Some(hit) = cache.hit(&key, bytes, origin) {
                    return FileOutcome::Analysed(hit);
                }
                if !cache.busy.contains(&key) {
                    break;
                }
                cache = self.done.wait(cache).unwrap_or_else(|p| p.into_inner());
            }
            cache.busy.insert(key.clone());
            cache.take_state(&key, analyzer.id())
        };
        // Leaves `busy` however the analysis ends (a plugin's panic included).
        let busy = Busy {
            analysis: self,
            key: &key,
        };
        let result = source_text(bytes)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                analyzer
                    .analyze_incremental(text, &mut state)
                    .map_err(|e| e.to_string())
            });
        let outcome = match result {
            Ok(a) => {
                let analysis = Arc::new(a);
                self.cache_lock().insert(
                    key.clone(),
                    bytes,
                    analysis.clone(),
                    state,
                    analyzer.id(),
                    origin,
                );
                FileOutcome::Analysed(analysis)
            }
            Err(e) => FileOutcome::Failed(e),
        };
        drop(busy);
        outcome
    }

    fn cache_lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        // The cache's invariants hold between statements that cannot panic, so a poisoned
        // lock still guards a consistent cache.
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Marks a file as being analysed until dropped (see [`Cache::busy`]).
struct Busy<'a> {
    analysis: &'a AnalysisService,
    key: &'a Path,
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.analysis.cache_lock().busy.remove(self.key);
        self.analysis.done.notify_all();
    }
}

/// Every spelling of the symbol path `file:name` that names the same definition,
/// canonical first.
///
/// One definition has one lock: `src/store.py:get` resolves (first definition named
/// `get`) to the method `Store.get`, so a lock on either spelling must conflict with the
/// other. When the file analyses and `name` resolves to a definition (as
/// [`Analysis::find`] resolves it), the canonical spelling is `file:` + its qualified
/// name (`Container.name` for a method), followed by the bare `file:name` when the bare
/// name resolves to that same definition. Otherwise `file:name` as given is the only one.
pub(crate) fn symbol_spellings(file: &str, name: &str, analysis: Option<&Analysis>) -> Vec<String> {
    let Some(def) = analysis.and_then(|a| a.find(name).map(|d| (a, d))) else {
        return vec![format!("{file}:{name}")];
    };
    let (analysis, def) = def;
    // `address_of` is the qualified name, or with a `#kind`/`#N` suffix when an earlier
    // definition shares the name (`input#function` after `export type input`).
    let mut spellings = vec![format!("{file}:{}", analysis.address_of(def))];
    if def.container.is_some()
        && analysis
            .find(&def.name)
            .is_some_and(|d| std::ptr::eq(d, def))
    {
        spellings.push(format!("{file}:{}", def.name));
    }
    spellings
}

/// Qualifies a callee name as the protocol does: `file:name` when `name` is defined in
/// the same file, else `?:name`.
pub(crate) fn qualify_callee(file: &str, analysis: &Analysis, callee: &str) -> String {
    if analysis.find(callee).is_some() {
        format!("{file}:{callee}")
    } else {
        format!("?:{callee}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: u64 = wit_core::config::DEFAULT_MAX_FILE_BYTES;

    fn service() -> (tempfile::TempDir, AnalysisService) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let analysis = AnalysisService::new(root, wit_analyzers::builtin_registry());
        (dir, analysis)
    }

    fn names(outcome: &FileOutcome) -> Vec<String> {
        outcome
            .analysis()
            .expect("analysed")
            .symbols
            .iter()
            .map(|s| s.name.clone())
            .collect()
    }

    #[test]
    fn an_edited_file_is_reanalysed_and_an_unchanged_one_is_served_from_the_cache() {
        let (dir, analysis) = service();
        let file = dir.path().join("a.ts");
        std::fs::write(&file, "function one() {}\n").unwrap();
        let first = analysis.analyse_disk("a.ts", LIMIT);
        assert_eq!(names(&first), ["one"]);
        let again = analysis.analyse_disk("a.ts", LIMIT);
        assert!(Arc::ptr_eq(
            first.analysis().unwrap(),
            again.analysis().unwrap()
        ));
        // Same length, same time stamp granularity: only the bytes tell.
        std::fs::write(&file, "function two() {}\n").unwrap();
        assert_eq!(names(&analysis.analyse_disk("a.ts", LIMIT)), ["two"]);
        std::fs::write(&file, "function two() {}\nfunction three() {}\n").unwrap();
        assert_eq!(
            names(&analysis.analyse_disk("a.ts", LIMIT)),
            ["two", "three"]
        );
        std::fs::remove_file(&file).unwrap();
        assert!(matches!(
            analysis.analyse_disk("a.ts", LIMIT),
            FileOutcome::NotFound
        ));
    }

    /// Concurrent analyses of one file wait for each other instead of parsing it twice:
    /// the same bytes give one analysis (the second is a cache hit), the file leaves the
    /// busy set, and bytes read by the caller are analysed as given.
    #[test]
    fn concurrent_analyses_of_one_file_share_one_parse_and_read_bytes_are_analysed_as_given() {
        let (dir, analysis) = service();
        let source: String = (0..300)
            .map(|i| {
                format!(
                    "export function f{i}(a: number) {{ return f{}(a); }}\n",
                    i + 1
                )
            })
            .collect();
        std::fs::write(dir.path().join("a.ts"), &source).unwrap();
        let outcomes: Vec<FileOutcome> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| analysis.analyse_disk("a.ts", LIMIT)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let first = outcomes[0].analysis().expect("analysed");
        assert_eq!(first.symbols.len(), 300);
        for o in &outcomes {
            assert!(Arc::ptr_eq(first, o.analysis().unwrap()));
        }
        assert!(analysis.cache_lock().busy.is_empty());
        // Bytes the caller read (here: not what is on disk) are what gets analysed, and
        // the hash the cache reports is theirs.
        let read = "function other() {}\n";
        let got = analysis.analyse_read("a.ts", read.as_bytes());
        assert_eq!(names(&got), ["other"]);
        use sha2::Digest;
        let expected: [u8; 32] = sha2::Sha256::digest(read.as_bytes()).into();
        assert_eq!(
            analysis.source_hash_of("a.ts", got.analysis().unwrap()),
            Some(expected)
        );
        assert_eq!(analysis.source_hash_of("a.ts", first), None);
    }

    #[test]
    fn a_fifo_a_directory_and_a_file_over_the_cap_fail_at_once_and_escapes_are_not_found() {
        let (dir, analysis) = service();
        let fifo = dir.path().join("fifo.ts");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        // No writer ever opens the FIFO: a blocking open would never return.
        match analysis.analyse_disk("fifo.ts", LIMIT) {
            FileOutcome::Failed(why) => assert!(why.contains("not a regular file"), "{why}"),
            other => panic!("{other:?}"),
        }
        std::fs::create_dir(dir.path().join("dir.ts")).unwrap();
        assert!(matches!(
            analysis.analyse_disk("dir.ts", LIMIT),
            FileOutcome::Failed(_)
        ));
        std::fs::write(dir.path().join("big.ts"), "function big() {}\n").unwrap();
        match analysis.analyse_disk("big.ts", 8) {
            FileOutcome::Failed(why) => assert!(why.contains("more than the limit of 8"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(analysis.analyse_disk("big.ts", LIMIT).analysis().is_some());
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.ts"), "function s() {}\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.ts"), dir.path().join("l.ts"))
            .unwrap();
        for escape in ["l.ts", "../secret.ts", "/etc/passwd.ts"] {
            assert!(
                matches!(analysis.analyse_disk(escape, LIMIT), FileOutcome::NotFound),
                "{escape}"
            );
        }
    }

    #[test]
    fn every_spelling_of_one_definition_leads_to_its_canonical_name() {
        let (_dir, analysis) = service();
        let py = "class Store:\n    def get(self):\n        pass\n\n    def put(self):\n        pass\n\n\ndef get():\n    pass\n\ndef put_all():\n    pass\n";
        let FileOutcome::Analysed(a) = analysis.analyse_content("s.py", py) else {
            panic!("analysed");
        };
        // The bare name resolves to the first `get`: the method, under both names.
        let both = ["s.py:Store.get", "s.py:get"];
        assert_eq!(symbol_spellings("s.py", "get", Some(&a)), both);
        assert_eq!(symbol_spellings("s.py", "Store.get", Some(&a)), both);
        // `put` is the method's only bare name too.
        assert_eq!(
            symbol_spellings("s.py", "put", Some(&a)),
            ["s.py:Store.put", "s.py:put"]
        );
        // A top-level function is its own canonical name.
        assert_eq!(
            symbol_spellings("s.py", "put_all", Some(&a)),
            ["s.py:put_all"]
        );
        // Unknown names and files that did not analyse keep the name as given.
        assert_eq!(symbol_spellings("s.py", "nope", Some(&a)), ["s.py:nope"]);
        assert_eq!(symbol_spellings("s.py", "get", None), ["s.py:get"]);
    }

    #[test]
    fn content_and_disk_share_entries_but_never_mix_contents() {
        let (dir, analysis) = service();
        std::fs::write(dir.path().join("a.ts"), "function disk() {}\n").unwrap();
        assert_eq!(names(&analysis.analyse_disk("a.ts", LIMIT)), ["disk"]);
        let staged = analysis.analyse_content("a.ts", "function staged() {}\n");
        assert_eq!(names(&staged), ["staged"]);
        assert_eq!(names(&analysis.analyse_disk("a.ts", LIMIT)), ["disk"]);
    }

    /// Issue 30: the guard's check of an edit analyses the edited content; the version
    /// on disk stays cached beside it (the next check of another edit reads the file and
    /// must not reanalyse it), until the edit is written and read back.
    #[test]
    fn a_content_analysed_as_the_file_keeps_the_disk_version_until_the_disk_changes() {
        let (dir, analysis) = service();
        let path = dir.path().join("a.ts");
        std::fs::write(&path, "function disk() {}\n").unwrap();
        let on_disk = analysis.analyse_disk("a.ts", LIMIT);
        let on_disk = on_disk.analysis().unwrap().clone();
        let edit = "function edited() {}\n";
        assert_eq!(names(&analysis.analyse_content("a.ts", edit)), ["edited"]);
        let other = analysis.analyse_content("a.ts", "function other() {}\n");
        assert_eq!(names(&other), ["other"]);
        // Two contents later, the file's own analysis is still the one made of it.
        let again = analysis.analyse_disk("a.ts", LIMIT);
        assert!(Arc::ptr_eq(again.analysis().unwrap(), &on_disk));
        assert!(analysis.source_hash_of("a.ts", &on_disk).is_some());
        // The edit written: its analysis is reused, and the old disk version let go.
        let proposed = analysis.analyse_content("a.ts", edit);
        std::fs::write(&path, edit).unwrap();
        let written = analysis.analyse_disk("a.ts", LIMIT);
        assert!(Arc::ptr_eq(
            written.analysis().unwrap(),
            proposed.analysis().unwrap()
        ));
        let cache = analysis.cache_lock();
        let entry = &cache.entries[&dir.path().canonicalize().unwrap().join("a.ts")];
        assert!(entry.on_disk && entry.disk.is_none());
    }

    #[test]
    fn the_cache_stays_within_its_bounds_over_many_files() {
        let (dir, analysis) = service();
        let body = wit_analyzers::fixtures::generate_typescript(20);
        for i in 0..CACHE_MAX_ENTRIES + 100 {
            let name = format!("f{i}.ts");
            std::fs::write(dir.path().join(&name), format!("{body}// {i}\n")).unwrap();
            assert!(analysis.analyse_disk(&name, LIMIT).analysis().is_some());
            let (entries, bytes, states) = analysis.cache_lock().usage();
            assert!(entries <= CACHE_MAX_ENTRIES, "{entries} entries");
            assert!(bytes <= CACHE_MAX_BYTES, "{bytes} bytes");
            assert!(states <= CACHE_MAX_STATES, "{states} states");
        }
        // The most recent files are still served from the cache.
        let last = format!("f{}.ts", CACHE_MAX_ENTRIES + 99);
        let a = analysis.analyse_disk(&last, LIMIT);
        let b = analysis.analyse_disk(&last, LIMIT);
        assert!(Arc::ptr_eq(a.analysis().unwrap(), b.analysis().unwrap()));
    }

    #[test]
    fn a_big_file_alone_never_exceeds_the_byte_bound() {
        let mut cache = Cache::default();
        let analysis = Arc::new(Analysis::default());
        let big = vec![b'x'; CACHE_MAX_BYTES + 1];
        cache.insert(
            PathBuf::from("big.ts"),
            &big,
            analysis,
            None,
            "typescript",
            Origin::Disk,
        );
        let (_, bytes, _) = cache.usage();
        assert!(bytes <= CACHE_MAX_BYTES);
    }
}
