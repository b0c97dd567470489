//! Watching loaded plugins at run time: a plugin that panics or returns malformed data
//! during `analyze` must be visible to the user, not only to the request that hit it.
//!
//! [`Monitored`] wraps a loaded plugin: every failed `analyze` is logged (`.wit/daemon.log`,
//! with the library path and the reason), counted, and remembered in [`PluginHealth`],
//! which `analyzers.list` reports. The failure itself still reaches the request as an
//! [`AnalyzeError`], which each method turns into its own clean answer (see the README's
//! "Writing a language analyzer").

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use wit_core::{AnalyzeError, FileAnalysis, LanguageAnalyzer};

/// The last run-time failure of a plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeFailure {
    /// What went wrong (the plugin's panic message, or why its data was refused).
    pub reason: String,
    /// Unix ms.
    pub at_ms: u64,
}

/// How a loaded plugin has behaved since the daemon started.
#[derive(Debug, Default)]
pub struct PluginHealth {
    failures: AtomicU64,
    last: Mutex<Option<RuntimeFailure>>,
}

impl PluginHealth {
    /// How many `analyze` calls failed.
    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }

    /// The most recent failure, if any.
    pub fn last_failure(&self) -> Option<RuntimeFailure> {
        // Only whole values are stored, so a poisoned lock still holds a consistent one.
        self.last.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn record(&self, reason: String) {
        self.failures.fetch_add(1, Ordering::Relaxed);
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(RuntimeFailure {
            reason,
            at_ms: now_ms(),
        });
    }
}

/// A loaded plugin whose failures are logged and recorded.
pub(crate) struct Monitored<A> {
    inner: A,
    path: PathBuf,
    health: std::sync::Arc<PluginHealth>,
}

impl<A: LanguageAnalyzer> Monitored<A> {
    pub(crate) fn new(inner: A, path: PathBuf, health: std::sync::Arc<PluginHealth>) -> Self {
        Self {
            inner,
            path,
            health,
        }
    }
}

impl<A: LanguageAnalyzer> LanguageAnalyzer for Monitored<A> {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn extensions(&self) -> &[&str] {
        self.inner.extensions()
    }

    fn analyze(&self, source: &str) -> Result<FileAnalysis, AnalyzeError> {
        self.inner.analyze(source).map_err(|e| {
            let reason = e.to_string();
            tracing::warn!(
                plugin = %self.path.display(),
                "analyzer plugin {}: analyze failed: {reason}",
                self.path.display()
            );
            self.health.record(reason.clone());
            AnalyzeError::Failed(format!("plugin {}: {reason}", self.path.display()))
        })
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
