//! Locks. A lock whose `expires_at <= now` is absent for every purpose.

use super::db::{Arg, Db, DbExt, DbResult, Dep, OwnedArg, Query, Read, Row, args};

/// A stored, unexpired lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LockRow {
    /// The canonical path the lock is stored and excluded under.
    pub symbol_path: String,
    pub session_id: String,
    pub acquired_at: i64,
    pub expires_at: i64,
    /// The path as its holder named it (`src/store.py:get` for the canonical
    /// `src/store.py:Store.get`): what protocol v1 answers with. The canonical path for
    /// rows written before it was kept.
    pub spelling: String,
}

/// `SELECT` of the columns [`row`] reads, from `locks`, followed by `$rest` (a literal):
/// one list for every query that reads whole lock rows.
macro_rules! select_locks {
    ($rest:literal) => {
        concat!(
            "SELECT symbol_path, session_id, acquired_at, expires_at, ",
            "COALESCE(spelling, symbol_path) FROM locks ",
            $rest
        )
    };
}

/// Most locks of other sessions [`held_by_others`] lists by name.
pub(crate) const OTHERS_LISTED: usize = 64;

/// The live locks of sessions other than one, as [`held_by_others`] reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Others {
    /// None at all.
    None,
    /// These, at most [`OTHERS_LISTED`].
    Few(Vec<LockRow>),
    /// More than [`OTHERS_LISTED`].
    Many,
}

/// The locks of sessions other than `me` live at `now_ms` (see [`Others`]). Bounded: it
/// walks the live locks by the expiry index and stops at the [`OTHERS_LISTED`] + 1st of
/// another session (only `me`'s own live locks are stepped over, a few as agents lock).
pub(crate) fn held_by_others(db: &dyn Db, me: &str, now_ms: i64) -> DbResult<Others> {
    let sql = format!(
        "{} LIMIT {}",
        select_locks!("WHERE expires_at > ?2 AND session_id <> ?1"),
        OTHERS_LISTED + 1
    );
    let rows = db.rows(&sql, args![me, now_ms])?;
    if rows.len() > OTHERS_LISTED {
        return Ok(Others::Many);
    }
    let locks = rows.iter().map(row).collect::<DbResult<Vec<LockRow>>>()?;
    Ok(if locks.is_empty() {
        Others::None
    } else {
        Others::Few(locks)
    })
}

/// The unexpired lock on `symbol_path`, if any.
pub(crate) fn get(db: &dyn Db, symbol_path: &str, now_ms: i64) -> DbResult<Option<LockRow>> {
    let q = get_query(symbol_path, now_ms);
    first(&db.rows(&q.sql, &q.args)?)
}

/// The statement that takes or refreshes one lock; its first argument is the lock's path
/// (the PostgreSQL store knows it by this text: see `store::pg`'s `written`).
pub(crate) const TAKE: &str =
    "INSERT INTO locks (symbol_path, session_id, acquired_at, expires_at, spelling)
     VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT(symbol_path) DO UPDATE SET session_id = excluded.session_id,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at,
         spelling = excluded.spelling";

/// The statement that deletes one lock; its argument is the lock's path.
pub(crate) const DELETE: &str = "DELETE FROM locks WHERE symbol_path = ?1";

/// [`get_any_query`] declared ahead (see [`crate::store::db::Read`]): it does not
/// depend on the clock (expiry is checked on its answer, [`live`]), so it can travel with
/// the batch's `BEGIN`.
pub(crate) fn get_any_read(symbol_path: &str) -> Read {
    read_of(get_any_query(symbol_path), symbol_path)
}

/// The lock of the first of `rows` if it has not expired at `now_ms`.
pub(crate) fn live(rows: &[Row], now_ms: i64) -> DbResult<Option<LockRow>> {
    Ok(first(rows)?.filter(|l| l.expires_at > now_ms))
}

fn read_of(q: Query<'_>, symbol_path: &str) -> Read {
    Read {
        args: q.args.iter().map(OwnedArg::of).collect(),
        sql: q.sql,
        depends: vec![Dep::Row("locks", symbol_path.to_owned())],
    }
}

/// [`get`] as a query to run with others ([`Db::rows_all`]); [`first`] reads its rows.
pub(crate) fn get_query(symbol_path: &str, now_ms: i64) -> Query<'_> {
    Query {
        sql: select_locks!("WHERE symbol_path = ?1 AND expires_at > ?2").to_owned(),
        args: vec![Arg::Text(symbol_path), Arg::Int(now_ms)],
    }
}

/// The row of `symbol_path`, expired or not, as a query to run with others; [`first`]
/// reads its rows.
pub(crate) fn get_any_query(symbol_path: &str) -> Query<'_> {
    Query {
        sql: select_locks!("WHERE symbol_path = ?1").to_owned(),
        args: vec![Arg::Text(symbol_path)],
    }
}

/// The lock of the first of `rows`, if any.
pub(crate) fn first(rows: &[Row]) -> DbResult<Option<LockRow>> {
    rows.first().map(row).transpose()
}

/// Acquires or refreshes the lock (call inside a write transaction). `Err(holder)` when
/// another session holds an unexpired lock on it.
pub(crate) fn acquire(
    db: &dyn Db,
    symbol_path: &str,
    spelling: &str,
    session_id: &str,
    now_ms: i64,
    expires_at: i64,
) -> DbResult<Result<LockRow, LockRow>> {
    let current = get(db, symbol_path, now_ms)?;
    take(
        db,
        current,
        symbol_path,
        spelling,
        session_id,
        now_ms,
        expires_at,
    )
}

/// [`acquire`] given the row `current` on `symbol_path` (expired or not) read in the same
/// write: the lock is written without waiting for an answer ([`Db::execute_later`]).
pub(crate) fn take(
    db: &dyn Db,
    current: Option<LockRow>,
    symbol_path: &str,
    spelling: &str,
    session_id: &str,
    now_ms: i64,
    expires_at: i64,
) -> DbResult<Result<LockRow, LockRow>> {
    if let Some(holder) = current
        && holder.expires_at > now_ms
        && holder.session_id != session_id
    {
        return Ok(Err(holder));
    }
    db.execute_later(
        TAKE,
        args![symbol_path, session_id, now_ms, expires_at, spelling],
    )?;
    Ok(Ok(LockRow {
        symbol_path: symbol_path.to_owned(),
        session_id: session_id.to_owned(),
        acquired_at: now_ms,
        expires_at,
        spelling: spelling.to_owned(),
    }))
}

/// Deletes the lock row of `symbol_path`.
pub(crate) fn delete(db: &dyn Db, symbol_path: &str) -> DbResult<()> {
    db.execute_later(DELETE, args![symbol_path])
}

/// Unexpired locks, optionally of one session, oldest first.
pub(crate) fn list(db: &dyn Db, session_id: Option<&str>, now_ms: i64) -> DbResult<Vec<LockRow>> {
    db.query_map(
        select_locks!(
            "WHERE expires_at > ?1 AND (?2 IS NULL OR session_id = ?2)
             ORDER BY acquired_at, symbol_path"
        ),
        args![now_ms, session_id],
        row,
    )
}

/// Number of unexpired locks.
pub(crate) fn count(db: &dyn Db, now_ms: i64) -> DbResult<i64> {
    db.query_row(
        "SELECT COUNT(*) FROM locks WHERE expires_at > ?1",
        args![now_ms],
        |r| r.get(0),
    )
}

/// Deletes expired locks; returns those this call deleted.
///
/// Row by row, each delete naming the expiry it saw: two daemons sharing a store may purge
/// at the same moment, and a lock must end (and be announced) once. On PostgreSQL the
/// second delete waits for the first transaction and then matches nothing; on SQLite
/// writes are serial anyway.
pub(crate) fn purge_expired(db: &dyn Db, now_ms: i64) -> DbResult<Vec<LockRow>> {
    let expired = db.query_map(
        select_locks!("WHERE expires_at <= ?1 ORDER BY expires_at, symbol_path"),
        args![now_ms],
        row,
    )?;
    let mut purged = Vec::with_capacity(expired.len());
    for lock in expired {
        let deleted = db.execute(
            "DELETE FROM locks WHERE symbol_path = ?1 AND session_id = ?2 AND expires_at = ?3",
            args![
                lock.symbol_path.as_str(),
                lock.session_id.as_str(),
                lock.expires_at
            ],
        )?;
        if deleted == 1 {
            purged.push(lock);
        }
    }
    Ok(purged)
}

/// The earliest expiry of any lock (expired or not), when there is a lock.
pub(crate) fn next_expiry(db: &dyn Db) -> DbResult<Option<i64>> {
    db.query_row("SELECT MIN(expires_at) FROM locks", args![], |r| r.get(0))
}

fn row(r: &Row) -> DbResult<LockRow> {
    Ok(LockRow {
        symbol_path: r.get(0)?,
        session_id: r.get(1)?,
        acquired_at: r.get(2)?,
        expires_at: r.get(3)?,
        spelling: r.get(4)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The other sessions' live locks: ours and expired ones left out, each named up to
    /// the bound, past it only that there are more.
    #[test]
    fn held_by_others_leaves_out_ours_and_the_expired_and_stops_past_the_bound() {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        crate::store::schema::migrate(&mut conn).unwrap();
        let db: &dyn Db = &conn;
        let now = 1_000_i64;
        let put = |path: &str, session: &str, expires_at: i64| {
            db.execute(TAKE, args![path, session, 0_i64, expires_at, path])
                .unwrap();
        };
        assert_eq!(held_by_others(db, "me", now).unwrap(), Others::None);
        put("a.ts:mine", "me", now + 10);
        put("a.ts:old", "them", now);
        assert_eq!(held_by_others(db, "me", now).unwrap(), Others::None);
        put("b.ts:f", "them", now + 10);
        assert_eq!(
            held_by_others(db, "me", now).unwrap(),
            Others::Few(vec![LockRow {
                symbol_path: "b.ts:f".to_owned(),
                session_id: "them".to_owned(),
                acquired_at: 0,
                expires_at: now + 10,
                spelling: "b.ts:f".to_owned(),
            }])
        );
        // As many as it names: every one of them.
        for i in 1..OTHERS_LISTED {
            put(&format!("c{i}.ts:f"), "someone", now + 10);
        }
        let Others::Few(named) = held_by_others(db, "me", now).unwrap() else {
            panic!("{OTHERS_LISTED} locks are few enough to name");
        };
        assert_eq!(named.len(), OTHERS_LISTED);
        // One more: many. Seen from "someone", its own 64 are not among the others.
        put("d.ts:f", "someone", now + 10);
        assert_eq!(held_by_others(db, "me", now).unwrap(), Others::Many);
        let Others::Few(named) = held_by_others(db, "someone", now).unwrap() else {
            panic!("only b.ts:f and a.ts:mine are not someone's");
        };
        assert_eq!(named.len(), 2);
    }
}
