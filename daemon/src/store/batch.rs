//! Group commit: write requests that arrive together share one SQLite transaction.
//!
//! A commit is most of a write request's cost (WAL frames written, file locks taken and
//! released), so under load each request committing alone caps throughput. Instead every
//! write is queued; one writer task drains the queue and runs the whole batch in one
//! `BEGIN IMMEDIATE` transaction, each job inside its own savepoint (a job that fails is
//! rolled back alone, exactly as if it had had its own transaction), commits once, and
//! only then answers each job. A job's outcome is therefore never visible to its client
//! before it is committed, and jobs run one after another, so races keep exactly one
//! winner. With one client the batch is that client's one job: nothing waits for company.
//!
//! The writer runs on the async thread when SQLite's write lock is free (the jobs are a
//! few indexed statements); when another process holds the lock, the batch waits on the
//! blocking pool instead, so the runtime never blocks on a contended lock. A batch with a
//! heavy job (a declare of thousands of files: tens of milliseconds of inserts) always
//! runs on the blocking pool, so that it never holds up a `ping` or a read.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use super::db::{Db, Prefetch};
use super::{Store, StoreError};

/// Called once the batch's commit is known.
pub(crate) type Finish = Box<dyn FnOnce(Committed) + Send>;

/// What a job learns once its batch's commit is known.
pub(crate) struct Committed {
    /// `Ok` when the batch committed.
    pub(crate) result: Result<(), StoreError>,
    /// Whether this job wakes the waiters: it succeeded, is not [`Job::quiet`] and
    /// changed something ([`Db::changed`]; a lock waiter's failed try changes nothing,
    /// and must not wake the waiter itself). The other daemons' waiters are woken by the
    /// batch ([`woke`]); the caller wakes this daemon's (`AppState::write`).
    pub(crate) woke: bool,
}

/// A job's answer, and whether the job wakes the waiters ([`Committed::woke`]).
pub(crate) type Answer = (Finish, bool);

/// What a job does: runs its statements, says whether they succeeded (else they are
/// rolled back), and returns how to answer once the commit is done.
pub(crate) type Run = Box<dyn FnOnce(&dyn Db) -> (bool, Finish) + Send>;

/// One queued write.
pub(crate) struct Job {
    /// The reads it makes first, declared (see [`super::db::Read`]); `None` for most.
    pub(crate) prefetch: Option<Prefetch>,
    /// The write itself.
    pub(crate) run: Run,
    /// Whether it only says that something is alive (a checkout's heartbeat, see
    /// `crate::forecast`): committed like any other, but no waiter is woken for it, in
    /// this daemon or another, since nothing a waiter waits for changed (see
    /// [`Committed::woke`]). (`session.heartbeat` is not quiet: it may start a session,
    /// an event.)
    pub(crate) quiet: bool,
}

/// Whether a job of the batch answered by `answers` wakes the waiters: then the commit is
/// announced to the waiters of every daemon sharing the store (SQLite: the `wakes`
/// counter, bumped in the same transaction by [`run_counted`]; PostgreSQL: its
/// `NOTIFY`). Eight worktrees of one repository beat every two seconds each, and every
/// beat used to wake every other worktree's forecast and waiters, which then read for
/// nothing.
pub(crate) fn woke(answers: &[Answer]) -> bool {
    answers.iter().any(|(_, woke)| *woke)
}

/// A store that runs batches of jobs: SQLite's (below) and PostgreSQL's (`store::pg`).
pub(crate) trait BatchTarget: Send + Sync + 'static {
    /// Its queue.
    fn batcher(&self) -> &Batcher;
    /// Runs the batch right now if that needs no waiting; `Err(jobs)` otherwise.
    fn try_run_batch(&self, jobs: Vec<Job>) -> Result<(), Vec<Job>>;
    /// Runs the batch, waiting as needed (blocking; called on the blocking pool).
    fn run_batch(&self, jobs: Vec<Job>, heavy: bool);
}

/// The queue of pending writes and its writer.
#[derive(Default)]
pub(crate) struct Batcher {
    queue: Mutex<Vec<Job>>,
    ready: Notify,
    started: AtomicBool,
    /// Whether a queued job is heavy (many rows): its batch then runs on the blocking pool
    /// even when the write lock is free, so that the async thread stays free for everyone.
    heavy: AtomicBool,
}

impl Batcher {
    /// Queues `job`, starting the writer task on first use (call from the runtime or the
    /// blocking pool). A `heavy` job (thousands of rows) runs with its batch on the
    /// blocking pool.
    pub(crate) fn submit<S: BatchTarget>(store: &Arc<S>, job: Job, heavy: bool) {
        let batcher = store.batcher();
        {
            let mut queue = batcher.queue.lock().unwrap_or_else(|p| p.into_inner());
            queue.push(job);
            if heavy {
                batcher.heavy.store(true, Ordering::Release);
            }
        }
        if !batcher.started.swap(true, Ordering::AcqRel) {
            tokio::spawn(writer(store.clone()));
        }
        batcher.ready.notify_one();
    }

    /// The queued jobs, and whether one of them is heavy.
    fn take(&self) -> (Vec<Job>, bool) {
        let mut queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let heavy = self.heavy.swap(false, Ordering::AcqRel);
        (std::mem::take(&mut *queue), heavy)
    }
}

/// The writer task: forever, waits for jobs and commits them in batches.
async fn writer<S: BatchTarget>(store: Arc<S>) {
    loop {
        store.batcher().ready.notified().await;
        // Let the connections that are ready right now queue their writes too.
        tokio::task::yield_now().await;
        let (jobs, heavy) = store.batcher().take();
        if jobs.is_empty() {
            continue;
        }
        let inline = if heavy {
            Err(jobs)
        } else {
            store.try_run_batch(jobs)
        };
        if let Err(jobs) = inline {
            let store = store.clone();
            // A panic here cannot happen (jobs are caught), and a cancelled task drops
            // the jobs, whose callers then see a cancelled request.
            let _ = tokio::task::spawn_blocking(move || store.run_batch(jobs, heavy)).await;
        }
    }
}

impl BatchTarget for Store {
    fn batcher(&self) -> &Batcher {
        &self.batcher
    }

    /// Runs a batch inline if neither the connection nor SQLite's write lock is taken;
    /// `Err(jobs)` otherwise.
    fn try_run_batch(&self, jobs: Vec<Job>) -> Result<(), Vec<Job>> {
        let Some(mut guard) = self.try_conn() else {
            return Err(jobs);
        };
        let Some(conn) = guard.as_mut() else {
            // Closed (shutting down): dropping the jobs answers their callers.
            return Ok(());
        };
        let tx = match super::try_begin(conn) {
            super::Begin::Busy => return Err(jobs),
            super::Begin::Failed(e) => {
                tracing::error!("starting a batch of writes failed: {e}");
                return Ok(());
            }
            super::Begin::Began(tx) => tx,
        };
        let finishes = run_counted(&tx, jobs);
        let result = tx.commit().map_err(StoreError::from);
        drop(guard);
        finish_all(finishes, result);
        Ok(())
    }

    /// Runs a batch, waiting for SQLite's write lock (blocking; call off the runtime).
    ///
    /// A `heavy` batch writes megabytes to the WAL, and SQLite's automatic checkpoint
    /// would copy them into the database inside the commit, before anyone is answered;
    /// so it is switched off for that commit, the jobs are answered, and the checkpoint
    /// (passive: it never waits for readers) runs after. It also has a page cache large
    /// enough for its pages for its length only (see [`super::schema::HEAVY_CACHE_KIB`]).
    fn run_batch(&self, jobs: Vec<Job>, heavy: bool) {
        let set = |pragma: &str, value: i64| {
            let done = self.with(|c| {
                c.pragma_update(None, pragma, value)
                    .map_err(StoreError::from)
            });
            if let Err(e) = done {
                tracing::warn!("setting {pragma}: {e}");
            }
        };
        if heavy {
            set("wal_autocheckpoint", 0);
            set("cache_size", -super::schema::HEAVY_CACHE_KIB);
        }
        let mut finishes: Vec<Answer> = Vec::new();
        let result = self.write(|tx| {
            finishes = run_counted(tx, jobs);
            Ok::<_, StoreError>(())
        });
        finish_all(finishes, result);
        if heavy {
            let checkpoint = self.with(|c| {
                c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    .map_err(StoreError::from)
            });
            if let Err(e) = checkpoint {
                tracing::warn!("checkpointing after a heavy write: {e}");
            }
            set("wal_autocheckpoint", super::schema::AUTOCHECKPOINT_PAGES);
            set("cache_size", -super::schema::CACHE_KIB);
        }
    }
}

/// Runs one job on `tx`, catching a panic (logged; `None`: the job is dropped and its
/// caller sees a cancelled request). `Some((ok, answer))` otherwise, the answer saying
/// whether the job wakes the waiters ([`Committed::woke`]).
pub(crate) fn run_caught(job: Job, tx: &dyn Db) -> Option<(bool, Answer)> {
    let before = tx.changed();
    match std::panic::catch_unwind(AssertUnwindSafe(|| (job.run)(tx))) {
        Ok((ok, finish)) => Some((ok, (finish, ok && !job.quiet && tx.changed() != before))),
        Err(_) => {
            tracing::error!("a write request panicked; it was rolled back");
            None
        }
    }
}

/// Runs each job against a store that refuses every statement with `reason`, so that each
/// caller is answered with it (then with the batch's failed commit) rather than cancelled.
pub(crate) fn run_failing(
    jobs: Vec<Job>,
    reason: &str,
    dialect: super::db::Dialect,
) -> Vec<Answer> {
    let failing = super::db::Failing {
        reason: reason.to_owned(),
        dialect,
    };
    jobs.into_iter()
        .filter_map(|job| run_caught(job, &failing).map(|(_, answer)| answer))
        .collect()
}

/// Runs each job on its own ([`Db::job_started`], [`Db::job_ended`]: a savepoint, or
/// what stands for one), rolling back the ones that fail or panic.
pub(crate) fn run_jobs(tx: &dyn Db, jobs: Vec<Job>) -> Vec<Answer> {
    let mut finishes = Vec::with_capacity(jobs.len());
    for job in jobs {
        if let Err(e) = tx.job_started() {
            tracing::error!("starting a job of a batch: {e}");
            finishes.extend(run_failing(vec![job], &e.to_string(), tx.dialect()));
            continue;
        }
        let outcome = run_caught(job, tx);
        let ok = matches!(outcome, Some((true, _)));
        if let Err(e) = tx.job_ended(ok) {
            tracing::error!("ending a job of a batch (ok: {ok}): {e}");
        }
        if let Some((_, answer)) = outcome {
            finishes.push(answer);
        }
    }
    finishes
}

/// [`run_jobs`] in SQLite's batch transaction `tx`, then, if a job wakes the waiters,
/// bumps the `wakes` counter in the same transaction: what the watchers of the other
/// daemons on the database (`crate::others`) read to tell a commit that matters to their
/// waiters from one that only says something is alive. A failure to bump is logged and
/// the batch still commits: its writes matter more than a wake, and the next commit that
/// wakes covers it.
fn run_counted(tx: &rusqlite::Connection, jobs: Vec<Job>) -> Vec<Answer> {
    let finishes = run_jobs(tx, jobs);
    if woke(&finishes)
        && let Err(e) = tx.execute("UPDATE wakes SET n = n + 1", [])
    {
        tracing::warn!("counting a commit for the other daemons' waiters: {e}");
    }
    finishes
}

/// Answers every job of a batch with its commit's outcome (a job whose batch did not
/// commit woke nobody).
pub(crate) fn finish_all(finishes: Vec<Answer>, result: Result<(), StoreError>) {
    let shared = result.map_err(|e| e.to_string());
    for (finish, woke) in finishes {
        finish(match &shared {
            Ok(()) => Committed {
                result: Ok(()),
                woke,
            },
            Err(reason) => Committed {
                result: Err(StoreError::Commit(reason.clone())),
                woke: false,
            },
        });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::db::args;

    /// A job that runs `f` (which says whether it succeeded) and reports whether it was
    /// committed and woke the waiters (for the stores' tests).
    pub(crate) fn waking(
        quiet: bool,
        f: impl FnOnce(&dyn Db) -> bool + Send + 'static,
    ) -> (Job, std::sync::mpsc::Receiver<bool>) {
        let (send, recv) = std::sync::mpsc::channel();
        let job = Job {
            prefetch: None,
            quiet,
            run: Box::new(move |db| {
                let ok = f(db);
                let finish: Finish = Box::new(move |c| {
                    let _ = send.send(c.result.is_ok() && c.woke);
                });
                (ok, finish)
            }),
        };
        (job, recv)
    }

    /// Writes a row (an audit record).
    fn writes(db: &dyn Db) -> bool {
        db.execute(
            "INSERT INTO audit (at, action, symbol_path, holder, by_session, reason)
             VALUES (1, 'test', 'a.ts:f', 's', NULL, 'r')",
            args![],
        )
        .is_ok()
    }

    /// Writes, then fails: rolled back.
    fn fails(db: &dyn Db) -> bool {
        writes(db);
        false
    }

    /// Reads, and changes no row (a lock waiter's failed try).
    fn changes_nothing(db: &dyn Db) -> bool {
        db.execute("DELETE FROM locks WHERE symbol_path = 'nobody'", args![])
            .is_ok()
            && db.rows("SELECT COUNT(*) FROM locks", args![]).is_ok()
    }

    fn wakes(store: &Store) -> i64 {
        store
            .with(|c| {
                c.query_row("SELECT n FROM wakes", [], |r| r.get(0))
                    .map_err(StoreError::from)
            })
            .unwrap()
    }

    #[test]
    fn a_job_wakes_the_waiters_only_when_it_changed_something_and_is_not_quiet() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("state.db")).unwrap();
        // (quiet, what it does, whether it wakes)
        type Does = fn(&dyn Db) -> bool;
        let cases: [(bool, Does, bool); 4] = [
            (false, writes, true),
            (true, writes, false),
            (false, changes_nothing, false),
            (false, fails, false),
        ];
        for (i, (quiet, does, wakes_expected)) in cases.into_iter().enumerate() {
            for inline in [false, true] {
                let before = wakes(&store);
                let (j, woke) = waking(quiet, does);
                if inline {
                    assert!(store.try_run_batch(vec![j]).is_ok());
                } else {
                    store.run_batch(vec![j], false);
                }
                assert_eq!(woke.recv().unwrap(), wakes_expected, "case {i}");
                assert_eq!(
                    wakes(&store) - before,
                    i64::from(wakes_expected),
                    "case {i}: the other daemons are told through the counter"
                );
            }
        }
        // In one batch: each job learns its own, and the counter moves once.
        let before = wakes(&store);
        let (a, a_woke) = waking(true, writes);
        let (b, b_woke) = waking(false, writes);
        let (c, c_woke) = waking(false, changes_nothing);
        let (d, d_woke) = waking(false, writes);
        store.run_batch(vec![a, b, c, d], false);
        let woke: Vec<bool> = [a_woke, b_woke, c_woke, d_woke]
            .iter()
            .map(|r| r.recv().unwrap())
            .collect();
        assert_eq!(woke, [false, true, false, true]);
        assert_eq!(wakes(&store) - before, 1);
        // A batch of heartbeats and failed tries leaves it alone.
        let (a, _) = waking(true, writes);
        let (b, _) = waking(false, changes_nothing);
        store.run_batch(vec![a, b], false);
        assert_eq!(wakes(&store) - before, 1);
    }
}
