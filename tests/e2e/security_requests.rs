//! One request must not freeze coordination for everyone (issue 34, finding 12): names
//! are bounded to documented lengths, a declare's conflict work is proportional to what
//! exists, store reads answer beside the heaviest declare allowed, and the daemon stops
//! promptly whatever it is doing.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use wit_testkit::postgres::Cluster;

use crate::support::cli::wit_command;
use crate::support::client::Client;
use crate::support::daemon::{Daemon, daemon_command};
use crate::support::repo::TempRepo;

fn field_error(e: &Value, field: &str) -> String {
    assert_eq!(e["message"], "INVALID_REQUEST", "{e}");
    e["data"]["fieldErrors"][field][0]
        .as_str()
        .unwrap_or_else(|| panic!("no error for {field}: {e}"))
        .to_owned()
}

/// A client with the 10 s timeout of the audit's clients.
fn impatient(d: &Daemon) -> Client {
    let c = d.client();
    c.stream()
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    c
}

fn declare_files(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("big/f{i}.md")).collect()
}

fn declare_symbols(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("s{i}")).collect()
}

fn one_declare_never_freezes_coordination(root: &Path, d: &Daemon) {
    let mut c = d.client();
    // Names past their documented lengths are refused, naming the limit.
    let huge = "x".repeat(1 << 20);
    let e = c.err(
        "lock.acquire",
        json!({"symbolPath": format!("src/a.ts:{huge}"), "sessionId": "holder"}),
    );
    assert!(
        field_error(&e, "symbolPath").contains("at most 4096 bytes"),
        "{e}"
    );
    let e = c.err("register", json!({"name": "n", "sessionId": huge}));
    assert!(
        field_error(&e, "sessionId").contains("at most 256 bytes"),
        "{e}"
    );
    let e = c.err(
        "intent.declare",
        json!({"sessionId": "d", "description": huge, "files": ["a.ts"]}),
    );
    assert!(
        field_error(&e, "description").contains("at most 16384 bytes"),
        "{e}"
    );
    // The audit's declare: 50,000 files × 20 symbols. Refused, naming the limit.
    let e = c.err(
        "intent.declare",
        json!({"sessionId": "d", "description": "all", "files": declare_files(50_000),
               "symbols": declare_symbols(20)}),
    );
    assert!(field_error(&e, "symbols").contains("at most 100000"), "{e}");

    // Another session holds locks of the longest names allowed on the declared files,
    // and one on a declared pair.
    for i in 0..300 {
        let prefix = format!("big/f{i}.md:");
        let name = "n".repeat(4096 - prefix.len());
        c.ok(
            "lock.acquire",
            json!({"symbolPath": format!("{prefix}{name}"), "sessionId": "holder"}),
        );
    }
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "big/f7.md:s3", "sessionId": "holder"}),
    );
    // The heaviest declare allowed (5,000 files × 20 symbols), from its own connection …
    let socket = d.socket().to_owned();
    let declarer = std::thread::spawn(move || {
        let mut c = Client::connect(&socket).unwrap();
        c.ok(
            "intent.declare",
            json!({"sessionId": "d", "description": "heavy", "files": declare_files(5_000),
                   "symbols": declare_symbols(20)}),
        )
    });
    // … while other clients read the store: each read answers within 10 s.
    let mut reader = impatient(d);
    let mut reads = 0;
    while !declarer.is_finished() || reads < 3 {
        let locks = reader.ok("lock.query", json!({}));
        assert_eq!(locks.as_array().unwrap().len(), 301);
        reader.ok("intent.query", json!({}));
        reader.ok(
            "register",
            json!({"name": "reader", "sessionId": format!("r{}", reads % 3)}),
        );
        reads += 1;
    }
    let answer = declarer.join().unwrap();
    assert_eq!(
        answer["conflicts"]["items"],
        json!([{"type": "LOCK_INTERSECTION", "symbolPath": "big/f7.md:s3", "heldBy": "holder",
                "expiresAt": answer["conflicts"]["items"][0]["expiresAt"]}]),
        "{answer}"
    );

    // `wit daemon stop` while such a declare runs: the daemon stops by itself.
    let socket = d.socket().to_owned();
    let late = std::thread::spawn(move || {
        let mut c = Client::connect(&socket).unwrap();
        let _ = c.call(
            "intent.declare",
            json!({"sessionId": "e", "description": "late", "files": declare_files(5_000),
                   "symbols": declare_symbols(20)}),
        );
    });
    let out = wit_command(root, None, &["daemon", "stop"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("killed it"), "{stderr}");
    let _ = late.join();
}

#[test]
fn one_declare_never_freezes_coordination_for_everyone_on_sqlite() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    one_declare_never_freezes_coordination(repo.path(), &d);
}

#[test]
fn one_declare_never_freezes_coordination_for_everyone_on_postgresql() {
    let pg = Cluster::start();
    pg.create_db("wit");
    let repo = TempRepo::new();
    let mut cmd = daemon_command(repo.path());
    cmd.env("WIT_STORE_URL", pg.url("wit"));
    let d = Daemon::start_with(repo.path(), cmd);
    one_declare_never_freezes_coordination(repo.path(), &d);
}
