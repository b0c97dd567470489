//! The one generic tree-sitter analyzer every built-in language is an instance of.
//!
//! A language is a [`Grammar`] (a tree-sitter language plus its query files, compiled once
//! per process) and a [`Syntax`] (the few rules queries cannot express). Analysing a file
//! is one parse ([`parse`]), one pass over the query's matches ([`extract`]) and one sweep
//! assigning calls to their callers ([`callers`]).
//!
//! The capture names a query file may use, and what the engine does with them:
//!
//! | capture                 | meaning                                                    |
//! |-------------------------|------------------------------------------------------------|
//! | `@definition.<kind>`    | a definition node; kind: function, arrow, method, class, interface, type |
//! | `@name`                 | the name of a definition, or the called name of a call     |
//! | `@callable`             | the function node of a callable definition: its fields `type_parameters`, `parameters` (or `parameter`) and `return_type` make the signature, and calls inside it are its calls |
//! | `@scope`                | the node owning a callable's calls, when not `@callable`  |
//! | `@wrapper` + `@wrapped` | the wrapper belongs to the wrapped definition, whose range widens to the wrapper's start (`export`, decorators); chains are followed |
//! | `@container.body` (+ `@container.name`) | a class body; a `method` inside it takes the class's name as container (no name: anonymous class) |
//! | `@reference.call`       | a call, with the called name in `@name`                    |
//! | `@_…`                   | ignored (helpers for predicates)                           |
//!
//! When several patterns match one definition (node and name), a `method` match wins.

mod callers;
mod extract;
mod incremental;
#[cfg(test)]
mod incremental_tests;
mod nesting;
mod parse;
mod query;

use std::sync::OnceLock;

use tree_sitter::Language;
use wit_core::{AnalyzeError, FileAnalysis, IncrementalState, LanguageAnalyzer};

use query::CompiledQuery;

/// A tree-sitter grammar with its query files, compiled on first use and then shared by
/// every thread for the life of the process.
pub(crate) struct Grammar {
    /// Identifies the grammar's per-thread parser.
    name: &'static str,
    language: fn() -> Language,
    /// Query files, concatenated into one query so that one pass over the tree finds
    /// definitions and calls alike.
    sources: &'static [&'static str],
    compiled: OnceLock<Result<CompiledQuery, String>>,
}

impl Grammar {
    /// A grammar whose query is compiled lazily from `sources`.
    pub(crate) const fn new(
        name: &'static str,
        language: fn() -> Language,
        sources: &'static [&'static str],
    ) -> Self {
        Self {
            name,
            language,
            sources,
            compiled: OnceLock::new(),
        }
    }

    /// The compiled query, or why it does not compile (a bug in a query file, which the
    /// tests catch; the daemon gets an error value instead of a panic).
    fn query(&self) -> Result<&CompiledQuery, AnalyzeError> {
        self.compiled
            .get_or_init(|| CompiledQuery::new(&(self.language)(), &self.sources.concat()))
            .as_ref()
            .map_err(|e| AnalyzeError::Failed(format!("{} query: {e}", self.name)))
    }
}

/// Per-language rules that tree-sitter queries cannot express.
pub(crate) struct Syntax {
    /// Written between the parameter list and the return type: `": "` or `" -> "`.
    pub(crate) return_separator: &'static str,
}

/// A [`LanguageAnalyzer`] driven by a tree-sitter grammar and its query files.
///
/// Cheap to construct and to share: the compiled query lives in a process-wide static and
/// each thread keeps its own parser.
pub struct TreeSitterAnalyzer {
    id: &'static str,
    extensions: &'static [&'static str],
    grammar: &'static Grammar,
    syntax: &'static Syntax,
}

impl TreeSitterAnalyzer {
    pub(crate) const fn new(
        id: &'static str,
        extensions: &'static [&'static str],
        grammar: &'static Grammar,
        syntax: &'static Syntax,
    ) -> Self {
        Self {
            id,
            extensions,
            grammar,
            syntax,
        }
    }
}

impl LanguageAnalyzer for TreeSitterAnalyzer {
    fn id(&self) -> &str {
        self.id
    }

    fn extensions(&self) -> &[&str] {
        self.extensions
    }

    fn analyze(&self, source: &str) -> Result<FileAnalysis, AnalyzeError> {
        self.analyze_incremental(source, &mut None)
    }

    /// Keeps the tree and per-declaration results: the next version of the file is
    /// reparsed incrementally and only the declarations the change touched are queried
    /// again (see `engine/incremental.rs`). Same result as [`Self::analyze`], always.
    fn analyze_incremental(
        &self,
        source: &str,
        state: &mut Option<IncrementalState>,
    ) -> Result<FileAnalysis, AnalyzeError> {
        let previous = state
            .take()
            .and_then(|s| s.downcast::<incremental::State>().ok())
            .filter(|s| s.grammar() == self.grammar.name)
            .map(|s| *s);
        if source.is_empty() {
            return Ok(FileAnalysis::default());
        }
        let query = self.grammar.query()?;
        let (analysis, next) =
            incremental::analyze(self.grammar, query, self.syntax, source, previous)?;
        *state = Some(Box::new(next));
        Ok(analysis)
    }
}
