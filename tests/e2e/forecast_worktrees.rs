//! The conflict forecast (issue 22) between real git worktrees, from real edits on disk:
//! no locks, no intents, no commits needed. Each worktree has its own daemon (sharing the
//! main worktree's state, or a PostgreSQL store); a save is seen by the file watcher and
//! the forecast follows within a second or so (waited for, never slept on).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use wit_testkit::postgres::Cluster;

use crate::support::cli::{CliRepo, clean_env};
use crate::support::daemon::{Daemon, daemon_command, wait_until};
use crate::support::repo::TempRepo;

/// How long a forecast may take to show (generous: the machines are shared).
pub(crate) const SHOWS: Duration = Duration::from_secs(30);

const PRICING: &str = "export function price(n: number): number {\n  return n * 2;\n}\n\nexport function discount(n: number): number {\n  return n - 1;\n}\n";
const NOTES: &str = "# Notes\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";

/// A repository with a linked worktree, a daemon on each.
pub(crate) struct Pair {
    pub(crate) main: CliRepo,
    _wt_dir: TempRepo,
    pub(crate) wt: PathBuf,
    pub(crate) dm: Option<Daemon>,
    pub(crate) dw: Option<Daemon>,
}

pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let mut cmd = std::process::Command::new("git");
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
    clean_env(&mut cmd);
    let out = cmd.output().expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Like [`git`], whatever its exit code (a rebase that stops on a conflict).
fn git_any(dir: &Path, args: &[&str]) {
    let mut cmd = std::process::Command::new("git");
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
    clean_env(&mut cmd);
    cmd.output().expect("git");
}

impl Pair {
    pub(crate) fn new() -> Pair {
        Self::with(Daemon::start)
    }

    pub(crate) fn with(start: impl Fn(&Path) -> Daemon) -> Pair {
        Self::prepared(|_| {}, start)
    }

    /// A pair whose first commit also holds what `setup` writes in the main worktree.
    pub(crate) fn prepared(setup: impl FnOnce(&CliRepo), start: impl Fn(&Path) -> Daemon) -> Pair {
        let main = CliRepo::new();
        setup(&main);
        main.write("src/pricing.ts", PRICING);
        main.write("docs/notes.md", NOTES);
        main.write(".gitignore", ".wit/\n");
        main.git(&["add", "."]);
        main.git(&["commit", "-q", "-m", "initial"]);
        let wt_dir = TempRepo::new();
        let wt = wt_dir.path().join("wt-b");
        main.git(&[
            "worktree",
            "add",
            "-q",
            wt.to_str().unwrap(),
            "-b",
            "feature",
        ]);
        let dm = start(main.path());
        let dw = start(&wt);
        let pair = Pair {
            main,
            _wt_dir: wt_dir,
            wt,
            dm: Some(dm),
            dw: Some(dw),
        };
        pair.wait("both checkouts ready", |a| {
            let ready = a["checkouts"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["state"] == "ready" && c["live"] == true)
                .count();
            ready == 2
        });
        pair
    }

    pub(crate) fn m(&self) -> &Path {
        self.main.path()
    }

    pub(crate) fn edit(&self, dir: &Path, rel: &str, from: &str, to: &str) {
        let path = dir.join(rel);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{rel} has no {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }

    pub(crate) fn write(&self, dir: &Path, rel: &str, content: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub(crate) fn forecast(&self, params: Value) -> Value {
        let d = self.dw.as_ref().or(self.dm.as_ref()).unwrap();
        d.client().ok("conflicts.forecast", params)
    }

    /// Waits until `cond` holds of the answer of `conflicts.forecast {}`; returns it.
    pub(crate) fn wait(&self, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + SHOWS;
        loop {
            let last = self.forecast(json!({}));
            if cond(&last) {
                return last;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "timed out waiting for {what}; last answer: {last:#}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub(crate) fn wait_kinds(&self, what: &str, want: &[&str]) -> Value {
        self.wait(what, |a| kinds(a) == want)
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        // The linked worktree first: its daemon shares the main one's state.
        self.dw.take();
        self.dm.take();
    }
}

pub(crate) fn kinds(answer: &Value) -> Vec<String> {
    let mut k: Vec<String> = answer["forecasts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {}", f["kind"].as_str().unwrap(), f["symbolPaths"]))
        .collect();
    k.sort();
    k
}

pub(crate) fn events(d: &Daemon, kind: &str) -> Vec<Value> {
    let got = d
        .client()
        .ok("events.poll", json!({"since": 0, "kinds": [kind]}));
    got["events"].as_array().unwrap().clone()
}

#[test]
fn both_worktrees_changing_one_function_is_forecast_and_clears_when_one_reverts() {
    let p = Pair::new();
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n * 2", "n * 4");
    let a = p.wait_kinds(
        "a same-symbol forecast",
        &["same-symbol [\"src/pricing.ts:price\"]"],
    );
    let f = &a["forecasts"][0];
    let sides = f["sides"].as_array().unwrap();
    let checkouts: Vec<&str> = sides
        .iter()
        .map(|s| s["checkout"].as_str().unwrap())
        .collect();
    assert!(checkouts.contains(&p.m().to_str().unwrap()), "{f}");
    assert!(checkouts.contains(&p.wt.to_str().unwrap()), "{f}");
    let branches: Vec<&str> = sides.iter().filter_map(|s| s["branch"].as_str()).collect();
    assert!(
        branches.contains(&"main") && branches.contains(&"feature"),
        "{f}"
    );
    assert!(sides.iter().all(|s| s["change"] == "body"), "{f}");
    let id = f["id"].as_str().unwrap().to_owned();
    // Announced once, in the one event log both daemons share.
    let dm = p.dm.as_ref().unwrap();
    wait_until("forecast.appeared", SHOWS, || {
        events(dm, "forecast.appeared")
            .iter()
            .any(|e| e["subject"] == id)
    });
    assert_eq!(events(dm, "forecast.appeared").len(), 1);

    // Committing keeps it: the branches still differ from their merge base.
    git(&p.wt, &["commit", "-qam", "wip"]);
    p.edit(&p.wt, "docs/notes.md", "one", "uno");
    p.wait("the commit seen", |a| {
        a["checkouts"].as_array().unwrap().iter().any(|c| {
            c["branch"] == "feature"
                && c["head"].as_str() != Some(p.main.git(&["rev-parse", "main"]).trim())
        })
    });
    assert_eq!(p.forecast(json!({}))["forecasts"][0]["id"], id.as_str());

    // The main worktree reverts: the forecast clears, with its reason.
    p.edit(p.m(), "src/pricing.ts", "n * 3", "n * 2");
    p.wait_kinds("the forecast to clear", &[]);
    wait_until("forecast.cleared", SHOWS, || {
        events(dm, "forecast.cleared")
            .iter()
            .any(|e| e["subject"] == id && e["data"]["reason"] == "resolved")
    });
}

#[test]
fn a_signature_change_against_a_new_caller_in_another_file_names_the_call_chain() {
    let p = Pair::new();
    p.edit(
        p.m(),
        "src/pricing.ts",
        "price(n: number)",
        "price(n: number, rate: number)",
    );
    p.write(
        &p.wt,
        "src/checkout.ts",
        "import { price } from './pricing';\n\nexport function pay(): number {\n  return price(3);\n}\n",
    );
    let a = p.wait_kinds(
        "a signature-vs-callers forecast",
        &["signature-vs-callers [\"src/checkout.ts:pay\",\"src/pricing.ts:price\"]"],
    );
    let f = &a["forecasts"][0];
    let chain: Vec<(String, Value)> = f["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["symbolPath"].as_str().unwrap().to_owned(),
                h["line"].clone(),
            )
        })
        .collect();
    assert_eq!(
        chain,
        [
            ("src/checkout.ts:pay".to_owned(), json!(4)),
            ("src/pricing.ts:price".to_owned(), Value::Null)
        ]
    );
    let changed = f["sides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["change"] == "signature")
        .expect("the changing side");
    assert_eq!(changed["before"], "(n: number): number");
    assert_eq!(changed["after"], "(n: number, rate: number): number");
    assert_eq!(changed["checkout"], p.m().to_str().unwrap());
    // Filters: by symbol, by file, by the calling checkout's branch.
    for filter in [
        json!({"symbolPath": "src/pricing.ts:price"}),
        json!({"file": "src/checkout.ts"}),
        json!({"checkout": "feature"}),
    ] {
        assert_eq!(
            p.forecast(filter.clone())["forecasts"]
                .as_array()
                .unwrap()
                .len(),
            1,
            "{filter}"
        );
    }
    assert_eq!(
        p.forecast(json!({"symbolPath": "src/pricing.ts:discount"}))["forecasts"],
        json!([])
    );
    // What the other checkout changed in a file, for an edit about to be made there.
    let pending = p.forecast(json!({"file": "src/pricing.ts"}))["pending"].clone();
    assert_eq!(pending[0]["checkout"], p.m().to_str().unwrap(), "{pending}");
    assert_eq!(
        pending[0]["change"]["symbols"][0]["name"], "price",
        "{pending}"
    );
}

#[test]
fn two_functions_of_one_file_are_no_conflict_but_text_git_cannot_merge_is() {
    let p = Pair::new();
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n - 1", "n - 2");
    // A file no analyzer covers: the same line in both (git conflicts), then a binary
    // file both replace, and a file both edit in places git merges cleanly.
    p.write(p.m(), "docs/more.txt", "a\nb\nc\nd\ne\nf\ng\nh\n");
    p.write(&p.wt, "docs/more.txt", "a\nb\nc\nd\ne\nf\ng\nh\n");
    p.edit(p.m(), "docs/notes.md", "one", "ONE");
    p.edit(&p.wt, "docs/notes.md", "eight", "EIGHT");
    p.write(p.m(), "logo.bin", "\0\u{1}main");
    p.write(&p.wt, "logo.bin", "\0\u{1}feature");
    p.edit(p.m(), "docs/notes.md", "four", "FOUR (main)");
    p.edit(&p.wt, "docs/notes.md", "four", "four (feature)");
    let a = p.wait_kinds(
        "textual forecasts only",
        &["textual [\"docs/notes.md\"]", "textual [\"logo.bin\"]"],
    );
    let summary = a["forecasts"][0]["summary"].as_str().unwrap();
    assert!(summary.contains("git would not merge"), "{summary}");
    // The same file added with the same content on both sides merges cleanly.
    assert!(!kinds(&a).iter().any(|k| k.contains("more.txt")));
    let main = a["checkouts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == p.m().to_str().unwrap())
        .unwrap()
        .clone();
    assert_eq!(main["changedFiles"], 4, "{main}");
}

#[test]
fn a_stopped_daemon_a_rebase_and_a_detached_head_each_get_a_clear_state() {
    let mut p = Pair::new();
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n * 2", "n * 4");
    p.wait_kinds("a forecast", &["same-symbol [\"src/pricing.ts:price\"]"]);

    // A rebase stopped on a conflict: the checkout is between states, its changes are
    // withdrawn until it ends.
    git(p.m(), &["commit", "-qam", "main's price"]);
    git(&p.wt, &["commit", "-qam", "feature's price"]);
    git_any(&p.wt, &["rebase", "main"]);
    let a = p.wait("the worktree shown rebasing", |a| {
        a["checkouts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["state"] == "rebasing")
    });
    assert_eq!(a["forecasts"], json!([]), "{a}");
    // The answer leaves out a pair of a checkout that is not ready at once; its daemon
    // withdraws the pair's rows, with the event, right after.
    let dm = p.dm.as_ref().unwrap();
    wait_until(
        "the rebasing pair's forecast.cleared",
        Duration::from_secs(20),
        || {
            events(dm, "forecast.cleared")
                .iter()
                .any(|e| e["data"]["reason"].as_str().unwrap().contains("rebasing"))
        },
    );
    git(&p.wt, &["rebase", "--abort"]);
    // A detached HEAD still takes part, without a branch.
    git(&p.wt, &["checkout", "-q", "--detach"]);
    let wt = p.wt.to_str().unwrap().to_owned();
    let a =
        p.wait("the forecast again, the worktree ready and detached", |a| {
            kinds(a) == ["same-symbol [\"src/pricing.ts:price\"]"]
                && a["checkouts"].as_array().unwrap().iter().any(|c| {
                    c["path"] == wt.as_str() && c["state"] == "ready" && c["branch"].is_null()
                })
        });
    let detached = a["checkouts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == wt.as_str())
        .unwrap()
        .clone();
    assert_eq!(detached["branch"], Value::Null, "{detached}");

    // The worktree's daemon stops (as `wit daemon stop` stops it): its checkout is
    // withdrawn and the forecast clears at once.
    let mut dw = p.dw.take().unwrap();
    dw.signal_and_wait(libc::SIGTERM);
    let dm = p.dm.as_ref().unwrap();
    wait_until("the forecast cleared by the stop", SHOWS, || {
        dm.client().ok("conflicts.forecast", json!({}))["forecasts"] == json!([])
    });
    // The answer leaves out a pair of a checkout that is not ready at once; the stop's
    // withdrawal writes the event right after.
    wait_until("the stopped pair's forecast.cleared", SHOWS, || {
        events(dm, "forecast.cleared")
            .iter()
            .any(|e| e["data"]["reason"] == "wt-b stopped")
    });
}

#[test]
fn the_forecast_works_on_a_shared_postgresql_store() {
    let pg = Cluster::start();
    pg.create_db("wit");
    let url = pg.url("wit");
    let p = Pair::with(|root| {
        let mut cmd = daemon_command(root);
        cmd.env("WIT_STORE_URL", &url);
        Daemon::start_with(root, cmd)
    });
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n * 2", "n * 4");
    p.wait_kinds("a forecast", &["same-symbol [\"src/pricing.ts:price\"]"]);
    p.edit(&p.wt, "src/pricing.ts", "n * 4", "n * 2");
    p.wait_kinds("the forecast to clear", &[]);
}

#[test]
fn conflicts_forecast_refuses_bad_parameters() {
    let p = Pair::new();
    let d = p.dm.as_ref().unwrap();
    for bad in [
        json!({"file": "../outside.ts"}),
        json!({"checkout": 3}),
        json!({"sessionId": ["a"]}),
        json!({"symbolPath": "/etc/passwd:x"}),
    ] {
        let e = d.client().err("conflicts.forecast", bad.clone());
        assert_eq!(e["message"], "INVALID_REQUEST", "{bad}: {e}");
        assert!(e["data"]["fieldErrors"].is_object(), "{bad}: {e}");
    }
}

#[test]
fn both_editing_one_import_line_of_a_code_file_is_forecast_apart_from_any_definition() {
    let p = Pair::new();
    // The text outside the definitions: one line both rewrite (git stops on it), while
    // their edits of two different functions of the file stay no collision.
    p.write(
        p.m(),
        "src/pricing.ts",
        &format!("import {{ a }} from './a';\n{PRICING}"),
    );
    p.write(
        &p.wt,
        "src/pricing.ts",
        &format!(
            "import {{ b }} from './b';\n{}",
            PRICING.replace("n - 1", "n - 2")
        ),
    );
    let a = p.wait_kinds("a textual forecast", &["textual [\"src/pricing.ts\"]"]);
    let summary = a["forecasts"][0]["summary"].as_str().unwrap();
    assert!(summary.contains("outside its definitions"), "{summary}");
    // One side's import moved to a line of its own elsewhere: git merges it, it clears.
    p.write(
        p.m(),
        "src/pricing.ts",
        &format!("{PRICING}\nimport {{ a }} from './a';\n"),
    );
    p.wait_kinds("the forecast to clear", &[]);
}

#[test]
fn a_worktree_deleted_under_its_daemon_takes_its_forecasts_with_it() {
    let mut p = Pair::new();
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n * 2", "n * 4");
    p.wait_kinds("a forecast", &["same-symbol [\"src/pricing.ts:price\"]"]);
    git(
        p.m(),
        &["worktree", "remove", "--force", p.wt.to_str().unwrap()],
    );
    // Its daemon notices its checkout is gone, withdraws it and exits by itself.
    let mut dw = p.dw.take().unwrap();
    wait_until("the worktree's daemon to exit", SHOWS, || !dw.is_running());
    let dm = p.dm.as_ref().unwrap();
    let a = dm.client().ok("conflicts.forecast", json!({}));
    assert_eq!(a["forecasts"], json!([]), "{a}");
    assert!(
        !a["checkouts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["path"] == p.wt.to_str().unwrap()),
        "{a}"
    );
    // The answer leaves out a pair of a checkout that is not ready at once; the stop's
    // withdrawal writes the event right after.
    wait_until("the stopped pair's forecast.cleared", SHOWS, || {
        events(dm, "forecast.cleared")
            .iter()
            .any(|e| e["data"]["reason"] == "wt-b stopped")
    });
}

#[test]
fn hundreds_of_files_changed_at_once_are_all_published_and_the_forecast_still_comes() {
    let p = Pair::new();
    // A generated tree dropped into one worktree (a code generator, a vendored package):
    // hundreds of rows to publish (a publication of 256 or more runs off the thread that
    // answers requests), while the daemons keep answering.
    for i in 0..300 {
        p.write(
            &p.wt,
            &format!("docs/gen/page{i}.md"),
            &format!("# page {i}\n"),
        );
    }
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n * 2", "n * 4");
    let a = p.wait("the worktree's 301 changed files and the forecast", |a| {
        kinds(a) == ["same-symbol [\"src/pricing.ts:price\"]"]
            && a["checkouts"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["changedFiles"] == 301)
    });
    assert_eq!(a["forecasts"].as_array().unwrap().len(), 1, "{a}");
    let d = p.dm.as_ref().unwrap();
    assert_eq!(d.client().ok("ping", json!({})), json!("pong"));
}

#[test]
fn a_killed_daemon_s_forecasts_clear_after_its_silence_and_return_with_it() {
    let mut p = Pair::new();
    p.edit(p.m(), "src/pricing.ts", "n * 2", "n * 3");
    p.edit(&p.wt, "src/pricing.ts", "n * 2", "n * 4");
    p.wait_kinds("a forecast", &["same-symbol [\"src/pricing.ts:price\"]"]);
    // SIGKILL: no withdrawal. Its silence (20 s) ends its part; nothing stale stays.
    p.dw.as_mut().unwrap().crash();
    let dm = p.dm.as_ref().unwrap();
    wait_until("the silent worktree's forecast to clear", SHOWS, || {
        events(dm, "forecast.cleared")
            .iter()
            .any(|e| e["data"]["reason"] == "wt-b stopped")
    });
    assert_eq!(
        dm.client().ok("conflicts.forecast", json!({}))["forecasts"],
        json!([])
    );
    // Started again, with its edit still on disk: the forecast comes back.
    p.dw = Some(Daemon::start(&p.wt));
    p.wait_kinds(
        "the forecast again",
        &["same-symbol [\"src/pricing.ts:price\"]"],
    );
}

const ORDER_TS: &str =
    "export interface Order {\n  id: string;\n  coupon?: string;\n  note?: string;\n}\n";
const ORDER_PY: &str = "class Order:\n    coupon: str = \"\"\n    note: str = \"\"\n";

/// Issue 33: git merges these cleanly, the type checker (TS2339) or the run
/// (AttributeError) fails; a member no one reads is no forecast.
#[test]
fn a_member_removed_against_a_new_read_of_it_is_forecast_in_typescript_and_python() {
    let p = Pair::prepared(
        |main| {
            main.write("src/order.ts", ORDER_TS);
            main.write("shop/__init__.py", "");
            main.write("shop/order.py", ORDER_PY);
        },
        Daemon::start,
    );
    // A member nobody reads, removed: nothing.
    p.edit(p.m(), "src/order.ts", "  note?: string;\n", "");
    p.edit(p.m(), "shop/order.py", "    note: str = \"\"\n", "");
    p.write(
        &p.wt,
        "src/checkout.ts",
        "import { Order } from './order';\n\nexport function pay(order: Order): string {\n  return order.coupon ?? '';\n}\n",
    );
    p.write(
        &p.wt,
        "shop/pay.py",
        "from shop.order import Order\n\n\ndef pay(order: Order):\n    return order.coupon\n",
    );
    p.wait("both checkouts' changes published", |a| {
        a["checkouts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["changedFiles"] == 2)
    });
    assert_eq!(kinds(&p.forecast(json!({}))), Vec::<String>::new());
    // The members read, removed: one forecast each, naming the reading code.
    p.edit(p.m(), "src/order.ts", "  coupon?: string;\n", "");
    p.edit(p.m(), "shop/order.py", "    coupon: str = \"\"\n", "");
    let a = p.wait_kinds(
        "member-vs-uses forecasts",
        &[
            "member-vs-uses [\"shop/pay.py:pay\",\"shop/order.py:Order.coupon\"]",
            "member-vs-uses [\"src/checkout.ts:pay\",\"src/order.ts:Order.coupon\"]",
        ],
    );
    let ts = a["forecasts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["symbolPaths"][0] == "src/checkout.ts:pay")
        .unwrap();
    let summary = ts["summary"].as_str().unwrap();
    assert!(
        summary.contains("removes the member coupon of src/order.ts:Order")
            && summary.contains("reads it on a value declared of type Order (line 4)"),
        "{summary}"
    );
    let chain: Vec<(&str, &Value)> = ts["chain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["symbolPath"].as_str().unwrap(), &h["line"]))
        .collect();
    assert_eq!(
        chain,
        [
            ("src/checkout.ts:pay", &json!(4)),
            ("src/order.ts:Order.coupon", &Value::Null)
        ]
    );
    // git itself merges the two branches cleanly: only the forecast sees it.
    git(p.m(), &["commit", "-qam", "drop coupon"]);
    git(&p.wt, &["add", "."]);
    git(&p.wt, &["commit", "-qm", "pay"]);
    git(&p.wt, &["merge", "-q", "--no-edit", "main"]);
}
