//! The time of a cold analysis (no incremental state, the queries already compiled) of
//! every `.ts` and `.py` file under a directory, on one thread, best of several rounds:
//!
//! ```sh
//! cargo run --release -p wit-analyzers --example cold -- DIR [EVERY [ROUNDS]]
//! ```
//!
//! `EVERY`: only every EVERY-th file (default 1); `ROUNDS`: default 5. A directory of
//! generated files: `wit-bench --generate DIR`. Under callgrind, `DIR 50 1` keeps it short.

use std::path::{Path, PathBuf};
use std::time::Instant;

use wit_core::LanguageAnalyzer;

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("ts" | "py")) {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: cold DIR [EVERY [ROUNDS]]");
        std::process::exit(2);
    };
    let number = |i: usize, default: usize| {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
            .max(1)
    };
    let (every, rounds) = (number(1, 1), number(2, 5));
    let mut files = Vec::new();
    collect(Path::new(dir), &mut files);
    files.sort();
    let sources: Vec<(bool, String)> = files
        .iter()
        .step_by(every)
        .filter_map(|p| {
            let ts = p.extension().is_some_and(|e| e == "ts");
            Some((ts, std::fs::read_to_string(p).ok()?))
        })
        .collect();
    let ts = wit_analyzers::typescript::typescript();
    let py = wit_analyzers::python::python();
    // Compile both queries before timing.
    ts.analyze_full("f();\n").expect("typescript");
    py.analyze_full("f()\n").expect("python");
    let mut best = [f64::MAX; 2];
    for _ in 0..rounds {
        let mut took = [0.0f64; 2];
        for (is_ts, source) in &sources {
            let t = Instant::now();
            let analysis = if *is_ts {
                ts.analyze_full(source)
            } else {
                py.analyze_full(source)
            };
            std::hint::black_box(analysis.ok());
            took[usize::from(!*is_ts)] += t.elapsed().as_secs_f64();
        }
        for (b, t) in best.iter_mut().zip(took) {
            *b = b.min(t);
        }
    }
    let count = |ts: bool| sources.iter().filter(|(t, _)| *t == ts).count();
    println!(
        "{} typescript files {:.3} s, {} python files {:.3} s (best of {rounds})",
        count(true),
        best[0],
        count(false),
        best[1]
    );
}
