//! The PostgreSQL store (issue 13, in progress): so far its schema and migrations. Each
//! project's state lives in a schema of its own (`wit_<hash>`, see
//! [`super::target::schema_name`]), so one database serves many repositories and every
//! statement stays the same as for one repository (`search_path` picks the project).
//!
//! The plan for the rest, decided so the next step starts from it:
//! - **One boundary.** Every store module function takes a transaction trait object
//!   (`StateTx`: execute, query rows, last sequence number, `now_ms`) instead of a
//!   `rusqlite::Connection`, implemented for SQLite's transaction and for the blocking
//!   client of `tokio-postgres` (`postgres::Transaction`, run on the blocking pool like
//!   SQLite's writes). SQL is written once with `?N` parameters, rewritten to `$N` for
//!   PostgreSQL; the few dialect differences (`json_each` ↔ `jsonb_array_elements_text`)
//!   live in the statement's own module. Handlers do not change: they already reach state
//!   only through `AppState::read` / `AppState::write` and the store modules.
//! - **The database's clock.** `now_ms` is SQLite's host clock, but PostgreSQL's
//!   `clock_timestamp()` read once per transaction, so expiry across machines is decided
//!   by one clock.
//! - **Events across daemons.** After each commit, `NOTIFY wit_<hash>, '<seq>'`; every
//!   daemon `LISTEN`s on one connection of its own and bumps `AppState::events` (the
//!   same wake-up the worktree watcher uses); after a reconnect it bumps once, and its
//!   waiters re-read the durable log, so nothing is missed.
//! - **Failure.** A small pool (4 connections); a lost connection is retried three
//!   times (100, 200, 400 ms), then the request fails with an error naming the store by
//!   [`super::target::shown`] (never its credentials); hooks fail open as with no daemon;
//!   the daemon reconnects by itself. Unreachable at start: a clear error and exit.
//! - **Configuration.** `WIT_STORE_URL`, or the user's `~/.config/wit/config.toml`;
//!   `wit.toml`'s `[store] url` only once `wit trust` pinned that file.
//! - **`wit store migrate`** copies a repository's SQLite state into its project's schema
//!   once (a marker in `public.wit_projects` makes it idempotent).
//! - **Tests** run the whole daemon e2e suite against both backends (a `WIT_TEST_STORE`
//!   switch in the e2e support, one database per test on one `wit_testkit` cluster).

pub(crate) mod schema;
pub(crate) mod store;

pub(crate) use store::{PgStore, listen};
