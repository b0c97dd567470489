//! Sessions as the shared state knows them: which worktree each works in.

use std::collections::BTreeMap;

use serde_json::Value;

use super::db::{Db, DbExt, DbResult, Dialect, args};

/// The row of a session: new, or a known one's new worktree.
const UPSERT: &str = "INSERT INTO session_worktrees (session_id, worktree, seen_at)
     VALUES (?1, ?2, ?3)
     ON CONFLICT (session_id) DO UPDATE SET worktree = excluded.worktree,
         seen_at = excluded.seen_at
     WHERE session_worktrees.worktree <> excluded.worktree";

/// Records that `session` works in `worktree` (inside the write that acts for it); a
/// session not known yet starts now, with a `session.started` event whose `data` is
/// `started`. Nothing waits for either ([`Db::execute_later`]): on SQLite the event
/// (written only if the session is unknown) goes first, then the row; PostgreSQL does
/// both in one statement.
pub(crate) fn seen(
    db: &dyn Db,
    session: &str,
    worktree: &str,
    now_ms: i64,
    started: &Value,
) -> DbResult<()> {
    match db.dialect() {
        Dialect::Sqlite => {
            super::events::append_session_started(db, now_ms, session, started)?;
            db.execute_later(UPSERT, args![session, worktree, now_ms])
        }
        Dialect::Postgres => {
            let data = started.to_string();
            db.execute_later(
                &format!(
                    "WITH seen AS ({UPSERT} RETURNING xmax = 0 AS started)
                     INSERT INTO events (seq, at, kind, session_id, subject, data)
                     SELECT (SELECT COALESCE(MAX(seq), 0) + 1 FROM events), ?3,
                            'session.started', ?1, ?1, ?4
                     FROM seen WHERE started"
                ),
                args![session, worktree, now_ms, &data],
            )
        }
    }
}

/// Forgets `session` (it ended): its next act starts it again.
pub(crate) fn forget(db: &dyn Db, session: &str) -> DbResult<()> {
    db.execute_later(
        "DELETE FROM session_worktrees WHERE session_id = ?1",
        args![session],
    )?;
    Ok(())
}

/// The worktree of every session holding a live lock or lease or a live intent.
pub(crate) fn active_worktrees(db: &dyn Db, now_ms: i64) -> DbResult<BTreeMap<String, String>> {
    Ok(db
        .query_map(
            "SELECT session_id, worktree FROM session_worktrees WHERE session_id IN (
                 SELECT session_id FROM locks WHERE expires_at > ?1
                 UNION SELECT session_id FROM leases WHERE expires_at > ?1
                 UNION SELECT session_id FROM intents WHERE status IN ('declared', 'active'))",
            args![now_ms],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?
        .into_iter()
        .collect())
}
