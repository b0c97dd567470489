//! Periodic purge of expired locks and leases. Reads filter on expiry anyway; this keeps the table
//! small.

use std::sync::Arc;

use crate::state::AppState;
use crate::store::locks;

/// Runs forever (abort the task to stop it), purging every `config.purge_interval`.
pub(crate) async fn run(state: Arc<AppState>) {
    let mut interval = tokio::time::interval(state.config.purge_interval);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let purged = state
            .write(|tx| {
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
                Ok(expired.len() + crate::methods::leases::purge_expired(tx)?)
            })
            .await;
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
        match purged {
            Ok(0) => {}
            Ok(n) => tracing::info!("purged {n} expired lock(s) and lease(s)"),
            Err(e) => tracing::warn!("purging expired locks failed: {:?}", e.0),
        }
    }
}
