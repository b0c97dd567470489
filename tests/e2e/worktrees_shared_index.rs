//! Issue 31: a new worktree's index starts from what the main worktree's already holds:
//! in memory when the repository's daemon serves it too (one process per repository), or
//! from the main worktree's persisted index when it is served by a process of its own. A
//! second checkout does not parse the whole repository again; each checkout's answers stay
//! its own (a file that differs is analysed from its own content), equal to a lone
//! daemon's on the same tree; and a main index that is not sound, or not ours to read, is
//! never used.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::cli::CliRepo;
use crate::support::client::Client;
use crate::support::daemon::wait_until;
use crate::support::repo::{AUTH_TS, UTIL_PY};
use crate::support::worktree::Worktree;

/// A second TypeScript file calling into `src/auth.ts`.
const APP_TS: &str = r#"import { validateToken } from "./auth";

export function route(token: string): boolean {
  return validateToken(token) !== null;
}
"#;

const FILES: &[(&str, &str)] = &[
    ("src/auth.ts", AUTH_TS),
    ("src/app.ts", APP_TS),
    ("src/util.py", UTIL_PY),
];

fn client(root: &Path) -> Client {
    Client::connect(&root.join(".wit/daemon.sock")).unwrap()
}

/// `graph.status` once the build is over.
fn ready(root: &Path) -> Value {
    let mut c = client(root);
    let mut last = Value::Null;
    wait_until("the index to be ready", Duration::from_secs(60), || {
        last = c.ok("graph.status", json!({}));
        last["state"] == "ready"
    });
    last
}

/// What a checkout's daemon answers about its files: each file's symbols (names, kinds,
/// byte ranges, signatures) and the callers of `validateToken`.
fn answers(root: &Path) -> Value {
    let mut c = client(root);
    let files: Vec<Value> = FILES
        .iter()
        .map(|(rel, _)| c.ok("symbols.list", json!({"file": rel})))
        .collect();
    let callers = c.ok(
        "code.callers",
        json!({"symbolPath": "src/auth.ts:validateToken", "depth": 2}),
    );
    json!({"files": files, "callers": callers})
}

/// The main worktree with `FILES` committed, `wit init` done and its index built.
fn main_repo() -> CliRepo {
    let main = CliRepo::new();
    for (rel, content) in FILES {
        main.write(rel, content);
    }
    main.write(".gitignore", ".wit/\n");
    main.git(&["add", "."]);
    main.git(&["commit", "-q", "-m", "initial"]);
    main.wit(None, &["init"]).ok();
    main.wit(None, &["daemon", "start"]).ok();
    let st = ready(main.path());
    assert_eq!(st["analysed"], 3, "{st}");
    main
}

/// A linked worktree of `main` (with `auth` as its `src/auth.ts` when given), its daemon
/// started and its index built: the worktree, `graph.status` and the daemon's log.
fn linked(main: &CliRepo, auth: Option<&str>) -> (Worktree, Value, String) {
    let wt = Worktree::add(main, "wt-b");
    if let Some(auth) = auth {
        wt.write("src/auth.ts", auth);
    }
    wt.wit(None, &["daemon", "start"]).ok();
    let st = ready(&wt.path);
    (wt, st, logs(main))
}

/// The daemon logs of `main` and its worktree `wt-b`: the process serving the worktree
/// logs to the log of the worktree it was started in.
fn logs(main: &CliRepo) -> String {
    let status = main.git(&["worktree", "list", "--porcelain"]);
    let mut all = String::new();
    for line in status.lines() {
        if let Some(path) = line.strip_prefix("worktree ") {
            all.push_str(
                &std::fs::read_to_string(Path::new(path).join(".wit/daemon.log"))
                    .unwrap_or_default(),
            );
        }
    }
    all
}

/// `auth.ts` as the linked worktree has it: `validateToken` moved below `handler` and
/// its signature changed, so its bytes, its callers' view and its signature all differ.
fn changed_auth() -> String {
    let moved = "export async function validateToken(token: string): Promise<User | null> {\n  const user = decode(token);\n  return user;\n}\n\n";
    let without = AUTH_TS.replace(moved, "");
    assert_ne!(without, AUTH_TS);
    without.replace(
        "function persist(user: User): void {}\n",
        "function persist(user: User): void {}\n\nexport async function validateToken(token: string, strict: boolean): Promise<User | null> {\n  return strict ? null : decode(token);\n}\n",
    )
}

#[test]
fn a_new_worktree_reuses_the_main_index_and_its_answers_are_its_own() {
    let main = main_repo();
    let auth = changed_auth();
    let (wt, st, _) = linked(&main, Some(&auth));
    // One process serves both checkouts.
    let status = client(&wt.path).ok("daemon.status", json!({}));
    let main_status = client(main.path()).ok("daemon.status", json!({}));
    assert_eq!(status["pid"], main_status["pid"], "{status}");
    assert_eq!(
        status["servedWith"],
        json!([main.path().canonicalize().unwrap().display().to_string()])
    );
    // The two files the checkouts share are the main checkout's, in memory; the changed
    // one is analysed from this checkout's content.
    assert_eq!(st["reused"], 2, "{st}");
    assert_eq!(st["shared"], 2, "{st}");
    assert_eq!(st["analysed"], 1, "{st}");

    // The same tree served by a lone daemon (no worktree, no main index) answers the
    // same, byte ranges, signatures and callers included.
    let lone = CliRepo::new();
    for (rel, content) in FILES {
        lone.write(rel, content);
    }
    lone.write("src/auth.ts", &auth);
    lone.write(".gitignore", ".wit/\n");
    lone.git(&["add", "."]);
    lone.git(&["commit", "-q", "-m", "initial"]);
    lone.wit(None, &["init"]).ok();
    lone.wit(None, &["daemon", "start"]).ok();
    assert_eq!(ready(lone.path())["reused"], 0);
    let (ours, alone) = (answers(&wt.path), answers(lone.path()));
    assert_eq!(ours, alone);
    // And they are this checkout's, not the main one's: the signature it changed.
    let text = ours.to_string();
    assert!(text.contains("strict: boolean"), "{text}");
    let mains = answers(main.path()).to_string();
    assert!(!mains.contains("strict: boolean"), "{mains}");
}

/// A worktree served by a process of its own (`wit daemon run --alone`) starts from the
/// main worktree's persisted index, read beneath its own.
#[test]
fn a_worktree_served_alone_reuses_the_main_persisted_index_and_its_answers_are_its_own() {
    let main = main_repo();
    let auth = changed_auth();
    let wt = Worktree::add(&main, "wt-b");
    wt.write("src/auth.ts", &auth);
    let mut cmd = crate::support::daemon::daemon_command(&wt.path);
    cmd.arg("--alone");
    let alone = crate::support::daemon::Daemon::start_with(&wt.path, cmd);
    let st = ready(&wt.path);
    assert_ne!(
        client(&wt.path).ok("daemon.status", json!({}))["pid"],
        client(main.path()).ok("daemon.status", json!({}))["pid"]
    );
    assert_eq!(st["reused"], 2, "{st}");
    assert_eq!(st["shared"], 0, "{st}");
    assert_eq!(st["analysed"], 1, "{st}");
    let log = std::fs::read_to_string(wt.path.join(".wit/daemon.log")).unwrap();
    assert!(
        log.contains("the index reuses the main worktree's"),
        "{log}"
    );
    let text = answers(&wt.path).to_string();
    assert!(text.contains("strict: boolean"), "{text}");
    drop(alone);
}

#[test]
fn a_main_index_that_is_garbage_a_symlink_or_another_users_is_not_used_and_the_build_is_cold() {
    let other = crate::support::fake_peer::other_user();
    if other.is_none() {
        eprintln!("the case of another user's index is skipped: it needs root to create a user");
    }
    let cases = ["garbage", "symlink", "foreign"];
    for broken in cases.iter().filter(|c| **c != "foreign" || other.is_some()) {
        let broken = *broken;
        let main = main_repo();
        main.wit(None, &["daemon", "stop"]).ok();
        let db = main.path().join(".wit/index.db");
        if broken == "foreign" {
            // A sound index of the right format, but not ours: never read.
            let (uid, gid) = other.unwrap();
            std::os::unix::fs::chown(&db, Some(uid), Some(gid)).unwrap();
            let (_wt, st, log) = linked(&main, None);
            assert_eq!(st["reused"], 0, "{broken}: {st}");
            assert_eq!(st["analysed"], 3, "{broken}: {st}");
            assert!(log.contains("belongs to uid"), "{broken}: {log}");
            continue;
        }
        for companion in ["index.db-wal", "index.db-shm"] {
            let _ = std::fs::remove_file(main.path().join(".wit").join(companion));
        }
        std::fs::remove_file(&db).unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        match broken {
            "garbage" => {
                std::fs::write(&db, b"SQLite format 3\0 but not really a database at all").unwrap();
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o600)).unwrap();
            }
            _ => {
                // An index elsewhere, as another user's or a planted one would be.
                let target = elsewhere.path().join("index.db");
                std::fs::write(&target, b"").unwrap();
                std::os::unix::fs::symlink(&target, &db).unwrap();
            }
        }
        let (wt, st, log) = linked(&main, None);
        assert_eq!(st["reused"], 0, "{broken}: {st}");
        assert_eq!(st["analysed"], 3, "{broken}: {st}");
        assert!(
            log.contains("the main worktree's index is not used"),
            "{broken}: {log}"
        );
        // The symlink's target was not written.
        if broken == "symlink" {
            let target = std::fs::read_link(&db).unwrap();
            assert_eq!(std::fs::read(target).unwrap(), b"");
        }
        // Its answers are right all the same.
        let callers = client(&wt.path).ok(
            "code.callers",
            json!({"symbolPath": "src/auth.ts:validateToken", "depth": 1}),
        );
        assert!(callers.to_string().contains("src/app.ts"), "{callers}");
    }
}
