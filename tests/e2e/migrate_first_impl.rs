//! Moving over from the first (TypeScript) implementation: a repository left exactly as it
//! leaves one (its drizzle schema and rows in `.wit/state.db`, its `bun` hooks in
//! `.git/hooks`) is imported when the real CLI auto-starts the daemon, its hooks are
//! replaced by `wit hook install`, and a daemon that fails at start says why.

use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::CliRepo;
use crate::support::client::Client;
use crate::support::repo::AUTH_TS;

/// The first implementation's schema (its published migrations) and rows as it writes them.
const SCHEMA: &str = include_str!("fixtures/first_impl/schema.sql");
const ROWS: &str = include_str!("fixtures/first_impl/rows.sql");
const PRE_COMMIT: &str = include_str!("fixtures/first_impl/pre-commit");
const PREPARE_COMMIT_MSG: &str = include_str!("fixtures/first_impl/prepare-commit-msg");

/// The fixture's ids.
const ACTIVE_INTENT: &str = "0b7c6a52-3f1e-4c47-9a55-1d2f8e6b9c01";
const DECLARED_INTENT: &str = "5d9e2f10-8a4b-4e6c-b1d3-7f0a2c4e6b02";
const RESOLVED_INTENT: &str = "9a1b3c5d-7e9f-4a2b-8c4d-6e8f0a2b4c03";
const ACCEPTED_CONTRACT: &str = "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e04";
const PROPOSED_CONTRACT: &str = "d4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f05";

const A: Option<&str> = Some("agent-a");

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// Writes `content` at `path`, created with `mode` (not subject to a later chmod).
fn create(path: &Path, content: &[u8], mode: u32) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .unwrap();
    f.write_all(content).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A committed repository with `.wit/` (0700, git-ignored) as the first implementation
/// leaves it: `state.db` in WAL mode with its schema and the fixture rows (the last rows
/// only in the WAL, as a daemon killed without a checkpoint leaves them), and its hooks.
fn first_impl_repo() -> CliRepo {
    let r = CliRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r.write(".gitignore", ".wit/\n");
    r.git(&["add", "."]);
    r.git(&["commit", "-q", "-m", "initial"]);

    let wit = r.path().join(".wit");
    std::fs::create_dir(&wit).unwrap();
    std::fs::set_permissions(&wit, std::fs::Permissions::from_mode(0o700)).unwrap();
    create(&wit.join("state.db"), b"", 0o600);
    let db = rusqlite::Connection::open(wit.join("state.db")).unwrap();
    db.pragma_update(None, "journal_mode", "WAL").unwrap();
    db.execute_batch(SCHEMA).unwrap();
    db.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    db.execute_batch(ROWS).unwrap();
    // Leave the rows in the WAL: forgetting the connection skips the checkpoint that
    // closing it would make; the process ends with the test anyway.
    std::mem::forget(db);
    assert!(std::fs::metadata(wit.join("state.db-wal")).unwrap().len() > 0);
    create(&wit.join("session.id"), b"agent-a\n", 0o600);

    let hooks = r.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    create(&hooks.join("pre-commit"), PRE_COMMIT.as_bytes(), 0o755);
    create(
        &hooks.join("prepare-commit-msg"),
        PREPARE_COMMIT_MSG.as_bytes(),
        0o755,
    );
    r
}

fn ids(list: &Value, key: &str) -> Vec<String> {
    let mut ids: Vec<String> = list
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|x| x[key].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

fn backups(r: &CliRepo) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(r.path().join(".wit"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("wit-ts-backup"))
        .collect();
    names.sort();
    names
}

#[test]
fn the_first_implementations_state_is_imported_when_wit_starts_the_daemon() {
    let r = first_impl_repo();

    // `wit status` auto-starts the daemon, which imports, and says so once.
    let status = r.wit(A, &["status", "--json"]).ok();
    assert!(
        status.stderr.contains(wit_daemon::IMPORT_NOTE)
            && status.stderr.contains(".wit/state.db.wit-ts-backup"),
        "{status:#?}"
    );
    assert!(
        status.stderr.contains(
            "intents 3, locks 1 (1 expired, dropped), contracts 2, agents 2; the old database"
        ),
        "{status:#?}"
    );
    let again = r.wit(A, &["status", "--json"]).ok();
    assert!(
        !again.stderr.contains(wit_daemon::IMPORT_NOTE),
        "{again:#?}"
    );

    // The records, with their ids.
    let live = r.wit(A, &["intent", "list", "--json"]).ok().json();
    assert_eq!(ids(&live, "intentId"), [ACTIVE_INTENT, DECLARED_INTENT]);
    let all = r.wit(A, &["intent", "list", "--all", "--json"]).ok().json();
    assert_eq!(
        ids(&all, "intentId"),
        [ACTIVE_INTENT, DECLARED_INTENT, RESOLVED_INTENT]
    );
    let active = all
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["intentId"] == ACTIVE_INTENT)
        .unwrap();
    assert_eq!(active["sessionId"], "agent-a");
    assert_eq!(active["status"], "active");
    assert_eq!(active["files"], ",src/auth.ts,");
    assert_eq!(active["declaredAt"], 1_774_500_300_000_i64);

    let mut c = Client::connect(&r.path().join(".wit/daemon.sock")).unwrap();
    let locks = c.ok("lock.query", json!({}));
    assert_eq!(ids(&locks, "symbolPath"), ["src/auth.ts:validateToken"]);
    assert_eq!(locks[0]["sessionId"], "agent-a");
    // Stored as Unix ms by both implementations; ours answers ISO 8601 with milliseconds.
    assert_eq!(locks[0]["acquiredAt"], "2026-03-26T04:43:20.000Z");
    assert_eq!(locks[0]["expiresAt"], "2100-01-01T00:00:00.000Z");
    let contracts = c.ok("contract.query", json!({}));
    assert_eq!(
        ids(&contracts, "contractId"),
        [ACCEPTED_CONTRACT, PROPOSED_CONTRACT]
    );
    let accepted = c.ok("contract.query", json!({"status": "accepted"}));
    assert_eq!(accepted[0]["responderSessionId"], "agent-b");
    assert_eq!(accepted[0]["proposedAt"], 1_774_500_600_000_i64);
    // An imported intent still conflicts like one declared here.
    let declared = c.ok(
        "intent.declare",
        json!({"sessionId": "agent-c", "description": "d", "files": ["src/api.ts"]}),
    );
    assert_eq!(
        declared["conflicts"]["items"][0]["overlappingIntentId"], DECLARED_INTENT,
        "{declared}"
    );
    let new_intent = declared["intentId"].as_str().unwrap().to_owned();

    // The backup: the old file, 0600, a regular file in .wit/; the log says so once.
    let backup = r.path().join(".wit/state.db.wit-ts-backup");
    assert!(std::fs::symlink_metadata(&backup).unwrap().is_file());
    assert_eq!(mode(&backup), 0o600);
    // Immutable: a plain read-only open of a WAL database would create -shm/-wal beside it.
    let old = rusqlite::Connection::open_with_flags(
        format!("file:{}?immutable=1", backup.display()),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )
    .unwrap();
    let migrations: i64 = old
        .query_row("SELECT COUNT(*) FROM __drizzle_migrations", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(migrations, 4);
    drop(old);
    let log = std::fs::read_to_string(r.path().join(".wit/daemon.log")).unwrap();
    assert_eq!(log.matches(wit_daemon::IMPORT_NOTE).count(), 1, "{log}");

    // A restart finds our schema: nothing is imported again, nothing is lost.
    r.wit(None, &["daemon", "stop"]).ok();
    let restarted = r.wit(A, &["intent", "list", "--json"]).ok();
    assert!(!restarted.stderr.contains(wit_daemon::IMPORT_NOTE));
    let mut expected = vec![
        ACTIVE_INTENT.to_owned(),
        DECLARED_INTENT.to_owned(),
        new_intent,
    ];
    expected.sort();
    assert_eq!(ids(&restarted.json(), "intentId"), expected);
    assert_eq!(backups(&r), ["state.db.wit-ts-backup"]);
}

#[test]
fn the_first_implementations_hooks_are_replaced_and_commits_work_without_bun() {
    let r = first_impl_repo();
    let install = r.wit(None, &["hook", "install", "--json"]).ok();
    let report = install.json();
    for hook in report["hooks"].as_array().unwrap() {
        // The first implementation had no pre-push hook: that one is simply installed.
        let expected = if hook["hook"] == "pre-push" {
            "installed"
        } else {
            "replaced (a hook of the first wit implementation)"
        };
        assert_eq!(hook["action"], expected, "{report}");
    }
    let hooks = r.path().join(".git/hooks");
    for name in ["pre-commit", "prepare-commit-msg"] {
        let text = std::fs::read_to_string(hooks.join(name)).unwrap();
        assert!(!text.contains("bun"), "{name}: {text}");
        assert!(!hooks.join(format!("{name}.pre-wit")).exists(), "chained");
    }

    // The hooks never start a daemon; any wit command does (and imports the state).
    r.wit(A, &["status"]).ok();
    // A commit runs wit's hooks (no bun anywhere): the imported active intent of agent-a
    // becomes a trailer, and the imported accepted contract is enforced.
    r.write("src/auth.ts", &format!("{AUTH_TS}\n// a comment\n"));
    r.git(&["add", "src/auth.ts"]);
    let commit = r.git_run(&["commit", "-q", "-m", "comment"], A);
    assert_eq!(commit.code, 0, "{commit:#?}");
    let message = r.git(&["log", "-1", "--format=%B"]);
    assert!(
        message.contains(&format!("Wit-Intent: {ACTIVE_INTENT}")),
        "{message}"
    );

    let broken = AUTH_TS.replace(
        "validateToken(token: string): Promise<User | null>",
        "validateToken(token: string, now: number): Promise<User | null>",
    );
    r.write("src/auth.ts", &broken);
    r.git(&["add", "src/auth.ts"]);
    let refused = r.git_run(&["commit", "-q", "-m", "break"], A);
    assert_ne!(refused.code, 0, "{refused:#?}");
    assert!(refused.stderr.contains("validateToken"), "{refused:#?}");
}

#[test]
fn a_daemon_failing_at_start_leaves_its_reason_in_the_log_and_wit_status_prints_it() {
    let r = CliRepo::new();
    let wit = r.path().join(".wit");
    std::fs::create_dir(&wit).unwrap();
    std::fs::set_permissions(&wit, std::fs::Permissions::from_mode(0o700)).unwrap();
    create(
        &wit.join("state.db"),
        b"this is not an SQLite database, not even close; garbage bytes \x00\x01\x02\xff",
        0o600,
    );

    let status = r.wit(A, &["status"]).code(4);
    assert!(
        status.stderr.contains("the daemon exited")
            && status.stderr.contains("file is not a database"),
        "{status:#?}"
    );
    let log = std::fs::read_to_string(wit.join("daemon.log")).unwrap();
    assert!(
        log.contains("wit daemon failed") && log.contains("file is not a database"),
        "{log}"
    );
    // The database was not touched or moved aside.
    assert!(backups(&r).is_empty());
    assert!(
        std::fs::read(wit.join("state.db"))
            .unwrap()
            .starts_with(b"this is not an SQLite database")
    );
}
