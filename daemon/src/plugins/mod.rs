//! Loading analyzer plugins named in `wit.toml` (see `wit_core::plugin` for the ABI).
//!
//! Each `[[analyzers]]` entry is loaded on its own: a plugin that is missing, not a shared
//! library, not a wit plugin, of another ABI version, or claiming an extension already
//! taken is refused with a [`PluginFailure`] naming the file and the reason, and the rest
//! still load. Nothing loads unless the repository is trusted ([`crate::trust`]).
//!
//! Libraries are loaded once and **never unloaded** (the `Library` handle is leaked):
//! analyzers are shared as `Arc<dyn LanguageAnalyzer>` with worker threads that may be
//! mid-call, a Rust cdylib registers thread-local destructors that would point into
//! unmapped code after `dlclose`, and a daemon loads a handful of plugins once per start,
//! so keeping them mapped costs nothing worth the risk.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wit_core::plugin::{ENTRY_SYMBOL, ENTRY_SYMBOL_NUL, EntryFn};
use wit_core::{
    AnalyzerOrigin, Config, LanguageAnalyzer, PluginAnalyzer, PluginError, Registry, RegistryError,
};

use crate::trust::TrustStatus;

mod monitor;
mod report;
#[cfg(test)]
#[path = "../../../tests/e2e/support/plugins.rs"]
pub(crate) mod test_support;
#[cfg(test)]
mod tests;

pub use monitor::{PluginHealth, RuntimeFailure};
pub use report::{PluginsReport, TrustSummary, load_configured};

/// Why one plugin was not loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// No file at the path.
    #[error("file not found")]
    Missing,
    /// The file exists but the dynamic loader refused it.
    #[error("not a loadable shared library: {0}")]
    NotALibrary(String),
    /// A shared library, but not a wit plugin.
    #[error("not a wit analyzer plugin: the entry symbol `{ENTRY_SYMBOL}` is missing")]
    NoEntrySymbol,
    /// The library's function table was refused (wrong ABI version, too small, null, or
    /// with an unusable id or extension list).
    #[error(transparent)]
    Table(#[from] PluginError),
    /// The registry refused the analyzer (an extension already claimed, a duplicate id).
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The repository has never been trusted (or was untrusted).
    #[error(
        "the repository is not trusted, so its plugins are not loaded; run `wit trust` to allow them"
    )]
    Untrusted,
    /// The trust grant no longer matches the files.
    #[error("the trust grant is stale ({} changed since `wit trust`); review the change and run `wit trust` again", changed_list(.changed))]
    TrustStale {
        /// The changed files.
        changed: Vec<PathBuf>,
    },
    /// The trust store could not be read, so trust cannot be established.
    #[error("cannot check trust: {0}")]
    TrustStore(String),
}

impl LoadError {
    /// What the user can do about it, when there is something to say beyond the reason.
    pub fn hint(&self) -> Option<&'static str> {
        Some(match self {
            LoadError::Missing => {
                "build the library, or fix its `path` in wit.toml, then run `wit trust` and `wit daemon restart`"
            }
            LoadError::NotALibrary(_) | LoadError::NoEntrySymbol => {
                "point `path` in wit.toml at a library built with wit_core::export_analyzer!"
            }
            LoadError::Table(PluginError::AbiMismatch { .. } | PluginError::TableTooSmall { .. }) => {
                "rebuild the plugin against this version of wit-core, then run `wit trust`"
            }
            LoadError::Table(
                PluginError::NullTable
                | PluginError::MissingFunction(_)
                | PluginError::InvalidId(_)
                | PluginError::InvalidExtensions(_),
            )
            // Unreachable for plugins (their lists are checked non-empty), kept total.
            | LoadError::Registry(RegistryError::NoExtensions(_)) => {
                "the plugin is broken; build it with wit_core::export_analyzer!"
            }
            LoadError::Registry(RegistryError::ExtensionClaimed { .. }) => {
                "give this plugin other extensions with `extensions = [...]` in its [[analyzers]] entry of wit.toml"
            }
            LoadError::Registry(RegistryError::DuplicateId(_)) => {
                "list each analyzer once in wit.toml"
            }
            LoadError::Untrusted => {
                "`wit trust` lists each library with its SHA-256 and asks before trusting"
            }
            LoadError::TrustStale { .. } => "review the change, then run `wit trust` again",
            LoadError::TrustStore(_) => {
                "fix or remove the trust store file, then run `wit trust` again"
            }
        })
    }
}

fn changed_list(changed: &[PathBuf]) -> String {
    changed
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A plugin that loaded.
#[derive(Clone)]
pub struct LoadedPlugin {
    /// The analyzer, calling into the library.
    pub analyzer: Arc<dyn LanguageAnalyzer>,
    /// The library's path (as resolved from `wit.toml`).
    pub path: PathBuf,
    /// The extensions routed to it: `wit.toml`'s list, else the plugin's own.
    pub extensions: Vec<String>,
    /// Its run-time failures (the analyzer above records them).
    pub health: Arc<PluginHealth>,
}

impl std::fmt::Debug for LoadedPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedPlugin")
            .field("id", &self.analyzer.id())
            .field("path", &self.path)
            .field("extensions", &self.extensions)
            .finish()
    }
}

/// A plugin that did not load, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("analyzer plugin {}: {error}", path.display())]
pub struct PluginFailure {
    /// The library's path (as resolved from `wit.toml`).
    pub path: PathBuf,
    /// The reason.
    pub error: LoadError,
}

/// The outcome of loading every `[[analyzers]]` entry.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Loaded plugins, in `wit.toml` order.
    pub loaded: Vec<LoadedPlugin>,
    /// Refused plugins, in `wit.toml` order.
    pub failed: Vec<PluginFailure>,
}

/// Loads every plugin `config` names for the repository at `root`, if `trust` allows.
///
/// Paths are resolved against `root` (see `wit_core::AnalyzerConfig::resolve`). When
/// `trust` is not [`TrustStatus::Trusted`], no library is opened and every entry fails with
/// [`LoadError::Untrusted`] or [`LoadError::TrustStale`]: opening a library already runs
/// its initialisers.
pub fn load(root: &Path, config: &Config, trust: &TrustStatus) -> LoadReport {
    let mut report = LoadReport::default();
    for entry in &config.analyzers {
        let path = entry.resolve(root);
        let result = match trust {
            TrustStatus::Trusted => load_library(&path),
            TrustStatus::Untrusted => Err(LoadError::Untrusted),
            TrustStatus::Stale { changed } => Err(LoadError::TrustStale {
                changed: changed.clone(),
            }),
        };
        match result {
            Ok(analyzer) => {
                let extensions = entry.extensions.clone().unwrap_or_else(|| {
                    analyzer
                        .extensions()
                        .iter()
                        .map(|e| (*e).to_owned())
                        .collect()
                });
                let health = Arc::new(PluginHealth::default());
                report.loaded.push(LoadedPlugin {
                    analyzer: Arc::new(monitor::Monitored::new(
                        analyzer,
                        path.clone(),
                        health.clone(),
                    )),
                    path,
                    extensions,
                    health,
                });
            }
            Err(error) => report.failed.push(PluginFailure { path, error }),
        }
    }
    report
}

/// [`load`], then adds each loaded plugin to `registry` (after whatever it already holds,
/// typically the built-ins). A plugin the registry refuses (an extension already claimed,
/// a duplicate id) moves from `loaded` to `failed`.
pub fn load_into(
    registry: &mut Registry,
    root: &Path,
    config: &Config,
    trust: &TrustStatus,
) -> LoadReport {
    let report = load(root, config, trust);
    let mut out = LoadReport {
        loaded: Vec::new(),
        failed: report.failed,
    };
    for plugin in report.loaded {
        match registry.add(
            plugin.analyzer.clone(),
            AnalyzerOrigin::Plugin(plugin.path.clone()),
            Some(plugin.extensions.clone()),
        ) {
            Ok(()) => out.loaded.push(plugin),
            Err(e) => out.failed.push(PluginFailure {
                path: plugin.path,
                error: e.into(),
            }),
        }
    }
    // Keep wit.toml order in the failure list regardless of which stage refused.
    let order = |p: &Path| config.analyzers.iter().position(|a| a.resolve(root) == p);
    out.failed.sort_by_key(|f| order(&f.path));
    out
}

/// Opens one library and validates its table.
fn load_library(path: &Path) -> Result<PluginAnalyzer, LoadError> {
    let meta = std::fs::metadata(path).map_err(|_| LoadError::Missing)?;
    if !meta.is_file() {
        return Err(LoadError::NotALibrary("not a regular file".into()));
    }
    // dlopen searches the library path for names without a slash; a canonical path has one.
    let path = std::fs::canonicalize(path).map_err(|_| LoadError::Missing)?;
    // SAFETY: opening a library runs its initialisers: arbitrary code. That is what trust
    // gates: this runs only for libraries the user trusted, pinned by hash.
    let library = unsafe { libloading::Library::new(&path) }
        .map_err(|e| LoadError::NotALibrary(e.to_string()))?;
    // Never unloaded (module docs): leak the handle so the code stays mapped.
    let library: &'static libloading::Library = Box::leak(Box::new(library));
    // SAFETY: the symbol, if present, is declared by the ABI as `EntryFn`; a library that
    // exports a different thing under this exact name is outside any contract we can check.
    let entry: EntryFn = *unsafe { library.get::<EntryFn>(ENTRY_SYMBOL_NUL) }
        .map_err(|_| LoadError::NoEntrySymbol)?;
    // SAFETY: calling the ABI's entry function, which takes nothing and returns a pointer.
    let table = unsafe { entry() };
    // SAFETY: `table` comes from the entry symbol of a library leaked above, so it stays
    // loaded for the rest of the process; from_table validates version and size before
    // reading further.
    Ok(unsafe { PluginAnalyzer::from_table(table) }?)
}
