//! The PostgreSQL store: a small pool of connections to one project's schema, the
//! [`Db`] of its transactions, writes in batches serialized across daemons, and the
//! listener that carries other daemons' commits to this one's waiters.
//!
//! - **One writer at a time, across daemons.** Every batch of writes takes the project's
//!   transaction-scoped advisory lock first, so batches of all daemons sharing the project
//!   run one after another, as SQLite's write lock makes them on one machine: `lock.acquire`
//!   races keep exactly one winner, and event numbers stay gap-free (see `store::events`).
//! - **Round trips are the cost.** Under that lock a write costs what its round trips to
//!   the server cost, so it makes few: statements whose result nobody reads are sent with
//!   the next one that needs an answer, or with the commit ([`Db::execute_later`], in
//!   order, on one connection); the daemon's writes have a connection of their own on a
//!   single-threaded runtime that the writing thread drives itself (a round trip then
//!   involves no hand-over between threads: 45 µs instead of 80 here); a read's `BEGIN`
//!   travels with its first statement and its `COMMIT` is not waited for.
//! - **Reads declared ahead.** The reads a job declares ([`Read`]: `lock.acquire`'s and
//!   `lock.release`'s) go with the batch's `BEGIN`, the write lock and the clock, in one
//!   round trip, and each job is answered from them unless an earlier job of the batch
//!   wrote what they depend on ([`written`]); so a batch of such jobs is two round trips
//!   under the lock, whatever its size.
//! - **The database's clock.** Each transaction reads `clock_timestamp()` once, on first
//!   use, and every expiry it decides uses that: machines' clocks differ.
//! - **Events.** After each committed batch that may wake a waiter (a job not quiet
//!   changed something: see `store::batch::Committed::woke`; heartbeats do not) the daemon
//!   announces `pg_notify(<schema>, <last seq>)` on a connection of the reads
//!   ([`announce`]); [`listen`]
//!   bumps the daemon's event generation on each, so its waiters and watchers read the
//!   durable log again. After a reconnect it bumps once: what was missed meanwhile is in
//!   the log. The announcement is not part of the write: a `NOTIFY` costs its
//!   transaction's commit 70–150 µs here (a lock on the server's notification queue),
//!   which under the project's write lock every daemon's writes would wait for. Outside,
//!   announcements made while one is on its way are folded into the next. The price is a
//!   daemon killed between a commit and its announcement: the others learn of that change
//!   at the next announcement, from anyone.
//! - **Failure.** Getting a connection is retried three times (100, 200, 400 ms); every
//!   statement has a deadline; a request that cannot reach the store fails with an error
//!   naming it by host and database ([`super::super::target::shown`]), never hanging.
//!   The pool replaces dead connections, so the daemon recovers by itself when the
//!   database is back.

use std::cell::{Cell as StdCell, OnceCell, RefCell};
use std::error::Error as StdError;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use tokio_postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use tokio_postgres::{AsyncMessage, NoTls};

use crate::store::StoreError;
use crate::store::batch::{
    Answer, BatchTarget, Batcher, Job, finish_all, run_caught, run_failing, run_jobs, woke,
};
use crate::store::db::{
    Arg, Cell, Db, DbError, DbResult, Dep, Dialect, Failing, OwnedArg, Query, Read, Row,
};
use crate::store::target::{schema_name, shown};

/// Connections in the pool of reads.
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
type RanBatch = (Vec<Answer>, DbResult<()>);

/// A statement sent later (see [`Db::execute_later`]): it sends itself when first polled.
type Later<'t> = Pin<Box<dyn Future<Output = Result<u64, tokio_postgres::Error>> + 't>>;

/// An open PostgreSQL store.
pub(crate) struct PgStore {
    /// Connections for reads, driven by the daemon's runtime.
    pool: Pool,
    /// The connection of the daemon's writes.
    writer: Writer,
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
    /// Asks [`announce`] to tell every daemon that the log grew.
    grew: Arc<tokio::sync::Notify>,
    announcer: tokio::task::JoinHandle<()>,
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.announcer.abort();
    }
}

/// The writes' connection (a pool of one, which replaces it when it dies) and the
/// single-threaded runtime its I/O runs on, driven by whichever thread is writing: batches
/// run one at a time, so the thread that waits for an answer is the one that reads it.
struct Writer {
    /// `None` only while dropped.
    runtime: Option<tokio::runtime::Runtime>,
    pool: Pool,
}

impl Writer {
    fn new(config: &tokio_postgres::Config) -> Result<Self, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("starting the store's writer: {e}"))?;
        Ok(Self {
            runtime: Some(runtime),
            pool: pool(config, 1)?,
        })
    }
}

impl Drop for Writer {
    /// Without waiting: the store may be dropped on the daemon's runtime, where a
    /// runtime's ordinary drop would block.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A pool of `size` connections with `config`.
fn pool(config: &tokio_postgres::Config, size: usize) -> Result<Pool, String> {
    let manager = Manager::from_config(
        config.clone(),
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(size)
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .wait_timeout(Some(STATEMENT_DEADLINE))
        .create_timeout(Some(CONNECT_DEADLINE))
        .recycle_timeout(Some(CONNECT_DEADLINE))
        .build()
        .map_err(|e| e.to_string())
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
        let failed = |e: String| format!("the PostgreSQL store {at}: {e}");
        let reads = pool(&config, POOL_SIZE).map_err(failed)?;
        let grew = Arc::new(tokio::sync::Notify::new());
        let announcer = tokio::spawn(announce(
            reads.clone(),
            grew.clone(),
            format!(
                "SELECT pg_notify('{schema}', (SELECT COALESCE(MAX(seq), 0) FROM events)::text)"
            ),
            at.clone(),
        ));
        Ok(Self {
            pool: reads,
            writer: Writer::new(&config).map_err(failed)?,
            grew,
            announcer,
            config,
            write_lock: write_lock_key(&schema),
            project: project.to_owned(),
            shown: at.clone(),
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

    /// The reads' connections.
    fn reads(&self) -> Link<'_> {
        Link {
            store: self,
            driver: Driver::Daemon(&self.handle),
            pool: &self.pool,
        }
    }

    /// The writes' connection.
    fn writes(&self) -> Link<'_> {
        Link {
            store: self,
            driver: self
                .writer
                .runtime
                .as_ref()
                .map_or(Driver::Daemon(&self.handle), Driver::Writer),
            pool: &self.writer.pool,
        }
    }

    /// Runs `f` in a read-only transaction (blocking; call from the blocking pool). It is
    /// `REPEATABLE READ`: every statement of one read sees the same snapshot, as a read of
    /// SQLite does (the event stream reads the log and its last number in one read and
    /// relies on no write coming between); a read-only transaction never fails to
    /// serialize.
    ///
    /// The `BEGIN` travels with the first statement, and the `COMMIT` is sent without
    /// waiting for its answer: a read-only transaction has nothing to lose, and the
    /// connection's next user queues behind it (one connection answers in order). A read
    /// that failed ends with a `ROLLBACK` that is waited for instead, and its connection
    /// leaves the pool if even that fails.
    pub(crate) fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn Db) -> Result<T, E>,
    ) -> Result<T, E> {
        let link = self.reads();
        let client = match link.client() {
            Ok(c) => c,
            Err(e) => {
                return f(&Failing {
                    reason: e.to_string(),
                    dialect: Dialect::Postgres,
                });
            }
        };
        let tx = PgTx::new(link, &client, None);
        tx.later_simple("BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ");
        let out = f(&tx);
        let clean = !tx.failed.get();
        if clean {
            tx.send_unanswered("COMMIT");
        }
        drop(tx);
        if !clean {
            link.abandon(client);
        }
        out
    }

    /// Runs `f` as one write of its own, now (blocking; call from the blocking pool): the
    /// project's write lock, `f`, the notification, the commit. For work outside the
    /// request batches (`wit store migrate`).
    pub(crate) fn write_now<T>(&self, f: impl FnOnce(&dyn Db) -> DbResult<T>) -> DbResult<T> {
        let link = self.writes();
        let client = link.client()?;
        let (now, _) = link.begin_write(&client, &[])?;
        let tx = PgTx::new(link, &client, Some(now));
        let out = f(&tx);
        let ended = out.is_ok().then(|| tx.end("COMMIT"));
        drop(tx);
        self.settle(link, client, ended, true)?;
        out
    }

    /// Runs one batch: the project's write lock, each job in its savepoint (a batch of one
    /// needs none: its failure rolls back the transaction), the commit, the announcement.
    /// `Err` before any job ran hands the jobs back.
    fn try_batch(&self, mut jobs: Vec<Job>) -> Result<RanBatch, (Vec<Job>, DbError)> {
        let link = self.writes();
        // Every job's declared reads travel with the `BEGIN` (see [`Read`]).
        let declared: Vec<Option<Vec<Read>>> = jobs
            .iter_mut()
            .map(|j| j.prefetch.take().map(|p| p()))
            .collect();
        let reads: Vec<Read> = declared.iter().flatten().flatten().cloned().collect();
        let (client, now, answers) = match link.begin_write_retried(&reads) {
            Ok(begun) => begun,
            Err(e) => return Err((jobs, e)),
        };
        let db = PgTx::new(link, &client, Some(now));
        db.keep_ahead(declared, answers);
        let (finishes, ok) = if jobs.len() == 1 {
            let job = jobs.pop().expect("one job");
            *db.served.borrow_mut() = db.ahead.borrow_mut().pop_front().flatten();
            match run_caught(job, &db) {
                Some((ok, answer)) => (vec![answer], ok),
                None => (Vec::new(), false),
            }
        } else {
            (run_jobs(&db, jobs), true)
        };
        // A failed single job is answered with its own error; nothing to keep, and the
        // statements it left unsent are never sent.
        let ended = ok.then(|| db.end("COMMIT"));
        drop(db);
        let wake = woke(&finishes);
        Ok((finishes, self.settle(link, client, ended, wake)))
    }

    /// Settles a write whose transaction `ended` with its `COMMIT` (`None`: it is to be
    /// rolled back): the connection goes back to the pool (or out of it, see
    /// [`Link::close`]), and once committed, the log's growth is announced, unless
    /// nothing in it may `wake` a waiter (its jobs were quiet: see
    /// [`super::super::batch::Job::quiet`]).
    fn settle(
        &self,
        link: Link<'_>,
        client: Object,
        ended: Option<DbResult<()>>,
        wake: bool,
    ) -> DbResult<()> {
        match ended {
            Some(ended) => {
                link.close(client, ended)?;
                if wake {
                    self.grew.notify_one();
                }
            }
            None => link.abandon(client),
        }
        Ok(())
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

/// Where a connection's I/O runs while a blocking caller waits for an answer.
#[derive(Clone, Copy)]
enum Driver<'s> {
    /// The daemon's runtime: its worker threads read the answer and hand it over.
    Daemon(&'s tokio::runtime::Handle),
    /// The writer's own runtime, which the waiting thread drives itself.
    Writer(&'s tokio::runtime::Runtime),
}

impl Driver<'_> {
    fn block_on<F: Future>(self, f: F) -> F::Output {
        match self {
            Driver::Daemon(handle) => handle.block_on(f),
            Driver::Writer(runtime) => runtime.block_on(f),
        }
    }
}

/// A pool of the store and the runtime its connections run on.
#[derive(Clone, Copy)]
struct Link<'s> {
    store: &'s PgStore,
    driver: Driver<'s>,
    pool: &'s Pool,
}

impl Link<'_> {
    /// A connection of the pool, retried a few times while the store is unreachable.
    fn client(self) -> DbResult<Object> {
        let mut last = None;
        for pause in std::iter::once(None).chain(RETRIES.map(Some)) {
            if let Some(pause) = pause {
                std::thread::sleep(pause);
            }
            match self
                .driver
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
            self.store.shown,
            last.unwrap_or_default()
        )))
    }

    /// Waits for `fut`, within [`STATEMENT_DEADLINE`].
    fn within<F: Future>(self, fut: F) -> DbResult<F::Output> {
        self.driver
            .block_on(tokio::time::timeout(STATEMENT_DEADLINE, fut))
            .map_err(|_| {
                DbError::Postgres(format!(
                    "the PostgreSQL store {} did not answer within {} s",
                    self.store.shown,
                    STATEMENT_DEADLINE.as_secs()
                ))
            })
    }

    /// Waits for one round trip, within [`STATEMENT_DEADLINE`].
    fn wait<T>(self, fut: impl Future<Output = Result<T, tokio_postgres::Error>>) -> DbResult<T> {
        self.within(fut)?.map_err(|e| self.error(e))
    }

    /// A server's error, naming the store.
    fn error(self, e: tokio_postgres::Error) -> DbError {
        DbError::Postgres(format!(
            "the PostgreSQL store {}: {}",
            self.store.shown,
            super::schema::db(e)
        ))
    }

    /// A connection with its write begun ([`Link::begin_write`]). The writes' connection
    /// is polled only while a write waits on it, so it learns that the server went away
    /// (a restart) only when it is next used: a connection found dead then is replaced,
    /// once, before any job has run.
    fn begin_write_retried(self, reads: &[Read]) -> DbResult<(Object, i64, Vec<Vec<Row>>)> {
        let mut last = None;
        for _ in 0..2 {
            let client = self.client()?;
            match self.begin_write(&client, reads) {
                Ok((now, answers)) => return Ok((client, now, answers)),
                Err(e) => {
                    let dead = client.is_closed();
                    self.abandon(client);
                    if !dead {
                        return Err(e);
                    }
                    last = Some(e);
                }
            }
        }
        Err(last.unwrap_or_else(|| {
            DbError::Postgres(format!(
                "the PostgreSQL store {} is unreachable",
                self.store.shown
            ))
        }))
    }

    /// `BEGIN`, the project's write lock, the database's clock and `reads` (declared by
    /// the batch's jobs, see [`Read`]), in one round trip: the server runs the reads once
    /// the lock is taken. The clock, and the reads' answers in order.
    fn begin_write(self, client: &Object, reads: &[Read]) -> DbResult<(i64, Vec<Vec<Row>>)> {
        // From the connection's statement cache (a round trip of its own only the first
        // time a statement is seen on a connection).
        let stmts = reads
            .iter()
            .map(|r| self.wait(client.prepare_cached(&dollar_parameters(&r.sql))))
            .collect::<DbResult<Vec<_>>>()?;
        let args: Vec<Vec<Arg<'_>>> = reads
            .iter()
            .map(|r| r.args.iter().map(OwnedArg::arg).collect())
            .collect();
        let params: Vec<Vec<&(dyn ToSql + Sync)>> = args
            .iter()
            .map(|a| a.iter().map(|x| x as _).collect())
            .collect();
        let begin = format!(
            "BEGIN; SELECT pg_advisory_xact_lock({}), \
             (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
            self.store.write_lock
        );
        let queries: Vec<_> = stmts
            .iter()
            .zip(&params)
            .map(|(stmt, params)| client.query(stmt, params))
            .collect();
        let (began, answered) = self.within(first_then(
            client.simple_query(&begin),
            all_in_order(queries),
        ))?;
        let rows = began.map_err(|e| self.error(e))?;
        let now = rows
            .iter()
            .find_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => r.get(1)?.parse().ok(),
                _ => None,
            })
            .ok_or_else(|| {
                DbError::Postgres(format!(
                    "the PostgreSQL store {} sent no clock",
                    self.store.shown
                ))
            })?;
        // A read that failed has aborted the transaction: the batch fails with it.
        let answers = answered
            .map_err(|e| self.error(e))?
            .iter()
            .map(|rows| rows.iter().map(row).collect())
            .collect::<DbResult<Vec<Vec<Row>>>>()?;
        Ok((now, answers))
    }

    /// Hands `client` back to the pool after its transaction `ended`. A connection whose
    /// transaction did not end cleanly is rolled back and taken out of the pool, never
    /// handed to another request in the middle of a transaction.
    fn close(self, client: Object, ended: DbResult<()>) -> DbResult<()> {
        if ended.is_err() {
            self.abandon(client);
        }
        ended
    }

    /// Rolls back `client`'s transaction, taking it out of the pool if even that fails.
    fn abandon(self, client: Object) {
        if self.wait(client.batch_execute("ROLLBACK")).is_err() {
            drop(Object::take(client));
        }
    }
}

/// A job of a batch in progress (see [`PgTx::job_started`]).
#[derive(Clone, Copy)]
struct OpenJob {
    /// Where its statements start among those held for later.
    mark: usize,
    /// Whether its savepoint was sent: it has changed something already.
    savepoint: bool,
}

/// One transaction of the store, as the store modules see it (begun and ended by its
/// [`PgStore`] on this connection).
struct PgTx<'t> {
    link: Link<'t>,
    client: &'t Object,
    now: OnceCell<i64>,
    /// Statements not sent yet, in order.
    later: RefCell<Vec<Later<'t>>>,
    /// Why every further statement fails: one sent later failed (or a round trip timed
    /// out, leaving the connection's state unknown).
    broken: OnceCell<String>,
    /// Whether any statement failed.
    failed: StdCell<bool>,
    job: StdCell<Option<OpenJob>>,
    /// The running job's declared reads and their answers, read ahead with every job's
    /// of the batch (see [`Read`]); taken by its first read.
    served: RefCell<Ahead>,
    /// Those of the jobs not started yet, in order ([`PgTx::job_started`] takes the next).
    ahead: RefCell<std::collections::VecDeque<Ahead>>,
    /// What the batch's statements so far (sent or held) change: a declared read
    /// depending on any of it is not answered from before them.
    written: RefCell<Vec<Written>>,
    /// How many statements so far (sent or held) may change something ([`Db::changed`]).
    changing: StdCell<u64>,
}

/// A job's declared reads and their answers, if it declared any.
type Ahead = Option<(Vec<Read>, Vec<Vec<Row>>)>;

/// How many declared reads were answered ahead (for the tests).
#[cfg(test)]
static SERVED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What a statement changes (see [`written`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Written {
    /// The rows of a table whose key is the value.
    Row(&'static str, String),
    /// Any rows of a table.
    Table(String),
    /// Anything (a statement whose tables were not recognised).
    Anything,
}

impl Written {
    fn affects(&self, dep: &Dep) -> bool {
        match (self, dep) {
            (Written::Anything, _) => true,
            (Written::Table(t), Dep::Row(d, _) | Dep::Table(d)) => t.eq_ignore_ascii_case(d),
            (Written::Row(t, _), Dep::Table(d)) => t == d,
            (Written::Row(t, k), Dep::Row(d, key)) => t == d && k == key,
        }
    }
}

/// What `sql` (with `args`) changes. The two statements that change one lock by its path
/// are known by their text (their first argument is the path); any other statement
/// changes, to be safe, every row of each table it inserts into, updates or deletes
/// from (CTEs included); one that changes something else, or in a way not recognised,
/// changes anything.
fn written(sql: &str, args: &[Arg<'_>]) -> Vec<Written> {
    if (sql == crate::store::locks::TAKE || sql == crate::store::locks::DELETE)
        && let Some(Arg::Text(path)) = args.first()
    {
        return vec![Written::Row("locks", (*path).to_owned())];
    }
    if !changes(sql) {
        return if control(sql) {
            Vec::new()
        } else {
            vec![Written::Anything]
        };
    }
    let words: Vec<&str> = sql
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',' || c == ';')
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let next = |k: usize| words.get(i + k).copied().unwrap_or("");
        let table = if w.eq_ignore_ascii_case("INSERT") && next(1).eq_ignore_ascii_case("INTO")
            || w.eq_ignore_ascii_case("DELETE") && next(1).eq_ignore_ascii_case("FROM")
        {
            Some(next(2))
        } else if w.eq_ignore_ascii_case("UPDATE")
            && !(i > 0 && words[i - 1].eq_ignore_ascii_case("DO"))
        {
            Some(next(1))
        } else {
            None
        };
        if let Some(t) = table {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return vec![Written::Anything];
            }
            out.push(Written::Table(t.to_ascii_lowercase()));
        }
    }
    if out.is_empty() {
        out.push(Written::Anything);
    }
    out
}

impl<'t> PgTx<'t> {
    fn new(link: Link<'t>, client: &'t Object, now: Option<i64>) -> Self {
        let cell = OnceCell::new();
        if let Some(now) = now {
            let _ = cell.set(now);
        }
        Self {
            link,
            client,
            now: cell,
            later: RefCell::new(Vec::new()),
            broken: OnceCell::new(),
            failed: StdCell::new(false),
            job: StdCell::new(None),
            served: RefCell::new(None),
            ahead: RefCell::new(std::collections::VecDeque::new()),
            written: RefCell::new(Vec::new()),
            changing: StdCell::new(0),
        }
    }

    /// Keeps each job's declared reads (`declared`, in the jobs' order) with their
    /// `answers` (all of them, in the same order), for [`PgTx::job_started`] to hand out.
    fn keep_ahead(&self, declared: Vec<Option<Vec<Read>>>, answers: Vec<Vec<Row>>) {
        let mut answers = answers.into_iter();
        let mut ahead = self.ahead.borrow_mut();
        for reads in declared {
            ahead.push_back(reads.map(|r| {
                let mine: Vec<Vec<Row>> = answers.by_ref().take(r.len()).collect();
                (r, mine)
            }));
        }
    }

    /// Notes what a statement about to be sent or held changes, while a declared read is
    /// still to be answered (the running job's, or a later one's): otherwise nobody asks,
    /// and the statement's text is not taken apart.
    fn note_written(&self, sql: &str, args: &[Arg<'_>]) {
        if !control(sql) {
            self.changing.set(self.changing.get() + 1);
        }
        let pending =
            self.served.borrow().is_some() || self.ahead.borrow().iter().any(Option::is_some);
        if pending {
            self.written.borrow_mut().extend(written(sql, args));
        }
    }

    /// The answers of the running job's declared reads, if `queries` are exactly those
    /// reads and nothing written since they were read can have changed them.
    fn serve(&self, queries: &[(&str, &[Arg<'_>])]) -> Option<Vec<Vec<Row>>> {
        let (reads, answers) = self.served.borrow_mut().take()?;
        let same = reads.len() == queries.len()
            && reads
                .iter()
                .zip(queries)
                .all(|(r, (sql, args))| r.is(sql, args));
        let written = self.written.borrow();
        let current = !reads.iter().any(|r| {
            r.depends
                .iter()
                .any(|d| written.iter().any(|w| w.affects(d)))
        });
        let served = same && current;
        #[cfg(test)]
        if served {
            SERVED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        served.then_some(answers)
    }

    fn prepare(&self, sql: &str) -> DbResult<tokio_postgres::Statement> {
        if let Some(why) = self.broken.get() {
            return Err(DbError::Postgres(why.clone()));
        }
        self.link
            .wait(self.client.prepare_cached(&dollar_parameters(sql)))
            .map_err(|e| self.failed_with(e))
    }

    /// Sends the statements held for later and then `main` (`writes` when it changes
    /// something), in order, in one round trip; `main`'s answer. A held statement's
    /// failure breaks the transaction. So does `main`'s, unless a savepoint of the open
    /// job can undo it.
    fn run<T>(
        &self,
        writes: bool,
        main: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> DbResult<T> {
        if let Some(why) = self.broken.get() {
            return Err(DbError::Postgres(why.clone()));
        }
        let mut held = std::mem::take(&mut *self.later.borrow_mut());
        if let Some(mut job) = self.job.get() {
            // The job's first change to be sent takes its savepoint first: a job that
            // only reads before it ends (most do: their changes wait for the commit)
            // needs none.
            if !job.savepoint && (writes || held.len() > job.mark) {
                held.insert(job.mark, self.simple_statement("SAVEPOINT job"));
                job.savepoint = true;
            }
            job.mark = 0;
            self.job.set(Some(job));
        }
        let outcome = self.link.within(in_order(held, main));
        let (earlier, answer) = match outcome {
            Ok(v) => v,
            Err(e) => return Err(self.break_with(e)),
        };
        if let Some(e) = earlier {
            return Err(self.break_with(self.link.error(e)));
        }
        answer.map_err(|e| self.failed_with(self.link.error(e)))
    }

    /// A statement failed: PostgreSQL has aborted the transaction, which only the open
    /// job's savepoint can recover; without one, every later statement fails too (and
    /// the commit, which PostgreSQL would otherwise answer with a silent rollback).
    fn failed_with(&self, e: DbError) -> DbError {
        if self.job.get().is_some_and(|j| j.savepoint) {
            self.failed.set(true);
            e
        } else {
            self.break_with(e)
        }
    }

    fn break_with(&self, e: DbError) -> DbError {
        self.failed.set(true);
        let _ = self.broken.set(e.to_string());
        e
    }

    /// A statement of the simple protocol (no parameters), to send later.
    fn simple_statement(&self, sql: &'static str) -> Later<'t> {
        let client = self.client;
        Box::pin(async move { client.batch_execute(sql).await.map(|()| 0) })
    }

    /// Holds a statement of the simple protocol for later.
    fn later_simple(&self, sql: &'static str) {
        let statement = self.simple_statement(sql);
        self.later.borrow_mut().push(statement);
    }

    /// Sends what is held and `sql` without waiting for any answer.
    fn send_unanswered(&self, sql: &'static str) {
        self.later_simple(sql);
        let mut held = std::mem::take(&mut *self.later.borrow_mut());
        // The first poll of each sends it; the connection drops answers nobody awaits.
        self.link.driver.block_on(std::future::poll_fn(|cx| {
            for f in &mut held {
                let _ = f.as_mut().poll(cx);
            }
            Poll::Ready(())
        }));
    }

    /// Sends what is held and ends the transaction with `sql` (`…COMMIT`), waiting.
    fn end(&self, sql: &str) -> DbResult<()> {
        self.run(false, self.client.simple_query(sql)).map(drop)
    }
}

/// Polls `held`, then `main`, always in that order, until all are done: each sends its
/// request on its first poll, so the server receives them in order, and one connection
/// answers in order. The first of `held` to fail, and `main`'s answer.
async fn in_order<T>(
    held: Vec<Later<'_>>,
    main: impl Future<Output = Result<T, tokio_postgres::Error>>,
) -> (
    Option<tokio_postgres::Error>,
    Result<T, tokio_postgres::Error>,
) {
    let (earlier, answer) = first_then(all_in_order(held), main).await;
    (earlier.err(), answer)
}

/// Polls every one of `sent`, always in order, until all are done (each sends its request
/// on its first poll); their answers in order, or the first failure.
async fn all_in_order<F, T>(sent: Vec<F>) -> Result<Vec<T>, tokio_postgres::Error>
where
    F: Future<Output = Result<T, tokio_postgres::Error>>,
{
    let mut sent: Vec<Pin<Box<F>>> = sent.into_iter().map(Box::pin).collect();
    let mut answers: Vec<Option<Result<T, tokio_postgres::Error>>> =
        sent.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (f, answer) in sent.iter_mut().zip(answers.iter_mut()) {
            if answer.is_none()
                && let Poll::Ready(done) = f.as_mut().poll(cx)
            {
                *answer = Some(done);
            }
        }
        if answers.iter().all(Option::is_some) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    answers.into_iter().flatten().collect()
}

/// Polls `first` before `then`, both until done (each sends its request on its first
/// poll, so the server receives `first` first); both answers.
async fn first_then<A, B>(first: impl Future<Output = A>, then: impl Future<Output = B>) -> (A, B) {
    let mut first = std::pin::pin!(first);
    let mut then = std::pin::pin!(then);
    let (mut a, mut b) = (None, None);
    std::future::poll_fn(|cx| {
        if a.is_none()
            && let Poll::Ready(done) = first.as_mut().poll(cx)
        {
            a = Some(done);
        }
        if b.is_none()
            && let Poll::Ready(done) = then.as_mut().poll(cx)
        {
            b = Some(done);
        }
        match (a.take(), b.take()) {
            (Some(a), Some(b)) => Poll::Ready((a, b)),
            (x, y) => {
                (a, b) = (x, y);
                Poll::Pending
            }
        }
    })
    .await
}

impl Db for PgTx<'_> {
    fn execute(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<usize> {
        let stmt = self.prepare(sql)?;
        self.note_written(sql, args);
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as _).collect();
        let n = self.run(true, self.client.execute(&stmt, &params))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn rows(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<Vec<Row>> {
        if let Some(mut answers) = self.serve(&[(sql, args)]) {
            return Ok(answers.pop().unwrap_or_default());
        }
        let stmt = self.prepare(sql)?;
        if changes(sql) {
            self.note_written(sql, args);
        }
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as _).collect();
        let rows = self.run(changes(sql), self.client.query(&stmt, &params))?;
        rows.iter().map(row).collect()
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn changed(&self) -> u64 {
        self.changing.get()
    }

    fn now_ms(&self) -> i64 {
        *self.now.get_or_init(|| {
            let read = self.run(
                false,
                self.client.query_one(
                    "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
                    &[],
                ),
            );
            match read {
                Ok(r) => r.get(0),
                Err(e) => {
                    // The statements after this one fail the same way; the host's clock
                    // is only a stand-in for the error they will report.
                    tracing::warn!("reading the store's clock: {e}");
                    crate::clock::now_ms()
                }
            }
        })
    }

    fn execute_later(&self, sql: &str, args: &[Arg<'_>]) -> DbResult<()> {
        // Prepared now (refused once the transaction is broken) (from the cache, or in a round trip of its own the first time on
        // this connection), so that sending it later is one step that keeps its place.
        let stmt = self.prepare(sql)?;
        self.note_written(sql, args);
        let owned: Vec<OwnedArg> = args.iter().map(OwnedArg::of).collect();
        let client = self.client;
        self.later.borrow_mut().push(Box::pin(async move {
            let args: Vec<Arg<'_>> = owned.iter().map(OwnedArg::arg).collect();
            let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as _).collect();
            client.execute(&stmt, &params).await
        }));
        Ok(())
    }

    /// All in one round trip, sent in order.
    fn rows_all(&self, queries: &[Query<'_>]) -> DbResult<Vec<Vec<Row>>> {
        let asked: Vec<(&str, &[Arg<'_>])> = queries
            .iter()
            .map(|q| (q.sql.as_str(), q.args.as_slice()))
            .collect();
        if let Some(answers) = self.serve(&asked) {
            return Ok(answers);
        }
        for q in queries.iter().filter(|q| changes(&q.sql)) {
            self.note_written(&q.sql, &q.args);
        }
        let stmts = queries
            .iter()
            .map(|q| self.prepare(&q.sql))
            .collect::<DbResult<Vec<_>>>()?;
        let params: Vec<Vec<&(dyn ToSql + Sync)>> = queries
            .iter()
            .map(|q| q.args.iter().map(|a| a as _).collect())
            .collect();
        let sent = stmts
            .iter()
            .zip(&params)
            .map(|(stmt, params)| self.client.query(stmt, params))
            .collect();
        let writes = queries.iter().any(|q| changes(&q.sql));
        let answers = self.run(writes, all_in_order(sent))?;
        answers
            .iter()
            .map(|rows| rows.iter().map(row).collect())
            .collect()
    }

    /// No savepoint yet: the job takes one only when it first sends a change ([`PgTx::run`]).
    fn job_started(&self) -> DbResult<()> {
        *self.served.borrow_mut() = self.ahead.borrow_mut().pop_front().flatten();
        if let Some(why) = self.broken.get() {
            return Err(DbError::Postgres(why.clone()));
        }
        let mark = self.later.borrow().len();
        self.job.set(Some(OpenJob {
            mark,
            savepoint: false,
        }));
        Ok(())
    }

    /// A failed job's changes not sent yet are dropped, never sent; those sent are rolled
    /// back to its savepoint. A job that succeeded leaves its changes held, to go with
    /// the next statement or the commit.
    fn job_ended(&self, ok: bool) -> DbResult<()> {
        let Some(job) = self.job.take() else {
            return Ok(());
        };
        if !ok {
            self.later.borrow_mut().truncate(job.mark);
            if job.savepoint {
                self.later_simple("ROLLBACK TO job");
            }
        }
        if job.savepoint {
            self.later_simple("RELEASE job");
        }
        Ok(())
    }
}

/// Whether a statement changes nothing: a savepoint's, or a plain `SELECT`.
fn control(sql: &str) -> bool {
    let head = sql.trim_start();
    ["SAVEPOINT", "RELEASE", "ROLLBACK", "SELECT"]
        .iter()
        .any(|w| head.len() >= w.len() && head[..w.len()].eq_ignore_ascii_case(w))
}

/// Whether a statement sent with [`Db::rows`] changes something (`INSERT … RETURNING`).
fn changes(sql: &str) -> bool {
    let head = sql.trim_start().as_bytes();
    ["INSERT", "UPDATE", "DELETE", "WITH"]
        .iter()
        .any(|w| head.len() >= w.len() && head[..w.len()].eq_ignore_ascii_case(w.as_bytes()))
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

/// Announces to every daemon of the project, each time `grew` is signalled, the log's
/// last number (`sql`, a `pg_notify`), forever. Signals that come while an announcement is
/// on its way make one more (`Notify` keeps one permit), which covers them all. A failed
/// announcement is logged once until one succeeds; the next write tries again.
async fn announce(pool: Pool, grew: Arc<tokio::sync::Notify>, sql: String, shown: String) {
    let mut reported = false;
    loop {
        grew.notified().await;
        let sent = async {
            let client = pool.get().await.map_err(|e| e.to_string())?;
            client.batch_execute(&sql).await.map_err(super::schema::db)
        };
        match tokio::time::timeout(STATEMENT_DEADLINE, sent).await {
            Ok(Ok(())) => reported = false,
            Ok(Err(e)) if !reported => {
                tracing::warn!("announcing a write to the PostgreSQL store {shown}: {e}");
                reported = true;
            }
            Err(_) if !reported => {
                tracing::warn!("announcing a write to the PostgreSQL store {shown}: no answer");
                reported = true;
            }
            _ => {}
        }
    }
}

/// Listens for the project's notifications on a connection of its own, forever: each
/// one (another daemon's commit, or this one's) calls `wake`, and so does every
/// (re)connect, after which the waiters read the durable log for what they missed. One
/// listener serves every worktree of a process on the store (`crate::others`).
pub(crate) async fn listen(store: Arc<PgStore>, wake: impl Fn()) {
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
                                wake();
                            }
                            Err(_) => break,
                        },
                        message = std::future::poll_fn(|cx| connection.poll_message(cx)) => {
                            match message {
                                Some(Ok(AsyncMessage::Notification(_))) => wake(),
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
    use crate::store::batch::Finish;
    use crate::store::batch::tests::waking;
    use crate::store::db::{DbExt, args};

    /// A store on a throwaway cluster (keep the cluster alive while it is used).
    async fn store() -> (wit_testkit::postgres::Cluster, Arc<PgStore>) {
        let cluster = wit_testkit::postgres::Cluster::start();
        cluster.create_db("wit");
        let store = PgStore::connect(&cluster.url("wit"), "test/pipeline")
            .await
            .expect("connect");
        (cluster, Arc::new(store))
    }

    const AUDIT: &str = "INSERT INTO audit (at, action, symbol_path, holder, by_session, reason)
                         VALUES (1, 'released', ?1, 'h', NULL, ?2)";

    fn audited(store: &PgStore) -> Vec<String> {
        store
            .read(|db| {
                db.query_map(
                    "SELECT symbol_path FROM audit ORDER BY symbol_path",
                    args![],
                    |r| r.get(0),
                )
                .map_err(StoreError::from)
            })
            .expect("read")
    }

    /// Runs `jobs` as one batch, on the blocking pool as the daemon does.
    async fn batch(store: &Arc<PgStore>, jobs: Vec<Job>) {
        let s = store.clone();
        tokio::task::spawn_blocking(move || s.run_batch(jobs, false))
            .await
            .unwrap();
    }

    /// [`audited`], on the blocking pool.
    async fn audit_rows(store: &Arc<PgStore>) -> Vec<String> {
        let s = store.clone();
        tokio::task::spawn_blocking(move || audited(&s))
            .await
            .unwrap()
    }

    /// A job running `f`, and where its answer arrives: its own outcome, then the commit's.
    fn job(
        f: impl FnOnce(&dyn Db) -> DbResult<()> + Send + 'static,
    ) -> (Job, std::sync::mpsc::Receiver<(bool, bool)>) {
        let (send, recv) = std::sync::mpsc::channel();
        let job = Job {
            prefetch: None,
            quiet: false,
            run: Box::new(move |db| {
                let ok = f(db).is_ok();
                let finish: Finish = Box::new(move |commit| {
                    let _ = send.send((ok, commit.result.is_ok()));
                });
                (ok, finish)
            }),
        };
        (job, recv)
    }

    /// What the statements of the store's lock module and others change, as the read-ahead
    /// sees it.
    #[test]
    fn what_a_statement_changes() {
        use crate::store::locks;
        assert_eq!(
            written(locks::TAKE, args!["src/a.ts:f", "s", 1, 2, "src/a.ts:f"]),
            [Written::Row("locks", "src/a.ts:f".into())]
        );
        assert_eq!(
            written(locks::DELETE, args!["src/a.ts:f"]),
            [Written::Row("locks", "src/a.ts:f".into())]
        );
        assert_eq!(
            written("DELETE FROM locks WHERE session_id = ?1", args!["s"]),
            [Written::Table("locks".into())]
        );
        // A CTE names each table it changes; `DO UPDATE` is not one.
        assert_eq!(
            written(
                "WITH seen AS (INSERT INTO session_worktrees (a) VALUES (?1) ON CONFLICT (a) DO UPDATE SET a = excluded.a RETURNING 1)
                 INSERT INTO events (seq) SELECT 1 FROM seen",
                args!["x"]
            ),
            [
                Written::Table("session_worktrees".into()),
                Written::Table("events".into())
            ]
        );
        assert_eq!(
            written("UPDATE leases SET expires_at = ?1", args![1]),
            [Written::Table("leases".into())]
        );
        assert!(written("SELECT 1", args![]).is_empty());
        assert!(written("SAVEPOINT job", args![]).is_empty());
        assert_eq!(written("TRUNCATE locks", args![]), [Written::Anything]);
        let row = Dep::Row("locks", "src/a.ts:f".into());
        assert!(Written::Row("locks", "src/a.ts:f".into()).affects(&row));
        assert!(!Written::Row("locks", "src/b.ts:g".into()).affects(&row));
        assert!(Written::Table("locks".into()).affects(&row));
        assert!(!Written::Table("events".into()).affects(&row));
        assert!(Written::Row("leases", "x".into()).affects(&Dep::Table("leases")));
        assert!(Written::Anything.affects(&Dep::Table("leases")));
    }

    /// A batch of jobs that declare their reads: each is answered from the read-ahead
    /// unless an earlier job of the batch changed what it read, and then it reads what
    /// that job wrote. Two jobs taking the same lock in one batch: exactly one wins.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn declared_reads_are_answered_ahead_unless_an_earlier_job_changed_them() {
        use crate::store::locks;
        let (_cluster, store) = store().await;
        // Who holds `path` when the job runs: `Ok(())` when it took the lock.
        fn take(
            path: &'static str,
            who: &'static str,
        ) -> (Job, std::sync::mpsc::Receiver<(bool, bool)>) {
            let (mut job, recv) = job(move |db| {
                let now = db.now_ms();
                let read = locks::get_any_read(path);
                let rows = db.rows(&read.sql, &read.query().args)?;
                match locks::live(&rows, now)? {
                    Some(holder) if holder.session_id != who => Err(DbError::NoRow),
                    _ => db.execute_later(locks::TAKE, args![path, who, now, now + 60_000, path]),
                }
            });
            job.prefetch = Some(Box::new(move || vec![locks::get_any_read(path)]));
            (job, recv)
        }
        let before = SERVED.load(std::sync::atomic::Ordering::Relaxed);
        let (a, ra) = take("src/a.ts:f", "s1");
        let (b, rb) = take("src/a.ts:f", "s2");
        let (c, rc) = take("src/c.ts:g", "s3");
        batch(&store, vec![a, b, c]).await;
        assert_eq!(ra.recv().unwrap(), (true, true), "the first takes it");
        assert_eq!(
            rb.recv().unwrap(),
            (false, true),
            "the second sees the first's lock"
        );
        assert_eq!(rc.recv().unwrap(), (true, true));
        // The first and the third were answered ahead; the second read for itself.
        let served = SERVED.load(std::sync::atomic::Ordering::Relaxed) - before;
        assert!(served >= 2, "answered ahead: {served}");
        let s = store.clone();
        let holders = tokio::task::spawn_blocking(move || {
            s.read(|db| {
                db.query_map(
                    "SELECT symbol_path || '=' || session_id FROM locks ORDER BY 1",
                    args![],
                    |r| r.get(0),
                )
                .map_err(StoreError::from)
            })
        })
        .await
        .unwrap()
        .expect("read");
        let holders: Vec<String> = holders;
        assert_eq!(holders, ["src/a.ts:f=s1", "src/c.ts:g=s3"]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn statements_sent_later_run_in_order_and_the_next_read_sees_them() {
        let (_cluster, store) = store().await;
        let s = store.clone();
        let seen = tokio::task::spawn_blocking(move || {
            s.write_now(|db| {
                db.execute_later(AUDIT, args!["a", "first"])?;
                db.execute_later(
                    "UPDATE audit SET reason = 'second' WHERE symbol_path = 'a'",
                    args![],
                )?;
                db.execute_later(AUDIT, args!["b", "third"])?;
                db.execute_later(AUDIT, args!["c", "fourth"])?;
                // Several queries in one round trip, after what was held.
                let answers = db.rows_all(&[
                    Query {
                        sql: "SELECT symbol_path || ':' || reason FROM audit ORDER BY 1".into(),
                        args: vec![],
                    },
                    Query {
                        sql: "SELECT COUNT(*) FROM audit WHERE symbol_path <> ?1".into(),
                        args: vec![Arg::Text("a")],
                    },
                ])?;
                let listed: Vec<String> = answers[0]
                    .iter()
                    .map(|r| r.get(0))
                    .collect::<DbResult<_>>()?;
                assert_eq!(answers[1][0].get::<i64>(0)?, 2);
                Ok(listed)
            })
        })
        .await
        .unwrap()
        .expect("write");
        assert_eq!(seen, ["a:second", "b:third", "c:fourth"]);
        let after = audit_rows(&store).await;
        assert_eq!(after, ["a", "b", "c"], "committed");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_statement_sent_later_that_fails_fails_its_whole_batch_and_nothing_is_kept() {
        let (_cluster, store) = store().await;
        // The first job's statement breaks a NOT NULL constraint, but its job already
        // said it succeeded: the failure shows only when the statement is sent, with the
        // second job's first statement.
        let (bad, bad_answer) = job(|db| db.execute_later(AUDIT, args!["bad", Arg::Null]));
        let (good, good_answer) = job(|db| {
            db.execute_later(AUDIT, args!["good", "fine"])?;
            db.rows("SELECT 1", args![]).map(drop)
        });
        batch(&store, vec![bad, good]).await;
        assert_eq!(
            bad_answer.recv().unwrap(),
            (true, false),
            "its commit failed"
        );
        assert_eq!(good_answer.recv().unwrap(), (false, false));
        let kept = audit_rows(&store).await;
        assert!(
            kept.is_empty(),
            "nothing acknowledged, nothing kept: {kept:?}"
        );
        // The writer's connection is usable again.
        let (next, next_answer) = job(|db| db.execute_later(AUDIT, args!["next", "ok"]));
        batch(&store, vec![next]).await;
        assert_eq!(next_answer.recv().unwrap(), (true, true));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_job_wakes_the_waiters_only_when_it_may_have_changed_something_and_is_not_quiet() {
        let (_cluster, store) = store().await;
        let write = |db: &dyn Db| db.execute_later(AUDIT, args!["a", "b"]).is_ok();
        let read = |db: &dyn Db| db.rows("SELECT 1", args![]).is_ok();
        // Alone (a batch of one takes no savepoint), then in batches.
        for (quiet, wakes) in [(false, true), (true, false)] {
            let (j, woke) = waking(quiet, write);
            batch(&store, vec![j]).await;
            assert_eq!(woke.recv().unwrap(), wakes, "quiet: {quiet}");
        }
        let (j, woke) = waking(false, read);
        batch(&store, vec![j]).await;
        assert!(!woke.recv().unwrap(), "a job that only read wakes nobody");
        let (a, a_woke) = waking(true, write);
        let (b, b_woke) = waking(false, read);
        let (c, c_woke) = waking(false, write);
        let (d, d_woke) = waking(false, |db| {
            let _ = db.execute_later(AUDIT, args!["undone", "x"]);
            false
        });
        batch(&store, vec![a, b, c, d]).await;
        let woke: Vec<bool> = [a_woke, b_woke, c_woke, d_woke]
            .iter()
            .map(|r| r.recv().unwrap())
            .collect();
        assert_eq!(woke, [false, false, true, false]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_job_s_unsent_statements_are_never_sent() {
        let (_cluster, store) = store().await;
        // Were its statement sent, it would break the transaction (NOT NULL), and the
        // other job's commit with it.
        let (failed, failed_answer) = job(|db| {
            db.execute_later(AUDIT, args!["failed", Arg::Null])?;
            Err(DbError::NoRow)
        });
        let (kept, kept_answer) = job(|db| db.execute_later(AUDIT, args!["kept", "fine"]));
        batch(&store, vec![failed, kept]).await;
        assert_eq!(failed_answer.recv().unwrap(), (false, true));
        assert_eq!(kept_answer.recv().unwrap(), (true, true));
        let rows = audit_rows(&store).await;
        assert_eq!(rows, ["kept"]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_job_whose_changes_were_sent_is_rolled_back_alone() {
        let (_cluster, store) = store().await;
        // Its change is sent (a read follows it), so it takes a savepoint; then it fails.
        let (sent, sent_answer) = job(|db| {
            db.execute_later(AUDIT, args!["sent", "undone"])?;
            db.rows("SELECT 1", args![])?;
            Err(DbError::NoRow)
        });
        // Its own statement fails on the server, inside its savepoint.
        let (refused, refused_answer) =
            job(|db| db.execute(AUDIT, args!["refused", Arg::Null]).map(drop));
        let (kept, kept_answer) = job(|db| db.execute_later(AUDIT, args!["kept", "fine"]));
        batch(&store, vec![sent, refused, kept]).await;
        assert_eq!(sent_answer.recv().unwrap(), (false, true));
        assert_eq!(refused_answer.recv().unwrap(), (false, true));
        assert_eq!(kept_answer.recv().unwrap(), (true, true));
        let rows = audit_rows(&store).await;
        assert_eq!(rows, ["kept"]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn reads_share_connections_cleanly_even_after_one_fails() {
        let (_cluster, store) = store().await;
        let s = store.clone();
        tokio::task::spawn_blocking(move || {
            for round in 0..3 {
                // More reads than connections: each connection serves several in turn,
                // each read's COMMIT unawaited ahead of the next one's BEGIN.
                for _ in 0..(POOL_SIZE * 2) {
                    let one: i64 = s
                        .read(|db| {
                            db.query_row("SELECT 1", args![], |r| r.get(0))
                                .map_err(StoreError::from)
                        })
                        .expect("read");
                    assert_eq!(one, 1);
                }
                let failed = s.read(|db| {
                    db.rows("SELECT * FROM no_such_table", args![])
                        .map_err(StoreError::from)
                });
                let e = failed.expect_err("a missing table");
                assert!(
                    e.to_string().contains("no_such_table"),
                    "round {round}: {e}"
                );
            }
            assert!(audited(&s).is_empty());
        })
        .await
        .unwrap();
    }

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
