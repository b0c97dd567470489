//! `wit-bench`: the benchmark suite of issue 6.
//!
//! Starts the real daemon (`wit daemon run`, the sibling binary of this one) on a temp
//! repository with generated fixtures and measures it over its socket. Prints a table and
//! writes JSON (`--json PATH`). Run:
//!
//! ```sh
//! cargo build --release -p wit-cli -p wit-bench && target/release/wit-bench
//! ```

mod claims;
mod fixtures;
mod forecast;
mod graph;
mod graph_cost;
mod large;
mod liveness;
mod oracles;
mod report;
mod scenarios;
mod stats;
mod store;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
// The daemon under test and its client live in the library the evaluations share too.
use wit_bench::{client, daemon};

/// Command-line options.
pub struct Options {
    /// The `wit` binary.
    pub wit: PathBuf,
    /// Divide iteration counts by this (for a quick smoke run).
    pub scale_down: usize,
    /// Where to write the JSON report.
    pub json: Option<PathBuf>,
    /// How many times to run the whole suite (the report shows per-measure medians).
    pub repeat: usize,
    /// Run only the liveness measures (`liveness.rs`).
    pub only_liveness: bool,
    /// Run only the two stores side by side (`store.rs`).
    pub only_store: bool,
    /// Which scenarios: all (default), only the code graph, or all but it.
    pub graph: GraphChoice,
    /// Run only the code graph's cost on the fixture (`graph_cost.rs`).
    pub only_graph_cost: bool,
    /// `--forecast`: only the conflict forecast's scenario.
    pub only_forecast: bool,
    /// `--large`: the 50,000-file scale point (`large.rs`) too; `--large-only`: only it.
    pub large: bool,
    /// `--large-only`.
    pub only_large: bool,
    /// `--claims`: only the claims on the edit path (`claims.rs`).
    pub only_claims: bool,
    /// `--checkouts N`: how many checkouts the forecast scenario starts one after another
    /// for their time to a ready index and memory (4 by default, as issue 31 measured;
    /// users run three to eight agents).
    pub checkouts: usize,
    /// Another `wit` binary to compare with in that scenario (`--baseline`).
    pub baseline: Option<PathBuf>,
    /// Whether the code-graph scenario also runs `graph-eval` (`--no-oracles` not).
    pub oracles: bool,
}

/// `--graph-only` / `--no-graph`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum GraphChoice {
    /// Everything.
    All,
    /// Only the code-graph scenario.
    Only,
    /// Everything but it.
    Skip,
}

fn parse_args() -> Result<Options> {
    let mut opts = Options {
        wit: std::env::current_exe()?
            .parent()
            .context("no parent directory")?
            .join("wit"),
        scale_down: 1,
        json: None,
        repeat: 1,
        only_liveness: false,
        only_store: false,
        graph: GraphChoice::All,
        only_graph_cost: false,
        only_forecast: false,
        large: false,
        only_large: false,
        only_claims: false,
        checkouts: 4,
        baseline: None,
        oracles: true,
    };
    let mut args = std::env::args().skip(1).peekable();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => opts.scale_down = 10,
            "--liveness" => opts.only_liveness = true,
            "--store" => opts.only_store = true,
            "--graph-only" => opts.graph = GraphChoice::Only,
            "--graph-cost" => opts.only_graph_cost = true,
            "--forecast" => opts.only_forecast = true,
            "--large" => opts.large = true,
            "--large-only" => opts.only_large = true,
            "--claims" => opts.only_claims = true,
            "--checkouts" => {
                opts.checkouts = args
                    .next()
                    .context("--checkouts needs a count")?
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (2..=16).contains(n))
                    .context("--checkouts needs a count from 2 to 16")?;
            }
            "--baseline" => {
                opts.baseline = Some(args.next().context("--baseline needs a wit binary")?.into())
            }
            "--no-graph" => opts.graph = GraphChoice::Skip,
            "--no-oracles" => opts.oracles = false,
            "--json" => opts.json = Some(args.next().context("--json needs a path")?.into()),
            "--repeat" => {
                opts.repeat = args
                    .next()
                    .context("--repeat needs a count")?
                    .parse::<usize>()
                    .context("--repeat needs a positive count")?
                    .max(1);
            }
            "--wit" => opts.wit = args.next().context("--wit needs a path")?.into(),
            "--generate" => {
                // For profiling by hand: the code-graph scenario's repository, nothing else.
                let dir: PathBuf = args.next().context("--generate needs a directory")?.into();
                // An optional size after the directory (`--large` is 50,000).
                let size = match args.peek().and_then(|a| a.parse::<usize>().ok()) {
                    Some(n) => {
                        args.next();
                        n
                    }
                    None => 10_000,
                };
                let files = graph::generate(&dir, size)?;
                println!("{files} files written under {}", dir.display());
                std::process::exit(0);
            }
            "--parse-only" => {
                // For profiling by hand: the parse-only floor of the code-graph scenario
                // over a directory (a git repository), nothing else.
                let dir: PathBuf = args
                    .next()
                    .context("--parse-only needs a directory")?
                    .into();
                let (t, _, files) = graph::parse_only(&dir)?;
                println!("{files} files parsed in {:.0} ms", t.as_secs_f64() * 1000.0);
                std::process::exit(0);
            }
            "--generate-fixture" => {
                // The same for the 2,200-line fixture of the main scenarios.
                let dir: PathBuf = args
                    .next()
                    .context("--generate-fixture needs a directory")?
                    .into();
                scenarios::setup_repo(&dir)?;
                println!("src/big.ts and src/big.py written under {}", dir.display());
                std::process::exit(0);
            }
            "-h" | "--help" => {
                println!(
                    "wit-bench [--quick] [--liveness] [--store] [--repeat N] [--json PATH] [--wit PATH] [--graph-only|--no-graph] [--no-oracles] [--graph-cost] [--forecast [--checkouts N]] [--claims] [--large|--large-only] [--baseline WIT] [--generate DIR [FILES]] [--generate-fixture DIR] [--parse-only DIR]\n\n\
                     Benchmarks the real wit daemon on a generated repository.\n\
                     --quick      run a tenth of the iterations (smoke test)\n\
                     --liveness   run only the liveness measures (heavy declares, wake-ups, idle waiters)\n\
                     --store      run only SQLite and PostgreSQL side by side (a throwaway cluster)\n\
                     --repeat N   run everything N times; report each measure's median run\n\
                     --json PATH  also write the results as JSON\n\
                     --wit PATH   the wit binary (default: next to this binary)\n\
                     --graph-only only the code-graph scenario (10,000 generated files; 2,000 with --quick)\n\
                     --no-graph   everything but it\n\
                     --no-oracles without graph-eval's resolution against the TypeScript checker and jedi (run after the code graph)\n\
                     --graph-cost only the code graph's cost on the 2,200-line fixture (graph on / off)\n\
                     --forecast   only the conflict forecast (also part of the default run): save-to-forecast latency on the 10,000-file repository with two worktrees; with four, each one's time to a ready index and private memory\n\
                     --checkouts N  how many checkouts that scenario starts for those two rows (2 to 16, default 4)\n\
                     --claims     only the claims on the edit path: the guard and the post-edit hook with another session's claim in the 2,200-line fixture\n\
                     --large      also the larger scale point: 50,000 generated files (5,000 with --quick) and a second worktree: cold index, memory, lock.acquire, guard, save → forecast\n\
                     --large-only only that scale point\n\
                     --baseline WIT  also compare with that wit binary there (e.g. a build from before the graph)\n\
                     --generate DIR [FILES]  write the code-graph scenario's repository (about FILES files, 10,000 by default) into DIR and exit (for profiling)\n\
                     --generate-fixture DIR  the same for the 2,200-line TypeScript and Python fixture\n\
                     --parse-only DIR  parse every file git lists in DIR with the built-in grammars, nothing else (the index's floor)"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?} (see --help)"),
        }
    }
    if !opts.wit.exists() {
        bail!(
            "{} not found: build it first with `cargo build --release -p wit-cli`",
            opts.wit.display()
        );
    }
    Ok(opts)
}

fn main() -> Result<()> {
    let opts = parse_args()?;
    let mut runs = Vec::new();
    for i in 0..opts.repeat {
        if opts.repeat > 1 {
            eprintln!("run {} of {}", i + 1, opts.repeat);
        }
        let graph_cost_rounds = (8 / opts.scale_down).max(2);
        let mut report = if opts.only_store {
            let mut report = report::Report::default();
            store::run(&opts, &mut report, 2000 / opts.scale_down)?;
            runs.push(report);
            continue;
        } else if opts.only_large {
            let mut report = report::Report::default();
            large::run(&opts, &mut report)?;
            runs.push(report);
            continue;
        } else if opts.only_forecast {
            let mut report = report::Report::default();
            forecast::run(&opts, &mut report)?;
            runs.push(report);
            continue;
        } else if opts.only_claims {
            let mut report = report::Report::default();
            scenarios::claims_only(&opts, &mut report, (50 / opts.scale_down).max(5))?;
            runs.push(report);
            continue;
        } else if opts.only_graph_cost {
            let mut report = report::Report::default();
            graph_cost::run(&opts, &mut report, graph_cost_rounds)?;
            runs.push(report);
            continue;
        } else if opts.graph == GraphChoice::Only {
            report::Report::default()
        } else {
            let mut report = scenarios::run_all(&opts)?;
            if !opts.only_liveness {
                graph_cost::run(&opts, &mut report, graph_cost_rounds)?;
            }
            report
        };
        if opts.graph != GraphChoice::Skip {
            graph::run(&opts, &mut report)?;
            if opts.oracles {
                oracles::run(&mut report);
            }
            // Issue 31: the four-worktree figures (time to a ready index, private memory)
            // belong in the same run as the rest.
            if opts.graph != GraphChoice::Only {
                forecast::run(&opts, &mut report)?;
            }
        }
        if opts.large {
            large::run(&opts, &mut report)?;
        }
        if opts.repeat > 1 {
            eprint!("{}", report.table());
        }
        runs.push(report);
    }
    let report = report::Report::median_of(runs);
    if opts.repeat > 1 {
        println!("median of {} runs, measure by measure:", opts.repeat);
    }
    print!("{}", report.table());
    print!("{}", report.budget());
    if let Some(path) = &opts.json {
        std::fs::write(path, serde_json::to_string_pretty(&report.json())?)?;
        println!("\nJSON written to {}", path.display());
    }
    Ok(())
}
