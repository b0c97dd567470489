//! C# (`.cs`): classes, interfaces, structs, enums and records, methods, constructors and local functions; a nested type is `Outer.Inner`. Signatures read `(int qty, string sku): Order`.
//!
//! Declarative: the grammar crate plus `tags.scm` in this folder, nothing else (see
//! [`crate::declarative`] for the captures).

use crate::engine::{Grammar, Syntax, TreeSitterAnalyzer};

static GRAMMAR: Grammar = Grammar::new(
    "csharp",
    || tree_sitter_c_sharp::LANGUAGE.into(),
    &[include_str!("tags.scm")],
);

static SYNTAX: Syntax = Syntax {
    return_separator: ": ",
    modules: None,
    contain_all_kinds: true,
    callable_variables: false,
};

/// The analyzer for `.cs` files.
pub fn csharp() -> TreeSitterAnalyzer {
    TreeSitterAnalyzer::new("csharp", &["cs"], &GRAMMAR, &SYNTAX)
}

wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(csharp())) }
