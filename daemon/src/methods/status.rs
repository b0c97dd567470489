//! `daemon.status` (extension): what the CLI's `wit daemon status` shows.

use serde_json::{Value, json};
use wit_core::AnalyzerOrigin;

use super::Failure;
use crate::state::{AppState, now_ms};
use crate::store::{contracts, intents, locks};

/// `daemon.status` → `{pid, version, startedAt, uptimeMs, root, socket, counts, analyzers}`.
pub(crate) async fn status(state: &AppState) -> Result<Value, Failure> {
    let (locks, intents, contracts) = state
        .read(|conn| {
            Ok((
                locks::count(conn, now_ms())?,
                intents::count_live(conn)?,
                contracts::count(conn)?,
            ))
        })
        .await?;
    let analyzers: Vec<Value> = state
        .analysis
        .registry()
        .entries()
        .iter()
        .map(|e| {
            let origin = match &e.origin {
                AnalyzerOrigin::Builtin => "builtin".to_owned(),
                AnalyzerOrigin::Plugin(path) => path.display().to_string(),
            };
            json!({ "id": e.analyzer.id(), "extensions": e.extensions, "origin": origin })
        })
        .collect();
    let now = now_ms();
    Ok(json!({
        "pid": std::process::id(),
        "version": env!("CARGO_PKG_VERSION"),
        "startedAt": state.started_at_ms,
        "uptimeMs": now - state.started_at_ms,
        "root": state.root.display().to_string(),
        "socket": state.wit.socket().display().to_string(),
        "counts": { "locks": locks, "intents": intents, "contracts": contracts },
        "analyzers": analyzers,
    }))
}
