//! The index's file watcher within its budget of watches (issue 31): past the cap
//! (`WIT_MAX_WATCHES`), a directory is listed now and then instead of watched, a change
//! there is still seen, and `daemon.status` and `wit daemon status` say the cap is
//! reached.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::cli::wit_command;
use crate::support::client::Client;
use crate::support::daemon::{Daemon, daemon_command, wait_until};
use crate::support::repo::TempRepo;

const DB: &str = "export function query(sql: string): string {\n  return sql;\n}\n";

/// A daemon on `repo` with `WIT_MAX_WATCHES=cap`, once its index is built, with a client
/// and `daemon.status`'s `watch`.
fn start(repo: &TempRepo, cap: &str) -> (Daemon, Client, Value) {
    let mut cmd = daemon_command(repo.path());
    cmd.env("WIT_MAX_WATCHES", cap);
    let d = Daemon::start_with(repo.path(), cmd);
    let mut c = d.client();
    wait_until("the index is built", Duration::from_secs(60), || {
        c.ok("graph.status", json!({}))["state"] == "ready"
    });
    let watch = c.ok("daemon.status", json!({}))["watch"].clone();
    (d, c, watch)
}

fn callers(c: &mut Client) -> Vec<String> {
    c.caller_names("src/db.ts:query")
}

#[test]
fn past_the_watch_cap_a_new_file_is_still_indexed_and_the_status_says_the_cap_is_reached() {
    // With a cap of 2: the root, then `src` (three files: the most) are watched; `lib`
    // (one file) is past the cap.
    let repo = TempRepo::new()
        .with_file("src/db.ts", DB)
        .with_file("src/a.ts", "export function a() {}\n")
        .with_file("src/b.ts", "export function b() {}\n")
        .with_file("lib/other.ts", "export function other() {}\n");
    let (_d, mut c, watch) = start(&repo, "2");
    assert_eq!(watch["cap"], 2, "{watch}");
    assert_eq!(watch["capSource"], "WIT_MAX_WATCHES", "{watch}");
    assert_eq!(watch["watched"], 2, "{watch}");
    assert_eq!(watch["polled"], 1, "{watch}");
    assert_eq!(watch["capReached"], true, "{watch}");
    assert_eq!(watch["pollIntervalMs"], 2000, "{watch}");
    assert_eq!(callers(&mut c), Vec::<String>::new());

    // A new file in the polled directory: no watch reports it, and no answer verifies a
    // file it does not know; the listing finds it.
    repo.write(
        "lib/late.ts",
        "import { query } from '../src/db';\nexport function late() { return query('l'); }\n",
    );
    wait_until(
        "the polled directory's new file is indexed",
        Duration::from_secs(30),
        || callers(&mut c) == ["lib/late.ts:late"],
    );
    // An edit of it (the index then drops the call): seen the same way.
    repo.write("lib/late.ts", "export function late() { return 'l'; }\n");
    wait_until(
        "the polled directory's edit is indexed",
        Duration::from_secs(30),
        || callers(&mut c).is_empty(),
    );

    // `wit daemon status` says so, and its JSON carries the watcher's figures.
    let out = wit_command(repo.path(), None, &["daemon", "status"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("file watcher at its cap of 2 directories: 1 more listed every 2 s"),
        "{text}"
    );
    let out = wit_command(repo.path(), None, &["daemon", "status", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["watch"]["capReached"], true, "{v}");
    assert_eq!(v["watch"]["polled"], 1, "{v}");
}

/// Under the cap nothing is polled, and the status says the cap is not reached.
#[test]
fn under_the_watch_cap_every_directory_is_watched() {
    let repo = TempRepo::new()
        .with_file("src/db.ts", DB)
        .with_file("lib/other.ts", "export function other() {}\n");
    let (_d, _c, watch) = start(&repo, "3");
    assert_eq!(watch["watched"], 3, "{watch}");
    assert_eq!(watch["polled"], 0, "{watch}");
    assert_eq!(watch["capReached"], false, "{watch}");
    let out = wit_command(repo.path(), None, &["daemon", "status"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("file watcher"));
}
