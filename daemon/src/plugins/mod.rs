//! Loading analyzer plugins named in `wit.toml` (see `wit_core::plugin` for the ABI), and
//! the grammar libraries of its `[[languages]]` entries (`languages.rs`).
//!
//! Each `[[analyzers]]` entry is loaded on its own: a plugin that is missing, not a shared
//! library, not a wit plugin, of another ABI version, or claiming an extension already
//! taken is refused with a [`PluginFailure`] naming the file and the reason, and the rest
//! still load. Nothing loads unless the repository is trusted ([`crate::trust`]).
//!
//! A library is read once, by the trust check ([`crate::trust::TrustStore::check_and_read`],
//! through [`wit_boundary::library`]); the loader loads those bytes, from a sealed
//! in-memory copy whose hash is compared with the trusted hash just before `dlopen`. The
//! file on disk is never opened again, so swapping it (even in a loop, even mid-load) can
//! only make the grant stale. A library whose dependencies would not be pinned (`RUNPATH
//! $ORIGIN`, a `DT_NEEDED` that is not a system library) is refused before it is mapped.
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

use wit_boundary::library::{LibraryError, LibraryFile};

use crate::trust::{CheckedLibrary, LibraryState, TrustCheck, TrustStatus};

mod languages;
mod monitor;
mod report;
#[cfg(test)]
#[path = "../../../tests/e2e/support/plugins.rs"]
pub(crate) mod test_support;
#[cfg(test)]
mod tests;

pub use languages::LoadedLanguage;
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
    /// The file-system boundary refused the library: not a regular file, too large, a
    /// symlink, outside the repository, or depending on code that would not be pinned.
    #[error(transparent)]
    Library(LibraryError),
    /// A grammar library without the entry function `[[languages]]` names.
    #[error("the grammar function `{0}` is not in the library")]
    NoGrammarSymbol(String),
    /// The grammar function returned nothing usable (null, another ABI version).
    #[error("{0}")]
    Grammar(String),
    /// A query file could not be read (missing, a symlink, not a regular file, too large,
    /// not UTF-8).
    #[error("query file {}: {reason}", path.display())]
    QueryFile {
        /// The file, as `wit.toml` names it.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The queries did not compile, or use a capture wit does not know: `file:line:col:
    /// reason`.
    #[error("{0}")]
    Query(String),
}

impl LoadError {
    /// What the user can do about it, when there is something to say beyond the reason.
    pub fn hint(&self) -> Option<&'static str> {
        Some(match self {
            LoadError::Missing => {
                "build the library, or fix its `path` (a language's `grammar`) in wit.toml, then run `wit trust` and `wit daemon restart`"
            }
            LoadError::NoGrammarSymbol(_) => {
                "set `symbol` in the [[languages]] entry to the grammar's function (`nm -D --defined-only` lists the library's tree_sitter_* functions)"
            }
            LoadError::Grammar(_) => {
                "rebuild the grammar library from the grammar's src/parser.c (and src/scanner.c), then run `wit trust`"
            }
            LoadError::QueryFile { .. } => {
                "point `queries` in the [[languages]] entry at regular UTF-8 files inside the repository, then run `wit trust`"
            }
            LoadError::Query(_) => {
                "fix the query at that line and column, then run `wit trust` and `wit daemon restart`"
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
            LoadError::Library(LibraryError::SearchPath { .. } | LibraryError::Dependency { .. }) => {
                "relink the plugin so that it depends only on system libraries (no -rpath, other dependencies linked statically), then run `wit trust`"
            }
            LoadError::Library(LibraryError::Symlink) => {
                "point `path` in wit.toml at the library file itself, not a symlink"
            }
            LoadError::Library(
                LibraryError::NotRegular { .. }
                | LibraryError::Outside { .. }
                | LibraryError::TooLarge { .. }
                | LibraryError::MalformedElf(_)
                | LibraryError::NotFound
                | LibraryError::Dlopen(_),
            ) => "point `path` in wit.toml at a shared library built with wit_core::export_analyzer!",
            LoadError::Library(
                LibraryError::Io { .. } | LibraryError::Memfd(_) | LibraryError::Changed { .. },
            ) => return None,
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
    /// Who else could replace the library file (group/other-writable file or directory).
    pub warnings: Vec<String>,
}

impl std::fmt::Debug for LoadedPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedPlugin")
            .field("id", &self.analyzer.id())
            .field("path", &self.path)
            .field("extensions", &self.extensions)
            .field("warnings", &self.warnings)
            .finish()
    }
}

/// A plugin (or a `[[languages]]` entry) that did not load, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {error}", match language { Some(id) => format!("language {id:?} (grammar {})", path.display()), None => format!("analyzer plugin {}", path.display()) })]
pub struct PluginFailure {
    /// The library's path (as resolved from `wit.toml`): a language's grammar.
    pub path: PathBuf,
    /// The reason.
    pub error: LoadError,
    /// The `[[languages]]` entry's id, when the failure is a language's.
    pub language: Option<String>,
}

/// The outcome of loading every `[[analyzers]]` entry.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Loaded plugins, in `wit.toml` order.
    pub loaded: Vec<LoadedPlugin>,
    /// Refused plugins, in `wit.toml` order.
    pub failed: Vec<PluginFailure>,
}

/// Loads every plugin `config` names for the repository at `root`, if `check` (the trust
/// verdict, with the libraries as read for it) allows.
///
/// Paths are resolved against `root` (see `wit_core::AnalyzerConfig::resolve`). When the
/// repository is not trusted no library is loaded: every entry fails with
/// [`LoadError::Untrusted`] or [`LoadError::TrustStale`] (opening a library already runs
/// its initialisers), except one the file-system boundary refused, which fails with that
/// reason ([`LoadError::Library`]: it could never load as it is). A trusted library is
/// loaded from the bytes in `check`, which must hash as the grant says.
pub fn load(root: &Path, config: &Config, check: &TrustCheck) -> LoadReport {
    let mut report = LoadReport::default();
    for (i, entry) in config.analyzers.iter().enumerate() {
        let checked = check.libraries.get(i);
        let path = checked.map_or_else(|| entry.resolve(root), |c| c.path.clone());
        let result = trusted_library(check, checked, &path).and_then(|(file, trusted)| {
            load_library(file, trusted).map(|a| (a, file.warnings().to_vec()))
        });
        match result {
            Ok((analyzer, warnings)) => {
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
                    warnings,
                });
            }
            Err(error) => report.failed.push(PluginFailure {
                path,
                error,
                language: None,
            }),
        }
    }
    report
}

/// The bytes of a library the trust check read and vouches for, with the hash they must
/// have when loaded; or why it may not load. Shared by plugins and grammars.
pub(crate) fn trusted_library<'c>(
    check: &'c TrustCheck,
    checked: Option<&'c CheckedLibrary>,
    path: &Path,
) -> Result<(&'c LibraryFile, &'c str), LoadError> {
    match checked.map(|c| (&c.state, c.trusted_sha256.as_deref())) {
        Some((LibraryState::Refused(e), _)) if !e.is_not_found() => {
            Err(LoadError::Library(e.clone()))
        }
        _ if check.status != TrustStatus::Trusted => Err(match &check.status {
            TrustStatus::Trusted | TrustStatus::Untrusted => LoadError::Untrusted,
            TrustStatus::Stale { changed } => LoadError::TrustStale {
                changed: changed.clone(),
            },
        }),
        Some((LibraryState::Refused(_), _)) => Err(LoadError::Missing),
        Some((LibraryState::Read(file), Some(trusted))) => Ok((file, trusted)),
        // Trusted without a hash to compare, or not read: nothing to vouch for.
        Some((LibraryState::Read(_), None)) => Err(LoadError::TrustStale {
            changed: vec![path.to_owned()],
        }),
        Some((LibraryState::Unread, _)) | None => Err(LoadError::Untrusted),
    }
}

/// [`load`], then adds each loaded plugin to `registry` (after whatever it already holds,
/// typically the built-ins). A plugin the registry refuses (an extension already claimed,
/// a duplicate id) moves from `loaded` to `failed`.
pub fn load_into(
    registry: &mut Registry,
    root: &Path,
    config: &Config,
    check: &TrustCheck,
) -> LoadReport {
    let report = load(root, config, check);
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
                language: None,
            }),
        }
    }
    // Keep wit.toml order in the failure list regardless of which stage refused.
    let order = |p: &Path| config.analyzers.iter().position(|a| a.resolve(root) == p);
    out.failed.sort_by_key(|f| order(&f.path));
    out
}

/// Maps one library's bytes (which must hash as `trusted`) into the process, for good.
pub(crate) fn open_library(
    file: &LibraryFile,
    trusted: &str,
) -> Result<&'static libloading::Library, LoadError> {
    file.load(trusted).map_err(|e| match e {
        // Swapped between the check and the load: the trusted code is not what is there.
        LibraryError::Changed { .. } => LoadError::TrustStale {
            changed: vec![file.path().to_owned()],
        },
        LibraryError::NotFound => LoadError::Missing,
        LibraryError::Dlopen(why) => LoadError::NotALibrary(why),
        e => LoadError::Library(e),
    })
}

/// Loads one library's bytes (which must hash as `trusted`) and validates its table.
fn load_library(file: &LibraryFile, trusted: &str) -> Result<PluginAnalyzer, LoadError> {
    let library = open_library(file, trusted)?;
    // SAFETY: the symbol, if present, is declared by the ABI as `EntryFn`; a library that
    // exports a different thing under this exact name is outside any contract we can check.
    let entry: EntryFn = *unsafe { library.get::<EntryFn>(ENTRY_SYMBOL_NUL) }
        .map_err(|_| LoadError::NoEntrySymbol)?;
    // SAFETY: calling the ABI's entry function, which takes nothing and returns a pointer.
    let table = unsafe { entry() };
    // SAFETY: `table` comes from the entry symbol of a library that is never unloaded
    // (`LibraryFile::load` leaks it), so it stays mapped for the rest of the process;
    // from_table validates version and size before reading further.
    Ok(unsafe { PluginAnalyzer::from_table(table) }?)
}
