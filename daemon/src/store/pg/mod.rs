//! The PostgreSQL store (issue 13): state shared by the daemons of many checkouts and
//! machines. Each project's state lives in a schema of its own (`wit_<hash>`, see
//! [`super::target::schema_name`]), so one database serves many repositories and every
//! statement stays the same as for one repository (`search_path` picks the project).
//!
//! - [`schema`]: the tables and their migrations, run once under an advisory lock however
//!   many daemons start at once.
//! - [`store`]: the pool, the [`super::db::Db`] of a transaction, writes serialized across
//!   daemons by the project's advisory lock, the database's clock, `NOTIFY`/`LISTEN` for
//!   events, and what happens when the database is unreachable.
//!
//! The handlers do not know which backend they use: they reach state only through
//! `AppState::read` / `AppState::write` and the store modules, which take `&dyn Db`.
//! Configuration (`WIT_STORE_URL`, the user's config, a trusted `wit.toml`) is
//! [`super::target`]; `wit store migrate` is [`super::migrate`].

pub(crate) mod schema;
pub(crate) mod store;

pub(crate) use store::{PgStore, listen};
