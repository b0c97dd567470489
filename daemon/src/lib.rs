//! `wit-daemon`: the per-repository coordination daemon (protocol v1, `openrpc.json`).
//!
//! The daemon serves each worktree of a repository at `<worktree>/.wit/daemon.sock`:
//! HTTP/1.1 `POST /rpc` carrying JSON-RPC 2.0 with `witVersion: "1"`. State lives in
//! SQLite (the main worktree's `.wit/state.db`). One process per repository and user
//! serves every worktree that asks it (`host`), each with its own socket and answers.
//!
//! # Public API (used by the `wit` CLI)
//! - [`run_blocking`]: serve a worktree in the foreground until SIGTERM/SIGINT
//!   (`wit daemon run`), handed to the repository's daemon when one runs ([`Mode`]).
//!   Returns [`DaemonError::AlreadyRunning`] when another daemon holds the worktree's lock
//!   file, so the CLI can tell "already running" from a failure.
//! - [`WitDir`]: where the daemon's files live (`.wit/daemon.sock`, `.wit/daemon.pid`,
//!   `.wit/daemon.lock`, `.wit/daemon.log`, `.wit/state.db`).
//! - [`BODY_LIMIT_BYTES`]: the request body limit (16 MiB); larger bodies get HTTP 413 with
//!   a JSON-RPC `INVALID_REQUEST` body whose `data` is
//!   `{"reason": …, "limitBytes": 16777216}`.
//!
//! # Extensions to protocol v1
//! - `rpc.discover` → the `openrpc.json` document embedded in the binary.
//! - `daemon.status` → `{pid, version, startedAt, uptimeMs, root, socket,
//!   counts: {locks, intents, contracts}, analyzers: [{id, extensions, origin}],
//!   config: {file, present, error?}, failed: [{path, reason, hint?}]}`
//!   (`startedAt` in Unix ms; `intents` counts declared and active ones; `origin` is
//!   `"builtin"` or the plugin's path, which a plugin's entry also carries as `path`, the
//!   name `analyzers.list` uses).
//! - `analyzers.list` → `{analyzers: [{id, extensions, origin: "builtin"|"plugin", path?,
//!   failures?, lastFailure?}], failed: [{path, reason, hint?}], config: {file, present,
//!   error?, line?, column?, key?}, trust: {status, store?, changed?, error?}}`: every
//!   analyzer, the plugins refused at start and why, the state of `wit.toml` and of trust.
//!   `wit analyzers` and the pre-commit hook (for its extension list) read it.
//!
//! # Configuration and plugins
//! `wit.toml` is read once at start ([`wit_core::Config`]); an invalid file is logged and
//! reported (above) and the daemon serves with the defaults and no plugins. Plugins load
//! only when the repository is trusted ([`trust`]); each refusal is logged and reported,
//! and the daemon serves the rest. A plugin failing during `analyze` fails only the
//! analysis of that file: `lock.acquire` succeeds without caller warnings,
//! `intent.declare` stores the intent without byte ranges or dependencies for that file,
//! `contract.propose` answers `SYMBOL_NOT_FOUND`, and `check-contracts` reports a
//! violation (`actual`: symbol not found) for contracts in that file.
//!
//! # Layout
//! `lifecycle` (directory, logging, signals; ask the repository's daemon) → `host` (one
//! process serving several worktrees; `host::attach` the asking side) → `site` (one
//! worktree: single instance, pid, store, index; `process` what its worktrees share) →
//! `server` (socket, HTTP) →
//! `envelope` (validation order) → `router` → `methods::*` → `store` (SQLite) and
//! `analysis` (files read through `wit_boundary`, paths normalized by `paths`, analyzers
//! off the async threads; `prepare` analyses ahead of need at a lower priority).

mod analysis;
mod claims;
mod clock;
mod config;
mod discover;
mod envelope;
mod error;
mod expiry;
mod footprint;
mod forecast;
mod host;
mod index;
mod leases;
mod lifecycle;
mod methods;
mod others;
mod params;
mod paths;
mod prepare;
mod priority;
mod process;
mod purge;
mod queues;
mod router;
mod server;
mod site;
mod sse;
mod state;
mod store;
mod worktree;

pub mod plugins;
pub mod trust;

pub use config::MAX_FILE_BYTES_CEILING;
pub use error::DaemonError;
pub use server::BODY_LIMIT_BYTES;
/// The words that start the one `.wit/daemon.log` line written when the daemon imported the
/// first (TypeScript) wit implementation's `.wit/state.db` and kept it as a backup.
pub use store::IMPORT_NOTE;
pub use store::migrate::{MigrationReport, migrate_to_shared_store};
pub use store::target::shown as shown_store_url;
pub use wit_boundary::WitDir;

use std::path::Path;

pub use discover::{OPENRPC_EXTENSIONS_JSON, OPENRPC_JSON};

/// The analyzers the daemon would use for the repository at `root`: the built-ins, then
/// the plugins and `[[languages]]` of its `wit.toml` where they load (the repository
/// trusted, `wit trust`), exactly as the daemon gathers them at start; what became of
/// each entry of `wit.toml`; and the size cap of an analysed file (`[analysis]
/// max_file_bytes`). For the processes that analyse without a daemon (the merge driver
/// git runs, `wit hook install` choosing the files it covers). An invalid `wit.toml`
/// means the defaults and no plugins, as for the daemon.
pub fn analyzers(root: &Path) -> Analyzers {
    let config = config::Config::load(root);
    let (registry, plugins) = analysis::build_registry(root, &config.parsed);
    Analyzers {
        registry,
        plugins,
        max_file_bytes: config.parsed.analysis.max_file_bytes,
        config_error: config.file.error,
    }
}

/// What [`analyzers`] found.
pub struct Analyzers {
    /// Every analyzer that loaded, by extension.
    pub registry: wit_core::Registry,
    /// What became of the plugins and languages `wit.toml` names.
    pub plugins: plugins::PluginsReport,
    /// The size cap of an analysed file.
    pub max_file_bytes: u64,
    /// Why `wit.toml` was refused, when it was.
    pub config_error: Option<String>,
}

/// Serves the repository at `root` in the foreground until SIGTERM or SIGINT.
///
/// Creates `<root>/.wit/` (mode 0700) if needed, takes the repository's daemon lock
/// (`.wit/daemon.lock`, flock), cleans up a stale socket and pid file left by a crashed
/// daemon, binds `.wit/daemon.sock` (mode 0600), writes `.wit/daemon.pid`, logs to
/// `.wit/daemon.log`, and on shutdown removes the socket and pid file and closes the
/// database, then returns within a bounded time even if an analysis is still running on
/// the blocking pool (it is abandoned).
///
/// # Errors
/// [`DaemonError::AlreadyRunning`] when another daemon serves this repository (it is left
/// alone); other variants when the directory, database or socket cannot be set up.
pub fn run_blocking(root: &Path, mode: Mode) -> Result<(), DaemonError> {
    limit_malloc_arenas();
    // One async thread: requests are a few microseconds of work each (parsing runs on the
    // blocking pool, capped so a burst of parses cannot grow memory without bound), and on
    // one thread no request pays for cross-thread wake-ups, while writes arriving
    // together still share a commit (store::batch). Measured: more throughput and lower
    // latency than two workers on a 2-core machine.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(4)
        .thread_name("wit-daemon")
        .build()
        .map_err(|e| DaemonError::io("starting the async runtime", e))?;
    // `run` returns once the socket and pid file are removed, the database is closed and
    // the instance lock is released. A blocking-pool thread may still be busy (an analysis
    // within its budget, a slow read): dropping the runtime would wait for it, keeping a
    // process alive beside the next daemon, so it gets a short grace and is then left to
    // end with the process.
    let result = runtime.block_on(lifecycle::run(root, mode));
    runtime.shutdown_timeout(BLOCKING_SHUTDOWN_GRACE);
    result
}

/// How a `wit daemon run` serves its worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Handed to the repository's daemon when one runs (one process serves every
    /// worktree of the repository and user, sharing what their indexes hold of equal
    /// files); otherwise this process serves it and becomes that daemon.
    Shared,
    /// In a process of its own, which serves no other worktree.
    Alone,
}

/// How long shutdown waits for busy blocking-pool threads once the daemon's files are
/// cleaned up; what they compute is no longer wanted by anyone.
const BLOCKING_SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

/// glibc gives each thread that allocates its own malloc arena (up to 8 per core), each
/// keeping freed memory around; with a runtime's and a blocking pool's threads that
/// multiplies the daemon's resident memory for no speed it needs. Two arenas suffice.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator tunable; called before any thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
