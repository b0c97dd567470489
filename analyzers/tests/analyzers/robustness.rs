//! Bad, odd and big input: recovery, never a panic.

use wit_analyzers::fixtures::{
    PYTHON_UNIT_LINES, PYTHON_UNIT_SYMBOLS, TYPESCRIPT_UNIT_LINES, TYPESCRIPT_UNIT_SYMBOLS,
    generate_python, generate_typescript,
};
use wit_core::Analysis;

use crate::common::{analyze, callees, outline, signature, text};

const BROKEN_TS: &str = include_str!("../../testdata/fixtures/broken.ts");
const BROKEN_PY: &str = include_str!("../../testdata/fixtures/broken.py");
const UTF8_TS: &str = include_str!("../../testdata/fixtures/utf8.ts");
const UTF8_PY: &str = include_str!("../../testdata/fixtures/utf8.py");

const ALL_KINDS_OF_FILE: [&str; 4] = ["a.ts", "a.tsx", "a.js", "a.py"];

#[test]
fn typescript_with_syntax_errors_yields_what_tree_sitter_recovers() {
    let a = analyze("broken.ts", BROKEN_TS);
    let names: Vec<String> = outline(&a).into_iter().map(|(_, n)| n).collect();
    for name in ["good", "broken", "Half", "Half.method", "after"] {
        assert!(
            names.iter().any(|n| n == name),
            "{name} not recovered: {names:?}"
        );
    }
    assert_eq!(signature(&a, "good"), "(a: number): number");
    assert_eq!(signature(&a, "after"), "(b: string): string");
    assert_eq!(callees(&a, "good"), ["helper"]);
    assert_eq!(callees(&a, "after"), ["finish"]);
}

#[test]
fn python_with_syntax_errors_yields_what_tree_sitter_recovers() {
    let a = analyze("broken.py", BROKEN_PY);
    let names: Vec<String> = outline(&a).into_iter().map(|(_, n)| n).collect();
    for name in ["good", "broken", "Half", "Half.method", "after"] {
        assert!(
            names.iter().any(|n| n == name),
            "{name} not recovered: {names:?}"
        );
    }
    assert_eq!(signature(&a, "after"), "(b: str) -> str");
    assert_eq!(callees(&a, "Half.method"), ["other"]);
    assert_eq!(callees(&a, "after"), ["finish"]);
}

#[test]
fn empty_and_blank_files_give_empty_analyses() {
    for path in ALL_KINDS_OF_FILE {
        for src in [
            "",
            "\n",
            "   \n\t\n",
            "// only a comment\n",
            "# only a comment\n",
        ] {
            let mut a = analyze(path, src);
            // A comment of another language (`#` in TypeScript, `//` in Python) is a
            // syntax error, and says so; nothing else is found.
            let python = path.ends_with(".py");
            let foreign = (src.starts_with('#') && !python) || (src.starts_with("//") && python);
            assert_eq!(a.syntax_error.is_some(), foreign, "{path}: {src:?}");
            a.syntax_error = None;
            assert_eq!(a, Analysis::default(), "{path}: {src:?}");
        }
    }
}

#[test]
fn byte_offsets_are_utf8_offsets_after_multibyte_text() {
    let a = analyze("utf8.ts", UTF8_TS);
    let after = text(&a, UTF8_TS, "after");
    assert!(
        after.starts_with("export function after(naïve: string)"),
        "{after:?}"
    );
    assert!(after.ends_with('}'));
    assert_eq!(a.symbols[0].start_line, 2);
    assert_eq!(signature(&a, "after"), "(naïve: string): string");

    let a = analyze("utf8.py", UTF8_PY);
    let after = text(&a, UTF8_PY, "after");
    assert!(
        after.starts_with("def after(naïve: str) -> str:"),
        "{after:?}"
    );
    assert_eq!(a.symbols[0].start_line, 4);
}

#[test]
fn garbage_and_pathological_input_never_panics() {
    let deep_parens = format!("f{}{}", "(".repeat(5_000), ")".repeat(5_000));
    let deep_unclosed = "{[(".repeat(3_000);
    let long_line = format!("const x = [{}];\n", "1, ".repeat(50_000));
    let inputs = [
        "\u{feff}function bom() {}\n".to_owned(),
        "}}}}{{{{)))(((".to_owned(),
        "function".to_owned(),
        "def".to_owned(),
        "class".to_owned(),
        "\r\nfunction crlf(a,\r\n b) {}\r\n".to_owned(),
        "🎉🎉🎉 ünïcödé ✓ \u{200b}".to_owned(),
        deep_parens,
        deep_unclosed,
        long_line,
    ];
    let registry = wit_analyzers::builtin_registry();
    for path in ALL_KINDS_OF_FILE {
        for src in &inputs {
            // Ranges must stay on char boundaries of the input, whatever was recovered.
            // Input nesting thousands of levels deep may instead be refused (the depth
            // cap bounding the query cost), with an error, never a panic.
            let a = match registry
                .for_path(path)
                .expect("an analyzer")
                .analyze_full(src)
            {
                Ok(a) => a,
                Err(e) if e.to_string().contains("nesting deeper than") => continue,
                Err(e) => panic!("analysing {path}: {e}"),
            };
            for s in &a.symbols {
                assert!(src.get(s.start_byte..s.end_byte).is_some(), "{path}: {s:?}");
            }
        }
    }
}

#[test]
fn crlf_line_endings_give_the_same_signature() {
    let a = analyze(
        "a.ts",
        "function crlf(\r\n  a: number,\r\n  b: string,\r\n) {}\r\n",
    );
    assert_eq!(signature(&a, "crlf"), "(a: number, b: string)");
}

#[test]
fn a_generated_ten_thousand_line_typescript_file() {
    let units = 10_000 / TYPESCRIPT_UNIT_LINES + 1;
    let src = generate_typescript(units);
    assert!(src.lines().count() >= 10_000);
    let a = analyze("big.ts", &src);
    assert_eq!(a.symbols.len(), units * TYPESCRIPT_UNIT_SYMBOLS);
    // Unit 0's method calls into unit 1; every unit's edges are there.
    assert_eq!(
        callees(&a, "Service0.load"),
        ["get", "parse0", "store", "concat", "normalize1"]
    );
    assert_eq!(
        callees(&a, "parse0"),
        ["split", "map", "trim", "normalize0"]
    );
    assert_eq!(a.edges().count(), units * 12);
}

#[test]
fn a_generated_ten_thousand_line_python_file() {
    let units = 10_000 / PYTHON_UNIT_LINES + 1;
    let src = generate_python(units);
    assert!(src.lines().count() >= 10_000);
    let a = analyze("big.py", &src);
    assert_eq!(a.symbols.len(), units * PYTHON_UNIT_SYMBOLS);
    assert_eq!(callees(&a, "Store0.load"), ["get", "parse_0", "store"]);
    assert_eq!(callees(&a, "normalize_0"), ["lower"]);
}

#[test]
fn concurrent_analyses_agree() {
    let ts = generate_typescript(20);
    let py = generate_python(20);
    let expected_ts = analyze("a.ts", &ts);
    let expected_py = analyze("a.py", &py);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let (ts, py) = (&ts, &py);
                scope.spawn(move || {
                    (0..5)
                        .map(|_| {
                            if i % 2 == 0 {
                                (true, analyze("a.ts", ts))
                            } else {
                                (false, analyze("a.py", py))
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            for (is_ts, got) in handle.join().expect("analysis thread panicked") {
                assert_eq!(got, if is_ts { &expected_ts } else { &expected_py }.clone());
            }
        }
    });
}
