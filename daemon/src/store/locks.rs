//! Locks. A lock whose `expires_at <= now` is absent for every purpose.

use rusqlite::{Connection, OptionalExtension};

/// A stored, unexpired lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LockRow {
    pub symbol_path: String,
    pub session_id: String,
    pub acquired_at: i64,
    pub expires_at: i64,
}

/// The unexpired lock on `symbol_path`, if any.
pub(crate) fn get(
    conn: &Connection,
    symbol_path: &str,
    now_ms: i64,
) -> rusqlite::Result<Option<LockRow>> {
    conn.prepare_cached(
        "SELECT symbol_path, session_id, acquired_at, expires_at FROM locks
         WHERE symbol_path = ?1 AND expires_at > ?2",
    )?
    .query_row((symbol_path, now_ms), row)
    .optional()
}

/// Acquires or refreshes the lock (call inside a write transaction). `Err(holder)` when
/// another session holds an unexpired lock on it.
pub(crate) fn acquire(
    conn: &Connection,
    symbol_path: &str,
    session_id: &str,
    now_ms: i64,
    expires_at: i64,
) -> rusqlite::Result<Result<LockRow, LockRow>> {
    if let Some(holder) = get(conn, symbol_path, now_ms)?
        && holder.session_id != session_id
    {
        return Ok(Err(holder));
    }
    conn.prepare_cached(
        "INSERT INTO locks (symbol_path, session_id, acquired_at, expires_at)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(symbol_path) DO UPDATE SET session_id = excluded.session_id,
             acquired_at = excluded.acquired_at, expires_at = excluded.expires_at",
    )?
    .execute((symbol_path, session_id, now_ms, expires_at))?;
    Ok(Ok(LockRow {
        symbol_path: symbol_path.to_owned(),
        session_id: session_id.to_owned(),
        acquired_at: now_ms,
        expires_at,
    }))
}

/// Deletes the lock row of `symbol_path`.
pub(crate) fn delete(conn: &Connection, symbol_path: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM locks WHERE symbol_path = ?1")?
        .execute([symbol_path])?;
    Ok(())
}

/// Unexpired locks, optionally of one session, oldest first.
pub(crate) fn list(
    conn: &Connection,
    session_id: Option<&str>,
    now_ms: i64,
) -> rusqlite::Result<Vec<LockRow>> {
    conn.prepare_cached(
        "SELECT symbol_path, session_id, acquired_at, expires_at FROM locks
         WHERE expires_at > ?1 AND (?2 IS NULL OR session_id = ?2)
         ORDER BY acquired_at, symbol_path",
    )?
    .query_map((now_ms, session_id), row)?
    .collect()
}

/// Number of unexpired locks.
pub(crate) fn count(conn: &Connection, now_ms: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT COUNT(*) FROM locks WHERE expires_at > ?1")?
        .query_row([now_ms], |r| r.get(0))
}

/// Deletes expired locks; returns how many.
pub(crate) fn purge_expired(conn: &Connection, now_ms: i64) -> rusqlite::Result<Vec<LockRow>> {
    let expired: Vec<LockRow> = conn
        .prepare_cached(
            "SELECT symbol_path, session_id, acquired_at, expires_at FROM locks
             WHERE expires_at <= ?1",
        )?
        .query_map([now_ms], row)?
        .collect::<rusqlite::Result<_>>()?;
    conn.prepare_cached("DELETE FROM locks WHERE expires_at <= ?1")?
        .execute([now_ms])?;
    Ok(expired)
}

/// The row of `symbol_path`, expired or not.
pub(crate) fn get_any(conn: &Connection, symbol_path: &str) -> rusqlite::Result<Option<LockRow>> {
    conn.prepare_cached(
        "SELECT symbol_path, session_id, acquired_at, expires_at FROM locks WHERE symbol_path = ?1",
    )?
    .query_row([symbol_path], row)
    .optional()
}

/// The unexpired locks on any of `symbol_paths` (a JSON array of strings), in one query.
pub(crate) fn live_among(
    conn: &Connection,
    symbol_paths: &str,
    now_ms: i64,
) -> rusqlite::Result<Vec<LockRow>> {
    conn.prepare_cached(
        "SELECT l.symbol_path, l.session_id, l.acquired_at, l.expires_at
         FROM json_each(?1) AS j CROSS JOIN locks AS l
         WHERE l.symbol_path = j.value AND l.expires_at > ?2",
    )?
    .query_map((symbol_paths, now_ms), row)?
    .collect()
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<LockRow> {
    Ok(LockRow {
        symbol_path: r.get(0)?,
        session_id: r.get(1)?,
        acquired_at: r.get(2)?,
        expires_at: r.get(3)?,
    })
}
