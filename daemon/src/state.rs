//! What every request handler can reach: the store, the analysis service, the settings.

use std::path::PathBuf;
use std::sync::Arc;

use rusqlite::{Connection, Transaction};

use crate::analysis::{Analysis, FileOutcome, Lookup};
use crate::config::Config;
use crate::methods::Failure;
use crate::store::Store;
use crate::store::batch::{Batcher, Finish, Job};
use wit_boundary::WitDir;

/// Shared daemon state.
pub(crate) struct AppState {
    /// Canonical repository root.
    pub root: PathBuf,
    /// The `.wit/` paths.
    pub wit: WitDir,
    /// Settings.
    pub config: Config,
    /// SQLite.
    pub store: Arc<Store>,
    /// Analyzers and parse cache.
    pub analysis: Arc<Analysis>,
    /// Unix ms at startup.
    pub started_at_ms: i64,
    /// The parsed `openrpc.json`.
    pub openrpc: serde_json::Value,
}

impl AppState {
    /// Runs a read (or a non-transactional call): inline when the connection is free (a
    /// short indexed query), else on the blocking pool.
    pub async fn read<T, F>(&self, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, Failure> + Send + 'static,
    {
        let f = match self.store.try_with(f) {
            Ok(done) => return done,
            Err(f) => f,
        };
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.with(f))
            .await
            .map_err(Failure::from_join)?
    }

    /// Runs `f` as one atomic write: in its own savepoint of a transaction shared with
    /// the writes queued at the same moment (group commit, see `store::batch`), answered
    /// after the commit.
    pub async fn write<T, F>(&self, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T, Failure> + Send + 'static,
    {
        let (send, recv) = tokio::sync::oneshot::channel::<Result<T, Failure>>();
        let job: Job = Box::new(move |tx| {
            let result = f(tx);
            let ok = result.is_ok();
            let finish: Finish = Box::new(move |commit| {
                let _ = send.send(match commit {
                    Ok(()) => result,
                    Err(e) => Err(Failure::from(e)),
                });
            });
            (ok, finish)
        });
        Batcher::submit(&self.store, job);
        recv.await
            .unwrap_or_else(|_| Err(Failure::internal("the write was cancelled")))
    }

    /// Analyses the disk content of each file (in order). Files whose content is in the
    /// cache are answered inline (a read and a comparison); the rest are analysed on the
    /// blocking pool, so parsing never runs on the async threads.
    pub async fn analyse_disk(&self, files: Vec<String>) -> Result<Vec<FileOutcome>, Failure> {
        let mut outcomes = Vec::with_capacity(files.len());
        let mut misses = Vec::new();
        for (i, f) in files.iter().enumerate() {
            match self.analysis.lookup_disk(f) {
                Lookup::Done(outcome) => outcomes.push(outcome),
                Lookup::Miss(file) => {
                    outcomes.push(FileOutcome::NotFound);
                    misses.push((i, f.clone(), file));
                }
            }
        }
        if !misses.is_empty() {
            let analysis = self.analysis.clone();
            let done = tokio::task::spawn_blocking(move || {
                misses
                    .into_iter()
                    .map(|(i, f, file)| {
                        let outcome = analysis.analyse_read(&f, file);
                        if let FileOutcome::Failed(reason) = &outcome {
                            tracing::debug!("analysing {f}: {reason}");
                        }
                        (i, outcome)
                    })
                    .collect::<Vec<_>>()
            })
            .await
            .map_err(Failure::from_join)?;
            for (i, outcome) in done {
                outcomes[i] = outcome;
            }
        }
        Ok(outcomes)
    }
}

/// Current time in Unix milliseconds.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
