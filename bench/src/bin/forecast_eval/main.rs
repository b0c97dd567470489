//! `forecast-eval`: precision and recall of wit's conflict forecast (`wit-forecast`)
//! against what git's own merge says, on pairs of changes replayed from a real history
//! (issue 22).
//!
//! ```sh
//! cargo run --release -p wit-bench --bin forecast-eval -- <git repository> [--pairs N] [--json]
//! ```
//!
//! Pairs (base, A, B) come from the history's merge commits (base = merge-base of the two
//! parents) and from nearby commits that touch a common file, each applied alone onto one
//! base (`bench/src/history/pairs.rs`). Each side's changes are listed as the daemon
//! lists a checkout's (`eval.rs`); the truth is `git merge-tree --write-tree` of the
//! pair. The repository is only read: the work happens on a bare `--shared` clone in a
//! temp directory (`bench/src/history/git.rs`).

mod eval;
mod report;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use wit_bench::history::git::Git;
use wit_bench::history::pairs;

/// Pairs replayed by default: half merges, half generated.
const DEFAULT_PAIRS: usize = 300;

/// Replays up to `pairs` pairs of `repository`'s history (HEAD's) and scores the forecast.
pub fn run(repository: &Path, pairs: usize) -> Result<report::Report> {
    let t0 = Instant::now();
    let scratch = tempfile::tempdir().context("a temp directory for the clone")?;
    let git = Git::clone_from(repository, scratch.path())?;
    let head = git.commit_of("HEAD")?;
    let chosen = pairs::choose(&git, pairs)?;
    let mut evaluator = eval::Evaluator::new(&git)?;
    let mut results = Vec::new();
    let mut failed = Vec::new();
    for (i, pair) in chosen.pairs.iter().enumerate() {
        if (i + 1) % 25 == 0 {
            eprintln!(
                "forecast-eval: {} of {} pairs ({:.0} s)",
                i + 1,
                chosen.pairs.len(),
                t0.elapsed().as_secs_f64()
            );
        }
        match evaluator.evaluate(pair) {
            Ok(r) => results.push(r),
            // One odd pair (a tree git cannot merge) should not sink the whole run: it is
            // reported instead.
            Err(e) => failed.push((pair.label.clone(), format!("{e:#}"))),
        }
    }
    Ok(report::Report::new(
        repository.display().to_string(),
        head,
        pairs,
        &chosen,
        results,
        failed,
        t0.elapsed().as_secs_f64(),
    ))
}

fn main() -> Result<()> {
    let mut repository: Option<PathBuf> = None;
    let mut pairs = DEFAULT_PAIRS;
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--pairs" => pairs = wit_bench::args::number(&mut args, "--pairs")?.max(1),
            "--json" => json = true,
            "-h" | "--help" => {
                println!(
                    "forecast-eval <git repository> [--pairs N] [--json]\n\n\
                     Replays pairs of changes from the repository's history (HEAD): its merge commits and\n\
                     pairs of nearby commits applied alone to one base, and scores wit's conflict forecast\n\
                     against git's own merge (git merge-tree). The repository is only read.\n\
                     --pairs N  at most N pairs, half merges, half generated (default {DEFAULT_PAIRS})\n\
                     --json     print one JSON document instead of the table"
                );
                return Ok(());
            }
            other => wit_bench::args::repository_or_unknown(&mut repository, other)?,
        }
    }
    let repository = wit_bench::args::required_repository(repository)?;
    let report = run(&repository, pairs)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}
