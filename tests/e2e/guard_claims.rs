//! Agents sharing one checkout, protected without locks (claims): two sessions of Claude
//! Code, Codex and Gemini CLI edit one real git checkout through exactly the hook
//! commands `wit integrate` configured, with each agent's documented payloads
//! (tests/e2e/fixtures/guard/). Without `WIT_SESSION`, each session is its own identity.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::claims::claim_lines;
use crate::support::cli::{CliRepo, Run, clean_env};
use crate::support::client::Client;
use crate::support::daemon::wait_until;

const FILE: &str = "src/pricing.ts";
const HEAD: &str = "export function price(n: number): number {\n  return n * 2;\n}\n\n\
                    export function tax(n: number): number {\n  return n / 10;\n}\n";
const CHECKOUT: &str = "import { price } from \"./pricing\";\n\n\
                        export function pay(): number {\n  return 0;\n}\n";

/// A committed checkout with wit initialised and the three agents integrated.
fn checkout() -> CliRepo {
    let r = CliRepo::new();
    r.write(FILE, HEAD);
    r.write("src/checkout.ts", CHECKOUT);
    r.wit(None, &["init"]).ok();
    r.wit(None, &["integrate", "claude", "codex", "gemini"])
        .ok();
    r.git(&["add", "src"]);
    r.git(&["commit", "-qm", "pricing"]);
    // The index built: the watcher sees changes and calls resolve.
    let mut c = Client::connect(&r.path().join(".wit/daemon.sock")).expect("the daemon");
    wait_until("the index", Duration::from_secs(30), || {
        c.ok("graph.status", json!({}))["state"] == "ready"
    });
    r
}

/// A fixture payload: its placeholders filled (values JSON-escaped) and `fields` set.
fn payload(r: &CliRepo, name: &str, fills: &[(&str, &str)], fields: &[(&str, Value)]) -> String {
    let path = format!(
        "{}/../tests/e2e/fixtures/guard/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut text = std::fs::read_to_string(path).expect("read fixture");
    let root = r.path().to_str().expect("utf-8 temp path");
    for (key, value) in [("__ROOT__", root)].iter().chain(fills) {
        if *key == "__RESPONSE__" {
            text = text.replace(key, value);
            continue;
        }
        let escaped = serde_json::to_string(value).unwrap();
        text = text.replace(key, &escaped[1..escaped.len() - 1]);
    }
    let mut v: Value = serde_json::from_str(&text).expect("fixture is JSON");
    for (k, val) in fields {
        v[*k] = val.clone();
    }
    v.to_string()
}

/// The command `wit integrate` configured for `event` in the agent's settings `file`.
fn configured(r: &CliRepo, file: &str, event: &str) -> String {
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(r.path().join(file)).unwrap()).unwrap();
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["hooks"][0]["command"].as_str())
        .find(|c| c.contains(" guard --agent "))
        .unwrap_or_else(|| panic!("no wit hook for {event} in {file}"))
        .to_owned()
}

/// Runs a configured hook command as the agent's hook runner does: `sh -c`, the payload on
/// stdin, no `WIT_SESSION` unless `wit_session` says.
fn run_hook(r: &CliRepo, command: &str, input: &str, wit_session: Option<&str>) -> Run {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command).current_dir(r.path());
    clean_env(&mut cmd);
    if let Some(s) = wit_session {
        cmd.env("WIT_SESSION", s);
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn the hook");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    Run::from_output(child.wait_with_output().unwrap())
}

/// A Claude Code session editing through its configured hooks.
struct Claude<'a> {
    r: &'a CliRepo,
    session: &'a str,
}

impl<'a> Claude<'a> {
    fn new(r: &'a CliRepo, session: &'a str) -> Self {
        Claude { r, session }
    }

    fn hook(&self, event: &str, input: &str) -> Run {
        run_hook(
            self.r,
            &configured(self.r, ".claude/settings.json", event),
            input,
            None,
        )
    }

    /// `Edit` of `file`: the pre-edit hook, then (when it lets it through) the edit and
    /// the post-edit hook. The pre-edit hook's run.
    fn edit(&self, file: &str, old: &str, new: &str) -> Run {
        let fills = [("__FILE__", file), ("__OLD__", old), ("__NEW__", new)];
        let sid = [("session_id", json!(self.session))];
        let pre = payload(self.r, "claude-post-edit.json", &fills, &sid);
        let mut pre: Value = serde_json::from_str(&pre).unwrap();
        pre["hook_event_name"] = json!("PreToolUse");
        pre.as_object_mut().unwrap().remove("tool_response");
        let run = self.hook("PreToolUse", &pre.to_string());
        if run.code == 0 {
            let path = self.r.path().join(file);
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(text.contains(old), "the edit's old text is in {file}");
            std::fs::write(&path, text.replacen(old, new, 1)).unwrap();
            let post = payload(self.r, "claude-post-edit.json", &fills, &sid);
            let done = self.hook("PostToolUse", &post);
            assert_eq!(done.code, 0, "post-edit: {done:#?}");
        }
        run
    }

    /// `Write` of the whole `file`, pre-edit hook then (allowed) the write and the
    /// post-edit hook.
    fn write(&self, file: &str, content: &str) -> Run {
        let fills = [("__FILE__", file), ("__CONTENT__", content)];
        let pre = payload(
            self.r,
            "claude-write.json",
            &fills,
            &[("session_id", json!(self.session))],
        );
        let run = self.hook("PreToolUse", &pre);
        if run.code == 0 {
            std::fs::write(self.r.path().join(file), content).unwrap();
            let mut post: Value = serde_json::from_str(&pre).unwrap();
            post["hook_event_name"] = json!("PostToolUse");
            post["tool_response"] = json!({"type": "update", "filePath": file});
            assert_eq!(self.hook("PostToolUse", &post.to_string()).code, 0);
        }
        run
    }
}

/// `session symbolPath change` of every claim, sorted (`(unattributed)` for none).
fn claims(r: &CliRepo) -> Vec<String> {
    claim_lines(&r.wit(None, &["claims", "--json"]).ok().json())
}

/// The text a Claude Code warning gives the model (`additionalContext`).
fn context(run: &Run) -> String {
    assert_eq!(run.code, 0, "{run:#?}");
    let v: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|_| panic!("{run:#?}"));
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn two_claude_sessions_are_two_identities_warned_on_one_definition_and_not_on_another() {
    let r = checkout();
    let a = Claude::new(&r, "claude-a");
    let b = Claude::new(&r, "claude-b");
    let first = a.edit(FILE, "n * 2", "n * 3");
    assert!(
        first.stdout.is_empty() && first.stderr.is_empty(),
        "{first:#?}"
    );
    assert_eq!(claims(&r), ["claude-a src/pricing.ts:price body"]);
    // B edits price: allowed, with a warning naming A, the symbol, and A's change.
    let warned = context(&b.edit(FILE, "n * 3", "n * 4"));
    assert!(
        warned.contains("claude-a changed the body of src/pricing.ts:price"),
        "{warned}"
    );
    assert!(
        warned.contains("-  return n * 2;") && warned.contains("+  return n * 3;"),
        "{warned}"
    );
    assert!(warned.contains("The edit is allowed."), "{warned}");
    // B edits tax, another definition of the same file: nothing at all.
    let quiet = b.edit(FILE, "n / 10", "n / 5");
    assert!(
        quiet.stdout.is_empty() && quiet.stderr.is_empty(),
        "{quiet:#?}"
    );
    // B's next edit of price: it changed it since A did, so no warning again.
    let again = b.edit(FILE, "n * 4", "n * 5");
    assert!(again.stdout.is_empty(), "{again:#?}");
    assert_eq!(
        claims(&r),
        [
            "claude-a src/pricing.ts:price body",
            "claude-b src/pricing.ts:price body",
            "claude-b src/pricing.ts:tax body"
        ]
    );
    // The person watching sees it: the collision between the two sessions.
    let conflicts = r.wit(None, &["conflicts"]).ok().stdout;
    assert!(conflicts.contains("same-symbol"), "{conflicts}");
    assert!(conflicts.contains("  claude-a (session in "), "{conflicts}");
    assert!(conflicts.contains("  claude-b (session in "), "{conflicts}");
    let status = r.wit(None, &["status"]).ok().stdout;
    assert!(
        status.contains("Uncommitted changes by session (3"),
        "{status}"
    );
}

#[test]
fn a_stale_whole_file_write_is_refused_naming_the_session_and_the_symbol() {
    let r = checkout();
    let a = Claude::new(&r, "claude-a");
    let b = Claude::new(&r, "claude-b");
    a.edit(FILE, "n * 2", "n * 3");
    // B read the file before A's edit: its Write puts price back as it was.
    let run = b.write(FILE, &HEAD.replace("n / 10", "n / 5"));
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(
        run.stderr
            .contains("would undo another session's uncommitted change"),
        "{run:#?}"
    );
    assert!(
        run.stderr
            .contains("claude-a changed the body of src/pricing.ts:price"),
        "{run:#?}"
    );
    assert!(run.stderr.contains("Read src/pricing.ts again"), "{run:#?}");
    assert_eq!(
        std::fs::read_to_string(r.path().join(FILE)).unwrap(),
        HEAD.replace("n * 2", "n * 3"),
        "nothing was written"
    );
    // No setting allows it: [guard] claimed = "warn" is the default already, and
    // fail_closed has nothing to do with it.
    r.write("wit.toml", "[guard]\nclaimed = \"warn\"\n");
    assert_eq!(b.write(FILE, &HEAD.replace("n / 10", "n / 5")).code, 2);
    // Written from the current content, the same change of tax is fine.
    let fresh = b.write(
        FILE,
        &HEAD.replace("n * 2", "n * 3").replace("n / 10", "n / 5"),
    );
    assert_eq!(fresh.code, 0, "{fresh:#?}");
}

#[test]
fn claimed_refuse_makes_an_edit_of_another_sessions_change_a_refusal() {
    let r = checkout();
    r.write("wit.toml", "[guard]\nclaimed = \"refuse\"\n");
    let a = Claude::new(&r, "claude-a");
    let b = Claude::new(&r, "claude-b");
    a.edit(FILE, "n * 2", "n * 3");
    let run = b.edit(FILE, "n * 3", "n * 4");
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(
        run.stderr.contains("[guard] claimed = \"refuse\""),
        "{run:#?}"
    );
    assert!(
        run.stderr
            .contains("claude-a changed the body of src/pricing.ts:price"),
        "{run:#?}"
    );
    // Another definition of the file is still fine.
    assert_eq!(b.edit(FILE, "n / 10", "n / 5").code, 0);
}

#[test]
fn a_commit_a_revert_and_the_session_end_each_clear_a_claim() {
    let r = checkout();
    let a = Claude::new(&r, "claude-a");
    a.edit(FILE, "n * 2", "n * 3");
    r.git(&["commit", "-qam", "price"]);
    wait_until(
        "the committed claim to end",
        Duration::from_secs(20),
        || claims(&r).is_empty(),
    );
    // Reverted with git: the watcher sees the file equal HEAD again.
    a.edit(FILE, "n / 10", "n / 5");
    assert_eq!(claims(&r), ["claude-a src/pricing.ts:tax body"]);
    r.git(&["checkout", "--", FILE]);
    wait_until("the reverted claim to end", Duration::from_secs(20), || {
        claims(&r).is_empty()
    });
    // The session's end (its SessionEnd hook).
    a.edit(FILE, "n / 10", "n / 6");
    let end = payload(
        &r,
        "claude-session-end.json",
        &[("__SESSION__", "claude-a")],
        &[],
    );
    assert_eq!(a.hook("SessionEnd", &end).code, 0);
    assert!(claims(&r).is_empty());
    let events = r.wit(None, &["events", "--json"]).ok().json();
    let reasons: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "claim.cleared")
        .map(|e| e["data"]["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["committed", "reverted", "its session ended"]);
}

#[test]
fn a_change_from_the_shell_is_an_unattributed_claim_the_next_editor_is_warned_of() {
    let r = checkout();
    // `sed -i` from a shell: no hook announced it.
    let sed = Command::new("sed")
        .args(["-i", "s|n / 10|n / 7|", FILE])
        .current_dir(r.path())
        .status()
        .unwrap();
    assert!(sed.success());
    wait_until("the watcher's claim", Duration::from_secs(20), || {
        claims(&r) == ["(unattributed) src/pricing.ts:tax body"]
    });
    let b = Claude::new(&r, "claude-b");
    let warned = context(&b.edit(FILE, "n / 7", "n / 8"));
    assert!(
        warned.contains("an edit outside any agent session"),
        "{warned}"
    );
    assert!(
        warned.contains("changed the body of src/pricing.ts:tax"),
        "{warned}"
    );
}

#[test]
fn a_signature_changed_by_one_session_against_a_new_call_in_another_is_a_warning_with_the_chain() {
    let r = checkout();
    let a = Claude::new(&r, "claude-a");
    let b = Claude::new(&r, "claude-b");
    a.edit(FILE, "price(n: number)", "price(n: number, rate: number)");
    let warned = context(&b.edit("src/checkout.ts", "return 0;", "return price(3);"));
    assert!(warned.contains("signature-vs-callers"), "{warned}");
    assert!(
        warned.contains("claude-a changes src/pricing.ts:price (signature (n: number): number → (n: number, rate: number): number)"),
        "{warned}"
    );
    assert!(
        warned.contains("src/checkout.ts:pay calls it (line 4)"),
        "{warned}"
    );
    // It stands as a collision between the two sessions, for the people watching.
    let conflicts = r.wit(None, &["conflicts", "--json"]).ok().json();
    assert_eq!(
        conflicts["forecasts"][0]["kind"], "signature-vs-callers",
        "{conflicts:#}"
    );
}

#[test]
fn codex_and_gemini_sessions_are_attributed_checked_and_answered_in_their_conventions() {
    let r = checkout();
    // Codex applies a patch to price.
    let patch = "*** Begin Patch\n*** Update File: src/pricing.ts\n@@\n export function price(n: number): number {\n-  return n * 2;\n+  return n * 3;\n }\n*** End Patch\n";
    let codex = |event: &str, name: &str| {
        let input = payload(&r, name, &[("__PATCH__", patch), ("__FILE__", FILE)], &[]);
        run_hook(
            &r,
            &configured(&r, ".codex/hooks.json", event),
            &input,
            None,
        )
    };
    assert_eq!(codex("PreToolUse", "codex-apply-patch.json").code, 0);
    r.write(FILE, &HEAD.replace("n * 2", "n * 3"));
    assert_eq!(codex("PostToolUse", "codex-post-apply-patch.json").code, 0);
    assert_eq!(claims(&r), ["codex-session-a src/pricing.ts:price body"]);

    // Gemini CLI replaces in price: allowed with a warning for the user (its convention).
    let gemini = |event: &str, input: &str| {
        run_hook(
            &r,
            &configured(&r, ".gemini/settings.json", event),
            input,
            None,
        )
    };
    let before = payload(
        &r,
        "gemini-replace.json",
        &[("__OLD__", "n * 3"), ("__NEW__", "n * 4")],
        &[],
    )
    .replace("src/auth.ts", FILE);
    let warned = gemini("BeforeTool", &before);
    assert_eq!(warned.code, 0, "{warned:#?}");
    let v: Value = serde_json::from_str(&warned.stdout).unwrap();
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("codex-session-a changed the body of src/pricing.ts:price"),
        "{v}"
    );
    // The replace failed (Gemini reports it in tool_response.error): nothing recorded.
    let failed = payload(
        &r,
        "gemini-after-replace.json",
        &[
            ("__FILE__", FILE),
            ("__OLD__", "n * 3"),
            ("__NEW__", "n * 4"),
            (
                "__RESPONSE__",
                r#"{"llmContent":"Failed to edit","error":{"message":"0 occurrences found"}}"#,
            ),
        ],
        &[],
    );
    assert_eq!(gemini("AfterTool", &failed).stdout.trim(), "{}");
    assert_eq!(claims(&r), ["codex-session-a src/pricing.ts:price body"]);
    // A stale write_file: refused, exit 2 with the reason on stderr.
    let stale = payload(
        &r,
        "gemini-write-file.json",
        &[("__FILE__", FILE), ("__CONTENT__", HEAD)],
        &[],
    );
    let refused = gemini("BeforeTool", &stale);
    assert_eq!(refused.code, 2, "{refused:#?}");
    assert!(refused.stderr.contains("codex-session-a"), "{refused:#?}");
    // Gemini edits tax, made and reported; its session's end ends its claims.
    let tax = payload(
        &r,
        "gemini-replace.json",
        &[("__OLD__", "n / 10"), ("__NEW__", "n / 5")],
        &[],
    )
    .replace("src/auth.ts", FILE);
    assert_eq!(gemini("BeforeTool", &tax).stdout.trim(), "{}");
    r.write(
        FILE,
        &HEAD.replace("n * 2", "n * 3").replace("n / 10", "n / 5"),
    );
    let done = payload(
        &r,
        "gemini-after-replace.json",
        &[
            ("__FILE__", FILE),
            ("__OLD__", "n / 10"),
            ("__NEW__", "n / 5"),
            (
                "__RESPONSE__",
                r#"{"llmContent":"Successfully modified file","returnDisplay":"ok"}"#,
            ),
        ],
        &[],
    );
    assert_eq!(gemini("AfterTool", &done).code, 0);
    assert_eq!(
        claims(&r),
        [
            "codex-session-a src/pricing.ts:price body",
            "gemini-session-a src/pricing.ts:tax body"
        ]
    );
    let end = payload(
        &r,
        "gemini-session-end.json",
        &[("__SESSION__", "gemini-session-a")],
        &[],
    );
    assert_eq!(gemini("SessionEnd", &end).code, 0);
    assert_eq!(claims(&r), ["codex-session-a src/pricing.ts:price body"]);
}

#[test]
fn a_subagent_is_an_identity_of_its_own_until_it_stops_and_wit_session_still_wins() {
    let r = checkout();
    let sub = |event: &str, old: &str, new: &str| {
        payload(
            &r,
            "claude-subagent-edit.json",
            &[
                ("__EVENT__", event),
                ("__AGENT__", "sub-1"),
                ("__FILE__", FILE),
                ("__OLD__", old),
                ("__NEW__", new),
            ],
            &[],
        )
    };
    let main = Claude::new(&r, "claude-session-a");
    assert_eq!(
        main.hook("PreToolUse", &sub("PreToolUse", "n * 2", "n * 3"))
            .code,
        0
    );
    r.write(FILE, &HEAD.replace("n * 2", "n * 3"));
    assert_eq!(
        main.hook("PostToolUse", &sub("PostToolUse", "n * 2", "n * 3"))
            .code,
        0
    );
    assert_eq!(
        claims(&r),
        ["claude-session-a/sub-1 src/pricing.ts:price body"]
    );
    // The subagent works apart from its session: the session is told of its change.
    let warned = context(&main.edit(FILE, "n * 3", "n * 4"));
    assert!(
        warned.contains("claude-session-a/sub-1 changed"),
        "{warned}"
    );
    // Once it stops, its work is the session's.
    let stop = payload(
        &r,
        "claude-subagent-stop.json",
        &[("__AGENT__", "sub-1")],
        &[],
    );
    assert_eq!(main.hook("SubagentStop", &stop).code, 0);
    assert_eq!(claims(&r), ["claude-session-a src/pricing.ts:price body"]);
    // With WIT_SESSION set where the agent started, it is the identity of every hook.
    let edit = payload(
        &r,
        "claude-post-edit.json",
        &[
            ("__FILE__", FILE),
            ("__OLD__", "n / 10"),
            ("__NEW__", "n / 5"),
        ],
        &[],
    );
    let mut pre: Value = serde_json::from_str(&edit).unwrap();
    pre["hook_event_name"] = json!("PreToolUse");
    let cmd = configured(&r, ".claude/settings.json", "PreToolUse");
    assert_eq!(
        run_hook(&r, &cmd, &pre.to_string(), Some("agent-x")).code,
        0
    );
    r.write(
        FILE,
        &HEAD.replace("n * 2", "n * 4").replace("n / 10", "n / 5"),
    );
    let cmd = configured(&r, ".claude/settings.json", "PostToolUse");
    assert_eq!(run_hook(&r, &cmd, &edit, Some("agent-x")).code, 0);
    assert!(claims(&r).contains(&"agent-x src/pricing.ts:tax body".to_owned()));
}

#[test]
fn a_failed_tool_records_nothing_and_unreadable_payloads_fail_open_unless_fail_closed() {
    let r = checkout();
    let a = Claude::new(&r, "claude-a");
    let failure = payload(
        &r,
        "claude-post-failure.json",
        &[
            ("__FILE__", FILE),
            ("__OLD__", "n * 2"),
            ("__NEW__", "n * 3"),
        ],
        &[],
    );
    // A PostToolUseFailure (or an AfterTool with an error) records nothing, even though
    // the file differs from HEAD for another reason by then.
    r.write(FILE, &HEAD.replace("n * 2", "n * 9"));
    let run = a.hook("PostToolUse", &failure);
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(!claims(&r).iter().any(|c| c.starts_with("claude-session-a")));
    r.write(FILE, HEAD);

    // Not JSON, and an Edit without a string path: allowed with one line on stderr…
    let no_path = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":7,"old_string":"a","new_string":"b"}}"#;
    for input in ["not json", no_path] {
        let run = a.hook("PreToolUse", input);
        assert_eq!(run.code, 0, "{run:#?}");
        assert_eq!(run.stderr.lines().count(), 1, "{run:#?}");
        assert!(run.stderr.contains("not checked"), "{run:#?}");
    }
    // …and refused under [guard] fail_closed = true.
    r.write("wit.toml", "[guard]\nfail_closed = true\n");
    for input in ["not json", no_path] {
        let run = a.hook("PreToolUse", input);
        assert_eq!(run.code, 2, "{run:#?}");
        assert!(run.stderr.contains("fail_closed"), "{run:#?}");
    }
}

/// Found by claims-eval on flask (`Flask.__init__`, `send_file`): A changes one line of a
/// definition, B (warned) another line of it; B's whole-file write from the read it made
/// before A's change gives the definition a version it never had (B's line without A's),
/// and went through without a word.
#[test]
fn a_stale_write_of_a_definition_both_sessions_changed_is_refused() {
    let r = checkout();
    let fees =
        "export function fee(n: number): number {\n  const base = n * 2;\n  return base + 1;\n}\n";
    r.write("src/fees.ts", fees);
    r.git(&["add", "src/fees.ts"]);
    r.git(&["commit", "-qm", "fees"]);
    let a = Claude::new(&r, "claude-a");
    let b = Claude::new(&r, "claude-b");
    assert_eq!(a.edit("src/fees.ts", "n * 2", "n * 3").code, 0);
    let warned = context(&b.edit("src/fees.ts", "base + 1", "base + 5"));
    assert!(
        warned.contains("claude-a changed the body of src/fees.ts:fee"),
        "{warned}"
    );
    let both = fees
        .replace("n * 2", "n * 3")
        .replace("base + 1", "base + 5");
    // B's write from its read made before A's edit: its own line, A's gone.
    let run = b.write("src/fees.ts", &fees.replace("base + 1", "base + 5"));
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(
        run.stderr
            .contains("claude-a changed the body of src/fees.ts:fee"),
        "{run:#?}"
    );
    assert_eq!(
        std::fs::read_to_string(r.path().join("src/fees.ts")).unwrap(),
        both,
        "nothing was written"
    );
    // Written from the current content, B's further change goes through without a word
    // (B changed fee last: A's change was in front of it).
    let fresh = b.write("src/fees.ts", &both.replace("base + 5", "base + 6"));
    assert_eq!(fresh.code, 0, "{fresh:#?}");
    assert!(fresh.stdout.is_empty(), "{fresh:#?}");
}
