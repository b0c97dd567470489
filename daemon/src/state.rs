//! What every request handler can reach: the store, the analysis service, the settings.

use std::path::PathBuf;
use std::sync::Arc;

use crate::analysis::{AnalysisService, FileOutcome};
use crate::config::Config;
use crate::methods::Failure;
use crate::store::Backend;
use crate::store::batch::{Batcher, Finish, Job};
use crate::store::db::Db;
use wit_boundary::WitDir;
use wit_core::text::escape;

/// Shared daemon state.
pub(crate) struct AppState {
    /// This checkout's name in the shared state (see [`AppState::worktree_name`]).
    pub checkout: String,
    /// Canonical repository root.
    pub root: PathBuf,
    /// The `.wit/` paths.
    pub wit: WitDir,
    /// Settings.
    pub config: Config,
    /// The coordination state: SQLite (this machine) or PostgreSQL (shared).
    pub store: Backend,
    /// Analyzers and parse cache.
    pub analysis: Arc<AnalysisService>,
    /// Analyses made ahead of need, at a lower priority (see [`crate::prepare`]).
    pub prepare: crate::prepare::Prepare,
    /// Unix ms at startup.
    pub started_at_ms: i64,
    /// Bumped after every committed write that changed something and is not a heartbeat
    /// (`store::batch::Committed::woke`): `events.poll` waiters wake on it and read the
    /// event log again (cheaper and simpler than routing each event to each waiter).
    pub events: tokio::sync::watch::Sender<u64>,
    /// Waiting lines of `lock.acquire` with `waitMs`.
    pub lock_queues: crate::queues::LockQueues,
    /// Where the state lives (shared with the other worktrees, or this checkout's own).
    pub placement: crate::worktree::Placement,
    /// The repository code graph (built in the background, see [`crate::index`]).
    pub index: Arc<crate::index::RepoIndex>,
    /// Which session changed which definition of this checkout (see [`crate::claims`]).
    pub claims: Arc<crate::claims::Claims>,
    /// Rung when a lock taken or renewed here expires before the expiry timer
    /// ([`crate::purge`]) planned to wake.
    pub lock_expiry: crate::expiry::ExpiryAlarm,
    /// Requests answered so far: the heap is trimmed only while it stands still
    /// ([`crate::footprint::Trimmer`]).
    pub served: std::sync::atomic::AtomicU64,
    /// Notified by `daemon.stop`: this worktree stops being served.
    pub stop: tokio::sync::Notify,
    /// The process serving this worktree (and maybe others of the repository).
    pub process: Arc<crate::process::Process>,
}

impl AppState {
    /// Runs a read (or a non-transactional call). SQLite: inline when the connection is
    /// free (a short indexed query), else on the blocking pool. PostgreSQL: on the
    /// blocking pool, with a connection of the pool.
    pub async fn read<T, F>(&self, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Db) -> Result<T, Failure> + Send + 'static,
    {
        match &self.store {
            Backend::Sqlite(store) => {
                let f = match store.try_with(move |c: &mut rusqlite::Connection| f(&*c)) {
                    Ok(done) => return done,
                    Err(f) => f,
                };
                let store = store.clone();
                tokio::task::spawn_blocking(move || store.with(f))
                    .await
                    .map_err(Failure::from_join)?
            }
            Backend::Postgres(store) => {
                let store = store.clone();
                tokio::task::spawn_blocking(move || store.read(f))
                    .await
                    .map_err(Failure::from_join)?
            }
        }
    }

    /// Runs `f` as one atomic write: in its own savepoint of a transaction shared with
    /// the writes queued at the same moment (group commit, see `store::batch`), answered
    /// after the commit.
    pub async fn write<T, F>(&self, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Db) -> Result<T, Failure> + Send + 'static,
    {
        self.write_sized(false, f).await
    }

    /// [`AppState::write`] for a write that may be `heavy` (thousands of rows): its batch
    /// then runs on the blocking pool, never on the async thread.
    pub async fn write_sized<T, F>(&self, heavy: bool, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Db) -> Result<T, Failure> + Send + 'static,
    {
        self.write_job(heavy, None, false, f).await
    }

    /// [`AppState::write`] for a write that only says something is alive (a heartbeat):
    /// it wakes no waiter, here or in the other daemons sharing the store, since nothing
    /// they wait for changed (see [`crate::store::batch::Job::quiet`]).
    pub async fn write_quiet<T, F>(&self, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Db) -> Result<T, Failure> + Send + 'static,
    {
        self.write_job(false, None, true, f).await
    }

    /// [`AppState::write`] for a job whose first reads are `prefetch` (see
    /// [`crate::store::db::Read`]: on PostgreSQL they travel with the other jobs' of the
    /// batch instead of costing the job a round trip of its own under the write lock).
    /// `f` must make exactly those reads first, through [`Db::rows_all`] (or one through
    /// [`Db::rows`]).
    pub async fn write_prefetched<T, F>(
        &self,
        prefetch: crate::store::db::Prefetch,
        f: F,
    ) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Db) -> Result<T, Failure> + Send + 'static,
    {
        self.write_job(false, Some(prefetch), false, f).await
    }

    async fn write_job<T, F>(
        &self,
        heavy: bool,
        prefetch: Option<crate::store::db::Prefetch>,
        quiet: bool,
        f: F,
    ) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Db) -> Result<T, Failure> + Send + 'static,
    {
        // With whether the job wakes the waiters (see `store::batch::Committed::woke`): a
        // write that changed nothing (a lock waiter's failed try) must not wake them, or
        // a waiter would wake itself, over and over, for the whole of its wait.
        let (send, recv) = tokio::sync::oneshot::channel::<(Result<T, Failure>, bool)>();
        let run: crate::store::batch::Run = Box::new(move |tx| {
            let result = f(tx);
            let ok = result.is_ok();
            let finish: Finish = Box::new(move |commit| {
                let answer = match commit.result {
                    Ok(()) => result,
                    Err(e) => Err(Failure::from(e)),
                };
                let _ = send.send((answer, commit.woke));
            });
            (ok, finish)
        });
        let job = Job {
            prefetch,
            run,
            quiet,
        };
        match &self.store {
            Backend::Sqlite(store) => Batcher::submit(store, job, heavy),
            Backend::Postgres(store) => Batcher::submit(store, job, heavy),
        }
        let (result, woke) = recv
            .await
            .unwrap_or_else(|_| (Err(Failure::internal("the write was cancelled")), false));
        if result.is_ok() && woke {
            self.events.send_modify(|generation| *generation += 1);
        }
        result
    }

    /// Analyses the disk content of each file (in order), all on the blocking pool: the
    /// read, the comparison with the cache and, on a miss, the parse. None of it runs on
    /// the async thread, so a slow disk, a huge file or a pathological parse delays only
    /// this request, never `ping` or anyone else's. Files are read under
    /// `[analysis] max_file_bytes`; a file refused or failing is logged (escaped: names
    /// and reasons come from the repository) and answered as a failure of that file.
    pub async fn analyse_disk(&self, files: Vec<String>) -> Result<Vec<FileOutcome>, Failure> {
        let (outcomes, ()) = self.analyse_disk_then(files, |_, _| ()).await?;
        Ok(outcomes)
    }

    /// [`AppState::analyse_disk`], then `then` with the outcomes and the repository
    /// index, in the same trip to the blocking pool: what the code graph says about the
    /// files just analysed rests on those analyses, and a second trip would cost a
    /// hand-over between threads on every `lock.acquire` and `intent.declare`. `then`
    /// runs only when some file analysed (else the answer is `T::default()`, with no trip
    /// at all when no file has an analyzer).
    pub async fn analyse_disk_then<T, F>(
        &self,
        files: Vec<String>,
        then: F,
    ) -> Result<(Vec<FileOutcome>, T), Failure>
    where
        T: Default + Send + 'static,
        F: FnOnce(&[FileOutcome], &crate::index::RepoIndex) -> T + Send + 'static,
    {
        // No analyzer, nothing to read: answered without the trip to the blocking pool.
        if !files.iter().any(|f| self.analysis.supports(f)) {
            let outcomes = files.iter().map(|_| FileOutcome::Unsupported).collect();
            return Ok((outcomes, T::default()));
        }
        let analysis = self.analysis.clone();
        let index = self.index.clone();
        let limit = self.config.parsed.analysis.max_file_bytes;
        tokio::task::spawn_blocking(move || {
            let outcomes = analyse_each(&analysis, &files, limit);
            let answer = if outcomes.iter().any(|o| o.analysis().is_some()) {
                then(&outcomes, &index)
            } else {
                T::default()
            };
            (outcomes, answer)
        })
        .await
        .map_err(Failure::from_join)
    }
}

/// Each of `files` analysed from disk, in order (blocking).
fn analyse_each(analysis: &AnalysisService, files: &[String], limit: u64) -> Vec<FileOutcome> {
    files
        .iter()
        .map(|f| {
            let outcome = analysis.analyse_disk(f, limit);
            if let FileOutcome::Failed(reason) = &outcome {
                tracing::info!("not analysed: {}: {}", escape(f), escape(reason));
            }
            outcome
        })
        .collect()
}

impl AppState {
    /// This daemon's worktree as recorded for its sessions and the forecast: the root's
    /// path, and on a PostgreSQL store its clone's id too (`/workspace#1f2e3d4c5b6a7988`:
    /// see `crate::worktree::clone_id`).
    pub fn worktree_name(&self) -> String {
        self.checkout.clone()
    }

    /// Runs `f` with the index on the blocking pool (index queries read files to verify
    /// them and may re-analyse one).
    pub async fn with_index<T, F>(&self, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&crate::index::RepoIndex) -> T + Send + 'static,
    {
        let index = self.index.clone();
        tokio::task::spawn_blocking(move || f(&index))
            .await
            .map_err(Failure::from_join)
    }
}
