//! The SQLite state: agents, locks, intents (with a per-file table), contracts.
//!
//! One connection behind a mutex is the single writer: every call runs on a blocking
//! thread (never on the async workers), and every write is one `BEGIN IMMEDIATE`
//! transaction, so `lock.acquire` races have exactly one winner. Reads are short indexed
//! queries, so sharing the one connection costs little and keeps reads consistent with
//! the writes just made.

pub(crate) mod agents;
pub(crate) mod contracts;
pub(crate) mod intents;
pub(crate) mod locks;
mod schema;

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, Transaction, TransactionBehavior};

/// The open state database.
pub(crate) struct Store {
    conn: Mutex<Option<Connection>>,
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
}

impl Store {
    /// Opens (creating if needed) the database at `path`, in WAL mode, migrated to the
    /// current schema.
    pub fn open(path: &Path) -> Result<Self, rusqlite::Error> {
        let mut conn = Connection::open(path)?;
        schema::configure(&conn)?;
        schema::migrate(&mut conn)?;
        Ok(Self {
            conn: Mutex::new(Some(conn)),
        })
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

    /// Closes the database (checkpointing the WAL); later calls get [`StoreError::Closed`].
    pub fn close(&self) {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(conn) = guard.take()
            && let Err((_, e)) = conn.close()
        {
            tracing::warn!("closing the state database: {e}");
        }
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
                    locks::acquire(tx, "a.ts:f", session, now, expires).map_err(StoreError::from)
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
            .write(|tx| locks::purge_expired(tx, 500).map_err(StoreError::from))
            .unwrap();
        assert_eq!(purged, 1);
        let left = store
            .with(|c| locks::list(c, None, 0).map_err(StoreError::from))
            .unwrap();
        assert!(left.is_empty());
    }

    #[test]
    fn a_closed_store_refuses_calls() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        store.close();
        let r = store.with(|c| locks::count(c, 0).map_err(StoreError::from));
        assert!(matches!(r, Err(StoreError::Closed)));
    }
}
