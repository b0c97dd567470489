//! The Go analyzer plugin (examples/analyzer-go, a real .so) loaded by a real daemon from
//! `wit.toml` after `wit trust`, used through the protocol and by the pre-commit hook.

use serde_json::json;

use crate::support::plugin_repo::{
    BUILTINS_THEN_GO_PLUGIN, PluginRepo, USERS_GO, analyzer_ids, first_plugin,
};
use crate::support::plugins::go_plugin;

/// A trusted repository with the Go plugin (copied in) and `users.go`, daemon running.
fn go_repo() -> PluginRepo {
    let r = PluginRepo::new();
    r.install(&go_plugin(), "plugins/libwit_analyzer_go.so");
    r.write(
        "wit.toml",
        "[[analyzers]]\npath = \"plugins/libwit_analyzer_go.so\"\n",
    );
    r.write("users.go", USERS_GO);
    r.trust();
    r
}

#[test]
fn wit_analyzers_lists_the_builtins_and_the_go_plugin_with_its_path() {
    let r = go_repo();
    let list = r.analyzers();
    assert_eq!(analyzer_ids(&list), BUILTINS_THEN_GO_PLUGIN);
    let go = first_plugin(&list);
    assert_eq!(go["extensions"], json!(["go"]));
    assert_eq!(go["origin"], "plugin");
    assert_eq!(
        go["path"],
        r.path()
            .join("plugins/libwit_analyzer_go.so")
            .display()
            .to_string()
    );
    assert_eq!(list["failed"], json!([]));
    assert_eq!(list["trust"]["status"], "trusted");
    assert_eq!(
        list["trust"]["store"],
        r.trust_store().display().to_string()
    );
    assert_eq!(list["analyzers"][0]["origin"], "builtin");

    let human = r.wit(None, &["analyzers"]).ok().stdout;
    assert!(human.contains("go"), "{human}");
    assert!(
        human.contains(&format!(
            "plugin {}",
            r.path().join("plugins/libwit_analyzer_go.so").display()
        )),
        "{human}"
    );
    assert!(r.log().contains("loaded \"go\" for .go"), "{}", r.log());
}

#[test]
fn locks_intents_and_contracts_work_on_go_symbols() {
    let r = go_repo();
    r.analyzers(); // starts the daemon
    let mut c = r.client();

    // Caller warnings: A holds Handler, which calls Validate; B locking Validate is warned.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "users.go:Handler", "sessionId": "A"}),
    );
    let lock = c.ok(
        "lock.acquire",
        json!({"symbolPath": "users.go:Validate", "sessionId": "B"}),
    );
    assert_eq!(
        lock["warnings"],
        json!([{
            "lockedSymbol": "users.go:Handler",
            "heldBy": "A",
            "chain": ["users.go:Handler", "users.go:Validate"],
        }])
    );

    // An intent on Handler gets Handler's byte range, and DEP_CHAIN for its locked callee.
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "A", "description": "rework handler", "files": ["users.go"], "symbols": ["Handler"]}),
    );
    assert_eq!(
        declared["conflicts"],
        json!({"hasConflicts": true, "items": [{
            "type": "DEP_CHAIN",
            "intentSymbol": "users.go:Handler",
            "lockedCallee": "users.go:Validate",
            "heldBy": "B",
        }]})
    );
    let intents = c.ok("intent.query", json!({"sessionId": "A"}));
    let start = USERS_GO.find("func Handler").unwrap() as i64;
    let end = (USERS_GO.find("func Validate").unwrap() - 2) as i64;
    assert_eq!(intents[0]["startByte"], start);
    assert_eq!(intents[0]["endByte"], end);
    let range = &USERS_GO[start as usize..end as usize];
    assert!(
        range.starts_with("func Handler(ctx context.Context, id string) (*User, error) {")
            && range.ends_with("return Lookup(ctx, id)\n}"),
        "{range}"
    );

    // Contracts: the Go signature, accepted, then a changed signature is a violation.
    let proposed = c.ok(
        "contract.propose",
        json!({"sessionId": "A", "symbolPath": "users.go:Lookup"}),
    );
    assert_eq!(
        proposed["signature"],
        "(ctx context.Context, id string) (*User, error)"
    );
    c.ok(
        "contract.respond",
        json!({"contractId": proposed["contractId"], "sessionId": "B", "accept": true}),
    );
    let unchanged = c.ok(
        "check-contracts",
        json!({"files": [{"path": "users.go", "content": USERS_GO}]}),
    );
    assert_eq!(unchanged["violations"], json!([]));
    let changed = USERS_GO.replace(
        "func Lookup(ctx context.Context, id string) (*User, error)",
        "func Lookup(ctx context.Context, id int) (*User, error)",
    );
    let result = c.ok(
        "check-contracts",
        json!({"files": [{"path": "users.go", "content": changed}]}),
    );
    assert_eq!(
        result["violations"],
        json!([{
            "contractId": proposed["contractId"],
            "symbolPath": "users.go:Lookup",
            "expected": "(ctx context.Context, id string) (*User, error)",
            "actual": "(ctx context.Context, id int) (*User, error)",
        }])
    );
}

#[test]
fn the_pre_commit_hook_refuses_a_commit_breaking_a_go_contract() {
    let r = go_repo();
    r.write(".gitignore", "plugins/\n");
    r.wit(None, &["init"]).ok();
    r.wit(None, &["hook", "install"]).ok();
    r.git(&["add", "users.go", ".gitignore", "wit.toml"]);
    r.git(&["commit", "-q", "-m", "initial"]);

    let id = r
        .wit(
            Some("agent-a"),
            &["contract", "propose", "--json", "users.go:Lookup"],
        )
        .ok()
        .json()["contractId"]
        .as_str()
        .unwrap()
        .to_owned();
    r.wit(Some("agent-b"), &["contract", "accept", &id]).ok();

    r.write(
        "users.go",
        &USERS_GO.replace(
            "func Lookup(ctx context.Context, id string) (*User, error)",
            "func Lookup(id string) (*User, error)",
        ),
    );
    r.git(&["add", "users.go"]);
    let refused = r.git_run(&["commit", "-m", "break Lookup"], Some("agent-a"));
    assert_ne!(refused.code, 0, "the commit must be refused: {refused:#?}");
    assert!(
        refused.stderr.contains("users.go:Lookup"),
        "{}",
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("expected: (ctx context.Context, id string) (*User, error)"),
        "{}",
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("actual:   (id string) (*User, error)"),
        "{}",
        refused.stderr
    );
    assert_eq!(r.git(&["log", "-1", "--format=%s"]).trim(), "initial");

    // The signature restored (with another change): the commit goes through.
    r.write("users.go", &format!("{USERS_GO}\n// reviewed\n"));
    r.git(&["add", "users.go"]);
    let ok = r.git_run(&["commit", "-q", "-m", "keep Lookup"], Some("agent-a"));
    assert_eq!(ok.code, 0, "{ok:#?}");
    assert_eq!(r.git(&["log", "-1", "--format=%s"]).trim(), "keep Lookup");
}

#[test]
fn go_calls_across_files_of_one_package_resolve_and_warn() {
    let r = go_repo();
    r.write(
        "pkg/a.go",
        "package pkg\n\nimport \"fmt\"\n\nfunc Run() {\n\thelper()\n\tfmt.Println(\"x\")\n}\n",
    );
    r.write("pkg/b.go", "package pkg\n\nfunc helper() {}\n");
    r.write(
        "other/c.go",
        "package other\n\nfunc helper() {}\nfunc Println() {}\n",
    );
    r.analyzers(); // starts the daemon
    let mut c = r.client();
    crate::support::daemon::wait_until(
        "the index is built",
        std::time::Duration::from_secs(60),
        || c.ok("graph.status", json!({}))["state"] == "ready",
    );
    let callees = c.ok("code.callees", json!({"symbolPath": "pkg/a.go:Run"}));
    let got: Vec<(String, String)> = callees["callees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["callee"].as_str().unwrap().to_owned(),
                e["resolution"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("pkg/b.go:helper".to_owned(), "resolved".to_owned()),
            ("?:Println".to_owned(), "unresolved".to_owned()),
        ]
    );
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "pkg/a.go:Run", "sessionId": "A"}),
    );
    let lock = c.ok(
        "lock.acquire",
        json!({"symbolPath": "pkg/b.go:helper", "sessionId": "B"}),
    );
    assert_eq!(
        lock["warnings"],
        json!([{"lockedSymbol": "pkg/a.go:Run", "heldBy": "A", "chain": ["pkg/a.go:Run", "pkg/b.go:helper"]}])
    );
}
