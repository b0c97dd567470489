//! Commits of other daemons sharing this daemon's SQLite database (the worktrees of one
//! repository, see `crate::worktree`): noticed through `PRAGMA data_version`, they wake
//! this daemon's waiters as its own commits do.
//!
//! One watcher per database per process ([`crate::process::Sharers`]): the worktrees one
//! process serves share their database, and a watcher of each polled it 50 times a second
//! (eight worktrees: 400 polls a second, most of an idle process's CPU). The watcher
//! wakes every worktree on the database; it ends when the last of them leaves.
//!
//! Apart from `worktree` (which decides where the state lives, and which the state itself
//! uses) because it runs on the state: a module of its own keeps that one-way.

use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::process::{Process, Wake};
use crate::state::AppState;
use crate::worktree::Placement;

/// How often a daemon sharing its database looks for other daemons' commits.
const POLL: Duration = Duration::from_millis(20);
/// How often a daemon not sharing (yet) checks whether a linked worktree appeared.
const IDLE_CHECK: Duration = Duration::from_secs(2);

/// Wakes `state`'s waiters (`events.poll`, `lock.acquire` with `waitMs`, streams) after
/// each commit another connection makes to its database, from now until
/// [`stop_watching`] with the key returned.
pub(crate) fn watch_others(state: &Arc<AppState>) -> u64 {
    let db = state.placement.state.database();
    let weak = Arc::downgrade(state);
    let wake: Wake = Box::new(move || {
        if let Some(state) = weak.upgrade() {
            state.events.send_modify(|generation| *generation += 1);
        }
    });
    let process = Arc::downgrade(&state.process);
    let placement = state.placement.clone();
    let watched = db.clone();
    state.process.sharers.join(&db, wake, move || {
        tokio::spawn(watch(process, watched, placement))
    })
}

/// Ends what [`watch_others`] started for `state` (`id`: its key); the database's
/// watcher stops, and its connection closes, when `state` was the last worktree on it.
pub(crate) async fn stop_watching(state: &AppState, id: u64) {
    let db = state.placement.state.database();
    if let Some(watcher) = state.process.sharers.leave(&db, id) {
        watcher.abort();
        let _ = watcher.await;
    }
}

/// Runs until aborted: while another daemon may write to `db`, wakes the worktrees of the
/// process on it after each commit made by another connection. `PRAGMA data_version` is
/// the cheap test SQLite offers for exactly that (one page read, no table scan; the
/// statement prepared once); nothing runs at all while the repository has no linked
/// worktree.
async fn watch(process: Weak<Process>, db: PathBuf, placement: Placement) {
    // Opened only while sharing is possible: an idle extra connection would keep SQLite
    // from checkpointing and removing the WAL when the daemon stops.
    let mut conn: Option<rusqlite::Connection> = None;
    let mut seen: Option<i64> = None;
    // Whether another daemon may write, looked up again every IDLE_CHECK (a directory
    // read), not on every poll.
    let mut shared = placement.may_be_shared();
    let mut checked = tokio::time::Instant::now();
    loop {
        if checked.elapsed() >= IDLE_CHECK {
            shared = placement.may_be_shared();
            checked = tokio::time::Instant::now();
        }
        if !shared {
            conn = None;
            tokio::time::sleep(IDLE_CHECK).await;
            continue;
        }
        if conn.is_none() {
            conn = rusqlite::Connection::open_with_flags(
                &db,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW,
            )
            .ok();
            seen = None;
        }
        tokio::time::sleep(POLL).await;
        let now: Option<i64> = conn.as_ref().and_then(|c| {
            let mut version = c.prepare_cached("PRAGMA data_version").ok()?;
            version.query_row([], |r| r.get(0)).ok()
        });
        if now.is_some() && seen.is_some() && now != seen {
            let Some(process) = process.upgrade() else {
                return;
            };
            process.sharers.wake(&db);
        }
        seen = now;
    }
}
