//! Accuracy on real code (issue 24): for each declarative language, wit's definitions on
//! a real open-source project compared with an independent oracle — Universal Ctags for
//! Java (Gson), Go (pflag) and C# (FluentValidation), vendored under `testdata/real/`;
//! `syn` for Rust (the registry sources of `toml_edit`, a dependency of the workspace).
//! Each test prints its report (run with `-- --nocapture` to see them all;
//! `WIT_ORACLE_VERBOSE=1` lists every miss and extra) and asserts recall and precision
//! of definitions, keyed by file, name, container and kind class, of at least 98 %.
//!
//! Within-file call edges are scored for Rust only, against syn. ctags records
//! definitions, not references, so for Java, Go and C# the only oracle would be a
//! hand-written scanner of `name(` inside method bodies: a second parser, with its own
//! view of lambdas, anonymous classes and conversions, whose disagreements with wit would
//! measure the scanner as much as wit.

mod ctags;
mod rust_syn;
mod score;
mod sources;
mod wit;

use score::{Exclusions, Report, compare_defs, compare_edges};

/// Definition recall and precision each language must reach (the target).
const DEFINITIONS_TARGET: f64 = 0.98;

/// Rust call-edge recall and precision. Measured: 1.0000 and 1.0000 (2,269 of 2,269
/// edges on `toml_edit`; before the fix of `impl` blocks for references and primitives in
/// `rust/tags.scm` they were 0.9846 and 0.9872). 0.99 leaves room for about twenty edges
/// of drift when a grammar or syn is upgraded, and no more: a real regression in how
/// calls or callers are found moves hundreds.
const CALL_EDGES_TARGET: f64 = 0.99;

/// Compares wit with ctags on the vendored sample `dir` (files ending in `.ext`).
fn against_ctags(dir: &str, ext: &str, language: &str) {
    let root = sources::real_root(dir);
    let files = sources::real_files(dir, ext).unwrap_or_else(|e| panic!("{e}"));
    let tags = ctags::run(&root, language).unwrap_or_else(|e| panic!("{e}"));
    let mut ex = Exclusions::default();
    let oracle = ctags::definitions(language, &tags, &mut ex);
    let analyses = wit::analyze(&files);
    let found = ctags::comparable(wit::definitions(&files, &analyses), &tags, &files, &mut ex);

    let cmp = compare_defs(&oracle, &found);
    let mut report = Report::new(language, "Universal Ctags", files.len());
    report.defs(&cmp, &oracle, &found, DEFINITIONS_TARGET);
    report.exclusions(&ex);
    let text = report.print();
    assert!(
        cmp.meets(DEFINITIONS_TARGET),
        "{language} definitions below {DEFINITIONS_TARGET}:\n{text}"
    );
}

#[test]
fn java_definitions_match_ctags_on_gson() {
    against_ctags("java", "java", "Java");
}

#[test]
fn go_definitions_match_ctags_on_pflag() {
    against_ctags("go", "go", "Go");
}

#[test]
fn csharp_definitions_match_ctags_on_fluentvalidation() {
    against_ctags("csharp", "cs", "C#");
}

#[test]
fn rust_definitions_and_calls_match_syn_on_toml_edit() {
    let (_, files) = sources::rust_files().unwrap_or_else(|e| panic!("{e}"));
    let (oracle_defs, oracle_edges) = rust_syn::oracle(&files).unwrap_or_else(|e| panic!("{e}"));
    let analyses = wit::analyze(&files);
    let found_defs = wit::definitions(&files, &analyses);
    let found_edges = wit::edges(&files, &analyses);

    let defs = compare_defs(&oracle_defs, &found_defs);
    let edges = compare_edges(&oracle_edges, &found_edges);
    let mut report = Report::new("Rust", "syn", files.len());
    report.defs(&defs, &oracle_defs, &found_defs, DEFINITIONS_TARGET);
    report.edges(&edges, CALL_EDGES_TARGET);
    let text = report.print();
    assert!(
        defs.meets(DEFINITIONS_TARGET),
        "Rust definitions below {DEFINITIONS_TARGET}:\n{text}"
    );
    assert!(
        edges.meets(CALL_EDGES_TARGET),
        "Rust call edges below {CALL_EDGES_TARGET}:\n{text}"
    );
}
