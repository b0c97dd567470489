//! Contracts.

use super::db::{Db, DbError, DbExt, DbResult, Row, args};
use wit_core::protocol::{ContractRecord, ContractRetirement, ContractStatus};

const COLUMNS: &str = "id, proposer_session_id, symbol_path, signature, status, \
                       responder_session_id, proposed_at, responded_at, \
                       retired_by, retired_at, retire_reason, superseded_by";

/// Stores a new contract; `file` is the part of its symbol path before the first colon,
/// `spelling` the path as its proposer named it (v1's `contract.query` answers with it).
pub(crate) fn insert(db: &dyn Db, c: &ContractRecord, file: &str, spelling: &str) -> DbResult<()> {
    db.execute_later(
        "INSERT INTO contracts (id, proposer_session_id, symbol_path, file, signature, status,
                                responder_session_id, proposed_at, responded_at, spelling)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        args![
            &c.contract_id,
            &c.proposer_session_id,
            &c.symbol_path,
            file,
            &c.signature,
            c.status.as_str(),
            &c.responder_session_id,
            c.proposed_at,
            c.responded_at,
            spelling
        ],
    )?;
    Ok(())
}

/// The contract `contract_id`.
pub(crate) fn get(db: &dyn Db, contract_id: &str) -> DbResult<Option<ContractRecord>> {
    db.query_opt(
        &format!("SELECT {COLUMNS} FROM contracts WHERE id = ?1"),
        args![contract_id],
        record,
    )
}

/// Records the response to a contract.
pub(crate) fn respond(
    db: &dyn Db,
    contract_id: &str,
    status: ContractStatus,
    responder: &str,
    now_ms: i64,
) -> DbResult<()> {
    db.execute_later(
        "UPDATE contracts SET status = ?2, responder_session_id = ?3, responded_at = ?4
         WHERE id = ?1",
        args![contract_id, status.as_str(), responder, now_ms],
    )?;
    Ok(())
}

/// Contracts matching the exact filters, oldest first, each named as its proposer named
/// it. The path filter matches the canonical path or, exactly, the proposer's spelling
/// (what the record shows: a name that no longer resolves on disk still finds the
/// contract it was proposed under). Without a status filter only v1's statuses (proposed,
/// accepted, rejected) are listed: withdrawn and superseded contracts are an extension,
/// shown when asked for by status.
pub(crate) fn query(
    db: &dyn Db,
    symbol_path: Option<&str>,
    status: Option<ContractStatus>,
) -> DbResult<Vec<ContractRecord>> {
    let order = db.dialect().pick("rowid", "seq");
    db.query_map(
        &format!(
            "SELECT {COLUMNS}, COALESCE(spelling, symbol_path) FROM contracts
             WHERE (?1 IS NULL OR symbol_path = ?1 OR spelling = ?1)
               AND ((?2 IS NULL AND status IN ('proposed', 'accepted', 'rejected'))
                    OR status = ?2)
             ORDER BY proposed_at, {order}"
        ),
        args![symbol_path, status.map(ContractStatus::as_str)],
        |r| {
            let mut c = record(r)?;
            c.symbol_path = r.get(12)?;
            Ok(c)
        },
    )
}

/// Retires a contract: `status` is withdrawn or superseded.
pub(crate) fn retire(
    db: &dyn Db,
    contract_id: &str,
    status: ContractStatus,
    by: &str,
    reason: &str,
    superseded_by: Option<&str>,
    now_ms: i64,
) -> DbResult<()> {
    db.execute_later(
        "UPDATE contracts SET status = ?2, retired_by = ?3, retired_at = ?4,
                              retire_reason = ?5, superseded_by = ?6
         WHERE id = ?1",
        args![
            contract_id,
            status.as_str(),
            by,
            now_ms,
            reason,
            superseded_by
        ],
    )?;
    Ok(())
}

/// The accepted contracts on exactly `symbol_path` other than `except`.
pub(crate) fn accepted_on(db: &dyn Db, symbol_path: &str, except: &str) -> DbResult<Vec<String>> {
    db.query_map(
        "SELECT id FROM contracts WHERE symbol_path = ?1 AND status = 'accepted' AND id <> ?2",
        args![symbol_path, except],
        |r| r.get(0),
    )
}

/// Accepted contracts on symbols of exactly `file`, each with the path as its proposer
/// named it (the record's own `symbol_path` is the canonical one, which finds the symbol).
pub(crate) fn accepted_in_file(db: &dyn Db, file: &str) -> DbResult<Vec<(ContractRecord, String)>> {
    let order = db.dialect().pick("rowid", "seq");
    db.query_map(
        &format!(
            "SELECT {COLUMNS}, COALESCE(spelling, symbol_path) FROM contracts
             WHERE file = ?1 AND status = 'accepted'
             ORDER BY proposed_at, {order}"
        ),
        args![file],
        |r| Ok((record(r)?, r.get(12)?)),
    )
}

/// Number of contracts.
pub(crate) fn count(db: &dyn Db) -> DbResult<i64> {
    db.query_row("SELECT COUNT(*) FROM contracts", args![], |r| r.get(0))
}

fn record(r: &Row) -> DbResult<ContractRecord> {
    let status: String = r.get(4)?;
    Ok(ContractRecord {
        contract_id: r.get(0)?,
        proposer_session_id: r.get(1)?,
        symbol_path: r.get(2)?,
        signature: r.get(3)?,
        status: ContractStatus::parse(&status).ok_or_else(|| DbError::Invalid {
            column: 4,
            reason: format!("unknown contract status {status:?}"),
        })?,
        responder_session_id: r.get(5)?,
        proposed_at: r.get(6)?,
        responded_at: r.get(7)?,
        retired: match (r.get::<Option<String>>(8)?, r.get::<Option<i64>>(9)?) {
            (Some(by), Some(at)) => Some(ContractRetirement {
                by,
                at,
                reason: r.get::<Option<String>>(10)?.unwrap_or_default(),
                superseded_by: r.get(11)?,
            }),
            _ => None,
        },
    })
}
