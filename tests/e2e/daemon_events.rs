//! `events.poll`: every state change in order with no gap, durable across a restart, and
//! a long-polling waiter woken by another client's change.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::daemon::Daemon;
use crate::support::events::{kinds, seqs};
use crate::support::repo::{AUTH_TS, TempRepo};

#[test]
fn every_change_is_an_event_in_order_with_no_gap_also_across_a_restart() {
    let repo = TempRepo::new().with_file("src/auth.ts", AUTH_TS);
    let mut d = Daemon::start(repo.path());
    let mut c = d.client();
    let lock = json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": "a"});
    c.ok("lock.acquire", lock.clone());
    c.ok("lock.acquire", lock.clone()); // a refresh
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "b", "description": "d", "files": ["src/auth.ts"]}),
    );
    let intent = declared["intentId"].as_str().unwrap().to_owned();
    c.ok(
        "intent.update",
        json!({"intentId": intent, "sessionId": "b", "status": "active"}),
    );
    let proposed = c.ok(
        "contract.propose",
        json!({"sessionId": "a", "symbolPath": "src/auth.ts:validateToken"}),
    );
    let contract = proposed["contractId"].as_str().unwrap().to_owned();
    c.ok(
        "contract.respond",
        json!({"contractId": contract, "sessionId": "b", "accept": true}),
    );
    // A refused change writes no event.
    let _ = c.err(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": "z"}),
    );
    c.ok("lock.release", lock.clone());

    let all = c.ok("events.poll", json!({"since": 0}));
    assert_eq!(
        kinds(&all),
        [
            "session.started",
            "lock.acquired",
            "lock.refreshed",
            "session.started",
            "intent.declared",
            "intent.updated",
            "contract.proposed",
            "contract.accepted",
            "lock.released"
        ]
    );
    assert_eq!(seqs(&all), (1..=9).collect::<Vec<_>>(), "gap-free from 1");
    let started = &all["events"][0];
    assert_eq!(started["subject"], "a", "a session's first act starts it");
    let first = &all["events"][1];
    assert_eq!(first["subject"], "src/auth.ts:validateToken");
    assert_eq!(first["sessionId"], "a");
    assert!(first["data"]["expiresAt"].is_string(), "{first}");
    assert_eq!(all["next"], 9);
    assert_eq!(all["last"], 9);

    // Filters, and polling from the middle.
    let locks = c.ok(
        "events.poll",
        json!({"since": 0, "kinds": ["lock.released"]}),
    );
    assert_eq!(seqs(&locks), [9]);
    let later = c.ok("events.poll", json!({"since": 7}));
    assert_eq!(seqs(&later), [8, 9]);

    // Restart: the log survives and numbering goes on.
    drop(c);
    d.signal_and_wait(libc::SIGTERM);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok("lock.acquire", lock.clone());
    let after = c.ok("events.poll", json!({"since": 9}));
    assert_eq!(seqs(&after), [10]);
    assert_eq!(
        seqs(&c.ok("events.poll", json!({})))[..10],
        (1..=10).collect::<Vec<_>>()[..]
    );
}

#[test]
fn a_long_poll_gets_another_clients_change_and_times_out_empty_without_one() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut waiter = d.client();
    let mut other = d.client();
    let empty = waiter.ok("events.poll", json!({"since": 0, "timeoutMs": 50}));
    assert_eq!(
        empty["events"],
        json!([]),
        "nothing yet: empty after the timeout"
    );
    assert_eq!(empty["next"], 0);

    let socket = d.socket().to_owned();
    let poller = std::thread::spawn(move || {
        let mut c = crate::support::client::Client::connect(&socket).unwrap();
        c.ok("events.poll", json!({"since": 0, "timeoutMs": 60000}))
    });
    // Wait until the poll is parked (ping answers meanwhile: the waiter blocks no one).
    assert_eq!(other.ok("ping", json!({})), "pong");
    other.ok(
        "lock.acquire",
        json!({"symbolPath": "x.ts:f", "sessionId": "s"}),
    );
    let got = poller.join().unwrap();
    assert_eq!(kinds(&got), ["session.started", "lock.acquired"]);

    let bad = waiter.err("events.poll", json!({"since": -1, "timeoutMs": 400000}));
    assert!(bad["data"]["fieldErrors"]["since"].is_array(), "{bad}");
    assert!(bad["data"]["fieldErrors"]["timeoutMs"].is_array(), "{bad}");
}

#[test]
fn expired_locks_are_events_too() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "x.ts:f", "sessionId": "a", "ttlMs": 1}),
    );
    // Taking over an expired lock records its expiry first.
    crate::support::daemon::wait_until("the 1 ms lock expires", Duration::from_secs(5), || {
        c.ok("lock.query", json!({})) == json!([])
    });
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "x.ts:f", "sessionId": "b"}),
    );
    let all = c.ok("events.poll", json!({}));
    assert_eq!(
        kinds(&all),
        [
            "session.started",
            "lock.acquired",
            "lock.expired",
            "session.started",
            "lock.acquired"
        ]
    );
    assert_eq!(all["events"][2]["sessionId"], "a");
}

/// A lock left to run out its TTL ends at that moment, with nobody touching it: a
/// `lock.expired` event naming the former holder wakes an `events.poll` waiter, and
/// `audit.query` has the `expired` record. The daemon's periodic purge comes only every
/// 30 s (and ran at start), so within the poll's 10 s only the expiry timer can deliver
/// it; the record's own time says how soon after the expiry it was written.
#[test]
fn a_lock_left_to_expire_is_an_event_and_an_audit_record_at_its_expiry() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    // A long lock first: the timer must not wait for it, but for the short one taken after.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "x.ts:long", "sessionId": "a", "ttlMs": 3_600_000}),
    );
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "x.ts:f", "sessionId": "a", "ttlMs": 400}),
    );
    let since = c.ok("events.poll", json!({}))["last"].as_i64().unwrap();
    let got = c.ok(
        "events.poll",
        json!({"since": since, "kinds": ["lock.expired"], "timeoutMs": 10_000}),
    );
    assert_eq!(kinds(&got), ["lock.expired"], "{got}");
    let expired = &got["events"][0];
    assert_eq!(expired["subject"], "x.ts:f");
    assert_eq!(expired["sessionId"], "a", "the former holder");
    let expired_at =
        wit_core::protocol::parse_iso8601_millis(expired["data"]["expiredAt"].as_str().unwrap())
            .unwrap();

    let audit = c.ok("audit.query", json!({}));
    let records = audit["records"].as_array().unwrap();
    assert_eq!(records.len(), 1, "{audit}");
    assert_eq!(records[0]["action"], "expired");
    assert_eq!(records[0]["symbolPath"], "x.ts:f");
    assert_eq!(records[0]["holder"], "a");
    assert_eq!(records[0]["by"], Value::Null);
    let late = records[0]["at"].as_i64().unwrap() - expired_at;
    assert!(
        (0..1_000).contains(&late),
        "recorded {late} ms after the expiry"
    );
    // The long lock is untouched, and the short one is free.
    assert_eq!(c.ok("lock.query", json!({}))[0]["symbolPath"], "x.ts:long");
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "x.ts:f", "sessionId": "b"}),
    );
}

#[test]
fn wit_events_prints_the_log_and_follows_it() {
    use std::io::{BufRead, BufReader};
    let r = crate::support::cli::CliRepo::new();
    r.wit(Some("a"), &["lock", "x.ts:f"]).ok();
    let v = r.wit(Some("a"), &["events", "--json"]).ok().json();
    assert_eq!(v[0]["kind"], "session.started", "{v}");
    assert_eq!(v[1]["kind"], "lock.acquired", "{v}");
    let human = r.wit(Some("a"), &["events"]).ok().stdout;
    assert!(
        human.contains("lock.acquired") && human.contains("x.ts:f"),
        "{human}"
    );

    let mut child = crate::support::cli::wit_command(
        r.path(),
        Some("a"),
        &["events", "--follow", "--json", "--since", "2"],
    )
    .stdout(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    r.wit(Some("a"), &["release", "x.ts:f"]).ok();
    let line = lines.next().expect("a followed event").unwrap();
    let e: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(e["kind"], "lock.released");
    assert_eq!(e["seq"], 3);
    // SAFETY: kill(2) on our own un-reaped child with a valid signal.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// The event kinds `openrpc.extensions.json` promises.
fn specified_kinds() -> Vec<String> {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../openrpc.extensions.json"
        ))
        .unwrap(),
    )
    .unwrap();
    doc["components"]["schemas"]["Event"]["properties"]["kind"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_specified_event_kind_is_written_in_order_with_no_gap_across_a_restart() {
    let repo = TempRepo::new().with_file("src/auth.ts", AUTH_TS);
    let mut d = Daemon::start(repo.path());
    let mut c = d.client();
    let sym = "src/auth.ts:validateToken";
    let lock = |s: &str| json!({"symbolPath": sym, "sessionId": s});
    let mut expected: Vec<&str> = Vec::new();

    c.ok("lock.acquire", lock("a"));
    expected.extend(["session.started", "lock.acquired"]);
    c.ok("lock.acquire", lock("a"));
    expected.push("lock.refreshed");
    c.ok("lock.release", lock("a"));
    expected.push("lock.released");
    c.ok(
        "lock.acquire",
        json!({"symbolPath": sym, "sessionId": "a", "ttlMs": 1}),
    );
    expected.push("lock.acquired");
    crate::support::daemon::wait_until("the lock expires", Duration::from_secs(5), || {
        c.ok("lock.query", json!({})) == json!([])
    });
    c.ok("lock.acquire", lock("b"));
    expected.extend(["lock.expired", "session.started", "lock.acquired"]);
    c.ok(
        "lock.forceRelease",
        json!({"symbolPath": sym, "sessionId": "a", "reason": "b left"}),
    );
    expected.push("lock.forced");

    let intent = c.ok(
        "intent.declare",
        json!({"sessionId": "a", "description": "d", "files": ["src/auth.ts"]}),
    )["intentId"]
        .clone();
    expected.push("intent.declared");
    c.ok(
        "intent.update",
        json!({"intentId": intent, "sessionId": "a", "status": "active"}),
    );
    expected.push("intent.updated");

    let propose = |c: &mut crate::support::client::Client| {
        c.ok(
            "contract.propose",
            json!({"sessionId": "a", "symbolPath": sym}),
        )["contractId"]
            .clone()
    };
    let respond = |c: &mut crate::support::client::Client, id: &Value, accept: bool| {
        c.ok(
            "contract.respond",
            json!({"contractId": id, "sessionId": "b", "accept": accept}),
        );
    };
    let first = propose(&mut c);
    respond(&mut c, &first, false);
    expected.extend(["contract.proposed", "contract.rejected"]);
    let second = propose(&mut c);
    respond(&mut c, &second, true);
    expected.extend(["contract.proposed", "contract.accepted"]);
    let third = propose(&mut c);
    respond(&mut c, &third, true);
    expected.extend([
        "contract.proposed",
        "contract.accepted",
        "contract.superseded",
    ]);
    c.ok(
        "contract.withdraw",
        json!({"contractId": third, "sessionId": "a"}),
    );
    expected.push("contract.withdrawn");

    let lease = c.ok(
        "lease.acquire",
        json!({"sessionId": "a", "paths": ["docs/"]}),
    )["leaseId"]
        .clone();
    expected.push("lease.acquired");
    c.ok("lease.renew", json!({"leaseId": lease, "sessionId": "a"}));
    expected.push("lease.renewed");
    c.ok("lease.release", json!({"leaseId": lease, "sessionId": "a"}));
    expected.push("lease.released");
    let forced = c.ok(
        "lease.acquire",
        json!({"sessionId": "a", "paths": ["docs/"]}),
    )["leaseId"]
        .clone();
    expected.push("lease.acquired");
    c.ok(
        "lease.forceRelease",
        json!({"leaseId": forced, "sessionId": "b", "reason": "a left"}),
    );
    expected.push("lease.forced");
    c.ok(
        "lease.acquire",
        json!({"sessionId": "a", "paths": ["lib/"], "ttlMs": 1}),
    );
    expected.push("lease.acquired");
    crate::support::daemon::wait_until("the lease expires", Duration::from_secs(5), || {
        c.ok("lease.query", json!({}))["leases"] == json!([])
    });
    // Taking the place of an expired lease records its expiry first.
    c.ok(
        "lease.acquire",
        json!({"sessionId": "b", "paths": ["lib/"]}),
    );
    expected.extend(["lease.expired", "lease.acquired"]);

    // Across a restart: the numbering goes on with no gap.
    drop(c);
    d.signal_and_wait(libc::SIGTERM);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok("session.end", json!({"sessionId": "b"}));
    expected.extend(["lease.released", "session.ended"]);

    let all = c.ok("events.poll", json!({"since": 0}));
    assert_eq!(kinds(&all), expected, "{all}");
    assert_eq!(
        seqs(&all),
        (1..=expected.len() as i64).collect::<Vec<_>>(),
        "gap-free from 1"
    );
    // Every kind the specification lists was written, and no other.
    let mut written: Vec<String> = kinds(&all);
    written.sort();
    written.dedup();
    let mut specified = specified_kinds();
    // The forecast's kinds need two git worktrees with edits: tests/e2e/forecast_worktrees.rs
    // waits for each (forecast.appeared, and forecast.cleared with each of its reasons).
    // The claims' need a git checkout with edits: tests/e2e/daemon_claims.rs waits for
    // claim.appeared and claim.cleared with each of its reasons.
    specified.retain(|k| !k.starts_with("forecast.") && !k.starts_with("claim."));
    specified.sort();
    assert_eq!(written, specified);
}

#[test]
fn wit_events_follow_falls_back_to_long_polls_against_a_daemon_without_the_stream() {
    use std::io::{BufRead, BufReader};
    let r = crate::support::cli::CliRepo::new();
    r.private_wit_dir();
    let _old = crate::support::stand_in::OldDaemon::serve(r.path());
    let mut child =
        crate::support::cli::wit_command(r.path(), Some("a"), &["events", "--follow", "--json"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().expect("the old daemon's event").unwrap();
    let e: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(e, *crate::support::stand_in::STAND_IN_EVENT);
    // SAFETY: kill(2) on our own un-reaped child with a valid signal.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
