//! Daemon management from the CLI: auto-start (once, even when racing), stale sockets,
//! start/stop/restart/status.

use std::os::unix::net::UnixListener;

use crate::support::cli::{CliRepo, wit_command};

#[test]
fn any_command_starts_the_daemon_when_none_runs() {
    let r = CliRepo::new();
    assert!(r.daemon_pids().is_empty());
    let out = r.wit(Some("s1"), &["status"]).ok();
    assert!(out.stderr.contains("started the daemon"), "{}", out.stderr);
    assert_eq!(r.daemon_pids().len(), 1);
    // The second call finds it running.
    let out = r.wit(Some("s1"), &["status"]).ok();
    assert!(!out.stderr.contains("started"), "{}", out.stderr);
    assert_eq!(r.daemon_pids().len(), 1);
}

#[test]
fn concurrent_auto_starts_yield_one_daemon() {
    let r = CliRepo::new();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let session = format!("s{i}");
            wit_command(r.path(), Some(&session), &["status", "--json"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut daemon_pids = Vec::new();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        daemon_pids.push(v["daemon"]["pid"].as_u64().unwrap());
    }
    daemon_pids.dedup();
    assert_eq!(daemon_pids.len(), 1, "every CLI talked to the same daemon");
    assert_eq!(
        r.daemon_pids(),
        vec![daemon_pids[0] as u32],
        "exactly one daemon process"
    );
}

#[test]
fn a_stale_socket_is_replaced_by_a_fresh_daemon() {
    let r = CliRepo::new();
    std::fs::create_dir_all(r.repo.wit_dir()).unwrap();
    // A socket file nobody listens on: what a crashed daemon leaves behind.
    drop(UnixListener::bind(r.repo.socket()).unwrap());
    assert!(r.repo.socket().exists());
    r.wit(Some("s1"), &["status"]).ok();
    assert_eq!(r.daemon_pids().len(), 1);
}

#[test]
fn daemon_start_stop_restart_and_status() {
    let r = CliRepo::new();
    let out = r.wit(None, &["daemon", "status"]).code(4);
    assert!(out.stderr.contains("not running"), "{}", out.stderr);
    let out = r.wit(None, &["daemon", "status", "--json"]).code(4);
    assert_eq!(out.json()["error"]["message"], "DAEMON_UNREACHABLE");

    let out = r.wit(None, &["daemon", "start"]).ok();
    assert!(
        out.stdout.starts_with("started: daemon running · pid "),
        "{}",
        out.stdout
    );
    let out = r.wit(None, &["daemon", "start", "--json"]).ok();
    assert_eq!(out.json()["started"], false);
    let pid = out.json()["status"]["pid"].as_u64().unwrap();

    let out = r.wit(Some("s1"), &["lock", "a.ts:f"]).ok();
    assert!(out.stdout.contains("Locked a.ts:f"));
    let out = r.wit(None, &["daemon", "status"]).ok();
    let line = out.stdout.trim();
    assert!(line.contains(&format!("pid {pid}")), "{line}");
    assert!(
        line.contains(&format!("socket {}", r.repo.socket().display())),
        "{line}"
    );
    assert!(line.contains("1 locks, 0 intents, 0 contracts"), "{line}");
    assert!(line.contains(" up "), "{line}");
    assert!(line.contains("analyzers: "), "{line}");
    let v = r.wit(None, &["daemon", "status", "--json"]).ok().json();
    assert_eq!(v["pid"], pid);
    assert_eq!(v["counts"]["locks"], 1);
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));

    let out = r.wit(None, &["daemon", "restart", "--json"]).ok();
    let new_pid = out.json()["status"]["pid"].as_u64().unwrap();
    assert_ne!(new_pid, pid);
    assert_eq!(r.daemon_pids(), vec![new_pid as u32]);
    // State survives a restart (it lives in .wit/state.db).
    let v = r.wit(None, &["status", "--json"]).ok().json();
    assert_eq!(v["locks"][0]["symbolPath"], "a.ts:f");

    let out = r.wit(None, &["daemon", "stop"]).ok();
    assert_eq!(out.stdout.trim(), format!("daemon stopped (pid {new_pid})"));
    assert!(r.daemon_pids().is_empty());
    assert!(!r.repo.socket().exists());
    let out = r.wit(None, &["daemon", "stop", "--json"]).ok();
    assert_eq!(out.json()["stopped"], false);
}

/// The pid helper counts a daemon once, not again for a child it forked that has not yet
/// exec'd (same command line), while two unrelated daemons are two.
#[test]
fn the_daemon_pid_helper_does_not_count_a_daemons_own_children() {
    use crate::support::cli::not_their_children;
    assert_eq!(not_their_children(&[(10, Some(1)), (11, Some(10))]), [10]);
    assert_eq!(
        not_their_children(&[(10, Some(1)), (20, Some(1))]),
        [10, 20]
    );
    assert_eq!(not_their_children(&[(10, None)]), [10]);
}
