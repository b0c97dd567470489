//! Expiry: a lock whose TTL runs out ends **at that moment**, with a `lock.expired` event
//! and an `expired` audit record naming the former holder, so that an agent waiting on
//! the event log learns the symbol is free without anyone touching the lock. Reads filter
//! on expiry anyway; the purge is what makes the end visible, and keeps the tables small.
//!
//! One task sleeps until the earliest lock expiry or the purge interval, whichever comes
//! first, and is woken early when a lock taken or renewed here expires sooner than that
//! (`crate::expiry`). A lock another daemon took in a shared store is
//! expired by that daemon's timer, or by this one's next wake-up, whichever is first; each
//! lock is deleted and announced once (see `locks::purge_expired`). Leases and stale
//! sessions are purged on the interval.

use std::sync::Arc;
use std::time::Duration;

use crate::state::AppState;
use crate::store::locks;

/// Runs forever (abort the task to stop it).
pub(crate) async fn run(state: Arc<AppState>) {
    let interval = state.config.purge_interval;
    let mut next_full = tokio::time::Instant::now();
    let mut due = true;
    loop {
        // After a failed purge, wait a second before trying again rather than spin on a
        // lock that stays expired.
        let mut not_before = tokio::time::Instant::now();
        if due {
            let full = tokio::time::Instant::now() >= next_full;
            if full {
                next_full = tokio::time::Instant::now() + interval;
            }
            if !purge(&state, full).await {
                not_before += Duration::from_secs(1);
            }
        }
        // Until the earliest expiry (a millisecond past it, so that it has passed by the
        // store's clock) or the next full purge. A lock taken meanwhile wakes us only to
        // look again: nothing is written unless something is due.
        let (at, until) = next_expiry(&state).await;
        state.lock_expiry.plan(at);
        let wake = match until {
            Some(d) => next_full.min(tokio::time::Instant::now() + d),
            None => next_full,
        }
        .max(not_before);
        due = tokio::select! {
            _ = tokio::time::sleep_until(wake) => true,
            _ = state.lock_expiry.rung() => false,
        };
    }
}

/// The earliest lock expiry (store clock, Unix ms) and how long until it has passed (zero
/// when it already has); `None` when there is no lock (or it cannot be read: the interval
/// still comes).
async fn next_expiry(state: &AppState) -> (Option<i64>, Option<Duration>) {
    match state
        .read(|conn| Ok((locks::next_expiry(conn)?, conn.now_ms())))
        .await
    {
        Ok((at, now_ms)) => (
            at,
            at.map(|at| {
                Duration::from_millis(u64::try_from(at.saturating_sub(now_ms)).unwrap_or(0) + 1)
            }),
        ),
        Err(e) => {
            tracing::warn!("reading the next lock expiry failed: {:?}", e.0);
            (None, None)
        }
    }
}

/// Ends the expired locks (with their events and audit records); with `full`, also
/// purges expired leases and ends sessions whose heartbeats stopped. `false` when the
/// purge of locks failed (logged).
async fn purge(state: &AppState, full: bool) -> bool {
    let purged = state
        .write(move |tx| {
            let expired = locks::purge_expired(tx, tx.now_ms())?;
            // Nothing is released silently: each expiry is an event.
            for l in &expired {
                crate::store::audit::record(
                    tx,
                    tx.now_ms(),
                    "expired",
                    &l.symbol_path,
                    &l.session_id,
                    None,
                    "its TTL ran out",
                )?;
                crate::methods::event(
                    tx,
                    "lock.expired",
                    Some(&l.session_id),
                    &l.symbol_path,
                    serde_json::json!({
                        "expiredAt": wit_core::protocol::iso8601_millis(l.expires_at)
                    }),
                )?;
            }
            let leases = if full {
                crate::methods::leases::purge_expired(tx)?
            } else {
                0
            };
            Ok(expired.len() + leases)
        })
        .await;
    if !full {
        if let Err(e) = &purged {
            tracing::warn!("purging expired locks failed: {:?}", e.0);
        }
        return purged.is_ok();
    }
    if let Some(timeout) = state.config.parsed.sessions.heartbeat_timeout_ms {
        match state
            .write(move |tx| crate::methods::liveness::end_stale_sessions(tx, timeout))
            .await
        {
            Ok(ended) if ended.is_empty() => {}
            Ok(ended) => tracing::warn!(
                "ended {} session(s) whose heartbeats stopped: {}",
                ended.len(),
                ended.join(", ")
            ),
            Err(e) => tracing::warn!("ending stale sessions failed: {:?}", e.0),
        }
    }
    // Claims of sessions gone quiet: a session that died without its session-end hook
    // never holds a claim forever.
    // (Read first: a write that deletes something wakes the event waiters.)
    let idle = state.config.parsed.claims.idle_ms;
    let before = crate::clock::now_ms() - i64::try_from(idle).unwrap_or(i64::MAX);
    let any = state
        .read(move |db| Ok(crate::store::claims::any_idle(db, before)?))
        .await;
    if matches!(any, Ok(true)) {
        let why = format!("no edit by its session for {}", span(idle));
        match state
            .write(move |tx| Ok(crate::store::claims::end_idle(tx, before, &why)?))
            .await
        {
            Ok(n) => tracing::info!("ended {n} idle claim(s)"),
            Err(e) => tracing::warn!("ending idle claims failed: {:?}", e.0),
        }
    }
    match purged {
        Ok(0) => true,
        Ok(n) => {
            tracing::info!("purged {n} expired lock(s) and lease(s)");
            true
        }
        Err(e) => {
            tracing::warn!("purging expired locks failed: {:?}", e.0);
            false
        }
    }
}

/// `2 h`, `45 min`, `30 s`: a configured period in words.
fn span(ms: u64) -> String {
    match ms {
        ms if ms >= 3_600_000 && ms % 3_600_000 == 0 => format!("{} h", ms / 3_600_000),
        ms if ms >= 60_000 => format!("{} min", ms / 60_000),
        ms => format!("{} s", ms.div_ceil(1000)),
    }
}
