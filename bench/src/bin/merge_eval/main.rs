//! `merge-eval`: wit's merge driver on the real merges of a history that git's own merge
//! stops on (issue 33).
//!
//! ```sh
//! cargo build --release -p wit-cli -p wit-bench --bin merge-eval
//! target/release/merge-eval <git repository> [--wit PATH] [--merges N] [--json]
//! ```
//!
//! Every two-parent merge reachable from HEAD is merged again with `git merge-tree
//! --write-tree` (git's `ort` strategy, its merge bases, rename detection), once as git
//! alone and, where that conflicts, once with the real `wit` binary as the merge driver,
//! set up as `wit hook install` sets it up (the driver command in the config, `*.<ext>
//! merge=wit` in `info/attributes`). Each file git left conflicted is then merged by the
//! driver or still conflicted, and a merged one is compared with the file of the merge
//! commit itself: the project's own resolution (`eval.rs`). The repository is only read:
//! the work happens on a bare `--shared` clone in a temp directory.

mod eval;
mod report;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};

/// Replays the merges of `repository` that git stops on, with the driver `wit`; at most
/// `limit` of them (the newest first).
pub fn run(repository: &Path, wit: &Path, limit: Option<usize>) -> Result<report::Report> {
    let t0 = Instant::now();
    let scratch = tempfile::tempdir().context("a temp directory for the clone")?;
    let git = wit_bench::history::git::Git::clone_from(repository, scratch.path())?;
    let head = git.commit_of("HEAD")?;
    let mut evaluator = eval::Evaluator::new(&git, wit)?;
    let merges = git.merges()?;
    let mut results = Vec::new();
    let mut failed = Vec::new();
    let mut replayed = 0;
    for (i, (merge, p1, p2)) in merges.iter().enumerate() {
        if limit.is_some_and(|n| results.len() >= n) {
            break;
        }
        if (i + 1) % 100 == 0 {
            eprintln!(
                "merge-eval: {} of {} merges ({:.0} s)",
                i + 1,
                merges.len(),
                t0.elapsed().as_secs_f64()
            );
        }
        replayed += 1;
        match evaluator.evaluate(merge, p1, p2) {
            Ok(Some(r)) => results.push(r),
            Ok(None) => {}
            // One odd merge (a tree git cannot merge) should not sink the run.
            Err(e) => failed.push((merge.clone(), format!("{e:#}"))),
        }
    }
    Ok(report::Report::new(
        repository.display().to_string(),
        head,
        merges.len(),
        replayed,
        results,
        failed,
        t0.elapsed().as_secs_f64(),
    ))
}

/// The `wit` beside this binary (`target/release/wit` for `target/release/merge-eval`).
fn default_wit() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.join("wit")).filter(|p| p.exists())
}

fn main() -> Result<()> {
    let mut repository: Option<PathBuf> = None;
    let mut wit: Option<PathBuf> = None;
    let mut limit = None;
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--wit" => wit = Some(args.next().context("--wit needs a path")?.into()),
            "--merges" => {
                limit = Some(
                    args.next()
                        .context("--merges needs a count")?
                        .parse::<usize>()
                        .context("--merges needs a positive count")?
                        .max(1),
                );
            }
            "--json" => json = true,
            "-h" | "--help" => {
                println!(
                    "merge-eval <git repository> [--wit PATH] [--merges N] [--json]\n\n\
                     Merges again every two-parent merge of the repository's history (HEAD's) with git\n\
                     merge-tree; where git stops, merges it again with wit's merge driver, and compares\n\
                     each file the driver merged with the merge commit's own. The repository is only read.\n\
                     --wit PATH  the wit binary to use as the driver (default: the wit beside this binary)\n\
                     --merges N  stop after N merges git conflicts on (newest first)\n\
                     --json      print one JSON document instead of the table"
                );
                return Ok(());
            }
            other => wit_bench::args::repository_or_unknown(&mut repository, other)?,
        }
    }
    let repository = wit_bench::args::required_repository(repository)?;
    let wit = match wit.or_else(default_wit) {
        Some(w) => w
            .canonicalize()
            .with_context(|| format!("the wit binary {}", w.display()))?,
        None => bail!(
            "no wit binary beside this one: build it (cargo build --release -p wit-cli) or pass --wit"
        ),
    };
    let report = run(&repository, &wit, limit)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}
