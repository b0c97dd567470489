//! Issue 31: one daemon process per repository and user serves every worktree's socket.
//! Each worktree is stopped on its own (`wit daemon stop`, its starter's end, its
//! deletion) while the others serve on; the process ends with its last worktree; a
//! worktree whose environment differs gets a process of its own; and the control socket
//! is spoken to only when it is this user's, and answers bad requests without harm.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::cli::{CliRepo, daemon_pids_for};
use crate::support::client::Client;
use crate::support::daemon::wait_until;
use crate::support::worktree::Worktree;

const SHOWS: Duration = Duration::from_secs(30);

fn main_repo() -> CliRepo {
    let main = CliRepo::new();
    main.write(
        "src/a.ts",
        "export function a() { return b(); }\nexport function b() { return 1; }\n",
    );
    main.write(".gitignore", ".wit/\n");
    main.git(&["add", "."]);
    main.git(&["commit", "-q", "-m", "initial"]);
    main.wit(None, &["init"]).ok();
    main.wit(None, &["daemon", "start"]).ok();
    main
}

fn status(root: &Path) -> Value {
    Client::connect(&root.join(".wit/daemon.sock"))
        .unwrap()
        .ok("daemon.status", json!({}))
}

fn served(root: &Path) -> bool {
    Client::connect(&root.join(".wit/daemon.sock"))
        .ok()
        .and_then(|mut c| {
            let body = crate::support::client::rpc_request("ping", None).to_string();
            c.request("POST", "/rpc", body.as_bytes()).ok()
        })
        .is_some_and(|r| r.json()["result"] == "pong")
}

fn canonical(p: &Path) -> String {
    p.canonicalize().unwrap().display().to_string()
}

fn alive(pid: u64) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty()
        && !stat
            .rsplit_once(')')
            .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
}

#[test]
fn worktrees_share_one_process_and_stop_one_at_a_time() {
    let main = main_repo();
    let wt = Worktree::add(&main, "wt-b");
    wt.wit(None, &["daemon", "start"]).ok();
    let (ours, theirs) = (status(&wt.path), status(main.path()));
    assert_eq!(ours["pid"], theirs["pid"], "{ours}");
    assert_eq!(ours["servedWith"], json!([canonical(main.path())]));
    assert_eq!(theirs["servedWith"], json!([canonical(&wt.path)]));
    let line = wt.wit(None, &["daemon", "status"]).ok().stdout;
    assert!(line.contains("also serving 1 other worktree"), "{line}");
    // The worktree's own log says where the process serving it logs.
    let log = std::fs::read_to_string(wt.path.join(".wit/daemon.log")).unwrap();
    let host_log = main.path().canonicalize().unwrap().join(".wit/daemon.log");
    assert!(
        log.contains(&format!("which logs to {}", host_log.display())),
        "{log}"
    );
    let pid = ours["pid"].as_u64().unwrap();

    // Stopping the worktree stops it alone: the process serves the main worktree on,
    // and the worktree's starter ends.
    let stopped = wt.wit(None, &["daemon", "stop", "--json"]).ok().json();
    assert_eq!(stopped["pid"], pid);
    assert!(!served(&wt.path));
    assert!(!wt.path.join(".wit/daemon.sock").exists());
    assert!(served(main.path()));
    assert_eq!(status(main.path())["servedWith"], json!([]));
    wait_until("the worktree's starter to end", SHOWS, || {
        daemon_pids_for(&wt.path).is_empty()
    });

    // Started again, it is served by the same process; then the main worktree stops,
    // and the process serves the worktree on.
    wt.wit(None, &["daemon", "start"]).ok();
    assert_eq!(status(&wt.path)["pid"], pid);
    main.wit(None, &["daemon", "stop"]).ok();
    assert!(!served(main.path()));
    assert!(served(&wt.path));
    assert!(alive(pid));
    assert_eq!(status(&wt.path)["servedWith"], json!([]));
    // The last worktree's stop ends the process.
    wt.wit(None, &["daemon", "stop"]).ok();
    assert!(!alive(pid), "the process ended with its last worktree");
}

#[test]
fn a_worktree_deleted_or_whose_starter_was_killed_stops_and_the_others_serve_on() {
    let main = main_repo();
    let killed = Worktree::add(&main, "wt-k");
    let deleted = Worktree::add(&main, "wt-d");
    killed.wit(None, &["daemon", "start"]).ok();
    deleted.wit(None, &["daemon", "start"]).ok();
    let pid = status(main.path())["pid"].clone();
    assert_eq!(status(&killed.path)["pid"], pid);
    assert_eq!(status(&deleted.path)["pid"], pid);

    // The starter holding `wt-k` is killed (a crash): the serving ends with it.
    let starters = daemon_pids_for(&killed.path);
    assert_eq!(starters.len(), 1, "{starters:?}");
    // SAFETY: kill(2) on a pid of a process this test started (through `wit`).
    unsafe { libc::kill(starters[0] as libc::pid_t, libc::SIGKILL) };
    wait_until("the killed starter's worktree to stop", SHOWS, || {
        !killed.path.join(".wit/daemon.sock").exists()
    });

    // `wt-d` is deleted under the running daemon: it stops serving it.
    std::fs::remove_dir_all(&deleted.path).unwrap();
    wait_until("the deleted worktree to be dropped", SHOWS, || {
        status(main.path())["servedWith"] == json!([])
    });
    // The main worktree is served throughout, by the same process.
    assert_eq!(status(main.path())["pid"], pid);
    let callers = main
        .wit(None, &["callers", "src/a.ts:b", "--json"])
        .ok()
        .json();
    assert!(callers.to_string().contains("src/a.ts:a"), "{callers}");
}

#[test]
fn a_worktree_started_with_another_environment_gets_a_process_of_its_own() {
    let main = main_repo();
    let wt = Worktree::add(&main, "wt-b");
    let mut cmd = crate::support::cli::wit_command(&wt.path, None, &["daemon", "start"]);
    cmd.env("WIT_LOG", "debug");
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_ne!(status(&wt.path)["pid"], status(main.path())["pid"]);
    assert_eq!(status(&wt.path)["servedWith"], json!([]));
    let log = std::fs::read_to_string(wt.path.join(".wit/daemon.log")).unwrap();
    assert!(log.contains("its environment differs (WIT_LOG)"), "{log}");
}

/// Sends `line` on the main worktree's control socket; the reply line, if any.
fn ask(main: &CliRepo, line: &[u8]) -> Option<String> {
    let mut s = UnixStream::connect(main.path().join(".wit/host.sock")).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = s.write_all(line);
    let mut reply = String::new();
    BufReader::new(s).read_line(&mut reply).ok()?;
    (!reply.is_empty()).then_some(reply)
}

/// What a `wit` started by the tests sends as its build and environment (the daemon's
/// `host::wire::Compat`): its version, the executable's device and inode, and the
/// variables the daemon reads.
fn compat() -> Value {
    use std::os::unix::fs::MetadataExt;
    let keys = [
        "WIT_STORE_URL",
        "WIT_LOG",
        "WIT_MAX_WATCHES",
        "WIT_TEST_PORTABLE_WATCHER",
        "HOME",
        "XDG_CONFIG_HOME",
        "PATH",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
        "GIT_CONFIG_NOSYSTEM",
    ];
    let cmd = crate::support::cli::wit_command(Path::new("/"), None, &[]);
    let mut env: std::collections::BTreeMap<String, String> = keys
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
        .collect();
    for (k, v) in cmd.get_envs() {
        let k = k.to_string_lossy().into_owned();
        if keys.contains(&k.as_str()) {
            match v {
                Some(v) => env.insert(k, v.to_string_lossy().into_owned()),
                None => env.remove(&k),
            };
        }
    }
    let exe = std::fs::metadata(crate::support::wit_bin()).unwrap();
    json!({"version": env!("CARGO_PKG_VERSION"), "exe": [exe.dev(), exe.ino()], "env": env})
}

#[test]
fn the_control_socket_refuses_bad_requests_and_serves_on() {
    let main = main_repo();
    let reply = ask(&main, b"not json\n").unwrap();
    assert!(
        reply.contains("refused") && reply.contains("unreadable request"),
        "{reply}"
    );
    // A line past 64 KiB is not read: the connection is closed without an answer.
    let mut huge = vec![b'x'; 70 * 1024];
    huge.push(b'\n');
    assert_eq!(ask(&main, &huge), None);
    // Another build is not served here.
    let elsewhere = CliRepo::new();
    elsewhere.wit(None, &["init"]).ok();
    let request = json!({
        "attach": elsewhere.path(),
        "compat": {"version": env!("CARGO_PKG_VERSION"), "exe": [0, 0], "env": {}},
    });
    let reply = ask(&main, format!("{request}\n").as_bytes()).unwrap();
    assert!(reply.contains("another wit executable"), "{reply}");
    // Nor another repository, asked with this very build and environment.
    let request = json!({"attach": elsewhere.path(), "compat": compat()});
    let reply = ask(&main, format!("{request}\n").as_bytes()).unwrap();
    assert!(
        reply.contains("does not share this daemon's state"),
        "{reply}"
    );
    // (`wit init` started the other repository's own daemon.)
    assert_ne!(status(elsewhere.path())["pid"], status(main.path())["pid"]);
    // The daemon serves on.
    assert!(served(main.path()));
    assert_eq!(status(main.path())["servedWith"], json!([]));
}

#[test]
fn a_control_socket_not_of_this_user_is_never_spoken_to() {
    let Some(other) = crate::support::fake_peer::other_user() else {
        eprintln!("skipped: it needs root to create another user");
        return;
    };
    let main = main_repo();
    main.wit(None, &["daemon", "stop"]).ok();
    // Another user's listener where the repository's daemon would listen (as root could
    // leave one); `.wit/` opened to let it bind there, then made private again.
    let dir = main.path().join(".wit");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let peer = crate::support::fake_peer::FakePeer::start(&dir.join("host.sock"), 1, Some(other));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let wt = Worktree::add(&main, "wt-b");
    wt.wit(None, &["daemon", "start"]).ok();
    assert!(served(&wt.path));
    assert_eq!(
        peer.received(),
        "",
        "nothing was sent to another user's socket"
    );
    let log = std::fs::read_to_string(main.path().join(".wit/daemon.log")).unwrap_or_default()
        + &std::fs::read_to_string(wt.path.join(".wit/daemon.log")).unwrap();
    assert!(log.contains("is not a socket of this user"), "{log}");
}

/// `wit daemon run` in a terminal serves its worktree, says so once per worktree it takes
/// on, and Ctrl-C there stops every worktree it serves.
#[test]
fn a_foreground_daemon_says_which_worktrees_it_serves_and_ctrl_c_stops_them_all() {
    let main = CliRepo::new();
    main.write("src/a.ts", "export function a() { return 1; }\n");
    main.write(".gitignore", ".wit/\n");
    main.git(&["add", "."]);
    main.git(&["commit", "-q", "-m", "initial"]);
    let mut pty = crate::support::pty::Pty::spawn(&crate::support::cli::wit_command(
        main.path(),
        None,
        &["daemon", "run"],
    ));
    pty.wait_for("Ctrl-C to stop");
    let wt = Worktree::add(&main, "wt-b");
    wt.wit(None, &["daemon", "start"]).ok();
    pty.wait_for(&format!("also serving {}", canonical(&wt.path)));
    assert_eq!(status(&wt.path)["pid"], status(main.path())["pid"]);
    pty.send(b"\x03");
    let exit = pty.finish();
    assert_eq!(exit.code, 0, "{exit:?}");
    assert!(!served(main.path()));
    wait_until("the other worktree to stop with it", SHOWS, || {
        !wt.path.join(".wit/daemon.sock").exists()
    });
}

/// A `host.sock` that is a symlink (to a listener elsewhere, even one of this user) is not
/// the repository's daemon: nothing is sent to it, and the worktree is served on its own.
#[test]
fn a_symlinked_control_socket_is_never_spoken_to() {
    let main = main_repo();
    main.wit(None, &["daemon", "stop"]).ok();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("listener.sock");
    let peer = crate::support::fake_peer::FakePeer::start(&target, 1, None);
    std::os::unix::fs::symlink(&target, main.path().join(".wit/host.sock")).unwrap();
    let wt = Worktree::add(&main, "wt-b");
    wt.wit(None, &["daemon", "start"]).ok();
    assert!(served(&wt.path));
    assert_eq!(peer.received(), "", "nothing was sent through the symlink");
    let log = std::fs::read_to_string(wt.path.join(".wit/daemon.log")).unwrap();
    assert!(log.contains("is not a socket of this user"), "{log}");
    assert!(log.contains("symlink"), "{log}");
}
