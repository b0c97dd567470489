//! Languages without code: one analyzer ([`crate::TreeSitterAnalyzer`]) driven by a
//! tree-sitter grammar and query files.
//!
//! The built-in Java, Go, Rust and C# are this analyzer over a grammar crate and the
//! `tags.scm` in their folder (`src/java/`, …); a team adds any other language from
//! `wit.toml` with a grammar library and query files ([`load`]), no Rust. The queries use
//! tree-sitter's `tags.scm` vocabulary, so existing `tags.scm` files work as a start, plus
//! the few captures wit needs:
//!
//! | capture | meaning |
//! |---|---|
//! | `@definition.<kind>` + `@name` | a definition. function; method, constructor (method); class; interface, trait, protocol (interface); type, struct, enum, union, record, typedef, annotation (type). module, namespace, package, constant, variable, field, property, macro are known and ignored (not units agents lock or sign); any other kind is an error |
//! | `@reference.call` + `@name` | a call of `@name`; `@receiver` the object of a member call (`repo` in `repo.find()`) |
//! | `@container.body` + `@container.name` | a type's body: definitions inside take its name as container (methods only, or every kind where the language says so) |
//! | `@container` | a definition's container named by its own pattern (a Go receiver type) |
//! | `@container.extends`, `@container.base` | the class a `@container.body`'s type extends and the interfaces it implements: the analysis then reports its type bodies ([`wit_core::TypeBody`]) |
//! | `@typed.scope`, `@typed.local`/`@typed.field` + `@typed.name` (+ `@typed.type`) | scopes and declarations of variables that state their type: a call on one gets the receiver `new:Type` |
//! | `@arguments` | a call's argument list: the types its syntax shows ([`wit_core::CallSite::arguments`]), for overloads |
//! | `@callable` | the node whose fields `type_parameters`, `parameters`, `return_type` make the signature, and whose range owns the calls |
//! | `@signature.type_parameters`, `@signature.parameters`, `@signature.return` | the signature's pieces, when the grammar's fields have other names (a piece not captured still comes from `@callable`'s field); the parameters node's named children are the parameters |
//! | `@export` | the definition is exported (`pub`, `public`, a Go capital); a top-level one is an export of the file |
//! | `@import` + `@import.module` | an import of a module or path; `@import.name` one name imported from it, `@import.alias` the local name |
//! | `@doc`, `@reference.<other>`, `@local.*`, `@_…` | ignored (tags.scm's, or predicate helpers) |
//!
//! Text predicates (`#eq?`, `#match?`, `#any-of?`, their `not-` forms) apply; tags.scm's
//! `#strip!`/`#select-adjacent!` are accepted and ignored. Several patterns matching one
//! definition make one symbol, the most specific kind winning (method over function,
//! interface or class over type), `@export` from any of them.

use crate::engine::{Grammar, Syntax, TreeSitterAnalyzer};

pub use crate::engine::QueryFile;
pub use tree_sitter::Language;

/// A language as `wit.toml` describes it: its grammar and its query files.
pub struct LanguageSpec {
    /// The analyzer's id (`wit analyzers`, `analyzers.list`).
    pub id: String,
    /// File extensions, without the dot.
    pub extensions: Vec<String>,
    /// The grammar, loaded from its library.
    pub language: Language,
    /// The query files, in order (one query is compiled from all of them).
    pub queries: Vec<QueryFile>,
    /// Written between a signature's parameters and its return type (`": "`, `" -> "`).
    pub return_separator: String,
    /// Whether every definition inside a type body takes the type's name as container
    /// (Java and C#: `Outer.Inner`), or only methods do.
    pub contain_all_kinds: bool,
}

/// The grammar an entry function of a grammar library returns (`tree_sitter_lua`, as
/// `tree-sitter generate` writes it), if this tree-sitter can use it: a null grammar, or
/// one of another ABI version than this tree-sitter reads, is an error saying which.
///
/// # Safety
/// `entry` must be a function of a library that stays loaded for the rest of the process,
/// taking nothing and returning a `const TSLanguage *` or null (the grammar's own entry
/// point). What the library does beyond that is the trust the user granted it.
pub unsafe fn grammar_from_entry(
    entry: unsafe extern "C" fn() -> *const (),
) -> Result<Language, String> {
    // SAFETY: the caller vouches that `entry` is a grammar's entry function.
    if unsafe { entry() }.is_null() {
        return Err("the grammar function returned no grammar (null)".to_owned());
    }
    // SAFETY: as above; the pointer it returns is non-null and lives with the library.
    let language = Language::new(unsafe { tree_sitter_language::LanguageFn::from_raw(entry) });
    let version = language.abi_version();
    let readable = tree_sitter::MIN_COMPATIBLE_LANGUAGE_VERSION..=tree_sitter::LANGUAGE_VERSION;
    if !readable.contains(&version) {
        return Err(format!(
            "the grammar has ABI version {version}; this wit reads versions {} to {} (regenerate it with a tree-sitter CLI of that range)",
            readable.start(),
            readable.end()
        ));
    }
    Ok(language)
}

/// The analyzer for `spec`, its query compiled now: a query that does not compile (or
/// uses a capture wit does not know) is an error naming the file, line and column, and
/// the reason. The grammar, its query and the analyzer's names live for the rest of the
/// process, like the library the grammar came from (loaded once, never unloaded).
pub fn load(spec: LanguageSpec) -> Result<TreeSitterAnalyzer, String> {
    if spec.queries.is_empty() {
        return Err("no query files".to_owned());
    }
    let grammar: &'static Grammar = Grammar::leak_loaded(&spec.id, spec.language, spec.queries)?;
    let syntax: &'static Syntax = Box::leak(Box::new(Syntax {
        return_separator: Box::leak(spec.return_separator.into_boxed_str()),
        modules: None,
        contain_all_kinds: spec.contain_all_kinds,
        callable_variables: false,
    }));
    let extensions: Vec<&'static str> = spec
        .extensions
        .into_iter()
        .map(|e| &*Box::leak(e.into_boxed_str()))
        .collect();
    Ok(TreeSitterAnalyzer::new(
        Box::leak(spec.id.into_boxed_str()),
        Box::leak(extensions.into_boxed_slice()),
        grammar,
        syntax,
    ))
}
