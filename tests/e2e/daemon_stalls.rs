//! Security issue item 6: no single file or request can stall the daemon. Each attack is
//! performed for real against the real daemon through its socket; the only time bounds
//! are generous timeouts ("it answered"), never performance assertions.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::support::client::Client;
use crate::support::daemon::{Daemon, ping, wait_until};
use crate::support::repo::TempRepo;

/// Twenty small functions, `f0` … `f19`, each calling the next.
fn twenty_functions() -> String {
    (0..20)
        .map(|i| {
            format!(
                "export function f{i}(x: number): number {{ return f{}(x); }}\n",
                i + 1
            )
        })
        .collect()
}

/// `class A { m() { return class { m() { return … } } } }`, `depth` classes deep.
fn nested_classes(depth: usize) -> String {
    let mut s = String::from("class A { m() { return ");
    for _ in 0..depth {
        s.push_str("class { m() { return ");
    }
    s.push('1');
    for _ in 0..depth {
        s.push_str(" } }");
    }
    s.push_str(" } }\n");
    s
}

fn log_of(root: &Path) -> String {
    std::fs::read_to_string(root.join(".wit/daemon.log")).unwrap_or_default()
}

/// Creates a FIFO at `path`.
fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// Twenty `lock.acquire` (symbols `f0`…`f19` of `src/a.ts`, sessions `t0`…`t19`) from as
/// many threads while `pinger` pings; returns the twenty responses. Each answer must come
/// before the client's 30 s read timeout.
fn twenty_acquires_and_pings(d: &Daemon) -> Vec<serde_json::Value> {
    let lockers: Vec<_> = (0..20)
        .map(|i| {
            let socket = d.socket().to_owned();
            std::thread::spawn(move || {
                let mut c = Client::connect(&socket).expect("connect");
                c.call(
                    "lock.acquire",
                    json!({"symbolPath": format!("src/a.ts:f{i}"), "sessionId": format!("t{i}")}),
                )
            })
        })
        .collect();
    let mut pinger = d.client();
    for _ in 0..20 {
        assert_eq!(pinger.ok("ping", json!({})), "pong");
    }
    lockers
        .into_iter()
        .map(|l| l.join().expect("the request was answered"))
        .collect()
}

#[test]
fn item6_a_fifo_renamed_over_a_source_file_stalls_no_one() {
    let repo = TempRepo::new().with_file("src/a.ts", &twenty_functions());
    let d = Daemon::start(repo.path());
    let target = repo.path().join("src/a.ts");

    // The attack: swap a FIFO and the file back and forth over src/a.ts while clients
    // lock its symbols, so that some reads find a FIFO where a file was checked a moment
    // before. Nobody ever opens a FIFO for writing: a blocking open() would never return.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (stop, dir) = (stop.clone(), repo.path().join("src"));
        let target = target.clone();
        std::thread::spawn(move || {
            let (fifo, file) = (dir.join("swap.fifo"), dir.join("swap.ts"));
            let mut swaps = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                mkfifo(&fifo);
                std::fs::rename(&fifo, &target).expect("FIFO over the file");
                std::fs::write(&file, twenty_functions()).expect("write the file");
                std::fs::rename(&file, &target).expect("file over the FIFO");
                swaps += 1;
            }
            swaps
        })
    };
    let responses = twenty_acquires_and_pings(&d);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(swapper.join().expect("swapper") > 0);
    for (i, resp) in responses.iter().enumerate() {
        assert_eq!(
            resp["result"]["symbolPath"],
            format!("src/a.ts:f{i}"),
            "{resp}"
        );
    }

    // Then a FIFO for good: every request gets its answer, as for a file that does not
    // analyse (locks without caller warnings, no signature).
    let fifo = repo.path().join("src/fifo.tmp");
    mkfifo(&fifo);
    std::fs::rename(&fifo, &target).unwrap();
    for (i, resp) in twenty_acquires_and_pings(&d).iter().enumerate() {
        // The same sessions again: a refresh.
        assert_eq!(
            resp["result"]["symbolPath"],
            format!("src/a.ts:f{i}"),
            "{resp}"
        );
        assert_eq!(resp["result"]["warnings"], json!([]), "{resp}");
    }
    let mut c = d.client();
    let err = c.err(
        "contract.propose",
        json!({"symbolPath": "src/a.ts:f3", "sessionId": "s0"}),
    );
    assert_eq!(err["message"], "SYMBOL_NOT_FOUND");
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "s0", "description": "d", "files": ["src/a.ts"], "symbols": ["f1"]}),
    );
    assert!(declared["intentId"].is_string());
    assert!(ping(d.socket()));
    assert!(log_of(repo.path()).contains("not a regular file"));
}

#[test]
fn item6_a_file_above_the_size_cap_gets_a_clean_answer() {
    let mut big = twenty_functions();
    while big.len() <= 4096 {
        big.push_str("// padding padding padding padding padding padding padding padding\n");
    }
    let repo = TempRepo::new()
        .with_file("wit.toml", "[analysis]\nmax_file_bytes = 4096\n")
        .with_file("src/big.ts", &big)
        .with_file("src/small.ts", &twenty_functions());
    let d = Daemon::start(repo.path());
    let mut c = d.client();

    let err = c.err(
        "contract.propose",
        json!({"symbolPath": "src/big.ts:f1", "sessionId": "a"}),
    );
    assert_eq!(err["message"], "SYMBOL_NOT_FOUND");
    let lock = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/big.ts:f1", "sessionId": "a"}),
    );
    assert_eq!(lock["warnings"], json!([]));
    // Under the cap, the same content analyses.
    let ok = c.ok(
        "contract.propose",
        json!({"symbolPath": "src/small.ts:f1", "sessionId": "a"}),
    );
    assert_eq!(ok["signature"], "(x: number): number");
    assert_eq!(c.ok("ping", json!({})), "pong");
    assert!(
        log_of(repo.path()).contains("more than the limit of 4096 bytes"),
        "{}",
        log_of(repo.path())
    );
}

#[test]
fn item6_a_file_above_the_default_cap_of_1_mib_gets_a_clean_answer() {
    let mut big = twenty_functions();
    let line = "// ".to_owned() + &"x".repeat(1020) + "\n";
    while big.len() <= 1024 * 1024 {
        big.push_str(&line);
    }
    let repo = TempRepo::new().with_file("src/big.ts", &big);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let err = c.err(
        "contract.propose",
        json!({"symbolPath": "src/big.ts:f1", "sessionId": "a"}),
    );
    assert_eq!(err["message"], "SYMBOL_NOT_FOUND");
    assert_eq!(c.ok("ping", json!({})), "pong");
}

#[test]
fn item6_a_deeply_nested_file_answers_and_ping_works_meanwhile() {
    let repo = TempRepo::new().with_file("src/deep.ts", &nested_classes(10_000));
    let d = Daemon::start(repo.path());
    let socket = d.socket().to_owned();
    let attacker = std::thread::spawn(move || {
        let mut c = Client::connect(&socket).unwrap();
        let lock = c.call(
            "lock.acquire",
            json!({"symbolPath": "src/deep.ts:m", "sessionId": "a"}),
        );
        let propose = c.call(
            "contract.propose",
            json!({"symbolPath": "src/deep.ts:A.m", "sessionId": "a"}),
        );
        (lock, propose)
    });
    let mut bystander = d.client();
    for _ in 0..10 {
        assert_eq!(bystander.ok("ping", json!({})), "pong");
    }
    let (lock, propose) = attacker
        .join()
        .expect("answered before the client's timeout");
    assert_eq!(lock["result"]["warnings"], json!([]), "{lock}");
    assert_eq!(propose["error"]["message"], "SYMBOL_NOT_FOUND", "{propose}");
    let log = log_of(repo.path());
    assert!(log.contains("nesting deeper than"), "{log}");
}

/// Process CPU time (user + system) of `pid`, from /proc.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    // SAFETY: sysconf only reads a system constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / hz)
}

#[test]
fn item6_sigterm_while_analysing_a_pathological_file_ends_the_process() {
    // Nested just under the depth cap, over and over: every block is accepted, and the
    // whole file keeps an analysis thread busy until its time budget runs out.
    let block = nested_classes(90);
    // ~2.3 KB a block: 400 of them stay under the 1 MiB default cap.
    let slow: String = std::iter::repeat_n(block.as_str(), 400).collect();
    let repo = TempRepo::new()
        .with_file("src/slow1.ts", &slow)
        .with_file("src/slow2.ts", &format!("{slow}//2\n"))
        .with_file("src/slow3.ts", &format!("{slow}//3\n"))
        .with_file("src/slow4.ts", &format!("{slow}//4\n"));
    let mut d = Daemon::start(repo.path());
    let pid = d.pid();
    let before = cpu_time(pid);
    // Four at once: the whole blocking pool.
    let attackers: Vec<_> = (1..=4)
        .map(|i| {
            let socket = d.socket().to_owned();
            std::thread::spawn(move || {
                let Ok(mut c) = Client::connect(&socket) else {
                    return;
                };
                let body = crate::support::client::rpc_request(
                    "lock.acquire",
                    Some(json!({"symbolPath": format!("src/slow{i}.ts:m"), "sessionId": "a"})),
                )
                .to_string();
                // The answer may never come: the daemon is being stopped.
                let _ = c.request("POST", "/rpc", body.as_bytes());
            })
        })
        .collect();
    // The daemon is busy analysing once it has burnt some CPU beyond its idle self.
    wait_until(
        "the daemon to be analysing",
        Duration::from_secs(60),
        || cpu_time(pid) > before + Duration::from_millis(300),
    );

    // SAFETY: kill(2) with the pid of our un-reaped child and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGTERM) }, 0);
    wait_until(
        "the daemon to exit after SIGTERM",
        Duration::from_secs(20),
        || !d.is_running(),
    );
    assert!(!repo.socket().exists(), "socket left behind");
    assert!(!repo.pid_file().exists(), "pid file left behind");
    for a in attackers {
        let _ = a.join();
    }
    // A new daemon serves the repository (nothing of the old one lingers).
    let d2 = Daemon::start(repo.path());
    assert!(ping(d2.socket()));
}

/// `count` files `big/f{from}.md` … in order.
fn big_files(from: usize, count: usize) -> Vec<String> {
    (from..from + count)
        .map(|i| format!("big/f{i}.md"))
        .collect()
}

#[test]
fn heavy_declares_hold_up_no_ping_or_lock_and_their_answers_are_right() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    // Six declares of 30,000 files each (more than the daemon has blocking threads):
    // neighbours share 15,000 files, the others none. Sent at once from their own
    // connections.
    let declarers: Vec<_> = (0..6)
        .map(|k| {
            let socket = d.socket().to_owned();
            std::thread::spawn(move || {
                let mut c = Client::connect(&socket).expect("connect");
                let files = big_files(k * 15_000, 30_000);
                c.ok(
                    "intent.declare",
                    json!({"sessionId": format!("d{k}"), "description": format!("heavy {k}"), "files": files}),
                )
            })
        })
        .collect();
    // Meanwhile, other clients ping and take and release locks until the declares are
    // answered; each small request must be answered (within the client's timeouts).
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let small: Vec<_> = (0..2)
        .map(|n| {
            let (socket, done) = (d.socket().to_owned(), done.clone());
            std::thread::spawn(move || {
                let mut c = Client::connect(&socket).expect("connect");
                let mut answered = 0u32;
                loop {
                    let finished = done.load(std::sync::atomic::Ordering::Acquire);
                    assert_eq!(c.ok("ping", json!({})), "pong");
                    let lock = json!({"symbolPath": format!("src/a.ts:f{n}_{answered}"), "sessionId": format!("p{n}")});
                    let got = c.ok("lock.acquire", lock.clone());
                    assert_eq!(got["symbolPath"], lock["symbolPath"], "{got}");
                    assert_eq!(c.ok("lock.release", lock), json!({"released": true}));
                    answered += 1;
                    if finished && answered >= 5 {
                        return answered;
                    }
                }
            })
        })
        .collect();
    let answers: Vec<serde_json::Value> = declarers
        .into_iter()
        .map(|t| t.join().expect("the declare was answered"))
        .collect();
    done.store(true, std::sync::atomic::Ordering::Release);
    for t in small {
        assert!(t.join().expect("the small requests were answered") >= 5);
    }

    // The answers: each declare overlaps exactly its neighbours committed before it, in
    // commit order (the order of the event log; intent.query lists the same order).
    let mut c = d.client();
    let sessions = |list: &serde_json::Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|i| i["sessionId"].as_str().unwrap().to_owned())
            .collect()
    };
    let events = c.ok("events.poll", json!({"kinds": ["intent.declared"]}));
    let order = sessions(&events["events"]);
    assert_eq!(sessions(&c.ok("intent.query", json!({}))), order);
    assert_eq!(order.len(), 6, "{order:?}");
    let position = |k: usize| order.iter().position(|s| *s == format!("d{k}")).unwrap();
    for (k, answer) in answers.iter().enumerate() {
        let expected: Vec<serde_json::Value> = order
            .iter()
            .filter(|s| {
                let other: usize = s[1..].parse().unwrap();
                other.abs_diff(k) == 1 && position(other) < position(k)
            })
            .map(|s| {
                let other = &answers[s[1..].parse::<usize>().unwrap()];
                json!({"type": "INTENT_OVERLAP", "overlappingIntentId": other["intentId"],
                       "overlappingSessionId": s, "description": format!("heavy {}", &s[1..])})
            })
            .collect();
        assert_eq!(
            answer["conflicts"]["items"],
            json!(expected),
            "d{k}: {answer}"
        );
        assert_eq!(answer["conflicts"]["hasConflicts"], !expected.is_empty());
    }
    let counts: Vec<&serde_json::Value> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["data"]["fileCount"])
        .collect();
    assert_eq!(counts, [&json!(30_000); 6]);
}
