//! The event log: every state change, with a durable, gap-free sequence number, written in
//! the same transaction as the change it describes (so an event exists exactly when its
//! change was committed, and a rolled-back savepoint takes its events with it).

use super::db::{Db, DbExt, DbResult, args};
use serde::Serialize;
use serde_json::Value;

/// One event as `events.poll` answers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Event {
    /// Position in the log: 1, 2, 3, … with no gap, across restarts.
    pub seq: i64,
    /// Unix ms.
    pub at: i64,
    /// `lock.acquired`, `lock.refreshed`, `lock.released`, `lock.expired`,
    /// `intent.declared`, `intent.updated`, `contract.proposed`, `contract.accepted`,
    /// `contract.rejected`, `contract.withdrawn`, `contract.superseded`.
    pub kind: String,
    /// The session the event is about (the holder, the declarer, the responder, …).
    pub session_id: Option<String>,
    /// What it is about: a symbol path, an intent id, a contract id.
    pub subject: String,
    /// Kind-specific details.
    pub data: Value,
}

/// Appends an event (inside the write that makes the change). Its number is the last one
/// plus one, read in the same write: writes are serialized (SQLite's write lock;
/// PostgreSQL's advisory lock of the project), and a rolled-back write takes its number
/// with it, so the log has no gap (a sequence object would leave one behind every
/// rollback). Nothing waits for it ([`Db::execute_later`]).
pub(crate) fn append(
    db: &dyn Db,
    at: i64,
    kind: &str,
    session_id: Option<&str>,
    subject: &str,
    data: &Value,
) -> DbResult<()> {
    let data = data.to_string();
    db.execute_later(
        "INSERT INTO events (seq, at, kind, session_id, subject, data)
         VALUES ((SELECT COALESCE(MAX(seq), 0) + 1 FROM events), ?1, ?2, ?3, ?4, ?5)",
        args![at, kind, session_id, subject, &data],
    )
}

/// Appends `session.started` for `session` unless the session is known already (SQLite's
/// [`super::sessions::seen`], before it records the session): decided by the statement
/// itself, so that neither waits for an answer.
pub(crate) fn append_session_started(
    db: &dyn Db,
    at: i64,
    session: &str,
    data: &Value,
) -> DbResult<()> {
    let data = data.to_string();
    db.execute_later(
        "INSERT INTO events (seq, at, kind, session_id, subject, data)
         SELECT (SELECT COALESCE(MAX(seq), 0) + 1 FROM events), ?1, 'session.started', ?2,
                ?2, ?3
         WHERE NOT EXISTS (SELECT 1 FROM session_worktrees WHERE session_id = ?2)",
        args![at, session, &data],
    )
}

/// Events after `since`, oldest first, at most `limit`, optionally only of `kinds` and of
/// `session_id`.
pub(crate) fn since(
    db: &dyn Db,
    since: i64,
    limit: usize,
    kinds: Option<&[String]>,
    session_id: Option<&str>,
) -> DbResult<Vec<Event>> {
    let kinds_json = kinds.map(|k| serde_json::to_string(k).unwrap_or_else(|_| "[]".into()));
    let sql = db.dialect().pick(
        "SELECT seq, at, kind, session_id, subject, data FROM events
         WHERE seq > ?1
           AND (?2 IS NULL OR kind IN (SELECT value FROM json_each(?2)))
           AND (?3 IS NULL OR session_id = ?3)
         ORDER BY seq LIMIT ?4",
        "SELECT seq, at, kind, session_id, subject, data FROM events
         WHERE seq > ?1
           AND (?2::text IS NULL
                OR kind IN (SELECT jsonb_array_elements_text(?2::text::jsonb)))
           AND (?3::text IS NULL OR session_id = ?3)
         ORDER BY seq LIMIT ?4",
    );
    db.query_map(
        sql,
        args![since, &kinds_json, session_id, limit as i64],
        |r| {
            let data: String = r.get(5)?;
            Ok(Event {
                seq: r.get(0)?,
                at: r.get(1)?,
                kind: r.get(2)?,
                session_id: r.get(3)?,
                subject: r.get(4)?,
                data: serde_json::from_str(&data).unwrap_or(Value::Null),
            })
        },
    )
}

/// The last sequence number written (0 when none).
pub(crate) fn last_seq(db: &dyn Db) -> DbResult<i64> {
    db.query_row("SELECT COALESCE(MAX(seq), 0) FROM events", args![], |r| {
        r.get(0)
    })
}
