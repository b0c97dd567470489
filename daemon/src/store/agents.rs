//! `register`.

use super::db::{Db, DbExt, DbResult, args};

/// Registers `session_id` under `name`, or renames an existing registration; returns the
/// registration's row id either way.
pub(crate) fn register(db: &dyn Db, session_id: &str, name: &str, now_ms: i64) -> DbResult<i64> {
    db.query_row(
        "INSERT INTO agents (session_id, name, registered_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(session_id) DO UPDATE SET name = excluded.name
         RETURNING id",
        args![session_id, name, now_ms],
        |r| r.get(0),
    )
}
