//! `claims-eval`: wit's claims (agents sharing one checkout, issue 30) replayed on a real
//! history. Two Claude Code sessions edit one checkout through the hooks `wit init
//! --agents claude` configures, each making one real commit's changes; the guard's answers
//! are scored against oracles computed without the claims' code.
//!
//! ```sh
//! cargo build --release -p wit-cli -p wit-bench --bin claims-eval
//! target/release/claims-eval <git repository> [--pairs N] [--json] [--wit PATH] [--pair C1+C2] [--join N]
//! ```
//!
//! Pairs are `forecast-eval`'s generated pairs (`bench/src/history/pairs.rs`): two
//! commits at most five apart touching a common file, here one a built-in analyzer covers;
//! C1 is session A's work, C2 (cherry-picked onto C1's parent) session B's. Each pair is
//! replayed in a fresh `git clone --shared` checked out at C1's parent, with its own
//! `wit daemon run` (`eval.rs`): the commits' hunks as `Edit` payloads (`edits.rs`,
//! `payload.rs`), A and B alternating, each through the real pre-edit hook, made when
//! allowed, then reported through the real post-edit hook (`hooks.rs`); then B's
//! whole-file `Write` of each common file from its stale read. `oracle.rs` says which
//! warnings and refusals were due; `report.rs` counts. The repository is only read.

mod edits;
mod eval;
mod hooks;
mod oracle;
mod payload;
mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use wit_bench::history::git::Git;
use wit_bench::history::pairs;

/// Pairs replayed by default: enough for the figures, a few minutes per repository.
const DEFAULT_PAIRS: usize = 60;

/// Replays up to `count` pairs of `repository`'s history with the `wit` binary `wit`
/// (`only`: just the pair of these two commits, `C1+C2`).
fn run(repository: &Path, opts: &Options) -> Result<report::Report> {
    let (count, wit, only) = (opts.pairs, opts.wit.as_path(), opts.only.as_deref());
    let t0 = Instant::now();
    let scratch = tempfile::tempdir().context("a temp directory for the clone")?;
    let git = Git::clone_from(repository, scratch.path())?;
    let head = git.commit_of("HEAD")?;
    let replayer = eval::Replayer::new(&git, wit, opts.join);
    let mut chosen = pairs::Chosen::default();
    match only {
        Some(label) => {
            let (c1, c2) = label
                .split_once('+')
                .context("--pair takes C1+C2 (two commits)")?;
            let (c1, c2) = (git.commit_of(c1)?, git.commit_of(c2)?);
            let parent = git.commit_of(&format!("{c1}^"))?;
            match pairs::generated_pair(&git, &c1, &parent, &c2)? {
                Ok(pair) => chosen.pairs.push(pair),
                Err(why) => bail!("{label}: {why}"),
            }
        }
        // Three candidates per pair asked: one that cannot be replayed (no analysed change
        // left on a side, or too many hunks) makes room for the next.
        None => pairs::generated(
            &git,
            count * 3,
            |common| common.iter().any(|f| replayer.analysed(f)),
            &mut chosen,
        )?,
    }
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    for reason in &chosen.skipped {
        *skipped.entry(reason.clone()).or_default() += 1;
    }
    let (mut results, mut failed) = (Vec::new(), Vec::new());
    for pair in &chosen.pairs {
        if results.len() >= count {
            break;
        }
        let done = results.len() + failed.len();
        if done > 0 && done % 10 == 0 {
            eprintln!(
                "claims-eval: {} pairs replayed ({:.0} s)",
                results.len(),
                t0.elapsed().as_secs_f64()
            );
        }
        match replayer.replay(pair) {
            Ok(Ok(r)) => results.push(r),
            Ok(Err(reason)) => *skipped.entry(reason).or_default() += 1,
            // One pair that cannot be replayed (a checkout git refuses) should not sink
            // the run: it is reported instead.
            Err(e) => failed.push((pair.label.clone(), format!("{e:#}"))),
        }
    }
    Ok(report::Report::new(
        repository.display().to_string(),
        head,
        count,
        opts.join,
        chosen.generated_candidates,
        skipped,
        failed,
        results,
        t0.elapsed().as_secs_f64(),
    ))
}

/// What to replay, and how.
struct Options {
    /// At most this many pairs.
    pairs: usize,
    /// The `wit` binary under test.
    wit: PathBuf,
    /// Only the pair `C1+C2`.
    only: Option<String>,
    /// Hunks at most this many lines apart are one edit (`None`: each hunk alone).
    join: Option<usize>,
}

/// The `wit` binary next to this one (`target/release/wit` for a release build).
fn sibling_wit() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("this binary's path")?;
    Ok(exe.with_file_name("wit"))
}

fn main() -> Result<()> {
    let mut repository: Option<PathBuf> = None;
    let mut count = DEFAULT_PAIRS;
    let mut json = false;
    let mut wit: Option<PathBuf> = None;
    let mut only: Option<String> = None;
    let mut join = Some(edits::JOIN_GAP);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--pairs" => count = wit_bench::args::number(&mut args, "--pairs")?.max(1),
            "--json" => json = true,
            "--wit" => wit = Some(args.next().context("--wit needs a path")?.into()),
            "--pair" => only = Some(args.next().context("--pair needs C1+C2")?),
            "--join" => {
                let n = wit_bench::args::number(&mut args, "--join")?;
                join = (n > 0).then_some(n);
            }
            "-h" | "--help" => {
                println!(
                    "claims-eval <git repository> [--pairs N] [--json] [--wit PATH] [--pair C1+C2] [--join N]\n\n\
                     Replays pairs of nearby commits of the repository's history (HEAD) that touch a\n\
                     common analysed file as two Claude Code sessions editing one checkout through the\n\
                     hooks `wit init --agents claude` configures (a real daemon, the real guard), then\n\
                     session B's whole-file write from a stale read, and scores the guard: lost updates\n\
                     refused, warnings where the other session changed the definition (recall), warnings\n\
                     where it did not (precision). The repository is only read.\n\
                     --pairs N      at most N pairs (default {DEFAULT_PAIRS})\n\
                     --json         print one JSON document (every pair, every edit) instead of the table\n\
                     --wit PATH     the wit binary under test (default: the `wit` next to this binary)\n\
                     --pair C1+C2   replay only the pair of these two commits (as the report labels it)\n\
                     --join N       hunks at most N unchanged lines apart are one Edit (default {}, as git diff's\n\
                     \x20              context joins them; 0: every hunk of git diff -U0 is an Edit of its own)",
                    edits::JOIN_GAP
                );
                return Ok(());
            }
            other => wit_bench::args::repository_or_unknown(&mut repository, other)?,
        }
    }
    let repository = wit_bench::args::required_repository(repository)?;
    let wit = match wit {
        Some(w) => w,
        None => sibling_wit()?,
    };
    if !wit.is_file() {
        bail!(
            "no wit binary at {} (build it: cargo build --release -p wit-cli; or pass --wit)",
            wit.display()
        );
    }
    let opts = Options {
        pairs: count,
        wit,
        only,
        join,
    };
    let report = run(&repository, &opts)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(())
}
