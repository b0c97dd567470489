//! `intent.*`: shapes, transitions, filters, byte-range overlap, LOCK_INTERSECTION,
//! DEP_CHAIN.

use serde_json::{Value, json};

use crate::support::client::Client;
use crate::support::daemon::Daemon;
use crate::support::repo::{AUTH_TS, TempRepo, UTIL_PY};

fn repo() -> TempRepo {
    TempRepo::new()
        .with_file("src/auth.ts", AUTH_TS)
        .with_file("src/util.py", UTIL_PY)
}

fn declare(c: &mut Client, session: &str, files: &[&str], symbols: Option<&[&str]>) -> Value {
    let mut params =
        json!({"sessionId": session, "description": format!("{session} work"), "files": files});
    if let Some(s) = symbols {
        params["symbols"] = json!(s);
    }
    c.ok("intent.declare", params)
}

fn overlap_ids(result: &Value) -> Vec<String> {
    result["conflicts"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "INTENT_OVERLAP")
        .map(|i| i["overlappingIntentId"].as_str().unwrap().to_owned())
        .collect()
}

fn intent(c: &mut Client, id: &str) -> Value {
    let all = c.ok("intent.query", json!({}));
    all.as_array()
        .unwrap()
        .iter()
        .find(|i| i["intentId"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("intent {id} not listed"))
}

#[test]
fn declare_stores_the_documented_record() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let r = c.ok(
        "intent.declare",
        json!({"sessionId": "s1", "description": "tighten auth", "files": ["src/auth.ts", "src/api.ts"], "symbols": ["validateToken"]}),
    );
    let id = r["intentId"].as_str().unwrap();
    assert_eq!(id.len(), 36, "UUID: {id}");
    assert_eq!(&id[14..15], "4", "UUID v4: {id}");
    assert_eq!(r["conflicts"], json!({"hasConflicts": false, "items": []}));

    let rec = intent(&mut c, id);
    assert_eq!(rec["sessionId"], "s1");
    assert_eq!(rec["description"], "tighten auth");
    assert_eq!(rec["files"], ",src/auth.ts,src/api.ts,");
    assert_eq!(rec["symbols"], "[\"validateToken\"]");
    assert_eq!(rec["status"], "declared");
    assert!(rec["declaredAt"].as_i64().unwrap() > 1_600_000_000_000);
    assert_eq!(rec["updatedAt"], rec["declaredAt"]);
    // The byte range is validateToken's definition in the file.
    let (start, end) = (
        rec["startByte"].as_u64().unwrap() as usize,
        rec["endByte"].as_u64().unwrap() as usize,
    );
    let text = &AUTH_TS[start..end];
    assert!(text.contains("function validateToken"), "{text:?}");
    assert!(text.trim_end().ends_with('}'), "{text:?}");
    assert!(!text.contains("function decode"), "{text:?}");

    // No symbols: a file-level intent with "[]" and null bytes.
    let r = declare(&mut c, "s1", &["src/auth.ts"], None);
    let rec = intent(&mut c, r["intentId"].as_str().unwrap());
    assert_eq!(rec["symbols"], "[]");
    assert_eq!(rec["startByte"], Value::Null);
    assert_eq!(rec["endByte"], Value::Null);
    // Symbols that are not found: also file-level.
    let r = declare(&mut c, "s1", &["src/auth.ts"], Some(&["nope"]));
    let rec = intent(&mut c, r["intentId"].as_str().unwrap());
    assert_eq!(rec["symbols"], "[\"nope\"]");
    assert_eq!(rec["startByte"], Value::Null);
}

#[test]
fn union_range_covers_every_declared_symbol() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let r = declare(&mut c, "s1", &["src/auth.ts"], Some(&["decode", "handler"]));
    let rec = intent(&mut c, r["intentId"].as_str().unwrap());
    let text = &AUTH_TS
        [rec["startByte"].as_u64().unwrap() as usize..rec["endByte"].as_u64().unwrap() as usize];
    assert!(
        text.contains("function decode") && text.contains("const handler"),
        "{text:?}"
    );
    assert!(!text.contains("class Session"), "{text:?}");
}

#[test]
fn transitions_follow_the_protocol_and_errors_come_in_order() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let new = |c: &mut Client| {
        declare(c, "s1", &["a.ts"], None)["intentId"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let update = |c: &mut Client, id: &str, session: &str, status: &str| {
        c.call(
            "intent.update",
            json!({"intentId": id, "sessionId": session, "status": status}),
        )
    };
    let valid = [
        vec!["active", "resolved"],
        vec!["active", "abandoned"],
        vec!["resolved"],
        vec!["abandoned"],
    ];
    for path in valid {
        let id = new(&mut c);
        for status in path {
            let r = update(&mut c, &id, "s1", status);
            assert_eq!(r["result"]["intentId"], id.as_str(), "{r}");
            assert_eq!(r["result"]["status"], status);
            assert!(r["result"]["updatedAt"].is_i64());
            assert_eq!(intent_status(&mut c, &id), status);
        }
    }
    let invalid = [
        (vec!["active"], "active", "active"),
        (vec!["resolved"], "active", "resolved"),
        (vec!["resolved"], "abandoned", "resolved"),
        (vec!["abandoned"], "resolved", "abandoned"),
        (vec!["abandoned"], "active", "abandoned"),
        (vec!["active", "resolved"], "abandoned", "resolved"),
    ];
    for (setup, requested, current) in invalid {
        let id = new(&mut c);
        for s in setup {
            assert!(update(&mut c, &id, "s1", s).get("result").is_some());
        }
        let r = update(&mut c, &id, "s1", requested);
        assert_eq!(r["error"]["code"], -32000, "{r}");
        assert_eq!(r["error"]["message"], "INVALID_TRANSITION");
        assert_eq!(
            r["error"]["data"],
            json!({"current": current, "requested": requested})
        );
    }
    // INTENT_NOT_FOUND, then INTENT_NOT_OWNED (even when the transition is also invalid).
    let r = update(
        &mut c,
        "00000000-0000-4000-8000-000000000000",
        "s1",
        "active",
    );
    assert_eq!(r["error"]["message"], "INTENT_NOT_FOUND");
    assert_eq!(r["error"]["code"], -32000);
    let id = new(&mut c);
    update(&mut c, &id, "s1", "resolved");
    let r = update(&mut c, &id, "s2", "active");
    assert_eq!(r["error"]["message"], "INTENT_NOT_OWNED");
    assert_eq!(r["error"]["code"], -32000);
}

fn intent_status(c: &mut Client, id: &str) -> String {
    for status in ["declared", "active", "resolved", "abandoned"] {
        let list = c.ok("intent.query", json!({"status": status}));
        if list.as_array().unwrap().iter().any(|i| i["intentId"] == id) {
            return status.to_owned();
        }
    }
    panic!("intent {id} has no status");
}

#[test]
fn query_filters_by_session_exact_file_and_status() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let exact = declare(&mut c, "s1", &["src/api.ts", "src/auth.ts"], None)["intentId"].clone();
    for file in [
        "src/auth.ts.bak",
        "SRC/auth.ts",
        "src_auth.ts",
        "src/auth.tsx",
        "lib/src/auth.ts",
    ] {
        declare(&mut c, "s2", &[file], None);
    }
    let resolved = declare(&mut c, "s2", &["src/auth.ts"], None)["intentId"].clone();
    c.ok(
        "intent.update",
        json!({"intentId": resolved, "sessionId": "s2", "status": "resolved"}),
    );
    let active = declare(&mut c, "s2", &["src/auth.ts"], None)["intentId"].clone();
    c.ok(
        "intent.update",
        json!({"intentId": active, "sessionId": "s2", "status": "active"}),
    );

    let ids = |v: Value| -> Vec<Value> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["intentId"].clone())
            .collect()
    };
    // Default status: declared and active only.
    assert_eq!(
        ids(c.ok("intent.query", json!({"file": "src/auth.ts"}))),
        vec![exact.clone(), active.clone()]
    );
    assert_eq!(
        ids(c.ok(
            "intent.query",
            json!({"file": "src/auth.ts", "status": "resolved"})
        )),
        vec![resolved.clone()]
    );
    assert_eq!(
        ids(c.ok("intent.query", json!({"status": "active"}))),
        vec![active.clone()]
    );
    assert_eq!(
        ids(c.ok("intent.query", json!({"status": "abandoned"}))),
        Vec::<Value>::new()
    );
    assert_eq!(
        ids(c.ok("intent.query", json!({"sessionId": "s1"}))),
        vec![exact.clone()]
    );
    assert_eq!(
        ids(c.ok(
            "intent.query",
            json!({"sessionId": "s2", "file": "src/auth.ts"})
        )),
        vec![active.clone()]
    );
    assert_eq!(ids(c.ok("intent.query", json!({}))).len(), 7);
    // No wildcards, no case folding, no partial segments.
    for pattern in [
        "src/%",
        "src/auth.%",
        "src/auth.t_",
        "*auth.ts",
        "auth.ts",
        "src/auth",
        "SRC/AUTH.TS",
        ",src/auth.ts,",
        "",
    ] {
        assert_eq!(
            ids(c.ok("intent.query", json!({"file": pattern}))),
            Vec::<Value>::new(),
            "{pattern}"
        );
    }
    assert_eq!(
        ids(c.ok("intent.query", json!({"file": "src/auth.ts.bak"}))).len(),
        1
    );
}

#[test]
fn overlap_follows_byte_ranges_per_file() {
    let repo = repo().with_file("src/other.ts", AUTH_TS);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let a = declare(&mut c, "A", &["src/auth.ts"], Some(&["decode"]));
    assert!(overlap_ids(&a).is_empty());
    let a_id = a["intentId"].as_str().unwrap().to_owned();

    // Different functions of one file: no overlap.
    let b = declare(&mut c, "B", &["src/auth.ts"], Some(&["handler"]));
    assert!(overlap_ids(&b).is_empty(), "{b}");
    let b_id = b["intentId"].as_str().unwrap().to_owned();

    // The same function: overlap, with the documented item.
    let c1 = declare(&mut c, "C", &["src/auth.ts"], Some(&["decode"]));
    assert_eq!(
        c1["conflicts"],
        json!({"hasConflicts": true, "items": [{
            "type": "INTENT_OVERLAP",
            "overlappingIntentId": a_id,
            "overlappingSessionId": "A",
            "description": "A work",
        }]})
    );
    let c_id = c1["intentId"].as_str().unwrap().to_owned();

    // A file-level intent overlaps everything in its file, in declaration order.
    let f = declare(&mut c, "F", &["src/auth.ts"], None);
    assert_eq!(
        overlap_ids(&f),
        vec![a_id.clone(), b_id.clone(), c_id.clone()]
    );
    // …and a ranged intent overlaps an existing file-level one.
    let g = declare(&mut c, "G", &["src/auth.ts"], Some(&["persist"]));
    assert_eq!(
        overlap_ids(&g),
        vec![f["intentId"].as_str().unwrap().to_owned()]
    );

    // Different files never overlap, even with identical byte ranges.
    let h = declare(&mut c, "H", &["src/other.ts"], Some(&["decode"]));
    assert!(overlap_ids(&h).is_empty(), "{h}");

    // A session's own intents never conflict with it.
    let own = declare(&mut c, "A", &["src/auth.ts"], None);
    assert!(!overlap_ids(&own).contains(&a_id));

    // Resolved and abandoned intents take no part.
    c.ok(
        "intent.update",
        json!({"intentId": b_id, "sessionId": "B", "status": "abandoned"}),
    );
    let k = declare(&mut c, "K", &["src/auth.ts"], Some(&["handler"]));
    assert!(!overlap_ids(&k).contains(&b_id), "{k}");
}

#[test]
fn ranges_are_compared_per_file_not_through_a_union() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    // Z's union range spans both files' offsets; per file, only helper (util.py) and
    // decode (auth.ts) are claimed.
    declare(
        &mut c,
        "Z",
        &["src/auth.ts", "src/util.py"],
        Some(&["decode", "helper"]),
    );
    // Greeter.greet in util.py lies inside Z's union range but outside helper.
    let w = declare(&mut c, "W", &["src/util.py"], Some(&["Greeter"]));
    assert!(overlap_ids(&w).is_empty(), "{w}");
    let w2 = declare(&mut c, "W2", &["src/util.py"], Some(&["helper"]));
    assert_eq!(overlap_ids(&w2).len(), 1, "{w2}");
}

#[test]
fn lock_intersection_and_dep_chain_are_reported_in_order() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let lock = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:decode", "sessionId": "A"}),
    );
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/util.py:helper", "sessionId": "A"}),
    );
    let a_intent = declare(&mut c, "A", &["src/auth.ts"], Some(&["decode"]));
    assert_eq!(
        a_intent["conflicts"]["items"],
        json!([]),
        "own locks never conflict"
    );

    // B declares decode (locked: LOCK_INTERSECTION) and validateToken (calls decode: DEP_CHAIN),
    // and overlaps A's intent.
    let b = declare(
        &mut c,
        "B",
        &["src/auth.ts"],
        Some(&["validateToken", "decode"]),
    );
    assert_eq!(
        b["conflicts"],
        json!({"hasConflicts": true, "items": [
            {
                "type": "INTENT_OVERLAP",
                "overlappingIntentId": a_intent["intentId"],
                "overlappingSessionId": "A",
                "description": "A work",
            },
            {
                "type": "LOCK_INTERSECTION",
                "symbolPath": "src/auth.ts:decode",
                "heldBy": "A",
                "expiresAt": lock["expiresAt"],
            },
            {
                "type": "DEP_CHAIN",
                "intentSymbol": "src/auth.ts:validateToken",
                "lockedCallee": "src/auth.ts:decode",
                "heldBy": "A",
            },
        ]})
    );

    // Python: main calls helper, which A holds.
    let p = declare(&mut c, "P", &["src/util.py"], Some(&["main"]));
    assert_eq!(
        p["conflicts"]["items"],
        json!([{"type": "DEP_CHAIN", "intentSymbol": "src/util.py:main", "lockedCallee": "src/util.py:helper", "heldBy": "A"}])
    );

    // Each declared file × each declared symbol is checked, even without analysis.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "docs/notes.md:intro", "sessionId": "A"}),
    );
    let m = declare(
        &mut c,
        "M",
        &["docs/notes.md", "src/api.ts"],
        Some(&["intro"]),
    );
    let items = m["conflicts"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{m}");
    assert_eq!(items[0]["type"], "LOCK_INTERSECTION");
    assert_eq!(items[0]["symbolPath"], "docs/notes.md:intro");
}

#[test]
fn declare_analyses_current_disk_content() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "A"}),
    );
    let before = declare(&mut c, "B", &["src/auth.ts"], Some(&["decode"]));
    assert_eq!(before["conflicts"]["items"], json!([]));
    // decode now calls persist: the fresh call graph shows the chain.
    repo.write(
        "src/auth.ts",
        &AUTH_TS.replace("  return null;\n}", "  persist(null);\n  return null;\n}"),
    );
    let after = declare(&mut c, "C", &["src/auth.ts"], Some(&["decode"]));
    let deps: Vec<&Value> = after["conflicts"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "DEP_CHAIN")
        .collect();
    assert_eq!(deps.len(), 1, "{after}");
    assert_eq!(deps[0]["lockedCallee"], "src/auth.ts:persist");
}

#[test]
fn a_declare_of_thirty_thousand_files_keeps_every_semantic_and_a_small_event() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let files = |from: usize, to: usize| -> Vec<String> {
        (from..to).map(|i| format!("big/f{i}.md")).collect()
    };
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "big/f40000.md:intro", "sessionId": "L"}),
    );
    let a = c.ok(
        "intent.declare",
        json!({"sessionId": "A", "description": "a", "files": files(0, 30_000)}),
    );
    let small = declare(&mut c, "S", &["big/f29999.md"], None);
    // B: 30,000 files sharing only the last one of A's and S's, each written twice and
    // once in another spelling, and one file of L's lock, with a symbol.
    let mut b_files = files(29_999, 60_000);
    b_files.extend(files(29_999, 60_000));
    b_files.push("./big//f40000.md".into());
    let b = c.ok(
        "intent.declare",
        json!({"sessionId": "B", "description": "b", "files": b_files, "symbols": ["intro", "intro"]}),
    );
    assert_eq!(
        b["conflicts"],
        json!({"hasConflicts": true, "items": [
            {"type": "INTENT_OVERLAP", "overlappingIntentId": a["intentId"],
             "overlappingSessionId": "A", "description": "a"},
            {"type": "INTENT_OVERLAP", "overlappingIntentId": small["intentId"],
             "overlappingSessionId": "S", "description": "S work"},
            {"type": "LOCK_INTERSECTION", "symbolPath": "big/f40000.md:intro", "heldBy": "L",
             "expiresAt": b["conflicts"]["items"][2]["expiresAt"]},
        ]})
    );
    assert!(b["conflicts"]["items"][2]["expiresAt"].is_string(), "{b}");

    // Stored as declared (every file, duplicates included, as v1 does), found by each
    // file; each file row once.
    let stored = intent(&mut c, b["intentId"].as_str().unwrap());
    let list = stored["files"].as_str().unwrap();
    assert_eq!(
        list.trim_matches(',').split(',').count(),
        60_003,
        "every entry kept"
    );
    assert!(list.starts_with(",big/f29999.md,big/f30000.md,"));
    for probe in ["big/f0.md", "big/f29999.md", "big/f59999.md"] {
        let found = c.ok("intent.query", json!({"file": probe}));
        let ids: Vec<&str> = found
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["intentId"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = [&a, &small, &b]
            .into_iter()
            .filter(|i| {
                let id = i["intentId"].as_str().unwrap();
                intent(&mut c, id)["files"]
                    .as_str()
                    .unwrap()
                    .contains(&format!(",{probe},"))
            })
            .map(|i| i["intentId"].as_str().unwrap())
            .collect();
        assert_eq!(ids, expected, "{probe}");
    }

    // The event: how many files, and only the first hundred of them.
    let events = c.ok(
        "events.poll",
        json!({"since": 0, "kinds": ["intent.declared"], "sessionId": "B"}),
    );
    let data = &events["events"][0]["data"];
    assert_eq!(data["fileCount"], 60_003);
    let shown = data["files"].as_array().unwrap();
    assert_eq!(shown.len(), 100);
    assert_eq!(shown[0], "big/f29999.md");
    assert_eq!(shown[99], "big/f30098.md");
    assert_eq!(data["symbols"], json!(["intro", "intro"]));
    assert_eq!(data["conflicts"], 3);

    // A session's own intents never conflict with it, however large.
    let again = c.ok(
        "intent.declare",
        json!({"sessionId": "A", "description": "a2", "files": files(0, 30_000)}),
    );
    assert_eq!(
        overlap_ids(&again),
        [
            small["intentId"].as_str().unwrap(),
            b["intentId"].as_str().unwrap()
        ]
    );
}
