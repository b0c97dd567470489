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
-- A declare of many files writes one intent_files row per file, so each row's cost counts:
-- rows appended to a plain table (the files of one intent are distinct already), found by
-- intent (an index appended to in order) and by file for the overlap check and the `file`
-- filter (intent_files_live_by_file; intent_files_by_file was its prefix). The primary key
-- (intent_id, file) and its random-order inserts cost more than the rest together.
CREATE TABLE intent_files_plain (
    intent_id  TEXT NOT NULL REFERENCES intents(id) ON DELETE CASCADE,
    file       TEXT NOT NULL,
    start_byte INTEGER,
    end_byte   INTEGER,
    live       INTEGER NOT NULL DEFAULT 1
);
INSERT INTO intent_files_plain (intent_id, file, start_byte, end_byte, live)
    SELECT intent_id, file, start_byte, end_byte, live FROM intent_files;
DROP TABLE intent_files;
ALTER TABLE intent_files_plain RENAME TO intent_files;
CREATE INDEX intent_files_by_intent ON intent_files(intent_id);
CREATE INDEX intent_files_live_by_file ON intent_files(file, live);
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
    r#"
-- Which worktree each session works in (worktrees share this database): the one whose
-- daemon last took a lock, a lease or an intent for it.
CREATE TABLE session_worktrees (
    session_id TEXT PRIMARY KEY,
    worktree   TEXT NOT NULL,
    seen_at    INTEGER NOT NULL
);
"#,
    r#"
-- Cheaper rows for big declares (a 50,000-file intent is 50,000 rows): no foreign key
-- (intents are never deleted, and each child insert checked its parent by a seek on the
-- text key), and files found by an integer key (wit_key: FNV-1a of the path, see
-- `register_functions`) instead of a text index whose long shared prefixes made every
-- insert's seek compare strings. The (file_key, live) index serves every lookup by
-- file; the file itself is compared on the row.
CREATE TABLE intent_files_keyed (
    intent_id  TEXT NOT NULL,
    file       TEXT NOT NULL,
    file_key   INTEGER NOT NULL,
    start_byte INTEGER,
    end_byte   INTEGER,
    live       INTEGER NOT NULL DEFAULT 1
);
INSERT INTO intent_files_keyed (intent_id, file, file_key, start_byte, end_byte, live)
    SELECT intent_id, file, wit_key(file), start_byte, end_byte, live FROM intent_files;
DROP TABLE intent_files;
ALTER TABLE intent_files_keyed RENAME TO intent_files;
CREATE INDEX intent_files_by_intent ON intent_files(intent_id);
CREATE INDEX intent_files_by_key ON intent_files(file_key, live);
"#,
    r#"
-- One b-tree per declared file instead of three (the table, the text index by intent, the
-- index by key): the per-file rows are a WITHOUT ROWID table keyed by what the overlap
-- check seeks, (file_key, live), then the intent's integer number. A declare writes its
-- rows in key order, so each page it touches takes a run of them. Status changes find an
-- intent's rows through its own list of distinct files (`file_set`, JSON), so no index by
-- intent is kept. Intents get an explicit integer key (`seq`): VACUUM may renumber plain
-- rowids, and intent_files refers to it.
CREATE TABLE intents_numbered (
    seq         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    session_id  TEXT NOT NULL,
    description TEXT NOT NULL,
    files       TEXT NOT NULL,
    symbols     TEXT NOT NULL,
    start_byte  INTEGER,
    end_byte    INTEGER,
    status      TEXT NOT NULL,
    declared_at INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    file_set    TEXT NOT NULL DEFAULT '[]'
);
INSERT INTO intents_numbered (seq, id, session_id, description, files, symbols, start_byte,
                              end_byte, status, declared_at, updated_at, file_set)
    SELECT i.rowid, i.id, i.session_id, i.description, i.files, i.symbols, i.start_byte,
           i.end_byte, i.status, i.declared_at, i.updated_at,
           (SELECT json_group_array(d.file) FROM (SELECT DISTINCT f.file FROM intent_files f
                                                   WHERE f.intent_id = i.id) AS d)
    FROM intents i;
CREATE TABLE intent_files_numbered (
    file_key   INTEGER NOT NULL,
    live       INTEGER NOT NULL,
    intent_seq INTEGER NOT NULL,
    file       TEXT NOT NULL,
    start_byte INTEGER,
    end_byte   INTEGER,
    PRIMARY KEY (file_key, live, intent_seq, file)
) WITHOUT ROWID;
INSERT OR IGNORE INTO intent_files_numbered
    SELECT f.file_key, f.live, i.seq, f.file, f.start_byte, f.end_byte
    FROM intent_files f JOIN intents_numbered i ON i.id = f.intent_id;
DROP TABLE intent_files;
DROP TABLE intents;
ALTER TABLE intents_numbered RENAME TO intents;
ALTER TABLE intent_files_numbered RENAME TO intent_files;
CREATE INDEX intents_by_session ON intents(session_id);
CREATE INDEX intents_by_status ON intents(status);
"#,
    // The path as a lock's holder, or a contract's proposer, named it (NULL: its
    // canonical path), for v1's answers.
    "ALTER TABLE locks ADD COLUMN spelling TEXT;\nALTER TABLE contracts ADD COLUMN spelling TEXT;",
    r#"
-- The conflict forecast (crate::forecast): the checkouts sharing this state, what each
-- changed against the merge bases the others need, and the forecasts between two.
CREATE TABLE checkouts (
    checkout TEXT PRIMARY KEY,
    branch   TEXT,
    head     TEXT,
    state    TEXT NOT NULL,
    version  INTEGER NOT NULL,
    seen_at  INTEGER NOT NULL
);
CREATE TABLE checkout_changes (
    checkout TEXT NOT NULL,
    base     TEXT NOT NULL,
    file     TEXT NOT NULL,
    change   TEXT NOT NULL,
    PRIMARY KEY (checkout, base, file)
);
CREATE TABLE forecast_pairs (
    a  TEXT NOT NULL,
    b  TEXT NOT NULL,
    va INTEGER NOT NULL,
    vb INTEGER NOT NULL,
    PRIMARY KEY (a, b)
);
CREATE TABLE forecasts (
    id    TEXT PRIMARY KEY,
    a     TEXT NOT NULL,
    b     TEXT NOT NULL,
    body  TEXT NOT NULL,
    since INTEGER NOT NULL
);
CREATE INDEX forecasts_by_pair ON forecasts(a, b);
"#,
    r#"
-- Claims (crate::claims): who changed which definition of a checkout, uncommitted. One
-- row per (checkout, file, definition, session); `body` is the claim as JSON
-- (wit_forecast::claims::Claim). The session is '' for a change no agent's hook
-- announced. Collisions between two sessions of one checkout, kept like the forecasts
-- between checkouts (`body` is a wit_forecast::Forecast).
CREATE TABLE claims (
    checkout   TEXT NOT NULL,
    file       TEXT NOT NULL,
    def_key    TEXT NOT NULL,
    session_id TEXT NOT NULL,
    since      INTEGER NOT NULL,
    edited_at  INTEGER NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (checkout, file, def_key, session_id)
);
CREATE INDEX claims_by_session ON claims(session_id);
CREATE INDEX claims_by_edit ON claims(edited_at);
CREATE TABLE collisions (
    id       TEXT PRIMARY KEY,
    checkout TEXT NOT NULL,
    body     TEXT NOT NULL,
    since    INTEGER NOT NULL
);
CREATE INDEX collisions_by_checkout ON collisions(checkout);
"#,
    // The files of a pair git's line merge would stop on and wit's installed merge driver
    // merges (a JSON list of wit_forecast::DriverMerge; NULL: none), shown by
    // `wit conflicts`.
    "ALTER TABLE forecast_pairs ADD COLUMN notes TEXT;",
    r#"
-- One row: bumped by every commit that may matter to a waiter (store::batch), and by no
-- heartbeat. The other daemons on this database read it when they see a commit
-- (crate::others), and wake their waiters only when it moved.
CREATE TABLE wakes (n INTEGER NOT NULL);
INSERT INTO wakes VALUES (0);
"#,
];

/// SQLite's automatic checkpoint threshold (its default), restored after a heavy write
/// (see `store::batch`).
pub(crate) const AUTOCHECKPOINT_PAGES: i64 = 1000;

/// The schema version this build writes.
pub(crate) const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;

/// `wit_key(path)`: the 64-bit FNV-1a hash of a path as a signed integer, the key of
/// `intent_files` lookups (collisions only cost a comparison of the path itself, which
/// every lookup makes). Deterministic, so SQLite may use it in indexed expressions.
pub(crate) fn register_functions(conn: &Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        "wit_key",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let path = ctx.get_raw(0).as_str().unwrap_or_default();
            Ok(file_key(path))
        },
    )
}

/// The value of `wit_key(path)`.
pub(crate) fn file_key(path: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.as_bytes() {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash as i64
}

/// Connection settings: WAL, foreign keys, a busy timeout for outside readers.
pub(crate) fn configure(conn: &Connection) -> rusqlite::Result<()> {
    register_functions(conn)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(super::BUSY_TIMEOUT)?;
    conn.pragma_update(None, "cache_size", -CACHE_KIB)?;
    Ok(())
}

/// The connection's page cache, KiB, between heavy writes: SQLite's default. The cache
/// keeps every page a write appends (events, audit records) until it is full, so a
/// larger one made a daemon serving 100,000 lock cycles grow by the size of the rows
/// written, up to the cap, and stay there.
pub(crate) const CACHE_KIB: i64 = 2_048;

/// The page cache, KiB, for the length of a heavy batch (`store::batch`): a declare of
/// 50,000 files touches about 10 MiB of pages, which with the default cache spill to the
/// WAL mid-transaction and are read back. Set back to [`CACHE_KIB`] after the commit,
/// which frees the pages beyond it.
pub(crate) const HEAVY_CACHE_KIB: i64 = 32_768;

/// Applies every migration newer than the database's `user_version`, each in its own
/// transaction together with the version bump.
pub(crate) fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    register_functions(conn)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_intent_files_migrations_keep_every_row() {
        // Rows written by schema 9 (plain per-file rows), carried through the integer key
        // (10) and the numbered WITHOUT ROWID table (11).
        let mut conn = Connection::open_in_memory().unwrap();
        register_functions(&conn).unwrap();
        let before = 9;
        for sql in &MIGRATIONS[..before] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", before as i64)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO intents VALUES ('i0', 's', 'd', ',z,', '[]', NULL, NULL, 'declared', 1, 1);
             INSERT INTO intents VALUES ('i1', 's', 'd', ',a,b,a,', '[]', NULL, NULL, 'resolved', 2, 2);
             INSERT INTO intent_files (intent_id, file, start_byte, end_byte, live)
                 VALUES ('i1', 'a', 1, 5, 0), ('i1', 'b', NULL, NULL, 0), ('i0', 'z', NULL, NULL, 1);",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        type Row = (String, String, i64, Option<i64>, Option<i64>, i64);
        let rows: Vec<Row> = conn
            .prepare(
                "SELECT i.id, f.file, f.file_key, f.start_byte, f.end_byte, f.live
                 FROM intent_files f JOIN intents i ON i.seq = f.intent_seq ORDER BY f.file",
            )
            .unwrap()
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            rows,
            [
                ("i1".into(), "a".into(), file_key("a"), Some(1), Some(5), 0),
                ("i1".into(), "b".into(), file_key("b"), None, None, 0),
                ("i0".into(), "z".into(), file_key("z"), None, None, 1),
            ]
        );
        let sets: Vec<(String, i64, String)> = conn
            .prepare("SELECT id, seq, file_set FROM intents ORDER BY seq")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            sets,
            [
                ("i0".into(), 1, r#"["z"]"#.into()),
                ("i1".into(), 2, r#"["a","b"]"#.into())
            ]
        );
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, CURRENT_VERSION);
    }
}
