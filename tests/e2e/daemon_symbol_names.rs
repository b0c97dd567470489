//! Security issue item 8: one symbol has one name. Every spelling of a file, and every
//! name resolving to one definition, is one lock, one contract and one intent target, so
//! a client speaking the raw protocol cannot defeat mutual exclusion with a spelling.

use serde_json::{Value, json};

use crate::support::client::Client;
use crate::support::daemon::Daemon;
use crate::support::repo::TempRepo;

const A_TS: &str = "export function f(x: number): number {\n  return g(x);\n}\n\nexport function g(x: number): number {\n  return x;\n}\n";

const STORE_PY: &str = "class Store:\n    def get(self, key: str) -> str:\n        return key\n\n    def put(self, key: str) -> None:\n        self.get(key)\n\n\ndef get(key):\n    return key\n";

fn repo() -> TempRepo {
    TempRepo::new()
        .with_file("src/a.ts", A_TS)
        .with_file("src/store.py", STORE_PY)
}

fn acquire(c: &mut Client, path: &str, session: &str) -> Value {
    c.call(
        "lock.acquire",
        json!({"symbolPath": path, "sessionId": session}),
    )
}

const SPELLINGS: [&str; 4] = ["src//a.ts:f", "./src/a.ts:f", "src/./a.ts:f", "src/a.ts:f"];

#[test]
fn item8_four_spellings_of_one_path_are_one_lock() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    for (i, holder) in SPELLINGS.iter().enumerate() {
        let got = acquire(&mut c, holder, "holder");
        assert_eq!(got["result"]["symbolPath"], "src/a.ts:f", "{got}");
        for (j, other) in SPELLINGS.iter().enumerate() {
            let resp = acquire(&mut c, other, "intruder");
            assert_eq!(resp["error"]["message"], "LOCK_CONFLICT", "{i}/{j}: {resp}");
            assert_eq!(resp["error"]["data"]["heldBy"], "holder");
        }
        // Released by any other spelling.
        let other = SPELLINGS[(i + 1) % SPELLINGS.len()];
        c.ok(
            "lock.release",
            json!({"symbolPath": other, "sessionId": "holder"}),
        );
    }
    let locks = c.ok("lock.query", json!({}));
    assert_eq!(locks, json!([]));
}

#[test]
fn item8_dot_dot_absolute_control_characters_and_empty_files_are_invalid_requests() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let bad = [
        "src/../src/a.ts:f",
        "../a.ts:f",
        "/etc/passwd:f",
        ":f",
        "./:f",
        "src/a.ts:f\u{0}",
        "src/a\n.ts:f",
    ];
    for path in bad {
        for method in ["lock.acquire", "lock.release", "contract.propose"] {
            let err = c.err(method, json!({"symbolPath": path, "sessionId": "s"}));
            assert_eq!(
                err["message"], "INVALID_REQUEST",
                "{method} {path:?}: {err}"
            );
            let why = &err["data"]["fieldErrors"]["symbolPath"];
            assert!(
                why.is_array() && !why[0].as_str().unwrap_or("").is_empty(),
                "{err}"
            );
        }
    }
    let err = c.err("contract.query", json!({"symbolPath": "src/../a.ts:f"}));
    assert!(err["data"]["fieldErrors"]["symbolPath"].is_array(), "{err}");
    let err = c.err(
        "intent.declare",
        json!({"sessionId": "s", "description": "d", "files": ["src/a.ts", "src/../a.ts"]}),
    );
    let why = err["data"]["fieldErrors"]["files"][0]
        .as_str()
        .unwrap_or_default();
    assert!(why.contains("item 1") && why.contains(".."), "{err}");
    let err = c.err("intent.query", json!({"file": "/abs/a.ts"}));
    assert!(err["data"]["fieldErrors"]["file"].is_array(), "{err}");
    let err = c.err(
        "check-contracts",
        json!({"files": [{"path": "../x.ts", "content": ""}]}),
    );
    assert!(err["data"]["fieldErrors"]["files"].is_array(), "{err}");
    // Nothing was stored under a refused name.
    assert_eq!(c.ok("lock.query", json!({})), json!([]));
}

#[test]
fn item8_intents_and_contracts_store_and_match_the_normal_form() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "s", "description": "d", "files": ["./src//a.ts"], "symbols": ["f"]}),
    );
    let intents = c.ok("intent.query", json!({"file": "src/./a.ts"}));
    assert_eq!(intents.as_array().map(Vec::len), Some(1), "{intents}");
    assert_eq!(intents[0]["intentId"], declared["intentId"]);
    assert_eq!(intents[0]["files"], ",src/a.ts,");
    // Another session's intent on another spelling overlaps.
    let other = c.ok(
        "intent.declare",
        json!({"sessionId": "t", "description": "d2", "files": ["src/a.ts"], "symbols": ["f"]}),
    );
    assert_eq!(
        other["conflicts"]["items"][0]["type"], "INTENT_OVERLAP",
        "{other}"
    );

    let proposed = c.ok(
        "contract.propose",
        json!({"symbolPath": "./src/a.ts:f", "sessionId": "s"}),
    );
    assert_eq!(proposed["symbolPath"], "src/a.ts:f");
    let found = c.ok("contract.query", json!({"symbolPath": "src//a.ts:f"}));
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
    c.ok(
        "contract.respond",
        json!({"contractId": proposed["contractId"], "sessionId": "t", "accept": true}),
    );
    // check-contracts matches the contract whichever spelling the hook sends.
    let content = A_TS.replace("f(x: number)", "f(x: string)");
    let check = c.ok(
        "check-contracts",
        json!({"files": [{"path": "./src/a.ts", "content": content}]}),
    );
    assert_eq!(
        check["violations"].as_array().map(Vec::len),
        Some(1),
        "{check}"
    );
}

#[test]
fn item8_a_bare_name_and_its_qualified_name_are_one_lock_in_both_orders() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    // `get` resolves to the first definition named get: the method Store.get.
    for (first, second) in [
        ("src/store.py:get", "src/store.py:Store.get"),
        ("src/store.py:Store.get", "src/store.py:get"),
    ] {
        // One lock, answered (v1) in the spelling the request used.
        let got = acquire(&mut c, first, "a");
        assert_eq!(got["result"]["symbolPath"], first, "{got}");
        let listed = c.ok("lock.query", json!({}));
        assert_eq!(
            listed[0]["symbolPath"], first,
            "as its holder named it: {listed}"
        );
        let resp = acquire(&mut c, second, "b");
        assert_eq!(
            resp["error"]["message"], "LOCK_CONFLICT",
            "{first} then {second}: {resp}"
        );
        assert_eq!(resp["error"]["data"]["heldBy"], "a");
        // b cannot release it under either name; a can, under the other one.
        let err = c.err(
            "lock.release",
            json!({"symbolPath": second, "sessionId": "b"}),
        );
        assert_eq!(err["message"], "LOCK_NOT_HELD", "{err}");
        c.ok(
            "lock.release",
            json!({"symbolPath": second, "sessionId": "a"}),
        );
        let err = c.err(
            "lock.release",
            json!({"symbolPath": first, "sessionId": "a"}),
        );
        assert_eq!(err["message"], "LOCK_NOT_FOUND", "{err}");
    }
    // The top-level `def get` after the class is shadowed for the bare name: the first
    // definition named `get` wins (PROTOCOL-NOTES), and that is the method.
    let locks = c.ok("lock.query", json!({}));
    assert_eq!(locks, json!([]));
}

#[test]
fn item8_intent_conflicts_find_a_lock_under_any_spelling() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/store.py:get", "sessionId": "a"}),
    );
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "b", "description": "d", "files": ["./src/store.py"], "symbols": ["Store.get", "Store.put"]}),
    );
    let items = declared["conflicts"]["items"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Found under the canonical name, reported (v1) as the holder named it.
    assert!(
        items.iter().any(|i| i["type"] == "LOCK_INTERSECTION"
            && i["symbolPath"] == "src/store.py:get"
            && i["heldBy"] == "a"),
        "{declared}"
    );
    // Store.put calls self.get(): the locked callee, whichever name it was locked by.
    assert!(
        items.iter().any(|i| i["type"] == "DEP_CHAIN"
            && i["intentSymbol"] == "src/store.py:Store.put"
            && i["lockedCallee"] == "src/store.py:get"),
        "{declared}"
    );
    // Contracts: proposed under one name, stored under the canonical one, found by
    // either, and named (v1) as the proposer named it.
    let proposed = c.ok(
        "contract.propose",
        json!({"symbolPath": "src/store.py:get", "sessionId": "a"}),
    );
    assert_eq!(proposed["symbolPath"], "src/store.py:get");
    for filter in ["src/store.py:get", "src/store.py:Store.get"] {
        let found = c.ok("contract.query", json!({"symbolPath": filter}));
        assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
        assert_eq!(found[0]["symbolPath"], "src/store.py:get", "{found}");
    }
    let refused = c.err(
        "contract.propose",
        json!({"symbolPath": "src/store.py:nosuch", "sessionId": "a"}),
    );
    assert_eq!(refused["message"], "SYMBOL_NOT_FOUND");
}

const SERVICE_TS: &str = "export class UserService {\n  findById(id: string): string {\n    return id;\n  }\n\n  load(id: string): string {\n    return this.findById(id);\n  }\n}\n\nexport function lookup(id: string): string {\n  return new UserService().findById(id);\n}\n";

/// Issue 23: v1's caller warnings name each locked caller as its holder locked it, and end
/// the chain with the symbol as the request named it: a TS class method caller locked by
/// its bare name (`load`, whose `this.findById()` is the call), and two callers held by
/// two sessions. Agents compare these strings with the ones they sent.
#[test]
fn caller_warnings_keep_the_spelling_of_the_holder_and_of_the_request() {
    let repo = TempRepo::new().with_file("src/auth.ts", SERVICE_TS);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let held = acquire(&mut c, "src/auth.ts:load", "a");
    assert_eq!(held["result"]["symbolPath"], "src/auth.ts:load", "{held}");
    acquire(&mut c, "src/auth.ts:lookup", "c");

    let got = acquire(&mut c, "src/auth.ts:findById", "b");
    assert_eq!(got["result"]["symbolPath"], "src/auth.ts:findById", "{got}");
    let mut warnings = got["result"]["warnings"].as_array().unwrap().clone();
    warnings.sort_by_key(|w| w["lockedSymbol"].as_str().unwrap_or_default().to_owned());
    assert_eq!(
        Value::Array(warnings),
        json!([
            {"lockedSymbol": "src/auth.ts:load", "heldBy": "a",
             "chain": ["src/auth.ts:load", "src/auth.ts:findById"]},
            {"lockedSymbol": "src/auth.ts:lookup", "heldBy": "c",
             "chain": ["src/auth.ts:lookup", "src/auth.ts:findById"]},
        ])
    );
    // Under the other spelling of the same method the lock is the same one (a refresh by
    // its holder), and the answer follows the new spelling.
    let again = acquire(&mut c, "src/auth.ts:UserService.findById", "b");
    assert_eq!(
        again["result"]["symbolPath"],
        "src/auth.ts:UserService.findById"
    );
    let other = acquire(&mut c, "src/auth.ts:findById", "z");
    assert_eq!(other["error"]["message"], "LOCK_CONFLICT", "{other}");
}
