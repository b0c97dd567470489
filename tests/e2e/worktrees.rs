//! Git worktrees share one coordination state: a real repository with two `git worktree
//! add` checkouts, a daemon in each (started by the CLI, as for a user), locks, intents,
//! leases and contracts conflicting across them, each worktree analysed from its own
//! files, a commit in either checked against the shared contracts, waiters and events
//! woken by another worktree's change, and a worktree's own old state reported.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::support::cli::{CliRepo, Run};
use crate::support::client::Client;
use crate::support::daemon::wait_until;
use crate::support::repo::{AUTH_TS, TempRepo};
use crate::support::worktree::{Worktree, main_and_linked};

const A: Option<&str> = Some("agent-a");
const B: Option<&str> = Some("agent-b");

/// A main worktree with src/auth.ts committed and wit set up, and one linked worktree.
fn setup() -> (CliRepo, Worktree) {
    main_and_linked(&[("src/auth.ts", AUTH_TS)])
}

fn status(path: &Path) -> serde_json::Value {
    Client::connect(&path.join(".wit/daemon.sock"))
        .unwrap()
        .ok("daemon.status", json!({}))
}

#[test]
fn a_lock_taken_in_one_worktree_is_a_conflict_in_the_other() {
    let (main, wt) = setup();
    let st = status(&wt.path);
    assert_eq!(st["state"]["sharedWith"], main.path().to_str().unwrap());
    assert_eq!(
        st["state"]["database"],
        main.path().join(".wit/state.db").to_str().unwrap()
    );
    assert!(
        !wt.path.join(".wit/state.db").exists(),
        "no state of its own"
    );

    main.wit(A, &["lock", "src/auth.ts:validateToken"]).ok();
    let refused = wt.wit(B, &["lock", "src/auth.ts:validateToken"]).code(3);
    assert!(refused.stderr.contains("agent-a"), "{refused:#?}");
    // The other direction, and leases too.
    wt.wit(B, &["lock", "src/auth.ts:decode"]).ok();
    main.wit(A, &["lock", "src/auth.ts:decode"]).code(3);
    wt.wit(B, &["lease", "take", "docs/"]).ok();
    main.wit(A, &["lease", "take", "docs/a.md"]).code(3);

    // wit status in either shows both, with the other worktree named.
    let seen = wt.wit(B, &["status"]).ok().stdout;
    assert!(seen.contains("agent-a @"), "{seen}");
    assert!(
        seen.contains("state shared with the main worktree"),
        "{seen}"
    );
    let from_main = main.wit(A, &["status"]).ok().stdout;
    assert!(from_main.contains("agent-b @wt-b"), "{from_main}");
}

#[test]
fn intents_overlap_across_worktrees_each_with_its_own_byte_ranges() {
    let (main, wt) = setup();
    // The function moves down in wt-b: its bytes differ from the main worktree's.
    wt.write(
        "src/auth.ts",
        &format!("// a header\n// of two lines\n{AUTH_TS}"),
    );
    let declare = |run: Run| run.ok().json();
    let a = declare(main.wit(
        A,
        &[
            "declare",
            "--description",
            "a",
            "--files",
            "src/auth.ts",
            "--symbols",
            "validateToken",
            "--json",
        ],
    ));
    let b = declare(wt.wit(
        B,
        &[
            "declare",
            "--description",
            "b",
            "--files",
            "src/auth.ts",
            "--symbols",
            "validateToken",
            "--json",
        ],
    ));
    assert_eq!(b["conflicts"]["items"][0]["type"], "INTENT_OVERLAP", "{b}");
    assert_eq!(
        b["conflicts"]["items"][0]["overlappingSessionId"],
        "agent-a"
    );
    let intents = status_intents(&main);
    let range = |id: &serde_json::Value| {
        let i = intents.iter().find(|i| i["intentId"] == *id).unwrap();
        (
            i["startByte"].as_i64().unwrap(),
            i["endByte"].as_i64().unwrap(),
        )
    };
    let (ra, rb) = (range(&a["intentId"]), range(&b["intentId"]));
    let header = "// a header\n// of two lines\n".len() as i64;
    assert_eq!(
        rb,
        (ra.0 + header, ra.1 + header),
        "each worktree's own bytes"
    );
}

fn status_intents(r: &CliRepo) -> Vec<serde_json::Value> {
    r.wit(None, &["intent", "list", "--json"])
        .ok()
        .json()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_commit_in_either_worktree_is_checked_against_the_shared_contracts() {
    let (main, wt) = setup();
    main.wit(None, &["hook", "install"]).ok();
    let proposed = main
        .wit(
            A,
            &["contract", "propose", "src/auth.ts:validateToken", "--json"],
        )
        .ok()
        .json();
    let id = proposed["contractId"].as_str().unwrap();
    // Accepted from the other worktree.
    wt.wit(B, &["contract", "accept", id]).ok();
    let broken = AUTH_TS.replace(
        "validateToken(token: string)",
        "validateToken(token: string, strict: boolean)",
    );
    assert_ne!(broken, AUTH_TS, "the fixture has that signature");
    wt.write("src/auth.ts", &broken);
    assert_eq!(wt.git(&["add", "src/auth.ts"], B).code, 0);
    let out = wt.git(&["commit", "-m", "break"], B);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("validateToken"), "{out:#?}");
    main.write("src/auth.ts", &broken);
    main.git(&["add", "src/auth.ts"]);
    let out = main.git_run(&["commit", "-m", "break"], A);
    assert_ne!(out.code, 0, "{out:#?}");
}

/// Waits until the forecast of both checkouts has nothing left to write: both are ready,
/// and each has since beaten three times (each beat is a round of its forecast thread,
/// which computes a pair right after its beat; the third began after the second's pair
/// was done). From then on the checkouts only beat, and a beat wakes nobody.
fn forecast_settled(wt: &Worktree) {
    let mut c = wt.client();
    let mut seen: std::collections::BTreeMap<String, Vec<i64>> = Default::default();
    wait_until("both forecasts settled", Duration::from_secs(60), || {
        let answer = c.ok("conflicts.forecast", json!({}));
        let checkouts = answer["checkouts"].as_array().unwrap().clone();
        let ready = checkouts
            .iter()
            .filter(|k| k["state"] == "ready" && k["live"] == true)
            .count();
        if ready < 2 {
            seen.clear();
            return false;
        }
        for k in &checkouts {
            let beats = seen.entry(k["path"].to_string()).or_default();
            let at = k["seenAt"].as_i64().unwrap();
            if beats.last() != Some(&at) {
                beats.push(at);
            }
        }
        seen.len() == 2 && seen.values().all(|beats| beats.len() > 3)
    });
}

#[test]
fn waiters_and_event_polls_of_one_worktree_wake_on_another_worktrees_change() {
    let (main, wt) = setup();
    // Nothing of the worktree's own may wake its waiters before the release: only the
    // watcher of the shared database can, which is what this test is about.
    forecast_settled(&wt);
    main.wit(A, &["lock", "src/auth.ts:validateToken"]).ok();
    let socket = wt.path.join(".wit/daemon.sock");
    let waiter = std::thread::spawn(move || {
        let mut c = Client::connect(&socket).unwrap();
        c.call(
            "lock.acquire",
            json!({"symbolPath": "src/auth.ts:validateToken", "sessionId": "agent-b",
                   "waitMs": 60000}),
        )
    });
    let mut w = wt.client();
    wait_until("the waiter queued", Duration::from_secs(30), || {
        w.ok("daemon.status", json!({}))["counts"]["lockWaiters"] == 1
    });
    let last = w.ok("events.poll", json!({}))["last"].as_i64().unwrap();
    let socket = wt.path.join(".wit/daemon.sock");
    // The poll gives up before the waiter would take the lock at its own deadline (a
    // write of this worktree, which would wake the poll too).
    let poller = std::thread::spawn(move || {
        let mut c = Client::connect(&socket).unwrap();
        c.ok(
            "events.poll",
            json!({"since": last, "timeoutMs": 30000, "kinds": ["lock.released"]}),
        )
    });
    // Released through the main worktree's daemon.
    main.wit(A, &["release", "src/auth.ts:validateToken"]).ok();
    let polled = poller.join().unwrap();
    assert_eq!(polled["events"][0]["sessionId"], "agent-a", "{polled}");
    let got = waiter.join().unwrap();
    assert_eq!(got["result"]["sessionId"], "agent-b", "{got}");
}

#[test]
fn a_worktrees_own_old_state_is_reported_and_not_used() {
    let main = CliRepo::new();
    main.write("a.ts", "export function f() {}\n");
    main.write(".gitignore", ".wit/\n");
    main.git(&["add", "."]);
    main.git(&["commit", "-q", "-m", "initial"]);
    main.wit(None, &["init"]).ok();
    let wt = Worktree::add(&main, "wt-old");
    // A state of its own from before: a daemon of an older wit, run as a standalone
    // checkout, left this behind (made here as such a daemon would: a private .wit/).
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = wt.path.join(".wit");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        let db = dir.join("state.db");
        std::fs::write(&db, b"").unwrap();
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    wt.wit(A, &["lock", "a.ts:f"]).ok();
    let st = status(&wt.path);
    assert_eq!(
        st["state"]["separateState"],
        wt.path.join(".wit/state.db").to_str().unwrap()
    );
    let shown = wt.wit(A, &["status"]).ok().stdout;
    assert!(shown.contains("is not used"), "{shown}");
    assert_eq!(
        std::fs::metadata(wt.path.join(".wit/state.db"))
            .unwrap()
            .len(),
        0,
        "the old database is left untouched"
    );
    // The lock went to the shared state: the main worktree sees it.
    main.wit(B, &["lock", "a.ts:f"]).code(3);
}

#[test]
fn wit_store_status_names_the_shared_database_and_its_schema() {
    let (main, wt) = setup();
    let s = wt.wit(None, &["store", "status", "--json"]).ok().json();
    assert_eq!(s["backend"], "sqlite");
    assert_eq!(
        s["database"],
        main.path().join(".wit/state.db").to_str().unwrap()
    );
    assert_eq!(s["sharedWith"], main.path().to_str().unwrap());
    assert_eq!(s["reachable"], true);
    assert!(s["schemaVersion"].as_i64().unwrap() >= 9, "{s}");
    let human = main.wit(None, &["store", "status"]).ok().stdout;
    assert!(human.starts_with("sqlite store at "), "{human}");
    assert!(
        !human.contains("shared with"),
        "the main worktree's own: {human}"
    );
}

#[test]
fn a_main_worktrees_wit_dir_that_is_a_symlink_is_refused_and_nothing_is_written_there() {
    use std::os::unix::fs::PermissionsExt;
    let main = CliRepo::new();
    main.write("a.ts", "export function f() {}\n");
    main.write(".gitignore", ".wit/\n");
    main.git(&["add", "."]);
    main.git(&["commit", "-q", "-m", "initial"]);
    let wt = Worktree::add(&main, "wt-evil");
    // The shared state's directory, planted as a symlink to somewhere else.
    let elsewhere = TempRepo::new();
    std::fs::set_permissions(elsewhere.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), main.path().join(".wit")).unwrap();
    let out = wt.wit(A, &["lock", "a.ts:f"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("symlink"), "{out:#?}");
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written where the symlink points"
    );
}
