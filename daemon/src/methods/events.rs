//! `events.poll {since?, timeoutMs?, kinds?, sessionId?}` (extension): the event log
//! after `since`, waiting up to `timeoutMs` for the first one when there is none yet.
//!
//! Waiting costs no CPU and no thread: the request parks on a `watch` channel that every
//! committed write that changed something bumps (`AppState::write`; heartbeats do not),
//! then reads the log again. A client that
//! reconnects with the last `seq` it saw misses nothing, since the log is durable and
//! gap-free (`store::events`).

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::Failure;
use crate::params::Params;
use crate::state::AppState;
use crate::store::events;

/// Longest wait one poll may ask for: 5 minutes.
const MAX_TIMEOUT_MS: u64 = 300_000;
/// Most events one answer carries; the client polls again from the last `seq`.
const MAX_BATCH: usize = 1000;

/// `events.poll`.
pub(crate) async fn poll(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let since = p.opt_non_negative_int("since", i64::MAX as u64);
    let timeout = p.opt_non_negative_int("timeoutMs", MAX_TIMEOUT_MS);
    let kinds = p.str_array("kinds", false, 0, true);
    let session = p.opt_str("sessionId");
    p.finish()?;
    let since = since.unwrap_or(0) as i64;
    let deadline = tokio::time::Instant::now() + Duration::from_millis(timeout.unwrap_or(0));
    // Subscribed before the first read, so a change committed in between still wakes us.
    let mut changed = state.events.subscribe();
    loop {
        let (kinds2, session2) = (kinds.clone(), session.clone());
        let (found, last) = state
            .read(move |conn| {
                let found = events::since(
                    conn,
                    since,
                    MAX_BATCH,
                    kinds2.as_deref(),
                    session2.as_deref(),
                )?;
                Ok((found, events::last_seq(conn)?))
            })
            .await?;
        if !found.is_empty() {
            let next = found.last().map_or(since, |e| e.seq);
            return Ok(json!({ "events": found, "next": next, "last": last }));
        }
        // Nothing matched: with filters, skip past what was read, so the next poll does
        // not scan it again.
        let next = last.max(since);
        let woke = tokio::time::timeout_at(deadline, changed.changed()).await;
        match woke {
            Ok(Ok(())) => continue,
            // Timed out (or the daemon is stopping): an empty answer.
            _ => return Ok(json!({ "events": [], "next": next, "last": last })),
        }
    }
}
