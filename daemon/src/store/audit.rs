//! The audit log: every lock that ended other than by its holder's own release — forced
//! by another session, expired, or released because its session ended — with who, when
//! and why, so that nothing is released silently. Written in the same transaction as the
//! release.

use super::db::{Db, DbExt, DbResult, Row, args};
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
    db: &dyn Db,
    at: i64,
    action: &str,
    symbol_path: &str,
    holder: &str,
    by: Option<&str>,
    reason: &str,
) -> DbResult<()> {
    db.execute_later(
        "INSERT INTO audit (at, action, symbol_path, holder, by_session, reason)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        args![at, action, symbol_path, holder, by, reason],
    )
}

/// Records after `since`, oldest first, optionally about one session (as holder or as
/// the one who released).
pub(crate) fn query(
    db: &dyn Db,
    since: i64,
    session: Option<&str>,
    limit: usize,
) -> DbResult<Vec<AuditRecord>> {
    db.query_map(
        "SELECT id, at, action, symbol_path, holder, by_session, reason FROM audit
         WHERE id > ?1 AND (?2 IS NULL OR holder = ?2 OR by_session = ?2)
         ORDER BY id LIMIT ?3",
        args![since, session, limit as i64],
        row,
    )
}

/// The latest forced release of `symbol_path` held by `holder`, if any: how a former
/// holder learns why its lock is gone.
pub(crate) fn last_forced(
    db: &dyn Db,
    symbol_path: &str,
    holder: &str,
) -> DbResult<Option<AuditRecord>> {
    db.query_opt(
        "SELECT id, at, action, symbol_path, holder, by_session, reason FROM audit
         WHERE symbol_path = ?1 AND holder = ?2 AND action = 'forced'
         ORDER BY id DESC LIMIT 1",
        args![symbol_path, holder],
        row,
    )
}

fn row(r: &Row) -> DbResult<AuditRecord> {
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
