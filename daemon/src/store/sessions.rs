//! Sessions as the shared state knows them: which worktree each works in.

use std::collections::BTreeMap;

use rusqlite::Connection;

/// Records that `session` works in `worktree` (inside the write that acts for it);
/// `true` when the session was not known yet (it starts now).
pub(crate) fn seen(
    conn: &Connection,
    session: &str,
    worktree: &str,
    now_ms: i64,
) -> rusqlite::Result<bool> {
    let inserted = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO session_worktrees (session_id, worktree, seen_at)
             VALUES (?1, ?2, ?3)",
        )?
        .execute((session, worktree, now_ms))?;
    if inserted == 0 {
        conn.prepare_cached(
            "UPDATE session_worktrees SET worktree = ?2, seen_at = ?3
             WHERE session_id = ?1 AND worktree <> ?2",
        )?
        .execute((session, worktree, now_ms))?;
    }
    Ok(inserted == 1)
}

/// Forgets `session` (it ended): its next act starts it again.
pub(crate) fn forget(conn: &Connection, session: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM session_worktrees WHERE session_id = ?1")?
        .execute([session])?;
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
