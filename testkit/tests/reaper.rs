//! A throwaway cluster does not outlive its test process, even one killed with SIGKILL:
//! its guard stops it; and when the guard was killed too, the next test process's sweep
//! does. Real servers, real signals.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use wit_testkit::reaper::alive;

/// A `wit-testkit-hold-cluster` process with its cluster's directory, server and guard.
struct Holder {
    child: Child,
    dir: PathBuf,
    server: libc::pid_t,
    guard: libc::pid_t,
}

/// The two tests one at a time: a holder's first cluster sweeps (see `sweep_stale`), and
/// it must not sweep the other test's deliberately orphaned cluster before that test has
/// looked at it.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn hold() -> Holder {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wit-testkit-hold-cluster"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the holder");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("the holder says where its cluster is");
    let parts: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(parts.len(), 3, "{line:?}");
    Holder {
        child,
        dir: PathBuf::from(parts[0]),
        server: parts[1].parse().unwrap(),
        guard: parts[2].parse().unwrap(),
    }
}

fn sigkill(pid: libc::pid_t) {
    // SAFETY: sending a signal to a process this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
}

/// Polls `done` until it holds, failing the test after `limit`.
fn within(limit: Duration, what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_cluster_is_stopped_and_removed_when_its_test_process_is_killed() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut h = hold();
    assert!(alive(h.server) && h.dir.is_dir());
    sigkill(h.child.id() as libc::pid_t);
    h.child.wait().unwrap();
    within(Duration::from_secs(30), "the server stops", || {
        !alive(h.server)
    });
    within(Duration::from_secs(30), "the directory goes", || {
        !h.dir.exists()
    });
}

#[test]
fn a_cluster_left_by_a_process_killed_with_its_guard_is_swept() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut h = hold();
    sigkill(h.guard);
    sigkill(h.child.id() as libc::pid_t);
    h.child.wait().unwrap();
    // Nobody is left to stop it: the server runs on, its directory stays.
    assert!(alive(h.server), "the server outlived its owner");
    assert!(h.dir.is_dir());
    wit_testkit::postgres::sweep_stale();
    within(
        Duration::from_secs(30),
        "the sweep stops the server",
        || !alive(h.server),
    );
    assert!(!h.dir.exists(), "the sweep removed the directory");
}

/// Another local user can make a `wit-pg-*` directory in the shared temp directory whose
/// owner file names a dead pid and whose `postmaster.pid` names a process of ours: the
/// sweep must neither signal that process nor remove the directory. Planted here as an
/// owner file that is a symlink (and, when the test runs as root, one owned by `nobody`).
#[test]
fn the_sweep_believes_no_owner_file_it_did_not_write() {
    use std::os::unix::fs::symlink;
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut victim = Command::new("sleep").arg("60").spawn().unwrap();
    let dead = {
        let mut c = Command::new("true").spawn().unwrap();
        let pid = c.id();
        c.wait().unwrap();
        pid
    };
    let mut planted = Vec::new();
    let link = tempfile::Builder::new()
        .prefix(wit_testkit::reaper::DIR_PREFIX)
        .tempdir()
        .unwrap();
    std::fs::write(link.path().join("target.pid"), dead.to_string()).unwrap();
    symlink(
        link.path().join("target.pid"),
        link.path().join(wit_testkit::reaper::OWNER_FILE),
    )
    .unwrap();
    planted.push(link);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let foreign = tempfile::Builder::new()
            .prefix(wit_testkit::reaper::DIR_PREFIX)
            .tempdir()
            .unwrap();
        let owner = foreign.path().join(wit_testkit::reaper::OWNER_FILE);
        std::fs::write(&owner, dead.to_string()).unwrap();
        let c = std::ffi::CString::new(owner.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path; 65534 is `nobody`.
        assert_eq!(unsafe { libc::chown(c.as_ptr(), 65534, 65534) }, 0);
        planted.push(foreign);
    }
    for dir in &planted {
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::write(
            dir.path().join("data/postmaster.pid"),
            format!("{}\n", victim.id()),
        )
        .unwrap();
    }
    wit_testkit::postgres::sweep_stale();
    for dir in &planted {
        assert!(
            dir.path().join("data").is_dir(),
            "{} was removed",
            dir.path().display()
        );
    }
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the process a planted postmaster.pid named was signalled"
    );
    victim.kill().unwrap();
    victim.wait().unwrap();
}
