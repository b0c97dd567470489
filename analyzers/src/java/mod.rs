//! Java (`.java`): classes, interfaces, enums and records, methods, constructors and annotation elements (methods); a nested type is `Outer.Inner`. Signatures read `(int qty, String sku): Order` (the return type after the parameters, as in the other languages).
//!
//! Declarative: the grammar crate plus `tags.scm` in this folder, nothing else (see
//! [`crate::declarative`] for the captures).

use crate::engine::{Grammar, Syntax, TreeSitterAnalyzer};

static GRAMMAR: Grammar = Grammar::new(
    "java",
    || tree_sitter_java::LANGUAGE.into(),
    &[include_str!("tags.scm")],
);

static SYNTAX: Syntax = Syntax {
    return_separator: ": ",
    modules: None,
    contain_all_kinds: true,
    callable_variables: false,
};

/// The analyzer for `.java` files.
pub fn java() -> TreeSitterAnalyzer {
    TreeSitterAnalyzer::new("java", &["java"], &GRAMMAR, &SYNTAX)
}

wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(java())) }
