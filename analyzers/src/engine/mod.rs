//! The one generic tree-sitter analyzer every built-in language is an instance of.
//!
//! A language is a [`Grammar`] (a tree-sitter language plus its query files, compiled once
//! per process) and a [`Syntax`] (the few rules queries cannot express). Analysing a file
//! is one parse ([`parse`]), one pass over the query's matches ([`extract`]), the scoping
//! of receivers that name locals ([`locals`], and [`typed`] where declarations state
//! types) and one sweep assigning calls to their callers ([`callers`]).
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
//! | `@container.extends`, `@container.base` | the class a `@container.body`'s type extends, the interfaces it implements: the analysis reports its type bodies ([`wit_core::TypeBody`]) |
//! | `@reference.call`       | a call, with the called name in `@name`; `@arguments` its argument list (see `typed.rs`) |
//! | `@receiver`             | the object of a member call (kept as the call site's receiver when it is a name, a chain of names, `this`/`self`/`super`, or `new Name(…)`) |
//! | `@qualifier`            | the object a definition is a property of: it becomes the container (`res.status`); `exports`/`module.exports` give none; `Foo.prototype` gives `Foo` and kind method |
//! | `@bind.scope`           | a scope: a function (its `parameters`/`parameter` field binds in it), a block (`statement_block`, `switch_body`), a Python class body (`block`) |
//! | `@bind`, `@bind.var`, `@bind.assign`, `@bind.global` | a node declaring names (a declaration, assignment, loop, import…; `var` binds in its function), an assignment that declares nothing, a `global`/`nonlocal` statement: with `@bind.scope`, they turn a receiver naming a local of evident class into `new:Class`, and one naming a local of unknown class into `""` (see `locals.rs`) |
//! | `@typed.scope`, `@typed.local`, `@typed.field`, `@typed.name`, `@typed.type` | variables whose declaration states their type (Java, Go): see `typed.rs` |
//! | `@reference.member` (`.write`) with `@receiver` and `@name` | a read (a write) of a member on a receiver, scoped as a call's receiver; the one that is a call's callee is the call ([`wit_core::MemberAccess`]) |
//! | `@member` + `@member.name` (+ `@member.type`, `@member.container`) | a field or property of a type: the innermost `@container.body`'s, or the named container's ([`wit_core::Member`]; TypeScript's and Python's are read in `members.rs`) |
//! | `@_…`                   | ignored (helpers for predicates)                           |
//!
//! When several patterns match one definition (node and name), a `method` match wins.

mod budget;
mod call;
mod callers;
mod evident;
mod extract;
mod fields;
mod incremental;
#[cfg(test)]
mod incremental_tests;
mod locals;
mod members;
pub(crate) mod modules;
mod nesting;
mod parse;
pub(crate) mod query;
mod roots;
mod typed;

use std::sync::OnceLock;

use tree_sitter::Language;
use wit_core::{Analysis, AnalyzeError, FileAnalysis, IncrementalState, LanguageAnalyzer};

use query::CompiledQuery;

/// Where a grammar's tree-sitter language comes from.
enum LanguageSource {
    /// A grammar crate linked into wit.
    Linked(fn() -> Language),
    /// A grammar library loaded at run time (wit.toml); it stays loaded for the process.
    Loaded(Language),
}

/// A grammar's query files: built-in ones embedded at compile time, or files read at run
/// time (named, so that an error points into the right file).
enum Sources {
    Embedded(&'static [&'static str]),
    Files(Vec<QueryFile>),
}

/// One query file of a language: its name (a path, for errors) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryFile {
    /// How errors name the file (the path as wit.toml gave it, or `tags.scm`).
    pub name: String,
    /// The query source.
    pub text: String,
}

/// A tree-sitter grammar with its query files, compiled on first use and then shared by
/// every thread for the life of the process.
///
/// Grammars are compared by address (parsers and incremental state are per grammar), so
/// each lives in a `static` or is leaked once at load: a loaded grammar's library is never
/// unloaded either.
pub(crate) struct Grammar {
    /// Names the grammar in errors.
    name: &'static str,
    language: LanguageSource,
    /// Query files, concatenated into one query so that one pass over the tree finds
    /// definitions and calls alike.
    sources: Sources,
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
            language: LanguageSource::Linked(language),
            sources: Sources::Embedded(sources),
            compiled: OnceLock::new(),
        }
    }

    /// A grammar loaded at run time, its query compiled now (so that a broken query file
    /// is reported when the language is loaded, with its file, line and reason), and leaked
    /// for the process's lifetime.
    pub(crate) fn leak_loaded(
        name: &str,
        language: Language,
        files: Vec<QueryFile>,
    ) -> Result<&'static Grammar, String> {
        let grammar: &'static Grammar = Box::leak(Box::new(Grammar {
            name: Box::leak(name.to_owned().into_boxed_str()),
            language: LanguageSource::Loaded(language),
            sources: Sources::Files(files),
            compiled: OnceLock::new(),
        }));
        grammar.query().map_err(|e| e.to_string())?;
        Ok(grammar)
    }

    /// The grammar's tree-sitter language.
    pub(crate) fn language(&self) -> Language {
        match &self.language {
            LanguageSource::Linked(f) => f(),
            LanguageSource::Loaded(l) => l.clone(),
        }
    }

    /// Identity of the grammar (its address: see the type's docs).
    pub(crate) fn key(&'static self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// The compiled query, or why it does not compile (a bug in a query file, which the
    /// tests catch for the built-ins and the loader reports for wit.toml languages; the
    /// daemon gets an error value instead of a panic).
    fn query(&self) -> Result<&CompiledQuery, AnalyzeError> {
        self.compiled
            .get_or_init(|| {
                let language = self.language();
                match &self.sources {
                    Sources::Embedded(texts) => {
                        let files: Vec<(&str, &str)> =
                            texts.iter().map(|t| (self.name, *t)).collect();
                        CompiledQuery::new(&language, &files)
                    }
                    Sources::Files(files) => {
                        let files: Vec<(&str, &str)> = files
                            .iter()
                            .map(|f| (f.name.as_str(), f.text.as_str()))
                            .collect();
                        CompiledQuery::new(&language, &files)
                    }
                }
            })
            .as_ref()
            .map_err(|e| AnalyzeError::Failed(format!("{} query: {e}", self.name)))
    }
}

/// Per-language rules that tree-sitter queries cannot express.
pub(crate) struct Syntax {
    /// Written between the parameter list and the return type: `": "` or `" -> "`.
    pub(crate) return_separator: &'static str,
    /// Reads the imports and exports of one top-level node of the tree (see
    /// [`modules`]); `None` for a language without them, or whose queries capture them
    /// (`@import`, `@export`).
    pub(crate) modules: Option<modules::ModulesFn>,
    /// Whether types inside a `@container.body` take the container's name too (a Java
    /// nested class is `Outer.Inner`), not only methods (TypeScript, Python).
    pub(crate) contain_all_kinds: bool,
    /// Whether a variable can be called (`h(c)` with `h` a local of function type: Go),
    /// so that a plain call of a name a local declares is no call of the package's
    /// function of that name. Java keeps methods and variables apart.
    pub(crate) callable_variables: bool,
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

impl TreeSitterAnalyzer {
    /// Tree-sitter's bare parse of `source` with this analyzer's grammar (the same
    /// per-thread parser and time budget as an analysis), and nothing else: the floor
    /// under any analysis, for benchmarks (`wit-bench` sets it beside the daemon's index
    /// build). Returns the tree's node count, so that the parse cannot be optimised away.
    #[doc(hidden)]
    pub fn parse_only(&self, source: &str) -> Result<usize, AnalyzeError> {
        let budget = budget::Budget::new(budget::ANALYSIS_TIME_LIMIT);
        let tree = parse::parse(self.grammar, source, None, &budget)?;
        Ok(tree.root_node().descendant_count())
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
        self.analyze_full(source).map(Into::into)
    }

    /// One analysis with nothing kept for the next version (see
    /// [`incremental::analyze_once`]); the same result as [`Self::analyze_incremental`].
    fn analyze_full(&self, source: &str) -> Result<Analysis, AnalyzeError> {
        if source.is_empty() {
            return Ok(Analysis::default());
        }
        let query = self.grammar.query()?;
        let budget = budget::Budget::new(budget::ANALYSIS_TIME_LIMIT);
        incremental::analyze_once(self.grammar, query, self.syntax, source, &budget)
    }

    /// Keeps the tree and per-declaration results: the next version of the file is
    /// reparsed incrementally and only the declarations the change touched are queried
    /// again (see `engine/incremental.rs`). Same result as [`Self::analyze`], always.
    fn analyze_incremental(
        &self,
        source: &str,
        state: &mut Option<IncrementalState>,
    ) -> Result<Analysis, AnalyzeError> {
        let previous = state
            .take()
            .and_then(|s| s.downcast::<incremental::State>().ok())
            .filter(|s| s.grammar() == self.grammar.key())
            .map(|s| *s);
        if source.is_empty() {
            return Ok(Analysis::default());
        }
        let query = self.grammar.query()?;
        let budget = budget::Budget::new(budget::ANALYSIS_TIME_LIMIT);
        let (analysis, next) =
            incremental::analyze(self.grammar, query, self.syntax, source, previous, &budget)?;
        *state = Some(Box::new(next));
        Ok(analysis)
    }
}

#[cfg(test)]
mod tests {
    //! Item 6 of the security issue: no single file can stall an analysis thread.

    use std::time::Duration;

    use wit_core::LanguageAnalyzer;

    use super::budget::{Budget, MAX_NESTING_DEPTH};
    use super::{extract, parse};
    use crate::{fixtures, python, typescript};

    /// `class A { m() { return class { m() { return … } } } }`, `depth` classes deep.
    fn nested_classes(depth: usize) -> String {
        let mut s = String::from("class A { m() { return ");
        for _ in 0..depth {
            s.push_str("class { m() { return ");
        }
        s.push('1');
        for _ in 0..depth {
            s.push_str(" } }");
        }
        s.push_str(" } }\n");
        s
    }

    #[test]
    fn item6_class_expressions_nested_ten_thousand_deep_are_refused_not_analysed_for_minutes() {
        let err = typescript::typescript()
            .analyze(&nested_classes(10_000))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("nesting deeper than {MAX_NESTING_DEPTH} levels")),
            "{err}"
        );
        // So is the 2,000-deep one (88 KB of valid TypeScript that took 7 s).
        assert!(
            typescript::typescript()
                .analyze(&nested_classes(2_000))
                .is_err()
        );
    }

    #[test]
    fn item6_deep_python_nesting_is_refused() {
        // A `def` is a root of the queries' patterns: each level counts.
        let depth = MAX_NESTING_DEPTH + 100;
        let mut s = String::new();
        for i in 0..depth {
            s.push_str(&" ".repeat(i));
            s.push_str(&format!("def f{i}():\n"));
        }
        s.push_str(&" ".repeat(depth));
        s.push_str("pass\n");
        let err = python::python().analyze(&s).unwrap_err().to_string();
        assert!(err.contains("nesting deeper than"), "{err}");
    }

    /// Issue 32: the cap counts the nesting the queries pay for (the kinds their patterns
    /// start at), not every syntax level, so a 10,000-term concatenation (the JDK's
    /// `LocaleISOData.java` was refused) or `else if` ladder is analysed in full, while
    /// 10,000 nested calls or classes are still refused at once. Each file is analysed
    /// on a thread with the stack of the daemon's blocking pool (2 MiB): nothing recurses
    /// over the depth. `cargo bench -p wit-analyzers -- deep` times the same files.
    #[test]
    fn ten_thousand_levels_of_ordinary_nesting_are_analysed_and_of_costly_nesting_refused() {
        use fixtures::Deep;
        let registry = crate::builtin_registry();
        for shape in Deep::ALL {
            let source = fixtures::deep(shape, 10_000);
            let path = format!("deep.{}", shape.extension());
            let analyzer = registry.for_path(&path).expect("a built-in");
            let result = std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .stack_size(2 << 20)
                    .spawn_scoped(scope, || analyzer.analyze(&source))
                    .expect("a thread")
                    .join()
                    .expect("no panic, no overflow")
            });
            if shape.ordinary() {
                let analysis = result.unwrap_or_else(|e| panic!("{shape:?}: {e}"));
                assert!(
                    analysis
                        .calls
                        .iter()
                        .any(|c| c.caller.ends_with("probe") && c.callee == "g"),
                    "{shape:?}: {:?}",
                    analysis.calls
                );
            } else {
                let err = result
                    .expect_err(&format!("{shape:?} is refused"))
                    .to_string();
                assert!(
                    err.contains(&format!("nesting deeper than {MAX_NESTING_DEPTH} levels")),
                    "{shape:?}: {err}"
                );
            }
        }
    }

    #[test]
    fn item6_nesting_below_the_cap_is_analysed_in_full() {
        let analysis = typescript::typescript()
            .analyze(&nested_classes(60))
            .unwrap();
        // A.m and the 60 anonymous classes' m, plus the class A.
        assert_eq!(analysis.symbols.len(), 62);
        let generated = fixtures::generate_typescript(20);
        assert!(typescript::typescript().analyze(&generated).is_ok());
    }

    #[test]
    fn item6_an_exhausted_budget_stops_the_parse_with_an_error() {
        let source = fixtures::generate_typescript(50);
        let grammar = typescript::typescript().grammar;
        let err = parse::parse(grammar, &source, None, &Budget::new(Duration::ZERO))
            .unwrap_err()
            .to_string();
        assert!(err.contains("while parsing"), "{err}");
        // The parser stays usable after the cancelled parse.
        let budget = Budget::new(Duration::from_secs(3600));
        assert!(parse::parse(grammar, &source, None, &budget).is_ok());
    }

    #[test]
    fn item6_an_exhausted_budget_stops_the_queries_with_an_error() {
        let analyzer = typescript::typescript();
        let source = fixtures::generate_typescript(50);
        let generous = Budget::new(Duration::from_secs(3600));
        let tree = parse::parse(analyzer.grammar, &source, None, &generous).unwrap();
        let query = analyzer.grammar.query().unwrap();
        let expired = Budget::new(Duration::ZERO);
        let result = extract::extract(query, analyzer.syntax, tree.root_node(), &source, &expired);
        let err = result.err().expect("stopped").to_string();
        assert!(err.contains("while running the queries"), "{err}");
        // And the whole analysis, between declarations or inside one.
        let err = super::incremental::analyze(
            analyzer.grammar,
            query,
            analyzer.syntax,
            &source,
            None,
            &expired,
        )
        .err()
        .expect("stopped")
        .to_string();
        assert!(err.contains("gave up"), "{err}");
    }
}
