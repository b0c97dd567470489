//! The conflict forecast's scenario (issue 22): save-to-forecast latency on the generated
//! 10,000-file repository with two checkouts (git worktrees), and with four (or
//! `--checkouts N`) each one's time to a ready index and the daemons' memory.
//!
//! Each sample is one save: the main checkout rewrites a function that the other
//! checkout has changed too (so a same-symbol forecast appears), or rewrites it back (so
//! it clears); the time runs from the write's return to the `forecast.appeared` (or
//! `forecast.cleared`) event, waited for with a long poll of the event log. It covers the
//! file watcher's settling, the index's re-read, the forecast thread's comparison with
//! the merge base, publication, and the pair's reconciliation.
//!
//! With every checkout's change in place, the CPU time a save costs (the processes wit
//! started and the git processes they ran): each save a new version of the function all
//! the checkouts changed, so every pair with the saving checkout is merged again.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::Options;
use crate::client::Conn;
use crate::daemon::Daemon;
use crate::report::Report;
use crate::stats::{Memory, Samples, process_cpu};

/// The file both checkouts edit, and the function in it.
const FILE: &str = "packages/p0/src/m0.ts";
/// The line of [`FILE`]'s first function that the checkouts change.
const NEEDLE: &str = "const parts: string[] = [];";

/// Runs git in `dir` with a fixed identity and no system configuration.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<()> {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.invalid")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.invalid")
        .status()
        .with_context(|| format!("git {args:?}"))?;
    if !status.success() {
        bail!("git {args:?} failed: {status}");
    }
    Ok(())
}

/// Waits until the daemon's index is built and `n` checkouts are ready to forecast.
pub(crate) fn wait_checkouts(d: &Daemon, n: usize) -> Result<()> {
    let mut c = d.connect()?;
    let t0 = Instant::now();
    loop {
        let a = c.ok("conflicts.forecast", json!({}))?;
        let ready = a["checkouts"].as_array().map_or(0, |v| {
            v.iter()
                .filter(|c| c["state"] == "ready" && c["live"] == true)
                .count()
        });
        if ready >= n {
            return Ok(());
        }
        if t0.elapsed() > Duration::from_secs(900) {
            bail!("{n} checkouts not ready within 15 minutes: {a}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The row of each checkout's time to a ready index (`graph.status`'s `buildMs`, the
/// listing included), the first daemon's beside the later ones' (issue 31's target: a
/// later checkout ≤ 0.10× the first), with how many files each analysed and reused.
fn ready_index_times(daemons: &[Daemon], report: &mut Report) -> Result<()> {
    let n = daemons.len();
    let mut builds = Vec::new();
    for d in daemons {
        let s = d.connect()?.ok("graph.status", json!({}))?;
        builds.push((
            s["buildMs"].as_u64().unwrap_or(0),
            s["analysed"].as_u64().unwrap_or(0),
            s["reused"].as_u64().unwrap_or(0),
        ));
    }
    let first = builds.first().map_or(1, |b| b.0.max(1));
    let worst = builds[1..].iter().map(|b| b.0).max().unwrap_or(0);
    let ratio = worst as f64 / first as f64;
    report.row(
        &format!("forecast: time to a ready index, {n} checkouts one after another"),
        format!(
            "{} ms (analysed / reused: {}); later ≤ {ratio:.2}× the first",
            builds
                .iter()
                .map(|b| b.0.to_string())
                .collect::<Vec<_>>()
                .join(" / "),
            builds
                .iter()
                .map(|b| format!("{}/{}", b.1, b.2))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        "later ≤ 0.10× the first",
        json!({"build_ms": builds.iter().map(|b| b.0).collect::<Vec<_>>(),
               "analysed": builds.iter().map(|b| b.1).collect::<Vec<_>>(),
               "reused": builds.iter().map(|b| b.2).collect::<Vec<_>>(),
               "later_over_first": ratio}),
        ratio,
    );
    Ok(())
}

/// Long-polls the event log after `since` for an event of `kind`; its seq.
fn wait_event(c: &mut Conn, since: i64, kind: &str) -> Result<i64> {
    let t0 = Instant::now();
    let mut since = since;
    loop {
        let got = c.ok(
            "events.poll",
            json!({"since": since, "kinds": [kind], "timeoutMs": 10_000}),
        )?;
        if let Some(e) = got["events"].as_array().and_then(|v| v.first()) {
            return Ok(e["seq"].as_i64().unwrap_or(since));
        }
        since = got["next"].as_i64().unwrap_or(since);
        if t0.elapsed() > Duration::from_secs(30) {
            bail!("no {kind} within 30 s");
        }
    }
}

fn last_seq(c: &mut Conn) -> Result<i64> {
    let got = c.ok("events.poll", json!({"since": 0, "kinds": ["none"]}))?;
    Ok(got["last"].as_i64().unwrap_or(0))
}

/// The code-graph scenario's repository of `files` files generated in `top/main`,
/// committed on branch `main`: its root, and how many files were written.
pub(crate) fn committed_repo(top: &Path, files: usize) -> Result<(std::path::PathBuf, usize)> {
    let root = top.join("main");
    std::fs::create_dir_all(&root)?;
    let written = crate::graph::generate(&root, files)?;
    std::fs::write(root.join(".gitignore"), ".wit/\n")?;
    git(&root, &["init", "-q", "-b", "main"])?;
    git(&root, &["add", "-A"])?;
    git(&root, &["commit", "-q", "-m", "fixture"])?;
    Ok((root, written))
}

/// `samples` saves in the checkout `root` (whose daemon `c` talks to) of a change to the
/// function another checkout, `other`, has changed too (its change written first), each
/// followed by the save of the original: the time from each write's return to the
/// `forecast.appeared` (then `forecast.cleared`) event.
pub(crate) fn save_to_forecast(
    c: &mut Conn,
    root: &Path,
    other: &Path,
    samples: usize,
) -> Result<(Samples, Samples)> {
    let original = std::fs::read_to_string(root.join(FILE))?;
    if !original.contains(NEEDLE) {
        bail!("the fixture changed: no {NEEDLE:?} in {FILE}");
    }
    std::fs::write(
        other.join(FILE),
        original.replacen(NEEDLE, "const parts: string[] = ['other'];", 1),
    )?;
    let mut appear = Samples::default();
    let mut clear = Samples::default();
    for i in 0..samples {
        let since = last_seq(c)?;
        let edited = original.replacen(NEEDLE, &format!("const parts: string[] = ['{i}'];"), 1);
        std::fs::write(root.join(FILE), &edited)?;
        let t = Instant::now();
        let seq = wait_event(c, since, "forecast.appeared")?;
        appear.0.push(t.elapsed());
        std::fs::write(root.join(FILE), &original)?;
        let t = Instant::now();
        wait_event(c, seq, "forecast.cleared")?;
        clear.0.push(t.elapsed());
    }
    Ok((appear, clear))
}

/// How long after each save [`cpu_per_save`] waits: a save's forecasts are done in well
/// under a second.
const SAVE_APART: Duration = Duration::from_millis(1500);

/// The CPU time a save costs the processes wit started (`pids`; with the git processes
/// they ran) when the file saved in `root` is one every checkout changed: each of
/// `saves` saves is a new version of the function, so every pair with the saving checkout
/// is merged again (nothing remembered helps). Beside it, the same processes' CPU over
/// the same time with nothing saved (heartbeats): what is left is the saves'.
fn cpu_per_save(
    root: &Path,
    original: &str,
    pids: &[u32],
    checkouts: usize,
    saves: usize,
    report: &mut Report,
) -> Result<()> {
    let cpu = || -> Duration { pids.iter().filter_map(|&pid| process_cpu(pid, true)).sum() };
    let idle_from = cpu();
    std::thread::sleep(SAVE_APART * saves as u32);
    let idle = cpu().saturating_sub(idle_from);
    let from = cpu();
    for i in 0..saves {
        let edited = original.replacen(NEEDLE, &format!("const parts: string[] = ['s{i}'];"), 1);
        std::fs::write(root.join(FILE), edited)?;
        std::thread::sleep(SAVE_APART);
    }
    let spent = cpu().saturating_sub(from);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0 / saves as f64;
    let per_save = ms(spent.saturating_sub(idle));
    let processes = pids.len();
    report.row(
        &format!("forecast: CPU per save of a file all {checkouts} checkouts changed"),
        format!(
            "{per_save:.1} ms ({saves} saves {} ms apart: {:.1} ms each, less {:.1} ms idle over the same time; every process wit started, {processes} of them, with the git processes they ran)",
            SAVE_APART.as_millis(),
            ms(spent),
            ms(idle),
        ),
        "reported",
        json!({"saves": saves, "apart_ms": SAVE_APART.as_millis() as u64,
               "cpu_ms": spent.as_secs_f64() * 1000.0, "idle_cpu_ms": idle.as_secs_f64() * 1000.0,
               "per_save_ms": per_save}),
        per_save,
    );
    Ok(())
}

/// Runs the scenario.
pub fn run(opts: &Options, report: &mut Report) -> Result<()> {
    let files = if opts.scale_down > 1 { 2_000 } else { 10_000 };
    let samples = (40 / opts.scale_down).max(8);
    let dir = tempfile::tempdir()?;
    let top = dir.path().canonicalize()?;
    let (root, written) = committed_repo(&top, files)?;
    let checkouts = opts.checkouts;
    let worktrees: Vec<std::path::PathBuf> =
        (1..checkouts).map(|i| top.join(format!("wt{i}"))).collect();
    for (i, wt) in worktrees.iter().enumerate() {
        git(
            &root,
            &[
                "worktree",
                "add",
                "-q",
                wt.to_str().context("path")?,
                "-b",
                &format!("b{i}"),
            ],
        )?;
    }
    eprintln!(
        "forecast: {written} files, main + {} worktrees",
        worktrees.len()
    );

    let main = Daemon::start(&opts.wit, &root)?;
    let alone = {
        wait_checkouts(&main, 1)?;
        Memory::of(main.pid()).unwrap_or_default()
    };
    let other = Daemon::start(&opts.wit, &worktrees[0])?;
    wait_checkouts(&main, 2)?;
    wait_checkouts(&other, 2)?;

    let mut c = main.connect()?;
    let (appear, clear) = save_to_forecast(&mut c, &root, &worktrees[0], samples)?;
    let original = std::fs::read_to_string(root.join(FILE))?;
    let needle = NEEDLE;
    let mut both = appear.clone();
    both.0.extend(clear.0.iter().copied());
    report.latency_row(
        &format!("forecast: save → forecast ({written} files, 2 checkouts)"),
        &both,
        "≤ 200 ms p50, ≤ 1 s p99",
    );
    report.latency_row("forecast: save → forecast.appeared", &appear, "");
    report.latency_row("forecast: save → forecast.cleared", &clear, "");

    // `checkouts` checkouts (four by default), each with a change of its own against the
    // merge base. The later daemons start one after another, as the issue measured them:
    // each build has the machine to itself, so the times compare.
    let mut daemons = vec![main, other];
    for wt in &worktrees[1..] {
        let d = Daemon::start(&opts.wit, wt)?;
        wait_checkouts(&d, daemons.len() + 1)?;
        daemons.push(d);
    }
    ready_index_times(&daemons, report)?;
    for (i, wt) in worktrees.iter().enumerate().skip(1) {
        std::fs::write(
            wt.join(FILE),
            original.replacen(needle, &format!("const parts: string[] = ['wt{i}'];"), 1),
        )?;
    }
    for d in &daemons {
        wait_checkouts(d, checkouts)?;
    }
    // Every pair has its forecast (all of them changed f0_0): C(n, 2) of them (6 of four).
    let pairs = checkouts * (checkouts - 1) / 2;
    std::fs::write(
        root.join(FILE),
        original.replacen(needle, "const parts: string[] = ['main'];", 1),
    )?;
    let t0 = Instant::now();
    loop {
        let a: Value = c.ok("conflicts.forecast", json!({}))?;
        if a["forecasts"].as_array().map_or(0, Vec::len) >= pairs {
            break;
        }
        if t0.elapsed() > Duration::from_secs(60) {
            bail!("the {checkouts} checkouts' forecasts did not all appear: {a}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Every process wit started: each `wit daemon run` and the process serving its
    // worktree (the same one for the first; with one daemon per repository, the first's
    // for all of them, the others' only holding their worktree).
    let mut pids: Vec<u32> = Vec::new();
    for d in &daemons {
        let served = d.connect()?.ok("daemon.status", json!({}))?["pid"]
            .as_u64()
            .map(|p| p as u32);
        for pid in served.into_iter().chain([d.pid()]) {
            if !pids.contains(&pid) {
                pids.push(pid);
            }
        }
    }
    let memory: Vec<Memory> = pids
        .iter()
        .map(|&pid| Memory::of(pid).unwrap_or_default())
        .collect();
    let mib = |k: u64| k as f64 / 1024.0;
    let total: u64 = memory.iter().map(Memory::private).sum();
    let list = |f: fn(&Memory) -> u64| {
        memory
            .iter()
            .map(|m| format!("{:.1}", mib(f(m))))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    report.row(
        &format!("forecast: daemon memory, {checkouts} checkouts"),
        format!(
            "{} processes, private {} MiB (total {:.1}, {:.2}× one daemon alone); RSS {} MiB; one daemon alone before any other checkout: {}",
            memory.len(),
            list(Memory::private),
            mib(total),
            total as f64 / alone.private().max(1) as f64,
            list(|m| m.rss),
            alone.describe()
        ),
        "≤ 1.5× one daemon alone",
        json!({
            "processes": memory.iter().map(Memory::json).collect::<Vec<_>>(),
            "total_private_kib": total,
            "alone": alone.json(),
        }),
        mib(total),
    );
    let saves = (10 / opts.scale_down).max(4);
    cpu_per_save(&root, &original, &pids, checkouts, saves, report)?;
    // Worktree daemons stop first: they share the main checkout's state.
    while daemons.len() > 1 {
        daemons.pop();
    }
    Ok(())
}
