//! Start-up: trust check, loading, logging; and what came of it, for `analyzers.list`.

use std::path::{Path, PathBuf};

use wit_core::{Config, Registry};

use super::languages::{self, LoadedLanguage};
use super::{LoadError, LoadedPlugin, PluginFailure, load_into};
use crate::trust::{TrustStatus, TrustStore};

/// The repository's trust, as the daemon found it at start.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TrustSummary {
    /// `wit.toml` names no plugin, so trust was not consulted.
    #[default]
    NotNeeded,
    /// Granted and current.
    Trusted,
    /// Never granted, or revoked.
    Untrusted,
    /// Granted, but these files changed since.
    Stale {
        /// The changed files.
        changed: Vec<PathBuf>,
    },
    /// The trust store could not be read.
    Unknown(String),
}

impl TrustSummary {
    /// The wire name: `not-needed`, `trusted`, `untrusted`, `stale`, `unknown`.
    pub fn as_str(&self) -> &'static str {
        match self {
            TrustSummary::NotNeeded => "not-needed",
            TrustSummary::Trusted => "trusted",
            TrustSummary::Untrusted => "untrusted",
            TrustSummary::Stale { .. } => "stale",
            TrustSummary::Unknown(_) => "unknown",
        }
    }
}

/// What became of the plugins `wit.toml` names.
#[derive(Debug, Clone, Default)]
pub struct PluginsReport {
    /// The trust found at start.
    pub trust: TrustSummary,
    /// The trust store consulted (none when not needed or not locatable).
    pub store: Option<PathBuf>,
    /// Plugins in the registry, in `wit.toml` order.
    pub loaded: Vec<LoadedPlugin>,
    /// `[[languages]]` entries in the registry, in `wit.toml` order.
    pub languages: Vec<LoadedLanguage>,
    /// Plugins refused, then languages refused, each in `wit.toml` order.
    pub failed: Vec<PluginFailure>,
}

/// Checks trust for `config`'s plugins and loads them into `registry`, logging each
/// outcome (`.wit/daemon.log`). Never fails: every problem becomes a [`PluginFailure`].
///
/// With no `[[analyzers]]` and no `[[languages]]` the trust store is not even read, so a
/// repository without plugins never depends on the user's configuration directory.
pub fn load_configured(registry: &mut Registry, root: &Path, config: &Config) -> PluginsReport {
    if !config.needs_trust() {
        return PluginsReport::default();
    }
    let store_path = TrustStore::default_path().ok();
    let (trust, check) = match TrustStore::load() {
        Ok(store) => {
            // Each library is read once here; the loader loads those very bytes.
            let check = store.check_and_read(root, config);
            let summary = match &check.status {
                TrustStatus::Trusted => TrustSummary::Trusted,
                TrustStatus::Untrusted => TrustSummary::Untrusted,
                TrustStatus::Stale { changed } => TrustSummary::Stale {
                    changed: changed.clone(),
                },
            };
            (summary, Ok(check))
        }
        Err(e) => (TrustSummary::Unknown(e.to_string()), Err(e.to_string())),
    };
    let (report, loaded_languages) = match check {
        Ok(check) => {
            let mut report = load_into(registry, root, config, &check);
            let (loaded, failed) = languages::load_into(registry, root, config, &check);
            report.failed.extend(failed);
            (report, loaded)
        }
        Err(why) => {
            let plugins = config.analyzers.iter().map(|a| PluginFailure {
                path: a.resolve(root),
                error: LoadError::TrustStore(why.clone()),
                language: None,
            });
            let grammars = config.languages.iter().map(|l| PluginFailure {
                path: l.resolve_grammar(root),
                error: LoadError::TrustStore(why.clone()),
                language: Some(l.id.clone()),
            });
            let report = super::LoadReport {
                loaded: Vec::new(),
                failed: plugins.chain(grammars).collect(),
            };
            (report, Vec::new())
        }
    };
    for plugin in &report.loaded {
        tracing::info!(
            "analyzer plugin {}: loaded {:?} for .{}",
            plugin.path.display(),
            plugin.analyzer.id(),
            plugin.extensions.join(", .")
        );
        for warning in &plugin.warnings {
            tracing::warn!(
                "analyzer plugin {}: warning: {warning}",
                plugin.path.display()
            );
        }
    }
    for language in &loaded_languages {
        tracing::info!(
            "language {:?}: loaded from grammar {} and {} query file(s) for .{}",
            language.id,
            language.grammar.display(),
            language.queries.len(),
            language.extensions.join(", .")
        );
        for warning in &language.warnings {
            tracing::warn!(
                "language {:?} (grammar {}): warning: {warning}",
                language.id,
                language.grammar.display()
            );
        }
    }
    for failure in &report.failed {
        // The log is read without `wit analyzers` at hand: give the remedy there too.
        let hint = failure
            .error
            .hint()
            .map(|h| format!("; {h}"))
            .unwrap_or_default();
        match &failure.error {
            // Expected states of a repository, not faults: a warning is enough.
            LoadError::Untrusted | LoadError::TrustStale { .. } => {
                tracing::warn!("{failure}{hint}")
            }
            _ => tracing::error!("{failure}{hint}"),
        }
    }
    PluginsReport {
        trust,
        store: store_path,
        loaded: report.loaded,
        languages: loaded_languages,
        failed: report.failed,
    }
}
