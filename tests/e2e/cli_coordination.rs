//! Two sessions coordinating through the CLI: intents, locks, contracts, in human and
//! `--json` form, with the exit codes of conflicts.

use serde_json::Value;

use crate::support::cli::CliRepo;
use crate::support::repo::AUTH_TS;

const A: Option<&str> = Some("agent-a");
const B: Option<&str> = Some("agent-b");

fn repo() -> CliRepo {
    let r = CliRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r
}

#[test]
fn locks_conflict_between_sessions_with_a_readable_error() {
    let r = repo();
    let out = r
        .wit(A, &["lock", "src/auth.ts:validateToken", "--ttl", "30m"])
        .ok();
    assert!(
        out.stdout
            .starts_with("Locked src/auth.ts:validateToken until "),
        "{}",
        out.stdout
    );

    let out = r.wit(B, &["lock", "src/auth.ts:validateToken"]).code(3);
    assert!(
        out.stderr
            .contains("src/auth.ts:validateToken is locked by agent-a until ")
            && out.stderr.contains("min left)"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("retry later"), "{}", out.stderr);
    let v = r
        .wit(
            B,
            &["lock", "--json", "--symbol", "src/auth.ts:validateToken"],
        )
        .code(3)
        .json();
    assert_eq!(v["error"]["code"], -32000);
    assert_eq!(v["error"]["message"], "LOCK_CONFLICT");
    assert_eq!(v["error"]["data"]["heldBy"], "agent-a");
    assert!(v["error"]["data"]["expiresAt"].is_string());

    // All or nothing: B asks for a free symbol and the held one; B ends up with neither.
    r.wit(
        B,
        &["lock", "src/auth.ts:decode", "src/auth.ts:validateToken"],
    )
    .code(3);
    let locks = r.wit(B, &["status", "--json"]).ok().json()["locks"].clone();
    assert_eq!(locks.as_array().unwrap().len(), 1, "{locks}");

    // Release by the wrong session, then the right one.
    let out = r.wit(B, &["release", "src/auth.ts:validateToken"]).code(3);
    assert!(
        out.stderr.contains("locked by agent-a, not by you"),
        "{}",
        out.stderr
    );
    let v = r
        .wit(B, &["release", "--json", "src/auth.ts:validateToken"])
        .code(3)
        .json();
    assert_eq!(v["error"]["message"], "LOCK_NOT_HELD");
    let v = r
        .wit(
            A,
            &["release", "--json", "--symbol", "src/auth.ts:validateToken"],
        )
        .ok()
        .json();
    assert_eq!(
        v["released"],
        serde_json::json!(["src/auth.ts:validateToken"])
    );
    let v = r
        .wit(A, &["release", "--json", "src/auth.ts:validateToken"])
        .code(3)
        .json();
    assert_eq!(v["error"]["message"], "LOCK_NOT_FOUND");

    // Now B gets it; `release --all` drops all of B's.
    let v = r
        .wit(
            B,
            &[
                "lock",
                "--json",
                "src/auth.ts:validateToken",
                "src/auth.ts:decode",
            ],
        )
        .ok()
        .json();
    assert_eq!(v["locks"].as_array().unwrap().len(), 2);
    let out = r.wit(B, &["release", "--all"]).ok();
    assert!(
        out.stdout.contains("Released src/auth.ts:validateToken."),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("Released src/auth.ts:decode."),
        "{}",
        out.stdout
    );
    assert_eq!(
        r.wit(B, &["status", "--json"]).ok().json()["locks"],
        serde_json::json!([])
    );
}

#[test]
fn declare_lists_each_conflict_with_whom_to_coordinate() {
    let r = repo();
    let a = r
        .wit(
            A,
            &[
                "declare",
                "--json",
                "--description",
                "refactor tokens",
                "--files",
                "src/auth.ts",
                "--symbols",
                "validateToken",
            ],
        )
        .ok()
        .json();
    assert_eq!(a["conflicts"]["hasConflicts"], false);
    let a_id = a["intentId"].as_str().unwrap().to_owned();
    r.wit(A, &["lock", "src/auth.ts:validateToken"]).ok();

    let out = r
        .wit(
            B,
            &[
                "declare",
                "-d",
                "speed up auth",
                "-f",
                "src/auth.ts",
                "-s",
                "validateToken",
            ],
        )
        .ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with("Declared intent ") && lines[0].ends_with("2 conflicts:"),
        "{}",
        out.stdout
    );
    assert!(
        lines[1].contains("INTENT_OVERLAP")
            && lines[1].contains("agent-a")
            && lines[1].contains(&a_id),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains("\"refactor tokens\""), "{}", lines[1]);
    assert!(
        lines[2].contains("LOCK_INTERSECTION")
            && lines[2].contains("src/auth.ts:validateToken is locked by agent-a until "),
        "{}",
        lines[2]
    );
    assert!(lines[2].contains("ask agent-a"), "{}", lines[2]);

    let v = r
        .wit(
            B,
            &[
                "declare",
                "--json",
                "-d",
                "again",
                "-f",
                "src/auth.ts",
                "-s",
                "validateToken",
            ],
        )
        .ok()
        .json();
    let types: Vec<&str> = v["conflicts"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(types[0], "INTENT_OVERLAP");
    assert!(types.contains(&"LOCK_INTERSECTION"), "{v}");
}

#[test]
fn intents_update_with_short_forms_and_list_with_filters() {
    let r = repo();
    let id = |v: Value| v["intentId"].as_str().unwrap().to_owned();
    let i1 = id(r
        .wit(A, &["declare", "--json", "-d", "one", "-f", "src/auth.ts"])
        .ok()
        .json());
    let i2 = id(r
        .wit(A, &["declare", "--json", "-d", "two", "-f", "src/other.ts"])
        .ok()
        .json());
    let i3 = id(r
        .wit(
            B,
            &["declare", "--json", "-d", "three", "-f", "src/auth.ts"],
        )
        .ok()
        .json());

    let out = r.wit(A, &["intent", "update", &i1, "active"]).ok();
    assert_eq!(out.stdout.trim(), format!("Intent {i1} is now active."));
    let v = r.wit(A, &["intent", "done", "--json", &i1]).ok().json();
    assert_eq!(v["status"], "resolved");
    let v = r.wit(A, &["intent", "abandon", "--json", &i2]).ok().json();
    assert_eq!(v["status"], "abandoned");

    // Errors: finished intent, someone else's intent, unknown intent.
    let out = r.wit(A, &["intent", "start", &i1]).code(3);
    assert!(
        out.stderr.contains("is resolved and cannot become active"),
        "{}",
        out.stderr
    );
    let v = r.wit(A, &["intent", "done", "--json", &i3]).code(3).json();
    assert_eq!(v["error"]["message"], "INTENT_NOT_OWNED");
    let v = r
        .wit(
            A,
            &[
                "intent",
                "done",
                "--json",
                "00000000-0000-4000-8000-000000000000",
            ],
        )
        .code(3)
        .json();
    assert_eq!(v["error"]["message"], "INTENT_NOT_FOUND");
    r.wit(A, &["intent", "update", &i3, "declared"]).code(2);

    let ids = |v: Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["intentId"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        ids(r.wit(A, &["intent", "list", "--json"]).ok().json()),
        vec![i3.clone()]
    );
    assert_eq!(
        ids(r.wit(A, &["intent", "list", "--json", "--all"]).ok().json()),
        vec![i1.clone(), i2.clone(), i3.clone()]
    );
    assert_eq!(
        ids(r
            .wit(A, &["intent", "list", "--json", "--all", "--mine"])
            .ok()
            .json()),
        vec![i1.clone(), i2.clone()]
    );
    assert_eq!(
        ids(r
            .wit(A, &["intent", "list", "--json", "--status", "abandoned"])
            .ok()
            .json()),
        vec![i2.clone()]
    );
    assert_eq!(
        ids(r
            .wit(
                A,
                &["intent", "list", "--json", "--all", "--file", "src/auth.ts"]
            )
            .ok()
            .json()),
        vec![i1.clone(), i3.clone()]
    );
    let out = r.wit(A, &["intent", "list", "--all"]).ok();
    assert!(
        out.stdout.lines().next().unwrap().contains("ID"),
        "{}",
        out.stdout
    );
    assert_eq!(out.stdout.lines().count(), 4, "{}", out.stdout);
    assert!(out.stdout.contains("agent-a (you)"), "{}", out.stdout);
}

#[test]
fn contracts_need_another_session_to_accept() {
    let r = repo();
    let out = r
        .wit(A, &["contract", "propose", "src/auth.ts:validateToken"])
        .ok();
    assert!(
        out.stdout.contains("(token: string): Promise<User | null>"),
        "{}",
        out.stdout
    );
    let p = r
        .wit(A, &["contract", "propose", "--json", "src/auth.ts:decode"])
        .ok()
        .json();
    let id = p["contractId"].as_str().unwrap().to_owned();
    assert_eq!(p["signature"], "(token: string): User | null");

    let v = r
        .wit(A, &["contract", "accept", "--json", &id])
        .code(3)
        .json();
    assert_eq!(v["error"]["message"], "SELF_ACCEPT_NOT_ALLOWED");
    let out = r.wit(B, &["contract", "accept", &id]).ok();
    assert!(out.stdout.contains("accepted"), "{}", out.stdout);
    let v = r
        .wit(B, &["contract", "reject", "--json", &id])
        .code(3)
        .json();
    assert_eq!(v["error"]["message"], "CONTRACT_ALREADY_RESOLVED");
    let v = r
        .wit(A, &["contract", "propose", "--json", "src/auth.ts:User"])
        .code(3)
        .json();
    assert_eq!(v["error"]["message"], "SYMBOL_NOT_FOUND");

    let all = r.wit(B, &["contract", "list", "--json"]).ok().json();
    assert_eq!(all.as_array().unwrap().len(), 2);
    let accepted = r
        .wit(B, &["contract", "list", "--json", "--status", "accepted"])
        .ok()
        .json();
    assert_eq!(accepted[0]["contractId"], id.as_str());
    let out = r.wit(B, &["contract", "list"]).ok();
    assert!(
        out.stdout.contains("src/auth.ts:decode") && out.stdout.contains("accepted"),
        "{}",
        out.stdout
    );

    // check-contracts on the working tree: clean, then broken (exit 5), in both forms.
    let out = r.wit(B, &["check-contracts", "src/auth.ts"]).ok();
    assert!(
        out.stdout.contains("No contract violations"),
        "{}",
        out.stdout
    );
    r.write(
        "src/auth.ts",
        &AUTH_TS.replace(
            "decode(token: string)",
            "decode(token: string, strict: boolean)",
        ),
    );
    let out = r.wit(B, &["check-contracts"]).code(5);
    assert!(out.stderr.contains("src/auth.ts:decode"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("expected: (token: string): User | null"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("actual:   (token: string, strict: boolean): User | null"),
        "{}",
        out.stderr
    );
    let v = r
        .wit(B, &["check-contracts", "--json", "src/auth.ts"])
        .code(5)
        .json();
    assert_eq!(v["violations"][0]["symbolPath"], "src/auth.ts:decode");
}

#[test]
fn status_shows_everything_in_both_forms() {
    let r = repo();
    r.wit(
        A,
        &[
            "declare",
            "-d",
            "refactor tokens",
            "-f",
            "src/auth.ts",
            "-s",
            "validateToken",
        ],
    )
    .ok();
    r.wit(A, &["lock", "src/auth.ts:validateToken", "--ttl", "2h"])
        .ok();
    r.wit(B, &["contract", "propose", "src/auth.ts:decode"])
        .ok();

    let out = r.wit(B, &["status"]).ok();
    let s = &out.stdout;
    assert!(
        !s.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    assert!(s.contains("you are agent-b (WIT_SESSION)"), "{s}");
    assert!(
        s.contains("Intents (1)")
            && s.contains("refactor tokens")
            && s.contains("src/auth.ts [validateToken]"),
        "{s}"
    );
    assert!(
        s.contains("Locks (1)") && s.contains("src/auth.ts:validateToken  agent-a"),
        "{s}"
    );
    assert!(
        s.contains("1 h 59 min") || s.contains("2 h"),
        "time left: {s}"
    );
    assert!(
        s.contains("Contracts (1)")
            && s.contains("(token: string): User | null")
            && s.contains("agent-b (you)"),
        "{s}"
    );
    // Columns line up: every lock row starts its HELD BY column where the header does.
    let header = s.lines().find(|l| l.contains("HELD BY")).unwrap();
    let row = s
        .lines()
        .find(|l| l.contains("src/auth.ts:validateToken  "))
        .unwrap();
    assert_eq!(header.find("HELD BY"), row.find("agent-a"));

    let v = r.wit(B, &["status", "--json"]).ok().json();
    assert_eq!(v["session"]["id"], "agent-b");
    assert_eq!(v["intents"][0]["description"], "refactor tokens");
    assert_eq!(v["locks"][0]["sessionId"], "agent-a");
    assert!(v["locks"][0]["ttlRemainingMs"].as_i64().unwrap() > 7_000_000);
    assert_eq!(v["contracts"][0]["status"], "proposed");
    assert!(v["daemon"]["pid"].is_u64());
}

#[test]
fn the_shared_identity_is_announced_once_when_taking_locks() {
    let r = repo();
    let out = r
        .wit(
            None,
            &["lock", "src/auth.ts:validateToken", "src/auth.ts:decode"],
        )
        .ok();
    assert_eq!(out.stderr.matches("share it").count(), 1, "{}", out.stderr);
    let shared = std::fs::read_to_string(r.repo.wit_dir().join("session.id")).unwrap();
    assert!(out.stderr.contains(shared.trim()), "{}", out.stderr);
    let out = r
        .wit(None, &["declare", "-d", "x", "-f", "src/auth.ts"])
        .ok();
    assert_eq!(out.stderr.matches("share it").count(), 1, "{}", out.stderr);
    // Read-only commands and explicit sessions say nothing.
    assert!(!r.wit(None, &["status"]).ok().stderr.contains("share it"));
    assert!(
        !r.wit(A, &["lock", "src/auth.ts:handler"])
            .ok()
            .stderr
            .contains("share it")
    );
    // CLAUDE_SESSION_ID is the second choice.
    let mut cmd = crate::support::cli::wit_command(r.path(), None, &["status", "--json"]);
    cmd.env("CLAUDE_SESSION_ID", "claude-1");
    let v: Value = serde_json::from_slice(&cmd.output().unwrap().stdout).unwrap();
    assert_eq!(v["session"]["id"], "claude-1");
    assert_eq!(v["session"]["source"], "CLAUDE_SESSION_ID");
}
