//! Lifecycle: permissions, single instance, stale files, signals, restart persistence.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::time::Duration;

use serde_json::json;

use crate::support::daemon::{Daemon, daemon_command, ping, wait_until};
use crate::support::repo::{AUTH_TS, TempRepo};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn wit_dir_is_0700_and_the_socket_0600() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    assert_eq!(mode(&repo.wit_dir()), 0o700);
    let meta = std::fs::metadata(d.socket()).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(mode(d.socket()), 0o600);
    let pid: u32 = std::fs::read_to_string(repo.pid_file())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(pid, d.pid());
    // The state is in .wit/state.db, or in the shared store and not on disk at all.
    assert_eq!(
        repo.wit_dir().join("state.db").exists(),
        !crate::support::store::is_postgres()
    );
    let log = std::fs::read_to_string(repo.wit_dir().join("daemon.log")).unwrap();
    assert!(log.contains("serving"), "{log}");
}

#[test]
fn an_existing_wit_dir_is_tightened_to_0700() {
    let repo = TempRepo::new();
    std::fs::create_dir(repo.wit_dir()).unwrap();
    std::fs::set_permissions(repo.wit_dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let _d = Daemon::start(repo.path());
    assert_eq!(mode(&repo.wit_dir()), 0o700);
}

#[test]
fn a_second_daemon_is_refused_and_the_first_keeps_serving() {
    let repo = TempRepo::new();
    let mut first = Daemon::start(repo.path());
    let out = daemon_command(repo.path()).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("already running"), "{stderr}");
    assert!(stderr.contains(&first.pid().to_string()), "{stderr}");
    assert!(first.is_running());
    assert!(ping(first.socket()));
    let pid: u32 = std::fs::read_to_string(repo.pid_file())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(pid, first.pid());
}

#[test]
fn sigterm_and_sigint_shut_down_cleanly() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let repo = TempRepo::new();
        let mut d = Daemon::start(repo.path());
        let mut c = d.client();
        c.ok("register", json!({"name": "n", "sessionId": "s"}));
        let out = d.signal_and_wait(signal);
        assert!(out.status.success(), "signal {signal}: {out:?}");
        assert!(!repo.socket().exists(), "socket left behind");
        assert!(!repo.pid_file().exists(), "pid file left behind");
        // The database was closed cleanly: no WAL left to replay.
        let wal = repo.wit_dir().join("state.db-wal");
        assert!(!wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0);
    }
}

#[test]
fn stale_socket_and_pid_file_from_a_crash_are_cleaned_up() {
    let repo = TempRepo::new();
    let mut d = Daemon::start(repo.path());
    d.crash();
    assert!(
        repo.socket().exists() && repo.pid_file().exists(),
        "a crash leaves both"
    );
    assert!(!ping(&repo.socket()));
    let d2 = Daemon::start(repo.path());
    let pid: u32 = std::fs::read_to_string(repo.pid_file())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(pid, d2.pid());
    drop(d2);

    // Leftovers that were never a live daemon: a plain file as the socket, a bogus pid.
    let repo = TempRepo::new();
    std::fs::create_dir(repo.wit_dir()).unwrap();
    std::fs::write(repo.socket(), "stale").unwrap();
    std::fs::write(repo.pid_file(), "999999\n").unwrap();
    let d3 = Daemon::start(repo.path());
    assert!(
        std::fs::metadata(repo.socket())
            .unwrap()
            .file_type()
            .is_socket()
    );
    let pid: u32 = std::fs::read_to_string(repo.pid_file())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(pid, d3.pid());
}

#[test]
fn restart_keeps_intents_contracts_and_unexpired_locks() {
    let repo = TempRepo::new().with_file("src/auth.ts", AUTH_TS);
    let mut d = Daemon::start(repo.path());
    let mut c = d.client();
    let agent = c.ok("register", json!({"name": "a", "sessionId": "s1"}));
    let lock = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:decode", "sessionId": "s1"}),
    );
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:persist", "sessionId": "s1", "ttlMs": 200}),
    );
    let intent = c.ok(
        "intent.declare",
        json!({"sessionId": "s1", "description": "d", "files": ["src/auth.ts"], "symbols": ["decode"]}),
    );
    let contract = c.ok(
        "contract.propose",
        json!({"sessionId": "s1", "symbolPath": "src/auth.ts:decode"}),
    );
    c.ok(
        "contract.respond",
        json!({"contractId": contract["contractId"], "sessionId": "s2", "accept": true}),
    );
    let intents_before = c.ok("intent.query", json!({}));
    let contracts_before = c.ok("contract.query", json!({}));
    wait_until("the short lock to expire", Duration::from_secs(20), || {
        c.ok("lock.query", json!({})).as_array().unwrap().len() == 1
    });
    drop(c);
    assert!(d.signal_and_wait(libc::SIGTERM).status.success());

    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let locks = c.ok("lock.query", json!({}));
    assert_eq!(locks.as_array().unwrap().len(), 1, "{locks}");
    assert_eq!(locks[0]["symbolPath"], "src/auth.ts:decode");
    assert_eq!(locks[0]["expiresAt"], lock["expiresAt"]);
    assert_eq!(c.ok("intent.query", json!({})), intents_before);
    assert_eq!(
        c.ok("intent.query", json!({}))[0]["intentId"],
        intent["intentId"]
    );
    assert_eq!(c.ok("contract.query", json!({})), contracts_before);
    assert_eq!(
        c.ok("register", json!({"name": "a2", "sessionId": "s1"})),
        agent
    );
    let err = c.err(
        "lock.acquire",
        json!({"symbolPath": "src/auth.ts:decode", "sessionId": "s2"}),
    );
    assert_eq!(err["message"], "LOCK_CONFLICT");
}
