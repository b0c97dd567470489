//! The store boundary: everything the store modules and the method handlers need from a
//! database, with one implementation per backend (SQLite's connection here, PostgreSQL's
//! transaction in [`super::pg`]). Handlers reach state only through `&dyn Db`, so they do
//! not know which backend they use.
//!
//! Statements are written once, in SQLite's spelling with `?N` parameters; the
//! PostgreSQL backend rewrites `?N` to `$N`. Where the two dialects differ (JSON array
//! arguments, SQLite's `wit_key` and `rowid`), the statement's own module picks per
//! [`Dialect`]. Integers are 64-bit on both (`BIGINT` in PostgreSQL), booleans travel as
//! 0/1 integers (SQLite has no other kind), and text is UTF-8.

use std::fmt;

/// Which SQL dialect a [`Db`] speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// The embedded default.
    Sqlite,
    /// The shared store.
    Postgres,
}

impl Dialect {
    /// `sqlite` on SQLite, `postgres` on PostgreSQL.
    pub(crate) fn pick<'s>(self, sqlite: &'s str, postgres: &'s str) -> &'s str {
        match self {
            Dialect::Sqlite => sqlite,
            Dialect::Postgres => postgres,
        }
    }
}

/// Why a statement failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DbError {
    /// SQLite failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed; the message names the store by host and database only.
    #[error("{0}")]
    Postgres(String),
    /// A query that must return a row returned none.
    #[error("the query returned no row")]
    NoRow,
    /// A stored value this build cannot read (a database edited by hand, or by a newer
    /// wit).
    #[error("column {column}: {reason}")]
    Invalid { column: usize, reason: String },
    /// A column held another type than the one read.
    #[error("column {column}: expected {expected}, found {found}")]
    Type {
        column: usize,
        expected: &'static str,
        found: &'static str,
    },
}

/// Results of the store.
pub(crate) type DbResult<T> = Result<T, DbError>;

/// One statement argument.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg<'a> {
    Null,
    Int(i64),
    Text(&'a str),
}

impl From<i64> for Arg<'_> {
    fn from(v: i64) -> Self {
        Arg::Int(v)
    }
}

impl From<bool> for Arg<'_> {
    fn from(v: bool) -> Self {
        Arg::Int(i64::from(v))
    }
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(v: &'a str) -> Self {
        Arg::Text(v)
    }
}

impl<'a> From<&'a String> for Arg<'a> {
    fn from(v: &'a String) -> Self {
        Arg::Text(v)
    }
}

impl<'a, T: Into<Arg<'a>>> From<Option<T>> for Arg<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Arg::Null, Into::into)
    }
}

impl<'a> From<&'a Option<String>> for Arg<'a> {
    fn from(v: &'a Option<String>) -> Self {
        v.as_deref().map_or(Arg::Null, Arg::Text)
    }
}

/// Statement arguments: `args![a, b, c]` (each anything with `Into<Arg>`).
macro_rules! args {
    ($($a:expr),* $(,)?) => {
        &[$($crate::store::db::Arg::from($a)),*][..]
    };
}
pub(crate) use args;

/// One value of a result row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bool(bool),
    Blob(Vec<u8>),
}

impl Cell {
    fn kind(&self) -> &'static str {
        match self {
            Cell::Null => "NULL",
            Cell::Int(_) => "an integer",
            Cell::Real(_) => "a real",
            Cell::Text(_) => "text",
            Cell::Bool(_) => "a boolean",
            Cell::Blob(_) => "a blob",
        }
    }
}

/// One result row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row(pub(crate) Vec<Cell>);

impl Row {
    /// Column `i` as `T`.
    pub(crate) fn get<T: FromCell>(&self, i: usize) -> DbResult<T> {
        let cell = self.0.get(i).unwrap_or(&Cell::Null);
        T::from_cell(cell).ok_or(DbError::Type {
            column: i,
            expected: T::EXPECTED,
            found: cell.kind(),
        })
    }
}

/// What a [`Cell`] can be read as.
pub(crate) trait FromCell: Sized {
    /// Named in type errors.
    const EXPECTED: &'static str;
    /// `None` when the cell holds another type.
    fn from_cell(cell: &Cell) -> Option<Self>;
}

impl FromCell for i64 {
    const EXPECTED: &'static str = "an integer";
    fn from_cell(cell: &Cell) -> Option<Self> {
        match cell {
            Cell::Int(v) => Some(*v),
            Cell::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }
}

impl FromCell for bool {
    const EXPECTED: &'static str = "a boolean";
    fn from_cell(cell: &Cell) -> Option<Self> {
        match cell {
            Cell::Int(v) => Some(*v != 0),
            Cell::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

impl FromCell for String {
    const EXPECTED: &'static str = "text";
    fn from_cell(cell: &Cell) -> Option<Self> {
        match cell {
            Cell::Text(t) => Some(t.clone()),
            _ => None,
        }
    }
}

impl<T: FromCell> FromCell for Option<T> {
    const EXPECTED: &'static str = T::EXPECTED;
    fn from_cell(cell: &Cell) -> Option<Self> {
        match cell {
            Cell::Null => Some(None),
            other => T::from_cell(other).map(Some),
        }
    }
}

/// A query to run together with others ([`Db::rows_all`]).
pub(crate) struct Query<'a> {
    pub sql: String,
    pub args: Vec<Arg<'a>>,
}

/// An owned statement argument (a statement kept past its caller's borrow).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OwnedArg {
    Null,
    Int(i64),
    Text(String),
}

impl OwnedArg {
    /// The owned copy of `a`.
    pub(crate) fn of(a: &Arg<'_>) -> Self {
        match a {
            Arg::Null => OwnedArg::Null,
            Arg::Int(v) => OwnedArg::Int(*v),
            Arg::Text(t) => OwnedArg::Text((*t).to_owned()),
        }
    }

    /// Borrowed again.
    pub(crate) fn arg(&self) -> Arg<'_> {
        match self {
            OwnedArg::Null => Arg::Null,
            OwnedArg::Int(v) => Arg::Int(*v),
            OwnedArg::Text(t) => Arg::Text(t),
        }
    }

    /// Whether `a` is this argument.
    pub(crate) fn is(&self, a: &Arg<'_>) -> bool {
        match (self, a) {
            (OwnedArg::Null, Arg::Null) => true,
            (OwnedArg::Int(x), Arg::Int(y)) => x == y,
            (OwnedArg::Text(x), Arg::Text(y)) => x == y,
            _ => false,
        }
    }
}

/// A read a write job declares before it runs, with what its answer depends on.
///
/// A job of a batch reads, decides, then writes. On PostgreSQL each read is a round
/// trip made while the project's write lock is held, so a batch of k jobs held the lock
/// for k + 2 round trips. A job that declares its first reads (a [`Prefetch`]) lets the
/// batch send every job's declared reads together with its `BEGIN` and the lock, in the
/// same round trip (the server runs them once the lock is taken); the job is then
/// answered from them, unless an earlier job of the batch wrote something they depend on
/// (then it reads for itself, as before). A batch is then two round trips, whatever its
/// size. SQLite ignores the declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Read {
    /// The query, as the job will run it.
    pub sql: String,
    /// Its arguments.
    pub args: Vec<OwnedArg>,
    /// What its answer depends on.
    pub depends: Vec<Dep>,
}

impl Read {
    /// The query to run.
    pub(crate) fn query(&self) -> Query<'_> {
        Query {
            sql: self.sql.clone(),
            args: self.args.iter().map(OwnedArg::arg).collect(),
        }
    }

    /// Whether `query` is this read.
    pub(crate) fn is(&self, sql: &str, args: &[Arg<'_>]) -> bool {
        self.sql == sql
            && self.args.len() == args.len()
            && self.args.iter().zip(args).all(|(a, b)| a.is(b))
    }
}

/// What a declared [`Read`]'s answer depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Dep {
    /// The rows of `table` whose key (the column the read selects by) is the value.
    Row(&'static str, String),
    /// Any row of `table`.
    Table(&'static str),
}

/// The reads a job declares. They must not depend on the clock: they are sent before it
/// is read, with the batch's `BEGIN` (a job checks expiry on their answers instead).
pub(crate) type Prefetch = Box<dyn FnOnce() -> Vec<Read> + Send>;

/// A database session the store runs statements on: inside a write, its transaction.
pub(crate) trait Db {
    /// Runs a statement; returns how many rows it changed.
    fn execute(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<usize>;
    /// Runs a query; returns every row.
    fn rows(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<Vec<Row>>;
    /// The dialect to write statements in.
    fn dialect(&self) -> Dialect;
    /// The store's clock, Unix ms: the host's for SQLite; for PostgreSQL the server's,
    /// read once per transaction, so that every daemon sharing it decides expiry by one
    /// clock.
    fn now_ms(&self) -> i64;
    /// A count that grows with every change made through this session: a job after which
    /// it stands where it stood changed nothing, and wakes no waiter (`store::batch`).
    /// SQLite counts the rows changed; PostgreSQL, whose statements may not have run
    /// yet, the statements sent or held that may change something.
    fn changed(&self) -> u64;

    /// Runs a statement whose result nobody reads (an event, an audit record, a row
    /// written blind). SQLite runs it now. PostgreSQL sends it together with the next
    /// statement that needs an answer, or with the commit, so that it costs no round trip
    /// of its own; statements still run in the order they were issued, so a later read
    /// sees it. Should it fail, every later statement of the transaction fails with its
    /// error, and so does the commit: no write is acknowledged that did not happen.
    fn execute_later(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<()> {
        self.execute(sql, args).map(drop)
    }

    /// Runs `queries` as if one after another; every one's rows, in order. PostgreSQL
    /// sends them all in one round trip.
    fn rows_all(&self, queries: &[Query<'_>]) -> DbResult<Vec<Vec<Row>>> {
        queries.iter().map(|q| self.rows(&q.sql, &q.args)).collect()
    }

    /// Starts a job of a batch (see `store::batch`): from here until [`Db::job_ended`],
    /// its changes can be undone alone. SQLite takes a savepoint.
    fn job_started(&self) -> DbResult<()> {
        self.execute_later("SAVEPOINT job", args![])
    }

    /// Ends the job: `ok` keeps its changes, else they are undone (and the rest of the
    /// batch goes on).
    fn job_ended(&self, ok: bool) -> DbResult<()> {
        if !ok {
            self.execute_later("ROLLBACK TO job", args![])?;
        }
        self.execute_later("RELEASE job", args![])
    }
}

/// Conveniences over [`Db::rows`].
pub(crate) trait DbExt: Db {
    /// Every row, each mapped by `f`.
    fn query_map<T>(
        &self,
        sql: &str,
        args: &[Arg<'_>],
        f: impl FnMut(&Row) -> DbResult<T>,
    ) -> DbResult<Vec<T>> {
        self.rows(sql, args)?.iter().map(f).collect()
    }

    /// The first row mapped by `f`, if there is one.
    fn query_opt<T>(
        &self,
        sql: &str,
        args: &[Arg<'_>],
        f: impl FnOnce(&Row) -> DbResult<T>,
    ) -> DbResult<Option<T>> {
        self.rows(sql, args)?.first().map(f).transpose()
    }

    /// The first row mapped by `f`; [`DbError::NoRow`] when there is none.
    fn query_row<T>(
        &self,
        sql: &str,
        args: &[Arg<'_>],
        f: impl FnOnce(&Row) -> DbResult<T>,
    ) -> DbResult<T> {
        self.query_opt(sql, args, f)?.ok_or(DbError::NoRow)
    }
}

impl<D: Db + ?Sized> DbExt for D {}

impl rusqlite::ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Arg::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Arg::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Arg::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
        })
    }
}

impl Db for rusqlite::Connection {
    fn execute(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<usize> {
        Ok(self
            .prepare_cached(sql)?
            .execute(rusqlite::params_from_iter(args))?)
    }

    fn rows(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<Vec<Row>> {
        use rusqlite::types::ValueRef;
        let mut stmt = self.prepare_cached(sql)?;
        let width = stmt.column_count();
        let mut rows = stmt.query(rusqlite::params_from_iter(args))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut cells = Vec::with_capacity(width);
            for i in 0..width {
                cells.push(match r.get_ref(i)? {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(v) => Cell::Int(v),
                    ValueRef::Real(v) => Cell::Real(v),
                    ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
                });
            }
            out.push(Row(cells));
        }
        Ok(out)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn now_ms(&self) -> i64 {
        crate::clock::now_ms()
    }

    fn changed(&self) -> u64 {
        self.total_changes()
    }
}

/// A store that cannot run statements right now: every one fails with why. A job handed
/// it still runs to its end, so that its caller is answered with that reason.
pub(crate) struct Failing {
    /// Why (names the store).
    pub reason: String,
    /// The dialect of the store it stands for.
    pub dialect: Dialect,
}

impl Db for Failing {
    fn execute(&self, _: &str, _: &[Arg<'_>]) -> DbResult<usize> {
        Err(DbError::Postgres(self.reason.clone()))
    }

    fn rows(&self, _: &str, _: &[Arg<'_>]) -> DbResult<Vec<Row>> {
        Err(DbError::Postgres(self.reason.clone()))
    }

    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn now_ms(&self) -> i64 {
        crate::clock::now_ms()
    }

    fn changed(&self) -> u64 {
        0
    }
}

/// A transaction is its connection (`Store::write` hands out one).
impl Db for rusqlite::Transaction<'_> {
    fn execute(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<usize> {
        Db::execute(&**self, sql, args)
    }

    fn rows(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<Vec<Row>> {
        Db::rows(&**self, sql, args)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn now_ms(&self) -> i64 {
        crate::clock::now_ms()
    }

    fn changed(&self) -> u64 {
        self.total_changes()
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_as_the_types_written_and_refuse_others_by_name() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let db: &dyn Db = &conn;
        db.execute("CREATE TABLE t (i INTEGER, s TEXT, n TEXT)", args![])
            .unwrap();
        let none: Option<&str> = None;
        db.execute(
            "INSERT INTO t VALUES (?1, ?2, ?3)",
            args![-7_i64, "é", none],
        )
        .unwrap();
        let (i, s, n, flag) = db
            .query_row("SELECT i, s, n, i < 0 FROM t", args![], |r| {
                Ok((
                    r.get::<i64>(0)?,
                    r.get::<String>(1)?,
                    r.get::<Option<String>>(2)?,
                    r.get::<bool>(3)?,
                ))
            })
            .unwrap();
        assert_eq!((i, s.as_str(), n, flag), (-7, "é", None, true));
        let wrong = db
            .query_row("SELECT s FROM t", args![], |r| r.get::<i64>(0))
            .unwrap_err();
        assert_eq!(
            wrong.to_string(),
            "column 0: expected an integer, found text"
        );
        let missing = db.query_row("SELECT i FROM t WHERE i > 0", args![], |r| r.get::<i64>(0));
        assert!(matches!(missing, Err(DbError::NoRow)));
    }
}
