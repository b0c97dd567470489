//! Importing the state the first (TypeScript) wit implementation left in `.wit/state.db`.
//!
//! That implementation kept its state in the same file under a drizzle schema: a
//! `__drizzle_migrations` table, `agents` (with `connected_at`), `locks`, `intents`,
//! `contracts` and `symbol_deps`, and no `PRAGMA user_version`. Our migrations would fail
//! on it (`table agents already exists`), so before the store opens, [`import_if_needed`]
//! recognises it and moves it aside:
//!
//! 1. checkpoint its WAL (so the main file holds every row) and close it;
//! 2. copy it byte for byte to a new file created 0600 through the boundary, fsync it, and
//!    link it to the first free backup name (`state.db.wit-ts-backup`, then `….2`, …;
//!    linking never replaces an existing file, so no earlier backup is ever overwritten);
//! 3. build our schema in a new file (`state.db.wit-import`) from the rows read back from the
//!    backup (opened read-only and immutable), in one transaction, and fsync it;
//! 4. rename it over `state.db`.
//!
//! A crash before step 4 leaves the old `state.db` untouched (the next start imports again;
//! at worst a second backup name is used); a crash after it leaves the imported database.
//! Once imported, `state.db` carries our `user_version`, so the import never runs twice.
//!
//! Formats: ids, session ids and statuses are kept as they are. The first implementation's
//! `timestamp_ms` columns are Unix milliseconds, as ours; `agents.connected_at` is a drizzle
//! `timestamp`, Unix seconds, and becomes milliseconds. Expired locks are dropped (they
//! count as absent anyway). `symbol_deps` is a cache of call edges and is not imported.

use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};
use wit_boundary::WitDir;
use wit_boundary::witdir::{Access, WitDirError};

/// The words that start the one log line an import writes (the CLI looks for them in the
/// log of a daemon it started, to tell the user once).
pub const IMPORT_NOTE: &str = "imported the state of the first wit implementation";

/// The database's name in `.wit/`.
const DB: &str = "state.db";
/// The first backup name; later ones get `.2`, `.3`, ….
const BACKUP: &str = "state.db.wit-ts-backup";
/// The backup while it is being copied (never a backup name before it is complete).
const BACKUP_PARTIAL: &str = "state.db.wit-ts-backup.partial";
/// Our database while it is being built.
const IMPORTING: &str = "state.db.wit-import";
/// How many backup names are tried before giving up.
const MAX_BACKUPS: u32 = 100;

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Imported {
    /// Where the old database now is.
    pub backup: PathBuf,
    pub agents: usize,
    pub intents: usize,
    /// Unexpired locks imported.
    pub locks: usize,
    /// Expired locks left out.
    pub expired_locks: usize,
    pub contracts: usize,
    /// Rows whose values could not be read as the first implementation writes them (kept
    /// in the backup only).
    pub skipped: usize,
}

impl Imported {
    /// The one line logged about the import (it starts with [`IMPORT_NOTE`]).
    pub fn note(&self) -> String {
        let skipped = if self.skipped > 0 {
            format!(", unreadable rows left out {}", self.skipped)
        } else {
            String::new()
        };
        format!(
            "{IMPORT_NOTE} (its .wit/state.db): intents {}, locks {} ({} expired, dropped), \
             contracts {}, agents {}{skipped}; the old database is kept as {}",
            self.intents,
            self.locks,
            self.expired_locks,
            self.contracts,
            self.agents,
            self.backup.display()
        )
    }
}

/// Why the first implementation's database could not be imported. The old `state.db` is
/// unchanged whenever this is returned.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ImportError {
    /// A file in `.wit/` was refused or could not be opened.
    #[error(transparent)]
    Boundary(#[from] WitDirError),
    /// `state.db` could not be read to tell which schema it has (it may not be a database
    /// at all); nothing was imported and this is not about the first implementation.
    #[error(transparent)]
    Unreadable(rusqlite::Error),
    /// SQLite failed.
    #[error("{context}: {source}")]
    Sqlite {
        context: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// A file operation failed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
    /// Another process has the old database open with unsaved changes.
    #[error(
        "another process still writes to it ({what}); stop the first wit implementation's \
         daemon (or whatever has the file open) and run wit again"
    )]
    InUse { what: String },
}

impl ImportError {
    fn sqlite(context: &'static str) -> impl FnOnce(rusqlite::Error) -> Self {
        move |source| ImportError::Sqlite { context, source }
    }

    fn io(context: impl Into<String>) -> impl FnOnce(io::Error) -> Self {
        let context = context.into();
        move |source| ImportError::Io { context, source }
    }
}

/// Imports `.wit/state.db` when it holds the first implementation's schema (see the module
/// doc); `Ok(None)` when it does not (ours, or new and empty). `now_ms` decides which locks
/// have expired. The file must exist and have been checked as ours.
pub(crate) fn import_if_needed(wit: &WitDir, now_ms: i64) -> Result<Option<Imported>, ImportError> {
    let db_path = wit.file(DB);
    if !is_first_impl(&db_path)? {
        return Ok(None);
    }
    check_no_pending_changes(wit)?;
    let backup = write_backup(wit)?;
    let imported = build_from(wit, &backup, now_ms)?;
    // The old database's companions: its WAL was emptied by the checkpoint and `-shm` only
    // indexes it; left beside the new `state.db`, SQLite would take them for its own.
    for companion in ["state.db-wal", "state.db-shm"] {
        wit.remove(companion)?;
    }
    std::fs::rename(wit.file(IMPORTING), &db_path)
        .map_err(ImportError::io(format!("renaming {IMPORTING} to {DB}")))?;
    sync_dir(wit)?;
    Ok(Some(imported))
}

/// Whether the database at `path` has the first implementation's schema. Checkpoints its
/// WAL on the way, so that afterwards the main file holds every committed row.
fn is_first_impl(path: &Path) -> Result<bool, ImportError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let conn = Connection::open_with_flags(path, flags).map_err(ImportError::Unreadable)?;
    conn.busy_timeout(super::BUSY_TIMEOUT)
        .map_err(ImportError::Unreadable)?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(ImportError::Unreadable)?;
    // Our schema always sets user_version (in the transaction that creates it), the first
    // implementation never did.
    if version != 0 {
        return Ok(false);
    }
    let old: bool = conn
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master
                            WHERE type = 'table' AND name = '__drizzle_migrations')
                 OR EXISTS (SELECT 1 FROM pragma_table_info('agents')
                            WHERE name = 'connected_at')",
            [],
            |r| r.get(0),
        )
        .map_err(ImportError::Unreadable)?;
    if !old {
        return Ok(false);
    }
    // (busy, WAL frames, frames checkpointed); busy means another connection kept the
    // checkpoint from finishing, so some rows may still be only in the WAL.
    let (busy, _, _): (i64, i64, i64) = conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .map_err(ImportError::sqlite("checkpointing .wit/state.db"))?;
    if busy != 0 {
        return Err(ImportError::InUse {
            what: "its write-ahead log could not be checkpointed".into(),
        });
    }
    conn.close()
        .map_err(|(_, e)| ImportError::sqlite("closing .wit/state.db")(e))?;
    Ok(true)
}

/// After the checkpoint, neither a WAL nor a rollback journal may hold anything: the copy
/// of the main file is then the whole database.
fn check_no_pending_changes(wit: &WitDir) -> Result<(), ImportError> {
    for companion in ["state.db-wal", "state.db-journal"] {
        match std::fs::symlink_metadata(wit.file(companion)) {
            Ok(meta) if meta.len() > 0 => {
                return Err(ImportError::InUse {
                    what: format!("{companion} is not empty"),
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(ImportError::io(companion)(e)),
        }
    }
    Ok(())
}

/// Copies `state.db` to the first free backup name; returns its path.
fn write_backup(wit: &WitDir) -> Result<PathBuf, ImportError> {
    // A partial copy is what a crash during an earlier attempt left: never a backup yet.
    wit.remove(BACKUP_PARTIAL)?;
    let mut from = wit.open(DB, Access::Read)?;
    let mut to = wit.open(BACKUP_PARTIAL, Access::CreateNew)?;
    io::copy(&mut from, &mut to)
        .map_err(ImportError::io(format!("copying {DB} to {BACKUP_PARTIAL}")))?;
    to.sync_all()
        .map_err(ImportError::io(format!("writing {BACKUP_PARTIAL}")))?;
    drop(to);
    let mut chosen = None;
    for n in 1..=MAX_BACKUPS {
        let name = if n == 1 {
            BACKUP.to_owned()
        } else {
            format!("{BACKUP}.{n}")
        };
        // A hard link fails when the name exists (even as a symlink, which is not
        // followed): an earlier backup is never replaced.
        match std::fs::hard_link(wit.file(BACKUP_PARTIAL), wit.file(&name)) {
            Ok(()) => {
                chosen = Some(wit.file(&name));
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(ImportError::io(format!(
                    "linking {BACKUP_PARTIAL} to {name}"
                ))(e));
            }
        }
    }
    let chosen = chosen.ok_or_else(|| ImportError::Io {
        context: format!("choosing a backup name ({BACKUP} … {BACKUP}.{MAX_BACKUPS} all exist)"),
        source: io::Error::from(io::ErrorKind::AlreadyExists),
    })?;
    wit.remove(BACKUP_PARTIAL)?;
    sync_dir(wit)?;
    Ok(chosen)
}

/// Builds our schema in `.wit/state.db.wit-import` from the rows of `backup`.
fn build_from(wit: &WitDir, backup: &Path, now_ms: i64) -> Result<Imported, ImportError> {
    for leftover in [IMPORTING, "state.db.wit-import-journal"] {
        wit.remove(leftover)?;
    }
    // Created through the boundary (0600, exclusive); SQLite gives its journal that mode.
    drop(wit.open(IMPORTING, Access::CreateNew)?);
    let old = open_immutable(backup)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let mut new = Connection::open_with_flags(wit.file(IMPORTING), flags)
        .map_err(ImportError::sqlite("creating the new state database"))?;
    super::schema::migrate(&mut new).map_err(ImportError::sqlite("creating the new schema"))?;
    let tx = new
        .transaction()
        .map_err(ImportError::sqlite("writing the new state database"))?;
    let mut imported = copy_rows(&old, &tx, now_ms).map_err(ImportError::sqlite(
        "copying the first implementation's rows",
    ))?;
    imported.backup = backup.to_owned();
    tx.commit()
        .map_err(ImportError::sqlite("writing the new state database"))?;
    new.close()
        .map_err(|(_, e)| ImportError::sqlite("closing the new state database")(e))?;
    wit.open(IMPORTING, Access::Read)?
        .sync_all()
        .map_err(ImportError::io(format!("writing {IMPORTING}")))?;
    Ok(imported)
}

/// Opens the backup read-only and immutable: nothing is written beside it (no `-shm`, no
/// `-wal`; its WAL was checkpointed before the copy) and it is never changed.
fn open_immutable(path: &Path) -> Result<Connection, ImportError> {
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    Connection::open_with_flags(&uri, flags).map_err(ImportError::sqlite("opening the backup"))
}

/// Whether `table` exists in `conn` (an older first-implementation database may lack the
/// tables of later migrations).
fn has_table(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [table],
        |r| r.get(0),
    )
}

/// Every row of `sql` in `conn` as plain values (none when `table` is missing).
fn rows(conn: &Connection, table: &str, sql: &str) -> rusqlite::Result<Vec<Vec<Value>>> {
    if !has_table(conn, table)? {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(sql)?;
    let n = stmt.column_count();
    stmt.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())?
        .collect()
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Text(s) => Some(s.clone()),
        _ => None,
    }
}

fn opt_int(v: &Value) -> Option<Option<i64>> {
    match v {
        Value::Null => Some(None),
        Value::Integer(i) => Some(Some(*i)),
        _ => None,
    }
}

/// A timestamp in Unix milliseconds from a value stored in units of `unit_ms` ms (drizzle
/// writes integers; a REAL is accepted too).
fn millis(v: &Value, unit_ms: i64) -> Option<i64> {
    match v {
        Value::Integer(i) => i.checked_mul(unit_ms),
        #[allow(clippy::cast_possible_truncation)]
        Value::Real(f) if f.is_finite() => Some((f * unit_ms as f64) as i64),
        _ => None,
    }
}

fn opt_millis(v: &Value) -> Option<Option<i64>> {
    match v {
        Value::Null => Some(None),
        other => millis(other, 1).map(Some),
    }
}

/// Copies what our schema keeps from `old` into `new`; counts what it did.
fn copy_rows(old: &Connection, new: &Connection, now_ms: i64) -> rusqlite::Result<Imported> {
    let mut done = Imported {
        backup: PathBuf::new(),
        agents: 0,
        intents: 0,
        locks: 0,
        expired_locks: 0,
        contracts: 0,
        skipped: 0,
    };
    for r in rows(
        old,
        "agents",
        "SELECT id, name, session_id, connected_at FROM agents",
    )? {
        // connected_at: drizzle `timestamp` mode, Unix seconds.
        let row = (
            opt_int(&r[0]).flatten(),
            text(&r[1]),
            text(&r[2]),
            millis(&r[3], 1000),
        );
        let (inserted, ok) = match row {
            (Some(id), Some(name), Some(session), Some(at)) => (
                new.prepare_cached(
                    "INSERT OR IGNORE INTO agents (id, session_id, name, registered_at)
                     VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute((id, session, name, at))?,
                true,
            ),
            _ => (0, false),
        };
        counted(ok, inserted, &mut done.agents, &mut done.skipped);
    }

    for r in rows(
        old,
        "locks",
        "SELECT symbol_path, session_id, acquired_at, expires_at FROM locks",
    )? {
        let row = (text(&r[0]), text(&r[1]), millis(&r[2], 1), millis(&r[3], 1));
        let (inserted, ok) = match row {
            (Some(_), Some(_), Some(_), Some(expires)) if expires <= now_ms => {
                done.expired_locks += 1;
                continue;
            }
            (Some(path), Some(session), Some(acquired), Some(expires)) if path.contains(':') => (
                new.prepare_cached(
                    "INSERT OR IGNORE INTO locks (symbol_path, session_id, acquired_at, expires_at)
                     VALUES (?1, ?2, ?3, ?4)",
                )?
                .execute((path, session, acquired, expires))?,
                true,
            ),
            _ => (0, false),
        };
        counted(ok, inserted, &mut done.locks, &mut done.skipped);
    }

    for r in rows(
        old,
        "intents",
        "SELECT id, session_id, description, files, symbols, start_byte, end_byte, status,
                declared_at, updated_at FROM intents",
    )? {
        let (inserted, ok) = match import_intent(new, &r)? {
            Some(inserted) => (inserted, true),
            None => (0, false),
        };
        counted(ok, inserted, &mut done.intents, &mut done.skipped);
    }

    for r in rows(
        old,
        "contracts",
        "SELECT id, proposer_session_id, symbol_path, signature, status, responder_session_id,
                proposed_at, responded_at FROM contracts",
    )? {
        let responder = match &r[5] {
            Value::Null => Some(None),
            Value::Text(s) => Some(Some(s.clone())),
            _ => None,
        };
        let row = (
            text(&r[0]),
            text(&r[1]),
            text(&r[2]),
            text(&r[3]),
            text(&r[4]).filter(|s| ["proposed", "accepted", "rejected"].contains(&s.as_str())),
            responder,
            millis(&r[6], 1),
            opt_millis(&r[7]),
        );
        let (inserted, ok) = match row {
            (
                Some(id),
                Some(proposer),
                Some(path),
                Some(signature),
                Some(status),
                Some(responder),
                Some(proposed),
                Some(responded),
            ) => match path.split_once(':') {
                Some((file, _)) => (
                    new.prepare_cached(
                        "INSERT OR IGNORE INTO contracts (id, proposer_session_id, symbol_path,
                             file, signature, status, responder_session_id, proposed_at,
                             responded_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    )?
                    .execute((
                        &id, proposer, &path, file, signature, status, responder, proposed,
                        responded,
                    ))?,
                    true,
                ),
                None => (0, false),
            },
            _ => (0, false),
        };
        counted(ok, inserted, &mut done.contracts, &mut done.skipped);
    }
    Ok(done)
}

/// Counts one row: imported, or skipped when its values were unreadable (`!ok`) or it was
/// a duplicate (rows are inserted with OR IGNORE: the first implementation's unique keys
/// are ours, so a database it wrote has none, and one that does keeps its first row).
fn counted(ok: bool, inserted: usize, count: &mut usize, skipped: &mut usize) {
    if ok && inserted == 1 {
        *count += 1;
    } else {
        *skipped += 1;
    }
}

/// Imports one intent row with its per-file rows; `None` when a value is not what the first
/// implementation writes, else how many intents were inserted (0: duplicate id).
fn import_intent(new: &Connection, r: &[Value]) -> rusqlite::Result<Option<usize>> {
    let status = text(&r[7])
        .filter(|s| ["declared", "active", "resolved", "abandoned"].contains(&s.as_str()));
    let (
        Some(id),
        Some(session),
        Some(description),
        Some(files),
        Some(symbols),
        Some(start),
        Some(end),
        Some(status),
        Some(declared),
        Some(updated),
    ) = (
        text(&r[0]),
        text(&r[1]),
        text(&r[2]),
        text(&r[3]),
        text(&r[4]),
        opt_int(&r[5]),
        opt_int(&r[6]),
        status,
        millis(&r[8], 1),
        millis(&r[9], 1),
    )
    else {
        return Ok(None);
    };
    let list: Vec<&str> = files.split(',').filter(|f| !f.is_empty()).collect();
    if list.is_empty() {
        return Ok(None);
    }
    // Our canonical form, whatever separators the old row had at its ends.
    let files_text = format!(",{},", list.join(","));
    // One row per distinct file; `file_set` lists them (see the schema).
    let mut seen = std::collections::HashSet::new();
    let distinct: Vec<&str> = list.into_iter().filter(|f| seen.insert(*f)).collect();
    let file_set = serde_json::to_string(&distinct).unwrap_or_else(|_| "[]".to_owned());
    let inserted = new
        .prepare_cached(
            "INSERT OR IGNORE INTO intents (id, session_id, description, files, symbols,
                 start_byte, end_byte, status, declared_at, updated_at, file_set)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute((
            &id,
            session,
            description,
            files_text,
            symbols,
            start,
            end,
            &status,
            declared,
            updated,
            &file_set,
        ))?;
    if inserted == 0 {
        return Ok(Some(0));
    }
    let seq = new.last_insert_rowid();
    // The first implementation kept one range for the whole intent (the union over its
    // files) and compared it on every shared file; giving each file that range keeps
    // exactly the conflicts it reported (ours are per file: see intent_files).
    let range = start.zip(end);
    let live = status == "declared" || status == "active";
    let mut stmt = new.prepare_cached(
        "INSERT OR IGNORE INTO intent_files (file_key, live, intent_seq, file, start_byte, end_byte)
         VALUES (wit_key(?2), ?5, ?1, ?2, ?3, ?4)",
    )?;
    for file in distinct {
        stmt.execute((seq, file, range.map(|r| r.0), range.map(|r| r.1), live))?;
    }
    Ok(Some(1))
}

/// Makes the renames and links in `.wit/` durable.
fn sync_dir(wit: &WitDir) -> Result<(), ImportError> {
    File::open(wit.dir())
        .and_then(|d| d.sync_all())
        .map_err(ImportError::io(format!("syncing {}", wit.dir().display())))
}

impl From<ImportError> for crate::error::DaemonError {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::Boundary(e) => crate::error::DaemonError::Boundary(e),
            ImportError::Unreadable(e) => crate::error::DaemonError::Store(e),
            other => crate::error::DaemonError::io(
                "importing the first wit implementation's .wit/state.db (it is left unchanged)",
                io::Error::other(other.to_string()),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// The first implementation's schema, from its published migrations (shared with the
    /// e2e tests), and rows as it writes them.
    const SCHEMA: &str = include_str!("../../../tests/e2e/fixtures/first_impl/schema.sql");
    const ROWS: &str = include_str!("../../../tests/e2e/fixtures/first_impl/rows.sql");
    /// A moment between the fixture's two locks' expiries.
    const NOW: i64 = 1_774_600_000_000;

    fn wit_dir() -> (tempfile::TempDir, WitDir) {
        let root = tempfile::tempdir().unwrap();
        let wit = WitDir::new(root.path());
        wit.ensure().unwrap();
        (root, wit)
    }

    /// `.wit/state.db` as the first implementation leaves it (WAL mode, as it sets), with
    /// `extra` SQL run after the fixture rows. The returned connection is still open and
    /// never checkpointed, so the rows are in the WAL only: the import must checkpoint.
    fn first_impl_db(wit: &WitDir, extra: &str) -> Connection {
        drop(wit.open(DB, Access::CreateNew).unwrap());
        let conn = Connection::open(wit.database()).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        conn.execute_batch(ROWS).unwrap();
        conn.execute_batch(extra).unwrap();
        conn
    }

    fn count(conn: &Connection, sql: &str) -> i64 {
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn the_first_implementations_state_is_imported_with_its_ids_and_kept_as_a_backup() {
        let (_root, wit) = wit_dir();
        let writer = first_impl_db(&wit, "");
        assert!(
            std::fs::metadata(wit.file("state.db-wal")).unwrap().len() > 0,
            "the fixture's rows should be in the WAL"
        );

        let imported = import_if_needed(&wit, NOW).unwrap().expect("an import");
        assert_eq!(
            imported,
            Imported {
                backup: wit.file(BACKUP),
                agents: 2,
                intents: 3,
                locks: 1,
                expired_locks: 1,
                contracts: 2,
                skipped: 0,
            }
        );
        assert!(
            imported.note().starts_with(IMPORT_NOTE),
            "{}",
            imported.note()
        );
        drop(writer);

        // The backup: 0600, the old schema and every row (the WAL's included).
        let meta = std::fs::symlink_metadata(wit.file(BACKUP)).unwrap();
        assert!(meta.is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        let backup = open_immutable(&wit.file(BACKUP)).unwrap();
        assert_eq!(
            count(&backup, "SELECT COUNT(*) FROM __drizzle_migrations"),
            4
        );
        assert_eq!(count(&backup, "SELECT COUNT(*) FROM locks"), 2);
        for leftover in [
            BACKUP_PARTIAL,
            IMPORTING,
            "state.db-wal",
            "state.db-shm",
            "state.db.wit-ts-backup-wal",
            "state.db.wit-ts-backup-shm",
        ] {
            assert!(!wit.file(leftover).exists(), "{leftover} left behind");
        }

        // The new database: our schema, the ids and timestamps kept.
        let store = super::super::Store::open(&wit.database()).unwrap();
        store
            .with(|c| {
                assert_eq!(
                    count(c, "PRAGMA user_version"),
                    super::super::schema::CURRENT_VERSION
                );
                let agent: (i64, String, i64) = c.query_row(
                    "SELECT id, name, registered_at FROM agents WHERE session_id = 'agent-b'",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )?;
                // connected_at was in seconds.
                assert_eq!(agent, (7, "codex".to_owned(), 1_774_500_100_000));
                let locks = super::super::locks::list(c, None, NOW)?;
                assert_eq!(locks.len(), 1);
                assert_eq!(
                    (locks[0].symbol_path.as_str(), locks[0].session_id.as_str()),
                    ("src/auth.ts:validateToken", "agent-a")
                );
                assert_eq!(
                    (locks[0].acquired_at, locks[0].expires_at),
                    (1_774_500_200_000, 4_102_444_800_000)
                );
                let live = super::super::intents::query(c, None, None, None)?;
                let ids: Vec<&str> = live.iter().map(|i| i.intent_id.as_str()).collect();
                assert_eq!(
                    ids,
                    [
                        "0b7c6a52-3f1e-4c47-9a55-1d2f8e6b9c01",
                        "5d9e2f10-8a4b-4e6c-b1d3-7f0a2c4e6b02"
                    ]
                );
                let first = &live[0];
                assert_eq!(
                    (
                        first.start_byte,
                        first.end_byte,
                        first.declared_at,
                        first.updated_at
                    ),
                    (Some(10), Some(120), 1_774_500_300_000, 1_774_500_400_000)
                );
                assert_eq!(first.files, ",src/auth.ts,");
                assert_eq!(first.symbols, r#"["validateToken"]"#);
                // Per-file rows: the live ones are found on each of their files.
                let on = |file: &str| {
                    let ranges =
                        super::super::intents::FileRows::new(&[super::super::intents::FileRange {
                            file: file.into(),
                            range: None,
                        }]);
                    super::super::intents::overlapping_live_of_others(c, &ranges, "x")
                };
                let on_auth = on("src/auth.ts")?;
                assert_eq!(on_auth.len(), 2);
                let on_old = on("src/old.ts")?;
                assert!(on_old.is_empty(), "a resolved intent is not live");
                let contract =
                    super::super::contracts::get(c, "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e04")?
                        .expect("the accepted contract");
                assert_eq!(contract.responder_session_id.as_deref(), Some("agent-b"));
                assert_eq!(
                    (contract.proposed_at, contract.responded_at),
                    (1_774_500_600_000, Some(1_774_500_700_000))
                );
                let file: String = c.query_row(
                    "SELECT file FROM contracts WHERE id = 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e04'",
                    [],
                    |r| r.get(0),
                )?;
                assert_eq!(file, "src/auth.ts");
                Ok::<_, super::super::StoreError>(())
            })
            .unwrap();
    }

    #[test]
    fn an_imported_database_is_not_imported_again() {
        let (_root, wit) = wit_dir();
        drop(first_impl_db(&wit, ""));
        assert!(import_if_needed(&wit, NOW).unwrap().is_some());
        drop(super::super::Store::open(&wit.database()).unwrap());
        assert_eq!(import_if_needed(&wit, NOW).unwrap(), None);
        assert!(!wit.file(&format!("{BACKUP}.2")).exists());
    }

    #[test]
    fn a_new_or_current_database_is_left_alone() {
        let (_root, wit) = wit_dir();
        drop(wit.open(DB, Access::CreateNew).unwrap());
        assert_eq!(import_if_needed(&wit, NOW).unwrap(), None);
        drop(super::super::Store::open(&wit.database()).unwrap());
        assert_eq!(import_if_needed(&wit, NOW).unwrap(), None);
        assert!(!wit.file(BACKUP).exists());
    }

    /// A crash after the backup but before the rename leaves the old `state.db` and a
    /// backup; the next start imports again and keeps both backups.
    #[test]
    fn an_existing_backup_is_never_overwritten() {
        let (_root, wit) = wit_dir();
        drop(first_impl_db(&wit, ""));
        std::fs::write(wit.file(BACKUP), b"an earlier backup").unwrap();
        std::fs::write(wit.file(BACKUP_PARTIAL), b"a crashed copy").unwrap();
        let imported = import_if_needed(&wit, NOW).unwrap().expect("an import");
        assert_eq!(imported.backup, wit.file(&format!("{BACKUP}.2")));
        assert_eq!(
            std::fs::read(wit.file(BACKUP)).unwrap(),
            b"an earlier backup"
        );
        assert!(!wit.file(BACKUP_PARTIAL).exists());
        assert_eq!(imported.intents, 3);
    }

    #[test]
    fn rows_the_first_implementation_would_not_write_are_left_out_and_counted() {
        let (_root, wit) = wit_dir();
        drop(first_impl_db(
            &wit,
            "INSERT INTO intents (id, session_id, description, files, status, declared_at,
                                  updated_at)
                 VALUES ('bad-status', 's', 'd', ',a.ts,', 'paused', 1, 1),
                        ('no-files', 's', 'd', ',,', 'declared', 1, 1);
             INSERT INTO contracts (id, proposer_session_id, symbol_path, signature, status,
                                    proposed_at)
                 VALUES ('no-colon', 's', 'a.ts', '()', 'proposed', 1);",
        ));
        let imported = import_if_needed(&wit, NOW).unwrap().expect("an import");
        assert_eq!(
            (imported.intents, imported.contracts, imported.skipped),
            (3, 2, 3)
        );
        assert!(
            imported.note().contains("unreadable rows left out 3"),
            "{}",
            imported.note()
        );
    }

    /// An older first-implementation database, migrated only up to its locks.
    #[test]
    fn a_database_without_the_later_tables_imports_what_it_has() {
        let (_root, wit) = wit_dir();
        drop(wit.open(DB, Access::CreateNew).unwrap());
        let conn = Connection::open(wit.database()).unwrap();
        let upto_locks = SCHEMA.split("-- drizzle/0002").next().unwrap();
        conn.execute_batch(upto_locks).unwrap();
        conn.execute_batch(
            "INSERT INTO locks (symbol_path, session_id, acquired_at, expires_at)
                 VALUES ('a.ts:f', 's', 1, 4102444800000);",
        )
        .unwrap();
        drop(conn);
        let imported = import_if_needed(&wit, NOW).unwrap().expect("an import");
        assert_eq!(
            (imported.locks, imported.intents, imported.contracts),
            (1, 0, 0)
        );
    }
}
