//! One module per method family. Handlers know nothing of HTTP: params in, JSON out.

pub(crate) mod checks;
pub(crate) mod claims;
pub(crate) mod conflicts;
pub(crate) mod contracts;
pub(crate) mod events;
pub(crate) mod graph;
pub(crate) mod holds;
pub(crate) mod intents;
pub(crate) mod leases;
pub(crate) mod liveness;
pub(crate) mod locks;
pub(crate) mod register;
pub(crate) mod status;
pub(crate) mod symbols;

use crate::store::db::Db;
use serde::Serialize;
use serde_json::{Value, json};
use wit_core::protocol::{ErrorCode, RpcError};

use crate::store::StoreError;

/// A handler's error: the JSON-RPC error to answer with.
#[derive(Debug)]
pub(crate) struct Failure(pub RpcError);

impl Failure {
    /// A domain error (`-32000`) with `data`.
    pub fn domain(code: ErrorCode, data: Value) -> Self {
        Failure(RpcError::new(code, Some(data)))
    }

    /// A domain error without `data`.
    pub fn bare(code: ErrorCode) -> Self {
        Failure(RpcError::new(code, None))
    }

    /// `INTERNAL_ERROR` with a reason.
    pub fn internal(reason: impl std::fmt::Display) -> Self {
        let reason = reason.to_string();
        tracing::error!("internal error: {reason}");
        Failure(RpcError::new(
            ErrorCode::InternalError,
            Some(json!({ "reason": reason })),
        ))
    }

    /// A blocking task that failed to finish (it panicked or was cancelled).
    pub fn from_join(e: tokio::task::JoinError) -> Self {
        if e.is_panic() {
            Failure::internal("the request handler panicked")
        } else {
            Failure::internal("the request was cancelled")
        }
    }
}

impl From<RpcError> for Failure {
    fn from(e: RpcError) -> Self {
        Failure(e)
    }
}

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Self {
        Failure::internal(format!("state database: {e}"))
    }
}

impl From<crate::store::db::DbError> for Failure {
    fn from(e: crate::store::db::DbError) -> Self {
        match e {
            // Already names the store (host and database, never credentials).
            crate::store::db::DbError::Postgres(m) => Failure::internal(m),
            other => Failure::internal(format!("state database: {other}")),
        }
    }
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::internal(e)
    }
}

/// Records, inside a write, that `session` acts from `worktree`; the first act of a
/// session (or the first after it ended) is a `session.started` event.
pub(crate) fn session_seen(
    tx: &dyn Db,
    session: &str,
    worktree: &str,
    now: i64,
) -> Result<(), Failure> {
    crate::store::sessions::seen(tx, session, worktree, now, &json!({ "worktree": worktree }))?;
    Ok(())
}

/// Serializes a result type to JSON.
pub(crate) fn to_value<T: Serialize>(v: &T) -> Result<Value, Failure> {
    serde_json::to_value(v).map_err(Failure::internal)
}

/// Unwraps a parameter that [`crate::params::Params::finish`] has vouched for.
pub(crate) fn validated<T>(v: Option<T>) -> Result<T, Failure> {
    v.ok_or_else(|| Failure::internal("parameter validation let a missing value through"))
}

/// Records an event in the write that makes the change (see `store::events`).
pub(crate) fn event(
    tx: &dyn Db,
    kind: &str,
    session_id: Option<&str>,
    subject: &str,
    data: Value,
) -> Result<(), Failure> {
    crate::store::events::append(tx, tx.now_ms(), kind, session_id, subject, &data)?;
    Ok(())
}
