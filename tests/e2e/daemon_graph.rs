//! The repository code graph through the socket (issue 10): cross-file caller warnings
//! and DEP_CHAIN with their exact wire answers, `code.callers`/`code.callees`,
//! `symbols.list`/`symbols.resolve`, unknown symbols, edits, deletions and renames while
//! indexed, persistence across a restart, and what is never indexed.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::client::Client;
use crate::support::daemon::{Daemon, daemon_command, wait_until};
use crate::support::repo::TempRepo;

const DB: &str = "export function query(sql: string): string {\n  return run(sql);\n}\n\nfunction run(s: string): string {\n  return s;\n}\n\nexport class Repo {\n  find(id: string) {\n    return this.load(id);\n  }\n  load(id: string) {\n    return query(id);\n  }\n}\n";
const API: &str = "import { query as q, Repo } from './db';\nimport * as db from './db.js';\n\nexport function handler(): string {\n  db.query('a');\n  new Repo().find('x');\n  return q('b');\n}\n";
const INDEX: &str = "export { handler as main } from './api';\n";

/// Waits (polling `graph.status`) until the first build is over.
fn ready(c: &mut Client) -> Value {
    let mut status = Value::Null;
    wait_until("the index is built", Duration::from_secs(60), || {
        status = c.ok("graph.status", json!({}));
        status["state"] == "ready"
    });
    status
}

fn repo() -> TempRepo {
    TempRepo::new()
        .with_file("src/db.ts", DB)
        .with_file("src/api.ts", API)
        .with_file("src/index.ts", INDEX)
}

#[test]
fn a_lock_warns_about_a_caller_in_another_file_locked_by_someone_else() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ready(&mut c);
    c.ok(
        "lock.acquire",
        json!({"sessionId": "s2", "symbolPath": "src/api.ts:handler"}),
    );
    let r = c.ok(
        "lock.acquire",
        json!({"sessionId": "s1", "symbolPath": "src/db.ts:query"}),
    );
    assert_eq!(
        r["warnings"],
        json!([{
            "lockedSymbol": "src/api.ts:handler",
            "heldBy": "s2",
            "chain": ["src/api.ts:handler", "src/db.ts:query"]
        }])
    );
    assert!(r.get("unknownSymbols").is_none(), "{r}");
    // The same-file caller (Repo.load) locked by s2 too: v1's warning comes first.
    c.ok(
        "lock.acquire",
        json!({"sessionId": "s2", "symbolPath": "src/db.ts:Repo.load"}),
    );
    let r = c.ok(
        "lock.acquire",
        json!({"sessionId": "s1", "symbolPath": "src/db.ts:query"}),
    );
    assert_eq!(
        r["warnings"],
        json!([
            {"lockedSymbol": "src/db.ts:Repo.load", "heldBy": "s2", "chain": ["src/db.ts:Repo.load", "src/db.ts:query"]},
            {"lockedSymbol": "src/api.ts:handler", "heldBy": "s2", "chain": ["src/api.ts:handler", "src/db.ts:query"]}
        ])
    );
}

/// The warnings are looked for only among the other sessions' locks: none held, a few
/// (their files' callers alone are resolved), or more than the daemon lists by name
/// (every caller is): the answer is the same whichever way it was found.
#[test]
fn caller_warnings_are_the_same_with_no_few_or_many_locks_of_others() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ready(&mut c);
    let acquire = |c: &mut Client, session: &str, path: &str| {
        c.ok(
            "lock.acquire",
            json!({"sessionId": session, "symbolPath": path}),
        )
    };
    let release = |c: &mut Client, session: &str, path: &str| {
        c.ok(
            "lock.release",
            json!({"sessionId": session, "symbolPath": path}),
        );
    };
    // Nobody else holds a lock: no warning, though `query` has callers.
    assert_eq!(
        acquire(&mut c, "s1", "src/db.ts:query")["warnings"],
        json!([])
    );
    release(&mut c, "s1", "src/db.ts:query");
    let expected = json!([
        {"lockedSymbol": "src/db.ts:Repo.load", "heldBy": "s2", "chain": ["src/db.ts:Repo.load", "src/db.ts:query"]},
        {"lockedSymbol": "src/api.ts:handler", "heldBy": "s2", "chain": ["src/api.ts:handler", "src/db.ts:query"]}
    ]);
    // A few: the two callers, a definition that does not call it, and a file not indexed.
    for path in [
        "src/api.ts:handler",
        "src/db.ts:Repo.load",
        "src/db.ts:Repo.find",
        "src/gone.ts:f",
    ] {
        acquire(&mut c, "s2", path);
    }
    assert_eq!(
        acquire(&mut c, "s1", "src/db.ts:query")["warnings"],
        expected
    );
    release(&mut c, "s1", "src/db.ts:query");
    // Our own locks elsewhere change nothing.
    acquire(&mut c, "s1", "src/index.ts:main");
    assert_eq!(
        acquire(&mut c, "s1", "src/db.ts:query")["warnings"],
        expected
    );
    release(&mut c, "s1", "src/db.ts:query");
    // Many: another session holds seventy more, in files that do not exist.
    for i in 0..70 {
        acquire(&mut c, "s3", &format!("gen/m{i}.ts:f"));
    }
    assert_eq!(
        acquire(&mut c, "s1", "src/db.ts:query")["warnings"],
        expected
    );
    release(&mut c, "s1", "src/db.ts:query");
    // The callers released: no warning again, with the seventy still held.
    release(&mut c, "s2", "src/api.ts:handler");
    release(&mut c, "s2", "src/db.ts:Repo.load");
    assert_eq!(
        acquire(&mut c, "s1", "src/db.ts:query")["warnings"],
        json!([])
    );
}

#[test]
fn declare_reports_dep_chain_for_a_callee_locked_in_another_file() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ready(&mut c);
    c.ok(
        "lock.acquire",
        json!({"sessionId": "s2", "symbolPath": "src/db.ts:Repo.find"}),
    );
    c.ok(
        "lock.acquire",
        json!({"sessionId": "s2", "symbolPath": "src/db.ts:query"}),
    );
    let r = c.ok(
        "intent.declare",
        json!({"sessionId": "s1", "description": "d", "files": ["src/api.ts"], "symbols": ["handler"]}),
    );
    assert_eq!(
        r["conflicts"],
        json!({
            "hasConflicts": true,
            "items": [
                {"type": "DEP_CHAIN", "intentSymbol": "src/api.ts:handler", "lockedCallee": "src/db.ts:query", "heldBy": "s2"},
                {"type": "DEP_CHAIN", "intentSymbol": "src/api.ts:handler", "lockedCallee": "src/db.ts:Repo.find", "heldBy": "s2"}
            ]
        })
    );
    assert!(r.get("unknownSymbols").is_none(), "{r}");
}

#[test]
fn python_dep_chain_through_a_package_re_export() {
    let repo = TempRepo::new()
        .with_file("pkg/__init__.py", "from .db import query\n")
        .with_file("pkg/db.py", "def query(sql):\n    return sql\n")
        .with_file(
            "app/views.py",
            "from pkg import query as q\n\n\nclass View:\n    def get(self):\n        return q('x')\n",
        );
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ready(&mut c);
    c.ok(
        "lock.acquire",
        json!({"sessionId": "s2", "symbolPath": "pkg/db.py:query"}),
    );
    let r = c.ok(
        "intent.declare",
        json!({"sessionId": "s1", "description": "d", "files": ["app/views.py"], "symbols": ["View.get"]}),
    );
    assert_eq!(
        r["conflicts"]["items"],
        json!([{"type": "DEP_CHAIN", "intentSymbol": "app/views.py:View.get", "lockedCallee": "pkg/db.py:query", "heldBy": "s2"}])
    );
}

#[test]
fn callers_and_callees_answer_exact_edges_across_files_with_depth() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ready(&mut c);
    let r = c.ok("code.callers", json!({"symbolPath": "src/db.ts:query"}));
    assert_eq!(
        r,
        json!({
            "symbol": "src/db.ts:query",
            "depth": 1,
            "complete": true,
            "callers": [
                {"caller": "src/api.ts:handler", "callee": "src/db.ts:query", "resolution": "resolved", "file": "src/api.ts", "line": 4, "depth": 1},
                {"caller": "src/db.ts:Repo.load", "callee": "src/db.ts:query", "resolution": "resolved", "file": "src/db.ts", "line": 13, "depth": 1}
            ]
        })
    );
    let r = c.ok(
        "code.callees",
        json!({"symbolPath": "src/api.ts:handler", "depth": 2}),
    );
    let edges: Vec<(String, String, String, u64)> = r["callees"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["caller"].as_str().unwrap().to_owned(),
                e["callee"].as_str().unwrap().to_owned(),
                e["resolution"].as_str().unwrap().to_owned(),
                e["depth"].as_u64().unwrap(),
            )
        })
        .collect();
    let e = |a: &str, b: &str, r: &str, d| (a.to_owned(), b.to_owned(), r.to_owned(), d);
    assert_eq!(
        edges,
        [
            e("src/api.ts:handler", "src/db.ts:query", "resolved", 1),
            e("src/api.ts:handler", "src/db.ts:Repo.find", "resolved", 1),
            e("src/db.ts:query", "src/db.ts:run", "resolved", 2),
            e("src/db.ts:Repo.find", "src/db.ts:Repo.load", "resolved", 2),
        ]
    );
    let err = c.err("code.callers", json!({"symbolPath": "src/db.ts:qurey"}));
    assert_eq!(err["message"], "SYMBOL_NOT_FOUND");
    assert_eq!(
        err["data"],
        json!({"symbolPath": "src/db.ts:qurey", "suggestions": ["src/db.ts:query"]})
    );
    let bad = c.err(
        "code.callers",
        json!({"symbolPath": "src/db.ts:query", "depth": 0}),
    );
    assert_eq!(bad["message"], "INVALID_REQUEST");
}

#[test]
fn symbols_list_and_resolve_and_unknown_symbols_on_lock_and_declare() {
    let repo = TempRepo::new().with_file(
        "src/z.ts",
        "export type input = string;\nexport function input(x: string) { return x; }\nconst api = { get() { return 1; } };\nexport { api };\n",
    );
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let r = c.ok("symbols.list", json!({"file": "src/z.ts"}));
    let rows: Vec<(String, String, bool)> = r["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["symbolPath"].as_str().unwrap().to_owned(),
                s["kind"].as_str().unwrap().to_owned(),
                s["exported"].as_bool().unwrap(),
            )
        })
        .collect();
    let row = |p: &str, k: &str, e| (p.to_owned(), k.to_owned(), e);
    assert_eq!(
        rows,
        [
            row("src/z.ts:input", "type", true),
            row("src/z.ts:input#function", "function", true),
            row("src/z.ts:api.get", "method", true),
        ]
    );
    assert_eq!(r["symbols"][1]["signature"], "(x: string)");
    assert_eq!(r["symbols"][1]["startLine"], 1);
    let ok = c.ok(
        "symbols.resolve",
        json!({"symbolPath": "src/z.ts:input#function"}),
    );
    assert_eq!(
        ok,
        json!({"symbolPath": "src/z.ts:input#function", "exists": true, "status": "analysed", "canonical": "src/z.ts:input#function", "kind": "function", "suggestions": []})
    );
    let no = c.ok("symbols.resolve", json!({"symbolPath": "src/z.ts:inptu"}));
    assert_eq!(no["exists"], false);
    assert_eq!(
        no["suggestions"],
        json!(["src/z.ts:input", "src/z.ts:input#function"])
    );
    // A lock on the second `input` is its own lock, not the type's.
    let l = c.ok(
        "lock.acquire",
        json!({"sessionId": "s1", "symbolPath": "src/z.ts:input#function"}),
    );
    assert_eq!(l["symbolPath"], "src/z.ts:input#function");
    let t = c.ok(
        "lock.acquire",
        json!({"sessionId": "s2", "symbolPath": "src/z.ts:input"}),
    );
    assert_eq!(t["symbolPath"], "src/z.ts:input");
    // Unknown names: still taken (v1), with the extra field.
    let u = c.ok(
        "lock.acquire",
        json!({"sessionId": "s1", "symbolPath": "src/z.ts:api.gett"}),
    );
    assert_eq!(
        u["unknownSymbols"],
        json!([{"symbolPath": "src/z.ts:api.gett", "suggestions": ["src/z.ts:api.get"]}])
    );
    let i = c.ok(
        "intent.declare",
        json!({"sessionId": "s1", "description": "d", "files": ["src/z.ts"], "symbols": ["input", "nothere"]}),
    );
    assert_eq!(
        i["unknownSymbols"],
        json!([{"symbolPath": "src/z.ts:nothere", "suggestions": []}])
    );
}

#[test]
fn an_edit_a_deletion_and_a_rename_while_indexed_are_reflected() {
    edits_deletions_and_renames_are_reflected(false);
}

/// The same with the portable watcher (`notify`), which other platforms use.
#[test]
fn the_portable_watcher_reflects_edits_deletions_and_renames_too() {
    edits_deletions_and_renames_are_reflected(true);
}

fn edits_deletions_and_renames_are_reflected(portable: bool) {
    let repo = repo();
    let mut cmd = daemon_command(repo.path());
    if portable {
        cmd.env("WIT_TEST_PORTABLE_WATCHER", "1");
    }
    let d = Daemon::start_with(repo.path(), cmd);
    let mut c = d.client();
    ready(&mut c);
    let callers = |c: &mut Client| c.caller_names("src/db.ts:query");
    assert_eq!(
        callers(&mut c),
        ["src/api.ts:handler", "src/db.ts:Repo.load"]
    );
    // An edit between two calls: the very next answer has it (verified on use).
    repo.write(
        "src/api.ts",
        "import { Repo } from './db';\nexport function handler() { return new Repo().find('x'); }\n",
    );
    assert_eq!(callers(&mut c), ["src/db.ts:Repo.load"]);
    // A new caller appears once the watcher has indexed its file.
    repo.write(
        "src/new.ts",
        "import { query } from './db';\nexport function fresh() { return query('n'); }\n",
    );
    wait_until("the new caller is indexed", Duration::from_secs(20), || {
        callers(&mut c).contains(&"src/new.ts:fresh".to_owned())
    });
    // Deleted: gone from the next answer.
    std::fs::remove_file(repo.path().join("src/new.ts")).unwrap();
    assert_eq!(callers(&mut c), ["src/db.ts:Repo.load"]);
    // Renamed, with its importer updated: the importer's callees follow.
    std::fs::rename(
        repo.path().join("src/db.ts"),
        repo.path().join("src/store.ts"),
    )
    .unwrap();
    repo.write(
        "src/api.ts",
        "import { query } from './store';\nexport function handler() { return query('y'); }\n",
    );
    let callee = |c: &mut Client| {
        c.ok("code.callees", json!({"symbolPath": "src/api.ts:handler"}))["callees"][0]["callee"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    wait_until(
        "the renamed file is indexed",
        Duration::from_secs(20),
        || callee(&mut c) == "src/store.ts:query",
    );
    let err = c.err("code.callers", json!({"symbolPath": "src/db.ts:query"}));
    assert_eq!(err["message"], "SYMBOL_NOT_FOUND");
}

/// An edit inside a function body is seen by the very next `lock.acquire` and
/// `intent.declare` on that file, before the watcher has re-indexed it (the daemon
/// answers from the file's fresh analysis overlaid on the index) and after.
#[test]
fn an_edit_inside_a_body_is_seen_by_the_next_acquire_and_declare_at_once() {
    let repo = repo();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ready(&mut c);
    let warnings = |c: &mut Client| {
        let r = c.ok(
            "lock.acquire",
            json!({"sessionId": "s1", "symbolPath": "src/db.ts:query"}),
        );
        r["warnings"].clone()
    };
    let dep_chain = |c: &mut Client| -> Vec<String> {
        let r = c.ok(
            "intent.declare",
            json!({"sessionId": "s1", "description": "d", "files": ["src/api.ts"], "symbols": ["handler"]}),
        );
        r["conflicts"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["lockedCallee"].as_str().unwrap().to_owned())
            .collect()
    };
    c.ok(
        "lock.acquire",
        json!({"sessionId": "s2", "symbolPath": "src/db.ts:Repo.load"}),
    );
    assert_eq!(
        warnings(&mut c),
        json!([{"lockedSymbol": "src/db.ts:Repo.load", "heldBy": "s2", "chain": ["src/db.ts:Repo.load", "src/db.ts:query"]}])
    );
    // Repo.load stops calling query: the next acquire (same file) has no warning.
    repo.write("src/db.ts", &DB.replace("return query(id);", "return id;"));
    assert_eq!(warnings(&mut c), json!([]));
    // And calls it again.
    repo.write("src/db.ts", DB);
    assert_eq!(warnings(&mut c)[0]["lockedSymbol"], "src/db.ts:Repo.load");
    c.ok(
        "lock.release",
        json!({"sessionId": "s1", "symbolPath": "src/db.ts:query"}),
    );
    // handler's callees change with each edit of its body; the next declare says so.
    c.ok(
        "lock.acquire",
        json!({"sessionId": "s2", "symbolPath": "src/db.ts:query"}),
    );
    assert_eq!(dep_chain(&mut c), ["src/db.ts:query"]);
    let only_load = "import { query as q, Repo } from './db';\nimport * as db from './db.js';\n\nexport function handler(): string {\n  return new Repo().load('x');\n}\n";
    repo.write("src/api.ts", only_load);
    assert_eq!(dep_chain(&mut c), ["src/db.ts:Repo.load"]);
    repo.write("src/api.ts", API);
    assert_eq!(dep_chain(&mut c), ["src/db.ts:query"]);
    // Once the watcher has re-indexed both restored files (a caller that appears in a
    // file not yet re-indexed is found when the watcher reads it), the answers stand.
    wait_until("both files re-indexed", Duration::from_secs(20), || {
        let callers = c.ok("code.callers", json!({"symbolPath": "src/db.ts:query"}));
        callers["callers"].as_array().unwrap().len() == 2
    });
    assert_eq!(dep_chain(&mut c), ["src/db.ts:query"]);
    c.ok(
        "lock.release",
        json!({"sessionId": "s2", "symbolPath": "src/db.ts:query"}),
    );
    assert_eq!(warnings(&mut c)[0]["lockedSymbol"], "src/db.ts:Repo.load");
}

#[test]
fn the_index_survives_a_restart_and_reanalyses_only_changed_files() {
    let repo = repo();
    {
        let mut d = Daemon::start(repo.path());
        let mut c = d.client();
        let s = ready(&mut c);
        assert_eq!(
            (s["files"].as_u64(), s["analysed"].as_u64()),
            (Some(3), Some(3))
        );
        d.signal_and_wait(libc::SIGTERM);
    }
    repo.write("src/index.ts", "export { handler } from './api';\n");
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let s = ready(&mut c);
    assert_eq!(
        (
            s["files"].as_u64(),
            s["reused"].as_u64(),
            s["analysed"].as_u64()
        ),
        (Some(3), Some(2), Some(1))
    );
    assert!(s["persistedBytes"].as_u64().unwrap() > 0);
    let r = c.ok("code.callers", json!({"symbolPath": "src/db.ts:query"}));
    assert_eq!(r["callers"].as_array().unwrap().len(), 2);
}

#[test]
fn git_ignored_files_node_modules_and_wit_toml_excludes_are_not_indexed() {
    let repo = repo()
        .with_file(".gitignore", "gen/\n")
        .with_file(
            "gen/out.ts",
            "import { query } from '../src/db';\nexport function g() { query('g'); }\n",
        )
        .with_file("node_modules/lib/index.ts", "export function nm() {}\n")
        .with_file(
            "vendor/v.ts",
            "import { query } from '../src/db';\nexport function v() { query('v'); }\n",
        )
        .with_file("wit.toml", "[graph]\nexclude = [\"vendor/**\"]\n");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(repo.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    git(&["init", "-q"]);
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let s = ready(&mut c);
    assert_eq!(s["files"], 3, "{s}");
    let r = c.ok("code.callers", json!({"symbolPath": "src/db.ts:query"}));
    let callers: Vec<&str> = r["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["caller"].as_str().unwrap())
        .collect();
    assert_eq!(callers, ["src/api.ts:handler", "src/db.ts:Repo.load"]);
}

/// Issue 23: a function that merely shares a name with the locked one is not reported as
/// its caller. `handler` calls `other.dumps` (imported by name), not `json_util.dumps`;
/// `render` calls `enc.dumps()` on an object the graph cannot type, so it is only a guess
/// by name, and is said to be one (`nameOnlyWarnings`), never mixed into the warnings.
#[test]
fn caller_warnings_hold_only_resolved_callers_and_name_only_guesses_come_apart() {
    let repo = TempRepo::new()
        .with_file("json_util.py", "def dumps(obj):\n    return str(obj)\n")
        .with_file("other.py", "def dumps(obj):\n    return repr(obj)\n")
        .with_file(
            "app.py",
            "import json_util\nfrom other import dumps\n\n\ndef handler(x):\n    return dumps(x)\n\n\ndef render(x, enc):\n    return enc.dumps(x)\n",
        );
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ready(&mut c);
    for held in ["app.py:handler", "app.py:render"] {
        c.ok(
            "lock.acquire",
            json!({"sessionId": "s2", "symbolPath": held}),
        );
    }
    let r = c.ok(
        "lock.acquire",
        json!({"sessionId": "s1", "symbolPath": "json_util.py:dumps"}),
    );
    assert_eq!(r["warnings"], json!([]), "{r}");
    assert_eq!(
        r["nameOnlyWarnings"],
        json!([{
            "lockedSymbol": "app.py:render",
            "heldBy": "s2",
            "chain": ["app.py:render", "json_util.py:dumps"],
            "resolution": "name-only",
        }]),
        "{r}"
    );
    let r = c.ok(
        "lock.acquire",
        json!({"sessionId": "s1", "symbolPath": "other.py:dumps"}),
    );
    assert_eq!(
        r["warnings"],
        json!([{
            "lockedSymbol": "app.py:handler",
            "heldBy": "s2",
            "chain": ["app.py:handler", "other.py:dumps"],
        }]),
        "{r}"
    );
    assert!(r.get("nameOnlyWarnings").is_none(), "{r}");
}

/// A monorepo: a workspace package imported by its `package.json` name and a path alias
/// from a nested `tsconfig.json` that `extends` the root's base. Both resolve through the
/// daemon's index, and an edit of the package's `exports` (or its removal) is followed
/// by the watcher.
#[test]
fn workspace_packages_and_nested_tsconfig_extends_resolve_and_follow_edits() {
    let repo = TempRepo::new()
        .with_file(
            "package.json",
            r#"{ "name": "mono", "private": true, "workspaces": ["packages/*"] }"#,
        )
        .with_file(
            "packages/util/package.json",
            r#"{ "name": "@org/util", "exports": { ".": "./src/index.ts" } }"#,
        )
        .with_file(
            "packages/util/src/index.ts",
            "export function slug(s: string) { return s; }\n",
        )
        .with_file(
            "packages/util/src/next.ts",
            "export function slug(s: string) { return s.trim(); }\n",
        )
        .with_file(
            "tsconfig.base.json",
            r#"{ "compilerOptions": { "baseUrl": ".", "paths": { "@shared/*": ["shared/*"] } } }"#,
        )
        .with_file("shared/log.ts", "export function log(m: string) {}\n")
        .with_file(
            "apps/web/tsconfig.json",
            r#"{ "extends": "../../tsconfig.base.json" }"#,
        )
        .with_file(
            "apps/web/src/main.ts",
            "import { slug } from '@org/util';\nimport { log } from '@shared/log';\nexport function main() { log(slug('a')); }\n",
        );
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    ready(&mut c);
    let callees = |c: &mut Client| -> Vec<String> {
        c.ok(
            "code.callees",
            json!({"symbolPath": "apps/web/src/main.ts:main"}),
        )["callees"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                format!(
                    "{} {}",
                    e["callee"].as_str().unwrap(),
                    e["resolution"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(
        callees(&mut c),
        [
            "shared/log.ts:log resolved",
            "packages/util/src/index.ts:slug resolved"
        ]
    );
    repo.write(
        "packages/util/package.json",
        r#"{ "name": "@org/util", "exports": { ".": "./src/next.ts" } }"#,
    );
    wait_until(
        "the new entry point is followed",
        Duration::from_secs(20),
        || callees(&mut c).contains(&"packages/util/src/next.ts:slug resolved".to_owned()),
    );
    std::fs::remove_file(repo.path().join("packages/util/package.json")).unwrap();
    wait_until(
        "the removed package is forgotten",
        Duration::from_secs(20),
        || callees(&mut c).contains(&"?:slug unresolved".to_owned()),
    );
}
