//! Liveness (extension methods, openrpc.extensions.json): agents crash, get killed and
//! finish without cleaning up, and their locks would block everyone until the TTL runs
//! out. These methods end locks early — and every release not made by the holder itself
//! goes into the audit log (`audit.query`) and the event log, so nothing is released
//! silently.
//!
//! - `lock.renew {symbolPath, sessionId, ttlMs?}`: extends a lock the session holds
//!   (LOCK_NOT_FOUND when it has none or it expired; LOCK_NOT_HELD when another holds it).
//!   Like `lock.release`, it and `lock.forceRelease` find the lock by any name of its
//!   definition (`save` or `Session.save`), answering with the name the request used.
//! - `lock.forceRelease {symbolPath, sessionId, reason}`: releases another session's
//!   abandoned lock, recorded with who, when and why; the former holder learns it from
//!   the events (`lock.forced`) and from its next call (LOCK_NOT_FOUND with `forced`).
//! - `session.end {sessionId, abandonIntents?}`: releases every lock and lease of the
//!   session; its intents stay (a record of what was meant, shown with `ownerEnded` by
//!   `intent.query`) unless `abandonIntents` — and any session may then abandon them
//!   (`intent.abandon`, audited).
//! - `audit.query {since?, sessionId?, limit?}`: the audit log.

use crate::store::db::{Db, DbExt, args};
use serde_json::{Map, Value, json};
use wit_core::protocol::{ErrorCode, iso8601_millis};

use super::holds::{Forced, MAX_TTL_MS};
use super::{Failure, event, validated};
use crate::params::Params;
use crate::state::AppState;
use crate::store::{audit, locks};

/// Most audit records one answer carries.
const MAX_AUDIT: u64 = 1000;

/// `lock.renew`.
pub(crate) async fn renew(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.lenient_symbol_path("symbolPath");
    let session = p.req_str("sessionId");
    let ttl = p.opt_positive_int("ttlMs", MAX_TTL_MS);
    p.finish()?;
    let (symbol_path, session) = (validated(symbol_path)?, validated(session)?);
    let ttl = ttl.unwrap_or(state.config.default_lock_ttl_ms) as i64;
    let renewed = super::holds::by_any_spelling(state, &symbol_path, |spellings| {
        renew_one_of(state, &symbol_path, spellings, &session, ttl)
    })
    .await?;
    state.lock_expiry.lock_expires_at(renewed.1);
    Ok(renewed.0)
}

/// Renews the first of `spellings` that names a live lock, if `session` holds it; the
/// answer names it as the request did (`given`).
async fn renew_one_of(
    state: &AppState,
    given: &str,
    spellings: Vec<String>,
    session: &str,
    ttl: i64,
) -> Result<(Value, i64), Failure> {
    let (given, session) = (given.to_owned(), session.to_owned());
    state
        .write(move |tx| {
            let now = tx.now_ms();
            for path in &spellings {
                let Some(lock) = locks::get(tx, path, now)? else {
                    continue;
                };
                if lock.session_id != session {
                    return Err(Failure::domain(
                        ErrorCode::LockNotHeld,
                        json!({ "heldBy": lock.session_id }),
                    ));
                }
                let expires = now.saturating_add(ttl);
                locks::acquire(
                    tx,
                    path,
                    &lock.spelling,
                    &session,
                    lock.acquired_at,
                    expires,
                )?
                .map_err(|_| Failure::internal("the lock changed hands inside one write"))?;
                event(
                    tx,
                    "lock.refreshed",
                    Some(&session),
                    path,
                    json!({ "expiresAt": iso8601_millis(expires), "ttlMs": ttl, "renewed": true }),
                )?;
                let answer = json!({
                    "symbolPath": given,
                    "sessionId": session,
                    "acquiredAt": iso8601_millis(lock.acquired_at),
                    "expiresAt": iso8601_millis(expires),
                });
                return Ok((answer, expires));
            }
            Err(Failure::bare(ErrorCode::LockNotFound))
        })
        .await
}

/// `lock.forceRelease`.
pub(crate) async fn force_release(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.lenient_symbol_path("symbolPath");
    let session = p.req_str("sessionId");
    let reason = p.req_str("reason");
    p.finish()?;
    let (symbol_path, session, reason) = (
        validated(symbol_path)?,
        validated(session)?,
        validated(reason)?,
    );
    let mut answer = super::holds::by_any_spelling(state, &symbol_path, |spellings| {
        force_one_of(state, spellings, &session, &reason)
    })
    .await?;
    // Named as the request named it (the audit and event logs keep the lock's own name).
    answer["symbolPath"] = json!(symbol_path);
    Ok(answer)
}

/// Releases by force the first of `spellings` that names a live lock.
async fn force_one_of(
    state: &AppState,
    spellings: Vec<String>,
    session: &str,
    reason: &str,
) -> Result<Value, Failure> {
    let (session, reason) = (session.to_owned(), reason.to_owned());
    state
        .write(move |tx| {
            let now = tx.now_ms();
            for path in &spellings {
                let Some(lock) = locks::get(tx, path, now)? else {
                    continue;
                };
                locks::delete(tx, path)?;
                let forced = Forced {
                    what: "lock",
                    audit_subject: path,
                    subject: path,
                    holder: &lock.session_id,
                    by: &session,
                    reason: &reason,
                };
                forced.record(tx, now, json!({}))?;
                return Ok(forced.answer("symbolPath", now));
            }
            Err(Failure::bare(ErrorCode::LockNotFound))
        })
        .await
}

/// `session.end`.
pub(crate) async fn end(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.req_str("sessionId");
    let abandon = p.opt_bool("abandonIntents");
    p.finish()?;
    let session = validated(session)?;
    state
        .write(move |tx| {
            // Abandoned first: the intents' last change then precedes the end.
            let abandoned = if abandon.unwrap_or(false) {
                super::intents::abandon_all_of(tx, &session)?
            } else {
                Vec::new()
            };
            let ended = end_session(tx, &session, "its session ended", false)?;
            Ok(json!({
                "sessionId": session,
                "releasedLocks": ended.locks,
                "releasedLeases": ended.leases,
                "abandonedIntents": abandoned,
                "endedClaims": ended.claims,
            }))
        })
        .await
}

/// What ending a session released.
pub(crate) struct Ended {
    /// Symbol paths of its locks.
    pub locks: Vec<String>,
    /// Ids of its leases.
    pub leases: Vec<String>,
    /// How many claims ended with it.
    pub claims: usize,
}

/// Ends `session` inside a write: releases each of its locks and leases (audited, and an
/// event each), forgets its heartbeats, remembers that it ended (so that another session
/// may abandon its intents), then records `session.ended`. `stale`: the daemon ended it
/// because its heartbeats stopped.
pub(crate) fn end_session(
    tx: &dyn Db,
    session: &str,
    reason: &str,
    stale: bool,
) -> Result<Ended, Failure> {
    let now = tx.now_ms();
    let held = locks::list(tx, Some(session), now)?;
    let mut released = Vec::new();
    for lock in held {
        locks::delete(tx, &lock.symbol_path)?;
        let by = if stale { None } else { Some(session) };
        audit::record(
            tx,
            now,
            "session-ended",
            &lock.symbol_path,
            session,
            by,
            reason,
        )?;
        event(
            tx,
            "lock.released",
            Some(session),
            &lock.symbol_path,
            json!({ "sessionEnded": true }),
        )?;
        released.push(lock.symbol_path);
    }
    let leases = super::leases::release_all_of(tx, session, reason, stale)?;
    tx.execute_later(
        "DELETE FROM heartbeats WHERE session_id = ?1",
        args![session],
    )?;
    crate::store::sessions::forget(tx, session)?;
    // Its claims end with it: nobody is left to coordinate with about them.
    let claims = crate::store::claims::end_session(tx, session, reason)?;
    tx.execute_later(
        "INSERT INTO ended_sessions (session_id, ended_at, reason) VALUES (?1, ?2, ?3)
         ON CONFLICT(session_id) DO UPDATE SET ended_at = excluded.ended_at,
             reason = excluded.reason",
        args![session, now, reason],
    )?;
    event(
        tx,
        "session.ended",
        Some(session),
        session,
        json!({
            "releasedLocks": released.len(),
            "releasedLeases": leases.len(),
            "endedClaims": claims,
            "stale": stale,
            "reason": reason,
        }),
    )?;
    Ok(Ended {
        locks: released,
        leases,
        claims,
    })
}

/// `session.heartbeat {sessionId}`: the session is alive. Only matters when
/// `[sessions] heartbeat_timeout` is set: a session that heartbeats and then stops for
/// longer is ended by the daemon.
pub(crate) async fn heartbeat(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.req_str("sessionId");
    p.finish()?;
    let session = validated(session)?;
    let timeout = state.config.parsed.sessions.heartbeat_timeout_ms;
    let worktree = state.worktree_name();
    state
        .write(move |tx| {
            let now = tx.now_ms();
            super::session_seen(tx, &session, &worktree, now)?;
            tx.execute_later(
                "INSERT INTO heartbeats (session_id, last_at) VALUES (?1, ?2)
                 ON CONFLICT(session_id) DO UPDATE SET last_at = excluded.last_at",
                args![&session, now],
            )?;
            Ok(json!({ "sessionId": session, "at": now, "timeoutMs": timeout }))
        })
        .await
}

/// Ends the sessions whose heartbeats stopped longer than `timeout_ms` ago (the purge
/// task calls it); returns them.
pub(crate) fn end_stale_sessions(tx: &dyn Db, timeout_ms: u64) -> Result<Vec<String>, Failure> {
    let cutoff = tx.now_ms() - timeout_ms as i64;
    let stale: Vec<String> = tx.query_map(
        "SELECT session_id FROM heartbeats WHERE last_at < ?1",
        args![cutoff],
        |r| r.get(0),
    )?;
    for session in &stale {
        end_session(tx, session, "its heartbeats stopped", true)?;
    }
    Ok(stale)
}

/// `audit.query`.
pub(crate) async fn audit_query(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let since = p.opt_non_negative_int("since", i64::MAX as u64);
    let session = p.opt_str("sessionId");
    let limit = p.opt_positive_int("limit", MAX_AUDIT);
    p.finish()?;
    let records = state
        .read(move |conn| {
            Ok(audit::query(
                conn,
                since.unwrap_or(0) as i64,
                session.as_deref(),
                limit.unwrap_or(MAX_AUDIT) as usize,
            )?)
        })
        .await?;
    Ok(json!({ "records": records }))
}
