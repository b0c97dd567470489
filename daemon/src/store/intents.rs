//! Intents and their per-file rows.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use super::db::{Db, DbError, DbExt, DbResult, Dialect, Row, args};
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
pub(crate) fn insert(db: &dyn Db, record: &IntentRecord, files: &FileRows) -> DbResult<()> {
    let seq: i64 = db.query_row(
        &format!(
            "INSERT INTO intents ({COLUMNS}, file_set)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING seq"
        ),
        args![
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
            &files.set
        ],
        |r| r.get(0),
    )?;
    let live = record.status.is_live();
    let [plain, ranged] = match db.dialect() {
        Dialect::Sqlite => [
            "INSERT INTO intent_files (file_key, live, intent_seq, file)
             SELECT wit_key(value), ?3, ?1, value FROM json_each(?2)",
            "INSERT INTO intent_files (file_key, live, intent_seq, file, start_byte, end_byte)
             SELECT wit_key(value ->> 0), ?3, ?1, value ->> 0, value ->> 1, value ->> 2
             FROM json_each(?2)",
        ],
        Dialect::Postgres => [
            "INSERT INTO intent_files (file, live, intent_seq)
             SELECT value, ?3, ?1 FROM jsonb_array_elements_text(?2::text::jsonb) AS j(value)",
            "INSERT INTO intent_files (file, live, intent_seq, start_byte, end_byte)
             SELECT value ->> 0, ?3, ?1, (value ->> 1)::bigint, (value ->> 2)::bigint
             FROM jsonb_array_elements(?2::text::jsonb) AS j(value)",
        ],
    };
    db.execute_later(plain, args![seq, &files.plain, live])?;
    db.execute_later(ranged, args![seq, &files.ranged, live])?;
    Ok(())
}

/// The overlap queries of [`overlapping_live_of_others`] in SQLite: the files are walked
/// once (`CROSS JOIN` keeps that order), each a seek of the live rows on that file.
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

/// [`OVERLAP_SQL`] in PostgreSQL, whose `intent_files` is keyed by the path itself. Each
/// file's rows are a lateral subquery behind `OFFSET 0` (which keeps the planner from
/// flattening it): one primary-key probe per file, whatever the table's statistics say —
/// right after a big declare they still describe an empty table, and the plain join
/// became a nested loop over every row for every file.
const OVERLAP_SQL_PG: [&str; 2] = [
    "SELECT i.seq, i.id, i.session_id, i.description
     FROM jsonb_array_elements_text(?1::text::jsonb) AS j(value)
     CROSS JOIN LATERAL (SELECT f.intent_seq FROM intent_files AS f
                         WHERE f.file = j.value AND f.live = 1 OFFSET 0) AS f
     JOIN intents AS i ON i.seq = f.intent_seq
     WHERE i.session_id <> ?2 AND i.status IN ('declared', 'active')",
    "SELECT i.seq, i.id, i.session_id, i.description
     FROM jsonb_array_elements(?1::text::jsonb) AS j(value)
     CROSS JOIN LATERAL (SELECT f.intent_seq, f.start_byte, f.end_byte FROM intent_files AS f
                         WHERE f.file = j.value ->> 0 AND f.live = 1 OFFSET 0) AS f
     JOIN intents AS i ON i.seq = f.intent_seq
     WHERE i.session_id <> ?2 AND i.status IN ('declared', 'active')
       AND (f.start_byte IS NULL OR f.end_byte IS NULL
            OR ((j.value ->> 1)::bigint < f.end_byte
                AND (j.value ->> 2)::bigint > f.start_byte))",
];

/// Declared/active intents of sessions other than `session_id` that overlap `files` on a
/// shared file (see [`OVERLAP_SQL`]); each once, in declaration order.
pub(crate) fn overlapping_live_of_others(
    db: &dyn Db,
    files: &FileRows,
    session_id: &str,
) -> DbResult<Vec<Overlapping>> {
    let statements = match db.dialect() {
        Dialect::Sqlite => OVERLAP_SQL,
        Dialect::Postgres => OVERLAP_SQL_PG,
    };
    let mut found: BTreeMap<i64, Overlapping> = BTreeMap::new();
    for (sql, json) in statements.iter().zip([&files.plain, &files.ranged]) {
        for r in db.rows(sql, args![json, session_id])? {
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
pub(crate) fn get(db: &dyn Db, intent_id: &str) -> DbResult<Option<IntentRecord>> {
    db.query_opt(
        &format!("SELECT {COLUMNS} FROM intents WHERE id = ?1"),
        args![intent_id],
        record,
    )
}

/// Sets the status and `updated_at` of an intent, and whether its files count in
/// overlap checks (its rows are found by key from its `file_set`).
pub(crate) fn set_status(
    db: &dyn Db,
    intent_id: &str,
    status: IntentStatus,
    now_ms: i64,
) -> DbResult<()> {
    let Some((seq, was_live, file_set)) = db.query_opt(
        "SELECT seq, status IN ('declared', 'active'), file_set FROM intents WHERE id = ?1",
        args![intent_id],
        |r| Ok((r.get::<i64>(0)?, r.get::<bool>(1)?, r.get::<String>(2)?)),
    )?
    else {
        return Ok(());
    };
    db.execute_later(
        "UPDATE intents SET status = ?2, updated_at = ?3 WHERE seq = ?1",
        args![seq, status.as_str(), now_ms],
    )?;
    let live = status.is_live();
    if live != was_live {
        let sql = db.dialect().pick(
            "UPDATE intent_files SET live = ?3
             WHERE file_key IN (SELECT wit_key(value) FROM json_each(?2))
               AND live = ?4 AND intent_seq = ?1",
            "UPDATE intent_files SET live = ?3
             WHERE file IN (SELECT jsonb_array_elements_text(?2::text::jsonb))
               AND live = ?4 AND intent_seq = ?1",
        );
        db.execute_later(sql, args![seq, &file_set, live, was_live])?;
    }
    Ok(())
}

/// Intents matching every given filter; without `status`, declared and active ones.
pub(crate) fn query(
    db: &dyn Db,
    session_id: Option<&str>,
    file: Option<&str>,
    status: Option<IntentStatus>,
) -> DbResult<Vec<IntentRecord>> {
    let by_file = db.dialect().pick(
        "SELECT f.intent_seq FROM intent_files f WHERE f.file_key = wit_key(?2) AND f.file = ?2",
        "SELECT f.intent_seq FROM intent_files f WHERE f.file = ?2",
    );
    db.query_map(
        &format!(
            "SELECT {COLUMNS} FROM intents i
             WHERE (?1 IS NULL OR session_id = ?1)
               AND (?2 IS NULL OR i.seq IN ({by_file}))
               AND ((?3 IS NULL AND status IN ('declared', 'active')) OR status = ?3)
             ORDER BY declared_at, seq"
        ),
        args![session_id, file, status.map(IntentStatus::as_str)],
        record,
    )
}

/// Number of declared and active intents.
pub(crate) fn count_live(db: &dyn Db) -> DbResult<i64> {
    db.query_row(
        "SELECT COUNT(*) FROM intents WHERE status IN ('declared', 'active')",
        args![],
        |r| r.get(0),
    )
}

fn record(r: &Row) -> DbResult<IntentRecord> {
    let status: String = r.get(7)?;
    Ok(IntentRecord {
        intent_id: r.get(0)?,
        session_id: r.get(1)?,
        description: r.get(2)?,
        files: r.get(3)?,
        symbols: r.get(4)?,
        start_byte: r.get(5)?,
        end_byte: r.get(6)?,
        status: IntentStatus::parse(&status).ok_or_else(|| DbError::Invalid {
            column: 7,
            reason: format!("unknown intent status {status:?}"),
        })?,
        declared_at: r.get(8)?,
        updated_at: r.get(9)?,
        owner_ended: None,
    })
}
