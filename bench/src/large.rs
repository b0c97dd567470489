//! The larger scale point (issue 31, `--large`): the code-graph scenario's generated
//! repository at 50,000 files (1,000 packages), committed, with a second checkout (a git
//! worktree). Measured: the cold index (time and rate with nobody asking, then again from
//! nothing with `ping` and `lock.acquire` answered while it builds: no request waits on
//! the index), the daemon's memory once indexed,
//! `lock.acquire` p50 on indexed files, `wit guard` as a whole process, and save →
//! forecast with the second checkout's daemon running. Per-file figures go beside the
//! totals so that they compare with the 10,000-file scenario's (`graph.rs`): linear or
//! better is the expectation.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::json;

use crate::Options;
use crate::client::Conn;
use crate::daemon::Daemon;
use crate::forecast::{committed_repo, git, save_to_forecast, wait_checkouts};
use crate::report::Report;
use crate::scenarios::{guard_payload, guard_walls, timed_acquire};
use crate::stats::{Memory, Samples};

/// Files of the large repository (`--quick`: a tenth).
const FILES: usize = 50_000;

/// Distinct files `lock.acquire` is measured on: fewer than the daemon's analysis cache
/// holds, so that the second pass is warm.
const WARM_FILES: usize = 200;

/// Runs the scenario.
pub fn run(opts: &Options, report: &mut Report) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let top = dir.path().canonicalize()?;
    let (root, written) = committed_repo(&top, FILES / opts.scale_down)?;
    let other = top.join("wt1");
    git(
        &root,
        &[
            "worktree",
            "add",
            "-q",
            other.to_str().context("path")?,
            "-b",
            "b1",
        ],
    )?;
    eprintln!("large: {written} files, main + 1 worktree");
    let label = |what: &str| format!("large ({written} files): {what}");

    // The cold index alone: the figure that compares per file with the 10,000-file
    // scenario's, which is built with nobody asking.
    let quiet = Daemon::start(&opts.wit, &root)?;
    let status = built(&quiet)?;
    drop(quiet);
    let indexed = status["files"].as_u64().unwrap_or(0);
    build_row(report, &label("cold index"), &status, "linear or better");
    // Again from nothing, with a client asking meanwhile: requests are answered, and what
    // answering them costs the build.
    std::fs::remove_dir_all(root.join(".wit")).context("removing the first build's .wit")?;
    let daemon = Daemon::start(&opts.wit, &root)?;
    let (status, during) = build_under_load(&daemon)?;
    build_row(
        report,
        &label("cold index while answering ping and lock.acquire"),
        &status,
        "reported",
    );
    for (what, samples) in [("ping", &during.0), ("lock.acquire", &during.1)] {
        report.latency_row(
            &label(&format!("{what} while the index builds")),
            samples,
            "no request waits on the index",
        );
    }
    let memory = Memory::of(daemon.pid()).unwrap_or_default();
    let mut json = memory.json();
    json["kib_per_file"] = json!(memory.private() as f64 / indexed.max(1) as f64);
    report.row(
        &label("memory indexed"),
        format!(
            "{} ({:.1} KiB private per file)",
            memory.describe(),
            memory.private() as f64 / indexed.max(1) as f64
        ),
        "linear or better",
        json,
        memory.private() as f64 / 1024.0,
    );

    // lock.acquire on indexed files: a first pass, then the same files again. Fewer
    // distinct files than the daemon's analysis cache holds (256), or the second pass is
    // not warm: 300 files cycled in order each missed the cache (2.5 ms p50 here, the
    // cost of parsing the file again, whatever the repository's size).
    let mut c = daemon.connect()?;
    let rounds = (300 / opts.scale_down).max(30);
    let packages = (written / 50).max(1);
    let acquire = |c: &mut Conn| -> Result<Samples> {
        let mut s = Samples::default();
        for i in 0..rounds {
            let k = i % WARM_FILES;
            let (pkg, m) = ((k * 7) % packages, k % 25);
            let path = format!("packages/p{pkg}/src/m{m}.ts:f{m}_0");
            s.0.push(timed_acquire(c, &path)?);
        }
        Ok(s)
    };
    report.latency_row(
        &label("lock.acquire, first touch of a file"),
        &acquire(&mut c)?,
        "reported",
    );
    report.latency_row(&label("lock.acquire, warm"), &acquire(&mut c)?, "reported");
    report.latency_row(
        &label("wit guard, edit allowed (whole process)"),
        &guard(opts, &root, (40 / opts.scale_down).max(5))?,
        "reported",
    );

    // Save → forecast with the second checkout's daemon.
    let second = Daemon::start(&opts.wit, &other)?;
    wait_checkouts(&daemon, 2)?;
    wait_checkouts(&second, 2)?;
    second_checkout(&daemon, &second, &memory, indexed, report, &label)?;
    let (appear, clear) = save_to_forecast(&mut c, &root, &other, (40 / opts.scale_down).max(8))?;
    let mut both = appear;
    both.0.extend(clear.0);
    report.latency_row(&label("save → forecast, 2 checkouts"), &both, "reported");
    // The worktree's daemon stops first: it shares the main checkout's state.
    drop(second);
    Ok(())
}

/// The second checkout's time to a ready index beside the first's, and the memory of
/// every process wit started for the two (the serving process and each `wit daemon run`)
/// beside the first daemon's once indexed.
fn second_checkout(
    first: &Daemon,
    second: &Daemon,
    first_memory: &Memory,
    indexed: u64,
    report: &mut Report,
    label: &dyn Fn(&str) -> String,
) -> Result<()> {
    let build = |d: &Daemon| -> Result<u64> {
        Ok(d.connect()?.ok("graph.status", json!({}))?["buildMs"]
            .as_u64()
            .unwrap_or(0))
    };
    let (a, b) = (build(first)?, build(second)?);
    let mut pids = Vec::new();
    for d in [first, second] {
        let served = d.connect()?.ok("daemon.status", json!({}))?["pid"].as_u64();
        for pid in served.map(|p| p as u32).into_iter().chain([d.pid()]) {
            if !pids.contains(&pid) {
                pids.push(pid);
            }
        }
    }
    let total: u64 = pids
        .iter()
        .map(|&p| Memory::of(p).unwrap_or_default().private())
        .sum();
    let ratio = total as f64 / first_memory.private().max(1) as f64;
    report.row(
        &label("second checkout"),
        format!(
            "ready in {b} ms ({:.3}× the first's {a} ms); {} processes, private {:.1} MiB in all ({ratio:.2}× the first daemon's once indexed, {indexed} files)",
            b as f64 / a.max(1) as f64,
            pids.len(),
            total as f64 / 1024.0
        ),
        "reported",
        json!({"first_build_ms": a, "second_build_ms": b, "processes": pids.len(),
               "total_private_kib": total, "over_first": ratio}),
        ratio,
    );
    Ok(())
}

/// Waits for the first build of `daemon`'s index while one client pings and another
/// acquires and releases a lock every few milliseconds; the final `graph.status` and the
/// two clients' latencies.
fn build_under_load(daemon: &Daemon) -> Result<(serde_json::Value, (Samples, Samples))> {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let pinger = s.spawn(|| -> Result<Samples> {
            let mut c = daemon.connect()?;
            let mut pings = Samples::default();
            while !done.load(Ordering::Relaxed) {
                let t = Instant::now();
                c.ok("ping", json!({}))?;
                pings.0.push(t.elapsed());
                std::thread::sleep(Duration::from_millis(2));
            }
            Ok(pings)
        });
        let locker = s.spawn(|| -> Result<Samples> {
            let mut c = daemon.connect()?;
            let mut locks = Samples::default();
            let mut i = 0usize;
            while !done.load(Ordering::Relaxed) {
                let path = format!("packages/p{}/src/m1.ts:f1_0", i % 100);
                locks.0.push(timed_acquire(&mut c, &path)?);
                i += 1;
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok(locks)
        });
        let waited = built(daemon);
        done.store(true, Ordering::Relaxed);
        let pings = pinger.join().expect("ping thread")?;
        let locks = locker.join().expect("lock thread")?;
        Ok((waited?, (pings, locks)))
    })
}

/// `graph.status` once the daemon's first build is over.
fn built(daemon: &Daemon) -> Result<serde_json::Value> {
    daemon.indexed(Duration::from_secs(1800), Duration::from_millis(50))
}

/// A row for a build's time and rate, from its `graph.status`.
fn build_row(report: &mut Report, name: &str, status: &serde_json::Value, target: &str) {
    let build_ms = status["buildMs"].as_u64().unwrap_or(1).max(1);
    let indexed = status["files"].as_u64().unwrap_or(0);
    report.row(
        name,
        format!(
            "{:.1} s, {:.0} files/s ({indexed} files; {:.2} ms per 1,000 files)",
            build_ms as f64 / 1000.0,
            indexed as f64 * 1000.0 / build_ms as f64,
            build_ms as f64 * 1000.0 / indexed.max(1) as f64,
        ),
        target,
        json!({"build_ms": build_ms, "files": indexed}),
        build_ms as f64,
    );
}

/// `wit guard` (the agents' pre-edit hook) as a whole process: a Claude Code `PreToolUse`
/// Edit of a function nobody locked (allowed), `runs` times.
fn guard(opts: &Options, root: &Path, runs: usize) -> Result<Samples> {
    let path = root.join(".wit/guard-payload.json");
    guard_payload(
        root,
        &root.join("packages/p0/src/m1.ts"),
        (
            "const parts: string[] = [];",
            "const parts: string[] = ['guarded'];",
        ),
        &path,
    )?;
    guard_walls(opts, root, ("bench-guard", &path), 0, runs)
}
