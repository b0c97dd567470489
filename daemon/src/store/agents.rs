//! `register`.

use rusqlite::Connection;

/// Registers `session_id` under `name`, or renames an existing registration; returns the
/// registration's row id either way.
pub(crate) fn register(
    conn: &Connection,
    session_id: &str,
    name: &str,
    now_ms: i64,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO agents (session_id, name, registered_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(session_id) DO UPDATE SET name = excluded.name
         RETURNING id",
    )?
    .query_row((session_id, name, now_ms), |r| r.get(0))
}
