//! TypeScript, TSX and JavaScript: three analyzers over two grammars and one set of queries.
//!
//! - `typescript` (`.ts`, `.mts`, `.cts`): the TypeScript grammar. It must not parse JSX:
//!   in a `.ts` file `<T>x` is a type assertion, which the TSX grammar would read as a tag.
//! - `tsx` (`.tsx`, `.jsx`): the TSX grammar, so JSX parses.
//! - `javascript` (`.js`, `.mjs`, `.cjs`): also the TSX grammar. JavaScript is (nearly) a
//!   subset of TypeScript, JSX is common in plain `.js` files (React projects), and the
//!   `<T>x` assertion that TSX gives up is not JavaScript anyway. One grammar serving both
//!   also means one compiled query and one per-thread parser fewer than a third grammar
//!   (tree-sitter-javascript) would cost, with the same node names, so the same queries.

use crate::engine::{Grammar, Syntax, TreeSitterAnalyzer};

const QUERIES: &[&str] = &[
    include_str!("symbols.scm"),
    include_str!("calls.scm"),
    include_str!("locals.scm"),
];

static TYPESCRIPT_GRAMMAR: Grammar = Grammar::new(
    "typescript",
    || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    QUERIES,
);

static TSX_GRAMMAR: Grammar = Grammar::new(
    "tsx",
    || tree_sitter_typescript::LANGUAGE_TSX.into(),
    QUERIES,
);

static SYNTAX: Syntax = Syntax {
    // The return annotation node holds `: T`; the colon is re-added in canonical spacing.
    return_separator: ": ",
    contain_all_kinds: false,
    callable_variables: false,
    modules: Some(crate::engine::modules::typescript),
};

/// The analyzer for `.ts`, `.mts` and `.cts` files.
pub fn typescript() -> TreeSitterAnalyzer {
    TreeSitterAnalyzer::new(
        "typescript",
        &["ts", "mts", "cts"],
        &TYPESCRIPT_GRAMMAR,
        &SYNTAX,
    )
}

/// The analyzer for `.tsx` and `.jsx` files (TSX grammar, so JSX parses).
pub fn tsx() -> TreeSitterAnalyzer {
    TreeSitterAnalyzer::new("tsx", &["tsx", "jsx"], &TSX_GRAMMAR, &SYNTAX)
}

/// The analyzer for `.js`, `.mjs` and `.cjs` files (TSX grammar: see the module docs).
pub fn javascript() -> TreeSitterAnalyzer {
    TreeSitterAnalyzer::new("javascript", &["js", "mjs", "cjs"], &TSX_GRAMMAR, &SYNTAX)
}

wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(typescript())) }
wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(tsx())) }
wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(javascript())) }
