//! File and glob leases through the real socket: the overlap rules (glob against glob,
//! exclusive against shared, glob against a symbol lock, in both directions), leases in
//! `intent.declare`, renew / release / forced release / expiry / session end with their
//! audit records and events, a lock waiter woken by a lease's release, and intents of an
//! ended session abandoned by another.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::client::Client;
use crate::support::daemon::{Daemon, wait_until};
use crate::support::repo::TempRepo;

fn lease(c: &mut Client, session: &str, paths: &[&str], mode: &str) -> Value {
    c.call(
        "lease.acquire",
        json!({"sessionId": session, "paths": paths, "mode": mode}),
    )
}

fn ok(answer: &Value) -> &Value {
    assert!(answer.get("error").is_none(), "{answer}");
    &answer["result"]
}

fn conflict(answer: &Value) -> &Value {
    assert_eq!(answer["error"]["message"], "LEASE_CONFLICT", "{answer}");
    &answer["error"]["data"]["conflicts"]
}

#[test]
fn exclusive_globs_conflict_when_they_can_name_a_common_file_in_either_order() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let a = lease(&mut c, "a", &["src/auth/"], "exclusive");
    let a_id = ok(&a)["leaseId"].as_str().unwrap().to_owned();
    assert_eq!(
        ok(&a)["paths"],
        json!(["src/auth/**"]),
        "a trailing / is /**"
    );

    // Overlapping globs of another session: refused, naming the lease in the way.
    let b = lease(&mut c, "b", &["src/**/*.ts"], "exclusive");
    let items = conflict(&b);
    assert_eq!(items.as_array().unwrap().len(), 1);
    assert_eq!(items[0]["kind"], "lease");
    assert_eq!(items[0]["leaseId"], a_id.as_str());
    assert_eq!(items[0]["sessionId"], "a");
    // A disjoint glob is fine; so is the same session overlapping itself.
    ok(&lease(
        &mut c,
        "b",
        &["src/db/**", "docs/*.md"],
        "exclusive",
    ));
    ok(&lease(&mut c, "a", &["src/auth/*.ts"], "exclusive"));
    // The other order: b's lease stands, a's new overlapping one is refused.
    let again = lease(&mut c, "a", &["src/db/query.ts"], "exclusive");
    assert_eq!(conflict(&again)[0]["sessionId"], "b");
}

#[test]
fn shared_leases_coexist_and_conflict_only_with_exclusive_ones() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ok(&lease(&mut c, "a", &["api/*.json"], "shared"));
    ok(&lease(&mut c, "b", &["api/**"], "shared"));
    let x = lease(&mut c, "c", &["api/v1.json"], "exclusive");
    assert_eq!(
        conflict(&x).as_array().unwrap().len(),
        2,
        "both shared leases"
    );
    ok(&lease(&mut c, "c", &["web/**"], "exclusive"));
    let s = lease(&mut c, "a", &["web/index.ts"], "shared");
    assert_eq!(conflict(&s)[0]["mode"], "exclusive");
    // The default mode is exclusive.
    let default = c.call(
        "lease.acquire",
        json!({"sessionId": "d", "paths": ["api/x.json"]}),
    );
    assert_eq!(conflict(&default).as_array().unwrap().len(), 2);
}

#[test]
fn an_exclusive_lease_and_a_symbol_lock_keep_each_other_out() {
    let repo = TempRepo::new().with_file(
        "src/db.ts",
        "export function query(q: string) { return q; }\nexport function close() {}\n",
    );
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/db.ts:query", "sessionId": "a"}),
    );
    // A lease over a locked file: the lock is in the way.
    let l = lease(&mut c, "b", &["src/*.ts"], "exclusive");
    let items = conflict(&l);
    assert_eq!(items[0]["kind"], "lock");
    assert_eq!(items[0]["symbolPath"], "src/db.ts:query");
    assert_eq!(items[0]["sessionId"], "a");
    // A shared lease does not keep locks out.
    ok(&lease(&mut c, "b", &["src/*.ts"], "shared"));

    // A lock under another session's exclusive lease: LOCK_CONFLICT, as v1 knows it,
    // with the lease in its data.
    let held = ok(&lease(&mut c, "c", &["lib/**"], "exclusive")).clone();
    let refused = c.err(
        "lock.acquire",
        json!({"symbolPath": "lib/x.py:f", "sessionId": "a"}),
    );
    assert_eq!(refused["message"], "LOCK_CONFLICT");
    assert_eq!(refused["data"]["heldBy"], "c");
    assert_eq!(refused["data"]["expiresAt"], held["expiresAt"]);
    assert_eq!(refused["data"]["lease"]["leaseId"], held["leaseId"]);
    // The holder itself locks under its own lease.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "lib/x.py:f", "sessionId": "c"}),
    );
}

/// Other sessions' leases, exclusive and shared, are in the conflict report of a declare
/// over their files, with holder, mode and expiry (`conflicts.leases`, and as
/// `leaseConflicts`); a declared symbol under another session's exclusive lease is also a
/// v1 LOCK_INTERSECTION (it is locked to the declarer as surely as by a lock), so a v1
/// client hears of it too. Runs on both stores (the daemon suite).
#[test]
fn declare_reports_other_sessions_leases_and_symbols_under_an_exclusive_one() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let held = ok(&lease(&mut c, "a", &["src/auth/"], "exclusive")).clone();
    let shared = ok(&lease(&mut c, "a", &["src/db/"], "shared")).clone();
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "b", "description": "refactor",
               "files": ["src/auth/token.ts", "src/db/q.ts", "README.md", "src/auth/x/y.ts"]}),
    );
    // A whole-file intent: v1 has no item for a lease, so its items stay v1's.
    assert_eq!(declared["conflicts"]["hasConflicts"], false);
    assert_eq!(declared["conflicts"]["items"], json!([]));
    let leases = declared["conflicts"]["leases"].as_array().unwrap();
    assert_eq!(leases.len(), 2, "{declared}");
    assert_eq!(leases[0]["leaseId"], held["leaseId"]);
    assert_eq!(leases[0]["sessionId"], "a");
    assert_eq!(leases[0]["mode"], "exclusive");
    assert_eq!(leases[0]["expiresAt"], held["expiresAt"]);
    assert_eq!(
        leases[0]["files"],
        json!(["src/auth/token.ts", "src/auth/x/y.ts"])
    );
    assert_eq!(leases[0]["fileCount"], 2);
    assert_eq!(leases[1]["leaseId"], shared["leaseId"]);
    assert_eq!(leases[1]["mode"], "shared");
    assert_eq!(leases[1]["files"], json!(["src/db/q.ts"]));
    assert_eq!(declared["leaseConflicts"], declared["conflicts"]["leases"]);

    // Symbols: the one under the exclusive lease is a LOCK_INTERSECTION, spelled as
    // declared; under the shared lease none (a shared lease keeps no one from locking).
    let with_symbols = c.ok(
        "intent.declare",
        json!({"sessionId": "b", "description": "one function",
               "files": ["src/auth/token.ts", "src/db/q.ts"], "symbols": ["verify"]}),
    );
    assert_eq!(with_symbols["conflicts"]["hasConflicts"], true);
    assert_eq!(
        with_symbols["conflicts"]["items"],
        json!([{
            "type": "LOCK_INTERSECTION",
            "symbolPath": "src/auth/token.ts:verify",
            "heldBy": "a",
            "expiresAt": held["expiresAt"],
        }])
    );
    let refused = c.err(
        "lock.acquire",
        json!({"symbolPath": "src/auth/token.ts:verify", "sessionId": "b"}),
    );
    assert_eq!(refused["message"], "LOCK_CONFLICT", "as the item says");

    // A lease over a whole tree, as `src/**`.
    ok(&lease(&mut c, "c", &["lib/**"], "exclusive"));
    let tree = c.ok(
        "intent.declare",
        json!({"sessionId": "b", "description": "api", "files": ["lib/api.ts"]}),
    );
    assert_eq!(tree["conflicts"]["leases"][0]["sessionId"], "c", "{tree}");

    // The holder's own declare, and a declare elsewhere, carry no such field (v1 shape).
    let own = c.ok(
        "intent.declare",
        json!({"sessionId": "a", "description": "mine", "files": ["src/auth/token.ts"]}),
    );
    assert!(own.get("leaseConflicts").is_none(), "{own}");
    assert!(own["conflicts"].get("leases").is_none(), "{own}");
    let elsewhere = c.ok(
        "intent.declare",
        json!({"sessionId": "b", "description": "docs", "files": ["docs/a.md"]}),
    );
    assert!(elsewhere.get("leaseConflicts").is_none(), "{elsewhere}");
}

#[test]
fn renew_release_and_forced_release_with_the_audit_record() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let first = ok(&c.call(
        "lease.acquire",
        json!({"sessionId": "a", "paths": ["src/**"], "ttlMs": 60000, "reason": "moving files"}),
    ))
    .clone();
    let id = first["leaseId"].as_str().unwrap().to_owned();
    assert_eq!(first["reason"], "moving files");
    let renewed = c.ok(
        "lease.renew",
        json!({"leaseId": id, "sessionId": "a", "ttlMs": 3600000}),
    );
    assert!(renewed["expiresAt"].as_str() > first["expiresAt"].as_str());
    let not_mine = c.err("lease.release", json!({"leaseId": id, "sessionId": "b"}));
    assert_eq!(not_mine["message"], "LEASE_NOT_HELD");
    assert_eq!(not_mine["data"]["heldBy"], "a");

    let no_reason = c.err(
        "lease.forceRelease",
        json!({"leaseId": id, "sessionId": "b"}),
    );
    assert!(
        no_reason["data"]["fieldErrors"]["reason"].is_array(),
        "{no_reason}"
    );
    let forced = c.ok(
        "lease.forceRelease",
        json!({"leaseId": id, "sessionId": "b", "reason": "a crashed"}),
    );
    assert_eq!(forced["formerHolder"], "a");
    let audit = c.ok("audit.query", json!({}));
    let rec = &audit["records"][0];
    assert_eq!(rec["action"], "forced");
    assert_eq!(rec["symbolPath"], format!("lease:{id}"));
    assert_eq!(rec["holder"], "a");
    assert_eq!(rec["by"], "b");
    // The former holder learns it on its next call.
    let gone = c.err("lease.renew", json!({"leaseId": id, "sessionId": "a"}));
    assert_eq!(gone["message"], "LEASE_NOT_FOUND");
    assert_eq!(gone["data"]["forced"]["reason"], "a crashed");

    // An ordinary release, and the events of the whole story in order.
    let second = c.ok(
        "lease.acquire",
        json!({"sessionId": "b", "paths": ["src/**"]}),
    );
    let second_id = second["leaseId"].as_str().unwrap();
    c.ok(
        "lease.release",
        json!({"leaseId": second_id, "sessionId": "b"}),
    );
    let missing = c.err(
        "lease.release",
        json!({"leaseId": second_id, "sessionId": "b"}),
    );
    assert_eq!(missing["message"], "LEASE_NOT_FOUND");
    let events = c.ok(
        "events.poll",
        json!({"kinds": ["lease.acquired", "lease.renewed",
        "lease.forced", "lease.released"]}),
    );
    let kinds = crate::support::events::kinds(&events);
    assert_eq!(
        kinds,
        [
            "lease.acquired",
            "lease.renewed",
            "lease.forced",
            "lease.acquired",
            "lease.released"
        ]
    );
    assert_eq!(c.ok("lease.query", json!({}))["leases"], json!([]));
}

#[test]
fn an_expired_lease_is_gone_and_audited_before_anyone_takes_its_place() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lease.acquire",
        json!({"sessionId": "a", "paths": ["src/**"], "ttlMs": 1}),
    );
    wait_until("the lease expires", Duration::from_secs(5), || {
        c.ok("lease.query", json!({}))["leases"] == json!([])
    });
    c.ok(
        "lease.acquire",
        json!({"sessionId": "b", "paths": ["src/a.ts"]}),
    );
    let audit = c.ok("audit.query", json!({}));
    assert_eq!(audit["records"][0]["action"], "expired");
    assert_eq!(audit["records"][0]["holder"], "a");
    let expired = c.ok("events.poll", json!({"kinds": ["lease.expired"]}));
    assert_eq!(expired["events"][0]["sessionId"], "a");
}

#[test]
fn a_lock_waiter_blocked_by_a_lease_gets_the_lock_when_the_lease_is_released() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let held = c.ok(
        "lease.acquire",
        json!({"sessionId": "a", "paths": ["src/"]}),
    );
    let socket = d.socket().to_owned();
    let waiter = std::thread::spawn(move || {
        let mut w = Client::connect(&socket).unwrap();
        w.call(
            "lock.acquire",
            json!({"symbolPath": "src/a.ts:f", "sessionId": "b", "waitMs": 60000}),
        )
    });
    wait_until("the waiter is queued", Duration::from_secs(30), || {
        c.ok("daemon.status", json!({}))["counts"]["lockWaiters"] == 1
    });
    c.ok(
        "lease.release",
        json!({"leaseId": held["leaseId"], "sessionId": "a"}),
    );
    let got = waiter.join().unwrap();
    assert_eq!(got["result"]["sessionId"], "b", "{got}");
}

#[test]
fn lease_query_filters_by_session_and_by_the_files_covered() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lease.acquire",
        json!({"sessionId": "a", "paths": ["src/*.ts"]}),
    );
    c.ok(
        "lease.acquire",
        json!({"sessionId": "b", "paths": ["docs/", "{web,app}/**/*.tsx"], "mode": "shared"}),
    );
    assert_eq!(c.ok("daemon.status", json!({}))["counts"]["leases"], 2);
    let of_b = c.ok("lease.query", json!({"sessionId": "b"}));
    assert_eq!(
        of_b["leases"][0]["paths"],
        json!(["docs/**", "{web,app}/**/*.tsx"])
    );
    let covering = c.ok(
        "lease.query",
        json!({"files": ["app/x/y.tsx", "src/a.ts", "src/deep/a.ts", "./docs//r.md"]}),
    );
    let leases = covering["leases"].as_array().unwrap();
    assert_eq!(leases.len(), 2);
    assert_eq!(leases[0]["files"], json!(["src/a.ts"]));
    assert_eq!(leases[1]["files"], json!(["app/x/y.tsx", "docs/r.md"]));
    let none = c.ok("lease.query", json!({"files": ["README.md"]}));
    assert_eq!(none["leases"], json!([]));
}

#[test]
fn bad_patterns_and_parameters_are_refused_naming_the_field() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    for (params, field, says) in [
        (
            json!({"sessionId": "a", "paths": ["../etc/**"]}),
            "paths",
            "'..'",
        ),
        (
            json!({"sessionId": "a", "paths": ["/etc/**"]}),
            "paths",
            "absolute",
        ),
        (
            json!({"sessionId": "a", "paths": ["src/a**"]}),
            "paths",
            "whole path segment",
        ),
        (
            json!({"sessionId": "a", "paths": ["src/{a"]}),
            "paths",
            "unclosed",
        ),
        (json!({"sessionId": "a", "paths": []}), "paths", ""),
        (
            json!({"sessionId": "a", "paths": ["x"], "mode": "solo"}),
            "mode",
            "exclusive, shared",
        ),
        (
            json!({"sessionId": "a", "paths": ["x"], "ttlMs": 0}),
            "ttlMs",
            "positive",
        ),
        (json!({"paths": ["x"]}), "sessionId", "required"),
    ] {
        let e = c.err("lease.acquire", params.clone());
        assert_eq!(e["message"], "INVALID_REQUEST", "{params}");
        let reasons = e["data"]["fieldErrors"][field].to_string();
        assert!(reasons.contains(says), "{params}: {e}");
    }
    assert_eq!(
        c.ok("lease.query", json!({}))["leases"],
        json!([]),
        "nothing stored"
    );
}

#[test]
fn session_end_releases_leases_and_another_session_may_then_abandon_its_intents() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lease.acquire",
        json!({"sessionId": "a", "paths": ["src/**"]}),
    );
    let intent = c.ok(
        "intent.declare",
        json!({"sessionId": "a", "description": "work", "files": ["src/a.ts"]}),
    )["intentId"]
        .as_str()
        .unwrap()
        .to_owned();

    // While a lives, b cannot abandon a's intent without force.
    let refused = c.err(
        "intent.abandon",
        json!({"intentId": intent, "sessionId": "b", "reason": "stale"}),
    );
    assert_eq!(refused["message"], "INTENT_NOT_OWNED");
    assert_eq!(refused["data"]["ownerEnded"], false);

    let ended = c.ok("session.end", json!({"sessionId": "a"}));
    assert_eq!(ended["releasedLeases"].as_array().unwrap().len(), 1);
    assert_eq!(ended["abandonedIntents"], json!([]));
    assert_eq!(c.ok("lease.query", json!({}))["leases"], json!([]));
    // The intent stays, marked.
    let listed = c.ok("intent.query", json!({}));
    assert_eq!(listed[0]["intentId"], intent.as_str());
    assert_eq!(listed[0]["ownerEnded"]["reason"], "its session ended");

    let no_reason = c.err(
        "intent.abandon",
        json!({"intentId": intent, "sessionId": "b"}),
    );
    assert_eq!(no_reason["message"], "INVALID_REQUEST", "{no_reason}");
    let abandoned = c.ok(
        "intent.abandon",
        json!({"intentId": intent, "sessionId": "b", "reason": "a is gone"}),
    );
    assert_eq!(abandoned["owner"], "a");
    assert_eq!(c.ok("intent.query", json!({})), json!([]));
    let audit = c.ok("audit.query", json!({}));
    let actions: Vec<&str> = audit["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["session-ended", "intent-abandoned"]);
    assert_eq!(
        audit["records"][1]["symbolPath"],
        format!("intent:{intent}")
    );
    assert_eq!(audit["records"][1]["by"], "b");
    let updated = c.ok("events.poll", json!({"kinds": ["intent.updated"]}));
    assert_eq!(updated["events"][0]["data"]["by"], "b");
    assert_eq!(updated["events"][0]["data"]["reason"], "a is gone");
}

#[test]
fn force_abandons_a_live_sessions_intent_on_the_record_and_end_can_abandon_its_own() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let declare = |c: &mut Client, s: &str| {
        c.ok(
            "intent.declare",
            json!({"sessionId": s, "description": "w", "files": ["a.ts"]}),
        )["intentId"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let first = declare(&mut c, "a");
    c.ok(
        "intent.abandon",
        json!({"intentId": first, "sessionId": "b", "reason": "blocking me", "force": true}),
    );
    let audit = c.ok("audit.query", json!({}));
    assert_eq!(audit["records"][0]["action"], "forced");
    // The owner abandons its own without a reason, unaudited.
    let second = declare(&mut c, "a");
    c.ok(
        "intent.abandon",
        json!({"intentId": second, "sessionId": "a"}),
    );
    assert_eq!(
        c.ok("audit.query", json!({}))["records"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // session.end with abandonIntents closes the rest.
    let third = declare(&mut c, "a");
    let ended = c.ok(
        "session.end",
        json!({"sessionId": "a", "abandonIntents": true}),
    );
    assert_eq!(ended["abandonedIntents"], json!([third]));
    let again = c.err(
        "intent.abandon",
        json!({"intentId": third, "sessionId": "a"}),
    );
    assert_eq!(again["message"], "INVALID_TRANSITION");
}

#[test]
fn racing_exclusive_leases_on_one_directory_have_exactly_one_winner() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    for round in 0..10 {
        let racers: Vec<_> = (0..16)
            .map(|i| {
                let socket = d.socket().to_owned();
                std::thread::spawn(move || {
                    let mut c = Client::connect(&socket).unwrap();
                    // Different spellings of overlapping reservations.
                    let pattern = match i % 3 {
                        0 => format!("r{round}/"),
                        1 => format!("r{round}/**/*.ts"),
                        _ => format!("r{round}/src/a.ts"),
                    };
                    c.call(
                        "lease.acquire",
                        json!({"sessionId": format!("s{i}"), "paths": [pattern]}),
                    )
                })
            })
            .collect();
        let answers: Vec<Value> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        let winners = answers.iter().filter(|a| a.get("result").is_some()).count();
        assert_eq!(winners, 1, "round {round}: {answers:#?}");
        assert!(
            answers
                .iter()
                .filter(|a| a.get("error").is_some())
                .all(|a| a["error"]["message"] == "LEASE_CONFLICT"),
            "{answers:#?}"
        );
    }
}
