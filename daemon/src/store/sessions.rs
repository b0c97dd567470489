//! Sessions as the shared state knows them: which worktree each works in.

use std::collections::BTreeMap;

use rusqlite::Connection;

/// Records that `session` works in `worktree` (inside the write that acts for it).
pub(crate) fn seen(
    conn: &Connection,
    session: &str,
    worktree: &str,
    now_ms: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO session_worktrees (session_id, worktree, seen_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(session_id) DO UPDATE SET worktree = excluded.worktree,
             seen_at = excluded.seen_at
         WHERE session_worktrees.worktree <> excluded.worktree",
    )?
    .execute((session, worktree, now_ms))?;
    Ok(())
}

/// The worktree of every session holding a live lock or lease or a live intent.
pub(crate) fn active_worktrees(
    conn: &Connection,
    now_ms: i64,
) -> rusqlite::Result<BTreeMap<String, String>> {
    conn.prepare_cached(
        "SELECT session_id, worktree FROM session_worktrees WHERE session_id IN (
             SELECT session_id FROM locks WHERE expires_at > ?1
             UNION SELECT session_id FROM leases WHERE expires_at > ?1
             UNION SELECT session_id FROM intents WHERE status IN ('declared', 'active'))",
    )?
    .query_map([now_ms], |r| Ok((r.get(0)?, r.get(1)?)))?
    .collect()
}
