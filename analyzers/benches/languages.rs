//! Files per second on real projects (issue 24): each declarative analyzer on its
//! language's sample — Java (Gson), Go (pflag), C# (FluentValidation) under
//! `testdata/real/`, Rust (the registry sources of `toml_edit`) — beside the hand-written
//! TypeScript analyzer on a TypeScript project of similar size (RxJS's `internal/` and
//! `internal/observable/`, also under `testdata/real/`), and beside Universal Ctags
//! (`ctags -R`) on the same folders.
//!
//! The files are the oracle test's (`tests/oracle/sources.rs`). `parse ms` is
//! tree-sitter's bare parse of the same files with the same grammar, the floor under any
//! tree-sitter analysis. wit's figure is one
//! `analyze_full` per file, all files in turn, in one thread, as the daemon's first scan
//! does; the median of several passes after a warm-up pass (which compiles the queries).
//! `workers` is the same pass spread over one thread per core pulling files from a shared
//! queue, as the daemon's index build does (`daemon/src/index`), and `files/s` beside it
//! is that pass's rate: what a cold index of such a project runs at on this machine.
//! ctags' is the wall time of the whole subprocess, start-up included, median of several
//! runs. Run with `cargo bench -p wit-analyzers --bench languages` (add `-- rust` for one
//! language). Nothing is asserted
//! (figures depend on the machine); the target, 1,000 files/s, is flagged in the table.

#[path = "../tests/oracle/sources.rs"]
mod sources;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sources::SourceFile;

/// Timed passes of wit over a sample (after one warm-up pass).
const WIT_PASSES: usize = 15;
/// Timed runs of ctags over a sample.
const CTAGS_RUNS: usize = 7;
/// The target for every declarative language.
const TARGET_FILES_PER_SECOND: f64 = 1_000.0;

/// One language's sample.
struct Sample {
    /// The label in the table.
    label: &'static str,
    /// The ctags language name (`--languages=`).
    ctags: &'static str,
    /// The folder ctags walks.
    root: PathBuf,
    /// The tree-sitter grammar, for the bare parse's time (the floor under any analysis).
    grammar: tree_sitter::Language,
    files: Vec<SourceFile>,
}

fn main() {
    // `cargo bench --bench languages -- rust go`: only the samples whose label contains one
    // of the words (case-insensitive); cargo's own `--bench` flag is not a filter.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.to_lowercase())
        .collect();
    let samples: Vec<Sample> = samples()
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .filter(|s| {
            filters.is_empty() || filters.iter().any(|f| s.label.to_lowercase().contains(f))
        })
        .collect();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{:<22} {:>5} {:>7}  {:>8}  {:>9} {:>8} {:>7}  {:>12} {:>8}  {:>10} {:>8}  {:>6}",
        "language (sample)",
        "files",
        "KB",
        "parse ms",
        "wit ms",
        "files/s",
        "MB/s",
        format!("{workers} workers ms"),
        "files/s",
        "ctags ms",
        "files/s",
        "target"
    );
    for sample in &samples {
        let bytes: usize = sample.files.iter().map(|f| f.text.len()).sum();
        let parse = time_parse(sample);
        let wit = time_wit(sample, 1);
        let parallel = time_wit(sample, workers);
        let ctags = time_ctags(sample);
        let files = sample.files.len() as f64;
        let wit_rate = files / wit.as_secs_f64();
        let parallel_rate = files / parallel.as_secs_f64();
        let (ctags_ms, ctags_rate) = match ctags {
            Some(d) => (
                format!("{:.2}", d.as_secs_f64() * 1e3),
                format!("{:.0}", files / d.as_secs_f64()),
            ),
            None => ("-".to_owned(), "-".to_owned()),
        };
        println!(
            "{:<22} {:>5} {:>7.0}  {:>8.2}  {:>9.2} {:>8.0} {:>7.2}  {:>12.2} {:>8.0}  {:>10} {:>8}  {:>6}",
            sample.label,
            sample.files.len(),
            bytes as f64 / 1e3,
            parse.as_secs_f64() * 1e3,
            wit.as_secs_f64() * 1e3,
            wit_rate,
            bytes as f64 / 1e6 / wit.as_secs_f64(),
            parallel.as_secs_f64() * 1e3,
            parallel_rate,
            ctags_ms,
            ctags_rate,
            // Judged as the daemon runs it; the one-thread figure is beside it.
            if parallel_rate >= TARGET_FILES_PER_SECOND {
                "ok"
            } else {
                "BELOW"
            },
        );
    }
}

fn samples() -> Result<Vec<Sample>, String> {
    let vendored = |label, dir, ext, ctags, grammar: tree_sitter::Language| {
        Ok::<_, String>(Sample {
            label,
            ctags,
            root: sources::real_root(dir),
            grammar,
            files: sources::real_files(dir, ext)?,
        })
    };
    let (rust_root, rust_files) = sources::rust_files()?;
    Ok(vec![
        vendored(
            "Java (Gson)",
            "java",
            "java",
            "Java",
            tree_sitter_java::LANGUAGE.into(),
        )?,
        vendored(
            "Go (pflag)",
            "go",
            "go",
            "Go",
            tree_sitter_go::LANGUAGE.into(),
        )?,
        vendored(
            "C# (FluentValidation)",
            "csharp",
            "cs",
            "C#",
            tree_sitter_c_sharp::LANGUAGE.into(),
        )?,
        Sample {
            label: "Rust (toml_edit)",
            ctags: "Rust",
            root: rust_root,
            grammar: tree_sitter_rust::LANGUAGE.into(),
            files: rust_files,
        },
        vendored(
            "TypeScript (RxJS)",
            "typescript",
            "ts",
            "TypeScript",
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        )?,
    ])
}

/// The median time of one pass of tree-sitter's bare parse over every file of the sample.
fn time_parse(sample: &Sample) -> Duration {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&sample.grammar).expect("grammar loads");
    let mut pass = || {
        for f in &sample.files {
            black_box(parser.parse(black_box(&f.text), None).expect("parses"));
        }
    };
    pass();
    median((0..WIT_PASSES).map(|_| {
        let started = Instant::now();
        pass();
        started.elapsed()
    }))
}

/// The median time of one pass of `analyze_full` over every file of the sample, by
/// `workers` threads taking the next file from a shared counter.
fn time_wit(sample: &Sample, workers: usize) -> Duration {
    let registry = wit_analyzers::builtin_registry();
    let work: Vec<_> = sample
        .files
        .iter()
        .map(|f| {
            let analyzer = registry
                .for_path(&f.rel)
                .unwrap_or_else(|| panic!("no analyzer for {}", f.rel));
            (analyzer, f.text.as_str())
        })
        .collect();
    let pass = || {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let worker = || {
            while let Some((analyzer, text)) =
                work.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
            {
                black_box(
                    analyzer
                        .analyze_full(black_box(text))
                        .expect("analysis succeeds"),
                );
            }
        };
        if workers == 1 {
            worker();
        } else {
            std::thread::scope(|s| {
                for _ in 0..workers {
                    s.spawn(worker);
                }
            });
        }
    };
    pass();
    median((0..WIT_PASSES).map(|_| {
        let started = Instant::now();
        pass();
        started.elapsed()
    }))
}

/// The median wall time of `ctags -R` over the sample's folder, or `None` (printed as
/// `-`) when ctags cannot be run.
fn time_ctags(sample: &Sample) -> Option<Duration> {
    let run = |root: &Path| {
        let started = Instant::now();
        let status = Command::new("ctags")
            .args(["-R", "--sort=no", "-f", "-"])
            .arg(format!("--languages={}", sample.ctags))
            .arg(".")
            .current_dir(root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| started.elapsed())
    };
    if run(&sample.root).is_none() {
        eprintln!("ctags could not be run: install Universal Ctags for its column");
        return None;
    }
    let times: Option<Vec<Duration>> = (0..CTAGS_RUNS).map(|_| run(&sample.root)).collect();
    Some(median(times?.into_iter()))
}

fn median(times: impl Iterator<Item = Duration>) -> Duration {
    let mut times: Vec<Duration> = times.collect();
    times.sort_unstable();
    times[times.len() / 2]
}
