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

use wit_core::{Analysis, AnalyzeError, FileAnalysis, LanguageAnalyzer};

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
    shape: Mutex<Option<String>>,
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

    /// What is wrong with the shape of the plugin's results, once seen (for example
    /// qualified names where `name` + `container` belong).
    pub fn shape_warning(&self) -> Option<String> {
        self.shape.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Remembers the first shape problem (later ones are the same mistake again).
    fn record_shape(&self, warning: String) -> bool {
        let mut shape = self.shape.lock().unwrap_or_else(|p| p.into_inner());
        if shape.is_some() {
            return false;
        }
        *shape = Some(warning);
        true
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
        self.analyze_full(source).map(Into::into)
    }

    fn analyze_full(&self, source: &str) -> Result<Analysis, AnalyzeError> {
        let result = self.inner.analyze_full(source);
        if let Ok(analysis) = &result
            && let Some(warning) = shape_problem(analysis)
            && self.health.record_shape(warning.clone())
        {
            tracing::warn!("analyzer plugin {}: {warning}", self.path.display());
        }
        result.map_err(|e| {
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

/// The mistake plugin authors make most: a qualified `name` (`Repo.find`) with no
/// `container`. It loads and analyses, but `file:find` then answers SYMBOL_NOT_FOUND and
/// caller warnings vanish, so it is reported (`wit analyzers`) instead of passing silently.
fn shape_problem(analysis: &Analysis) -> Option<String> {
    let bad = analysis
        .symbols
        .iter()
        .find(|s| s.container.is_none() && (s.name.contains('.') || s.name.contains(':')))?;
    let (container, name) = bad
        .name
        .rsplit_once(['.', ':'])
        .unwrap_or(("", bad.name.as_str()));
    Some(format!(
        "symbol name {:?} looks qualified but has no container: return name {:?} with \
         container {:?}, or `file:{name}` will not be found",
        bad.name, name, container
    ))
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wit_core::{Symbol, SymbolKind};

    /// Returns `Repo.find` as a bare name, the mistake the shape check exists for.
    struct Qualified;

    impl LanguageAnalyzer for Qualified {
        fn id(&self) -> &str {
            "qualified"
        }
        fn extensions(&self) -> &[&str] {
            &["q"]
        }
        fn analyze(&self, _source: &str) -> Result<FileAnalysis, AnalyzeError> {
            let mut a = FileAnalysis::default();
            a.symbols.push(Symbol {
                name: "Repo.find".into(),
                kind: SymbolKind::Method,
                container: None,
                start_byte: 0,
                end_byte: 1,
                start_line: 0,
                end_line: 0,
                signature: Some("()".into()),
            });
            Ok(a)
        }
    }

    #[test]
    fn a_qualified_name_without_a_container_is_reported_once() {
        let health = std::sync::Arc::new(PluginHealth::default());
        let m = Monitored::new(Qualified, PathBuf::from("/p/libq.so"), health.clone());
        assert!(health.shape_warning().is_none());
        m.analyze("x").unwrap();
        let w = health.shape_warning().expect("reported");
        assert!(
            w.contains("\"Repo.find\"") && w.contains("container \"Repo\""),
            "{w}"
        );
        m.analyze("y").unwrap();
        assert_eq!(health.shape_warning().as_deref(), Some(w.as_str()));
        assert_eq!(health.failures(), 0, "a shape problem is not a failure");
    }
}
