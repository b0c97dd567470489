//! Contracts.

use rusqlite::{Connection, OptionalExtension};
use wit_core::protocol::{ContractRecord, ContractRetirement, ContractStatus};

const COLUMNS: &str = "id, proposer_session_id, symbol_path, signature, status, \
                       responder_session_id, proposed_at, responded_at, \
                       retired_by, retired_at, retire_reason, superseded_by";

/// Stores a new contract; `file` is the part of its symbol path before the first colon.
pub(crate) fn insert(conn: &Connection, c: &ContractRecord, file: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO contracts (id, proposer_session_id, symbol_path, file, signature, status,
                                responder_session_id, proposed_at, responded_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute((
        &c.contract_id,
        &c.proposer_session_id,
        &c.symbol_path,
        file,
        &c.signature,
        c.status.as_str(),
        &c.responder_session_id,
        c.proposed_at,
        c.responded_at,
    ))?;
    Ok(())
}

/// The contract `contract_id`.
pub(crate) fn get(
    conn: &Connection,
    contract_id: &str,
) -> rusqlite::Result<Option<ContractRecord>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM contracts WHERE id = ?1"))?
        .query_row([contract_id], record)
        .optional()
}

/// Records the response to a contract.
pub(crate) fn respond(
    conn: &Connection,
    contract_id: &str,
    status: ContractStatus,
    responder: &str,
    now_ms: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE contracts SET status = ?2, responder_session_id = ?3, responded_at = ?4
         WHERE id = ?1",
    )?
    .execute((contract_id, status.as_str(), responder, now_ms))?;
    Ok(())
}

/// Contracts matching the exact filters, oldest first. Without a status filter only v1's
/// statuses (proposed, accepted, rejected) are listed: withdrawn and superseded contracts
/// are an extension, shown when asked for by status.
pub(crate) fn query(
    conn: &Connection,
    symbol_path: Option<&str>,
    status: Option<ContractStatus>,
) -> rusqlite::Result<Vec<ContractRecord>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM contracts
         WHERE (?1 IS NULL OR symbol_path = ?1)
           AND ((?2 IS NULL AND status IN ('proposed', 'accepted', 'rejected')) OR status = ?2)
         ORDER BY proposed_at, rowid"
    ))?
    .query_map((symbol_path, status.map(ContractStatus::as_str)), record)?
    .collect()
}

/// Retires a contract: `status` is withdrawn or superseded.
pub(crate) fn retire(
    conn: &Connection,
    contract_id: &str,
    status: ContractStatus,
    by: &str,
    reason: &str,
    superseded_by: Option<&str>,
    now_ms: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE contracts SET status = ?2, retired_by = ?3, retired_at = ?4,
                              retire_reason = ?5, superseded_by = ?6
         WHERE id = ?1",
    )?
    .execute((
        contract_id,
        status.as_str(),
        by,
        now_ms,
        reason,
        superseded_by,
    ))?;
    Ok(())
}

/// The accepted contracts on exactly `symbol_path` other than `except`.
pub(crate) fn accepted_on(
    conn: &Connection,
    symbol_path: &str,
    except: &str,
) -> rusqlite::Result<Vec<String>> {
    conn.prepare_cached(
        "SELECT id FROM contracts WHERE symbol_path = ?1 AND status = 'accepted' AND id <> ?2",
    )?
    .query_map((symbol_path, except), |r| r.get(0))?
    .collect()
}

/// Accepted contracts on symbols of exactly `file`.
pub(crate) fn accepted_in_file(
    conn: &Connection,
    file: &str,
) -> rusqlite::Result<Vec<ContractRecord>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM contracts WHERE file = ?1 AND status = 'accepted'
         ORDER BY proposed_at, rowid"
    ))?
    .query_map([file], record)?
    .collect()
}

/// Number of contracts.
pub(crate) fn count(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT COUNT(*) FROM contracts")?
        .query_row([], |r| r.get(0))
}

fn record(r: &rusqlite::Row<'_>) -> rusqlite::Result<ContractRecord> {
    let status: String = r.get(4)?;
    Ok(ContractRecord {
        contract_id: r.get(0)?,
        proposer_session_id: r.get(1)?,
        symbol_path: r.get(2)?,
        signature: r.get(3)?,
        status: ContractStatus::parse(&status).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                4,
                rusqlite::types::Type::Text,
                format!("unknown contract status {status:?}").into(),
            )
        })?,
        responder_session_id: r.get(5)?,
        proposed_at: r.get(6)?,
        responded_at: r.get(7)?,
        retired: match (r.get::<_, Option<String>>(8)?, r.get::<_, Option<i64>>(9)?) {
            (Some(by), Some(at)) => Some(ContractRetirement {
                by,
                at,
                reason: r.get::<_, Option<String>>(10)?.unwrap_or_default(),
                superseded_by: r.get(11)?,
            }),
            _ => None,
        },
    })
}
