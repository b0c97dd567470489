//! Claims through the real socket, in a real git checkout: who changed which definition,
//! uncommitted (`claims.record`, the file watcher), what an edit runs into
//! (`claims.check`), the collisions between sessions (`conflicts.forecast`), and every way
//! a claim ends (revert, commit, session end, hand-over), with their events. Part of the
//! daemon suite, so it runs on SQLite and on PostgreSQL (`store_backends`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::claims::claim_lines;
use crate::support::cli::CliRepo;
use crate::support::client::Client;
use crate::support::daemon::{Daemon, wait_until};

const FILE: &str = "src/pricing.ts";
const HEAD: &str = "export function price(n: number): number {\n  return n * 2;\n}\n\n\
                    export function tax(n: number): number {\n  return n / 10;\n}\n";

/// A checkout with `src/pricing.ts` committed, and its daemon.
fn checkout() -> (CliRepo, Daemon) {
    let r = CliRepo::new();
    r.write(FILE, HEAD);
    r.git(&["add", "."]);
    r.git(&["commit", "-qm", "pricing"]);
    let d = Daemon::start(r.path());
    (r, d)
}

/// Writes `content` as `session`'s edit: checked first, as the guard does, then
/// reported, as the post-edit hook does.
fn edit(r: &CliRepo, c: &mut Client, session: &str, content: &str) -> Value {
    c.ok(
        "claims.check",
        json!({"sessionId": session, "files": [{"file": FILE, "content": content}]}),
    );
    r.write(FILE, content);
    c.ok(
        "claims.record",
        json!({"sessionId": session, "files": [FILE]}),
    )
}

/// `session symbolPath change` of every standing claim, sorted.
fn claims(c: &mut Client) -> Vec<String> {
    claim_lines(&c.ok("claims.query", json!({})))
}

/// The kinds and subjects of the events of `kinds` so far.
fn events(c: &mut Client, kinds: &[&str]) -> Vec<(String, String, Value)> {
    let v = c.ok("events.poll", json!({"since": 0, "kinds": kinds}));
    v["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_owned(),
                e["subject"].as_str().unwrap().to_owned(),
                e["data"].clone(),
            )
        })
        .collect()
}

#[test]
fn an_edit_becomes_the_sessions_claim_with_its_diff_and_survives_a_restart() {
    let (r, d) = checkout();
    let mut c = d.client();
    let done = edit(&r, &mut c, "agent-a", &HEAD.replace("n * 2", "n * 3"));
    assert_eq!(done["appeared"], 1, "{done}");
    let claim = &done["claims"][0];
    assert_eq!(claim["symbolPath"], "src/pricing.ts:price");
    assert_eq!(claim["sessionId"], "agent-a");
    assert_eq!(claim["change"], "body");
    let diff = claim["diff"].as_str().unwrap();
    assert!(
        diff.contains("-  return n * 2;") && diff.contains("+  return n * 3;"),
        "{diff}"
    );
    let appeared = events(&mut c, &["claim.appeared"]);
    assert_eq!(appeared.len(), 1);
    assert_eq!(appeared[0].1, "src/pricing.ts:price");
    assert_eq!(appeared[0].2["sessionId"], "agent-a");

    // Claims are state: a new daemon finds them.
    drop(c);
    drop(d);
    let d = Daemon::start(r.path());
    let mut c = d.client();
    assert_eq!(claims(&mut c), ["agent-a src/pricing.ts:price body"]);
}

#[test]
fn a_stale_write_undoes_the_claim_an_edit_of_another_definition_runs_into_nothing() {
    let (r, d) = checkout();
    let mut c = d.client();
    edit(&r, &mut c, "agent-a", &HEAD.replace("n * 2", "n * 3"));
    // B read the file before A's edit and writes it back whole with its own change.
    let stale = HEAD.replace("n / 10", "n / 5");
    let v = c.ok(
        "claims.check",
        json!({"sessionId": "agent-b", "files": [{"file": FILE, "content": stale}]}),
    );
    let hits = &v["files"][0]["hits"];
    assert_eq!(hits.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(hits[0]["symbolPath"], "src/pricing.ts:price");
    assert_eq!(hits[0]["sessionId"], "agent-a");
    assert_eq!(hits[0]["undoes"], true);
    // B's edit of tax on the current content: nothing.
    let current = HEAD.replace("n * 2", "n * 3").replace("n / 10", "n / 5");
    let v = c.ok(
        "claims.check",
        json!({"sessionId": "agent-b", "files": [{"file": FILE, "content": current}]}),
    );
    assert_eq!(v["files"][0]["hits"], json!([]), "{v}");
    // B changing price further: a hit that undoes nothing.
    let further = HEAD.replace("n * 2", "n * 4");
    let v = c.ok(
        "claims.check",
        json!({"sessionId": "agent-b", "files": [{"file": FILE, "content": further}]}),
    );
    assert_eq!(v["files"][0]["hits"][0]["undoes"], false, "{v}");
    // Deleting the file removes A's changed definition: a hit (not a write-back of an
    // earlier version, so not refused as a lost update).
    let v = c.ok(
        "claims.check",
        json!({"sessionId": "agent-b", "files": [{"file": FILE, "content": null}]}),
    );
    assert_eq!(v["files"][0]["hits"][0]["undoes"], false, "{v}");
    assert_eq!(v["files"][0]["hits"][0]["edit"]["removes"], true, "{v}");
}

#[test]
fn where_an_edit_lands_gives_the_answer_the_whole_content_gives() {
    let (r, d) = checkout();
    let mut c = d.client();
    let current = HEAD.replace("n * 2", "n * 3");
    edit(&r, &mut c, "agent-a", &current);
    // B puts `n * 2` back (HEAD's price): said with where it lands, and without.
    let at = current.find("n * 3").unwrap();
    let check = |c: &mut Client, edits: Value| {
        c.ok(
            "claims.check",
            json!({"sessionId": "agent-b", "files": [{"file": FILE, "content": HEAD, "edits": edits}]}),
        )["files"][0]["hits"]
            .clone()
    };
    let quick = check(
        &mut c,
        json!([{"startByte": at, "endByte": at + 5, "text": "n * 2"}]),
    );
    let whole = check(&mut c, Value::Null);
    assert_eq!(quick[0]["undoes"], true, "{quick}");
    assert_eq!(quick[0]["symbolPath"], whole[0]["symbolPath"]);
    assert_eq!(quick[0]["undoes"], whole[0]["undoes"]);
    // Ranges that do not rebuild the content sent (the file changed since): the whole
    // content decides, the same answer.
    let wrong = check(&mut c, json!([{"startByte": 0, "endByte": 1, "text": "E"}]));
    assert_eq!(wrong[0]["undoes"], true, "{wrong}");
    // Bad ranges are refused, naming the field.
    for edits in [
        json!([{"startByte": 5, "endByte": 1, "text": ""}]),
        json!([{"startByte": 1, "endByte": 5, "text": ""}, {"startByte": 2, "endByte": 3, "text": ""}]),
        json!([{"startByte": -1, "endByte": 1, "text": ""}]),
        json!([{"startByte": 1, "endByte": 2}]),
        json!("x"),
    ] {
        let e = c.err(
            "claims.check",
            json!({"sessionId": "agent-b", "files": [{"file": FILE, "content": HEAD, "edits": edits}]}),
        );
        assert_eq!(e["message"], "INVALID_REQUEST", "{edits}: {e}");
        assert!(e["data"]["fieldErrors"]["files"].is_array(), "{e}");
    }
}

#[test]
fn two_sessions_changing_one_definition_collide_and_a_revert_clears_it() {
    let (r, d) = checkout();
    let mut c = d.client();
    edit(&r, &mut c, "agent-a", &HEAD.replace("n * 2", "n * 3"));
    edit(&r, &mut c, "agent-b", &HEAD.replace("n * 2", "n * 4"));
    assert_eq!(
        claims(&mut c),
        [
            "agent-a src/pricing.ts:price body",
            "agent-b src/pricing.ts:price body"
        ]
    );
    let f = c.ok("conflicts.forecast", json!({"sessionId": "agent-b"}));
    let forecasts = f["forecasts"].as_array().unwrap();
    assert_eq!(forecasts.len(), 1, "{f}");
    assert_eq!(forecasts[0]["kind"], "same-symbol");
    let sessions: Vec<&str> = forecasts[0]["sides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["agent-a", "agent-b"]);
    assert_eq!(f["claims"].as_array().unwrap().len(), 1, "agent-b's: {f}");
    // B puts HEAD's version back: every claim on price ends, the collision clears.
    edit(&r, &mut c, "agent-b", HEAD);
    assert!(claims(&mut c).is_empty());
    let cleared = events(&mut c, &["claim.cleared", "forecast.cleared"]);
    assert_eq!(cleared.len(), 3, "{cleared:?}");
    assert!(
        cleared
            .iter()
            .filter(|e| e.0 == "claim.cleared")
            .all(|e| e.2["reason"] == "reverted"),
        "{cleared:?}"
    );
    assert_eq!(
        c.ok("conflicts.forecast", json!({}))["forecasts"],
        json!([])
    );
}

#[test]
fn a_signature_change_against_another_sessions_new_call_is_a_collision_and_a_check_says_so() {
    let (r, d) = checkout();
    r.write(
        "src/checkout.ts",
        "import { price } from \"./pricing\";\n\nexport function pay(): number {\n  return 0;\n}\n",
    );
    r.git(&["add", "."]);
    r.git(&["commit", "-qm", "checkout"]);
    let mut c = d.client();
    wait_until("the index", Duration::from_secs(30), || {
        c.ok("graph.status", json!({}))["state"] == "ready"
    });
    edit(
        &r,
        &mut c,
        "agent-a",
        &HEAD.replace("price(n: number)", "price(n: number, rate: number)"),
    );
    let calling = "import { price } from \"./pricing\";\n\nexport function pay(): number {\n  return price(3);\n}\n";
    let v = c.ok(
        "claims.check",
        json!({"sessionId": "agent-b", "files": [{"file": "src/checkout.ts", "content": calling}]}),
    );
    let collisions = &v["files"][0]["collisions"];
    assert_eq!(collisions.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(collisions[0]["kind"], "signature-vs-callers");
    assert_eq!(
        collisions[0]["chain"][0]["symbolPath"],
        "src/checkout.ts:pay"
    );
    assert_eq!(
        collisions[0]["chain"][1]["symbolPath"],
        "src/pricing.ts:price"
    );
    // Made and reported, it stands as a collision between the two sessions.
    r.write("src/checkout.ts", calling);
    c.ok(
        "claims.record",
        json!({"sessionId": "agent-b", "files": ["src/checkout.ts"]}),
    );
    let f = c.ok("conflicts.forecast", json!({"file": "src/checkout.ts"}));
    assert_eq!(f["forecasts"][0]["kind"], "signature-vs-callers", "{f}");
}

#[test]
fn a_change_no_hook_reported_is_claimed_unattributed_and_a_commit_ends_it() {
    let (r, d) = checkout();
    let mut c = d.client();
    wait_until("the index", Duration::from_secs(30), || {
        c.ok("graph.status", json!({}))["state"] == "ready"
    });
    // A shell command (sed -i) changes tax: the watcher sees it.
    r.write(FILE, &HEAD.replace("n / 10", "n / 7"));
    wait_until("the unattributed claim", Duration::from_secs(20), || {
        claims(&mut c) == ["(unattributed) src/pricing.ts:tax body"]
    });
    let appeared = events(&mut c, &["claim.appeared"]);
    assert_eq!(appeared[0].2["sessionId"], Value::Null);
    // Committed: HEAD has it now, the claim ends as committed.
    r.git(&["commit", "-qam", "tax"]);
    wait_until("the claim to end", Duration::from_secs(20), || {
        claims(&mut c).is_empty()
    });
    let cleared = events(&mut c, &["claim.cleared"]);
    assert_eq!(cleared[0].2["reason"], "committed", "{cleared:?}");
}

#[test]
fn changes_made_while_no_daemon_ran_are_claimed_unattributed_at_start() {
    let r = CliRepo::new();
    r.write(FILE, HEAD);
    r.git(&["add", "."]);
    r.git(&["commit", "-qm", "pricing"]);
    r.write(FILE, &HEAD.replace("n * 2", "n * 5"));
    let d = Daemon::start(r.path());
    let mut c = d.client();
    wait_until(
        "the claim of the change found at start",
        Duration::from_secs(30),
        || claims(&mut c) == ["(unattributed) src/pricing.ts:price body"],
    );
}

#[test]
fn a_session_end_ends_its_claims_and_a_subagents_are_handed_to_its_session() {
    let (r, d) = checkout();
    let mut c = d.client();
    edit(&r, &mut c, "s1/sub", &HEAD.replace("n * 2", "n * 3"));
    edit(
        &r,
        &mut c,
        "agent-b",
        &HEAD.replace("n * 2", "n * 3").replace("n / 10", "n / 5"),
    );
    let v = c.ok(
        "claims.end",
        json!({"sessionId": "s1/sub", "handOverTo": "s1"}),
    );
    assert_eq!(v["ended"], 1);
    assert_eq!(
        claims(&mut c),
        [
            "agent-b src/pricing.ts:tax body",
            "s1 src/pricing.ts:price body"
        ]
    );
    let v = c.ok("session.end", json!({"sessionId": "s1"}));
    assert_eq!(v["endedClaims"], 1, "{v}");
    assert_eq!(claims(&mut c), ["agent-b src/pricing.ts:tax body"]);
    let cleared = events(&mut c, &["claim.cleared"]);
    assert_eq!(
        cleared.last().unwrap().2["reason"],
        "its session ended",
        "{cleared:?}"
    );
}

#[test]
fn a_claim_its_session_stopped_editing_ends_after_claim_idle() {
    let r = CliRepo::new();
    r.write(FILE, HEAD);
    r.write("wit.toml", "[guard]\nclaim_idle = \"2s\"\n");
    r.git(&["add", "."]);
    r.git(&["commit", "-qm", "pricing"]);
    let d = Daemon::start(r.path());
    let mut c = d.client();
    edit(&r, &mut c, "agent-a", &HEAD.replace("n * 2", "n * 3"));
    assert_eq!(claims(&mut c), ["agent-a src/pricing.ts:price body"]);
    // A session that died without its session-end hook never holds a claim forever.
    wait_until("the idle claim to end", Duration::from_secs(20), || {
        claims(&mut c).is_empty()
    });
    let cleared = events(&mut c, &["claim.cleared"]);
    assert_eq!(
        cleared[0].2["reason"], "no edit by its session for 2 s",
        "{cleared:?}"
    );
}

#[test]
fn claims_requests_with_bad_params_are_invalid_and_name_the_field() {
    let (_r, d) = checkout();
    let mut c = d.client();
    for (method, params, field) in [
        ("claims.check", json!({"files": []}), "sessionId"),
        (
            "claims.check",
            json!({"sessionId": "a", "files": []}),
            "files",
        ),
        (
            "claims.check",
            json!({"sessionId": "a", "files": "x"}),
            "files",
        ),
        (
            "claims.check",
            json!({"sessionId": "a", "files": [{"file": "../x.ts", "content": ""}]}),
            "files",
        ),
        (
            "claims.check",
            json!({"sessionId": "a", "files": [{"file": "a.ts", "content": 7}]}),
            "files",
        ),
        (
            "claims.check",
            json!({"sessionId": "a", "files": [{"file": "a.ts"}]}),
            "files",
        ),
        ("claims.record", json!({"sessionId": "a"}), "files"),
        (
            "claims.record",
            json!({"sessionId": "a", "files": ["/etc/passwd"]}),
            "files",
        ),
        ("claims.end", json!({}), "sessionId"),
    ] {
        let e = c.err(method, params.clone());
        assert_eq!(e["message"], "INVALID_REQUEST", "{method} {params}: {e}");
        assert!(
            e["data"]["fieldErrors"].get(field).is_some(),
            "{method} {params}: {e}"
        );
    }
    let many: Vec<String> = (0..300).map(|i| format!("f{i}.ts")).collect();
    let e = c.err("claims.record", json!({"sessionId": "a", "files": many}));
    assert_eq!(e["message"], "INVALID_REQUEST", "{e}");
    // A file that does not analyse, one outside any analyzer: nothing, no error.
    let v = c.ok(
        "claims.check",
        json!({"sessionId": "a", "files": [{"file": "notes.md", "content": "x"},
                                            {"file": FILE, "content": "\u{0}binary"}]}),
    );
    assert_eq!(v["files"][0]["hits"], json!([]));
    assert_eq!(v["files"][1]["hits"], json!([]));
}
