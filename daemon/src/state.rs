//! What every request handler can reach: the store, the analysis service, the settings.

use std::path::PathBuf;
use std::sync::Arc;

use rusqlite::{Connection, Transaction};

use crate::analysis::{Analysis, FileOutcome};
use crate::config::Config;
use crate::methods::Failure;
use crate::store::Store;
use crate::witdir::WitDir;

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
    /// Runs a read (or a non-transactional call) on the blocking pool.
    pub async fn read<T, F>(&self, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, Failure> + Send + 'static,
    {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.with(f))
            .await
            .map_err(Failure::from_join)?
    }

    /// Runs `f` in one write transaction on the blocking pool.
    pub async fn write<T, F>(&self, f: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T, Failure> + Send + 'static,
    {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || store.write(f))
            .await
            .map_err(Failure::from_join)?
    }

    /// Analyses the disk content of each file (in order) on the blocking pool.
    pub async fn analyse_disk(&self, files: Vec<String>) -> Result<Vec<FileOutcome>, Failure> {
        let analysis = self.analysis.clone();
        tokio::task::spawn_blocking(move || {
            files
                .iter()
                .map(|f| {
                    let outcome = analysis.analyse_disk(f);
                    if let FileOutcome::Failed(reason) = &outcome {
                        tracing::debug!("analysing {f}: {reason}");
                    }
                    outcome
                })
                .collect()
        })
        .await
        .map_err(Failure::from_join)
    }
}

/// Current time in Unix milliseconds.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
