//! Commits of other daemons sharing this daemon's SQLite database (the worktrees of one
//! repository, see `crate::worktree`): noticed through `PRAGMA data_version`, they wake
//! this daemon's waiters as its own commits do.
//!
//! Apart from `worktree` (which decides where the state lives, and which the state itself
//! uses) because it runs on the state: a module of its own keeps that one-way.

use std::time::Duration;

/// How often a daemon sharing its database looks for other daemons' commits.
const POLL: Duration = Duration::from_millis(20);
/// How often a daemon not sharing (yet) checks whether a linked worktree appeared.
const IDLE_CHECK: Duration = Duration::from_secs(2);

/// Runs forever (abort the task to stop it): while another daemon may write to the same
/// database, wakes this daemon's waiters (`events.poll`, `lock.acquire` with `waitMs`,
/// streams) after each commit made by another connection. `PRAGMA data_version` is the
/// cheap test SQLite offers for exactly that (one page read, no table scan); nothing runs
/// at all while the repository has no linked worktree.
pub(crate) async fn watch_others(state: std::sync::Arc<crate::state::AppState>) {
    // Opened only while sharing is possible: an idle extra connection would keep SQLite
    // from checkpointing and removing the WAL when the daemon stops.
    let mut conn: Option<rusqlite::Connection> = None;
    let mut seen: Option<i64> = None;
    // Whether another daemon may write, looked up again every IDLE_CHECK (a directory
    // read), not on every poll.
    let mut shared = state.placement.may_be_shared();
    let mut checked = tokio::time::Instant::now();
    loop {
        if checked.elapsed() >= IDLE_CHECK {
            shared = state.placement.may_be_shared();
            checked = tokio::time::Instant::now();
        }
        if !shared {
            conn = None;
            tokio::time::sleep(IDLE_CHECK).await;
            continue;
        }
        if conn.is_none() {
            conn = rusqlite::Connection::open_with_flags(
                state.placement.state.database(),
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW,
            )
            .ok();
            seen = None;
        }
        tokio::time::sleep(POLL).await;
        let now: Option<i64> = conn
            .as_ref()
            .and_then(|c| c.query_row("PRAGMA data_version", [], |r| r.get(0)).ok());
        if now.is_some() && seen.is_some() && now != seen {
            state.events.send_modify(|generation| *generation += 1);
        }
        seen = now;
    }
}
