//! Git hooks (installing them, and what they do when git runs them), the merge driver git
//! runs (`wit hook merge`, set up with the hooks), and the agents' pre-edit hook,
//! `wit guard`.
//!
//! The hooks never start a daemon: starting one can take longer than the hooks' time
//! limits (2 s, 500 ms), and a commit must never wait on it. With no daemon running, the
//! pre-commit check is skipped (one line on stderr) and no trailers are added. The one
//! exception is Claude Code's `SessionStart` ([`agent_session`]): a session is starting,
//! wit is about to be used, and nothing waits on a commit.

mod agent_session;
mod edited;
pub mod guard;
mod guard_config;
pub(crate) mod guard_payload;
mod guard_ranges;
mod identity;
pub mod install;
pub mod merge_driver;
mod merge_setup;
mod post_edit;
pub mod pre_commit;
pub mod pre_push;
pub mod prepare_msg;

use std::sync::mpsc;
use std::time::Duration;

/// Runs `work` on its own thread and waits at most `limit` for it. `None` on timeout:
/// the caller then exits, abandoning the thread (the process ends with it).
pub fn with_deadline<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(limit).ok()
}

/// Connects to the repository's running daemon for a hook, never starting one; the error
/// is the line the hook prints when it lets the action through unchecked.
pub async fn connect_daemon(
    repo: &crate::root::Repo,
    limit: Duration,
) -> Result<crate::client::Client, String> {
    use crate::client::{Client, ConnectError};
    match Client::connect(&repo.socket(), limit).await {
        Ok(c) => Ok(c),
        Err(ConnectError::Missing | ConnectError::Refused) => {
            Err("no wit daemon is running (it is not started by hooks)".into())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// A current-thread runtime for a hook's few calls.
pub fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))
}

/// The hooks' contract check of `files`: every violation, with each file too large to send
/// to the daemon named on stderr (it is not checked); `Err` says why the check could not
/// run, and the hook then skips it (failing open, as with no daemon).
pub async fn check_files(
    client: &mut crate::client::Client,
    files: Vec<wit_core::protocol::StagedFile>,
) -> Result<Vec<wit_core::protocol::Violation>, String> {
    let found = crate::commands::check::check_in_batches(client, files)
        .await
        .map_err(|f| f.human())?;
    for path in &found.too_large {
        eprintln!(
            "wit: {} not checked: too large to send to the daemon",
            wit_core::text::escape(path)
        );
    }
    Ok(found.violations)
}
