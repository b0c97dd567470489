//! File and glob leases (extension methods, openrpc.extensions.json; rules in
//! [`crate::leases`]):
//!
//! - `lease.acquire {sessionId, paths, mode?, ttlMs?, reason?}` → the lease, or
//!   LEASE_CONFLICT listing every lease and lock it collides with;
//! - `lease.renew {leaseId, sessionId, ttlMs?}`, `lease.release {leaseId, sessionId}`;
//! - `lease.forceRelease {leaseId, sessionId, reason}`: audited, like `lock.forceRelease`;
//! - `lease.query {sessionId?, files?}`: unexpired leases; with `files`, those covering
//!   one of them, each with the files it covers.
//!
//! Leases also bind the v1 methods: `lock.acquire` under another session's exclusive
//! lease is a LOCK_CONFLICT (with `lease` in its data), and `intent.declare` lists the
//! exclusive leases of others over its files in `leaseConflicts`.

use crate::store::db::Db;
use serde_json::{Map, Value, json};
use wit_core::protocol::{ErrorCode, iso8601_millis};

use super::holds::{MAX_TTL_MS, covering_files, lease_json};
use super::{Failure, event, validated};
use crate::leases::Mode;
use crate::params::Params;
use crate::state::AppState;
use crate::store::leases::{self, LeaseRow};
use crate::store::{audit, locks};

/// Most patterns one lease may have.
const MAX_PATTERNS: usize = 256;
/// Most files one `lease.query` may ask about.
const MAX_QUERY_FILES: usize = 10_000;

/// The audit log's subject for a lease.
fn subject(id: &str) -> String {
    format!("lease:{id}")
}

/// `lease.acquire`.
pub(crate) async fn acquire(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.req_str("sessionId");
    let paths = p.lease_patterns("paths", MAX_PATTERNS);
    let mode = p.opt_enum("mode", &["exclusive", "shared"]);
    let ttl = p.opt_positive_int("ttlMs", MAX_TTL_MS);
    let reason = p.opt_str("reason");
    p.finish()?;
    let (session, paths) = (validated(session)?, validated(paths)?);
    let mode = mode
        .as_deref()
        .and_then(Mode::parse)
        .unwrap_or(Mode::Exclusive);
    let ttl = ttl.unwrap_or(state.config.default_lock_ttl_ms) as i64;
    let reason = reason.filter(|r| !r.is_empty());
    let worktree = state.worktree_name();
    state
        .write(move |tx| {
            // Expired leases are audited now rather than at the next purge, so that
            // taking over an expired lease always leaves its record first.
            purge_expired(tx)?;
            let now = tx.now_ms();
            let mut conflicts = Vec::new();
            for other in leases::list(tx, None, now)? {
                if other.session_id != session
                    && mode.conflicts_with(other.mode)
                    && paths.overlaps(&other.patterns())
                {
                    let mut item = lease_json(&other, now);
                    item["kind"] = json!("lease");
                    conflicts.push(item);
                }
            }
            if mode == Mode::Exclusive {
                for lock in locks::list(tx, None, now)? {
                    let file = lock.symbol_path.split_once(':').map_or("", |(f, _)| f);
                    if lock.session_id != session && paths.covers(file) {
                        conflicts.push(json!({
                            "kind": "lock",
                            "symbolPath": lock.symbol_path,
                            "sessionId": lock.session_id,
                            "expiresAt": iso8601_millis(lock.expires_at),
                            "ttlRemainingMs": lock.expires_at - now,
                        }));
                    }
                }
            }
            if !conflicts.is_empty() {
                return Err(Failure::domain(
                    ErrorCode::LeaseConflict,
                    json!({ "conflicts": conflicts }),
                ));
            }
            let lease = LeaseRow {
                id: uuid::Uuid::new_v4().to_string(),
                session_id: session,
                mode,
                paths: paths.texts(),
                reason,
                acquired_at: now,
                expires_at: now.saturating_add(ttl),
            };
            leases::insert(tx, &lease)?;
            super::session_seen(tx, &lease.session_id, &worktree, now)?;
            event(
                tx,
                "lease.acquired",
                Some(&lease.session_id),
                &lease.id,
                json!({
                    "paths": lease.paths,
                    "mode": mode.as_str(),
                    "expiresAt": iso8601_millis(lease.expires_at),
                    "ttlMs": ttl,
                    "reason": lease.reason,
                }),
            )?;
            Ok(lease_json(&lease, now))
        })
        .await
}

/// The unexpired lease `id` held by `session`, or the error saying why not (with how it
/// was forced away, when it was).
fn held(tx: &dyn Db, id: &str, session: &str, now: i64) -> Result<LeaseRow, Failure> {
    match leases::get(tx, id, now)? {
        Some(lease) if lease.session_id == session => Ok(lease),
        Some(lease) => Err(Failure::domain(
            ErrorCode::LeaseNotHeld,
            json!({ "heldBy": lease.session_id }),
        )),
        None => match audit::last_forced(tx, &subject(id), session)? {
            Some(f) => Err(Failure::domain(
                ErrorCode::LeaseNotFound,
                json!({ "forced": { "by": f.by, "at": f.at, "reason": f.reason } }),
            )),
            None => Err(Failure::bare(ErrorCode::LeaseNotFound)),
        },
    }
}

/// `lease.renew`.
pub(crate) async fn renew(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let id = p.req_str("leaseId");
    let session = p.req_str("sessionId");
    let ttl = p.opt_positive_int("ttlMs", MAX_TTL_MS);
    p.finish()?;
    let (id, session) = (validated(id)?, validated(session)?);
    let ttl = ttl.unwrap_or(state.config.default_lock_ttl_ms) as i64;
    state
        .write(move |tx| {
            let now = tx.now_ms();
            let mut lease = held(tx, &id, &session, now)?;
            lease.expires_at = now.saturating_add(ttl);
            leases::set_expiry(tx, &id, lease.expires_at)?;
            event(
                tx,
                "lease.renewed",
                Some(&session),
                &id,
                json!({ "expiresAt": iso8601_millis(lease.expires_at), "ttlMs": ttl }),
            )?;
            Ok(lease_json(&lease, now))
        })
        .await
}

/// `lease.release`.
pub(crate) async fn release(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let id = p.req_str("leaseId");
    let session = p.req_str("sessionId");
    p.finish()?;
    let (id, session) = (validated(id)?, validated(session)?);
    state
        .write(move |tx| {
            let lease = held(tx, &id, &session, tx.now_ms())?;
            leases::delete(tx, &id)?;
            event(
                tx,
                "lease.released",
                Some(&session),
                &id,
                json!({ "paths": lease.paths }),
            )?;
            Ok(json!({ "released": true, "leaseId": id }))
        })
        .await
}

/// `lease.forceRelease`.
pub(crate) async fn force_release(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let id = p.req_str("leaseId");
    let session = p.req_str("sessionId");
    let reason = p.req_str("reason");
    p.finish()?;
    let (id, session, reason) = (validated(id)?, validated(session)?, validated(reason)?);
    state
        .write(move |tx| {
            let now = tx.now_ms();
            let Some(lease) = leases::get(tx, &id, now)? else {
                return Err(Failure::bare(ErrorCode::LeaseNotFound));
            };
            leases::delete(tx, &id)?;
            let forced = super::holds::Forced {
                what: "lease",
                audit_subject: &subject(&id),
                subject: &id,
                holder: &lease.session_id,
                by: &session,
                reason: &reason,
            };
            forced.record(tx, now, json!({ "paths": lease.paths }))?;
            Ok(forced.answer("leaseId", now))
        })
        .await
}

/// Releases every lease of `session` inside a write (its session ended): audited, an
/// event each. Returns their ids.
pub(crate) fn release_all_of(
    tx: &dyn Db,
    session: &str,
    reason: &str,
    stale: bool,
) -> Result<Vec<String>, Failure> {
    let now = tx.now_ms();
    let mut released = Vec::new();
    for lease in leases::list(tx, Some(session), now)? {
        leases::delete(tx, &lease.id)?;
        let by = if stale { None } else { Some(session) };
        audit::record(
            tx,
            now,
            "session-ended",
            &subject(&lease.id),
            session,
            by,
            reason,
        )?;
        event(
            tx,
            "lease.released",
            Some(session),
            &lease.id,
            json!({ "paths": lease.paths, "sessionEnded": true }),
        )?;
        released.push(lease.id);
    }
    Ok(released)
}

/// Deletes expired leases inside a write (the purge task): audited, an event each.
pub(crate) fn purge_expired(tx: &dyn Db) -> Result<usize, Failure> {
    let now = tx.now_ms();
    let expired = leases::purge_expired(tx, now)?;
    for lease in &expired {
        audit::record(
            tx,
            now,
            "expired",
            &subject(&lease.id),
            &lease.session_id,
            None,
            "its TTL ran out",
        )?;
        event(
            tx,
            "lease.expired",
            Some(&lease.session_id),
            &lease.id,
            json!({ "paths": lease.paths, "expiredAt": iso8601_millis(lease.expires_at) }),
        )?;
    }
    Ok(expired.len())
}

/// `lease.query`.
pub(crate) async fn query(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.opt_str("sessionId");
    let files = if params.contains_key("files") {
        p.file_array("files")
    } else {
        None
    };
    p.finish()?;
    if files.as_ref().is_some_and(|f| f.len() > MAX_QUERY_FILES) {
        return Err(crate::params::invalid_request(
            vec![format!("files: must have at most {MAX_QUERY_FILES} items")],
            Default::default(),
        )
        .into());
    }
    let (now, rows) = state
        .read(move |conn| {
            let now = conn.now_ms();
            Ok((now, leases::list(conn, session.as_deref(), now)?))
        })
        .await?;
    let out = match &files {
        Some(files) => covering_files(rows, files, now),
        None => rows.iter().map(|l| lease_json(l, now)).collect(),
    };
    Ok(json!({ "leases": out }))
}
