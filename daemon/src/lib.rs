//! `wit-daemon`: the per-repository coordination daemon (protocol v1, `openrpc.json`).
//!
//! One daemon serves one repository at `<repo>/.wit/daemon.sock`: HTTP/1.1 `POST /rpc`
//! carrying JSON-RPC 2.0 with `witVersion: "1"`. State lives in SQLite (`.wit/state.db`).
//!
//! # Public API (used by the `wit` CLI)
//! - [`run_blocking`]: serve a repository in the foreground until SIGTERM/SIGINT
//!   (`wit daemon run`). Returns [`DaemonError::AlreadyRunning`] when another daemon holds
//!   the repository's lock file, so the CLI can tell "already running" from a failure.
//! - [`WitDir`]: where the daemon's files live (`.wit/daemon.sock`, `.wit/daemon.pid`,
//!   `.wit/daemon.lock`, `.wit/daemon.log`, `.wit/state.db`).
//! - [`BODY_LIMIT_BYTES`]: the request body limit (16 MiB); larger bodies get HTTP 413 with
//!   a JSON-RPC `INVALID_REQUEST` body whose `data` is
//!   `{"reason": …, "limitBytes": 16777216}`.
//!
//! # Extensions to protocol v1
//! - `rpc.discover` → the `openrpc.json` document embedded in the binary.
//! - `daemon.status` → `{pid, version, startedAt, uptimeMs, root, socket,
//!   counts: {locks, intents, contracts}, analyzers: [{id, extensions, origin}]}`
//!   (`startedAt` in Unix ms; `intents` counts declared and active ones).
//!
//! # Layout
//! `lifecycle` (directory, single instance, pid, signals) → `server` (socket, HTTP) →
//! `envelope` (validation order) → `router` → `methods::*` → `store` (SQLite) and
//! `analysis` (files read through `paths`, analyzers off the async threads).

mod analysis;
mod config;
mod envelope;
mod error;
mod lifecycle;
mod methods;
mod params;
mod paths;
mod purge;
mod router;
mod server;
mod state;
mod store;
mod witdir;

pub mod plugins;
pub mod trust;

pub use error::DaemonError;
pub use server::BODY_LIMIT_BYTES;
pub use witdir::WitDir;

use std::path::Path;

/// The `openrpc.json` document served by `rpc.discover`.
pub const OPENRPC_JSON: &str = include_str!("../../openrpc.json");

/// Serves the repository at `root` in the foreground until SIGTERM or SIGINT.
///
/// Creates `<root>/.wit/` (mode 0700) if needed, takes the repository's daemon lock
/// (`.wit/daemon.lock`, flock), cleans up a stale socket and pid file left by a crashed
/// daemon, binds `.wit/daemon.sock` (mode 0600), writes `.wit/daemon.pid`, logs to
/// `.wit/daemon.log`, and on shutdown removes the socket and pid file and closes the
/// database.
///
/// # Errors
/// [`DaemonError::AlreadyRunning`] when another daemon serves this repository (it is left
/// alone); other variants when the directory, database or socket cannot be set up.
pub fn run_blocking(root: &Path) -> Result<(), DaemonError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("wit-daemon")
        .build()
        .map_err(|e| DaemonError::io("starting the async runtime", e))?;
    runtime.block_on(lifecycle::run(root))
}
