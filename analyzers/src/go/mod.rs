//! Go (`.go`): functions, methods (container: the receiver type), types and interfaces. Signatures read as Go writes them: `(n int, rate float64) float64`.
//!
//! Declarative: the grammar crate plus `tags.scm` in this folder, nothing else (see
//! [`crate::declarative`] for the captures).

use crate::engine::{Grammar, Syntax, TreeSitterAnalyzer};

static GRAMMAR: Grammar = Grammar::new(
    "go",
    || tree_sitter_go::LANGUAGE.into(),
    &[include_str!("tags.scm")],
);

static SYNTAX: Syntax = Syntax {
    return_separator: " ",
    modules: None,
    contain_all_kinds: false,
    callable_variables: true,
};

/// The analyzer for `.go` files.
pub fn go() -> TreeSitterAnalyzer {
    TreeSitterAnalyzer::new("go", &["go"], &GRAMMAR, &SYNTAX)
}

wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(go())) }
