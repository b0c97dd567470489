//! The audit log: every lock that ended other than by its holder's own release — forced
//! by another session, expired, or released because its session ended — with who, when
//! and why, so that nothing is released silently. Written in the same transaction as the
//! release.

use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

/// One audit record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuditRecord {
    /// Position in the log.
    pub id: i64,
    /// Unix ms.
    pub at: i64,
    /// `forced`, `expired` or `session-ended`.
    pub action: String,
    /// The lock's symbol path.
    pub symbol_path: String,
    /// Who held it.
    pub holder: String,
    /// Who released it (`null` for an expiry).
    pub by: Option<String>,
    /// Why.
    pub reason: String,
}

/// Records one release.
pub(crate) fn record(
    conn: &Connection,
    at: i64,
    action: &str,
    symbol_path: &str,
    holder: &str,
    by: Option<&str>,
    reason: &str,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO audit (at, action, symbol_path, holder, by_session, reason)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute((at, action, symbol_path, holder, by, reason))?;
    Ok(())
}

/// Records after `since`, oldest first, optionally about one session (as holder or as
/// the one who released).
pub(crate) fn query(
    conn: &Connection,
    since: i64,
    session: Option<&str>,
    limit: usize,
) -> rusqlite::Result<Vec<AuditRecord>> {
    conn.prepare_cached(
        "SELECT id, at, action, symbol_path, holder, by_session, reason FROM audit
         WHERE id > ?1 AND (?2 IS NULL OR holder = ?2 OR by_session = ?2)
         ORDER BY id LIMIT ?3",
    )?
    .query_map((since, session, limit as i64), row)?
    .collect()
}

/// The latest forced release of `symbol_path` held by `holder`, if any: how a former
/// holder learns why its lock is gone.
pub(crate) fn last_forced(
    conn: &Connection,
    symbol_path: &str,
    holder: &str,
) -> rusqlite::Result<Option<AuditRecord>> {
    conn.prepare_cached(
        "SELECT id, at, action, symbol_path, holder, by_session, reason FROM audit
         WHERE symbol_path = ?1 AND holder = ?2 AND action = 'forced'
         ORDER BY id DESC LIMIT 1",
    )?
    .query_row((symbol_path, holder), row)
    .optional()
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AuditRecord> {
    Ok(AuditRecord {
        id: r.get(0)?,
        at: r.get(1)?,
        action: r.get(2)?,
        symbol_path: r.get(3)?,
        holder: r.get(4)?,
        by: r.get(5)?,
        reason: r.get(6)?,
    })
}
