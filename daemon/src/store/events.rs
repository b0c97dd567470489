//! The event log: every state change, with a durable, gap-free sequence number, written in
//! the same transaction as the change it describes (so an event exists exactly when its
//! change was committed, and a rolled-back savepoint takes its events with it).

use rusqlite::Connection;
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

/// Appends an event (inside the write that makes the change); returns its sequence number.
pub(crate) fn append(
    conn: &Connection,
    at: i64,
    kind: &str,
    session_id: Option<&str>,
    subject: &str,
    data: &Value,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO events (at, kind, session_id, subject, data) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute((at, kind, session_id, subject, data.to_string()))?;
    Ok(conn.last_insert_rowid())
}

/// Events after `since`, oldest first, at most `limit`, optionally only of `kinds` and of
/// `session_id`.
pub(crate) fn since(
    conn: &Connection,
    since: i64,
    limit: usize,
    kinds: Option<&[String]>,
    session_id: Option<&str>,
) -> rusqlite::Result<Vec<Event>> {
    let kinds_json = kinds.map(|k| serde_json::to_string(k).unwrap_or_else(|_| "[]".into()));
    conn.prepare_cached(
        "SELECT seq, at, kind, session_id, subject, data FROM events
         WHERE seq > ?1
           AND (?2 IS NULL OR kind IN (SELECT value FROM json_each(?2)))
           AND (?3 IS NULL OR session_id = ?3)
         ORDER BY seq LIMIT ?4",
    )?
    .query_map((since, kinds_json, session_id, limit as i64), |r| {
        let data: String = r.get(5)?;
        Ok(Event {
            seq: r.get(0)?,
            at: r.get(1)?,
            kind: r.get(2)?,
            session_id: r.get(3)?,
            subject: r.get(4)?,
            data: serde_json::from_str(&data).unwrap_or(Value::Null),
        })
    })?
    .collect()
}

/// The last sequence number written (0 when none).
pub(crate) fn last_seq(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM events")?
        .query_row([], |r| r.get(0))
}
