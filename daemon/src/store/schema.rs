//! Schema and forward migrations, versioned with `PRAGMA user_version`.

use rusqlite::Connection;

/// Migration `i` takes the schema from version `i` to `i + 1`. Append only.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE agents (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id    TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    registered_at INTEGER NOT NULL
);
CREATE TABLE locks (
    symbol_path TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    acquired_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX locks_by_session ON locks(session_id);
CREATE INDEX locks_by_expiry ON locks(expires_at);
CREATE TABLE intents (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    description TEXT NOT NULL,
    files       TEXT NOT NULL,
    symbols     TEXT NOT NULL,
    start_byte  INTEGER,
    end_byte    INTEGER,
    status      TEXT NOT NULL,
    declared_at INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX intents_by_session ON intents(session_id);
CREATE INDEX intents_by_status ON intents(status);
-- One row per (intent, file) with that file's own byte range, so that the `file` filter
-- and overlap checks are exact index lookups and ranges never mix across files.
CREATE TABLE intent_files (
    intent_id  TEXT NOT NULL REFERENCES intents(id) ON DELETE CASCADE,
    file       TEXT NOT NULL,
    start_byte INTEGER,
    end_byte   INTEGER,
    PRIMARY KEY (intent_id, file)
);
CREATE INDEX intent_files_by_file ON intent_files(file);
CREATE TABLE contracts (
    id                   TEXT PRIMARY KEY,
    proposer_session_id  TEXT NOT NULL,
    symbol_path          TEXT NOT NULL,
    file                 TEXT NOT NULL,
    signature            TEXT NOT NULL,
    status               TEXT NOT NULL,
    responder_session_id TEXT,
    proposed_at          INTEGER NOT NULL,
    responded_at         INTEGER
);
CREATE INDEX contracts_by_symbol ON contracts(symbol_path);
CREATE INDEX contracts_by_file_status ON contracts(file, status);
"#,
    r#"
-- Whether the intent is live (declared or active), copied onto its file rows: the overlap
-- check of every `intent.declare` looks up the live intents of a file, and without this it
-- walked every resolved and abandoned intent ever declared on that file.
ALTER TABLE intent_files ADD COLUMN live INTEGER NOT NULL DEFAULT 1;
UPDATE intent_files SET live = (SELECT i.status IN ('declared', 'active')
                                FROM intents i WHERE i.id = intent_files.intent_id);
CREATE INDEX intent_files_live_by_file ON intent_files(file, live);
"#,
    r#"
-- Contracts have a whole lifecycle: withdrawn (by the proposer, or recorded by anyone)
-- and superseded (a newer contract on the same symbol was accepted). Who, when, why.
ALTER TABLE contracts ADD COLUMN retired_by TEXT;
ALTER TABLE contracts ADD COLUMN retired_at INTEGER;
ALTER TABLE contracts ADD COLUMN retire_reason TEXT;
ALTER TABLE contracts ADD COLUMN superseded_by TEXT;
"#,
    r#"
-- The event log (events.poll): AUTOINCREMENT so that a sequence number is never reused,
-- even if old events are pruned one day.
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    at         INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    session_id TEXT,
    subject    TEXT NOT NULL,
    data       TEXT NOT NULL
);
"#,
    r#"
-- The audit log of releases not made by the holder itself (forced, expired, session
-- ended): nothing is released silently.
CREATE TABLE audit (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          INTEGER NOT NULL,
    action      TEXT NOT NULL,
    symbol_path TEXT NOT NULL,
    holder      TEXT NOT NULL,
    by_session  TEXT,
    reason      TEXT NOT NULL
);
CREATE INDEX audit_by_symbol ON audit(symbol_path, holder);
"#,
    r#"
-- session.heartbeat: when each heartbeating session last said it is alive.
CREATE TABLE heartbeats (
    session_id TEXT PRIMARY KEY,
    last_at    INTEGER NOT NULL
);
"#,
    r#"
-- File and glob leases (lease.*): `paths` is the JSON array of checked patterns.
CREATE TABLE leases (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    mode        TEXT NOT NULL,
    paths       TEXT NOT NULL,
    reason      TEXT,
    acquired_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX leases_by_expiry ON leases(expires_at);
CREATE INDEX leases_by_session ON leases(session_id);
-- Sessions that ended (session.end, or their heartbeats stopped): their intents can be
-- abandoned by another session.
CREATE TABLE ended_sessions (
    session_id TEXT PRIMARY KEY,
    ended_at   INTEGER NOT NULL,
    reason     TEXT NOT NULL
);
"#,
];

/// The schema version this build writes.
pub(crate) const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;

/// Connection settings: WAL, foreign keys, a busy timeout for outside readers.
pub(crate) fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(super::BUSY_TIMEOUT)?;
    Ok(())
}

/// Applies every migration newer than the database's `user_version`, each in its own
/// transaction together with the version bump.
pub(crate) fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > CURRENT_VERSION {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "state.db has schema version {version}, newer than this wit ({CURRENT_VERSION}); \
             upgrade wit or remove .wit/state.db"
        )));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}
