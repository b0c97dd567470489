//! The coordination state: agents, locks, intents (with a per-file table), contracts,
//! leases, sessions, events, the audit log. The store modules (`locks`, `intents`, …) take
//! a [`db::Db`], so they serve both backends: SQLite ([`Store`], below, the default) and
//! PostgreSQL ([`pg`]); [`Backend`] is which one a daemon uses.
//!
//! SQLite: one connection behind a mutex is the single writer. Every write request runs inside a
//! `BEGIN IMMEDIATE` transaction (shared with the writes queued at the same moment, each
//! in its own savepoint: see [`batch`]) and jobs run one after another, so `lock.acquire`
//! races have exactly one winner. Reads are short indexed queries, so sharing the one
//! connection costs little and keeps reads consistent with the writes just made. Nothing
//! on the async thread ever waits for the connection or for SQLite's lock: it runs only
//! when both are free, and otherwise hands the work to the blocking pool.

pub(crate) mod agents;
pub(crate) mod audit;
pub(crate) mod batch;
pub(crate) mod claims;
pub(crate) mod contracts;
pub(crate) mod db;
pub(crate) mod events;
mod first_impl;
pub(crate) mod forecast;
pub(crate) mod intents;
pub(crate) mod leases;
pub(crate) mod locks;
pub(crate) mod migrate;
pub(crate) mod pg;
mod schema;
pub(crate) mod sessions;
pub(crate) mod target;

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, Transaction, TransactionBehavior};
use wit_boundary::WitDir;

use crate::error::DaemonError;

pub use first_impl::IMPORT_NOTE;

/// How long a write waits for SQLite's write lock held by another process.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The coordination state of a daemon: which backend holds it.
#[derive(Clone)]
pub(crate) enum Backend {
    /// `.wit/state.db` (the default; shared by the worktrees of one repository).
    Sqlite(std::sync::Arc<Store>),
    /// A PostgreSQL database shared by daemons on many machines.
    Postgres(std::sync::Arc<pg::PgStore>),
}

impl Backend {
    /// Closes the store (SQLite checkpoints its WAL; the pool's connections close as the
    /// process ends).
    pub(crate) fn close(&self) {
        if let Backend::Sqlite(store) = self {
            store.close();
        }
    }
}

/// How long closing the database waits for a write still running at shutdown.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The open SQLite state database.
pub(crate) struct Store {
    conn: Mutex<Option<Connection>>,
    batcher: batch::Batcher,
}

/// Why a store call could not run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    /// SQLite failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The daemon is shutting down and the database is closed.
    #[error("the state database is closed (the daemon is shutting down)")]
    Closed,
    /// A batch of writes could not be committed (see [`batch`]).
    #[error("committing the write failed: {0}")]
    Commit(String),
    /// A statement failed (either backend).
    #[error(transparent)]
    Db(#[from] db::DbError),
}

impl Store {
    /// Opens (creating if needed) the database at `path`, in WAL mode, migrated to the
    /// current schema.
    pub fn open(path: &Path) -> Result<Self, rusqlite::Error> {
        // NOFOLLOW: the database path must not be a symlink (lifecycle checked it too;
        // this closes the window between that check and the open).
        let flags = rusqlite::OpenFlags::default() | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let mut conn = Connection::open_with_flags(path, flags)?;
        schema::configure(&conn)?;
        schema::migrate(&mut conn)?;
        Ok(Self {
            conn: Mutex::new(Some(conn)),
            batcher: batch::Batcher::default(),
        })
    }

    /// Opens `.wit/state.db` (see [`Store::open`]; the file must exist and have been
    /// checked as ours). When it holds the first wit implementation's schema, its state is
    /// imported first and the old file kept as a backup beside it, which is logged once
    /// (a line starting with [`IMPORT_NOTE`]); see [`first_impl`].
    pub fn open_in(wit: &WitDir, now_ms: i64) -> Result<Self, DaemonError> {
        if let Some(imported) = first_impl::import_if_needed(wit, now_ms)? {
            tracing::warn!("{}", imported.note());
        }
        Ok(Self::open(&wit.database())?)
    }

    /// Runs `f` with the connection (blocking; call from a blocking thread).
    pub fn with<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, E>,
    ) -> Result<T, E> {
        // A panic in a previous holder leaves no half-written state behind (transactions
        // roll back on drop), so a poisoned mutex is safe to keep using.
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let conn = guard.as_mut().ok_or(StoreError::Closed)?;
        f(conn)
    }

    /// Runs `f` inside one `BEGIN IMMEDIATE` transaction, committed when `f` succeeds.
    pub fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.with(|conn| {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(StoreError::from)?;
            let value = f(&tx)?;
            tx.commit().map_err(StoreError::from)?;
            Ok(value)
        })
    }

    /// Like [`Store::write`], but only if it can run without waiting: the connection is
    /// free and SQLite's write lock is free. `Err(f)` hands `f` back otherwise, for the
    /// caller to run [`Store::write`] on a blocking thread. (The daemon's writes go through
    /// [`batch`], which opens its transactions the same way.)
    #[cfg(test)]
    pub fn try_write<T, E, F>(&self, f: F) -> Result<Result<T, E>, F>
    where
        E: From<StoreError>,
        F: FnOnce(&Transaction<'_>) -> Result<T, E>,
    {
        let Some(mut guard) = self.try_conn() else {
            return Err(f);
        };
        let Some(conn) = guard.as_mut() else {
            return Ok(Err(StoreError::Closed.into()));
        };
        let tx = match try_begin(conn) {
            Begin::Busy => return Err(f),
            Begin::Failed(e) => return Ok(Err(e.into())),
            Begin::Began(tx) => tx,
        };
        Ok(f(&tx).and_then(|value| {
            tx.commit().map_err(StoreError::from)?;
            Ok(value)
        }))
    }

    /// The connection, if no one else holds it right now.
    fn try_conn(&self) -> Option<std::sync::MutexGuard<'_, Option<Connection>>> {
        match self.conn.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Like [`Store::with`], but only if the connection is free; `Err(f)` otherwise.
    /// Reads in WAL mode never wait for SQLite's locks, so this never blocks.
    pub fn try_with<T, E, F>(&self, f: F) -> Result<Result<T, E>, F>
    where
        E: From<StoreError>,
        F: FnOnce(&mut Connection) -> Result<T, E>,
    {
        let mut guard = match self.conn.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Err(f),
        };
        Ok(match guard.as_mut() {
            Some(conn) => f(conn),
            None => Err(StoreError::Closed.into()),
        })
    }

    /// Closes the database (checkpointing the WAL); later calls get [`StoreError::Closed`].
    pub fn close(&self) {
        // A write still running (a request the shutdown cut short) holds the connection:
        // the daemon does not wait for it past a moment. Everything committed is durable;
        // the next opener checkpoints the WAL.
        let deadline = std::time::Instant::now() + CLOSE_WAIT;
        let mut guard = loop {
            match self.conn.try_lock() {
                Ok(guard) => break guard,
                Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {
                    if std::time::Instant::now() >= deadline {
                        tracing::warn!(
                            "the state database is still busy at shutdown; leaving it to the \
                             process's exit"
                        );
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
        };
        if let Some(conn) = guard.take()
            && let Err((_, e)) = conn.close()
        {
            tracing::warn!("closing the state database: {e}");
        }
    }
}

/// What trying to open a write transaction without waiting gave.
enum Begin<'c> {
    /// Another process holds SQLite's write lock.
    Busy,
    Failed(StoreError),
    Began(Transaction<'c>),
}

/// `BEGIN IMMEDIATE` without a busy wait: held by another process, the write lock is the
/// blocking pool's to wait for.
fn try_begin(conn: &mut Connection) -> Begin<'_> {
    if let Err(e) = conn.busy_timeout(Duration::ZERO) {
        return Begin::Failed(e.into());
    }
    let began = Transaction::new_unchecked(conn, TransactionBehavior::Immediate);
    let restored = conn.busy_timeout(BUSY_TIMEOUT);
    match (began, restored) {
        (Err(rusqlite::Error::SqliteFailure(e, _)), _)
            if e.code == rusqlite::ErrorCode::DatabaseBusy =>
        {
            Begin::Busy
        }
        (Err(e), _) | (Ok(_), Err(e)) => Begin::Failed(e.into()),
        (Ok(tx), Ok(())) => Begin::Began(tx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reopening_keeps_the_schema_version_and_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let store = Store::open(&path).unwrap();
        let id = store
            .write(|tx| agents::register(tx, "s1", "alpha", 1).map_err(StoreError::from))
            .unwrap();
        store.close();
        let store = Store::open(&path).unwrap();
        let again: i64 = store
            .write(|tx| agents::register(tx, "s1", "beta", 2).map_err(StoreError::from))
            .unwrap();
        assert_eq!(id, again);
        let version: i64 = store
            .with(|c| {
                c.query_row("PRAGMA user_version", [], |r| r.get(0))
                    .map_err(StoreError::from)
            })
            .unwrap();
        assert_eq!(version, schema::CURRENT_VERSION);
    }

    #[test]
    fn lock_acquire_conflicts_refreshes_takes_over_and_purges() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        let acquire = |session: &str, now: i64, expires: i64| {
            store
                .write(|tx| {
                    locks::acquire(tx, "a.ts:f", "a.ts:f", session, now, expires)
                        .map_err(StoreError::from)
                })
                .unwrap()
        };
        assert!(acquire("s1", 100, 200).is_ok());
        let holder = acquire("s2", 150, 300).unwrap_err();
        assert_eq!((holder.session_id.as_str(), holder.expires_at), ("s1", 200));
        let refreshed = acquire("s1", 160, 400).unwrap();
        assert_eq!((refreshed.acquired_at, refreshed.expires_at), (160, 400));
        // At the expiry instant the lock is gone: another session takes it over.
        let taken = acquire("s2", 400, 500).unwrap();
        assert_eq!(taken.session_id, "s2");
        let purged = store
            .write(|tx| {
                locks::purge_expired(tx, 500)
                    .map(|v| v.len())
                    .map_err(StoreError::from)
            })
            .unwrap();
        assert_eq!(purged, 1);
        let left = store
            .with(|c| locks::list(c, None, 0).map_err(StoreError::from))
            .unwrap();
        assert!(left.is_empty());
    }

    #[test]
    fn a_heavy_batch_has_a_large_page_cache_for_its_length_only() {
        use super::batch::{BatchTarget, Job};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        let cache = |store: &Store| {
            store
                .with(|c| {
                    c.query_row("PRAGMA cache_size", [], |r| r.get::<_, i64>(0))
                        .map_err(StoreError::from)
                })
                .unwrap()
        };
        assert_eq!(cache(&store), -schema::CACHE_KIB);
        let seen = std::sync::Arc::new(Mutex::new(None));
        let inside = seen.clone();
        let job = Job {
            prefetch: None,
            quiet: false,
            run: Box::new(move |db| {
                let rows = db.rows("PRAGMA cache_size", &[]).unwrap();
                *inside.lock().unwrap() = rows[0].get::<i64>(0).ok();
                (true, Box::new(|_| {}))
            }),
        };
        store.run_batch(vec![job], true);
        assert_eq!(*seen.lock().unwrap(), Some(-schema::HEAVY_CACHE_KIB));
        // Back to the default once it is committed: appended pages no longer pile up.
        assert_eq!(cache(&store), -schema::CACHE_KIB);
    }

    #[test]
    fn a_closed_store_refuses_calls() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        store.close();
        let r = store.with(|c| locks::count(c, 0).map_err(StoreError::from));
        assert!(matches!(r, Err(StoreError::Closed)));
    }

    #[test]
    fn try_write_hands_the_work_back_while_another_process_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let store = Store::open(&path).unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let work =
            |tx: &Transaction<'_>| agents::register(tx, "s1", "alpha", 1).map_err(StoreError::from);
        let Err(work) = store.try_write(work) else {
            panic!("try_write ran although the write lock was taken");
        };
        other.execute_batch("COMMIT").unwrap();
        let Ok(done) = store.try_write(work) else {
            panic!("try_write refused with the write lock free");
        };
        assert!(done.is_ok());
        // The normal busy timeout is back for the blocking path.
        assert!(
            store
                .write(|tx| agents::register(tx, "s2", "b", 2).map_err(StoreError::from))
                .is_ok()
        );
    }

    #[test]
    fn only_live_intents_are_found_on_a_file() {
        use wit_core::protocol::{IntentRecord, IntentStatus};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        let record = |id: &str| IntentRecord {
            intent_id: id.into(),
            session_id: "other".into(),
            description: "d".into(),
            files: ",a.ts,".into(),
            symbols: "[]".into(),
            start_byte: None,
            end_byte: None,
            status: IntentStatus::Declared,
            declared_at: 1,
            updated_at: 1,
            owner_ended: None,
        };
        let files = intents::FileRows::new(&[intents::FileRange {
            file: "a.ts".into(),
            range: None,
        }]);
        store
            .write(|tx| {
                intents::insert(tx, &record("i1"), &files)?;
                intents::insert(tx, &record("i2"), &files)?;
                intents::set_status(tx, "i1", IntentStatus::Resolved, 2)?;
                intents::set_status(tx, "i2", IntentStatus::Active, 2).map_err(StoreError::from)
            })
            .unwrap();
        let live = store
            .with(|c| {
                intents::overlapping_live_of_others(c, &files, "me").map_err(StoreError::from)
            })
            .unwrap();
        let ids: Vec<&str> = live.iter().map(|l| l.intent_id.as_str()).collect();
        assert_eq!(ids, ["i2"]);
        // A resolved intent is still found by an explicit status query on its file.
        let resolved = store
            .with(|c| {
                intents::query(c, None, Some("a.ts"), Some(IntentStatus::Resolved))
                    .map_err(StoreError::from)
            })
            .unwrap();
        assert_eq!(resolved.len(), 1);
    }

    #[test]
    fn overlap_is_one_set_query_by_range_per_file_in_declaration_order() {
        use intents::FileRange;
        use wit_core::protocol::{IntentRecord, IntentStatus};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        let record = |id: &str, session: &str| IntentRecord {
            intent_id: id.into(),
            session_id: session.into(),
            description: format!("about {id}"),
            files: ",x,".into(),
            symbols: "[]".into(),
            start_byte: None,
            end_byte: None,
            status: IntentStatus::Declared,
            declared_at: 1,
            updated_at: 1,
            owner_ended: None,
        };
        let range = |file: &str, range: Option<(i64, i64)>| FileRange {
            file: file.into(),
            range,
        };
        // Declared in this order: i3 on b.ts 0..10, i1 on a.ts 50..60 and b.ts whole,
        // i2 on a.ts 0..10, i4 (mine) on a.ts.
        let intents_made = [
            ("i3", "s3", vec![range("b.ts", Some((0, 10)))]),
            (
                "i1",
                "s1",
                vec![range("a.ts", Some((50, 60))), range("b.ts", None)],
            ),
            ("i2", "s2", vec![range("a.ts", Some((0, 10)))]),
            ("i4", "me", vec![range("a.ts", None)]),
        ];
        store
            .write(|tx| {
                for (id, session, files) in &intents_made {
                    intents::insert(tx, &record(id, session), &intents::FileRows::new(files))?;
                }
                Ok::<_, StoreError>(())
            })
            .unwrap();
        let overlapping = |files: &[FileRange]| -> Vec<String> {
            let json = intents::FileRows::new(files);
            store
                .with(|c| {
                    intents::overlapping_live_of_others(c, &json, "me").map_err(StoreError::from)
                })
                .unwrap()
                .into_iter()
                .map(|o| o.intent_id)
                .collect()
        };
        // File-level on both files: everyone else's, each once, in declaration order.
        assert_eq!(
            overlapping(&[range("a.ts", None), range("b.ts", None)]),
            ["i3", "i1", "i2"]
        );
        // Ranges compared per file: a.ts 5..8 meets i2 only; b.ts 20..30 meets i1's
        // file-level entry, not i3's 0..10. Touching ends do not intersect.
        assert_eq!(overlapping(&[range("a.ts", Some((5, 8)))]), ["i2"]);
        assert_eq!(overlapping(&[range("b.ts", Some((20, 30)))]), ["i1"]);
        assert_eq!(
            overlapping(&[range("a.ts", Some((10, 50)))]),
            Vec::<String>::new()
        );
        assert_eq!(overlapping(&[range("c.ts", None)]), Vec::<String>::new());
        // File-level and ranged files in one declare: merged, each once, in order.
        assert_eq!(
            overlapping(&[range("b.ts", Some((5, 6))), range("a.ts", None)]),
            ["i3", "i1", "i2"]
        );

        // An intent that is no longer live stops overlapping, and overlaps again if its
        // rows come back live (the flip finds them through its file_set).
        let set = |id: &str, status: IntentStatus| {
            store
                .write(|tx| intents::set_status(tx, id, status, 2).map_err(StoreError::from))
                .unwrap()
        };
        set("i1", IntentStatus::Abandoned);
        assert_eq!(overlapping(&[range("b.ts", None)]), ["i3"]);
        set("i3", IntentStatus::Resolved);
        assert_eq!(overlapping(&[range("b.ts", None)]), Vec::<String>::new());
        let dead: i64 = store
            .with(|c| {
                c.query_row(
                    "SELECT COUNT(*) FROM intent_files WHERE live = 0",
                    [],
                    |r| r.get(0),
                )
                .map_err(StoreError::from)
            })
            .unwrap();
        assert_eq!(dead, 3, "i1's two files and i3's one");

        // The plan: the files are walked once, each an index lookup (never a scan of
        // intent_files or intents).
        for sql in intents::OVERLAP_SQL {
            let plan: Vec<String> = store
                .with(|c| {
                    let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                    stmt.query_map(("[]", "me"), |r| r.get::<_, String>(3))?
                        .collect::<rusqlite::Result<Vec<_>>>()
                        .map_err(StoreError::from)
                })
                .unwrap();
            let plan = plan.join("\n");
            assert!(
                plan.contains("SEARCH f USING PRIMARY KEY (file_key=? AND live=?)"),
                "{plan}"
            );
            assert!(
                plan.contains("SEARCH i USING INTEGER PRIMARY KEY"),
                "{plan}"
            );
            assert!(
                !plan.contains("SCAN f") && !plan.contains("SCAN i"),
                "{plan}"
            );
        }
        // A status change seeks each of the intent's rows by its whole key.
        let plan: String = store
            .with(|c| {
                let mut stmt = c.prepare(
                    "EXPLAIN QUERY PLAN UPDATE intent_files SET live = ?3
                     WHERE file_key IN (SELECT wit_key(value) FROM json_each(?2))
                       AND live = ?4 AND intent_seq = ?1",
                )?;
                stmt.query_map((1, "[]", 0, 1), |r| r.get::<_, String>(3))?
                    .collect::<rusqlite::Result<Vec<_>>>()
                    .map_err(StoreError::from)
            })
            .unwrap()
            .join("\n");
        assert!(
            plan.contains("USING PRIMARY KEY (file_key=? AND live=? AND intent_seq=?)"),
            "{plan}"
        );
    }
}
