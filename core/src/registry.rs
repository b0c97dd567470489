//! The analyzer registry: which analyzer handles which file.
//!
//! Built-in analyzers register at compile time with [`inventory`] through
//! [`BuiltinAnalyzer`]; plugins are added at run time with [`Registry::add`]. Both live in
//! one table, so the rest of wit never asks where an analyzer came from except to show it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analyzer::LanguageAnalyzer;

/// A compile-time registration of a built-in analyzer.
///
/// ```text
/// wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(MyAnalyzer::new())) }
/// ```
pub struct BuiltinAnalyzer {
    make: fn() -> Box<dyn LanguageAnalyzer>,
}

impl BuiltinAnalyzer {
    /// Registers a constructor; it runs once per [`Registry::with_builtins`].
    pub const fn new(make: fn() -> Box<dyn LanguageAnalyzer>) -> Self {
        Self { make }
    }
}

inventory::collect!(BuiltinAnalyzer);

/// Where an analyzer came from, for display (`wit analyzers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalyzerOrigin {
    /// Compiled into wit.
    Builtin,
    /// Loaded from a shared library at this path.
    Plugin(PathBuf),
}

/// Why an analyzer could not be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// Another analyzer already handles one of the extensions.
    #[error("extension .{extension} is already handled by analyzer {owner:?}")]
    ExtensionClaimed {
        /// The contested extension, without the dot.
        extension: String,
        /// The id of the analyzer that has it.
        owner: String,
    },
    /// An analyzer with the same id is already registered.
    #[error("an analyzer with id {0:?} is already registered")]
    DuplicateId(String),
    /// The analyzer declares no extension, so it could never be used.
    #[error("analyzer {0:?} declares no file extensions")]
    NoExtensions(String),
}

/// One registered analyzer with its origin and the extensions routed to it.
pub struct Registered {
    /// The analyzer itself.
    pub analyzer: Arc<dyn LanguageAnalyzer>,
    /// Where it came from.
    pub origin: AnalyzerOrigin,
    /// The extensions routed to it (its own, or the subset `wit.toml` chose).
    pub extensions: Vec<String>,
}

/// All analyzers known to a process, indexed by file extension.
#[derive(Default)]
pub struct Registry {
    entries: Vec<Registered>,
    by_extension: HashMap<String, usize>,
    replaced: Vec<String>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry holding every built-in analyzer linked into this binary.
    ///
    /// # Panics
    /// If two built-ins claim one extension: that is a bug in wit, caught by its tests.
    pub fn with_builtins() -> Self {
        let mut reg = Self::new();
        let mut builtins: Vec<Box<dyn LanguageAnalyzer>> = inventory::iter::<BuiltinAnalyzer>()
            .map(|b| (b.make)())
            .collect();
        // inventory's order depends on link order; sort so listings are stable.
        builtins.sort_by(|a, b| a.id().cmp(b.id()));
        for analyzer in builtins {
            let id = analyzer.id().to_owned();
            if let Err(e) = reg.add(Arc::from(analyzer), AnalyzerOrigin::Builtin, None) {
                panic!("built-in analyzer {id}: {e}");
            }
        }
        reg
    }

    /// Adds an analyzer. `extensions` restricts it to a subset of (or replaces) its own
    /// extensions; `None` routes all of its own. Nothing is added on error.
    ///
    /// A plugin with the id of a built-in *replaces* that built-in (a team's own build of
    /// the language: the Go example plugin over the built-in `go`); the built-in's
    /// extensions are free for it, and [`Registry::replaced`] lists it. Any other clash of
    /// ids or extensions is refused: a plugin never takes another language's files.
    pub fn add(
        &mut self,
        analyzer: Arc<dyn LanguageAnalyzer>,
        origin: AnalyzerOrigin,
        extensions: Option<Vec<String>>,
    ) -> Result<(), RegistryError> {
        let id = analyzer.id().to_owned();
        let replaces = match self.entries.iter().position(|e| e.analyzer.id() == id) {
            Some(i)
                if origin != AnalyzerOrigin::Builtin
                    && self.entries[i].origin == AnalyzerOrigin::Builtin =>
            {
                Some(i)
            }
            Some(_) => return Err(RegistryError::DuplicateId(id)),
            None => None,
        };
        let exts: Vec<String> = match extensions {
            Some(list) => list
                .into_iter()
                .map(|e| e.trim_start_matches('.').to_owned())
                .collect(),
            None => analyzer
                .extensions()
                .iter()
                .map(|e| (*e).to_owned())
                .collect(),
        };
        if exts.is_empty() {
            return Err(RegistryError::NoExtensions(id));
        }
        for ext in &exts {
            if let Some(&owner) = self.by_extension.get(ext)
                && Some(owner) != replaces
            {
                return Err(RegistryError::ExtensionClaimed {
                    extension: ext.clone(),
                    owner: self.entries[owner].analyzer.id().to_owned(),
                });
            }
        }
        if let Some(i) = replaces {
            let old = self.entries.remove(i);
            self.replaced.push(old.analyzer.id().to_owned());
            self.by_extension = HashMap::new();
            for (index, e) in self.entries.iter().enumerate() {
                for ext in &e.extensions {
                    self.by_extension.insert(ext.clone(), index);
                }
            }
        }
        let index = self.entries.len();
        for ext in &exts {
            self.by_extension.insert(ext.clone(), index);
        }
        self.entries.push(Registered {
            analyzer,
            origin,
            extensions: exts,
        });
        Ok(())
    }

    /// The analyzer for `path`, chosen by its extension (case-sensitive, as file systems are).
    pub fn for_path(&self, path: impl AsRef<Path>) -> Option<&Arc<dyn LanguageAnalyzer>> {
        let ext = path.as_ref().extension()?.to_str()?;
        self.for_extension(ext)
    }

    /// The analyzer for an extension given without the dot.
    pub fn for_extension(&self, ext: &str) -> Option<&Arc<dyn LanguageAnalyzer>> {
        self.by_extension
            .get(ext)
            .map(|&i| &self.entries[i].analyzer)
    }

    /// Every registered analyzer, built-ins first (sorted by id), then plugins in load order.
    pub fn entries(&self) -> &[Registered] {
        &self.entries
    }

    /// The ids of built-ins that a plugin of the same id replaced, in order.
    pub fn replaced(&self) -> &[String] {
        &self.replaced
    }

    /// Every routed extension, sorted.
    pub fn extensions(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.by_extension.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnalyzeError, FileAnalysis};

    struct Fake(&'static str, &'static [&'static str]);
    impl LanguageAnalyzer for Fake {
        fn id(&self) -> &str {
            self.0
        }
        fn extensions(&self) -> &[&str] {
            self.1
        }
        fn analyze(&self, _: &str) -> Result<FileAnalysis, AnalyzeError> {
            Ok(FileAnalysis::default())
        }
    }

    #[test]
    fn routes_by_extension_and_refuses_claimed_extensions() {
        let mut r = Registry::new();
        r.add(
            Arc::new(Fake("a", &["x", "y"])),
            AnalyzerOrigin::Builtin,
            None,
        )
        .unwrap();
        assert_eq!(r.for_path("src/f.y").unwrap().id(), "a");
        assert!(r.for_path("src/f.z").is_none());
        assert!(r.for_path("Makefile").is_none());
        let err = r
            .add(
                Arc::new(Fake("b", &["z", "y"])),
                AnalyzerOrigin::Builtin,
                None,
            )
            .unwrap_err();
        assert_eq!(
            err,
            RegistryError::ExtensionClaimed {
                extension: "y".into(),
                owner: "a".into()
            }
        );
        // Nothing of the refused analyzer was routed.
        assert!(r.for_path("f.z").is_none());
        r.add(
            Arc::new(Fake("b", &["z", "y"])),
            AnalyzerOrigin::Plugin("b.so".into()),
            Some(vec![".z".into()]),
        )
        .unwrap();
        assert_eq!(r.for_path("f.z").unwrap().id(), "b");
        assert_eq!(r.extensions(), vec!["x", "y", "z"]);
    }
}
