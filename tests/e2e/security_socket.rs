//! Security item 4: the CLI talks only to a daemon of the same user, signals only the
//! process the kernel says is behind the socket, and finds `.wit/` no higher than the git
//! top level.

use std::os::unix::fs::PermissionsExt;

use crate::support::cli::CliRepo;
use crate::support::fake_peer::{FakePeer, other_user};

/// A victim repository with hooks installed, an accepted-contract-free history, and a
/// secret staged for commit.
fn repo_with_secret_staged() -> CliRepo {
    let r = CliRepo::new();
    r.write(
        "src/secret.ts",
        "export const apiKey = 'hunter2';\nexport function f() {}\n",
    );
    r.git(&["add", "src/secret.ts"]);
    r
}

#[test]
fn item4_a_committed_socket_symlink_to_another_socket_receives_nothing() {
    let elsewhere = tempfile::tempdir().unwrap();
    let theirs = elsewhere.path().join("their.sock");
    let peer = FakePeer::start(&theirs, 1, None);
    let r = repo_with_secret_staged();
    r.wit(None, &["hook", "install"]).ok();
    r.private_wit_dir();
    r.repo.symlink(&theirs, ".wit/daemon.sock");

    let commit = r.git_run(&["commit", "-q", "-m", "add secret"], Some("s1"));
    assert_eq!(commit.code, 0, "the hook fails open: {commit:#?}");
    assert!(commit.stderr.contains("symlink"), "{}", commit.stderr);
    for args in [
        &["status"][..],
        &["lock", "src/secret.ts:f"],
        &["daemon", "stop"],
    ] {
        let out = r.wit(Some("s1"), args);
        assert_ne!(out.code, 0, "{args:?}: {out:#?}");
        assert!(out.stderr.contains("symlink"), "{args:?}: {}", out.stderr);
    }
    assert_eq!(peer.received(), "", "nothing reached the other socket");
}

#[test]
fn item4_daemon_stop_signals_the_kernel_reported_pid_not_the_claimed_one() {
    let r = CliRepo::new();
    r.private_wit_dir();
    // An innocent process the fake daemon claims to be.
    let mut bystander = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let mut peer = FakePeer::start(&r.path().join(".wit/daemon.sock"), bystander.id(), None);
    let out = r.wit(None, &["daemon", "stop", "--json"]).ok();
    assert_eq!(out.json()["pid"], peer.pid(), "{}", out.stdout);
    assert!(
        !peer.is_running(),
        "the process behind the socket was stopped"
    );
    assert!(
        matches!(bystander.try_wait(), Ok(None)),
        "the claimed pid was not signalled"
    );
    let _ = bystander.kill();
    let _ = bystander.wait();
}

#[test]
fn item4_a_socket_or_peer_of_another_user_is_refused() {
    let Some((uid, gid)) = other_user() else {
        eprintln!("skipped: needs root to create a second local user");
        return;
    };
    // The other user's listener, in a directory they can write.
    let theirs = tempfile::tempdir().unwrap();
    std::fs::set_permissions(theirs.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let sock = theirs.path().join("s.sock");
    let peer = FakePeer::start(&sock, 1, Some((uid, gid)));

    // 1. Their socket file hard-linked into our .wit/: owned by them, refused before connect.
    let r = repo_with_secret_staged();
    r.private_wit_dir();
    std::fs::hard_link(&sock, r.path().join(".wit/daemon.sock")).unwrap();
    let out = r.wit(Some("s1"), &["status"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains(&format!("uid {uid}")), "{}", out.stderr);

    // 2. The same socket file made ours (chown), but the process behind it is theirs:
    //    refused by SO_PEERCRED.
    std::os::unix::fs::chown(r.path().join(".wit/daemon.sock"), Some(0), Some(0)).unwrap();
    let out = r.wit(Some("s1"), &["status"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(
        out.stderr
            .contains("the process listening on it runs as uid"),
        "{}",
        out.stderr
    );
    assert_eq!(peer.received(), "", "no request reached the other user");
}

#[test]
fn item4_a_wit_dir_above_the_git_top_level_is_not_used() {
    let shared = tempfile::Builder::new()
        .prefix("wit-e2e-")
        .tempdir()
        .unwrap();
    let planted = shared.path().join(".wit");
    std::fs::create_dir(&planted).unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(planted.join("session.id"), "planted\n").unwrap();
    let repo = shared.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(git.success());
    let out = crate::support::cli::wit_command(&repo, None, &["init", "--json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["root"],
        repo.canonicalize().unwrap().display().to_string()
    );
    assert_ne!(v["sessionId"], "planted");
    assert!(repo.join(".wit/daemon.sock").exists());
    assert_eq!(
        std::fs::read_dir(&planted).unwrap().count(),
        1,
        "nothing was added to the planted .wit/"
    );
    let _ = crate::support::cli::wit_command(&repo, None, &["daemon", "stop"]).status();
}
