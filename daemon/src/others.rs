//! Commits of other daemons sharing this daemon's store (the worktrees of one
//! repository on its SQLite database, see `crate::worktree`; any daemon on a PostgreSQL
//! store): they wake this daemon's waiters as its own commits do, when they may matter
//! to them (see `store::batch::Committed::woke`: heartbeats do not).
//!
//! One watcher per store per process ([`crate::process::Sharers`]): the worktrees one
//! process serves share their store. On SQLite a watcher of each polled the database 50
//! times a second (eight worktrees: 400 polls a second, most of an idle process's CPU);
//! on PostgreSQL each held a connection of its own to listen on. The watcher wakes every
//! worktree on the store; it ends when the last of them leaves.
//!
//! Apart from `worktree` (which decides where the state lives, and which the state itself
//! uses) because it runs on the state: a module of its own keeps that one-way.

use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::process::{Process, StoreKey, Wake};
use crate::state::AppState;
use crate::store::Backend;
use crate::worktree::Placement;

/// How often a daemon sharing its database looks for other daemons' commits.
const POLL: Duration = Duration::from_millis(20);
/// How often a daemon not sharing (yet) checks whether a linked worktree appeared.
const IDLE_CHECK: Duration = Duration::from_secs(2);

/// The store `state` is on, as the process's watchers know it. A PostgreSQL project is
/// known by its database and project: whoever listens hears the same notifications.
fn store_key(state: &AppState) -> StoreKey {
    match &state.store {
        Backend::Sqlite(_) => StoreKey::Sqlite(state.placement.state.database()),
        Backend::Postgres(pg) => StoreKey::Postgres(pg.shown().to_owned(), pg.project().to_owned()),
    }
}

/// Wakes `state`'s waiters (`events.poll`, `lock.acquire` with `waitMs`, streams) after
/// each commit of another connection to its store that may matter to them, from now
/// until [`stop_watching`] with the key returned.
pub(crate) fn watch_others(state: &Arc<AppState>) -> u64 {
    let key = store_key(state);
    let weak = Arc::downgrade(state);
    let wake: Wake = Box::new(move || {
        if let Some(state) = weak.upgrade() {
            state.events.send_modify(|generation| *generation += 1);
        }
    });
    let process = Arc::downgrade(&state.process);
    let watched = key.clone();
    match &state.store {
        Backend::Sqlite(_) => {
            let placement = state.placement.clone();
            state
                .process
                .sharers
                .join(&key, wake, move || tokio::spawn(watch(process, placement)))
        }
        Backend::Postgres(pg) => {
            let pg = pg.clone();
            state.process.sharers.join(&key, wake, move || {
                tokio::spawn(crate::store::pg::listen(pg, move || {
                    if let Some(process) = process.upgrade() {
                        process.sharers.wake(&watched);
                    }
                }))
            })
        }
    }
}

/// Ends what [`watch_others`] started for `state` (`id`: its key); the store's watcher
/// stops, and its connection closes, when `state` was the last worktree on it.
pub(crate) async fn stop_watching(state: &AppState, id: u64) {
    if let Some(watcher) = state.process.sharers.leave(&store_key(state), id) {
        watcher.abort();
        let _ = watcher.await;
    }
}

/// Runs until aborted: while another daemon may write to the state database of
/// `placement`, wakes the worktrees of the process on it after each commit made by
/// another connection that may matter to a waiter ([`Commits`]); nothing runs at all
/// while the repository has no linked worktree.
async fn watch(process: Weak<Process>, placement: Placement) {
    let db = placement.state.database();
    let key = StoreKey::Sqlite(db.clone());
    // Opened only while sharing is possible: an idle extra connection would keep SQLite
    // from checkpointing and removing the WAL when the daemon stops.
    let mut conn: Option<rusqlite::Connection> = None;
    let mut commits = Commits::default();
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
            commits = Commits::default();
        }
        tokio::time::sleep(POLL).await;
        let Some(c) = conn.as_ref() else {
            continue;
        };
        if commits.look(c) {
            let Some(process) = process.upgrade() else {
                return;
            };
            process.sharers.wake(&key);
        }
    }
}

/// What a watcher saw of its database at its last look.
///
/// `PRAGMA data_version` changes with every commit another connection makes: the cheap
/// test SQLite offers for exactly that (one page read, no table scan). Then the `wakes`
/// counter (`store::batch`) says whether one of those commits may matter to a waiter:
/// heartbeats do not bump it, so the checkouts' beats (each of N worktrees every two
/// seconds) no longer wake every other worktree's waiters and forecast for nothing.
/// Both statements are prepared once.
#[derive(Default)]
pub(crate) struct Commits {
    version: Option<i64>,
    wakes: Option<i64>,
}

impl Commits {
    /// Looks at `conn`'s database: whether a commit since the last look may matter to a
    /// waiter. The first look only notes where things stand. A counter that cannot be
    /// read counts as moved: a needless wake costs a read, a missed one a waiter.
    pub(crate) fn look(&mut self, conn: &rusqlite::Connection) -> bool {
        let read = |sql: &str| -> Option<i64> {
            let mut statement = conn.prepare_cached(sql).ok()?;
            statement.query_row([], |r| r.get(0)).ok()
        };
        let version = read("PRAGMA data_version");
        if version.is_none() || version == self.version {
            self.version = version;
            return false;
        }
        let first = self.version.is_none();
        self.version = version;
        let wakes = read("SELECT n FROM wakes");
        let moved = wakes.is_none() || wakes != self.wakes;
        self.wakes = wakes;
        moved && !first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::batch::tests::waking;
    use crate::store::batch::{BatchTarget, Job};

    /// A job writing a checkout's row, `quiet` or not, failing when `fails`.
    fn job(quiet: bool, fails: bool) -> Job {
        let (job, _) = waking(quiet, move |db| {
            let wrote = db.execute(
                "INSERT INTO checkouts (checkout, state, version, seen_at)
                 VALUES ('c', 'ready', 1, 1)
                 ON CONFLICT(checkout) DO UPDATE SET seen_at = seen_at + 1",
                crate::store::db::args![],
            );
            wrote.is_ok() && !fails
        });
        job
    }

    #[test]
    fn a_watcher_wakes_for_commits_that_matter_and_not_for_heartbeats() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let store = Store::open(&path).unwrap();
        let watcher = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        let mut commits = Commits::default();
        assert!(!commits.look(&watcher), "the first look only notes");
        assert!(!commits.look(&watcher), "no commit, no wake");

        store.run_batch(vec![job(false, false)], false);
        assert!(commits.look(&watcher), "a commit that matters wakes");
        assert!(!commits.look(&watcher), "once");

        store.run_batch(vec![job(true, false)], false);
        assert!(!commits.look(&watcher), "a heartbeat alone wakes nobody");

        // A heartbeat with a job that failed (rolled back) beside it: nothing to see.
        store.run_batch(vec![job(false, true), job(true, false)], false);
        assert!(!commits.look(&watcher));

        // A batch of heartbeats and one job that matters wakes.
        store.run_batch(vec![job(true, false), job(false, false)], false);
        assert!(commits.look(&watcher));

        // A database whose counter cannot be read wakes on every commit: a needless wake
        // costs a read, a missed one a waiter.
        store
            .with(|c| {
                c.execute_batch("DROP TABLE wakes")
                    .map_err(crate::store::StoreError::from)
            })
            .unwrap();
        store.run_batch(vec![job(true, false)], false);
        assert!(commits.look(&watcher));
    }
}
