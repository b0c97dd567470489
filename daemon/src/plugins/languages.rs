//! Languages from `wit.toml` without code: each `[[languages]]` entry is a grammar library
//! and query files, made into the declarative analyzer (`wit_analyzers::declarative`).
//!
//! The grammar is a library like a plugin's, under the same gate: it loads only when the
//! repository is trusted, from the bytes the trust check hashed (never the path again), and
//! a library whose dependencies would not be pinned is refused. The query files are the
//! bytes trust read and compared with the grant. Each entry loads or fails on its own: a
//! missing grammar, a missing function, a grammar of another ABI version, an unreadable or
//! broken query file each become a [`PluginFailure`] naming the language and the reason
//! (a query error with its file, line and column), and the other analyzers still load.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wit_analyzers::declarative::{self, LanguageSpec, QueryFile};
use wit_core::{AnalyzerOrigin, Config, LanguageConfig, Registry};

use super::monitor::Monitored;
use super::{LoadError, PluginFailure, PluginHealth, open_library, trusted_library};
use crate::trust::{CheckedQuery, TrustCheck};

/// A `[[languages]]` entry that loaded.
#[derive(Debug, Clone)]
pub struct LoadedLanguage {
    /// The analyzer's id.
    pub id: String,
    /// The grammar library (as resolved from `wit.toml`).
    pub grammar: PathBuf,
    /// The query files, absolute, in order.
    pub queries: Vec<PathBuf>,
    /// The extensions routed to it.
    pub extensions: Vec<String>,
    /// Its run-time failures (as for plugins).
    pub health: Arc<PluginHealth>,
    /// Who else could replace the grammar library (group/other-writable).
    pub warnings: Vec<String>,
}

/// Loads every `[[languages]]` entry of `config` that `check` allows into `registry`
/// (after what it holds: a language with a built-in's id replaces that built-in).
pub fn load_into(
    registry: &mut Registry,
    root: &Path,
    config: &Config,
    check: &TrustCheck,
) -> (Vec<LoadedLanguage>, Vec<PluginFailure>) {
    let mut loaded = Vec::new();
    let mut failed = Vec::new();
    for (j, language) in config.languages.iter().enumerate() {
        // Libraries are checked plugins first, then grammars (`Config::libraries`).
        let checked = check.libraries.get(config.analyzers.len() + j);
        let grammar = checked.map_or_else(|| language.resolve_grammar(root), |c| c.path.clone());
        let queries = check.queries.get(j).map(Vec::as_slice).unwrap_or_default();
        let result = trusted_library(check, checked, &grammar).and_then(|(file, trusted)| {
            let analyzer = analyzer(language, open_library(file, trusted)?, queries)?;
            let health = Arc::new(PluginHealth::default());
            let monitored = Arc::new(Monitored::new(analyzer, grammar.clone(), health.clone()));
            registry.add(
                monitored,
                AnalyzerOrigin::Plugin(grammar.clone()),
                Some(language.extensions.clone()),
            )?;
            Ok(LoadedLanguage {
                id: language.id.clone(),
                grammar: grammar.clone(),
                queries: language.queries.iter().map(|q| root.join(q)).collect(),
                extensions: language.extensions.clone(),
                health,
                warnings: file.warnings().to_vec(),
            })
        });
        match result {
            Ok(language) => loaded.push(language),
            Err(error) => failed.push(PluginFailure {
                path: grammar,
                error,
                language: Some(language.id.clone()),
            }),
        }
    }
    (loaded, failed)
}

/// The analyzer of one entry, from its mapped grammar library and its query files' bytes.
fn analyzer(
    language: &LanguageConfig,
    library: &'static libloading::Library,
    queries: &[CheckedQuery],
) -> Result<wit_analyzers::TreeSitterAnalyzer, LoadError> {
    type GrammarFn = unsafe extern "C" fn() -> *const ();
    // SAFETY: the symbol is looked up by the name wit.toml gives for the grammar's entry
    // function, which `tree-sitter generate` declares as `const TSLanguage *f(void)`; the
    // library is never unloaded (`open_library` leaks it), so the pointer stays valid.
    let entry: GrammarFn = *unsafe { library.get::<GrammarFn>(language.symbol.as_bytes()) }
        .map_err(|_| LoadError::NoGrammarSymbol(language.symbol.clone()))?;
    // SAFETY: as above: a grammar's entry function of a library that stays loaded.
    let grammar = unsafe { declarative::grammar_from_entry(entry) }.map_err(LoadError::Grammar)?;
    let files = queries
        .iter()
        .map(|q| {
            let path = q.configured.clone();
            let bytes = q.bytes.as_ref().map_err(|e| LoadError::QueryFile {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            let text = String::from_utf8(bytes.clone()).map_err(|_| LoadError::QueryFile {
                path: path.clone(),
                reason: "not UTF-8".to_owned(),
            })?;
            Ok(QueryFile {
                name: path.display().to_string(),
                text,
            })
        })
        .collect::<Result<Vec<_>, LoadError>>()?;
    declarative::load(LanguageSpec {
        id: language.id.clone(),
        extensions: language.extensions.clone(),
        language: grammar,
        queries: files,
        return_separator: language.return_separator.clone(),
        contain_all_kinds: language.nested_types,
    })
    .map_err(LoadError::Query)
}
