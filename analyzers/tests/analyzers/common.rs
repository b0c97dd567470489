//! Helpers shared by the test modules.

use wit_core::{Analysis, Symbol};

/// Analyses `source` as the file `path`, with the analyzer the built-in registry routes
/// that path to.
pub fn analyze(path: &str, source: &str) -> Analysis {
    let registry = wit_analyzers::builtin_registry();
    let analyzer = registry
        .for_path(path)
        .unwrap_or_else(|| panic!("no analyzer for {path}"));
    analyzer
        .analyze_full(source)
        .unwrap_or_else(|e| panic!("analysing {path}: {e}"))
}

/// `(kind, qualified name)` of every symbol, in order.
pub fn outline(analysis: &Analysis) -> Vec<(&'static str, String)> {
    analysis
        .symbols
        .iter()
        .map(|s| (s.kind.as_str(), s.qualified_name()))
        .collect()
}

/// The symbol `name` addresses (bare, first wins; or `Class.method`).
pub fn symbol<'a>(analysis: &'a Analysis, name: &str) -> &'a Symbol {
    analysis
        .find(name)
        .unwrap_or_else(|| panic!("no symbol {name} in {:#?}", outline(analysis)))
}

/// The signature of the symbol `name` addresses.
pub fn signature<'a>(analysis: &'a Analysis, name: &str) -> &'a str {
    symbol(analysis, name)
        .signature
        .as_deref()
        .unwrap_or_else(|| panic!("{name} has no signature"))
}

/// The source text of the symbol `name` addresses.
pub fn text<'s>(analysis: &Analysis, source: &'s str, name: &str) -> &'s str {
    let s = symbol(analysis, name);
    &source[s.start_byte..s.end_byte]
}

/// Every call edge as `(caller, callee)`, in order.
pub fn edges(analysis: &Analysis) -> Vec<(&str, &str)> {
    analysis.edges().collect()
}

/// The callees of `caller` (a qualified name), in order.
pub fn callees<'a>(analysis: &'a Analysis, caller: &str) -> Vec<&'a str> {
    analysis
        .edges()
        .filter(|(c, _)| *c == caller)
        .map(|(_, callee)| callee)
        .collect()
}
