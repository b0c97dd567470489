//! Rust (`.rs`): functions, methods of `impl` and `trait` blocks (container: the type or trait; a type that is no path is named as written, `[u8].to_hex`, `(A, B).swap`), structs, enums, unions and type aliases (types; an associated type's container is its `impl`'s type or trait), traits (interfaces). Signatures: `<T>(&self, x: T) -> Result<T>`.
//!
//! Declarative: the grammar crate plus `tags.scm` in this folder, nothing else (see
//! [`crate::declarative`] for the captures).

use crate::engine::{Grammar, Syntax, TreeSitterAnalyzer};

static GRAMMAR: Grammar = Grammar::new(
    "rust",
    || tree_sitter_rust::LANGUAGE.into(),
    &[include_str!("tags.scm")],
);

static SYNTAX: Syntax = Syntax {
    return_separator: " -> ",
    modules: None,
    contain_all_kinds: false,
    callable_variables: false,
};

/// The analyzer for `.rs` files.
pub fn rust() -> TreeSitterAnalyzer {
    TreeSitterAnalyzer::new("rust", &["rs"], &GRAMMAR, &SYNTAX)
}

wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(rust())) }
