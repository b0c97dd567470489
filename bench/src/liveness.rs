//! Liveness measures: a declare of 50,000 files and the pings of other clients during it,
//! how soon a committed change reaches a waiter (`events.poll`, `GET /events`) and a
//! released lock its waiting `lock.acquire`, and what 1,000 idle waiters cost.
//!
//! Each measure runs on a daemon of its own (a fresh temp repository), so that none sees
//! another's state.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};

use crate::Options;
use crate::client::Conn;
use crate::daemon::Daemon;
use crate::report::Report;
use crate::stats::{Samples, process_cpu, rss_kib, us};

/// Files per heavy declare, and how many such declares are timed.
const HEAVY_FILES: usize = 50_000;
const HEAVY_ROUNDS: usize = 5;
/// Idle waiters held open at once.
const WAITERS: usize = 1_000;
/// How long the idle daemon's CPU time is watched.
const IDLE_WATCH: Duration = Duration::from_secs(3);

/// A daemon on an empty temp repository (kept alive by the returned directory).
fn fresh(opts: &Options) -> Result<(tempfile::TempDir, Daemon)> {
    let dir = tempfile::tempdir()?;
    let root: PathBuf = dir.path().canonicalize()?;
    std::fs::create_dir_all(root.join("src"))?;
    let daemon = Daemon::start(&opts.wit, &root)?;
    Ok((dir, daemon))
}

/// Runs every liveness measure; `iterations` bounds the per-event ones.
pub fn run_all(opts: &Options, report: &mut Report, iterations: usize) -> Result<()> {
    heavy_declare(opts, report)?;
    event_delivery(opts, report, iterations)?;
    lock_handoff(opts, report, iterations.min(300))?;
    idle_waiters(opts, report)?;
    Ok(())
}

/// Declares of 50,000 files (each sharing 10,000 with the one before, so the overlap
/// check has work), back to back: five alone (with the daemon's CPU time for each), then
/// five while two other clients ping without pause.
fn heavy_declare(opts: &Options, report: &mut Report) -> Result<()> {
    let (_dir, d) = fresh(opts)?;
    let body = |r: usize| -> Result<Vec<u8>> {
        let from = r * (HEAVY_FILES - 10_000);
        let files: Vec<String> = (from..from + HEAVY_FILES)
            .map(|i| format!("src/module{}/file{i}.ts", i % 500))
            .collect();
        Conn::body(
            "intent.declare",
            &json!({"sessionId": format!("heavy{r}"), "description": "a 50,000-file change", "files": files}),
        )
    };
    let mut c = d.connect()?;
    let (mut alone, mut cpu) = (Samples::default(), Samples::default());
    for r in 0..HEAVY_ROUNDS {
        let body = body(r)?;
        let cpu0 = process_cpu(d.pid(), false).context("reading /proc/<pid>/stat")?;
        let t = Instant::now();
        let answer = c.call_body(&body)?;
        alone.0.push(t.elapsed());
        answer.map_err(|e| anyhow::anyhow!("declare failed: {e}"))?;
        // The deferred checkpoint runs after the answer: counted once it is done (the
        // next request on the store waits for it).
        c.ok("intent.query", json!({"sessionId": "nobody"}))?;
        cpu.0.push(
            process_cpu(d.pid(), false)
                .context("reading /proc/<pid>/stat")?
                .saturating_sub(cpu0),
        );
    }
    report.latency(
        "intent.declare, 50,000 files (10,000 shared), alone",
        &alone,
        "≤ 250 ms",
    );
    report.latency(
        "  daemon CPU time per such declare (with its checkpoint)",
        &cpu,
        "",
    );
    let bodies: Vec<Vec<u8>> = (HEAVY_ROUNDS..2 * HEAVY_ROUNDS)
        .map(body)
        .collect::<Result<_>>()?;
    let (started, done) = (AtomicBool::new(false), AtomicBool::new(false));
    let (declares, pings) = std::thread::scope(|s| -> Result<(Samples, Samples)> {
        let pingers: Vec<_> = (0..2)
            .map(|_| {
                let (d, started, done) = (&d, &started, &done);
                s.spawn(move || -> Result<Samples> {
                    let mut c = d.connect()?;
                    let mut samples = Samples::default();
                    while !done.load(Ordering::Acquire) {
                        let t = Instant::now();
                        c.ok("ping", json!({}))?;
                        if started.load(Ordering::Acquire) {
                            samples.0.push(t.elapsed());
                        }
                    }
                    Ok(samples)
                })
            })
            .collect();
        let run = || -> Result<Samples> {
            let mut c = d.connect()?;
            let mut declares = Samples::default();
            started.store(true, Ordering::Release);
            for (r, body) in bodies.iter().enumerate() {
                let t = Instant::now();
                let answer = c.call_body(body)?;
                declares.0.push(t.elapsed());
                let answer = answer.map_err(|e| anyhow::anyhow!("declare failed: {e}"))?;
                let overlaps = answer["conflicts"]["items"].as_array().map_or(0, Vec::len);
                ensure!(overlaps == 1, "declare {r}: {overlaps} conflicts");
            }
            Ok(declares)
        };
        let declares = run();
        done.store(true, Ordering::Release);
        let mut pings = Samples::default();
        for p in pingers {
            pings.0.extend(p.join().expect("pinger thread")?.0);
        }
        Ok((declares?, pings))
    })?;
    report.latency(
        "intent.declare, 50,000 files, 2 clients pinging",
        &declares,
        "",
    );
    report.latency(
        "ping from 2 other clients during those declares",
        &pings,
        "p99 ≤ 5 ms",
    );
    Ok(())
}

/// One change at a time (a lock acquired, then released), each timed from the writer's
/// answer to the waiter's: an `events.poll` long poll, then a `GET /events` reader. Both
/// are woken only after the commit, so the figure is how long the wake-up takes (0 when
/// the waiter's answer came first).
fn event_delivery(opts: &Options, report: &mut Report, iterations: usize) -> Result<()> {
    let (_dir, d) = fresh(opts)?;
    for stream in [false, true] {
        let (send, recv) = mpsc::channel::<Instant>();
        let socket = d.socket.clone();
        let total = iterations as i64;
        let base = Conn::connect(&socket)?.ok("events.poll", json!({"since": i64::MAX}))?["last"]
            .as_i64()
            .unwrap_or(0);
        let waiter = std::thread::spawn(move || -> Result<()> {
            let mut c = Conn::connect(&socket)?;
            if stream {
                let head = format!("GET /events?since={base} HTTP/1.1\r\nHost: wit\r\n\r\n");
                c.stream().write_all(head.as_bytes())?;
                let mut seen = 0;
                let mut line = String::new();
                while seen < total {
                    line.clear();
                    if c.reader().read_line(&mut line)? == 0 {
                        bail!("the event stream ended");
                    }
                    if line.starts_with("id: ") {
                        seen += 1;
                        send.send(Instant::now())?;
                    }
                }
                return Ok(());
            }
            let mut since = base;
            while since < base + total {
                let r = c.ok("events.poll", json!({"since": since, "timeoutMs": 10_000}))?;
                let got = r["events"].as_array().map_or(0, Vec::len);
                since = r["next"].as_i64().context("next")?;
                for _ in 0..got {
                    send.send(Instant::now())?;
                }
            }
            Ok(())
        });
        let mut c = d.connect()?;
        let samples = time_wakeups(&mut c, "src/a.ts:f", iterations, &recv)?;
        waiter.join().expect("waiter thread")?;
        if iterations % 2 == 1 {
            c.ok(
                "lock.release",
                json!({"symbolPath": "src/a.ts:f", "sessionId": "writer"}),
            )?;
        }
        let name = if stream {
            "event to a GET /events reader, after the writer's answer"
        } else {
            "event to an events.poll waiter, after the writer's answer"
        };
        report.latency(name, &samples, "p50 ≤ 1 ms");
    }
    Ok(())
}

/// Alternates `lock.acquire` and `lock.release` of `symbol` (session `writer`) `n` times
/// through `c`, timing each from its answer to the next wake-up a waiter reports on `recv`
/// (0 when the wake-up came first).
pub(crate) fn time_wakeups(
    c: &mut Conn,
    symbol: &str,
    n: usize,
    recv: &mpsc::Receiver<Instant>,
) -> Result<Samples> {
    let mut samples = Samples::default();
    for i in 0..n {
        // Let the waiter park again (a benchmark's pause, not a synchronisation).
        std::thread::sleep(Duration::from_millis(2));
        let method = if i % 2 == 0 {
            "lock.acquire"
        } else {
            "lock.release"
        };
        c.ok(method, json!({"symbolPath": symbol, "sessionId": "writer"}))?;
        let answered = Instant::now();
        let woke = recv
            .recv_timeout(Duration::from_secs(10))
            .context("the waiter got no event within 10 s")?;
        samples.0.push(woke.saturating_duration_since(answered));
    }
    Ok(samples)
}

/// A `lock.acquire` with `waitMs` parked on a held lock; timed from the holder's
/// `lock.release` answer to the waiter's answer (0 when the waiter's came first).
fn lock_handoff(opts: &Options, report: &mut Report, iterations: usize) -> Result<()> {
    let (_dir, d) = fresh(opts)?;
    let path = "src/a.ts:f";
    let (go_send, go_recv) = mpsc::channel::<()>();
    let (got_send, got_recv) = mpsc::channel::<Instant>();
    let (freed_send, freed_recv) = mpsc::channel::<()>();
    let socket = d.socket.clone();
    let waiter = std::thread::spawn(move || -> Result<()> {
        let mut c = Conn::connect(&socket)?;
        while go_recv.recv().is_ok() {
            let lock = json!({"symbolPath": path, "sessionId": "waiter", "waitMs": 10_000});
            c.ok("lock.acquire", lock)?;
            got_send.send(Instant::now())?;
            c.ok(
                "lock.release",
                json!({"symbolPath": path, "sessionId": "waiter"}),
            )?;
            freed_send.send(())?;
        }
        Ok(())
    });
    let mut c = d.connect()?;
    let holder = json!({"symbolPath": path, "sessionId": "holder"});
    let mut samples = Samples::default();
    for _ in 0..iterations {
        c.ok("lock.acquire", holder.clone())?;
        go_send.send(())?;
        // Let the waiter queue up (a benchmark's pause, not a synchronisation).
        std::thread::sleep(Duration::from_millis(3));
        c.ok("lock.release", holder.clone())?;
        let released = Instant::now();
        let got = got_recv
            .recv_timeout(Duration::from_secs(10))
            .context("the waiter never got the lock")?;
        samples.0.push(got.saturating_duration_since(released));
        freed_recv.recv_timeout(Duration::from_secs(10))?;
    }
    drop(go_send);
    waiter.join().expect("waiter thread")?;
    report.latency(
        "waiting lock.acquire, after the holder's release answer",
        &samples,
        "p50 ≤ 2 ms",
    );
    Ok(())
}

/// 1,000 `events.poll` long polls, then 1,000 `GET /events` streams, held idle: the daemon's
/// RSS increase and its CPU time over a few idle seconds.
fn idle_waiters(opts: &Options, report: &mut Report) -> Result<()> {
    for stream in [false, true] {
        let (_dir, d) = fresh(opts)?;
        std::thread::sleep(Duration::from_millis(200));
        let before = rss_kib(d.pid()).unwrap_or(0);
        let mut conns = Vec::with_capacity(WAITERS);
        for _ in 0..WAITERS {
            let mut c = d.connect()?;
            if stream {
                c.stream()
                    .write_all(b"GET /events?since=0 HTTP/1.1\r\nHost: wit\r\n\r\n")?;
            } else {
                c.send("events.poll", json!({"since": 0, "timeoutMs": 300_000}))?;
            }
            conns.push(c);
        }
        // A ping on a connection accepted after all of them, then a moment for the last
        // waiters to park and the allocator to settle (a benchmark's pause).
        ensure!(d.connect()?.ok("ping", json!({}))? == Value::from("pong"));
        std::thread::sleep(Duration::from_millis(500));
        let after = rss_kib(d.pid()).unwrap_or(0);
        let cpu0 = process_cpu(d.pid(), false).context("reading /proc/<pid>/stat")?;
        std::thread::sleep(IDLE_WATCH);
        let cpu1 = process_cpu(d.pid(), false).context("reading /proc/<pid>/stat")?;
        let what = if stream {
            "GET /events streams"
        } else {
            "events.poll waiters"
        };
        let grown = (after as f64 - before as f64) / 1024.0;
        report.value(
            &format!("RSS increase, {WAITERS} idle {what}"),
            format!(
                "{grown:+.1} MiB ({:.1} → {:.1} MiB)",
                before as f64 / 1024.0,
                after as f64 / 1024.0
            ),
            "≤ 20 MB",
            json!({"before_kib": before, "after_kib": after}),
            grown,
        );
        let cpu = cpu1.saturating_sub(cpu0);
        report.value(
            &format!(
                "CPU time over {} s idle, {WAITERS} {what}",
                IDLE_WATCH.as_secs()
            ),
            format!("{:.1} ms", us(cpu) / 1000.0),
            "≈ 0",
            json!({"cpu_us": us(cpu)}),
            us(cpu),
        );
        drop(conns);
    }
    Ok(())
}
