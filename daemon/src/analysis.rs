//! The analysis service: the analyzer registry plus a cache of parsed files.
//!
//! Everything here is blocking (file reads, tree-sitter parses); async callers go through
//! `AppState::analyse*`, which run it on the blocking pool.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use wit_core::{FileAnalysis, Registry, analyzer::source_text};

use crate::paths;

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
    /// Missing, not a regular file, or outside the repository.
    NotFound,
    /// No analyzer handles the file's extension.
    Unsupported,
    /// The analyzer refused the content (binary, not UTF-8, plugin failure).
    Failed(String),
    /// Symbols and call edges.
    Analysed(Arc<FileAnalysis>),
}

impl FileOutcome {
    /// The analysis, when there is one.
    pub fn analysis(&self) -> Option<&Arc<FileAnalysis>> {
        match self {
            FileOutcome::Analysed(a) => Some(a),
            _ => None,
        }
    }
}

/// Cap on cached files; beyond it the cache starts over (simple, and bounded).
const CACHE_CAPACITY: usize = 1024;

struct CacheEntry {
    fingerprint: (u64, usize),
    analysis: Arc<FileAnalysis>,
}

/// The registry and the parse cache of one repository.
pub(crate) struct Analysis {
    root: PathBuf,
    registry: Registry,
    // Keyed by the file's canonical path; an entry is reused only when the content's
    // fingerprint matches, so edits are always seen.
    cache: Mutex<HashMap<PathBuf, CacheEntry>>,
}

impl Analysis {
    /// The service for the canonical repository `root`.
    pub fn new(root: PathBuf, registry: Registry) -> Self {
        Self {
            root,
            registry,
            cache: Mutex::new(HashMap::new()),
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

    /// Analyses the current disk content of `rel` (relative to the repository root).
    pub fn analyse_disk(&self, rel: &str) -> FileOutcome {
        let Some(analyzer) = self.registry.for_path(rel) else {
            return FileOutcome::Unsupported;
        };
        let Some(path) = paths::resolve_in_root(&self.root, rel) else {
            return FileOutcome::NotFound;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            return FileOutcome::NotFound;
        };
        let fingerprint = fingerprint(&bytes);
        if let Some(hit) = self.cache_lock().get(&path)
            && hit.fingerprint == fingerprint
        {
            return FileOutcome::Analysed(hit.analysis.clone());
        }
        let text = match source_text(&bytes) {
            Ok(t) => t,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        match analyzer.analyze(text) {
            Ok(a) => {
                let analysis = Arc::new(a);
                let mut cache = self.cache_lock();
                if cache.len() >= CACHE_CAPACITY {
                    cache.clear();
                }
                cache.insert(
                    path,
                    CacheEntry {
                        fingerprint,
                        analysis: analysis.clone(),
                    },
                );
                FileOutcome::Analysed(analysis)
            }
            Err(e) => FileOutcome::Failed(e.to_string()),
        }
    }

    /// Analyses `content` as if it were the file `rel`, never touching the disk.
    pub fn analyse_content(&self, rel: &str, content: &str) -> FileOutcome {
        let Some(analyzer) = self.registry.for_path(rel) else {
            return FileOutcome::Unsupported;
        };
        let text = match source_text(content.as_bytes()) {
            Ok(t) => t,
            Err(e) => return FileOutcome::Failed(e.to_string()),
        };
        match analyzer.analyze(text) {
            Ok(a) => FileOutcome::Analysed(Arc::new(a)),
            Err(e) => FileOutcome::Failed(e.to_string()),
        }
    }

    fn cache_lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, CacheEntry>> {
        // The cache holds only finished values, so a poisoned lock is still consistent.
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn fingerprint(bytes: &[u8]) -> (u64, usize) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    (h.finish(), bytes.len())
}

/// Qualifies a callee name as the protocol does: `file:name` when `name` is defined in
/// the same file, else `?:name`.
pub(crate) fn qualify_callee(file: &str, analysis: &FileAnalysis, callee: &str) -> String {
    if analysis.find(callee).is_some() {
        format!("{file}:{callee}")
    } else {
        format!("?:{callee}")
    }
}
