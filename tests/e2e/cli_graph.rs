//! `wit symbols`, `wit callers`, `wit callees`, and `wit lock` / `wit declare` refusing a
//! symbol that does not exist unless `--allow-missing` (issue 10).

use std::time::Duration;

use serde_json::json;

use crate::support::cli::CliRepo;
use crate::support::daemon::wait_until;

fn repo() -> CliRepo {
    let r = CliRepo::new();
    r.write(
        "src/db.ts",
        "export function query(sql: string): string {\n  return sql;\n}\nexport type input = string;\nexport function input(x: string) { return x; }\n",
    );
    r.write(
        "src/api.ts",
        "import { query } from './db';\nexport function handler() {\n  return query('a');\n}\n",
    );
    r
}

/// Waits until the daemon's index is built (`wit callees` answers `complete`).
fn indexed(r: &CliRepo) {
    wait_until("the index is built", Duration::from_secs(60), || {
        r.wit(Some("s1"), &["callees", "src/api.ts:handler", "--json"])
            .json()["complete"]
            == true
    });
}

#[test]
fn symbols_lists_addresses_kinds_lines_and_signatures() {
    let r = repo();
    let v = r
        .wit(Some("s1"), &["symbols", "src/db.ts", "--json"])
        .ok()
        .json();
    let paths: Vec<&str> = v["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["symbolPath"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "src/db.ts:query",
            "src/db.ts:input",
            "src/db.ts:input#function"
        ]
    );
    let human = r.wit(Some("s1"), &["symbols", "src/db.ts"]).ok();
    assert!(human.stdout.contains("input#function"), "{}", human.stdout);
    assert!(
        human.stdout.contains("(sql: string): string"),
        "{}",
        human.stdout
    );
    let two = r
        .wit(
            Some("s1"),
            &["symbols", "src/db.ts", "src/api.ts", "--json"],
        )
        .ok()
        .json();
    assert_eq!(two["files"].as_array().unwrap().len(), 2);
}

#[test]
fn callers_and_callees_cross_files_in_json_and_for_humans() {
    let r = repo();
    indexed(&r);
    let v = r
        .wit(Some("s1"), &["callers", "src/db.ts:query", "--json"])
        .ok()
        .json();
    assert_eq!(
        v["callers"],
        json!([{"caller": "src/api.ts:handler", "callee": "src/db.ts:query", "resolution": "resolved", "file": "src/api.ts", "line": 2, "depth": 1}])
    );
    let human = r.wit(Some("s1"), &["callers", "src/db.ts:query"]).ok();
    assert!(
        human.stdout.contains("src/api.ts:handler"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("src/api.ts:3"), "{}", human.stdout);
    let callees = r
        .wit(
            Some("s1"),
            &["callees", "src/api.ts:handler", "--depth", "2"],
        )
        .ok();
    assert!(
        callees.stdout.contains("src/db.ts:query"),
        "{}",
        callees.stdout
    );
    let missing = r.wit(Some("s1"), &["callers", "src/db.ts:qery"]).code(3);
    assert!(missing.stderr.contains("qery"), "{missing:#?}");
    r.wit(Some("s1"), &["callers", "src/db.ts:query", "--depth", "9"])
        .code(2);
}

#[test]
fn lock_and_declare_refuse_a_missing_symbol_with_suggestions_unless_allowed() {
    let r = repo();
    let no = r.wit(Some("s1"), &["lock", "src/db.ts:qurey"]).code(3);
    assert!(
        no.stderr
            .contains("no symbol `qurey` in `src/db.ts` — did you mean `query`?"),
        "{no:#?}"
    );
    let locks = r.wit(Some("s1"), &["status", "--json"]).ok().json();
    assert_eq!(locks["locks"], json!([]), "nothing was locked: {locks}");
    let j = r
        .wit(Some("s1"), &["lock", "src/db.ts:qurey", "--json"])
        .code(3)
        .json();
    assert_eq!(j["error"]["message"], "SYMBOL_NOT_FOUND");
    assert_eq!(
        j["error"]["data"]["suggestions"],
        json!(["src/db.ts:query"])
    );
    let yes = r
        .wit(
            Some("s1"),
            &["lock", "src/db.ts:qurey", "--allow-missing", "--json"],
        )
        .ok()
        .json();
    assert_eq!(yes["symbolPath"], "src/db.ts:qurey");
    // A missing file says nothing against the name (nothing is known): locked.
    r.wit(Some("s1"), &["lock", "src/later.ts:planned"]).ok();
    let d = r
        .wit(
            Some("s1"),
            &[
                "declare",
                "-d",
                "x",
                "--files",
                "src/db.ts",
                "src/api.ts",
                "--symbols",
                "handlr",
            ],
        )
        .code(3);
    assert!(d.stderr.contains("did you mean `handler`?"), "{d:#?}");
    // Found in one of the declared files: fine.
    r.wit(
        Some("s1"),
        &[
            "declare",
            "-d",
            "x",
            "--files",
            "src/db.ts",
            "src/api.ts",
            "--symbols",
            "handler",
        ],
    )
    .ok();
    r.wit(
        Some("s1"),
        &[
            "declare",
            "-d",
            "x",
            "--files",
            "src/db.ts",
            "--symbols",
            "handlr",
            "--allow-missing",
        ],
    )
    .ok();
}

#[test]
fn declare_shows_the_cross_file_chain() {
    let r = repo();
    indexed(&r);
    r.wit(Some("s2"), &["lock", "src/db.ts:query"]).ok();
    let d = r
        .wit(
            Some("s1"),
            &[
                "declare",
                "-d",
                "x",
                "--files",
                "src/api.ts",
                "--symbols",
                "handler",
            ],
        )
        .ok();
    assert!(
        d.stdout
            .contains("chain: src/api.ts:handler → src/db.ts:query"),
        "{d:#?}"
    );
}
