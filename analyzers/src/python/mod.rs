//! Python (`.py`, `.pyi`).
//!
//! Decision: a `def` directly inside a class body is a `method` whose container is the
//! class, so `Class.method` addresses it like a TypeScript method and two classes' `save`
//! methods stay apart. Every other `def` (module level, nested in a function, nested in a
//! method) is a `function`, as the protocol notes say.

use crate::engine::{Grammar, Syntax, TreeSitterAnalyzer};

static GRAMMAR: Grammar = Grammar::new(
    "python",
    || tree_sitter_python::LANGUAGE.into(),
    &[
        include_str!("symbols.scm"),
        include_str!("calls.scm"),
        include_str!("locals.scm"),
    ],
);

static SYNTAX: Syntax = Syntax {
    return_separator: " -> ",
    contain_all_kinds: false,
    callable_variables: false,
    modules: Some(crate::engine::modules::python),
};

/// The analyzer for `.py` and `.pyi` files.
pub fn python() -> TreeSitterAnalyzer {
    TreeSitterAnalyzer::new("python", &["py", "pyi"], &GRAMMAR, &SYNTAX)
}

wit_core::inventory::submit! { wit_core::BuiltinAnalyzer::new(|| Box::new(python())) }
