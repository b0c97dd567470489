//! `register` and `lock.*`: shapes, errors, TTL expiry and takeover, caller warnings,
//! the 64-client race.

use std::sync::{Arc, Barrier};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::daemon::{Daemon, wait_until};
use crate::support::repo::{AUTH_TS, TempRepo};

/// Parses `2024-01-15T10:30:00.000Z` to Unix ms, asserting the exact format.
pub fn iso_ms(v: &Value) -> i64 {
    let s = v.as_str().unwrap_or_else(|| panic!("not a string: {v}"));
    let b = s.as_bytes();
    assert!(
        b.len() == 24 && b[4] == b'-' && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z',
        "not ISO 8601 UTC with milliseconds: {s}"
    );
    wit_core::protocol::parse_iso8601_millis(s).unwrap_or_else(|| panic!("bad timestamp {s}"))
}

fn repo() -> TempRepo {
    TempRepo::new().with_file("src/auth.ts", AUTH_TS)
}

#[test]
fn register_returns_an_agent_id_and_reregistering_keeps_it() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let a = c.ok("register", json!({"name": "alpha", "sessionId": "s-a"}));
    let b = c.ok("register", json!({"name": "beta", "sessionId": "s-b"}));
    assert!(a["agentId"].is_i64() && b["agentId"].is_i64());
    assert_ne!(a["agentId"], b["agentId"]);
    let again = c.ok("register", json!({"name": "alpha-2", "sessionId": "s-a"}));
    assert_eq!(again, a);
}

#[test]
fn acquire_returns_the_lock_with_the_default_ttl() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let r = d.client().ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:decode", "sessionId": "s1"}),
    );
    assert_eq!(r["symbolPath"], "src/auth.ts:decode");
    assert_eq!(r["sessionId"], "s1");
    assert_eq!(
        iso_ms(&r["expiresAt"]) - iso_ms(&r["acquiredAt"]),
        1_800_000
    );
    assert_eq!(r["warnings"], json!([]));
    let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 5, "{r}");
}

#[test]
fn conflict_refresh_release_and_query() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let path = "src/auth.ts:decode";
    let first = c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "s1", "ttlMs": 600_000}),
    );
    assert_eq!(
        iso_ms(&first["expiresAt"]) - iso_ms(&first["acquiredAt"]),
        600_000
    );

    let err = c.err(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "s2"}),
    );
    assert_eq!(err["code"], -32000);
    assert_eq!(err["message"], "LOCK_CONFLICT");
    assert_eq!(
        err["data"],
        json!({"heldBy": "s1", "expiresAt": first["expiresAt"]})
    );

    // The same session refreshes.
    let refreshed = c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "s1", "ttlMs": 900_000}),
    );
    assert!(iso_ms(&refreshed["acquiredAt"]) >= iso_ms(&first["acquiredAt"]));
    assert_eq!(
        iso_ms(&refreshed["expiresAt"]) - iso_ms(&refreshed["acquiredAt"]),
        900_000
    );

    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:handler", "sessionId": "s2"}),
    );
    let all = c.ok("lock.query", json!({}));
    assert_eq!(all.as_array().unwrap().len(), 2);
    let mine = c.ok("lock.query", json!({"sessionId": "s1"}));
    let mine = mine.as_array().unwrap();
    assert_eq!(mine.len(), 1);
    let rec = &mine[0];
    assert_eq!(rec["symbolPath"], path);
    assert_eq!(rec["sessionId"], "s1");
    assert_eq!(rec["acquiredAt"], refreshed["acquiredAt"]);
    assert_eq!(rec["expiresAt"], refreshed["expiresAt"]);
    let remaining = rec["ttlRemainingMs"].as_i64().unwrap();
    assert!(remaining > 0 && remaining <= 900_000, "{rec}");
    assert_eq!(
        c.ok("lock.query", json!({"sessionId": "nobody"})),
        json!([])
    );

    let err = c.err(
        "lock.release",
        json!({"symbolPath": path, "sessionId": "s2"}),
    );
    assert_eq!(err["code"], -32000);
    assert_eq!(err["message"], "LOCK_NOT_HELD");
    assert_eq!(err["data"], json!({"heldBy": "s1"}));

    assert_eq!(
        c.ok(
            "lock.release",
            json!({"symbolPath": path, "sessionId": "s1"})
        ),
        json!({"released": true})
    );
    let err = c.err(
        "lock.release",
        json!({"symbolPath": path, "sessionId": "s1"}),
    );
    assert_eq!(err["code"], -32000);
    assert_eq!(err["message"], "LOCK_NOT_FOUND");
    let err = c.err(
        "lock.release",
        json!({"symbolPath": "never:locked", "sessionId": "s1"}),
    );
    assert_eq!(err["message"], "LOCK_NOT_FOUND");
    // After release another session can take it.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "s2"}),
    );
}

#[test]
fn expired_locks_are_absent_everywhere_and_can_be_taken_over() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let path = "src/auth.ts:decode";
    c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "old", "ttlMs": 300}),
    );
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "old", "ttlMs": 300}),
    );
    wait_until("the locks to expire", Duration::from_secs(20), || {
        c.ok("lock.query", json!({})) == json!([])
    });
    // Release of an expired lock: not found.
    let err = c.err(
        "lock.release",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "old"}),
    );
    assert_eq!(err["message"], "LOCK_NOT_FOUND");
    // No LOCK_INTERSECTION from an expired lock.
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "new", "description": "d", "files": ["src/auth.ts"], "symbols": ["persist"]}),
    );
    assert_eq!(
        declared["conflicts"],
        json!({"hasConflicts": false, "items": []})
    );
    // Takeover by another session.
    let taken = c.ok(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": "new"}),
    );
    assert_eq!(taken["sessionId"], "new");
    let held = c.ok("lock.query", json!({}));
    assert_eq!(held.as_array().unwrap().len(), 1);
    assert_eq!(held[0]["sessionId"], "new");
}

#[test]
fn acquire_warns_about_callers_locked_by_other_sessions() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    // `handler` calls `validateToken`, which calls `decode`.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:handler", "sessionId": "A"}),
    );
    let r = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": "B"}),
    );
    assert_eq!(
        r["warnings"],
        json!([{
            "lockedSymbol": "src/auth.ts:handler",
            "heldBy": "A",
            "chain": ["src/auth.ts:handler", "src/auth.ts:validateToken"],
        }])
    );
    // A's own locked caller never warns A.
    let own = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:decode", "sessionId": "B"}),
    );
    assert_eq!(own["warnings"], json!([]));
    // A method calling a locked function: `Session.save` calls `persist`.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:Session.save", "sessionId": "C"}),
    );
    let r = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "A"}),
    );
    assert_eq!(r["warnings"][0]["lockedSymbol"], "src/auth.ts:Session.save");
    assert_eq!(r["warnings"][0]["heldBy"], "C");
    // A file that does not exist gives a lock and no warnings.
    let r = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/missing.ts:f", "sessionId": "A"}),
    );
    assert_eq!(r["warnings"], json!([]));
}

#[test]
fn sixty_four_racing_clients_have_exactly_one_winner() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let n = 64;
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let mut client = d.client();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let session = format!("racer-{i}");
                barrier.wait();
                let resp = client.call(
                    "lock.acquire",
                    json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": session}),
                );
                (session, resp)
            })
        })
        .collect();
    let results: Vec<(String, Value)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let winners: Vec<&String> = results
        .iter()
        .filter(|(_, r)| r.get("result").is_some())
        .map(|(s, _)| s)
        .collect();
    assert_eq!(winners.len(), 1, "winners: {winners:?}");
    let winner = winners[0];
    for (session, resp) in &results {
        if session == winner {
            assert_eq!(resp["result"]["sessionId"], winner.as_str());
        } else {
            assert_eq!(resp["error"]["message"], "LOCK_CONFLICT", "{resp}");
            assert_eq!(resp["error"]["data"]["heldBy"], winner.as_str());
        }
    }
}
