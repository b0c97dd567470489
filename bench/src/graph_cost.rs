//! What the code graph costs `lock.acquire` and `intent.declare` on the 2,200-line
//! fixture (issue 10: within 1.2× of the daemon without it): the main scenario's four
//! measures — warm and with the file changed before each call — on daemons side by side:
//! this build with its repository index, the same build with the graph switched off
//! (`[graph] exclude = ["**"]`), and, with `--baseline PATH`, another `wit` binary (the
//! commit before the code graph, say). Each daemon has its own copy of the fixture, and
//! the measures run in rounds that visit every daemon in turn, so that the machine's
//! drift (other processes, frequency, the page cache) falls on all of them alike.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::json;

use crate::Options;
use crate::client::Conn;
use crate::daemon::Daemon;
use crate::fixtures;
use crate::report::Report;
use crate::scenarios::{FUNCTIONS, TS, setup_repo};
use crate::stats::{Samples, us};

/// One daemon under comparison.
struct Variant {
    name: &'static str,
    _dir: tempfile::TempDir,
    root: PathBuf,
    /// Stopped on drop.
    _daemon: Daemon,
    conn: Conn,
    /// Warm acquire, changed acquire, warm declare, changed declare.
    samples: [Samples; 4],
}

const MEASURES: [&str; 4] = [
    "lock.acquire, warm",
    "lock.acquire, file changed each call",
    "intent.declare, 2 symbols, warm",
    "intent.declare, 2 symbols, file changed",
];

impl Variant {
    fn start(name: &'static str, wit: &Path, graph: bool) -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().canonicalize()?;
        setup_repo(&root)?;
        if !graph {
            std::fs::write(root.join("wit.toml"), "[graph]\nexclude = [\"**\"]\n")?;
        }
        let daemon = Daemon::start(wit, &root)?;
        let mut conn = daemon.connect()?;
        // The index's first build, when there is one, is over before anything is timed.
        for _ in 0..600 {
            match conn.call("graph.status", json!({}))? {
                Ok(s) if s["state"] != "building" => break,
                Ok(_) => std::thread::sleep(std::time::Duration::from_millis(5)),
                // A daemon without the extension (an older binary) has no index.
                Err(_) => break,
            }
        }
        Ok(Self {
            name,
            _dir: dir,
            root,
            _daemon: daemon,
            conn,
            samples: Default::default(),
        })
    }

    /// One round: `warm` and `changed` calls of each measure.
    fn round(&mut self, first: usize, warm: usize, changed: usize) -> Result<()> {
        let base = fixtures::typescript(FUNCTIONS);
        let c = &mut self.conn;
        let acquire = |c: &mut Conn, i: usize| -> Result<std::time::Duration> {
            let path = format!("{TS}:fn{}", i % FUNCTIONS);
            let t = std::time::Instant::now();
            c.ok(
                "lock.acquire",
                json!({"symbolPath": path, "sessionId": "bench"}),
            )?;
            let d = t.elapsed();
            c.ok(
                "lock.release",
                json!({"symbolPath": path, "sessionId": "bench"}),
            )?;
            Ok(d)
        };
        let declare = |c: &mut Conn, i: usize| -> Result<std::time::Duration> {
            let t = std::time::Instant::now();
            let v = c.ok(
                "intent.declare",
                json!({"sessionId": "bench", "description": "bench", "files": [TS],
                       "symbols": [format!("fn{}", i % FUNCTIONS), format!("fn{}", (i + 1) % FUNCTIONS)]}),
            )?;
            let d = t.elapsed();
            c.ok(
                "intent.update",
                json!({"intentId": v["intentId"], "sessionId": "bench", "status": "resolved"}),
            )?;
            Ok(d)
        };
        for i in first..first + warm {
            self.samples[0].0.push(acquire(c, i)?);
        }
        for i in first..first + changed {
            std::fs::write(self.root.join(TS), format!("{base}// edit {i}\n"))?;
            self.samples[1].0.push(acquire(c, i)?);
        }
        for i in first..first + warm {
            self.samples[2].0.push(declare(c, i)?);
        }
        for i in first..first + changed {
            std::fs::write(self.root.join(TS), format!("{base}// edit d{i}\n"))?;
            self.samples[3].0.push(declare(c, i)?);
        }
        std::fs::write(self.root.join(TS), &base)?;
        Ok(())
    }
}

/// Runs the comparison; `rounds` rounds of `warm` and `changed` calls per measure.
pub fn run(opts: &Options, report: &mut Report, rounds: usize) -> Result<()> {
    let mut variants = vec![
        Variant::start("graph on", &opts.wit, true)?,
        Variant::start("graph off", &opts.wit, false)?,
    ];
    if let Some(baseline) = &opts.baseline {
        variants.push(Variant::start("baseline", baseline, true)?);
    }
    let (warm, changed) = (50, 15);
    for r in 0..rounds {
        // Each round starts with a different daemon (no one always goes first).
        let n = variants.len();
        for k in 0..n {
            variants[(r + k) % n].round(r * warm, warm, changed)?;
        }
    }
    for (m, measure) in MEASURES.iter().enumerate() {
        let on = us(variants[0].samples[m].p50());
        for v in &variants {
            report.latency(
                &format!("fixture, {}: {measure}", v.name),
                &v.samples[m],
                "",
            );
        }
        // The ratios as rows of their own, so that `--repeat` takes their median too.
        for v in &variants[1..] {
            let ratio = on / us(v.samples[m].p50()).max(f64::MIN_POSITIVE);
            report.value(
                &format!("fixture, graph on / {}: {measure}", v.name),
                format!("{ratio:.2}×"),
                "≤ 1.2×",
                json!({"ratio": ratio}),
                ratio,
            );
        }
    }
    Ok(())
}
