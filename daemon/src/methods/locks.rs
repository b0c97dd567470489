//! `lock.acquire`, `lock.release`, `lock.query`.

use serde_json::{Map, Value, json};
use wit_core::SymbolPath;
use wit_core::protocol::{
    CallerWarning, ErrorCode, LockAcquired, LockRecord, Released, iso8601_millis,
};

use super::{Failure, to_value, validated};
use crate::params::Params;
use crate::state::{AppState, now_ms};
use crate::store::locks::{self, LockRow};

/// Largest accepted `ttlMs`: about 100 years, so that expiry times stay formattable.
const MAX_TTL_MS: u64 = 100 * 365 * 24 * 3600 * 1000;

/// `lock.acquire {symbolPath, sessionId, ttlMs?}`.
pub(crate) async fn acquire(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.symbol_path("symbolPath");
    let session = p.req_str("sessionId");
    let ttl = p.opt_positive_int("ttlMs", MAX_TTL_MS);
    p.finish()?;
    let (symbol_path, session) = (validated(symbol_path)?, validated(session)?);
    let ttl = ttl.unwrap_or(state.config.default_lock_ttl_ms) as i64;

    let (path, who) = (symbol_path.clone(), session.clone());
    let outcome = state
        .write(move |tx| {
            let now = now_ms();
            Ok(locks::acquire(
                tx,
                &path,
                &who,
                now,
                now.saturating_add(ttl),
            )?)
        })
        .await?;
    let row = match outcome {
        Ok(row) => row,
        Err(holder) => {
            return Err(Failure::domain(
                ErrorCode::LockConflict,
                json!({ "heldBy": holder.session_id, "expiresAt": iso8601_millis(holder.expires_at) }),
            ));
        }
    };
    let warnings = caller_warnings(state, &symbol_path, &session).await?;
    to_value(&LockAcquired {
        symbol_path: row.symbol_path,
        session_id: row.session_id,
        acquired_at: iso8601_millis(row.acquired_at),
        expires_at: iso8601_millis(row.expires_at),
        warnings,
    })
}

/// Callers (in the same file) of the newly locked symbol that another session has locked.
async fn caller_warnings(
    state: &AppState,
    symbol_path: &str,
    session: &str,
) -> Result<Vec<CallerWarning>, Failure> {
    let Some(sp) = SymbolPath::parse(symbol_path) else {
        return Ok(Vec::new());
    };
    let outcome = state.analyse_disk(vec![sp.file.to_owned()]).await?;
    let Some(analysis) = outcome.first().and_then(|o| o.analysis()).cloned() else {
        return Ok(Vec::new());
    };
    // Call edges name callees by their bare name (`obj.save()` → `save`).
    let bare = analysis
        .find(sp.name)
        .map(|s| s.name.clone())
        .unwrap_or_else(|| sp.name.rsplit('.').next().unwrap_or(sp.name).to_owned());
    let mut callers: Vec<String> = Vec::new();
    for caller in analysis.callers_of(&bare) {
        if !callers.iter().any(|c| c == caller) {
            callers.push(caller.to_owned());
        }
    }
    if callers.is_empty() {
        return Ok(Vec::new());
    }
    let file = sp.file.to_owned();
    let (locked, me) = (symbol_path.to_owned(), session.to_owned());
    state
        .read(move |conn| {
            let now = now_ms();
            let mut warnings = Vec::new();
            for caller in callers {
                // A method caller may be locked by its qualified or its bare name.
                let mut candidates = vec![format!("{file}:{caller}")];
                if let Some((_, bare)) = caller.rsplit_once('.') {
                    candidates.push(format!("{file}:{bare}"));
                }
                for candidate in candidates {
                    if candidate == locked {
                        continue;
                    }
                    if let Some(lock) = locks::get(conn, &candidate, now)?
                        && lock.session_id != me
                    {
                        warnings.push(CallerWarning {
                            locked_symbol: candidate.clone(),
                            held_by: lock.session_id,
                            chain: vec![candidate, locked.clone()],
                        });
                        break;
                    }
                }
            }
            Ok(warnings)
        })
        .await
}

/// `lock.release {symbolPath, sessionId}`.
pub(crate) async fn release(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.req_str("symbolPath");
    let session = p.req_str("sessionId");
    p.finish()?;
    let (symbol_path, session) = (validated(symbol_path)?, validated(session)?);
    state
        .write(move |tx| {
            let Some(lock) = locks::get(tx, &symbol_path, now_ms())? else {
                return Err(Failure::bare(ErrorCode::LockNotFound));
            };
            if lock.session_id != session {
                return Err(Failure::domain(
                    ErrorCode::LockNotHeld,
                    json!({ "heldBy": lock.session_id }),
                ));
            }
            locks::delete(tx, &symbol_path)?;
            Ok(())
        })
        .await?;
    to_value(&Released { released: true })
}

/// `lock.query {sessionId?}`.
pub(crate) async fn query(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.opt_str("sessionId");
    p.finish()?;
    let (now, rows) = state
        .read(move |conn| {
            let now = now_ms();
            Ok((now, locks::list(conn, session.as_deref(), now)?))
        })
        .await?;
    let records: Vec<LockRecord> = rows
        .into_iter()
        .map(|r: LockRow| LockRecord {
            ttl_remaining_ms: r.expires_at - now,
            symbol_path: r.symbol_path,
            session_id: r.session_id,
            acquired_at: iso8601_millis(r.acquired_at),
            expires_at: iso8601_millis(r.expires_at),
        })
        .collect();
    to_value(&records)
}
