//! Sessions as the shared state knows them: which worktree each works in.

use std::collections::BTreeMap;

use super::db::{Db, DbExt, DbResult, args};

/// Records that `session` works in `worktree` (inside the write that acts for it);
/// `true` when the session was not known yet (it starts now).
pub(crate) fn seen(db: &dyn Db, session: &str, worktree: &str, now_ms: i64) -> DbResult<bool> {
    let inserted = db.execute(
        "INSERT INTO session_worktrees (session_id, worktree, seen_at)
         VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
        args![session, worktree, now_ms],
    )?;
    if inserted == 0 {
        db.execute(
            "UPDATE session_worktrees SET worktree = ?2, seen_at = ?3
             WHERE session_id = ?1 AND worktree <> ?2",
            args![session, worktree, now_ms],
        )?;
    }
    Ok(inserted == 1)
}

/// Forgets `session` (it ended): its next act starts it again.
pub(crate) fn forget(db: &dyn Db, session: &str) -> DbResult<()> {
    db.execute(
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
