//! Latency of the daemon over its socket, and its idle RSS.
//!
//! `cargo bench -p wit-daemon --bench rpc` starts a real daemon (this same binary, re-run
//! in daemon mode, so that its RSS is the daemon's alone) on a temp repository holding a
//! ~2,000-line TypeScript file, then measures p50/p99 over one keep-alive connection of:
//! `ping`; `lock.acquire` and `lock.release`; `intent.declare` with 2 symbols on that file.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const DAEMON_ROOT_ENV: &str = "WIT_BENCH_DAEMON_ROOT";

fn main() {
    if let Some(root) = std::env::var_os(DAEMON_ROOT_ENV) {
        if let Err(e) = wit_daemon::run_blocking(Path::new(&root), wit_daemon::Mode::Alone) {
            eprintln!("bench daemon: {e}");
            std::process::exit(1);
        }
        return;
    }
    let repo = tempfile::Builder::new()
        .prefix("wit-bench-")
        .tempdir()
        .expect("temp dir");
    let root = repo.path().canonicalize().expect("canonical root");
    std::fs::create_dir_all(root.join("src")).expect("src dir");
    let units = 2_000 / wit_analyzers::fixtures::TYPESCRIPT_UNIT_LINES + 1;
    let source = wit_analyzers::fixtures::generate_typescript(units);
    std::fs::write(root.join("src/big.ts"), &source).expect("write big.ts");

    let mut daemon = Guard(
        Command::new(std::env::current_exe().expect("current exe"))
            .env(DAEMON_ROOT_ENV, &root)
            .stdin(Stdio::null())
            .spawn()
            .expect("spawn bench daemon"),
    );
    let socket = root.join(".wit/daemon.sock");
    let mut client = wait_ready(&socket, &mut daemon.0);

    println!(
        "wit-daemon rpc bench: src/big.ts = {} lines, {} bytes",
        source.lines().count(),
        source.len()
    );
    report("ping", 5_000, |_| {
        client.call("ping", json!({}));
    });
    let mut release_times = Vec::new();
    report("lock.acquire", 2_000, |i| {
        client.call(
            "lock.acquire",
            json!({"symbolPath": format!("src/big.ts:parse{}", i % units), "sessionId": "bench"}),
        );
        let t = Instant::now();
        client.call(
            "lock.release",
            json!({"symbolPath": format!("src/big.ts:parse{}", i % units), "sessionId": "bench"}),
        );
        release_times.push(t.elapsed());
    });
    print_stats("lock.release", &mut release_times);
    report("intent.declare (2 symbols, ~2k-line TS)", 500, |i| {
        let r = client.call(
            "intent.declare",
            json!({
                "sessionId": format!("s{}", i % 8),
                "description": "bench",
                "files": ["src/big.ts"],
                "symbols": [format!("parse{}", i % units), format!("parse{}", (i + 7) % units)],
            }),
        );
        assert!(r.get("result").is_some(), "{r}");
    });
    // A cold parse: a changed file defeats the cache every time.
    let mut n = 0;
    report("intent.declare (cold parse after an edit)", 50, |i| {
        n += 1;
        std::fs::write(root.join("src/big.ts"), format!("{source}\n// edit {n}\n")).expect("edit");
        client.call(
            "intent.declare",
            json!({"sessionId": "cold", "description": "bench", "files": ["src/big.ts"], "symbols": [format!("parse{}", i % units), "parse1"]}),
        );
    });

    std::thread::sleep(Duration::from_secs(1));
    let pid = daemon.0.id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .map_or("unknown".to_owned(), |l| {
            l["VmRSS:".len()..].trim().to_owned()
        });
    println!("daemon idle RSS after the runs: {rss}");
}

fn report(name: &str, iterations: usize, mut f: impl FnMut(usize)) {
    for i in 0..iterations.min(100) {
        f(i);
    }
    let mut times = Vec::with_capacity(iterations);
    for i in 0..iterations {
        let t = Instant::now();
        f(i);
        times.push(t.elapsed());
    }
    print_stats(name, &mut times);
}

fn print_stats(name: &str, times: &mut [Duration]) {
    times.sort_unstable();
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    println!(
        "{name:<45} n={:<5} p50={:>9.1?} p99={:>9.1?} max={:>9.1?}",
        times.len(),
        pct(0.50),
        pct(0.99),
        times[times.len() - 1]
    );
}

struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        // SAFETY: kill(2) on our own un-reaped child with a valid signal.
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.0.wait();
    }
}

fn wait_ready(socket: &Path, child: &mut Child) -> Client {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("bench daemon exited: {status}");
        }
        if let Ok(mut c) = Client::connect(socket)
            && c.try_call("ping", json!({})).is_some()
        {
            return c;
        }
        assert!(Instant::now() < deadline, "daemon not ready");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Minimal keep-alive HTTP/1.1 client (responses always carry Content-Length).
struct Client {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
}

impl Client {
    fn connect(socket: &Path) -> std::io::Result<Self> {
        let s = UnixStream::connect(socket)?;
        Ok(Self {
            reader: BufReader::new(s.try_clone()?),
            writer: s,
        })
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(method, params).expect("rpc call")
    }

    fn try_call(&mut self, method: &str, params: Value) -> Option<Value> {
        let body = json!({"jsonrpc": "2.0", "witVersion": "1", "id": "b", "method": method, "params": params}).to_string();
        let req = format!(
            "POST /rpc HTTP/1.1\r\nHost: wit\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.writer.write_all(req.as_bytes()).ok()?;
        let mut len = 0;
        let mut line = String::new();
        loop {
            line.clear();
            if self.reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                len = v.trim().parse().ok()?;
            }
        }
        let mut buf = vec![0; len];
        self.reader.read_exact(&mut buf).ok()?;
        serde_json::from_slice(&buf).ok()
    }
}
