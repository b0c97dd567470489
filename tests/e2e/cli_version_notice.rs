//! A daemon of another wit version is reported: commands that read `daemon.status` name
//! both versions and suggest `wit daemon restart`, on stderr, and still do their work.
//!
//! The old daemon is a stand-in on the repository's real socket (see `support::stand_in`):
//! no other wit version can be built here.

use crate::support::cli::CliRepo;
use crate::support::stand_in::{OLD_VERSION, OldDaemon, STAND_IN_PID};

/// The version of the `wit` under test (same workspace version as this test crate).
const CLI_VERSION: &str = env!("CARGO_PKG_VERSION");

#[track_caller]
fn assert_version_notice(stderr: &str) {
    let notice = stderr
        .lines()
        .find(|l| l.contains("notice"))
        .unwrap_or_else(|| panic!("no version notice on stderr: {stderr:?}"));
    assert!(
        notice.contains(&format!("wit {OLD_VERSION}"))
            && notice.contains(&format!("wit {CLI_VERSION}"))
            && notice.contains("`wit daemon restart`"),
        "{notice}"
    );
}

#[test]
fn status_names_both_versions_and_suggests_a_restart_and_still_shows_the_state() {
    let r = CliRepo::new();
    // Declared after the repo so it stops first: the repo's `wit daemon stop` on drop
    // then finds no socket.
    let _old = OldDaemon::serve(r.path());

    let out = r.wit(None, &["status"]).ok();
    assert_version_notice(&out.stderr);
    assert!(!out.stdout.contains("notice"), "{}", out.stdout);
    for shown in [
        r.path().display().to_string(),
        format!("daemon pid {STAND_IN_PID}"),
        "Intents: none".to_owned(),
        "Locks: none".to_owned(),
        "Contracts: none".to_owned(),
    ] {
        assert!(out.stdout.contains(&shown), "{shown:?} in {}", out.stdout);
    }
    assert!(
        r.daemon_pids().is_empty(),
        "wit status used the running (old) daemon instead of starting one"
    );
}

#[test]
fn status_json_stays_one_document_when_the_daemon_is_another_version() {
    let r = CliRepo::new();
    let _old = OldDaemon::serve(r.path());

    let out = r.wit(None, &["status", "--json"]).ok();
    assert_version_notice(&out.stderr);
    let snap = out.json();
    assert_eq!(snap["daemon"]["version"], OLD_VERSION);
    assert_eq!(snap["daemon"]["pid"], STAND_IN_PID);
    assert_eq!(snap["locks"], serde_json::json!([]));
    assert_eq!(snap["intents"], serde_json::json!([]));
    assert_eq!(snap["contracts"], serde_json::json!([]));
}

#[test]
fn daemon_status_daemon_start_and_init_report_the_other_version_too() {
    let r = CliRepo::new();
    let _old = OldDaemon::serve(r.path());

    let status = r.wit(None, &["daemon", "status"]).ok();
    assert_version_notice(&status.stderr);
    assert!(
        status.stdout.contains(&format!("wit {OLD_VERSION}")),
        "{}",
        status.stdout
    );

    let start = r.wit(None, &["daemon", "start", "--json"]).ok();
    assert_version_notice(&start.stderr);
    let start = start.json();
    assert_eq!(start["started"], false, "the old daemon counts as running");
    assert_eq!(start["status"]["version"], OLD_VERSION);

    let init = r.wit(None, &["init"]).ok();
    assert_version_notice(&init.stderr);
    assert!(r.daemon_pids().is_empty(), "no second daemon was started");
}
