//! `daemon.status` and `analyzers.list` (extensions): what `wit daemon status`, `wit status`
//! and `wit analyzers` show.

use serde_json::{Value, json};
use wit_core::AnalyzerOrigin;

use super::Failure;
use crate::clock::now_ms;
use crate::plugins::TrustSummary;
use crate::state::AppState;
use crate::store::{contracts, intents, leases, locks};

/// `daemon.status` → `{pid, version, startedAt, uptimeMs, root, socket, counts, analyzers,
/// config, failed}` (`config` and `failed` as in [`analyzers_list`]).
pub(crate) async fn status(state: &AppState) -> Result<Value, Failure> {
    let (locks, intents, contracts, leases, worktrees) = state
        .read(|conn| {
            Ok((
                locks::count(conn, conn.now_ms())?,
                intents::count_live(conn)?,
                contracts::count(conn)?,
                leases::count(conn, conn.now_ms())?,
                crate::store::sessions::active_worktrees(conn, conn.now_ms())?,
            ))
        })
        .await?;
    let analyzers: Vec<Value> = state
        .analysis
        .registry()
        .entries()
        .iter()
        .map(|e| {
            // `origin` keeps its first meaning (the path, for a plugin) for existing
            // readers; `path` is the same name `analyzers.list` uses for it.
            match &e.origin {
                AnalyzerOrigin::Builtin => {
                    json!({ "id": e.analyzer.id(), "extensions": e.extensions, "origin": "builtin" })
                }
                AnalyzerOrigin::Plugin(path) => {
                    let path = path.display().to_string();
                    json!({ "id": e.analyzer.id(), "extensions": e.extensions, "origin": path, "path": path })
                }
            }
        })
        .collect();
    let now = now_ms();
    // Where the state is; a worktree's unused state and why it is not shared are SQLite's.
    let mut where_state = store_identity(state);
    if matches!(state.store, crate::store::Backend::Sqlite(_)) {
        where_state["separateState"] = json!(
            state
                .placement
                .separate_state
                .as_ref()
                .map(|p| p.display().to_string())
        );
        where_state["note"] = json!(state.placement.note);
    } else {
        where_state["separateState"] = Value::Null;
        where_state["note"] = Value::Null;
    }
    Ok(json!({
        "pid": std::process::id(),
        "version": env!("CARGO_PKG_VERSION"),
        "startedAt": state.started_at_ms,
        "uptimeMs": now - state.started_at_ms,
        "root": state.root.display().to_string(),
        "socket": state.wit.socket().display().to_string(),
        "counts": {
            "locks": locks, "intents": intents, "contracts": contracts, "leases": leases,
            "lockWaiters": state.lock_queues.total(),
        },
        "analyzers": analyzers,
        "state": where_state,
        "worktrees": worktrees,
        "servedWith": served_with(state),
        "watch": state.index.watch_status(),
        "config": config_json(state),
        "failed": failed_json(state),
    }))
}

/// `analyzers.list` → every analyzer, the plugins that were refused, and the state of
/// `wit.toml` and of trust:
///
/// ```json
/// {"analyzers": [{"id": "go", "extensions": ["go"], "origin": "plugin",
///                 "path": "/abs/libwit_analyzer_go.so", "failures": 0,
///                 "lastFailure": {"reason": "…", "at": 1700000000000}}],
///  "failed": [{"path": "/abs/lib.so", "reason": "file not found", "hint": "…"}],
///  "config": {"file": "/abs/wit.toml", "present": true, "error": "…:2:1: locks.x: …",
///             "line": 2, "column": 1, "key": "locks.x"},
///  "trust": {"status": "trusted|untrusted|stale|unknown|not-needed",
///            "store": "/home/u/.config/wit/trust.json", "changed": ["…"], "error": "…"}}
/// ```
/// A plugin whose results look malformed in shape (a qualified `name` without a
/// `container`) carries `shapeWarning`, said once the first such analysis happens.
/// A `[[languages]]` entry has `origin: "language"`, its grammar library as `path` and its
/// query files as `queries`; a refused one has `language` (its id) in `failed`.
/// Built-ins have `origin: "builtin"` and no `path`/`failures`; `lastFailure` appears once
/// a plugin's `analyze` has failed (panicked, or returned malformed data).
pub(crate) async fn analyzers_list(state: &AppState) -> Result<Value, Failure> {
    let plugins = &state.config.plugins;
    let analyzers: Vec<Value> = state
        .analysis
        .registry()
        .entries()
        .iter()
        .map(|e| {
            let mut item = json!({ "id": e.analyzer.id(), "extensions": e.extensions });
            match &e.origin {
                AnalyzerOrigin::Builtin => item["origin"] = json!("builtin"),
                AnalyzerOrigin::Plugin(path) => {
                    item["path"] = json!(path.display().to_string());
                    let language = plugins
                        .languages
                        .iter()
                        .find(|l| l.id == e.analyzer.id() && &l.grammar == path);
                    let health = if let Some(l) = language {
                        item["origin"] = json!("language");
                        item["queries"] = json!(
                            l.queries
                                .iter()
                                .map(|q| q.display().to_string())
                                .collect::<Vec<_>>()
                        );
                        Some(&l.health)
                    } else {
                        item["origin"] = json!("plugin");
                        plugins
                            .loaded
                            .iter()
                            .find(|p| &p.path == path)
                            .map(|p| &p.health)
                    };
                    if let Some(health) = health {
                        item["failures"] = json!(health.failures());
                        if let Some(last) = health.last_failure() {
                            item["lastFailure"] = json!({"reason": last.reason, "at": last.at_ms});
                        }
                        if let Some(shape) = health.shape_warning() {
                            item["shapeWarning"] = json!(shape);
                        }
                    }
                }
            }
            item
        })
        .collect();
    let mut trust = json!({ "status": plugins.trust.as_str() });
    if let Some(store) = &plugins.store {
        trust["store"] = json!(store.display().to_string());
    }
    match &plugins.trust {
        TrustSummary::Stale { changed } => {
            trust["changed"] = json!(
                changed
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
            );
        }
        TrustSummary::Unknown(why) => trust["error"] = json!(why),
        _ => {}
    }
    Ok(json!({
        "analyzers": analyzers,
        "failed": failed_json(state),
        "config": config_json(state),
        "trust": trust,
    }))
}

fn config_json(state: &AppState) -> Value {
    let file = &state.config.file;
    let mut v = json!({ "file": file.path.display().to_string(), "present": file.present });
    if let Some(error) = &file.error {
        v["error"] = json!(error);
    }
    if let Some(e) = &file.parse_error {
        v["line"] = json!(e.line);
        v["column"] = json!(e.column);
        v["key"] = json!(e.key);
    }
    v
}

fn failed_json(state: &AppState) -> Value {
    state
        .config
        .plugins
        .failed
        .iter()
        .map(|f| {
            let mut v = json!({
                "path": f.path.display().to_string(),
                "reason": f.error.to_string(),
            });
            if let Some(id) = &f.language {
                v["language"] = json!(id);
            }
            if let Some(hint) = f.error.hint() {
                v["hint"] = json!(hint);
            }
            v
        })
        .collect()
}

/// `store.status` (extension) → `{backend, database, sharedWith, schemaVersion,
/// latencyUs}`: which store this daemon uses and how fast one round trip to it is (a
/// read of the schema version on the blocking pool, timed there).
pub(crate) async fn store_status(state: &AppState) -> Result<Value, Failure> {
    use crate::store::db::{DbExt, args};
    let version_sql = match &state.store {
        crate::store::Backend::Sqlite(_) => "PRAGMA user_version",
        crate::store::Backend::Postgres(_) => "SELECT version FROM schema_version",
    };
    let (version, micros) = state
        .read(move |conn| {
            let started = std::time::Instant::now();
            let version: i64 = conn.query_row(version_sql, args![], |r| r.get(0))?;
            Ok((version, started.elapsed().as_micros() as u64))
        })
        .await?;
    let mut answer = store_identity(state);
    answer["reachable"] = json!(true);
    answer["schemaVersion"] = json!(version);
    answer["latencyUs"] = json!(micros);
    Ok(answer)
}

/// Which store holds the state, as `daemon.status` and `store.status` both say it:
/// `backend`, `database` (the state.db, or the PostgreSQL store's host and database only:
/// the URL's credentials never leave `store::target`), `project` and `sharedWith`.
fn store_identity(state: &AppState) -> Value {
    match &state.store {
        crate::store::Backend::Sqlite(_) => json!({
            "backend": "sqlite",
            "database": state.placement.state.database().display().to_string(),
            "project": Value::Null,
            "sharedWith": state.placement.main_worktree.as_ref().map(|p| p.display().to_string()),
        }),
        crate::store::Backend::Postgres(pg) => json!({
            "backend": "postgres",
            "database": pg.shown(),
            "project": pg.project(),
            "sharedWith": Value::Null,
        }),
    }
}

/// `daemon.stop` → `{stopping: true, pid, exiting}`: this worktree stops being served once
/// the answer is sent (its socket and pid file removed, its checkout withdrawn); the
/// process exits with it (`exiting`) unless it serves other worktrees of the repository.
pub(crate) fn stop(state: &AppState) -> Value {
    let exiting = served_with(state).is_empty();
    state.stop.notify_one();
    json!({ "stopping": true, "pid": std::process::id(), "exiting": exiting })
}

/// The other worktrees this process serves, for `daemon.status` `servedWith`.
pub(crate) fn served_with(state: &AppState) -> Vec<String> {
    state
        .process
        .sites()
        .iter()
        .filter(|r| **r != state.root)
        .map(|r| r.display().to_string())
        .collect()
}
