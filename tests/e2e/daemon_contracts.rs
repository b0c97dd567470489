//! `contract.*` and `check-contracts`.

use serde_json::{Value, json};

use crate::support::client::Client;
use crate::support::daemon::Daemon;
use crate::support::repo::{AUTH_TS, TempRepo, UTIL_PY};

fn repo() -> TempRepo {
    TempRepo::new()
        .with_file("src/auth.ts", AUTH_TS)
        .with_file("src/util.py", UTIL_PY)
        .with_file("src/view.tsx", "export function View({ name }: { name: string }) {\n  return <div className=\"v\">{name}</div>;\n}\n")
        .with_file("README.md", "# readme\n")
        .with_file("src/tool.rb", "def tool(x)\nend\n")
}

fn propose(c: &mut Client, session: &str, path: &str) -> Value {
    c.ok(
        "contract.propose",
        json!({"sessionId": session, "symbolPath": path}),
    )
}

#[test]
fn propose_captures_the_canonical_signature_from_disk() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let r = propose(&mut c, "s1", "src/auth.ts:validateToken");
    assert_eq!(r["symbolPath"], "src/auth.ts:validateToken");
    assert_eq!(r["signature"], "(token: string): Promise<User | null>");
    let id = r["contractId"].as_str().unwrap();
    assert_eq!(id.len(), 36);
    assert_eq!(r.as_object().unwrap().len(), 3);

    let py = propose(&mut c, "s1", "src/util.py:helper");
    assert_eq!(py["signature"], "(name: str, retries: int = 3) -> bool");
    let method = propose(&mut c, "s1", "src/util.py:greet");
    assert_eq!(method["signature"], "(self, x)");
    let arrow = propose(&mut c, "s1", "src/auth.ts:handler");
    assert_eq!(arrow["signature"], "(req: Request): boolean");
    let tsx = propose(&mut c, "s1", "src/view.tsx:View");
    assert_eq!(tsx["signature"], "({ name }: { name: string })");

    let list = c.ok(
        "contract.query",
        json!({"symbolPath": "src/auth.ts:validateToken"}),
    );
    let rec = &list[0];
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(rec["contractId"], id);
    assert_eq!(rec["proposerSessionId"], "s1");
    assert_eq!(rec["signature"], "(token: string): Promise<User | null>");
    assert_eq!(rec["status"], "proposed");
    assert_eq!(rec["responderSessionId"], Value::Null);
    assert_eq!(rec["respondedAt"], Value::Null);
    assert!(rec["proposedAt"].as_i64().unwrap() > 1_600_000_000_000);
}

#[test]
fn propose_reports_symbol_not_found_with_the_path() {
    let repo = repo();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.ts"),
        "export function secret(a: number) {}\n",
    )
    .unwrap();
    repo.symlink(&outside.path().join("secret.ts"), "src/escape.ts");
    repo.symlink(outside.path(), "linked_dir");
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let secret_abs = format!("{}:secret", outside.path().join("secret.ts").display());
    let cases = [
        "src/missing.ts:validateToken", // missing file
        "README.md:readme",             // unsupported language
        "src/tool.rb:tool",             // unsupported language
        "src/auth.ts:nothing",          // absent symbol
        "src/auth.ts:Session",          // class
        "src/auth.ts:User",             // interface
        "src/auth.ts:Token",            // type alias
        "src/util.py:Greeter",          // Python class
        "src/escape.ts:secret",         // symlink escaping the root
        "linked_dir/secret.ts:secret",  // directory symlink escaping the root
        "src:decode",                   // a directory
    ];
    for path in cases {
        let err = c.err(
            "contract.propose",
            json!({"sessionId": "s1", "symbolPath": path}),
        );
        assert_eq!(err["code"], -32000, "{path}: {err}");
        assert_eq!(err["message"], "SYMBOL_NOT_FOUND", "{path}");
        assert_eq!(err["data"], json!({"symbolPath": path}));
    }
    // A path that cannot be a plain path inside the repository is not a name at all
    // (security issue item 8): refused at the protocol boundary, naming the field.
    for path in [
        "../secret.ts:secret",       // `..`
        "src/../src/auth.ts:decode", // `..` even when it stays inside
        secret_abs.as_str(),         // absolute path
    ] {
        let err = c.err(
            "contract.propose",
            json!({"sessionId": "s1", "symbolPath": path}),
        );
        assert_eq!(err["message"], "INVALID_REQUEST", "{path}: {err}");
        assert!(err["data"]["fieldErrors"]["symbolPath"].is_array(), "{err}");
    }
    assert_eq!(c.ok("contract.query", json!({})), json!([]));
}

#[test]
fn respond_accepts_rejects_and_errors_in_order() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let a = propose(&mut c, "P", "src/auth.ts:decode")["contractId"].clone();
    let b = propose(&mut c, "P", "src/auth.ts:persist")["contractId"].clone();

    let err = c.err(
        "contract.respond",
        json!({"contractId": "nope", "sessionId": "R", "accept": true}),
    );
    assert_eq!(
        (err["code"].clone(), err["message"].clone()),
        (json!(-32000), json!("CONTRACT_NOT_FOUND"))
    );
    let err = c.err(
        "contract.respond",
        json!({"contractId": a, "sessionId": "P", "accept": true}),
    );
    assert_eq!(err["code"], -32000);
    assert_eq!(err["message"], "SELF_ACCEPT_NOT_ALLOWED");

    let r = c.ok(
        "contract.respond",
        json!({"contractId": a, "sessionId": "R", "accept": true}),
    );
    assert_eq!(r, json!({"contractId": a, "status": "accepted"}));
    let r = c.ok(
        "contract.respond",
        json!({"contractId": b, "sessionId": "R", "accept": false}),
    );
    assert_eq!(r, json!({"contractId": b, "status": "rejected"}));

    // Already resolved comes before self-accept.
    for (id, status) in [(&a, "accepted"), (&b, "rejected")] {
        for session in ["R", "P", "X"] {
            let err = c.err(
                "contract.respond",
                json!({"contractId": id, "sessionId": session, "accept": true}),
            );
            assert_eq!(err["message"], "CONTRACT_ALREADY_RESOLVED");
            assert_eq!(err["data"], json!({"status": status}));
        }
    }

    let accepted = c.ok("contract.query", json!({"status": "accepted"}));
    assert_eq!(accepted.as_array().unwrap().len(), 1);
    assert_eq!(accepted[0]["contractId"], a);
    assert_eq!(accepted[0]["responderSessionId"], "R");
    assert!(accepted[0]["respondedAt"].is_i64());
    assert_eq!(
        c.ok("contract.query", json!({"status": "rejected"}))[0]["contractId"],
        b
    );
    assert_eq!(
        c.ok("contract.query", json!({"status": "proposed"})),
        json!([])
    );
    assert_eq!(
        c.ok("contract.query", json!({})).as_array().unwrap().len(),
        2
    );
    assert_eq!(
        c.ok("contract.query", json!({"symbolPath": "src/auth.ts"})),
        json!([])
    );
    assert_eq!(
        c.ok("contract.query", json!({"symbolPath": "src/auth.ts:decod"})),
        json!([])
    );
}

#[test]
fn check_contracts_uses_only_the_passed_content() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let accepted = propose(&mut c, "P", "src/auth.ts:validateToken")["contractId"].clone();
    c.ok(
        "contract.respond",
        json!({"contractId": accepted, "sessionId": "R", "accept": true}),
    );
    let py = propose(&mut c, "P", "src/util.py:helper")["contractId"].clone();
    c.ok(
        "contract.respond",
        json!({"contractId": py, "sessionId": "R", "accept": true}),
    );
    // Proposed and rejected contracts are never enforced.
    propose(&mut c, "P", "src/auth.ts:decode");
    let rejected = propose(&mut c, "P", "src/auth.ts:handler")["contractId"].clone();
    c.ok(
        "contract.respond",
        json!({"contractId": rejected, "sessionId": "R", "accept": false}),
    );

    let check = |c: &mut Client, files: Value| {
        c.ok("check-contracts", json!({"files": files}))["violations"].clone()
    };

    // Same content (and a re-wrapped signature with a trailing comma): no violation.
    assert_eq!(
        check(&mut c, json!([{"path": "src/auth.ts", "content": AUTH_TS}])),
        json!([])
    );
    let wrapped = AUTH_TS.replace(
        "validateToken(token: string): Promise<User | null>",
        "validateToken(\n  token: string,\n): Promise<User | null>",
    );
    assert_eq!(
        check(&mut c, json!([{"path": "src/auth.ts", "content": wrapped}])),
        json!([])
    );

    // A changed signature, and the decode/handler changes that are not enforced.
    let changed = AUTH_TS
        .replace(
            "validateToken(token: string)",
            "validateToken(token: string, strict: boolean)",
        )
        .replace("decode(token: string)", "decode(token: Buffer)")
        .replace(
            "(req: Request): boolean",
            "(req: Request, x: number): boolean",
        );
    assert_eq!(
        check(&mut c, json!([{"path": "src/auth.ts", "content": changed}])),
        json!([{
            "contractId": accepted,
            "symbolPath": "src/auth.ts:validateToken",
            "expected": "(token: string): Promise<User | null>",
            "actual": "(token: string, strict: boolean): Promise<User | null>",
        }])
    );
    // The symbol gone.
    let removed = AUTH_TS.replace("validateToken", "checkToken");
    let v = check(&mut c, json!([{"path": "src/auth.ts", "content": removed}]));
    assert_eq!(v[0]["actual"], "(symbol not found in staged content)");
    assert_eq!(v.as_array().unwrap().len(), 1);

    // The disk is never read: change the disk, pass the old content → still clean.
    repo.write(
        "src/auth.ts",
        &AUTH_TS.replace("validateToken(token: string)", "validateToken()"),
    );
    assert_eq!(
        check(&mut c, json!([{"path": "src/auth.ts", "content": AUTH_TS}])),
        json!([])
    );
    // Content for a file that does not exist on disk is checked all the same.
    std::fs::remove_file(repo.path().join("src/util.py")).unwrap();
    let py_changed = UTIL_PY.replace("retries: int = 3", "retries: int = 5");
    let v = check(
        &mut c,
        json!([{"path": "src/util.py", "content": py_changed}]),
    );
    assert_eq!(v[0]["actual"], "(name: str, retries: int = 5) -> bool");
    assert_eq!(v[0]["expected"], "(name: str, retries: int = 3) -> bool");

    // Paths match exactly; unsupported files are skipped.
    let v = check(
        &mut c,
        json!([
            {"path": "src/auth.ts.bak", "content": "garbage"},
            {"path": "SRC/auth.ts", "content": ""},
            {"path": "README.md", "content": "validateToken"},
        ]),
    );
    assert_eq!(v, json!([]));
    // …once normalized: `./src/auth.ts` is `src/auth.ts` (security issue item 8).
    let v = check(&mut c, json!([{"path": "./src/auth.ts", "content": ""}]));
    assert_eq!(
        v[0]["actual"], "(symbol not found in staged content)",
        "{v}"
    );
    assert_eq!(check(&mut c, json!([])), json!([]));
    // Several files at once, in order.
    let v = check(
        &mut c,
        json!([
            {"path": "src/auth.ts", "content": ""},
            {"path": "src/util.py", "content": ""},
        ]),
    );
    let paths: Vec<&Value> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| &x["symbolPath"])
        .collect();
    assert_eq!(
        paths,
        [
            &json!("src/auth.ts:validateToken"),
            &json!("src/util.py:helper")
        ]
    );
}

const ROUTER_TS: &str = "export class Router {\n  dispatch(path: string): void {}\n}\n";

/// Issue 32: v1 answers name a contract as its proposer did. A contract proposed as
/// `src/api.ts:dispatch` (stored under the canonical `src/api.ts:Router.dispatch`) is
/// named so in `check-contracts` violations as in `contract.query`; and `contract.query`
/// with the proposer's exact spelling finds it even after the name no longer resolves on
/// disk.
#[test]
fn violations_and_queries_keep_the_proposers_spelling_even_once_the_name_is_gone() {
    let repo = TempRepo::new().with_file("src/api.ts", ROUTER_TS);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let proposed = propose(&mut c, "P", "src/api.ts:dispatch");
    assert_eq!(proposed["symbolPath"], "src/api.ts:dispatch");
    c.ok(
        "contract.respond",
        json!({"contractId": proposed["contractId"], "sessionId": "R", "accept": true}),
    );
    let changed = ROUTER_TS.replace("path: string", "path: string, strict: boolean");
    let check = c.ok(
        "check-contracts",
        json!({"files": [{"path": "src/api.ts", "content": changed}]}),
    );
    assert_eq!(
        check["violations"][0]["symbolPath"], "src/api.ts:dispatch",
        "{check}"
    );
    assert_eq!(
        check["violations"][0]["contractId"], proposed["contractId"],
        "{check}"
    );
    // The method is renamed on disk: `dispatch` resolves to nothing any more.
    repo.write("src/api.ts", &ROUTER_TS.replace("dispatch", "route"));
    let missing = c.ok(
        "check-contracts",
        json!({"files": [{"path": "src/api.ts", "content": ROUTER_TS.replace("dispatch", "route")}]}),
    );
    assert_eq!(
        missing["violations"][0]["symbolPath"],
        "src/api.ts:dispatch"
    );
    for spelling in ["src/api.ts:dispatch", "src/api.ts:Router.dispatch"] {
        let found = c.ok("contract.query", json!({"symbolPath": spelling}));
        assert_eq!(
            found.as_array().map(Vec::len),
            Some(1),
            "{spelling}: {found}"
        );
        assert_eq!(found[0]["contractId"], proposed["contractId"]);
        assert_eq!(found[0]["symbolPath"], "src/api.ts:dispatch");
    }
    // While the name resolves, one contract answers both spellings once.
    repo.write("src/api.ts", ROUTER_TS);
    let found = c.ok(
        "contract.query",
        json!({"symbolPath": "src/api.ts:dispatch"}),
    );
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
}
