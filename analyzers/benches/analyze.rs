//! Time of one `analyze` call (parse + queries + call graph) on generated ~2,000-line files,
//! with tree-sitter's bare parse of the same files for scale.
//!
//! Run with `cargo bench -p wit-analyzers`. No timing is asserted anywhere: this prints
//! median, p90 and throughput so that regressions are visible.

use std::hint::black_box;
use std::time::{Duration, Instant};

use wit_analyzers::fixtures::{
    Deep, PYTHON_UNIT_LINES, TYPESCRIPT_UNIT_LINES, deep, generate_python, generate_typescript,
};
use wit_core::LanguageAnalyzer;

const WARM_UP: usize = 30;
const ITERATIONS: usize = 300;

fn main() {
    // `cargo bench -p wit-analyzers -- WORD` runs only the cases whose label contains WORD.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    FILTER.with(|f| *f.borrow_mut() = filter);
    let typescript = generate_typescript(2_000 / TYPESCRIPT_UNIT_LINES);
    let python = generate_python(2_000 / PYTHON_UNIT_LINES);
    let small = "export function f(a: string): number {\n  return g(a.length);\n}\n";

    println!(
        "{:<28} {:>7} {:>8} {:>11} {:>11} {:>14}",
        "case", "lines", "symbols", "median", "p90", "lines/s"
    );
    let ts = wit_analyzers::typescript::typescript();
    let tsx = wit_analyzers::typescript::tsx();
    let py = wit_analyzers::python::python();
    bench_analyze("analyze typescript", &ts, &typescript);
    bench_analyze("analyze tsx", &tsx, &typescript);
    bench_analyze("analyze python", &py, &python);
    bench_analyze("analyze typescript, small", &ts, small);
    // The daemon's case when a file changes: the previous version's state is kept.
    bench_incremental("reanalyze ts, 1-line append", &ts, &typescript, |s| {
        format!("{s}// edit\n")
    });
    bench_incremental("reanalyze ts, edit in middle", &ts, &typescript, |s| {
        // A new function before the first declaration past the middle.
        let mid = s.len() / 2;
        let at = s[mid..].find("\nexport ").map_or(mid, |i| mid + i + 1);
        format!(
            "{}function edited(a: number) {{ return a; }}\n{}",
            &s[..at],
            &s[at..]
        )
    });
    bench_incremental("reanalyze python, append", &py, &python, |s| {
        format!("{s}# edit\n")
    });

    // Nesting 10,000 levels deep: ordinary shapes are analysed, costly ones refused
    // (engine/budget.rs); either way the answer must come within a second.
    for shape in Deep::ALL {
        bench_deep(shape, 10_000);
    }

    // The floor under any analysis of these files.
    bench_parse(
        "parse only typescript",
        &tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        &typescript,
    );
    bench_parse(
        "parse only python",
        &tree_sitter_python::LANGUAGE.into(),
        &python,
    );
}

fn bench_analyze(label: &str, analyzer: &dyn LanguageAnalyzer, source: &str) {
    // The first call compiles the query and creates this thread's parser; the warm-up in
    // `report` keeps that (and cold caches) out of the figures, as in a long-running daemon.
    let symbols = analyzer
        .analyze_full(source)
        .expect("analysis succeeds")
        .symbols
        .len();
    report(label, source, symbols, || {
        black_box(
            analyzer
                .analyze_full(black_box(source))
                .expect("analysis succeeds"),
        );
    });
}

/// Times the answer (an analysis, or the refusal) for a file nesting `shape` `depth`
/// levels deep: few runs, since an ordinary one takes tens of milliseconds.
fn bench_deep(shape: Deep, depth: usize) {
    const RUNS: usize = 9;
    let label = format!("deep {shape:?} {depth}");
    if FILTER.with(|f| {
        f.borrow()
            .as_ref()
            .is_some_and(|w| !label.contains(w.as_str()))
    }) {
        return;
    }
    let registry = wit_analyzers::builtin_registry();
    let path = format!("deep.{}", shape.extension());
    let analyzer = registry.for_path(&path).expect("a built-in analyzer");
    let source = deep(shape, depth);
    let outcome = match analyzer.analyze(&source) {
        Ok(a) => format!("analysed ({} symbols)", a.symbols.len()),
        Err(_) => "refused".to_owned(),
    };
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let _ = black_box(analyzer.analyze(black_box(&source)));
            started.elapsed()
        })
        .collect();
    times.sort_unstable();
    println!(
        "{label:<34} {:>9.3}ms median {:>9.3}ms max  {outcome}",
        times[RUNS / 2].as_secs_f64() * 1e3,
        times[RUNS - 1].as_secs_f64() * 1e3,
    );
}

/// Alternates between `source` and `edit(source)`, each analysed from the other's state.
fn bench_incremental(
    label: &str,
    analyzer: &dyn LanguageAnalyzer,
    source: &str,
    edit: impl Fn(&str) -> String,
) {
    let edited = edit(source);
    let mut state = None;
    let symbols = analyzer
        .analyze_incremental(source, &mut state)
        .expect("analysis succeeds")
        .symbols
        .len();
    let mut flip = false;
    report(label, source, symbols, || {
        flip = !flip;
        let text = if flip { edited.as_str() } else { source };
        black_box(
            analyzer
                .analyze_incremental(black_box(text), &mut state)
                .expect("analysis succeeds"),
        );
    });
}

fn bench_parse(label: &str, language: &tree_sitter::Language, source: &str) {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(language).expect("grammar loads");
    report(label, source, 0, || {
        black_box(
            parser
                .parse(black_box(source), None)
                .expect("parse succeeds"),
        );
    });
}

thread_local! {
    static FILTER: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Times `run` after a warm-up and prints one line of figures.
fn report(label: &str, source: &str, symbols: usize, mut run: impl FnMut()) {
    if FILTER.with(|f| {
        f.borrow()
            .as_ref()
            .is_some_and(|w| !label.contains(w.as_str()))
    }) {
        return;
    }
    let lines = source.lines().count();
    for _ in 0..WARM_UP {
        run();
    }
    let mut times: Vec<Duration> = (0..ITERATIONS)
        .map(|_| {
            let started = Instant::now();
            run();
            started.elapsed()
        })
        .collect();
    times.sort_unstable();
    let median = times[times.len() / 2];
    let p90 = times[times.len() * 9 / 10];
    let lines_per_second = lines as f64 / median.as_secs_f64();
    println!(
        "{label:<28} {lines:>7} {symbols:>8} {:>9.3}ms {:>9.3}ms {lines_per_second:>14.0}",
        median.as_secs_f64() * 1e3,
        p90.as_secs_f64() * 1e3,
    );
}
