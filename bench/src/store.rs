//! Both stores side by side (issue 13): SQLite on one daemon, and PostgreSQL (a throwaway
//! cluster on a private Unix socket, started here) shared by two daemons on two checkouts
//! of one project. Per backend: `lock.acquire` and `intent.declare` latency from one
//! client, 16-client acquire+release throughput (PostgreSQL: 8 clients on each daemon),
//! and for PostgreSQL the delay from a write's answer on one daemon to an `events.poll`
//! waiter's wake-up on the other.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::json;

use crate::Options;
use crate::client::Conn;
use crate::daemon::Daemon;
use crate::report::Report;
use crate::stats::Samples;

/// A checkout of the benchmark's shared project.
fn checkout() -> Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().canonicalize()?;
    // The shared project: one origin remote (a committed `[store] project` is honoured
    // only under `wit trust`).
    for args in [
        &["init", "-q"][..],
        &[
            "remote",
            "add",
            "origin",
            "https://example.invalid/bench/shared.git",
        ],
    ] {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(&root)
            .stdout(std::process::Stdio::null())
            .status()?;
        anyhow::ensure!(status.success(), "git {args:?} failed");
    }
    std::fs::create_dir_all(root.join("src"))?;
    Ok((dir, root))
}

/// Runs the measures on both backends; `iterations` per latency measure.
pub fn run(opts: &Options, report: &mut Report, iterations: usize) -> Result<()> {
    let cluster = wit_testkit::postgres::Cluster::start();
    cluster.create_db("wit");
    let url = cluster.url("wit");
    for store in [None, Some(url.as_str())] {
        let name = if store.is_some() {
            "postgres"
        } else {
            "sqlite"
        };
        let (_a, a) = checkout()?;
        let (_b, b) = checkout()?;
        let first = Daemon::start_on(&opts.wit, &a, store)?;
        let second = match store {
            Some(_) => Some(Daemon::start_on(&opts.wit, &b, store)?),
            None => None,
        };
        latency(&first, name, report, iterations)?;
        let daemons: Vec<&Daemon> = std::iter::once(&first).chain(second.as_ref()).collect();
        throughput(&daemons, name, report, iterations)?;
        if let Some(second) = &second {
            cross_daemon_event(&first, second, report, iterations.min(300))?;
        }
    }
    Ok(())
}

fn latency(d: &Daemon, name: &str, report: &mut Report, n: usize) -> Result<()> {
    let mut c = d.connect()?;
    let (mut acquire, mut declare) = (Samples::default(), Samples::default());
    for i in 0..n {
        let lock = json!({"symbolPath": format!("src/m{}.ts:f", i % 50), "sessionId": "lat"});
        let t = Instant::now();
        c.ok("lock.acquire", lock.clone())?;
        acquire.0.push(t.elapsed());
        c.ok("lock.release", lock)?;
        let files: Vec<String> = (0..3).map(|f| format!("src/d{i}/{f}.ts")).collect();
        let t = Instant::now();
        c.ok(
            "intent.declare",
            json!({"sessionId": "lat", "description": "bench", "files": files}),
        )?;
        declare.0.push(t.elapsed());
    }
    report.latency(
        &format!("{name}: lock.acquire, one client"),
        &acquire,
        if name == "postgres" {
            "p50 ≤ 1 ms"
        } else {
            ""
        },
    );
    report.latency(
        &format!("{name}: intent.declare (3 files), one client"),
        &declare,
        "",
    );
    Ok(())
}

fn throughput(daemons: &[&Daemon], name: &str, report: &mut Report, n: usize) -> Result<()> {
    let clients = 16;
    let per_client = (n / 2).max(50);
    let sockets: Vec<PathBuf> = daemons.iter().map(|d| d.socket.clone()).collect();
    let t0 = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|k| {
            let socket = sockets[k % sockets.len()].clone();
            std::thread::spawn(move || -> Result<usize> {
                let mut c = Conn::connect(&socket)?;
                let session = format!("tp{k}");
                for i in 0..per_client {
                    let lock = json!({"symbolPath": format!("src/t{k}.ts:f{}", i % 20), "sessionId": session});
                    c.ok("lock.acquire", lock.clone())?;
                    c.ok("lock.release", lock)?;
                }
                Ok(per_client * 2)
            })
        })
        .collect();
    let mut requests = 0;
    for h in handles {
        requests += h.join().expect("client thread")?;
    }
    let rps = requests as f64 / t0.elapsed().as_secs_f64();
    let over = if daemons.len() > 1 {
        "across two daemons"
    } else {
        "one daemon"
    };
    report.value(
        &format!("{name}: acquire+release, 16 clients, {over}"),
        format!("{rps:>9.0} req/s"),
        if name == "postgres" {
            "≥ 5,000 req/s"
        } else {
            ""
        },
        json!({"requests_per_s": rps, "daemons": daemons.len()}),
        rps,
    );
    Ok(())
}

/// From a lock change answered by `writer` to the wake-up of an `events.poll` waiter on
/// `reader` (another daemon).
fn cross_daemon_event(
    writer: &Daemon,
    reader: &Daemon,
    report: &mut Report,
    n: usize,
) -> Result<()> {
    let socket: &Path = &reader.socket;
    let base = Conn::connect(socket)?.ok("events.poll", json!({"since": i64::MAX}))?["last"]
        .as_i64()
        .unwrap_or(0);
    let (send, recv) = mpsc::channel::<Instant>();
    let socket = socket.to_owned();
    let total = n as i64;
    let waiter = std::thread::spawn(move || -> Result<()> {
        let mut c = Conn::connect(&socket)?;
        let (mut since, mut seen) = (base, 0);
        // Counted by events received: the writer's first change also starts its session
        // (a session.started event the filter leaves out).
        while seen < total {
            let r = c.ok(
                "events.poll",
                json!({"since": since, "timeoutMs": 10_000, "kinds": ["lock.acquired", "lock.released"]}),
            )?;
            since = r["next"].as_i64().context("next")?;
            let got = r["events"].as_array().map_or(0, Vec::len);
            seen += got as i64;
            for _ in 0..got {
                send.send(Instant::now())?;
            }
        }
        Ok(())
    });
    let mut c = writer.connect()?;
    let samples = match crate::liveness::time_wakeups(&mut c, "src/e.ts:f", n, &recv) {
        Ok(samples) => samples,
        Err(e) => {
            // Why the waiter stopped, if it did.
            return Err(match waiter.join() {
                Ok(Err(why)) => why.context(e),
                _ => e,
            });
        }
    };
    waiter.join().expect("waiter thread")?;
    report.latency(
        "postgres: event from one daemon to the other's events.poll waiter",
        &samples,
        "p50 ≤ 5 ms",
    );
    Ok(())
}
