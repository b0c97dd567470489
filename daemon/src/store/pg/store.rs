//! The PostgreSQL store: a small pool of connections to one project's schema, the
//! [`Db`] of its transactions, writes in batches serialized across daemons, and the
//! listener that carries other daemons' commits to this one's waiters.
//!
//! - **One writer at a time, across daemons.** Every batch of writes takes the project's
//!   transaction-scoped advisory lock first, so batches of all daemons sharing the project
//!   run one after another, as SQLite's write lock makes them on one machine: `lock.acquire`
//!   races keep exactly one winner, and event numbers stay gap-free (see `store::events`).
//! - **The database's clock.** Each transaction reads `clock_timestamp()` once, on first
//!   use, and every expiry it decides uses that: machines' clocks differ.
//! - **Events.** Each batch ends with `pg_notify(<schema>, <last seq>)`, delivered at
//!   commit; [`listen`] bumps the daemon's event generation on each, so its waiters and
//!   watchers read the durable log again. After a reconnect it bumps once: what was
//!   missed meanwhile is in the log.
//! - **Failure.** Getting a connection is retried three times (100, 200, 400 ms); every
//!   statement has a deadline; a request that cannot reach the store fails with an error
//!   naming it by host and database ([`super::super::target::shown`]), never hanging.
//!   The pool replaces dead connections, so the daemon recovers by itself when the
//!   database is back.

use std::cell::OnceCell;
use std::error::Error as StdError;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{AsyncMessage, NoTls};

use crate::store::StoreError;
use crate::store::batch::{
    BatchTarget, Batcher, Finish, Job, finish_all, run_caught, run_failing, run_jobs,
};
use crate::store::db::{Arg, Cell, Db, DbError, DbResult, Dialect, Failing, Row};
use crate::store::target::{schema_name, shown};

/// Connections in the pool.
const POOL_SIZE: usize = 4;
/// The server aborts a statement running longer (`statement_timeout`), so that the
/// transaction fails cleanly instead of holding the project's write lock.
const SERVER_STATEMENT_TIMEOUT_MS: u64 = 10_000;
/// The deadline of one round trip on our side: a store that stopped answering (a lost
/// network, a stopped server that did not close its sockets) fails the request.
const STATEMENT_DEADLINE: Duration = Duration::from_secs(15);
/// How long connecting may take.
const CONNECT_DEADLINE: Duration = Duration::from_secs(5);
/// Pauses between attempts to get a connection.
const RETRIES: [Duration; 3] = [
    Duration::from_millis(100),
    Duration::from_millis(200),
    Duration::from_millis(400),
];

/// A batch that ran: how to answer each job, and whether it committed.
type RanBatch = (Vec<Finish>, DbResult<()>);

/// An open PostgreSQL store.
pub(crate) struct PgStore {
    pool: Pool,
    config: tokio_postgres::Config,
    /// Host and database, for messages.
    shown: String,
    /// The project's schema, also the channel of its notifications.
    schema: String,
    /// The project whose state this is.
    project: String,
    /// The advisory lock of the project's writes.
    write_lock: i64,
    batcher: Batcher,
    handle: tokio::runtime::Handle,
}

impl PgStore {
    /// Connects to `url`, migrates `project`'s schema and opens the pool. A store that
    /// cannot be reached, or refuses, is an error naming it (never its credentials).
    pub(crate) async fn connect(url: &str, project: &str) -> Result<Self, String> {
        let at = shown(url);
        let schema = schema_name(project);
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| format!("the PostgreSQL store URL for {at} is invalid: {e}"))?;
        config.connect_timeout(CONNECT_DEADLINE);
        config.keepalives_idle(Duration::from_secs(30));
        // Every connection works in the project's schema: one statement text serves every
        // project, and nothing else in the database is reachable by accident.
        config.options(format!(
            "-c search_path={schema} -c statement_timeout={SERVER_STATEMENT_TIMEOUT_MS} \
             -c client_min_messages=warning"
        ));
        let (mut client, connection) = config.connect(NoTls).await.map_err(|e| {
            format!(
                "cannot reach the PostgreSQL store {at}: {}",
                super::schema::db(e)
            )
        })?;
        tokio::spawn(connection);
        super::schema::migrate(&mut client, project)
            .await
            .map_err(|e| format!("the PostgreSQL store {at}: {e}"))?;
        drop(client);
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(STATEMENT_DEADLINE))
            .create_timeout(Some(CONNECT_DEADLINE))
            .recycle_timeout(Some(CONNECT_DEADLINE))
            .build()
            .map_err(|e| format!("the PostgreSQL store {at}: {e}"))?;
        Ok(Self {
            pool,
            config,
            write_lock: write_lock_key(&schema),
            project: project.to_owned(),
            shown: at,
            schema,
            batcher: Batcher::default(),
            handle: tokio::runtime::Handle::current(),
        })
    }

    /// Host and database.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// The project whose state this is.
    pub(crate) fn project(&self) -> &str {
        &self.project
    }

    /// The connection settings (for [`listen`]).
    pub(crate) fn config(&self) -> &tokio_postgres::Config {
        &self.config
    }

    /// The channel of the project's notifications.
    pub(crate) fn channel(&self) -> &str {
        &self.schema
    }

    /// Runs `f` in a read-only transaction (blocking; call from the blocking pool). It is
    /// `REPEATABLE READ`: every statement of one read sees the same snapshot, as a read of
    /// SQLite does (the event stream reads the log and its last number in one read and
    /// relies on no write coming between); a read-only transaction never fails to
    /// serialize.
    pub(crate) fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn Db) -> Result<T, E>,
    ) -> Result<T, E> {
        let client = match self.client() {
            Ok(c) => c,
            Err(e) => {
                return f(&Failing {
                    reason: e.to_string(),
                    dialect: Dialect::Postgres,
                });
            }
        };
        self.simple(&client, "BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ")
            .map_err(StoreError::from)?;
        let out = f(&PgTx::new(self, &client, None));
        self.finish(client, "COMMIT").map_err(StoreError::from)?;
        out
    }

    /// Runs `f` as one write of its own, now (blocking; call from the blocking pool): the
    /// project's write lock, `f`, the notification, the commit. For work outside the
    /// request batches (`wit store migrate`).
    pub(crate) fn write_now<T>(&self, f: impl FnOnce(&dyn Db) -> DbResult<T>) -> DbResult<T> {
        let client = self.client()?;
        let now = self.begin_write(&client)?;
        let out = f(&PgTx::new(self, &client, Some(now)));
        match out {
            Ok(v) => {
                self.finish(client, &self.commit_sql())?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.finish(client, "ROLLBACK");
                Err(e)
            }
        }
    }

    /// `BEGIN`, the project's write lock and the database's clock, in one round trip.
    fn begin_write(&self, client: &deadpool_postgres::Object) -> DbResult<i64> {
        let rows = self.simple(
            client,
            &format!(
                "BEGIN; SELECT pg_advisory_xact_lock({}), \
                 (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
                self.write_lock
            ),
        )?;
        rows.iter()
            .find_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => r.get(1)?.parse().ok(),
                _ => None,
            })
            .ok_or_else(|| {
                DbError::Postgres(format!("the PostgreSQL store {} sent no clock", self.shown))
            })
    }

    /// The notification of the last event number and `COMMIT`, in one round trip.
    fn commit_sql(&self) -> String {
        format!(
            "SELECT pg_notify('{}', (SELECT COALESCE(MAX(seq), 0) FROM events)::text); COMMIT",
            self.schema
        )
    }

    /// Ends the transaction with `sql` (`COMMIT…` or `ROLLBACK`). A connection whose
    /// transaction could not be ended is taken out of the pool, never handed to another
    /// request in the middle of a transaction.
    fn finish(&self, client: deadpool_postgres::Object, sql: &str) -> DbResult<()> {
        let done = self.simple(&client, sql).map(drop);
        if done.is_err() {
            if sql != "ROLLBACK" {
                let _ = self.simple(&client, "ROLLBACK");
            }
            drop(deadpool_postgres::Object::take(client));
        }
        done
    }

    /// One simple-protocol round trip (several statements, no parameters).
    fn simple(
        &self,
        client: &deadpool_postgres::Object,
        sql: &str,
    ) -> DbResult<Vec<tokio_postgres::SimpleQueryMessage>> {
        self.wait(client.simple_query(sql))
    }

    /// A connection of the pool, retried a few times while the store is unreachable.
    fn client(&self) -> DbResult<deadpool_postgres::Object> {
        let mut last = None;
        for pause in std::iter::once(Duration::ZERO).chain(RETRIES) {
            std::thread::sleep(pause);
            match self
                .handle
                .block_on(tokio::time::timeout(STATEMENT_DEADLINE, self.pool.get()))
            {
                Ok(Ok(client)) => return Ok(client),
                Ok(Err(e)) => last = Some(e.to_string()),
                Err(_) => {
                    last = Some(format!(
                        "no connection within {} s",
                        STATEMENT_DEADLINE.as_secs()
                    ))
                }
            }
        }
        Err(DbError::Postgres(format!(
            "the PostgreSQL store {} is unreachable: {}",
            self.shown,
            last.unwrap_or_default()
        )))
    }

    /// Waits for one round trip, within [`STATEMENT_DEADLINE`].
    fn wait<T>(&self, fut: impl Future<Output = Result<T, tokio_postgres::Error>>) -> DbResult<T> {
        match self
            .handle
            .block_on(tokio::time::timeout(STATEMENT_DEADLINE, fut))
        {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(DbError::Postgres(format!(
                "the PostgreSQL store {}: {}",
                self.shown,
                super::schema::db(e)
            ))),
            Err(_) => Err(DbError::Postgres(format!(
                "the PostgreSQL store {} did not answer within {} s",
                self.shown,
                STATEMENT_DEADLINE.as_secs()
            ))),
        }
    }

    /// Runs one batch: the project's write lock, each job in its savepoint (a batch of one
    /// needs none: its failure rolls back the transaction), the notification, the commit.
    /// `Err` before any job ran hands the jobs back.
    fn try_batch(&self, mut jobs: Vec<Job>) -> Result<RanBatch, (Vec<Job>, DbError)> {
        let client = match self.client() {
            Ok(c) => c,
            Err(e) => return Err((jobs, e)),
        };
        let now = match self.begin_write(&client) {
            Ok(now) => now,
            Err(e) => {
                let _ = self.finish(client, "ROLLBACK");
                return Err((jobs, e));
            }
        };
        let db = PgTx::new(self, &client, Some(now));
        let (finishes, ok) = if jobs.len() == 1 {
            let job = jobs.pop().expect("one job");
            match run_caught(job, &db) {
                Some((ok, finish)) => (vec![finish], ok),
                None => (Vec::new(), false),
            }
        } else {
            (run_jobs(&db, jobs), true)
        };
        let commit = if ok {
            self.finish(client, &self.commit_sql())
        } else {
            // The one job failed and is answered with its own error; nothing to keep.
            self.finish(client, "ROLLBACK")
        };
        Ok((finishes, commit))
    }
}

impl BatchTarget for PgStore {
    fn batcher(&self) -> &Batcher {
        &self.batcher
    }

    /// Never inline: every statement is a round trip to the server.
    fn try_run_batch(&self, jobs: Vec<Job>) -> Result<(), Vec<Job>> {
        Err(jobs)
    }

    fn run_batch(&self, jobs: Vec<Job>, _heavy: bool) {
        match self.try_batch(jobs) {
            Ok((finishes, commit)) => finish_all(finishes, commit.map_err(StoreError::from)),
            Err((jobs, e)) => {
                // Unreachable: each job runs against a store that answers every statement
                // with the error, so its caller learns why, by the store's name.
                tracing::warn!("{e}");
                let reason = e.to_string();
                let finishes = run_failing(jobs, &reason, Dialect::Postgres);
                finish_all(finishes, Err(StoreError::Db(DbError::Postgres(reason))));
            }
        }
    }
}

/// One transaction of the store, as the store modules see it (begun and ended by its
/// [`PgStore`] on this connection).
struct PgTx<'t> {
    store: &'t PgStore,
    client: &'t deadpool_postgres::Object,
    now: OnceCell<i64>,
}

impl<'t> PgTx<'t> {
    fn new(store: &'t PgStore, client: &'t deadpool_postgres::Object, now: Option<i64>) -> Self {
        let cell = OnceCell::new();
        if let Some(now) = now {
            let _ = cell.set(now);
        }
        Self {
            store,
            client,
            now: cell,
        }
    }

    fn prepare(&self, sql: &str) -> DbResult<tokio_postgres::Statement> {
        self.store
            .wait(self.client.prepare_cached(&dollar_parameters(sql)))
    }
}

impl Db for PgTx<'_> {
    fn execute(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<usize> {
        let stmt = self.prepare(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as _).collect();
        let n = self.store.wait(self.client.execute(&stmt, &params))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn rows(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<Vec<Row>> {
        let stmt = self.prepare(sql)?;
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as _).collect();
        let rows = self.store.wait(self.client.query(&stmt, &params))?;
        rows.iter().map(row).collect()
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn now_ms(&self) -> i64 {
        *self.now.get_or_init(|| {
            let read = self.store.wait(self.client.query_one(
                "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
                &[],
            ));
            match read {
                Ok(r) => r.get(0),
                Err(e) => {
                    // The statements after this one fail the same way; the host's clock
                    // is only a stand-in for the error they will report.
                    tracing::warn!("reading the store's clock: {e}");
                    crate::state::now_ms()
                }
            }
        })
    }
}

/// `?N` → `$N` (statements are written in SQLite's spelling; none has a `?` in a literal).
/// A parameter tested with `?N IS NULL` becomes `$N::text IS NULL`: PostgreSQL cannot
/// infer a type from `IS NULL` alone, and every such parameter of the store is an
/// optional text filter (a session, a file, a status, a symbol path).
fn dollar_parameters(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(at) = rest.find('?') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            out.push('?');
            rest = after;
            continue;
        }
        out.push('$');
        out.push_str(&after[..digits]);
        rest = &after[digits..];
        if rest.starts_with(" IS NULL") {
            out.push_str("::text");
        }
    }
    out.push_str(rest);
    out
}

/// The advisory lock key of a project's writes: a hash of its schema name (the same
/// 64-bit FNV-1a as SQLite's `wit_key`), apart from the migration lock's.
fn write_lock_key(schema: &str) -> i64 {
    crate::store::schema::file_key(&format!("{schema}:writes"))
}

fn row(r: &tokio_postgres::Row) -> DbResult<Row> {
    let bad = |column: usize, e: tokio_postgres::Error| DbError::Invalid {
        column,
        reason: e.to_string(),
    };
    let mut cells = Vec::with_capacity(r.len());
    for (i, col) in r.columns().iter().enumerate() {
        let t = col.type_();
        let cell = if *t == Type::INT8 {
            r.try_get::<_, Option<i64>>(i).map(|v| v.map(Cell::Int))
        } else if *t == Type::INT4 {
            r.try_get::<_, Option<i32>>(i)
                .map(|v| v.map(|v| Cell::Int(i64::from(v))))
        } else if *t == Type::INT2 {
            r.try_get::<_, Option<i16>>(i)
                .map(|v| v.map(|v| Cell::Int(i64::from(v))))
        } else if *t == Type::BOOL {
            r.try_get::<_, Option<bool>>(i).map(|v| v.map(Cell::Bool))
        } else if *t == Type::FLOAT8 {
            r.try_get::<_, Option<f64>>(i).map(|v| v.map(Cell::Real))
        } else {
            r.try_get::<_, Option<String>>(i).map(|v| v.map(Cell::Text))
        };
        cells.push(cell.map_err(|e| bad(i, e))?.unwrap_or(Cell::Null));
    }
    Ok(Row(cells))
}

impl ToSql for Arg<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match self {
            Arg::Null => Ok(IsNull::Yes),
            Arg::Int(v) => {
                if *ty == Type::INT4 {
                    i32::try_from(*v)?.to_sql(ty, out)
                } else if *ty == Type::INT2 {
                    i16::try_from(*v)?.to_sql(ty, out)
                } else if *ty == Type::BOOL {
                    (*v != 0).to_sql(ty, out)
                } else if *ty == Type::TEXT || *ty == Type::VARCHAR {
                    v.to_string().as_str().to_sql(ty, out)
                } else {
                    v.to_sql(ty, out)
                }
            }
            // JSONB's binary form is a version byte, then the text.
            Arg::Text(t) if *ty == Type::JSONB => {
                out.extend_from_slice(&[1]);
                out.extend_from_slice(t.as_bytes());
                Ok(IsNull::No)
            }
            Arg::Text(t) => t.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        // Checked per value in `to_sql`: an argument's type follows the statement's.
        true
    }

    to_sql_checked!();
}

/// Listens for the project's notifications on a connection of its own, forever: each
/// one (another daemon's commit, or this one's) bumps `events`, and so does every
/// (re)connect, after which the waiters read the durable log for what they missed.
pub(crate) async fn listen(store: Arc<PgStore>, events: tokio::sync::watch::Sender<u64>) {
    let mut pause = Duration::from_millis(100);
    let mut reported = false;
    loop {
        match store.config().connect(NoTls).await {
            Ok((client, mut connection)) => {
                let channel = store.channel().to_owned();
                let statement = format!("LISTEN \"{channel}\"");
                let mut subscribe = Box::pin(client.batch_execute(&statement));
                let mut subscribed = false;
                loop {
                    tokio::select! {
                        done = &mut subscribe, if !subscribed => match done {
                            Ok(()) => {
                                subscribed = true;
                                pause = Duration::from_millis(100);
                                if reported {
                                    tracing::info!("the PostgreSQL store {} is back", store.shown());
                                    reported = false;
                                }
                                events.send_modify(|g| *g += 1);
                            }
                            Err(_) => break,
                        },
                        message = std::future::poll_fn(|cx| connection.poll_message(cx)) => {
                            match message {
                                Some(Ok(AsyncMessage::Notification(_))) => {
                                    events.send_modify(|g| *g += 1);
                                }
                                Some(Ok(_)) => {}
                                Some(Err(_)) | None => break,
                            }
                        }
                    }
                }
            }
            Err(e) => {
                if !reported {
                    tracing::warn!(
                        "listening to the PostgreSQL store {}: {}; retrying",
                        store.shown(),
                        super::schema::db(e)
                    );
                    reported = true;
                }
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_renumbered_in_place() {
        assert_eq!(
            dollar_parameters("SELECT ?1, ?12 WHERE a = ?2 AND b IS NULL"),
            "SELECT $1, $12 WHERE a = $2 AND b IS NULL"
        );
        assert_eq!(
            dollar_parameters("WHERE (?2 IS NULL OR s = ?2) AND x ?| y"),
            "WHERE ($2::text IS NULL OR s = $2) AND x ?| y"
        );
    }
}
