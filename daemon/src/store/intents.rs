//! Intents and their per-file rows.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use rusqlite::{Connection, OptionalExtension};
use wit_core::protocol::{IntentRecord, IntentStatus};

/// One declared file of an intent with that file's byte range (`None`: file-level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileRange {
    pub file: String,
    pub range: Option<(i64, i64)>,
}

/// A live intent of another session that overlaps the one being declared.
#[derive(Debug, Clone)]
pub(crate) struct Overlapping {
    pub intent_id: String,
    pub session_id: String,
    pub description: String,
}

const COLUMNS: &str = "id, session_id, description, files, symbols, start_byte, end_byte, \
                       status, declared_at, updated_at";

/// The distinct files of an intent as JSON arrays that [`insert`] and
/// [`overlapping_live_of_others`] read through `json_each`, so that a declare of many files
/// is a few statements, not a few per file: the file-level ones as plain strings (the
/// usual case, the cheapest to read), the ones with a byte range as `[file, start, end]`.
/// Both are in the order of their `wit_key`, the order of `intent_files`' key, so that
/// the insert and the lookups walk its b-tree from one end to the other instead of
/// jumping about it. `set` is every file, the intent's `file_set` column.
#[derive(Debug, Clone, Default)]
pub(crate) struct FileRows {
    plain: String,
    ranged: String,
    set: String,
}

impl FileRows {
    /// Encodes `files` (distinct files).
    pub(crate) fn new(files: &[FileRange]) -> Self {
        let mut keyed: Vec<(i64, &FileRange)> = files
            .iter()
            .map(|f| (super::schema::file_key(&f.file), f))
            .collect();
        keyed.sort_unstable_by_key(|(key, _)| *key);
        let plain: Vec<&str> = keyed
            .iter()
            .filter(|(_, f)| f.range.is_none())
            .map(|(_, f)| f.file.as_str())
            .collect();
        let ranged: Vec<(&str, i64, i64)> = keyed
            .iter()
            .filter_map(|(_, f)| f.range.map(|(s, e)| (f.file.as_str(), s, e)))
            .collect();
        let set: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
        let encode = |v: serde_json::Result<String>| v.unwrap_or_else(|_| "[]".to_owned());
        Self {
            plain: encode(serde_json::to_string(&plain)),
            ranged: encode(serde_json::to_string(&ranged)),
            set: encode(serde_json::to_string(&set)),
        }
    }
}

/// Stores a new intent and its files.
pub(crate) fn insert(
    conn: &Connection,
    record: &IntentRecord,
    files: &FileRows,
) -> rusqlite::Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO intents ({COLUMNS}, file_set)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
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
        &files.set,
    ))?;
    let seq = conn.last_insert_rowid();
    let live = record.status.is_live();
    conn.prepare_cached(
        "INSERT INTO intent_files (file_key, live, intent_seq, file)
         SELECT wit_key(value), ?3, ?1, value FROM json_each(?2)",
    )?
    .execute((seq, &files.plain, live))?;
    conn.prepare_cached(
        "INSERT INTO intent_files (file_key, live, intent_seq, file, start_byte, end_byte)
         SELECT wit_key(value ->> 0), ?3, ?1, value ->> 0, value ->> 1, value ->> 2
         FROM json_each(?2)",
    )?
    .execute((seq, &files.ranged, live))?;
    Ok(())
}

/// The overlap queries of [`overlapping_live_of_others`]: the files are walked once
/// (`CROSS JOIN` keeps that order), each a seek of the live rows on that file.
/// A file-level file of mine overlaps every live intent on it; a ranged one those that are
/// file-level there or whose range intersects (`start < otherEnd && end > otherStart`).
pub(crate) const OVERLAP_SQL: [&str; 2] = [
    "SELECT i.seq, i.id, i.session_id, i.description
     FROM json_each(?1) AS j
     CROSS JOIN intent_files AS f
     CROSS JOIN intents AS i
     WHERE f.file_key = wit_key(j.value) AND f.live = 1 AND f.file = j.value
       AND i.seq = f.intent_seq AND i.session_id <> ?2
       AND i.status IN ('declared', 'active')",
    "SELECT i.seq, i.id, i.session_id, i.description
     FROM json_each(?1) AS j
     CROSS JOIN intent_files AS f
     CROSS JOIN intents AS i
     WHERE f.file_key = wit_key(j.value ->> 0) AND f.live = 1 AND f.file = j.value ->> 0
       AND i.seq = f.intent_seq AND i.session_id <> ?2
       AND i.status IN ('declared', 'active')
       AND (f.start_byte IS NULL OR f.end_byte IS NULL
            OR (j.value ->> 1 < f.end_byte AND j.value ->> 2 > f.start_byte))",
];

/// Declared/active intents of sessions other than `session_id` that overlap `files` on a
/// shared file (see [`OVERLAP_SQL`]); each once, in declaration order.
pub(crate) fn overlapping_live_of_others(
    conn: &Connection,
    files: &FileRows,
    session_id: &str,
) -> rusqlite::Result<Vec<Overlapping>> {
    let mut found: BTreeMap<i64, Overlapping> = BTreeMap::new();
    for (sql, json) in OVERLAP_SQL.iter().zip([&files.plain, &files.ranged]) {
        let mut stmt = conn.prepare_cached(sql)?;
        let mut rows = stmt.query((json, session_id))?;
        while let Some(r) = rows.next()? {
            if let Entry::Vacant(slot) = found.entry(r.get(0)?) {
                slot.insert(Overlapping {
                    intent_id: r.get(1)?,
                    session_id: r.get(2)?,
                    description: r.get(3)?,
                });
            }
        }
    }
    Ok(found.into_values().collect())
}

/// The intent `intent_id`.
pub(crate) fn get(conn: &Connection, intent_id: &str) -> rusqlite::Result<Option<IntentRecord>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM intents WHERE id = ?1"))?
        .query_row([intent_id], record)
        .optional()
}

/// Sets the status and `updated_at` of an intent, and whether its files count in
/// overlap checks (its rows are found by key from its `file_set`).
pub(crate) fn set_status(
    conn: &Connection,
    intent_id: &str,
    status: IntentStatus,
    now_ms: i64,
) -> rusqlite::Result<()> {
    let Some((seq, was_live, file_set)) = conn
        .prepare_cached(
            "SELECT seq, status IN ('declared', 'active'), file_set FROM intents WHERE id = ?1",
        )?
        .query_row([intent_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, bool>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .optional()?
    else {
        return Ok(());
    };
    conn.prepare_cached("UPDATE intents SET status = ?2, updated_at = ?3 WHERE seq = ?1")?
        .execute((seq, status.as_str(), now_ms))?;
    let live = status.is_live();
    if live != was_live {
        conn.prepare_cached(
            "UPDATE intent_files SET live = ?3
             WHERE file_key IN (SELECT wit_key(value) FROM json_each(?2))
               AND live = ?4 AND intent_seq = ?1",
        )?
        .execute((seq, &file_set, live, was_live))?;
    }
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
           AND (?2 IS NULL OR i.seq IN (SELECT f.intent_seq FROM intent_files f
                                        WHERE f.file_key = wit_key(?2) AND f.file = ?2))
           AND ((?3 IS NULL AND status IN ('declared', 'active')) OR status = ?3)
         ORDER BY declared_at, seq"
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
