//! wit's side of the comparison: each file analysed by the built-in analyzer for its
//! extension, exactly as the daemon would, turned into [`Def`]s and [`Edge`]s.

use std::collections::BTreeSet;

use wit_core::Analysis;

use crate::score::{Def, Edge};
use crate::sources::SourceFile;

/// wit's analysis of every file, in order.
pub fn analyze(files: &[SourceFile]) -> Vec<Analysis> {
    let registry = wit_analyzers::builtin_registry();
    files
        .iter()
        .map(|f| {
            let analyzer = registry
                .for_path(&f.rel)
                .unwrap_or_else(|| panic!("no built-in analyzer for {}", f.rel));
            analyzer
                .analyze_full(&f.text)
                .unwrap_or_else(|e| panic!("analysing {}: {e}", f.rel))
        })
        .collect()
}

/// The definitions of every file: its symbols, keyed by wit's kind (`function`,
/// `method`, `class`, `interface`, `type`) and container.
pub fn definitions(files: &[SourceFile], analyses: &[Analysis]) -> Vec<Def> {
    files
        .iter()
        .zip(analyses)
        .flat_map(|(f, a)| {
            a.symbols.iter().map(|s| Def {
                file: f.rel.clone(),
                name: s.name.clone(),
                container: s.container.clone(),
                kind: s.kind.as_str().to_owned(),
                line: s.start_line + 1,
                end_line: s.end_line + 1,
            })
        })
        .collect()
}

/// The within-file call edges of every file: (caller's qualified name, callee).
pub fn edges(files: &[SourceFile], analyses: &[Analysis]) -> BTreeSet<Edge> {
    files
        .iter()
        .zip(analyses)
        .flat_map(|(f, a)| {
            a.edges().map(|(caller, callee)| Edge {
                file: f.rel.clone(),
                caller: caller.to_owned(),
                callee: callee.to_owned(),
            })
        })
        .collect()
}
