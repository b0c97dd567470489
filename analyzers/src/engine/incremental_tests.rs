//! Incremental analysis gives exactly what a fresh one gives: over every fixture, chains
//! of random edits (insertions, deletions, renames in the middle, appends, prepends,
//! duplications, unbalanced braces), each version analysed incrementally from the last is
//! compared with a fresh analysis and with the whole-tree query pass (no chunks at all).

use wit_core::{Analysis, LanguageAnalyzer};

use super::budget::{self, Budget};
use super::{TreeSitterAnalyzer, callers, extract, parse};
use crate::{csharp, fixtures, go, java, python, rust, typescript};

/// A tiny deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TS_SNIPPETS: &[&str] = &[
    "function zz(a: number): string { return q(a); }\n",
    "export const yy = (b: string) => b.trim();\n",
    "class K { m(x: number) { this.n(x); } n(y: number) {} }\n",
    "{",
    "}",
    "(",
    "\n",
    "  ",
    "é",
    "// comment\n",
    "/* block */",
    "@dec\n",
    "interface I { a: number }\n",
    "type T = string | number;\n",
    "foo();",
    "async function* gen() { yield await w(); }\n",
    "<div onClick={() => h()}>x</div>",
    // Declarations of evident class, their uses and what shadows them (engine/locals.rs).
    "const app = new App();\n",
    "function ff() { app.run(); }\n",
    "let app: Ctx<T> = x;\n",
    "function gg(app) { app = y; app.stop(); }\n",
    "x",
];

const PY_SNIPPETS: &[&str] = &[
    "def zz(a: int) -> str:\n    return q(a)\n",
    "class K:\n    def m(self, x):\n        self.n(x)\n",
    "    ",
    "\n",
    ":",
    "(",
    ")",
    "@dec\n",
    "é",
    "# comment\n",
    "async def co(x):\n    await w(x)\n",
    "pass\n",
    // Declarations of evident class, their uses and what shadows them (engine/locals.rs).
    "app = Flask(__name__)\n",
    "def hh():\n    app.route()\n",
    "def ii(app: App):\n    global app\n    app.run()\n",
    "x",
];

/// Pieces of the declarative languages' syntax (shared: a snippet of another language is
/// just more broken input, which is what the property is about).
const DECLARATIVE_SNIPPETS: &[&str] = &[
    "func zz(a int) string { return q(a) }\n",
    "func (s *S) M(x int) { s.n(x) }\n",
    "public int zz(int a) { return q(a); }\n",
    "class K { void m() { n(); } }\n",
    "fn zz(a: u32) -> u32 { q(a) }\n",
    "impl K { fn m(&self) { self.n(); } }\n",
    "interface I { void a(); }\n",
    "{",
    "}",
    "(",
    "<T>",
    "\n",
    "é",
    "// comment\n",
    "/* block */",
    "@Override\n",
    "#[derive(Debug)]\n",
    "[Obsolete]\n",
];

const WORDS: &[&str] = &["alpha", "Beta", "fn0", "run", "self", "this", "x", "ünï"];

/// The nearest character boundary at or before `at`.
fn boundary(s: &str, mut at: usize) -> usize {
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// One random edit of `text`.
fn mutate(rng: &mut Rng, text: &str, snippets: &[&str]) -> String {
    let at = boundary(text, rng.below(text.len() + 1));
    let mut out = text.to_owned();
    match rng.below(7) {
        // Insert a snippet somewhere.
        0 | 1 => out.insert_str(at, snippets[rng.below(snippets.len())]),
        // Delete a short range.
        2 => {
            let end = boundary(text, (at + 1 + rng.below(40)).min(text.len()));
            out.replace_range(at..end, "");
        }
        // Rename: replace the identifier at `at` (or insert a word) with another word.
        3 => {
            let bytes = text.as_bytes();
            let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
            let mut start = at;
            while start > 0 && is_ident(bytes[start - 1]) {
                start -= 1;
            }
            let mut end = at;
            while end < bytes.len() && is_ident(bytes[end]) {
                end += 1;
            }
            out.replace_range(start..end, WORDS[rng.below(WORDS.len())]);
        }
        // Append, prepend.
        4 => out.push_str(snippets[rng.below(snippets.len())]),
        5 => out.insert_str(0, snippets[rng.below(snippets.len())]),
        // Duplicate a line range.
        _ => {
            let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
            out.insert_str(start, &text[start..end]);
        }
    }
    out
}

/// The analysis with one query pass over the whole tree, as before chunks existed.
fn whole_tree(analyzer: &TreeSitterAnalyzer, source: &str) -> Analysis {
    if source.is_empty() {
        return Analysis::default();
    }
    let query = analyzer.grammar.query().unwrap();
    let budget = Budget::new(budget::ANALYSIS_TIME_LIMIT);
    let tree = parse::parse(analyzer.grammar, source, None, &budget).unwrap();
    let found =
        extract::extract(query, analyzer.syntax, tree.root_node(), source, &budget).unwrap();
    let (mut call_sites, free) = callers::resolve(
        &found.symbols,
        found.scopes,
        found.calls,
        &found.arguments,
        source,
        (0, 0),
    );
    // Imports and exports are per top-level node: the same in both.
    let mut modules = super::modules::Modules {
        imports: found.imports,
        exports: found.exports,
        bases: Vec::new(),
        fields: Vec::new(),
    };
    if let Some(f) = analyzer.syntax.modules {
        let root = tree.root_node();
        let mut walk = root.walk();
        for node in root.children(&mut walk) {
            f(node, source, &mut modules);
        }
    }
    let mut values = super::locals::module_level(
        &mut call_sites,
        &free,
        std::iter::once((&found.module, 0)),
        &modules.imports,
        &found.symbols,
        source,
    );
    let mut analysis = Analysis::new(found.symbols);
    analysis.bodies = found.bodies;
    analysis.call_sites = call_sites;
    analysis.imports = modules.imports;
    analysis.exports = modules.exports;
    analysis.bases = modules.bases;
    values.extend(modules.fields);
    analysis.values = values;
    analysis.syntax_error = super::incremental::first_error(&tree);
    analysis
}

fn check_chain(analyzer: &TreeSitterAnalyzer, original: &str, snippets: &[&str], seed: u64) {
    let mut rng = Rng(seed);
    let mut state = None;
    let mut text = original.to_owned();
    for step in 0..120 {
        text = match rng.below(20) {
            // Now and then back to the original (a revert), or to nothing at all.
            0 => original.to_owned(),
            1 if step % 7 == 0 => String::new(),
            _ => mutate(&mut rng, &text, snippets),
        };
        let incremental = analyzer.analyze_incremental(&text, &mut state).unwrap();
        let fresh = analyzer.analyze_full(&text).unwrap();
        assert_eq!(
            incremental,
            fresh,
            "{}: incremental differs from fresh at step {step} (seed {seed}) for:\n{text}",
            analyzer.id()
        );
        assert_eq!(
            fresh,
            whole_tree(analyzer, &text),
            "{}: chunked differs from whole-tree at step {step} (seed {seed}) for:\n{text}",
            analyzer.id()
        );
    }
}

#[test]
fn incremental_analysis_equals_fresh_analysis_over_random_edits() {
    let ts_fixtures = [
        include_str!("../../testdata/fixtures/kinds.ts"),
        include_str!("../../testdata/fixtures/signatures.ts"),
        include_str!("../../testdata/fixtures/calls.ts"),
        include_str!("../../testdata/fixtures/wrapped.ts"),
        include_str!("../../testdata/fixtures/broken.ts"),
        include_str!("../../testdata/fixtures/utf8.ts"),
    ];
    let jsx_fixtures = [
        include_str!("../../testdata/fixtures/component.tsx"),
        include_str!("../../testdata/fixtures/component.jsx"),
        include_str!("../../testdata/fixtures/plain.js"),
    ];
    let py_fixtures = [
        include_str!("../../testdata/fixtures/kinds.py"),
        include_str!("../../testdata/fixtures/signatures.py"),
        include_str!("../../testdata/fixtures/calls.py"),
        include_str!("../../testdata/fixtures/wrapped.py"),
        include_str!("../../testdata/fixtures/broken.py"),
        include_str!("../../testdata/fixtures/utf8.py"),
    ];
    let generated_ts = fixtures::generate_typescript(3);
    let generated_py = fixtures::generate_python(3);
    let (ts, tsx, py) = (
        typescript::typescript(),
        typescript::tsx(),
        python::python(),
    );
    let mut seed = 0x9E37_79B9_7F4A_7C15;
    for source in ts_fixtures.iter().copied().chain([generated_ts.as_str()]) {
        seed += 1;
        check_chain(&ts, source, TS_SNIPPETS, seed);
    }
    for source in jsx_fixtures {
        seed += 1;
        check_chain(&tsx, source, TS_SNIPPETS, seed);
    }
    for source in py_fixtures.iter().copied().chain([generated_py.as_str()]) {
        seed += 1;
        check_chain(&py, source, PY_SNIPPETS, seed);
    }
}

#[test]
fn state_of_another_grammar_is_not_reused() {
    let ts = typescript::typescript();
    let py = python::python();
    let mut state = None;
    ts.analyze_incremental("function f(a) { g(); }\n", &mut state)
        .unwrap();
    let source = "def f(a):\n    g()\n";
    let got = py.analyze_incremental(source, &mut state).unwrap();
    assert_eq!(got, py.analyze_full(source).unwrap());
}

/// The same property for Java, Go, Rust and C#, over a real file of each (the vendored
/// samples; for Rust, one of this crate's own files).
#[test]
fn incremental_analysis_equals_fresh_analysis_for_the_declarative_languages() {
    let cases = [
        (
            java::java(),
            include_str!("../../testdata/real/java/com/google/gson/JsonPrimitive.java"),
        ),
        (go::go(), include_str!("../../testdata/real/go/bool.go")),
        (rust::rust(), include_str!("query.rs")),
        (
            csharp::csharp(),
            include_str!("../../testdata/real/csharp/FluentValidation/Internal/PropertyChain.cs"),
        ),
    ];
    let mut seed = 0x2545_F491_4F6C_DD1D;
    for (analyzer, source) in &cases {
        seed += 1;
        check_chain(analyzer, source, DECLARATIVE_SNIPPETS, seed);
    }
}

/// The merge driver trusts definitions only from a clean parse: a syntax error is
/// reported where it starts, incrementally as freshly, and cleared when fixed.
#[test]
fn the_first_syntax_error_is_reported_and_cleared_when_fixed() {
    let ts = typescript::typescript();
    let clean = "function f(a: number) {\n  return a;\n}\n";
    assert_eq!(ts.analyze_full(clean).unwrap().syntax_error, None);
    let broken = "function f(a: number) {\n  return a;\n}\nfunction g( {\n}\n";
    let at = ts
        .analyze_full(broken)
        .unwrap()
        .syntax_error
        .expect("an error");
    assert!(at >= clean.len(), "the error is in g, not before: {at}");
    let mut state = None;
    ts.analyze_incremental(clean, &mut state).unwrap();
    let again = ts.analyze_incremental(broken, &mut state).unwrap();
    assert_eq!(again.syntax_error, Some(at));
    assert_eq!(
        ts.analyze_incremental(clean, &mut state)
            .unwrap()
            .syntax_error,
        None
    );
    let py = python::python();
    assert!(
        py.analyze_full("def f(:\n    pass\n")
            .unwrap()
            .syntax_error
            .is_some()
    );
    assert_eq!(
        py.analyze_full("def f():\n    pass\n")
            .unwrap()
            .syntax_error,
        None
    );
}
