//! `lock.acquire` with `waitMs`: a waiter gets the lock on release, on expiry and on a
//! forced release, waiters are served in arrival order, and one that goes away leaves
//! the queue. Readiness is `daemon.status` counts.lockWaiters, never a sleep.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::client::Client;
use crate::support::daemon::{Daemon, wait_until};
use crate::support::repo::TempRepo;

fn waiters(c: &mut Client) -> u64 {
    c.ok("daemon.status", json!({}))["counts"]["lockWaiters"]
        .as_u64()
        .unwrap()
}

/// A waiter on its own connection and thread; returns its whole answer.
fn waiter(d: &Daemon, session: &str, wait_ms: u64) -> std::thread::JoinHandle<Value> {
    let socket = d.socket().to_owned();
    let session = session.to_owned();
    std::thread::spawn(move || {
        let mut c = Client::connect(&socket).unwrap();
        c.call(
            "lock.acquire",
            json!({"symbolPath": "a.ts:f", "sessionId": session, "waitMs": wait_ms}),
        )
    })
}

fn queued(c: &mut Client, n: u64) {
    wait_until(
        &format!("{n} waiter(s) queued"),
        Duration::from_secs(30),
        || waiters(c) == n,
    );
}

#[test]
fn a_waiter_gets_the_lock_on_release_on_expiry_and_on_forced_release() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();

    // Release.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "a.ts:f", "sessionId": "holder"}),
    );
    let w = waiter(&d, "w1", 60_000);
    queued(&mut c, 1);
    c.ok(
        "lock.release",
        json!({"symbolPath": "a.ts:f", "sessionId": "holder"}),
    );
    let got = w.join().unwrap();
    assert_eq!(got["result"]["sessionId"], "w1", "{got}");

    // Expiry: nothing else is written, the waiter wakes at the holder's expiresAt.
    c.ok(
        "lock.release",
        json!({"symbolPath": "a.ts:f", "sessionId": "w1"}),
    );
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "a.ts:f", "sessionId": "holder", "ttlMs": 300}),
    );
    let got = waiter(&d, "w2", 60_000).join().unwrap();
    assert_eq!(got["result"]["sessionId"], "w2", "{got}");

    // Forced release.
    let w = waiter(&d, "w3", 60_000);
    queued(&mut c, 1);
    c.ok(
        "lock.forceRelease",
        json!({"symbolPath": "a.ts:f", "sessionId": "admin", "reason": "w2 left"}),
    );
    assert_eq!(w.join().unwrap()["result"]["sessionId"], "w3");

    // A wait that runs out is the usual LOCK_CONFLICT.
    let late = waiter(&d, "w4", 100).join().unwrap();
    assert_eq!(late["error"]["message"], "LOCK_CONFLICT", "{late}");
    assert_eq!(late["error"]["data"]["heldBy"], "w3");
    assert_eq!(waiters(&mut c), 0);
}

#[test]
fn waiters_are_served_in_arrival_order_and_a_cancelled_one_leaves_the_queue() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "a.ts:f", "sessionId": "holder"}),
    );
    let first = waiter(&d, "first", 60_000);
    queued(&mut c, 1);
    // A waiter that goes away: its connection closes while it waits.
    {
        let mut gone = Client::connect(d.socket()).unwrap();
        let body = serde_json::to_vec(&crate::support::client::rpc_request(
            "lock.acquire",
            Some(json!({"symbolPath": "a.ts:f", "sessionId": "gone", "waitMs": 60_000})),
        ))
        .unwrap();
        let head = format!(
            "POST /rpc HTTP/1.1\r\nHost: wit\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        gone.send_raw(&[head.into_bytes(), body].concat()).unwrap();
        queued(&mut c, 2);
    }
    queued(&mut c, 1);
    let second = waiter(&d, "second", 60_000);
    queued(&mut c, 2);

    c.ok(
        "lock.release",
        json!({"symbolPath": "a.ts:f", "sessionId": "holder"}),
    );
    assert_eq!(first.join().unwrap()["result"]["sessionId"], "first");
    c.ok(
        "lock.release",
        json!({"symbolPath": "a.ts:f", "sessionId": "first"}),
    );
    assert_eq!(second.join().unwrap()["result"]["sessionId"], "second");
    let events = c.ok("events.poll", json!({"kinds": ["lock.acquired"]}));
    let order: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sessionId"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        ["holder", "first", "second"],
        "the cancelled waiter never got it"
    );
}
