//! Intents and their per-file rows.

use rusqlite::{Connection, OptionalExtension};
use wit_core::protocol::{IntentRecord, IntentStatus};

/// One declared file of an intent with that file's byte range (`None`: file-level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileRange {
    pub file: String,
    pub range: Option<(i64, i64)>,
}

/// A live intent of another session touching a file, with its range in that file.
#[derive(Debug, Clone)]
pub(crate) struct LiveOnFile {
    pub rowid: i64,
    pub intent_id: String,
    pub session_id: String,
    pub description: String,
    pub range: Option<(i64, i64)>,
}

const COLUMNS: &str = "id, session_id, description, files, symbols, start_byte, end_byte, \
                       status, declared_at, updated_at";

/// Stores a new intent and its files.
pub(crate) fn insert(
    conn: &Connection,
    record: &IntentRecord,
    files: &[FileRange],
) -> rusqlite::Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO intents ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
    ))?
    .execute((
        &record.intent_id,
        &record.session_id,
        &record.description,
        &record.files,
        &record.symbols,
        record.start_byte,
        record.end_byte,
        record.status.as_str(),
        record.declared_at,
        record.updated_at,
    ))?;
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO intent_files (intent_id, file, start_byte, end_byte)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    for f in files {
        stmt.execute((
            &record.intent_id,
            &f.file,
            f.range.map(|r| r.0),
            f.range.map(|r| r.1),
        ))?;
    }
    Ok(())
}

/// Declared/active intents of sessions other than `session_id` that list `file`.
pub(crate) fn live_on_file_of_others(
    conn: &Connection,
    file: &str,
    session_id: &str,
) -> rusqlite::Result<Vec<LiveOnFile>> {
    conn.prepare_cached(
        "SELECT i.rowid, i.id, i.session_id, i.description, f.start_byte, f.end_byte
         FROM intent_files f JOIN intents i ON i.id = f.intent_id
         WHERE f.file = ?1 AND f.live = 1 AND i.session_id <> ?2
           AND i.status IN ('declared', 'active')",
    )?
    .query_map((file, session_id), |r| {
        let start: Option<i64> = r.get(4)?;
        let end: Option<i64> = r.get(5)?;
        Ok(LiveOnFile {
            rowid: r.get(0)?,
            intent_id: r.get(1)?,
            session_id: r.get(2)?,
            description: r.get(3)?,
            range: start.zip(end),
        })
    })?
    .collect()
}

/// The intent `intent_id`.
pub(crate) fn get(conn: &Connection, intent_id: &str) -> rusqlite::Result<Option<IntentRecord>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM intents WHERE id = ?1"))?
        .query_row([intent_id], record)
        .optional()
}

/// Sets the status and `updated_at` of an intent.
pub(crate) fn set_status(
    conn: &Connection,
    intent_id: &str,
    status: IntentStatus,
    now_ms: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE intents SET status = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute((intent_id, status.as_str(), now_ms))?;
    let live = matches!(status, IntentStatus::Declared | IntentStatus::Active);
    conn.prepare_cached("UPDATE intent_files SET live = ?2 WHERE intent_id = ?1")?
        .execute((intent_id, live))?;
    Ok(())
}

/// Intents matching every given filter; without `status`, declared and active ones.
pub(crate) fn query(
    conn: &Connection,
    session_id: Option<&str>,
    file: Option<&str>,
    status: Option<IntentStatus>,
) -> rusqlite::Result<Vec<IntentRecord>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM intents i
         WHERE (?1 IS NULL OR session_id = ?1)
           AND (?2 IS NULL OR EXISTS (SELECT 1 FROM intent_files f
                                      WHERE f.intent_id = i.id AND f.file = ?2))
           AND ((?3 IS NULL AND status IN ('declared', 'active')) OR status = ?3)
         ORDER BY declared_at, rowid"
    ))?
    .query_map((session_id, file, status.map(IntentStatus::as_str)), record)?
    .collect()
}

/// Number of declared and active intents.
pub(crate) fn count_live(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT COUNT(*) FROM intents WHERE status IN ('declared', 'active')")?
        .query_row([], |r| r.get(0))
}

fn record(r: &rusqlite::Row<'_>) -> rusqlite::Result<IntentRecord> {
    let status: String = r.get(7)?;
    Ok(IntentRecord {
        intent_id: r.get(0)?,
        session_id: r.get(1)?,
        description: r.get(2)?,
        files: r.get(3)?,
        symbols: r.get(4)?,
        start_byte: r.get(5)?,
        end_byte: r.get(6)?,
        status: IntentStatus::parse(&status).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                7,
                rusqlite::types::Type::Text,
                format!("unknown intent status {status:?}").into(),
            )
        })?,
        declared_at: r.get(8)?,
        updated_at: r.get(9)?,
        owner_ended: None,
    })
}
