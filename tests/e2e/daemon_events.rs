//! `events.poll`: every state change in order with no gap, durable across a restart, and
//! a long-polling waiter woken by another client's change.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::daemon::Daemon;
use crate::support::repo::{AUTH_TS, TempRepo};

fn kinds(events: &Value) -> Vec<String> {
    events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect()
}

fn seqs(events: &Value) -> Vec<i64> {
    events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_i64().unwrap())
        .collect()
}

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
            "lock.acquired",
            "lock.refreshed",
            "intent.declared",
            "intent.updated",
            "contract.proposed",
            "contract.accepted",
            "lock.released"
        ]
    );
    assert_eq!(seqs(&all), (1..=7).collect::<Vec<_>>(), "gap-free from 1");
    let first = &all["events"][0];
    assert_eq!(first["subject"], "src/auth.ts:validateToken");
    assert_eq!(first["sessionId"], "a");
    assert!(first["data"]["expiresAt"].is_string(), "{first}");
    assert_eq!(all["next"], 7);
    assert_eq!(all["last"], 7);

    // Filters, and polling from the middle.
    let locks = c.ok(
        "events.poll",
        json!({"since": 0, "kinds": ["lock.released"]}),
    );
    assert_eq!(seqs(&locks), [7]);
    let later = c.ok("events.poll", json!({"since": 5}));
    assert_eq!(seqs(&later), [6, 7]);

    // Restart: the log survives and numbering goes on.
    drop(c);
    d.signal_and_wait(libc::SIGTERM);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok("lock.acquire", lock.clone());
    let after = c.ok("events.poll", json!({"since": 7}));
    assert_eq!(seqs(&after), [8]);
    assert_eq!(
        seqs(&c.ok("events.poll", json!({})))[..8],
        (1..=8).collect::<Vec<_>>()[..]
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
    assert_eq!(kinds(&got), ["lock.acquired"]);

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
        ["lock.acquired", "lock.expired", "lock.acquired"]
    );
    assert_eq!(all["events"][1]["sessionId"], "a");
}

#[test]
fn wit_events_prints_the_log_and_follows_it() {
    use std::io::{BufRead, BufReader};
    let r = crate::support::cli::CliRepo::new();
    r.wit(Some("a"), &["lock", "x.ts:f"]).ok();
    let v = r.wit(Some("a"), &["events", "--json"]).ok().json();
    assert_eq!(v[0]["kind"], "lock.acquired", "{v}");
    let human = r.wit(Some("a"), &["events"]).ok().stdout;
    assert!(
        human.contains("lock.acquired") && human.contains("x.ts:f"),
        "{human}"
    );

    let mut child = crate::support::cli::wit_command(
        r.path(),
        Some("a"),
        &["events", "--follow", "--json", "--since", "1"],
    )
    .stdout(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    r.wit(Some("a"), &["release", "x.ts:f"]).ok();
    let line = lines.next().expect("a followed event").unwrap();
    let e: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(e["kind"], "lock.released");
    assert_eq!(e["seq"], 2);
    // SAFETY: kill(2) on our own un-reaped child with a valid signal.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(child.wait().unwrap().code(), Some(0));
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
