//! The conflict forecast as users and agents see it: `wit conflicts`, `wit status`, `wit
//! watch`, the edit-time guard's warning and the MCP tool `wit_conflicts`, on a real
//! repository with a linked worktree (`git worktree add`), a daemon in each, and
//! uncommitted edits made as agents make them — no locks or intents needed for a
//! forecast to appear. Each test waits for the daemons to publish it (about a second
//! after a save), never sleeps.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::support::cli::{CliRepo, Run, wit_command};
use crate::support::client::Client;
use crate::support::daemon::wait_until;
use crate::support::worktree::{Worktree, main_and_linked};

const A: Option<&str> = Some("agent-a");
const B: Option<&str> = Some("agent-b");

/// How long the daemons may take to publish a forecast: far above the second they
/// need, for a loaded machine.
const PUBLISHED: Duration = Duration::from_secs(60);

const PRICING: &str = "export function price(n: number): number {\n  return n * 2;\n}\n\n\
                       export function discount(n: number): number {\n  return n - 1;\n}\n";
const CHECKOUT: &str = "import { price } from \"./pricing\";\n\n\
                        export function pay(n: number): number {\n  return n;\n}\n";
const UTIL: &str = "export function twice(n: number): number {\n  return n + n;\n}\n";

/// A main worktree (branch `main`) with src/pricing.ts, src/checkout.ts and src/util.ts
/// committed and wit set up, and a linked worktree `wt-b` (branch `wt-b`), each with its
/// daemon running.
fn setup() -> (CliRepo, Worktree) {
    main_and_linked(&[
        ("src/pricing.ts", PRICING),
        ("src/checkout.ts", CHECKOUT),
        ("src/util.ts", UTIL),
    ])
}

/// The directory name the forecast gives a checkout.
fn name(path: &Path) -> String {
    path.file_name().unwrap().to_str().unwrap().to_owned()
}

/// `conflicts.forecast` asked of the daemon of the checkout at `root`.
fn forecast(root: &Path, params: Value) -> Value {
    Client::connect(&root.join(".wit/daemon.sock"))
        .unwrap()
        .ok("conflicts.forecast", params)
}

/// Waits until the daemon at `root` reports a forecast of `kind`; returns the answer.
fn wait_for(root: &Path, kind: &str) -> Value {
    let mut answer = Value::Null;
    wait_until(&format!("a {kind} forecast"), PUBLISHED, || {
        answer = forecast(root, json!({}));
        answer["forecasts"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["kind"] == kind))
    });
    answer
}

/// Runs `wit guard <args>` in `cwd` as `session` with `payload` on stdin.
fn guard(cwd: &Path, session: Option<&str>, args: &[&str], payload: &str) -> Run {
    let mut all = vec!["guard"];
    all.extend_from_slice(args);
    let mut cmd = wit_command(cwd, session, &all);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn wit guard");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    Run::from_output(child.wait_with_output().unwrap())
}

/// A documented hook payload (tests/e2e/fixtures/guard/) with its placeholders filled
/// (values JSON-escaped) and its file `src/auth.ts` replaced by `file`.
fn payload(fixture: &str, root: &Path, file: &str, fills: &[(&str, &str)]) -> String {
    let path = format!(
        "{}/../tests/e2e/fixtures/guard/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut text = std::fs::read_to_string(path)
        .unwrap()
        .replace("/src/auth.ts", &format!("/{file}"));
    for (key, value) in [("__ROOT__", root.to_str().unwrap()), ("__FILE__", file)]
        .iter()
        .chain(fills)
    {
        let escaped = serde_json::to_string(value).unwrap();
        text = text.replace(key, &escaped[1..escaped.len() - 1]);
    }
    text
}

/// Stdout of a guard run parsed as its one JSON answer.
#[track_caller]
fn answer(run: &Run) -> Value {
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {run:#?}"))
}

/// A `wit watch` child, killed on drop so that a failing test leaves no process behind
/// (holding the output pipe of whoever ran the tests).
struct Watch(std::process::Child);

impl Drop for Watch {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

#[test]
fn one_function_edited_in_two_worktrees_shows_in_wit_conflicts_status_and_watch() {
    let (main, wt) = setup();
    let main_name = name(main.path());
    // A plain-mode watch in wt-b from before the edits: the forecast must reach it live.
    let mut watch = Watch(
        wit_command(&wt.path, B, &["watch", "--interval", "1h"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let (tx, lines) = mpsc::channel();
    let stdout = watch.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    let first = lines.recv_timeout(PUBLISHED).expect("watch's first line");
    assert!(first.contains("0 forecast collisions"), "{first}");

    // The same function, changed differently in each checkout; nobody locked or declared.
    main.write("src/pricing.ts", &PRICING.replace("n * 2", "n * 3"));
    wt.write("src/pricing.ts", &PRICING.replace("n * 2", "n * 4"));
    let seen = wait_for(&wt.path, "same-symbol");
    assert_eq!(seen["checkout"], wt.path.to_str().unwrap(), "{seen}");

    // The daemon's answer whole with --json.
    let json = wt.wit(B, &["conflicts", "--json"]).ok().json();
    let f = &json["forecasts"][0];
    assert_eq!(json["forecasts"].as_array().unwrap().len(), 1, "{json}");
    assert_eq!(f["kind"], "same-symbol");
    assert_eq!(f["symbolPaths"], json!(["src/pricing.ts:price"]));
    let sides = f["sides"].as_array().unwrap();
    assert_eq!(sides.len(), 2, "{f}");
    let mine = sides.iter().find(|s| s["self"] == true).expect("this side");
    assert_eq!(mine["checkout"], wt.path.to_str().unwrap());
    assert_eq!(mine["branch"], "wt-b");
    assert_eq!(mine["change"], "body");
    assert_eq!(json["checkouts"].as_array().unwrap().len(), 2, "{json}");

    // Readable: kind, symbol, both sides with their branches, the summary, the checkouts.
    let text = wt.wit(B, &["conflicts"]).ok().stdout;
    for part in [
        "Conflict forecast: 1 collision",
        "same-symbol  src/pricing.ts:price",
        &format!("{main_name} (branch main): changed the body of src/pricing.ts:price (line 1)"),
        "wt-b (branch wt-b, this checkout): changed the body of src/pricing.ts:price (line 1)",
        "src/pricing.ts:price is changed in both checkouts",
        &format!("{main_name} (branch main): ready, "),
        "wt-b (branch wt-b, this checkout): ready, 1 changed file",
    ] {
        assert!(text.contains(part), "{part:?} missing from:\n{text}");
    }

    // Filters, with paths relative to the current directory as everywhere.
    let src = wt.path.join("src");
    let by_file = wt
        .wit_in(&src, B, &["conflicts", "--file", "pricing.ts", "--json"])
        .ok()
        .json();
    assert_eq!(by_file["forecasts"].as_array().unwrap().len(), 1);
    let pending = &by_file["pending"][0];
    assert_eq!(
        pending["checkout"],
        main.path().to_str().unwrap(),
        "{by_file}"
    );
    assert_eq!(pending["file"], "src/pricing.ts");
    assert_eq!(pending["change"]["symbols"][0]["name"], "price");
    let other_symbol = wt
        .wit_in(
            &src,
            B,
            &["conflicts", "--symbol", "pricing.ts:discount", "--json"],
        )
        .ok()
        .json();
    assert_eq!(other_symbol["forecasts"], json!([]), "{other_symbol}");
    let by_branch = wt
        .wit(B, &["conflicts", "--checkout", "main", "--json"])
        .ok()
        .json();
    assert_eq!(by_branch["forecasts"].as_array().unwrap().len(), 1);
    let by_path = main
        .wit(
            A,
            &[
                "conflicts",
                "--checkout",
                wt.path.to_str().unwrap(),
                "--json",
            ],
        )
        .ok()
        .json();
    assert_eq!(by_path["forecasts"].as_array().unwrap().len(), 1);
    let none = wt
        .wit(B, &["conflicts", "--checkout", "no-such-checkout"])
        .ok();
    assert!(
        none.stdout.contains("No forecast collision matches."),
        "{none:#?}"
    );

    // wit status: a short section, and the forecast in --json.
    let status = wt.wit(B, &["status"]).ok().stdout;
    assert!(status.contains("Conflict forecast (1"), "{status}");
    assert!(status.contains("same-symbol"), "{status}");
    let row = status
        .lines()
        .find(|l| l.contains("same-symbol"))
        .unwrap_or_default();
    // The two checkouts, in the daemon's order (by path).
    assert!(
        row.contains(&format!("{main_name} ↔ wt-b (this checkout)"))
            || row.contains(&format!("wt-b (this checkout) ↔ {main_name}")),
        "{status}"
    );
    let status = main.wit(A, &["status", "--json"]).ok().json();
    assert_eq!(
        status["forecast"]["forecasts"][0]["kind"], "same-symbol",
        "{status}"
    );

    // wit watch printed it when it appeared.
    let live = loop {
        let line = lines
            .recv_timeout(PUBLISHED)
            .expect("a forecast line from wit watch");
        if line.contains("forecast same-symbol") {
            break line;
        }
    };
    assert!(live.contains("src/pricing.ts:price"), "{live}");
    // SAFETY: kill(2) on our own un-reaped child with a valid signal.
    unsafe { libc::kill(watch.0.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(watch.0.wait().unwrap().code(), Some(0));
}

#[test]
fn the_guard_warns_of_an_edit_of_a_file_another_worktree_changed_and_of_no_other() {
    let (main, wt) = setup();
    wt.write("src/pricing.ts", &PRICING.replace("n * 2", "n * 4"));
    main.write("src/pricing.ts", &PRICING.replace("n * 2", "n * 3"));
    wait_for(main.path(), "same-symbol");
    // agent-b works in wt-b (a lock elsewhere makes it known there).
    wt.wit(B, &["lock", "src/checkout.ts:pay"]).ok();

    // An edit in main of the file wt-b changed: allowed, with a warning the model reads.
    let edited = PRICING.replace("n * 2", "n * 3").replace("n - 1", "n - 2");
    let write = payload(
        "claude-write.json",
        main.path(),
        "src/pricing.ts",
        &[("__CONTENT__", &edited)],
    );
    let run = guard(main.path(), A, &[], &write).ok();
    let a = answer(&run);
    let context = a["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("additionalContext expected: {run:#?}"));
    assert_eq!(a["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert!(
        a["hookSpecificOutput"].get("permissionDecision").is_none(),
        "the user's own permission prompt is kept: {a}"
    );
    assert_eq!(a["systemMessage"], context);
    for part in [
        "wt-b (branch wt-b, agent-b) changed src/pricing.ts:price (body, line 1)",
        "forecast same-symbol: src/pricing.ts:price is changed in both checkouts",
        "editing src/pricing.ts may collide",
        "`wit conflicts`",
    ] {
        assert!(context.contains(part), "{part:?} missing from {context}");
    }

    // Gemini CLI: its documented systemMessage, exit 0.
    let replace = payload(
        "gemini-replace.json",
        main.path(),
        "src/pricing.ts",
        &[("__OLD__", "n - 1"), ("__NEW__", "n - 2")],
    );
    let run = guard(main.path(), A, &["--agent", "gemini"], &replace).ok();
    let message = answer(&run)["systemMessage"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains("wt-b (branch wt-b, agent-b) changed src/pricing.ts:price"),
        "{run:#?}"
    );

    // A file no other checkout changed: allowed, nothing said.
    let util = payload(
        "claude-write.json",
        main.path(),
        "src/util.ts",
        &[("__CONTENT__", &UTIL.replace("n + n", "2 * n"))],
    );
    let run = guard(main.path(), A, &[], &util).ok();
    assert!(run.stdout.is_empty() && run.stderr.is_empty(), "{run:#?}");

    // A lock stays a refusal, forecast or not.
    let pay = payload(
        "claude-write.json",
        main.path(),
        "src/checkout.ts",
        &[(
            "__CONTENT__",
            &CHECKOUT.replace("return n;", "return n + 1;"),
        )],
    );
    let run = guard(main.path(), A, &[], &pay).code(2);
    assert!(run.stderr.contains("locked by agent-b"), "{run:#?}");
}

#[test]
fn a_changed_signature_and_a_new_caller_show_the_call_chain_and_reach_the_mcp_tool() {
    let (main, wt) = setup();
    let main_name = name(main.path());
    main.write(
        "src/pricing.ts",
        &PRICING.replace(
            "price(n: number): number {\n  return n * 2;",
            "price(n: number, rate: number): number {\n  return n * rate;",
        ),
    );
    wt.write(
        "src/checkout.ts",
        &CHECKOUT.replace("return n;", "return price(n);"),
    );
    wait_for(main.path(), "signature-vs-callers");

    let text = main.wit(A, &["conflicts"]).ok().stdout;
    for part in [
        "signature-vs-callers  src/checkout.ts:pay, src/pricing.ts:price",
        &format!(
            "{main_name} (branch main, this checkout): changed the signature of \
             src/pricing.ts:price: (n: number): number → (n: number, rate: number): number \
             (line 1)"
        ),
        "wt-b (branch wt-b): changed or added code in src/checkout.ts:pay calls \
         src/pricing.ts:price (line 4)",
        &format!(
            "call chain: src/checkout.ts:pay (wt-b, line 4) → src/pricing.ts:price ({main_name})"
        ),
    ] {
        assert!(text.contains(part), "{part:?} missing from:\n{text}");
    }

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let cmd = tokio::process::Command::from(wit_command(&wt.path, B, &["mcp"]));
        let mcp = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("test-client", "1.0"),
        )
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .expect("MCP initialize");
        let call = |args: Value| {
            let Value::Object(args) = args else {
                unreachable!()
            };
            mcp.call_tool(CallToolRequestParams::new("wit_conflicts").with_arguments(args))
        };
        let all: CallToolResult = call(json!({})).await.unwrap();
        assert_eq!(all.is_error, Some(false), "{all:#?}");
        let v = all.structured_content.clone().unwrap();
        assert_eq!(v["forecasts"][0]["kind"], "signature-vs-callers", "{v}");
        assert_eq!(
            v["forecasts"][0]["chain"].as_array().unwrap().len(),
            2,
            "{v}"
        );
        let said = text_of(&all);
        assert!(said.contains("1 forecast collision(s):"), "{said}");
        assert!(
            said.contains("call chain: src/checkout.ts:pay (wt-b, line 4)"),
            "{said}"
        );

        let by_file = call(json!({"file": "src/pricing.ts"})).await.unwrap();
        let v = by_file.structured_content.clone().unwrap();
        assert_eq!(
            v["pending"][0]["change"]["symbols"][0]["change"], "signature",
            "{v}"
        );
        assert!(
            text_of(&by_file).contains(&format!(
                "Pending in src/pricing.ts: {main_name} (branch main) changed \
                 src/pricing.ts:price (signature (n: number): number → (n: number, rate: \
                 number): number, line 1)"
            )),
            "{by_file:#?}"
        );
        let filtered =
            call(json!({"checkout": "no-such-checkout", "symbolPath": "src/util.ts:twice"}))
                .await
                .unwrap();
        assert_eq!(filtered.structured_content.unwrap()["forecasts"], json!([]));
        let bad = call(json!({"nonsense": 1})).await.unwrap();
        assert_eq!(
            bad.is_error,
            Some(true),
            "unknown arguments are refused: {bad:?}"
        );
        mcp.cancel().await.unwrap();
    });
}

/// The text blocks of a tool result, joined.
fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}
