//! `register`.

use serde_json::{Map, Value};
use wit_core::protocol::Registered;

use super::{Failure, to_value, validated};
use crate::params::Params;
use crate::state::AppState;
use crate::store::agents;

/// `register {name, sessionId}` → `{agentId}`; re-registering renames, same id.
pub(crate) async fn register(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let name = p.req_str("name");
    let session = p.req_str("sessionId");
    p.finish()?;
    let (name, session) = (validated(name)?, validated(session)?);
    let worktree = state.worktree_name();
    let agent_id = state
        .write(move |tx| {
            let now = tx.now_ms();
            super::session_seen(tx, &session, &worktree, now)?;
            Ok(agents::register(tx, &session, &name, now)?)
        })
        .await?;
    to_value(&Registered { agent_id })
}
