//! The measured scenarios, in the order of issue 6.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};

use crate::Options;
use crate::client::Conn;
use crate::daemon::{Daemon, time_process};
use crate::fixtures;
use crate::report::Report;
use crate::stats::{Memory, Samples, us};

pub(crate) const TS: &str = "src/big.ts";
const PY: &str = "src/big.py";
pub(crate) const FUNCTIONS: usize = 200;

fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(Duration, T)> {
    let t = Instant::now();
    let v = f()?;
    Ok((t.elapsed(), v))
}

/// `method` (`lock.acquire` or `lock.release`) on `path` for the `bench` session.
fn bench_lock(c: &mut Conn, method: &str, path: &str) -> Result<Value> {
    c.ok(method, json!({"symbolPath": path, "sessionId": "bench"}))
}

/// How long `lock.acquire` of `path` takes for the `bench` session; the lock is released
/// again (untimed) so the next call finds the same state.
pub(crate) fn timed_acquire(c: &mut Conn, path: &str) -> Result<Duration> {
    let (t, _) = timed(|| bench_lock(c, "lock.acquire", path))?;
    bench_lock(c, "lock.release", path)?;
    Ok(t)
}

pub(crate) fn setup_repo(root: &Path) -> Result<()> {
    std::fs::create_dir_all(root.join("src"))?;
    std::fs::write(root.join(TS), fixtures::typescript(FUNCTIONS))?;
    std::fs::write(root.join(PY), fixtures::python(FUNCTIONS))?;
    Ok(())
}

fn memory(d: &Daemon) -> Memory {
    Memory::of(d.pid()).unwrap_or_default()
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Runs every scenario and returns the report.
pub fn run_all(opts: &Options) -> Result<Report> {
    let n = |full: usize| (full / opts.scale_down).max(10);
    let mut report = Report::default();
    if opts.only_liveness {
        crate::liveness::run_all(opts, &mut report, n(500))?;
        return Ok(report);
    }
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    setup_repo(&root)?;
    let ts_lines = fixtures::typescript(FUNCTIONS).lines().count();
    let py_lines = fixtures::python(FUNCTIONS).lines().count();
    eprintln!("fixtures: {TS} {ts_lines} lines, {PY} {py_lines} lines, {FUNCTIONS} functions each");

    // Cold start: several fresh daemons, median.
    let mut starts = Samples::default();
    for _ in 0..n(10).min(10) {
        let d = Daemon::start(&opts.wit, &root)?;
        starts.0.push(d.cold_start);
    }
    report.latency("cold start to first pong", &starts, "≤ 15 ms (p50)");

    let daemon = Daemon::start(&opts.wit, &root)?;
    // Idle: start-up over (the index built), then a moment without requests.
    daemon.indexed(Duration::from_secs(60), Duration::from_millis(10))?;
    std::thread::sleep(Duration::from_millis(200));
    // Private memory (what no other process shares) beside RSS. The daemon is the only
    // process mapping `wit` here, so the binary's pages it uses count as its own.
    let idle = memory(&daemon);
    report.value(
        "memory idle",
        idle.describe(),
        "private ≤ 8 MiB",
        idle.json(),
        mib(idle.private()),
    );
    // Then a minute without requests (a quarter of it with --quick): the daemon's timers
    // run (the purge, the worktree checks, the forecast's beat); the highest reading counts.
    let idle_for = Duration::from_secs(if opts.scale_down > 1 { 15 } else { 60 });
    let t0 = Instant::now();
    let mut highest = idle;
    while t0.elapsed() < idle_for {
        std::thread::sleep(Duration::from_millis(500));
        highest = highest.max(memory(&daemon));
    }
    let mut json = highest.json();
    json["seconds"] = json!(idle_for.as_secs());
    report.value(
        "memory idle, highest over a minute",
        format!("{} (over {} s)", highest.describe(), idle_for.as_secs()),
        "private ≤ 8 MiB",
        json,
        mib(highest.private()),
    );
    // The same daemon while another process maps the binary too, as an agent's `wit mcp`
    // does: the executable's pages both use are then shared, no longer the daemon's own.
    {
        let mut mcp = Command::new(&opts.wit)
            .arg("mcp")
            .env("WIT_REPO_ROOT", &root)
            .env("WIT_SESSION", "bench-mcp")
            .current_dir(&root)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()?;
        std::thread::sleep(Duration::from_millis(500));
        let beside = memory(&daemon);
        drop(mcp.stdin.take());
        let _ = mcp.wait();
        report.value(
            "memory idle, beside an idle `wit mcp`",
            beside.describe(),
            "",
            beside.json(),
            mib(beside.private()),
        );
    }

    let mut c = daemon.connect()?;

    // ping, keep-alive.
    for _ in 0..200 {
        c.ok("ping", json!({}))?;
    }
    let mut s = Samples::default();
    for _ in 0..n(5000) {
        let (t, _) = timed(|| c.ok("ping", json!({})))?;
        s.0.push(t);
    }
    report.latency("ping (keep-alive)", &s, "p50 ≤ 30 µs");

    // lock.acquire + lock.release, file unchanged (warm analysis).
    let (mut acq, mut rel) = (Samples::default(), Samples::default());
    for i in 0..n(2000) {
        let path = format!("{TS}:fn{}", i % FUNCTIONS);
        let (t, _) = timed(|| bench_lock(&mut c, "lock.acquire", &path))?;
        acq.0.push(t);
        let (t, _) = timed(|| bench_lock(&mut c, "lock.release", &path))?;
        rel.0.push(t);
    }
    report.latency("lock.acquire, warm (2,200-line TS)", &acq, "p50 ≤ 300 µs");
    report.latency("lock.release", &rel, "");

    // lock.acquire with the file changed before every call (forces a parse).
    let base = fixtures::typescript(FUNCTIONS);
    let mut s = Samples::default();
    for i in 0..n(300) {
        std::fs::write(root.join(TS), format!("{base}// edit {i}\n"))?;
        let path = format!("{TS}:fn{}", i % FUNCTIONS);
        s.0.push(timed_acquire(&mut c, &path)?);
    }
    report.latency("lock.acquire, file changed each call", &s, "p50 ≤ 5 ms");

    let declare = |c: &mut Conn, i: usize| -> Result<String> {
        let v = c.ok(
            "intent.declare",
            json!({"sessionId": "bench", "description": "bench", "files": [TS],
                   "symbols": [format!("fn{}", i % FUNCTIONS), format!("fn{}", (i + 1) % FUNCTIONS)]}),
        )?;
        Ok(v["intentId"].as_str().unwrap_or_default().to_owned())
    };
    let finish = |c: &mut Conn, id: &str| -> Result<()> {
        c.ok(
            "intent.update",
            json!({"intentId": id, "sessionId": "bench", "status": "resolved"}),
        )?;
        Ok(())
    };
    let mut s = Samples::default();
    for i in 0..n(1000) {
        let (t, id) = timed(|| declare(&mut c, i))?;
        s.0.push(t);
        finish(&mut c, &id)?;
    }
    report.latency("intent.declare, 2 symbols, warm", &s, "p50 ≤ 500 µs");
    let warm_declare = s.p50();
    let mut s = Samples::default();
    for i in 0..n(300) {
        std::fs::write(root.join(TS), format!("{base}// edit d{i}\n"))?;
        let (t, id) = timed(|| declare(&mut c, i))?;
        s.0.push(t);
        finish(&mut c, &id)?;
    }
    std::fs::write(root.join(TS), &base)?;
    report.latency("intent.declare, 2 symbols, file changed", &s, "p50 ≤ 5 ms");

    // contract.propose, then 20 accepted contracts for check-contracts.
    let mut s = Samples::default();
    let mut ids = Vec::new();
    for i in 0..n(500) {
        let path = format!("{TS}:fn{}", i % FUNCTIONS);
        let (t, v) = timed(|| {
            c.ok(
                "contract.propose",
                json!({"sessionId": "bench", "symbolPath": path}),
            )
        })?;
        s.0.push(t);
        ids.push(v["contractId"].as_str().unwrap_or_default().to_owned());
    }
    report.latency("contract.propose", &s, "");
    for id in ids.iter().take(20) {
        c.ok(
            "contract.respond",
            json!({"contractId": id, "sessionId": "reviewer", "accept": true}),
        )?;
    }
    for id in ids.iter().skip(20) {
        c.ok(
            "contract.respond",
            json!({"contractId": id, "sessionId": "reviewer", "accept": false}),
        )?;
    }
    let files = json!({"files": [{"path": TS, "content": base}]});
    let mut s = Samples::default();
    for _ in 0..n(500) {
        let (t, v) = timed(|| c.ok("check-contracts", files.clone()))?;
        ensure!(
            v["violations"].as_array().is_some_and(Vec::is_empty),
            "unexpected violations: {v}"
        );
        s.0.push(t);
    }
    report.latency(
        "check-contracts, 2,200 lines, 20 contracts",
        &s,
        "p50 ≤ 5 ms",
    );

    wit_status(opts, &mut report, n(50).min(50))?;

    throughput(&daemon, &mut report, n(20_000))?;
    contention(&daemon, &mut report)?;

    let after = memory(&daemon);
    report.value(
        "memory after the workload",
        after.describe(),
        "RSS ≤ 40 MB",
        after.json(),
        mib(after.private()),
    );

    scale(&daemon, &mut c, &mut report, n(10_000), warm_declare)?;
    soak(&daemon, &mut report, n(100_000))?;
    drop(c);
    drop(daemon);
    crate::liveness::run_all(opts, &mut report, n(500))?;
    Ok(report)
}

/// `wit status --json` as a whole process, against its own daemon holding the state of a
/// busy session: 10 intents, 10 locks and 5 contracts (2 accepted).
///
/// Why a separate daemon: by this point the main one holds hundreds of contracts from the
/// propose measure, and `wit status` would then time printing them, not its own cost.
fn wit_status(opts: &Options, report: &mut Report, runs: usize) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    setup_repo(&root)?;
    let daemon = Daemon::start(&opts.wit, &root)?;
    let mut c = daemon.connect()?;
    for i in 0..10 {
        let session = format!("agent{}", i % 3);
        c.ok(
            "lock.acquire",
            json!({"symbolPath": format!("{TS}:fn{i}"), "sessionId": session}),
        )?;
        c.ok(
            "intent.declare",
            json!({"sessionId": session, "description": format!("change {i}"),
                   "files": [TS], "symbols": [format!("fn{}", i + 20)]}),
        )?;
    }
    for i in 0..5 {
        let v = c.ok(
            "contract.propose",
            json!({"sessionId": "agent0", "symbolPath": format!("{TS}:fn{}", i + 40)}),
        )?;
        if i < 2 {
            c.ok(
                "contract.respond",
                json!({"contractId": v["contractId"], "sessionId": "agent1", "accept": true}),
            )?;
        }
    }
    let mut walls = Samples::default();
    let mut max_rss = 0;
    for _ in 0..runs {
        let (wall, rss) = time_process(
            Command::new(&opts.wit)
                .args(["status", "--json"])
                .env("WIT_REPO_ROOT", &root)
                .env("WIT_SESSION", "agent0")
                .current_dir(&root),
        )?;
        walls.0.push(wall);
        max_rss = max_rss.max(rss);
    }
    report.latency("wit status (whole process)", &walls, "≤ 5 ms wall");
    wit_guard(opts, report, &root, runs)?;
    claims_only(opts, report, runs)?;
    mcp_tool_calls(opts, report, &root, runs * 4)?;
    report.value(
        "wit status max RSS",
        format!("{:.1} MiB", mib(max_rss)),
        "≤ 10 MB",
        json!({"kib": max_rss}),
        mib(max_rss),
    );
    Ok(())
}

/// `wit guard` (the agents' pre-edit hook) as a whole process, with a Claude Code
/// `PreToolUse` Edit payload, against the busy daemon of [`wit_status`]: an edit of a
/// function nobody locked (allowed, in a file where others hold locks: both daemon calls)
/// and one inside a function another session locked (refused, exit 2).
/// The claims on the edit path (`claims.rs`), on a fixture of their own (`--claims`).
pub fn claims_only(opts: &Options, report: &mut Report, runs: usize) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    setup_repo(&root)?;
    crate::claims::run(opts, report, runs, &root, TS)
}

fn wit_guard(opts: &Options, report: &mut Report, root: &Path, runs: usize) -> Result<()> {
    let file = root.join(TS);
    let edit = |function: usize| -> Result<PathBuf> {
        let path = root.join(format!(".guard-payload-{function}.json"));
        guard_payload(
            root,
            &file,
            (
                &format!("  if (v > {function}) {{"),
                &format!("  if (v >= {function}) {{"),
            ),
            &path,
        )?;
        Ok(path)
    };
    // fn1 is locked by agent1 (see the state above); fn45 by nobody.
    for (name, payload, expected, target) in [
        (
            "wit guard, edit allowed (whole process)",
            edit(45)?,
            0,
            "≤ 20 ms p50",
        ),
        (
            "wit guard, edit refused (whole process)",
            edit(1)?,
            2,
            "≤ 20 ms p50",
        ),
    ] {
        let walls = guard_walls(opts, root, ("agent0", &payload), expected, runs)
            .with_context(|| name.to_owned())?;
        report.latency(name, &walls, target);
    }
    Ok(())
}

/// Writes to `path` a Claude Code `PreToolUse` payload of an Edit of `file` (in `root`)
/// replacing `old` with `new`.
pub(crate) fn guard_payload(
    root: &Path,
    file: &Path,
    (old, new): (&str, &str),
    path: &Path,
) -> Result<()> {
    let payload = json!({
        "session_id": "bench", "transcript_path": "/dev/null",
        "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Edit",
        "tool_input": { "file_path": file, "old_string": old, "new_string": new }
    });
    std::fs::write(path, payload.to_string())?;
    Ok(())
}

/// `wit guard --agent claude` run `runs` times in `root` as `session`, with the payload
/// file `payload` on its stdin: each run's wall time; an exit other than `expected` is an
/// error.
pub(crate) fn guard_walls(
    opts: &Options,
    root: &Path,
    (session, payload): (&str, &Path),
    expected: i32,
    runs: usize,
) -> Result<Samples> {
    let mut walls = Samples::default();
    for _ in 0..runs {
        let t0 = Instant::now();
        let out = Command::new(&opts.wit)
            .args(["guard", "--agent", "claude"])
            .env("WIT_REPO_ROOT", root)
            .env("WIT_SESSION", session)
            .current_dir(root)
            .stdin(std::fs::File::open(payload)?)
            .output()?;
        walls.0.push(t0.elapsed());
        if out.status.code() != Some(expected) {
            bail!(
                "wit guard: exit {:?}, expected {expected}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    Ok(walls)
}

/// MCP tool calls through `wit mcp` (newline-delimited JSON-RPC on its stdio, as every MCP
/// client speaks it): `wit_lock` then `wit_release` of one function, each timed from the
/// request written to the answer read.
fn mcp_tool_calls(opts: &Options, report: &mut Report, root: &Path, rounds: usize) -> Result<()> {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(&opts.wit)
        .arg("mcp")
        .env("WIT_REPO_ROOT", root)
        .env("WIT_SESSION", "bench-mcp")
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let mut input = child.stdin.take().context("no stdin")?;
    let mut output = BufReader::new(child.stdout.take().context("no stdout")?);
    let mut id = 0u64;
    /// Sends one request and reads lines until its answer (skipping notifications).
    fn request(
        input: &mut impl Write,
        output: &mut impl BufRead,
        id: &mut u64,
        method: &str,
        params: Value,
    ) -> Result<Value> {
        *id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": *id, "method": method, "params": params});
        writeln!(input, "{msg}")?;
        input.flush()?;
        loop {
            let mut line = String::new();
            if output.read_line(&mut line)? == 0 {
                bail!("wit mcp closed its output");
            }
            let v: Value = serde_json::from_str(&line)?;
            if v["id"] == json!(*id) {
                return Ok(v);
            }
        }
    }
    request(
        &mut input,
        &mut output,
        &mut id,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "wit-bench", "version": "1"}}),
    )?;
    writeln!(
        input,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )?;
    let symbol = format!("{TS}:fn60");
    let (mut locks, mut releases) = (Samples::default(), Samples::default());
    for _ in 0..rounds {
        for (tool, samples) in [("wit_lock", &mut locks), ("wit_release", &mut releases)] {
            let t0 = Instant::now();
            let v = request(
                &mut input,
                &mut output,
                &mut id,
                "tools/call",
                json!({"name": tool, "arguments": {"symbolPath": symbol}}),
            )?;
            samples.0.push(t0.elapsed());
            ensure!(v["result"]["isError"] == json!(false), "{tool} failed: {v}");
        }
    }
    drop(input);
    let _ = child.wait();
    report.latency(
        "MCP tool call wit_lock (through wit mcp)",
        &locks,
        "reported",
    );
    report.latency(
        "MCP tool call wit_release (through wit mcp)",
        &releases,
        "reported",
    );
    Ok(())
}

/// Runs `clients` copies of `client` in parallel, each on a connection of its own, and
/// returns their results in client order (the first error in that order, if any).
///
/// The clients connect first and start together after a barrier, so connecting is not part
/// of what they race or measure. A failed connect still reaches the barrier (and is then
/// reported), so it cannot leave the other clients waiting forever.
fn on_clients<T: Send>(
    daemon: &Daemon,
    clients: usize,
    client: impl Fn(usize, &mut Conn) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let barrier = Barrier::new(clients);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|k| {
                let (barrier, client) = (&barrier, &client);
                s.spawn(move || -> Result<T> {
                    let conn = daemon.connect();
                    barrier.wait();
                    client(k, &mut conn?)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("bench client thread"))
            .collect()
    })
}

/// Acquire/release cycles from 1, 4, 16 and 64 clients, each on its own symbols.
fn throughput(daemon: &Daemon, report: &mut Report, per_level: usize) -> Result<()> {
    for clients in [1usize, 4, 16, 64] {
        let per_client = (per_level / clients).max(10);
        let t0 = Instant::now();
        let results = on_clients(daemon, clients, |k, c| {
            let session = format!("tp{k}");
            // Each client cycles over its own real functions, so no two clients ever
            // contend and every error is a real failure.
            let mine: Vec<usize> = (k..FUNCTIONS).step_by(clients).collect();
            let (mut ok, mut err) = (0, 0);
            for i in 0..per_client {
                let path = format!("{TS}:fn{}", mine[i % mine.len()]);
                for m in ["lock.acquire", "lock.release"] {
                    match c.call(m, json!({"symbolPath": path, "sessionId": session}))? {
                        Ok(_) => ok += 1,
                        Err(_) => err += 1,
                    }
                }
            }
            Ok((ok, err))
        })?;
        let elapsed = t0.elapsed();
        let (mut ok, mut err) = (0, 0);
        for (o, e) in results {
            ok += o;
            err += e;
        }
        let rps = (ok + err) as f64 / elapsed.as_secs_f64();
        report.value(
            &format!("acquire+release throughput, {clients} clients"),
            format!("{rps:>9.0} req/s   errors {err}"),
            if clients == 16 {
                "≥ 20,000 req/s"
            } else {
                ""
            },
            json!({"requests_per_s": rps, "ok": ok, "errors": err}),
            rps,
        );
    }
    Ok(())
}

/// 32 sessions race for one symbol, 20 rounds; exactly one may win each round.
fn contention(daemon: &Daemon, report: &mut Report) -> Result<()> {
    let mut winners = Vec::new();
    for round in 0..20 {
        let path = format!("{TS}:fn{round}");
        let wins = on_clients(daemon, 32, |k, c| {
            let session = format!("race{round}-{k}");
            Ok(
                match c.call(
                    "lock.acquire",
                    json!({"symbolPath": path, "sessionId": session}),
                )? {
                    Ok(_) => Some(session),
                    Err(e) => {
                        ensure!(e["message"] == "LOCK_CONFLICT", "unexpected error {e}");
                        None
                    }
                },
            )
        })?;
        let won: Vec<String> = wins.into_iter().flatten().collect();
        winners.push(won.len());
        let mut c = daemon.connect()?;
        for s in won {
            c.ok("lock.release", json!({"symbolPath": path, "sessionId": s}))?;
        }
    }
    let all_one = winners.iter().all(|&w| w == 1);
    report.value(
        "contention: 32 sessions × 20 rounds",
        format!("winners per round {winners:?}"),
        "exactly 1 each",
        json!({"winners": winners, "exactly_one": all_one}),
        0.0,
    );
    ensure!(all_one, "a round had other than one winner: {winners:?}");
    Ok(())
}

/// Latencies with many active locks and intents in the store.
fn scale(
    daemon: &Daemon,
    c: &mut Conn,
    report: &mut Report,
    count: usize,
    empty_declare: Duration,
) -> Result<()> {
    let mut s = Samples::default();
    for i in 0..200 {
        let path = format!("{TS}:fn{}", i % FUNCTIONS);
        s.0.push(timed_acquire(c, &path)?);
    }
    let empty_acquire = s.p50();
    // Fill the store from 4 connections: locks and intents of other sessions on other files.
    on_clients(daemon, 4, |k, c| {
        for i in (k..count).step_by(4) {
            let file = format!("gen/m{}.ts", i % 1000);
            c.ok("lock.acquire", json!({"symbolPath": format!("{file}:f{i}"), "sessionId": format!("filler{}", i % 50)}))?;
            c.ok(
                "intent.declare",
                json!({"sessionId": format!("filler{}", i % 50), "description": "filler", "files": [file], "symbols": [format!("f{i}")]}),
            )?;
        }
        Ok(())
    })?;
    let mut acq = Samples::default();
    let mut dec = Samples::default();
    for i in 0..200 {
        let path = format!("{TS}:fn{}", i % FUNCTIONS);
        acq.0.push(timed_acquire(c, &path)?);
        let (t, v) = timed(|| {
            c.ok(
                "intent.declare",
                json!({"sessionId": "bench", "description": "bench", "files": [TS], "symbols": [format!("fn{i}"), format!("fn{}", i + 1)]}),
            )
        })?;
        dec.0.push(t);
        c.ok(
            "intent.update",
            json!({"intentId": v["intentId"], "sessionId": "bench", "status": "resolved"}),
        )?;
    }
    report.latency(
        &format!("lock.acquire with {count} locks + intents"),
        &acq,
        "≤ 2× empty",
    );
    report.value(
        "  ratio to empty store (acquire)",
        format!("{:.2}×", us(acq.p50()) / us(empty_acquire)),
        "≤ 2×",
        json!(us(acq.p50()) / us(empty_acquire)),
        us(acq.p50()) / us(empty_acquire),
    );
    report.latency(
        &format!("intent.declare with {count} locks + intents"),
        &dec,
        "≤ 2× empty",
    );
    report.value(
        "  ratio to empty store (declare)",
        format!("{:.2}×", us(dec.p50()) / us(empty_declare)),
        "≤ 2×",
        json!(us(dec.p50()) / us(empty_declare)),
        us(dec.p50()) / us(empty_declare),
    );
    Ok(())
}

/// Private memory over many acquire/release cycles: it must stay flat.
fn soak(daemon: &Daemon, report: &mut Report, cycles: usize) -> Result<()> {
    let run = |count: usize| -> Result<()> {
        on_clients(daemon, 4, |k, c| {
            for i in 0..count / 4 {
                // Clients use disjoint functions (k, k+4, …): no contention.
                let path = format!("{TS}:fn{}", (k + 4 * i) % FUNCTIONS);
                let session = format!("soak{k}");
                c.ok(
                    "lock.acquire",
                    json!({"symbolPath": path, "sessionId": session}),
                )?;
                c.ok(
                    "lock.release",
                    json!({"symbolPath": path, "sessionId": session}),
                )?;
            }
            Ok(())
        })?;
        Ok(())
    };
    // Warm up to a steady state, then compare.
    run(cycles / 10)?;
    let before = memory(daemon);
    run(cycles)?;
    let after = memory(daemon);
    let growth =
        (after.private() as f64 - before.private() as f64) / before.private().max(1) as f64 * 100.0;
    report.value(
        &format!("private memory over {cycles} acquire/release cycles"),
        format!(
            "{:.1} → {:.1} MiB ({growth:+.1} %); RSS {:.1} → {:.1} MiB",
            mib(before.private()),
            mib(after.private()),
            mib(before.rss),
            mib(after.rss)
        ),
        "growth ≤ 10 %",
        json!({"before": before.json(), "after": after.json(), "growth_percent": growth}),
        growth,
    );
    Ok(())
}
