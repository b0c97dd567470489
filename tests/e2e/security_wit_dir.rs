//! Security item 1: `.wit` and everything in it is wit's own, or wit refuses to use it.
//!
//! Each test plays the attack for real: a repository (cloned with git where the attack is
//! a committed file) plants symlinks or files in `.wit/`, and the victim runs an ordinary
//! `wit` command. The assertion is on the victim's files, not on wit's wording alone.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use crate::support::cli::CliRepo;

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o777
}

/// The attacker's repository, committed; the victim pulls it into a fresh repository (the
/// same files a `git clone` gives).
fn clone_of(attacker: &CliRepo) -> CliRepo {
    attacker.git(&["add", "-A", "-f", "."]);
    attacker.git(&["commit", "-q", "-m", "innocent"]);
    let victim = CliRepo::new();
    victim.git(&["pull", "-q", &attacker.path().display().to_string(), "main"]);
    victim
}

#[test]
fn item1_committed_daemon_log_symlink_and_newline_plugin_path_leave_bashrc_untouched() {
    let home = tempfile::tempdir().unwrap();
    let bashrc = home.path().join(".bashrc");
    std::fs::write(&bashrc, "# my shell\n").unwrap();
    let attacker = CliRepo::new();
    attacker.repo.symlink(&bashrc, ".wit/daemon.log");
    attacker.write("wit.toml", "[[analyzers]]\npath = \"y\\ntouch PWNED\\n\"\n");
    let victim = clone_of(&attacker);
    assert!(
        std::fs::symlink_metadata(victim.path().join(".wit/daemon.log"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the clone carries the symlink"
    );

    let out = victim.wit(Some("victim"), &["status"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("committed"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "# my shell\n");
    assert!(
        victim.daemon_pids().is_empty(),
        "no daemon serves a committed .wit/"
    );
}

#[test]
fn item1_committed_session_id_is_refused_not_adopted() {
    let attacker = CliRepo::new();
    attacker.write(".wit/session.id", "attacker-chosen\n");
    let victim = clone_of(&attacker);
    // As git leaves it (0755 under the usual umask), and as a umask-077 user gets it.
    for dir_mode in [0o755, 0o700] {
        std::fs::set_permissions(
            victim.path().join(".wit"),
            std::fs::Permissions::from_mode(dir_mode),
        )
        .unwrap();
        let out = victim.wit(None, &["lock", "src/a.ts:f", "--json"]);
        assert_ne!(out.code, 0, "mode {dir_mode:o}: {out:#?}");
        assert!(out.stdout.contains("committed"), "{}", out.stdout);
        assert!(!out.stdout.contains("attacker-chosen"), "{}", out.stdout);
    }
    let out = victim.wit(None, &["init"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("committed"), "{}", out.stderr);
}

#[test]
fn item1_startup_lock_symlink_does_not_truncate_profile() {
    let home = tempfile::tempdir().unwrap();
    let profile = home.path().join(".profile");
    std::fs::write(&profile, "export PATH=/keep\n").unwrap();
    let r = CliRepo::new();
    r.private_wit_dir();
    r.repo.symlink(&profile, ".wit/startup.lock");

    let out = r.wit(Some("s1"), &["status"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(out.stderr.contains("symlink"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&profile).unwrap(),
        "export PATH=/keep\n"
    );
}

#[test]
fn item1_symlinked_wit_dir_is_refused_and_its_target_untouched() {
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::set_permissions(elsewhere.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = CliRepo::new();
    r.repo.symlink(elsewhere.path(), ".wit");

    for args in [&["status"][..], &["daemon", "run"], &["init"]] {
        let out = r.wit(Some("s1"), args);
        assert_ne!(out.code, 0, "{args:?}: {out:#?}");
        assert!(out.stderr.contains("symlink"), "{args:?}: {}", out.stderr);
    }
    assert_eq!(mode(elsewhere.path()), 0o755, "never chmod'ed");
    assert_eq!(
        std::fs::read_dir(elsewhere.path()).unwrap().count(),
        0,
        "nothing written there"
    );
}

#[test]
fn item1_state_db_and_daemon_lock_symlinks_create_nothing_outside() {
    let outside = tempfile::tempdir().unwrap();
    for (name, target) in [
        ("state.db", "x.db"),
        ("daemon.lock", "y.lock"),
        ("state.db-wal", "z.wal"),
    ] {
        let r = CliRepo::new();
        r.private_wit_dir();
        if name == "state.db-wal" {
            std::fs::write(r.path().join(".wit/state.db"), "").unwrap();
            std::fs::set_permissions(
                r.path().join(".wit/state.db"),
                std::fs::Permissions::from_mode(0o600),
            )
            .unwrap();
        }
        r.repo
            .symlink(&outside.path().join(target), &format!(".wit/{name}"));
        let out = r.wit(None, &["daemon", "run"]);
        assert_ne!(out.code, 0, "{name}: {out:#?}");
        assert!(out.stderr.contains("symlink"), "{name}: {}", out.stderr);
        assert!(
            !outside.path().join(target).exists(),
            "{name} created {target} outside the repository"
        );
    }
}

#[test]
fn item1_a_wit_dir_of_another_user_is_refused() {
    let Some((uid, gid)) = crate::support::fake_peer::other_user() else {
        eprintln!("skipped: needs root to create a second local user");
        return;
    };
    let r = CliRepo::new();
    let dir = r.path().join(".wit");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).unwrap();
    let out = r.wit(Some("s1"), &["status"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(
        out.stderr.contains(&format!("belongs to uid {uid}")),
        "{}",
        out.stderr
    );
}

#[test]
fn item1_wit_dir_writable_by_others_is_refused() {
    let r = CliRepo::new();
    let dir = r.path().join(".wit");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = r.wit(Some("s1"), &["status"]);
    assert_ne!(out.code, 0, "{out:#?}");
    assert!(
        out.stderr.contains("writable by other users"),
        "{}",
        out.stderr
    );
}

#[test]
fn item1_wit_dir_is_created_0700_and_every_file_in_it_0600() {
    let r = CliRepo::new();
    r.write("src/a.ts", "export function f() {}\n");
    r.wit(None, &["init"]).ok();
    r.wit(Some("s1"), &["lock", "src/a.ts:f"]).ok();
    let dir = r.path().join(".wit");
    assert_eq!(mode(&dir), 0o700);
    let mut seen = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        // Files 0600; a directory of wit's (the forecast's `forecast/`) 0700.
        let private = if e.path().is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&e.path()), private, "{name}");
        assert_eq!(
            std::fs::symlink_metadata(e.path()).unwrap().uid(),
            // SAFETY: geteuid(2) has no preconditions.
            unsafe { libc::geteuid() },
            "{name}"
        );
        seen.push(name);
    }
    for expected in [
        "daemon.sock",
        "daemon.log",
        "state.db",
        "session.id",
        "daemon.lock",
    ] {
        assert!(seen.iter().any(|n| n == expected), "{expected} in {seen:?}");
    }
}

#[test]
fn item1_an_index_db_companion_symlink_creates_nothing_outside() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("index.wal");
    let r = CliRepo::new();
    r.write("src/a.ts", "export function f() { return 1; }\n");
    r.private_wit_dir();
    std::fs::write(r.path().join(".wit/index.db"), "").unwrap();
    std::fs::set_permissions(
        r.path().join(".wit/index.db"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    r.repo.symlink(&target, ".wit/index.db-wal");
    // The daemon serves (the index is one of its parts, not a reason to stop): the index
    // refuses the planted companion, says why, and starts a database of its own.
    r.wit(Some("a"), &["lock", "src/a.ts:f"]).ok();
    let mut c =
        crate::support::client::Client::connect(&r.path().join(".wit/daemon.sock")).unwrap();
    crate::support::daemon::wait_until(
        "the index build is over",
        std::time::Duration::from_secs(60),
        || c.ok("graph.status", serde_json::json!({}))["state"] == "ready",
    );
    assert!(
        !target.exists(),
        "index.db-wal created a file outside the repository"
    );
    let log = std::fs::read_to_string(r.path().join(".wit/daemon.log")).unwrap();
    assert!(log.contains("symlink"), "the refusal is logged: {log}");
    let wal = std::fs::symlink_metadata(r.path().join(".wit/index.db-wal"));
    assert!(
        !wal.is_ok_and(|m| m.file_type().is_symlink()),
        "the planted symlink is gone"
    );
}
