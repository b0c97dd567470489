//! Leases. A lease whose `expires_at <= now` is absent for every purpose; the purge task
//! deletes it later (audited as expired).

use super::db::{Db, DbError, DbExt, DbResult, Row, args};

use crate::leases::{Mode, Patterns};

/// A stored lease.
#[derive(Debug, Clone)]
pub(crate) struct LeaseRow {
    pub id: String,
    pub session_id: String,
    pub mode: Mode,
    /// The pattern texts, as given (normalized).
    pub paths: Vec<String>,
    pub reason: Option<String>,
    pub acquired_at: i64,
    pub expires_at: i64,
}

impl LeaseRow {
    /// The compiled patterns. Stored texts were checked when the lease was taken; one
    /// that no longer parses (a database edited by hand) covers nothing rather than
    /// failing every request.
    pub(crate) fn patterns(&self) -> Patterns {
        Patterns(
            self.paths
                .iter()
                .filter_map(|t| crate::leases::Pattern::parse(t).ok())
                .collect(),
        )
    }
}

const COLUMNS: &str = "id, session_id, mode, paths, reason, acquired_at, expires_at";

/// Stores a new lease.
pub(crate) fn insert(db: &dyn Db, lease: &LeaseRow) -> DbResult<()> {
    let paths = serde_json::to_string(&lease.paths).map_err(|e| DbError::Invalid {
        column: 3,
        reason: e.to_string(),
    })?;
    db.execute_later(
        &format!("INSERT INTO leases ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
        args![
            &lease.id,
            &lease.session_id,
            lease.mode.as_str(),
            &paths,
            &lease.reason,
            lease.acquired_at,
            lease.expires_at
        ],
    )?;
    Ok(())
}

/// The unexpired lease `id`.
pub(crate) fn get(db: &dyn Db, id: &str, now_ms: i64) -> DbResult<Option<LeaseRow>> {
    db.query_opt(
        &format!("SELECT {COLUMNS} FROM leases WHERE id = ?1 AND expires_at > ?2"),
        args![id, now_ms],
        row,
    )
}

/// Unexpired leases, optionally of one session, oldest first.
pub(crate) fn list(db: &dyn Db, session_id: Option<&str>, now_ms: i64) -> DbResult<Vec<LeaseRow>> {
    db.query_map(
        &format!(
            "SELECT {COLUMNS} FROM leases WHERE expires_at > ?1 AND (?2 IS NULL OR session_id = ?2)
         ORDER BY acquired_at, id"
        ),
        args![now_ms, session_id],
        row,
    )
}

/// Unexpired leases, exclusive and shared, of sessions other than `me`, oldest first:
/// what an intent of `me` is told about.
pub(crate) fn of_others(db: &dyn Db, me: &str, now_ms: i64) -> DbResult<Vec<LeaseRow>> {
    db.query_map(
        &format!(
            "SELECT {COLUMNS} FROM leases WHERE expires_at > ?1 AND session_id <> ?2
             ORDER BY acquired_at, id"
        ),
        args![now_ms, me],
        row,
    )
}

/// Exclusive leases of sessions other than `me`, expired or not (see [`unexpired`]),
/// declared ahead (see [`crate::store::db::Read`]: it depends on every lease, and does
/// not depend on the clock, so it can travel with the batch's `BEGIN`).
pub(crate) fn exclusive_of_others_read(me: &str) -> super::db::Read {
    super::db::Read {
        sql: format!(
            "SELECT {COLUMNS} FROM leases
             WHERE mode = 'exclusive' AND session_id <> ?1
             ORDER BY acquired_at, id"
        ),
        args: vec![super::db::OwnedArg::Text(me.to_owned())],
        depends: vec![super::db::Dep::Table("leases")],
    }
}

/// The leases of `rows` that have not expired at `now_ms`.
pub(crate) fn unexpired(rows: &[Row], now_ms: i64) -> DbResult<Vec<LeaseRow>> {
    Ok(all(rows)?
        .into_iter()
        .filter(|l| l.expires_at > now_ms)
        .collect())
}

/// The leases of `rows`.
pub(crate) fn all(rows: &[Row]) -> DbResult<Vec<LeaseRow>> {
    rows.iter().map(row).collect()
}

/// Sets a new expiry.
pub(crate) fn set_expiry(db: &dyn Db, id: &str, expires_at: i64) -> DbResult<()> {
    db.execute_later(
        "UPDATE leases SET expires_at = ?2 WHERE id = ?1",
        args![id, expires_at],
    )?;
    Ok(())
}

/// Deletes the lease `id`.
pub(crate) fn delete(db: &dyn Db, id: &str) -> DbResult<()> {
    db.execute_later("DELETE FROM leases WHERE id = ?1", args![id])?;
    Ok(())
}

/// Number of unexpired leases.
pub(crate) fn count(db: &dyn Db, now_ms: i64) -> DbResult<i64> {
    db.query_row(
        "SELECT COUNT(*) FROM leases WHERE expires_at > ?1",
        args![now_ms],
        |r| r.get(0),
    )
}

/// Deletes expired leases; returns them.
pub(crate) fn purge_expired(db: &dyn Db, now_ms: i64) -> DbResult<Vec<LeaseRow>> {
    let expired = db.query_map(
        &format!("SELECT {COLUMNS} FROM leases WHERE expires_at <= ?1 ORDER BY expires_at, id"),
        args![now_ms],
        row,
    )?;
    db.execute("DELETE FROM leases WHERE expires_at <= ?1", args![now_ms])?;
    Ok(expired)
}

fn row(r: &Row) -> DbResult<LeaseRow> {
    let mode: String = r.get(2)?;
    let paths: String = r.get(3)?;
    let bad = |column: usize, reason: String| DbError::Invalid { column, reason };
    Ok(LeaseRow {
        id: r.get(0)?,
        session_id: r.get(1)?,
        mode: Mode::parse(&mode).ok_or_else(|| bad(2, format!("unknown lease mode {mode:?}")))?,
        paths: serde_json::from_str(&paths).map_err(|e| bad(3, e.to_string()))?,
        reason: r.get(4)?,
        acquired_at: r.get(5)?,
        expires_at: r.get(6)?,
    })
}
