//! An analyzer written against the first published `wit-core` (0.1.0), unchanged: the
//! README's "Writing a language analyzer" example (`FileAnalysis::default()` and pushes) and
//! the Go example's `FileAnalysis { symbols, calls }` struct literal. Nothing here may be
//! edited to follow a newer SDK: if this crate stops compiling, an upgrade of wit-core broke
//! every team that followed the README (the loader test that builds it fails).
//!
//! The analyzer: extension `fsdk`; each line `fn NAME` defines NAME, each `call NAME` after
//! it is a call of NAME from the last function; files starting with `readme` give the
//! README's exact answer.

use wit_core::{AnalyzeError, CallEdge, FileAnalysis, LanguageAnalyzer, Symbol, SymbolKind};
use wit_core::signature::canonicalize;

pub struct MyLang;

impl LanguageAnalyzer for MyLang {
    fn id(&self) -> &str { "mylang" }                 // 1-64 of [A-Za-z0-9_-], unique
    fn extensions(&self) -> &[&str] { &["fsdk"] }      // without the dot
    fn analyze(&self, source: &str) -> Result<FileAnalysis, AnalyzeError> {
        if !source.starts_with("readme") {
            return Ok(lines(source));
        }
        // Parse once; push every definition and every call inside a named function.
        let mut out = FileAnalysis::default();
        out.symbols.push(Symbol {
            name: "save".into(),
            kind: SymbolKind::Function,      // function, arrow, method, class, interface, type
            container: None,                 // Some("Store") for a method of Store
            start_byte: 0, end_byte: 42,     // UTF-8 byte offsets into `source`, end exclusive
            start_line: 0, end_line: 3,      // zero-based
            signature: Some(canonicalize("(path string) error")), // callables only
        });
        out.calls.push(CallEdge { caller: "save".into(), callee: "validate".into() });
        Ok(out)
    }
}

/// The Go example's shape: vectors built up, then one struct literal.
fn lines(source: &str) -> FileAnalysis {
    let mut symbols = Vec::new();
    let mut calls = Vec::new();
    let mut offset = 0;
    let mut current: Option<String> = None;
    for (line_no, line) in source.split_inclusive('\n').enumerate() {
        let text = line.trim_end();
        if let Some(name) = text.strip_prefix("fn ") {
            symbols.push(Symbol {
                name: name.to_owned(),
                kind: SymbolKind::Function,
                container: None,
                start_byte: offset,
                end_byte: offset + text.len(),
                start_line: line_no,
                end_line: line_no,
                signature: Some(canonicalize("()")),
            });
            current = Some(name.to_owned());
        } else if let (Some(callee), Some(caller)) = (text.strip_prefix("call "), &current) {
            calls.push(CallEdge { caller: caller.clone(), callee: callee.to_owned() });
        }
        offset += line.len();
    }
    FileAnalysis { symbols, calls }
}

wit_core::export_analyzer!(MyLang);    // or export_analyzer!(MyLang::new()) for any expression
