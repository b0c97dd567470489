//! `graph-eval`: how well wit's code graph resolves call edges on real repositories,
//! measured against outside oracles: the TypeScript type checker for TypeScript and
//! JavaScript, jedi for Python, javac (its attribution, through the Tree API) for Java,
//! go/parser with go/types for Go.
//!
//! ```sh
//! cargo run --release -p wit-bench --bin graph-eval -- [--repo PATH]... [--misses N] [--json]
//! ```
//!
//! For each repository (a bare mirror or a work tree; only read), HEAD's tree is written
//! into a temp directory (`checkout.rs`); the oracles (`bench/oracles/ts_calls.mjs`,
//! `bench/oracles/py_calls.py`, run by `oracle.rs`) list every call site of the files wit
//! indexes with the declaration the name resolves to, while wit's graph is built as the
//! daemon builds a checkout's and every call site resolved with `Graph::resolve_site`
//! (`wit_side.rs`). `score.rs` matches the two and counts:
//! - an *edge* is a call inside a definition that the oracle resolves to a function
//!   declared in the repository (not a dependency, not the runtime's `.d.ts`, not stdlib);
//! - **recall** = edges wit resolves (`Resolution::Resolved`) to the same definition /
//!   edges;
//! - **precision** = sites wit resolves that agree with the oracle / sites wit resolves
//!   that the oracle answers at all (an in-repo declaration, or something outside such as
//!   `Array.prototype.map` or a stdlib function); sites the oracle cannot answer are
//!   counted apart.
//!
//! The TypeScript oracle needs Node.js and installs `typescript` into `target/oracles/`
//! on first use (npm); the Python oracle needs `python3` with jedi; the Java oracle a JDK
//! (`JAVA_HOME`, else `javac` on the `PATH`), the Go oracle the Go toolchain. Besides
//! recall over every edge, the report gives recall over the edges *within a file* (to a
//! definition of the caller's own file), the measure of a language's scoping rules.

#[cfg(test)]
mod accuracy;
mod checkout;
mod oracle;
mod report;
mod score;
#[cfg(test)]
mod tests;
mod wit_side;

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::report::{RepoReport, Report, Timing};

/// The repositories measured when none is given: bare mirrors, two TypeScript, one
/// JavaScript (CommonJS), one Python.
const DEFAULT_REPOS: [&str; 4] = [
    "/work/.mirror/expressjs+express/repo",
    "/work/.mirror/sindresorhus+ky/repo",
    "/work/.mirror/colinhacks+zod/repo",
    "/work/.mirror/pallets+flask/repo",
];

/// Samples per reason printed by default (none: the table only).
const DEFAULT_MISSES: usize = 0;

/// Measures one repository, with `samples` samples per reason.
fn run(repository: &Path, samples: usize, jobs: usize) -> Result<RepoReport> {
    let t0 = Instant::now();
    let name = checkout::short_name(repository);
    eprintln!("graph-eval: {name}: checking out HEAD");
    let co = checkout::checkout(repository)?;
    let checkout_secs = t0.elapsed().as_secs_f64();

    // The oracles first: they take longest, and wit's graph is built meanwhile.
    let files = wit_side::oracle_files(&co.entries);
    let mut oracles = Vec::new();
    let mut running = Vec::new();
    if !files.scripts.is_empty() {
        let ts = oracle::typescript()?;
        oracles.push(format!("typescript {}", oracle::typescript_version(&ts)));
        running.push(oracle::spawn_typescript(&ts, &co.root, &files.scripts)?);
    }
    if !files.python.is_empty() {
        oracles.push(format!("jedi {}", oracle::jedi_version()?));
        running.push(oracle::spawn_python(&co.root, &files.python, jobs)?);
    }
    if !files.java.is_empty() {
        let jdk = oracle::jdk_home()?;
        oracles.push(format!("javac {}", oracle::jdk_version(&jdk)));
        running.push(oracle::spawn_java(&jdk, &co.root, &files.java)?);
    }
    if !files.go.is_empty() {
        oracles.push(format!("go/types {}", oracle::go_version()?));
        running.push(oracle::spawn_go(&co.root, &files.go)?);
    }
    let oracle_started = Instant::now();

    let t_wit = Instant::now();
    let wit = wit_side::build(&co.root, &co.entries)?;
    let wit_secs = t_wit.elapsed().as_secs_f64();
    eprintln!(
        "graph-eval: {name}: wit's graph of {} files built and resolved in {wit_secs:.1} s; waiting for the oracles",
        wit.files.len()
    );

    let mut sites = Vec::new();
    let mut noise = 0;
    for r in running {
        let (run, _) = r.wait()?;
        sites.extend(run.sites);
        noise += run.noise;
    }
    let oracle_secs = oracle_started.elapsed().as_secs_f64();
    let as_if = |s: &oracle::OracleSite| {
        wit.resolve_as_if(&s.file, &s.callee, s.receiver.as_deref(), s.line)
    };
    let score = score::score(&sites, &wit.files, &as_if);

    // Source lines for the samples, read from the checkout while it exists.
    let texts: RefCell<HashMap<String, Option<String>>> = RefCell::default();
    let root = co.root.clone();
    let code = |file: &str, line: usize| -> String {
        let mut texts = texts.borrow_mut();
        let text = texts
            .entry(file.to_owned())
            .or_insert_with(|| std::fs::read_to_string(root.join(file)).ok());
        text.as_deref()
            .and_then(|t| t.lines().nth(line))
            .map(|l| {
                let l = l.trim();
                match l.char_indices().nth(120) {
                    Some((cut, _)) => format!("{}…", &l[..cut]),
                    None => l.to_owned(),
                }
            })
            .unwrap_or_default()
    };
    Ok(RepoReport::new(
        name,
        repository.display().to_string(),
        co.head.clone(),
        (wit.files.len(), wit.not_indexed, wit.config_files),
        oracles,
        noise,
        &score,
        samples,
        &code,
        Timing {
            checkout: checkout_secs,
            wit: wit_secs,
            oracles: oracle_secs,
            total: t0.elapsed().as_secs_f64(),
        },
    ))
}

fn main() -> Result<()> {
    let mut repos: Vec<PathBuf> = Vec::new();
    let mut samples = DEFAULT_MISSES;
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repo" => repos.push(args.next().context("--repo needs a path")?.into()),
            "--misses" => {
                samples = args
                    .next()
                    .context("--misses needs a count")?
                    .parse::<usize>()
                    .context("--misses needs a count")?;
            }
            "--json" => json = true,
            "-h" | "--help" => {
                println!(
                    "graph-eval [--repo PATH]... [--misses N] [--json]\n\n\
                     Measures wit's call resolution on real repositories against the TypeScript type\n\
                     checker (TS/JS), jedi (Python), javac (Java) and go/types (Go): recall of the\n\
                     oracle's in-repository call edges, precision of wit's resolved sites.\n\
                     Repositories (bare or not) are only read.\n\
                     --repo PATH  a repository (repeatable; default: {})\n\
                     --misses N   N samples of each reason of miss and of wrong resolution per repository\n\
                     --json       print one JSON document instead of the table",
                    DEFAULT_REPOS.join(", ")
                );
                return Ok(());
            }
            other => bail!("unknown argument {other:?} (see --help)"),
        }
    }
    if repos.is_empty() {
        repos = DEFAULT_REPOS.iter().map(PathBuf::from).collect();
    }
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let t0 = Instant::now();
    let mut reports = Vec::new();
    for repo in &repos {
        reports.push(run(repo, samples, jobs).with_context(|| repo.display().to_string())?);
    }
    let report = Report {
        repositories: reports,
        samples,
        seconds: t0.elapsed().as_secs_f64(),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}
