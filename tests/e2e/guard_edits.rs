//! `wit guard`, the agents' pre-edit hook, with the documented payloads of Claude Code,
//! Gemini CLI and Codex (tests/e2e/fixtures/guard/): refused edits to symbols another
//! session locked, everything else allowed, fail-open and fail-closed without a daemon.

use std::io::Write;
use std::process::Stdio;

use crate::support::cli::{CliRepo, Run, wit_command};
use crate::support::repo::AUTH_TS;

const A: Option<&str> = Some("agent-a");
const B: Option<&str> = Some("agent-b");

/// A fixture payload with its placeholders filled (values JSON-escaped).
fn fixture(name: &str, r: &CliRepo, fills: &[(&str, &str)]) -> String {
    let path = format!(
        "{}/../tests/e2e/fixtures/guard/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut text = std::fs::read_to_string(&path).expect("read fixture");
    let root = r.path().to_str().expect("utf-8 temp path");
    for (key, value) in [("__ROOT__", root)].iter().chain(fills) {
        let escaped = serde_json::to_string(value).unwrap();
        text = text.replace(key, &escaped[1..escaped.len() - 1]);
    }
    text
}

/// Runs `wit guard <args>` at the root as `session` with `payload` on stdin.
fn guard(r: &CliRepo, session: Option<&str>, args: &[&str], payload: &str) -> Run {
    let mut all = vec!["guard"];
    all.extend_from_slice(args);
    let mut cmd = wit_command(r.path(), session, &all);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn wit guard");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload.as_bytes())
        .expect("write payload");
    let out = child.wait_with_output().expect("wait for wit guard");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A repository with src/auth.ts and a running daemon.
fn repo() -> CliRepo {
    let r = CliRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r.wit(None, &["init"]).ok();
    r
}

/// A Claude Code `Edit` of src/auth.ts.
fn claude_edit(r: &CliRepo, old: &str, new: &str) -> String {
    fixture("claude-edit.json", r, &[("__OLD__", old), ("__NEW__", new)])
}

const IN_VALIDATE: (&str, &str) = (
    "const user = decode(token);",
    "const user = decode(token.trim());",
);
const IN_DECODE: (&str, &str) = (
    "  return null;\n}\n\nexport async",
    "  return undefined;\n}\n\nexport async",
);

#[test]
fn an_edit_inside_a_symbol_locked_by_another_session_is_refused_with_the_reason() {
    let r = repo();
    r.wit(B, &["lock", "src/auth.ts:validateToken", "--ttl", "30m"])
        .ok();
    let run = guard(&r, A, &[], &claude_edit(&r, IN_VALIDATE.0, IN_VALIDATE.1)).code(2);
    assert!(run.stderr.contains("src/auth.ts:validateToken"), "{run:#?}");
    assert!(run.stderr.contains("agent-b"), "{run:#?}");
    assert!(run.stderr.contains("min more"), "time left: {run:#?}");
    assert!(run.stderr.contains("wit declare"), "{run:#?}");
    assert!(
        run.stderr.contains("Do not edit around the lock"),
        "{run:#?}"
    );
    assert!(run.stdout.is_empty(), "{run:#?}");
    // MultiEdit with the same change: refused too.
    let multi = fixture(
        "claude-multiedit.json",
        &r,
        &[("__OLD__", IN_VALIDATE.0), ("__NEW__", IN_VALIDATE.1)],
    );
    guard(&r, A, &[], &multi).code(2);
}

#[test]
fn unlocked_symbols_own_locks_and_unanalysable_files_are_allowed() {
    let r = repo();
    r.write("notes.txt", "some notes\n");
    r.wit(B, &["lock", "src/auth.ts:validateToken"]).ok();
    r.wit(B, &["lock", "notes.txt:intro"]).ok();
    // Another function of the same file.
    let run = guard(&r, A, &[], &claude_edit(&r, IN_DECODE.0, IN_DECODE.1)).ok();
    assert!(run.stdout.is_empty() && run.stderr.is_empty(), "{run:#?}");
    // The holder's own edit.
    guard(&r, B, &[], &claude_edit(&r, IN_VALIDATE.0, IN_VALIDATE.1)).ok();
    // A file no analyzer reads, though a lock names it.
    let notes = fixture(
        "claude-write.json",
        &r,
        &[("__FILE__", "notes.txt"), ("__CONTENT__", "other notes\n")],
    );
    guard(&r, A, &[], &notes).ok();
    // A path outside the repository.
    let outside = claude_edit(&r, "x", "y").replace(
        &format!("{}/src/auth.ts", r.path().display()),
        "/etc/hostname",
    );
    guard(&r, A, &[], &outside).ok();
    let escape = claude_edit(&r, "x", "y").replace("/src/auth.ts", "/../../etc/hostname");
    guard(&r, A, &[], &escape).ok();
}

#[test]
fn without_wit_session_the_payload_session_is_the_agents_own() {
    let r = repo();
    // The agent's `wit lock` ran as the session id Claude Code gives its hooks.
    r.wit(
        Some("claude-session-a"),
        &["lock", "src/auth.ts:validateToken"],
    )
    .ok();
    guard(
        &r,
        None,
        &[],
        &claude_edit(&r, IN_VALIDATE.0, IN_VALIDATE.1),
    )
    .ok();
    // Another agent with its own WIT_SESSION is refused.
    guard(&r, A, &[], &claude_edit(&r, IN_VALIDATE.0, IN_VALIDATE.1)).code(2);
}

#[test]
fn a_whole_file_write_changing_a_locked_function_is_refused_and_a_new_file_allowed() {
    let r = repo();
    r.wit(B, &["lock", "src/auth.ts:validateToken"]).ok();
    let changed = AUTH_TS.replace(IN_VALIDATE.0, IN_VALIDATE.1);
    let write = fixture(
        "claude-write.json",
        &r,
        &[("__FILE__", "src/auth.ts"), ("__CONTENT__", &changed)],
    );
    let run = guard(&r, A, &[], &write).code(2);
    assert!(run.stderr.contains("src/auth.ts:validateToken"), "{run:#?}");
    // The same file with only decode changed is fine.
    let other = AUTH_TS.replace("  return null;", "  return undefined;");
    let write = fixture(
        "claude-write.json",
        &r,
        &[("__FILE__", "src/auth.ts"), ("__CONTENT__", &other)],
    );
    guard(&r, A, &[], &write).ok();
    // A file that does not exist yet.
    let create = fixture(
        "claude-write.json",
        &r,
        &[
            ("__FILE__", "src/new.ts"),
            ("__CONTENT__", "export function f() {}\n"),
        ],
    );
    guard(&r, A, &[], &create).ok();
}

#[test]
fn gemini_and_codex_payloads_are_refused_in_their_convention() {
    let r = repo();
    r.wit(B, &["lock", "src/auth.ts:validateToken"]).ok();
    let replace = fixture(
        "gemini-replace.json",
        &r,
        &[("__OLD__", IN_VALIDATE.0), ("__NEW__", IN_VALIDATE.1)],
    );
    let run = guard(&r, A, &["--agent", "gemini"], &replace).code(2);
    assert!(run.stderr.contains("validateToken"), "{run:#?}");
    let replace = fixture(
        "gemini-replace.json",
        &r,
        &[("__OLD__", IN_DECODE.0), ("__NEW__", IN_DECODE.1)],
    );
    let run = guard(&r, A, &["--agent", "gemini"], &replace).ok();
    assert_eq!(run.stdout.trim(), "{}", "Gemini's JSON answer: {run:#?}");
    let write = fixture(
        "gemini-write-file.json",
        &r,
        &[("__FILE__", "src/auth.ts"), ("__CONTENT__", "")],
    );
    guard(&r, A, &["--agent", "gemini"], &write).code(2);

    let patch = "*** Begin Patch\n*** Update File: src/auth.ts\n@@\n export async function validateToken(token: string): Promise<User | null> {\n-  const user = decode(token);\n+  const user = decode(token.trim());\n   return user;\n*** End Patch\n";
    let codex = fixture("codex-apply-patch.json", &r, &[("__PATCH__", patch)]);
    let run = guard(&r, A, &["--agent", "codex"], &codex).code(2);
    assert!(run.stderr.contains("validateToken"), "{run:#?}");
    let patch = patch.replace("src/auth.ts", "src/other.ts");
    let codex = fixture("codex-apply-patch.json", &r, &[("__PATCH__", &patch)]);
    guard(&r, A, &["--agent", "codex"], &codex).ok();
}

#[test]
fn with_no_daemon_edits_pass_with_one_line_unless_fail_closed() {
    let r = repo();
    r.wit(B, &["lock", "src/auth.ts:validateToken"]).ok();
    r.wit(None, &["daemon", "stop"]).ok();
    let edit = claude_edit(&r, IN_VALIDATE.0, IN_VALIDATE.1);
    let run = guard(&r, A, &[], &edit).ok();
    assert_eq!(run.stderr.lines().count(), 1, "{run:#?}");
    assert!(run.stderr.contains("no wit daemon is running"), "{run:#?}");
    assert!(r.daemon_pids().is_empty(), "the guard starts no daemon");

    r.write("wit.toml", "[guard]\nfail_closed = true\n");
    let run = guard(&r, A, &[], &edit).code(2);
    assert!(run.stderr.contains("fail_closed"), "{run:#?}");
    assert!(r.daemon_pids().is_empty(), "the guard starts no daemon");
}

/// Issue 34, finding 10: an `Edit` payload whose `file_path` is missing or not a string was
/// allowed silently as "no edit", even under `[guard] fail_closed = true`, while another
/// session held a lock in the file it meant. An edit tool whose path cannot be read is
/// unchecked: one line says so, and `fail_closed` refuses it.
#[test]
fn fail_closed_refuses_an_edit_tool_payload_whose_path_cannot_be_read() {
    let r = repo();
    r.wit(B, &["lock", "src/auth.ts:validateToken", "--ttl", "30m"])
        .ok();
    let edit: serde_json::Value =
        serde_json::from_str(&claude_edit(&r, IN_VALIDATE.0, IN_VALIDATE.1)).unwrap();
    let mut unreadable = Vec::new();
    for path in [
        serde_json::json!(7),
        serde_json::json!(null),
        serde_json::json!(["src/auth.ts"]),
    ] {
        let mut e = edit.clone();
        e["tool_input"]["file_path"] = path;
        unreadable.push(e.to_string());
    }
    let mut missing = edit.clone();
    missing["tool_input"]
        .as_object_mut()
        .unwrap()
        .remove("file_path");
    unreadable.push(missing.to_string());
    for payload in &unreadable {
        let run = guard(&r, A, &[], payload).ok();
        assert_eq!(run.stderr.lines().count(), 1, "{payload}: {run:#?}");
        assert!(run.stderr.contains("not checked"), "{payload}: {run:#?}");
    }
    r.write("wit.toml", "[guard]\nfail_closed = true\n");
    for payload in &unreadable {
        let run = guard(&r, A, &[], payload).code(2);
        assert!(run.stderr.contains("fail_closed"), "{payload}: {run:#?}");
    }
    // A tool that edits nothing is still no edit, whatever fail_closed says.
    let mut read = edit.clone();
    read["tool_name"] = serde_json::json!("Read");
    guard(&r, A, &[], &read.to_string()).ok();
}

#[test]
fn claude_session_hooks_register_print_the_status_and_release_the_sessions_locks() {
    let r = repo();
    r.wit(B, &["lock", "src/auth.ts:decode"]).ok();
    let start = fixture(
        "claude-session-start.json",
        &r,
        &[("__SESSION__", "claude-1")],
    );
    let out = guard(&r, None, &[], &start);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(
        out.stdout.contains("You are session claude-1"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("src/auth.ts:decode is locked by agent-b"),
        "the model learns who holds what: {}",
        out.stdout
    );

    // The session locks something (as the same identity), then ends.
    r.wit(Some("claude-1"), &["lock", "src/auth.ts:validateToken"])
        .ok();
    let end = fixture(
        "claude-session-end.json",
        &r,
        &[("__SESSION__", "claude-1")],
    );
    let out = guard(&r, None, &[], &end);
    assert_eq!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("released 1 lock"), "{}", out.stderr);
    let locks = r.wit(None, &["status", "--json"]).ok().json()["locks"].clone();
    let held: Vec<&str> = locks
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["symbolPath"].as_str().unwrap())
        .collect();
    assert_eq!(
        held,
        ["src/auth.ts:decode"],
        "only the ending session's lock went"
    );

    // Configured to keep them.
    r.write("wit.toml", "[guard]\nrelease_on_session_end = false\n");
    r.wit(Some("claude-1"), &["lock", "src/auth.ts:validateToken"])
        .ok();
    assert_eq!(guard(&r, None, &[], &end).code, 0);
    let locks = r.wit(None, &["status", "--json"]).ok().json()["locks"].clone();
    assert_eq!(locks.as_array().unwrap().len(), 2, "kept: {locks}");
}

#[test]
fn an_edit_through_a_symlink_inside_the_repository_meets_the_lock_and_the_lease_of_its_target() {
    // Issue 34, finding 7: `alias -> src` and `src/b.ts -> auth.ts` committed in the
    // repository; an edit of the locked `src/auth.ts:validateToken` through either path
    // was allowed (through `src/auth.ts` it was refused).
    let r = repo();
    std::os::unix::fs::symlink("src", r.path().join("alias")).unwrap();
    std::os::unix::fs::symlink("auth.ts", r.path().join("src/b.ts")).unwrap();
    r.wit(B, &["lock", "src/auth.ts:validateToken"]).ok();
    let direct = claude_edit(&r, IN_VALIDATE.0, IN_VALIDATE.1);
    for through in ["alias/auth.ts", "src/b.ts"] {
        let payload = direct.replace("/src/auth.ts", &format!("/{through}"));
        let run = guard(&r, A, &[], &payload).code(2);
        assert!(
            run.stderr.contains("src/auth.ts:validateToken"),
            "{through}: {run:#?}"
        );
    }
    // Leases are matched on the file the edit writes too.
    r.wit(B, &["release", "src/auth.ts:validateToken"]).ok();
    r.wit(B, &["lease", "take", "src/auth.ts"]).ok();
    let payload = direct.replace("/src/auth.ts", "/alias/auth.ts");
    let run = guard(&r, A, &[], &payload).code(2);
    assert!(run.stderr.contains("leased exclusively"), "{run:#?}");
    // A symlink that leads out of the repository is outside: nothing to check.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.ts"), "export function f() {}\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), r.path().join("out")).unwrap();
    let payload = direct.replace("/src/auth.ts", "/out/x.ts");
    guard(&r, A, &[], &payload).ok();
}
