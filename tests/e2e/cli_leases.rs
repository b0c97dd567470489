//! Leases from the command line and where they bind: `wit lease`, `wit status`, `wit lock`
//! under another's lease, the edit-time guard (Claude Code's documented payloads, new
//! files included) and the pre-commit hook in a real git repository; abandoning an ended
//! session's intent.

use std::io::Write;
use std::process::Stdio;

use crate::hooks_commit::repo_with_hooks;
use crate::support::cli::{CliRepo, Run, wit_command};
use crate::support::repo::AUTH_TS;

const A: Option<&str> = Some("agent-a");
const B: Option<&str> = Some("agent-b");

fn repo() -> CliRepo {
    let r = CliRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r.wit(None, &["init"]).ok();
    r
}

/// `wit guard` as `session` with a Claude Code payload from the fixtures.
fn guard(r: &CliRepo, session: Option<&str>, fixture: &str, fills: &[(&str, &str)]) -> Run {
    let path = format!(
        "{}/../tests/e2e/fixtures/guard/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut payload = std::fs::read_to_string(path).unwrap();
    let root = r.path().to_str().unwrap().to_owned();
    for (k, v) in [("__ROOT__", root.as_str())].iter().chain(fills) {
        let escaped = serde_json::to_string(v).unwrap();
        payload = payload.replace(k, &escaped[1..escaped.len() - 1]);
    }
    let mut cmd = wit_command(r.path(), session, &["guard"]);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn take_list_status_conflict_and_release_from_the_command_line() {
    let r = repo();
    let taken = r
        .wit(
            A,
            &["lease", "take", "src/", "--reason", "moving auth", "--json"],
        )
        .ok()
        .json();
    assert_eq!(taken["paths"], serde_json::json!(["src/**"]));
    assert_eq!(taken["mode"], "exclusive");
    let id = taken["leaseId"].as_str().unwrap().to_owned();

    // Another session: its overlapping lease and its lock under the lease are refused.
    let refused = r.wit(B, &["lease", "take", "src/auth.ts"]).code(3);
    assert!(refused.stderr.contains("agent-a"), "{refused:#?}");
    assert!(refused.stderr.contains("src/**"), "{refused:#?}");
    let lock = r.wit(B, &["lock", "src/auth.ts:validateToken"]).code(3);
    assert!(lock.stderr.contains("exclusive lease"), "{lock:#?}");
    // Patterns are relative to the current directory.
    let sub = r.path().join("docs");
    std::fs::create_dir_all(&sub).unwrap();
    let shared = r
        .wit_in(&sub, B, &["lease", "take", "*.md", "--shared", "--json"])
        .ok()
        .json();
    assert_eq!(shared["paths"], serde_json::json!(["docs/*.md"]));

    let status = r.wit(A, &["status"]).ok().stdout;
    assert!(status.contains("Leases (2)"), "{status}");
    assert!(status.contains("moving auth"), "{status}");
    let covering = r
        .wit(None, &["lease", "list", "--file", "src/auth.ts", "--json"])
        .ok()
        .json();
    assert_eq!(covering.as_array().unwrap().len(), 1);
    assert_eq!(covering[0]["leaseId"], id.as_str());

    // Release by a unique prefix; then b may lock.
    r.wit(B, &["lease", "release", &id[..8]]).code(3);
    r.wit(A, &["lease", "release", &id[..8]]).ok();
    r.wit(B, &["lock", "src/auth.ts:validateToken"]).ok();
    let bad = r.wit(A, &["lease", "take", "src/a**"]).code(2);
    assert!(bad.stderr.contains("whole path segment"), "{bad:#?}");
}

#[test]
fn the_guard_refuses_edits_and_new_files_under_another_sessions_exclusive_lease() {
    let r = repo();
    r.wit(B, &["lease", "take", "src/", "--reason", "restructuring"])
        .ok();
    let edit = guard(
        &r,
        A,
        "claude-edit.json",
        &[
            ("__OLD__", "const user = decode(token);"),
            ("__NEW__", "const user = decode(token.trim());"),
        ],
    )
    .code(2);
    assert!(edit.stderr.contains("leased exclusively"), "{edit:#?}");
    assert!(edit.stderr.contains("restructuring"), "{edit:#?}");
    assert!(edit.stderr.contains("agent-b"), "{edit:#?}");
    // A new file under the lease: refused too.
    let new_file = guard(
        &r,
        A,
        "claude-write.json",
        &[
            ("__FILE__", "src/new.ts"),
            ("__CONTENT__", "export const x = 1;\n"),
        ],
    )
    .code(2);
    assert!(new_file.stderr.contains("src/new.ts"), "{new_file:#?}");
    // Outside the lease, and the holder itself: allowed.
    guard(
        &r,
        A,
        "claude-write.json",
        &[("__FILE__", "README.md"), ("__CONTENT__", "hi\n")],
    )
    .ok();
    guard(
        &r,
        B,
        "claude-write.json",
        &[
            ("__FILE__", "src/new.ts"),
            ("__CONTENT__", "export const x = 1;\n"),
        ],
    )
    .ok();
    // A shared lease does not refuse edits.
    r.wit(B, &["lease", "release", "--all"]).ok();
    r.wit(B, &["lease", "take", "src/", "--shared"]).ok();
    guard(
        &r,
        A,
        "claude-write.json",
        &[
            ("__FILE__", "src/new.ts"),
            ("__CONTENT__", "export const x = 1;\n"),
        ],
    )
    .ok();
}

#[test]
fn a_commit_of_files_under_another_sessions_exclusive_lease_is_refused() {
    let r = repo_with_hooks();
    r.wit(B, &["lease", "take", "src/auth.ts", "--reason", "rewrite"])
        .ok();
    r.write("src/auth.ts", &format!("{AUTH_TS}\n// touched\n"));
    r.write("notes.md", "free\n");
    r.git(&["add", "notes.md"]);
    assert_eq!(
        r.git_run(&["commit", "-q", "-m", "outside the lease"], A)
            .code,
        0
    );
    r.git(&["add", "src/auth.ts"]);
    let out = r.git_run(&["commit", "-m", "inside"], A);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("exclusive lease"), "{out:#?}");
    assert!(out.stderr.contains("rewrite"), "{out:#?}");
    assert!(out.stderr.contains("--no-verify"), "{out:#?}");
    // The holder commits it.
    assert_eq!(r.git_run(&["commit", "-q", "-m", "holder"], B).code, 0);
}

#[test]
fn an_ended_sessions_intent_is_abandoned_by_another_on_the_record() {
    let r = repo();
    let declared = r
        .wit(
            A,
            &[
                "declare",
                "--description",
                "refactor",
                "--files",
                "src/auth.ts",
                "--json",
            ],
        )
        .ok()
        .json();
    let id = declared["intentId"].as_str().unwrap().to_owned();
    let refused = r
        .wit(B, &["intent", "abandon", &id, "--reason", "stale"])
        .code(3);
    assert!(refused.stderr.contains("has not ended"), "{refused:#?}");
    let ended = r.wit(A, &["end-session"]).ok().stdout;
    assert!(ended.contains("0 lease(s)"), "{ended}");
    let status = r.wit(B, &["status"]).ok().stdout;
    assert!(status.contains("session ended"), "{status}");
    let done = r
        .wit(
            B,
            &["intent", "abandon", &id[..8], "--reason", "agent-a is gone"],
        )
        .ok()
        .stdout;
    assert!(done.contains("recorded in `wit audit`"), "{done}");
    let audit = r.wit(None, &["audit"]).ok().stdout;
    assert!(audit.contains("agent-a is gone"), "{audit}");
    // end-session can abandon its own.
    r.wit(
        A,
        &[
            "declare",
            "--description",
            "again",
            "--files",
            "src/auth.ts",
        ],
    )
    .ok();
    let out = r
        .wit(A, &["end-session", "--abandon-intents", "--json"])
        .ok()
        .json();
    assert_eq!(out["abandonedIntents"].as_array().unwrap().len(), 1);
}

/// `wit declare` over files under another session's leases says whose, which mode and
/// until when; `--json` is the daemon's answer whole (the leases in `conflicts.leases`).
#[test]
fn wit_declare_names_the_leases_over_its_files() {
    let r = repo();
    r.wit(A, &["lease", "take", "src/", "--reason", "moving auth"])
        .ok();
    let human = r
        .wit(
            B,
            &[
                "declare",
                "--description",
                "tidy",
                "--files",
                "src/auth.ts",
                "--symbols",
                "validateToken",
            ],
        )
        .ok()
        .stdout;
    assert!(human.contains("2 conflicts"), "{human}");
    assert!(
        human.contains("LOCK_INTERSECTION") && human.contains("src/auth.ts:validateToken"),
        "{human}"
    );
    assert!(
        human.contains("agent-a holds an exclusive lease on src/**"),
        "{human}"
    );
    assert!(
        human.contains("over 1 of your files (src/auth.ts)"),
        "{human}"
    );
    let json = r
        .wit(
            B,
            &[
                "declare",
                "--description",
                "tidy",
                "--files",
                "src/auth.ts",
                "--json",
            ],
        )
        .ok()
        .json();
    assert_eq!(json["conflicts"]["leases"][0]["sessionId"], "agent-a");
    assert_eq!(json["conflicts"]["leases"][0]["mode"], "exclusive");
}
