//! Liveness through the real socket: renew, forced release with its audit record (and the
//! former holder told on its next call), session end, expiry in the audit log.

use std::time::Duration;

use serde_json::json;

use crate::support::cli::CliRepo;
use crate::support::daemon::{Daemon, wait_until};
use crate::support::repo::TempRepo;

fn lock(path: &str, session: &str) -> serde_json::Value {
    json!({"symbolPath": path, "sessionId": session})
}

#[test]
fn renew_extends_only_the_holders_lock() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let first = c.ok(
        "lock.acquire",
        json!({"symbolPath": "a.ts:f", "sessionId": "a", "ttlMs": 60000}),
    );
    let renewed = c.ok(
        "lock.renew",
        json!({"symbolPath": "a.ts:f", "sessionId": "a", "ttlMs": 3600000}),
    );
    assert_eq!(
        renewed["acquiredAt"], first["acquiredAt"],
        "acquiredAt kept"
    );
    assert!(renewed["expiresAt"].as_str() > first["expiresAt"].as_str());
    let other = c.err("lock.renew", lock("a.ts:f", "b"));
    assert_eq!(other["message"], "LOCK_NOT_HELD");
    assert_eq!(other["data"]["heldBy"], "a");
    let none = c.err("lock.renew", lock("a.ts:g", "a"));
    assert_eq!(none["message"], "LOCK_NOT_FOUND");
    let kinds = c.ok("events.poll", json!({"kinds": ["lock.refreshed"]}));
    assert_eq!(kinds["events"][0]["data"]["renewed"], true);
}

/// A method is kept under its canonical name (`Session.save`); renewing or forcing it by
/// the name `lock.acquire` was given and echoed (`save`) reaches that lock, and each
/// answer names it as its request did.
#[test]
fn renew_and_forced_release_reach_a_lock_by_either_name() {
    let repo = TempRepo::new().with_file("src/auth.ts", crate::support::repo::AUTH_TS);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let taken = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:save", "sessionId": "a", "ttlMs": 60000}),
    );
    assert_eq!(taken["symbolPath"], "src/auth.ts:save");
    let renewed = c.ok(
        "lock.renew",
        json!({"symbolPath": "src/auth.ts:save", "sessionId": "a", "ttlMs": 3600000}),
    );
    assert_eq!(renewed["symbolPath"], "src/auth.ts:save");
    assert!(renewed["expiresAt"].as_str() > taken["expiresAt"].as_str());
    // And by the canonical name, as `lock.query` lists it under the holder's spelling.
    let again = c.ok(
        "lock.renew",
        json!({"symbolPath": "src/auth.ts:Session.save", "sessionId": "a"}),
    );
    assert_eq!(again["symbolPath"], "src/auth.ts:Session.save");
    let not_held = c.err("lock.renew", lock("src/auth.ts:save", "b"));
    assert_eq!(not_held["message"], "LOCK_NOT_HELD");
    assert_eq!(not_held["data"]["heldBy"], "a");

    let forced = c.ok(
        "lock.forceRelease",
        json!({"symbolPath": "src/auth.ts:save", "sessionId": "b", "reason": "a crashed"}),
    );
    assert_eq!(forced["formerHolder"], "a");
    assert_eq!(forced["symbolPath"], "src/auth.ts:save");
    assert_eq!(c.ok("lock.query", json!({})), json!([]));
    // The logs name the lock itself, whatever the request called it.
    let audit = c.ok("audit.query", json!({}));
    assert_eq!(
        audit["records"][0]["symbolPath"], "src/auth.ts:Session.save",
        "{audit}"
    );
    let none = c.err("lock.renew", lock("src/auth.ts:save", "a"));
    assert_eq!(none["message"], "LOCK_NOT_FOUND");
}

#[test]
fn a_forced_release_is_audited_and_the_former_holder_learns_it() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok("lock.acquire", lock("a.ts:f", "a"));
    let no_reason = c.err("lock.forceRelease", lock("a.ts:f", "b"));
    assert!(
        no_reason["data"]["fieldErrors"]["reason"].is_array(),
        "{no_reason}"
    );
    let r = c.ok(
        "lock.forceRelease",
        json!({"symbolPath": "a.ts:f", "sessionId": "b", "reason": "a crashed"}),
    );
    assert_eq!(r["formerHolder"], "a");
    assert!(c.ok("lock.query", json!({})).as_array().unwrap().is_empty());

    let audit = c.ok("audit.query", json!({}));
    let rec = &audit["records"][0];
    assert_eq!(rec["action"], "forced");
    assert_eq!(rec["holder"], "a");
    assert_eq!(rec["by"], "b");
    assert_eq!(rec["reason"], "a crashed");
    let forced = c.ok("events.poll", json!({"kinds": ["lock.forced"]}));
    assert_eq!(
        forced["events"][0]["sessionId"], "a",
        "the event is about the holder"
    );
    assert_eq!(forced["events"][0]["data"]["by"], "b");

    // The former holder's next call says what happened.
    let gone = c.err("lock.release", lock("a.ts:f", "a"));
    assert_eq!(gone["message"], "LOCK_NOT_FOUND");
    assert_eq!(gone["data"]["forced"]["by"], "b", "{gone}");
    assert_eq!(gone["data"]["forced"]["reason"], "a crashed");
    let missing = c.err(
        "lock.forceRelease",
        json!({"symbolPath": "a.ts:f", "sessionId": "b", "reason": "again"}),
    );
    assert_eq!(missing["message"], "LOCK_NOT_FOUND");
}

#[test]
fn ending_a_session_releases_its_locks_on_the_record_and_keeps_its_intents() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok("lock.acquire", lock("a.ts:f", "a"));
    c.ok("lock.acquire", lock("a.ts:g", "a"));
    c.ok("lock.acquire", lock("a.ts:h", "b"));
    c.ok(
        "intent.declare",
        json!({"sessionId": "a", "description": "d", "files": ["a.ts"]}),
    );
    let r = c.ok("session.end", json!({"sessionId": "a"}));
    assert_eq!(r["releasedLocks"], json!(["a.ts:f", "a.ts:g"]));
    let left = c.ok("lock.query", json!({}));
    assert_eq!(left.as_array().unwrap().len(), 1, "b's lock stays: {left}");
    assert_eq!(
        c.ok("intent.query", json!({"sessionId": "a"}))
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let audit = c.ok("audit.query", json!({"sessionId": "a"}));
    assert_eq!(audit["records"].as_array().unwrap().len(), 2);
    assert_eq!(audit["records"][0]["action"], "session-ended");
    let ended = c.ok("events.poll", json!({"kinds": ["session.ended"]}));
    assert_eq!(ended["events"][0]["data"]["releasedLocks"], 2);
}

#[test]
fn an_expired_lock_taken_over_is_in_the_audit_log() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "a.ts:f", "sessionId": "a", "ttlMs": 1}),
    );
    wait_until("the lock expires", Duration::from_secs(5), || {
        c.ok("lock.query", json!({})) == json!([])
    });
    c.ok("lock.acquire", lock("a.ts:f", "b"));
    let audit = c.ok("audit.query", json!({}));
    assert_eq!(audit["records"][0]["action"], "expired");
    assert_eq!(audit["records"][0]["holder"], "a");
    assert!(audit["records"][0]["by"].is_null());
}

#[test]
fn the_cli_renews_forces_ends_and_shows_the_audit() {
    let r = CliRepo::new();
    r.wit(Some("a"), &["lock", "x.ts:f", "x.ts:g"]).ok();
    r.wit(Some("a"), &["renew", "x.ts:f", "--ttl", "2h"]).ok();
    let f = r
        .wit(
            Some("b"),
            &["force-release", "x.ts:f", "--reason", "a is gone", "--json"],
        )
        .ok()
        .json();
    assert_eq!(f["formerHolder"], "a");
    let ended = r.wit(Some("a"), &["end-session", "--json"]).ok().json();
    assert_eq!(ended["releasedLocks"], json!(["x.ts:g"]));
    let audit = r.wit(None, &["audit", "--json"]).ok().json();
    let actions: Vec<&str> = audit
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["forced", "session-ended"]);
    let human = r.wit(None, &["audit"]).ok().stdout;
    assert!(human.contains("a is gone"), "{human}");
}

#[test]
fn a_session_whose_heartbeats_stop_is_ended_by_the_daemon_when_configured() {
    let repo = TempRepo::new().with_file("wit.toml", "[sessions]\nheartbeat_timeout = 400\n");
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let hb = c.ok("session.heartbeat", json!({"sessionId": "a"}));
    assert_eq!(hb["timeoutMs"], 400);
    c.ok("lock.acquire", lock("a.ts:f", "a"));
    // A session that never heartbeats (a v1 client) is never ended.
    c.ok("lock.acquire", lock("a.ts:g", "v1-client"));
    wait_until(
        "the silent session is ended",
        Duration::from_secs(30),
        || c.ok("lock.query", json!({"sessionId": "a"})) == json!([]),
    );
    let audit = c.ok("audit.query", json!({"sessionId": "a"}));
    assert_eq!(audit["records"][0]["action"], "session-ended");
    assert_eq!(audit["records"][0]["reason"], "its heartbeats stopped");
    let ended = c.ok("events.poll", json!({"kinds": ["session.ended"]}));
    assert_eq!(ended["events"][0]["data"]["stale"], true);
    assert_eq!(
        c.ok("lock.query", json!({"sessionId": "v1-client"}))
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn without_a_heartbeat_timeout_nobody_is_ended() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let hb = c.ok("session.heartbeat", json!({"sessionId": "a"}));
    assert!(hb["timeoutMs"].is_null());
}
