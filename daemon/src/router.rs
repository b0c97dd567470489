//! Steps 4–6 of the validation order: method lookup, params shape, then the handler.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};
use wit_core::protocol::{ErrorCode, RpcError};

use crate::methods::{self, Failure};
use crate::params::{invalid_request, type_name};
use crate::state::AppState;

/// Every method this daemon answers: protocol v1 (`openrpc.json`) plus the extensions
/// (`openrpc.extensions.json`); a test keeps this list and the two documents in agreement.
pub(crate) const METHODS: &[&str] = &[
    "ping",
    "register",
    "lock.acquire",
    "lock.release",
    "lock.query",
    "intent.declare",
    "intent.update",
    "intent.query",
    "contract.propose",
    "contract.respond",
    "contract.query",
    "check-contracts",
    "rpc.discover",
    "daemon.status",
    "analyzers.list",
    "contract.withdraw",
    "events.poll",
    "symbols.at",
    "lock.renew",
    "lock.forceRelease",
    "session.end",
    "audit.query",
    "session.heartbeat",
    "lease.acquire",
    "lease.renew",
    "lease.release",
    "lease.forceRelease",
    "lease.query",
    "intent.abandon",
    "store.status",
    "graph.status",
    "symbols.list",
    "symbols.resolve",
    "code.callers",
    "code.callees",
    "conflicts.forecast",
    "claims.check",
    "claims.record",
    "claims.query",
    "claims.end",
    "daemon.stop",
];

/// Whether `method` exists (step 4).
pub(crate) fn is_known(method: &str) -> bool {
    METHODS.contains(&method)
}

/// Runs a known method: omitted params are `{}`, non-object params are INVALID_REQUEST.
pub(crate) async fn call(
    state: Arc<AppState>,
    method: String,
    params: Option<Value>,
) -> Result<Value, RpcError> {
    state
        .served
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let params = match params {
        None => Map::new(),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(invalid_request(
                vec![format!(
                    "params must be an object, got {}",
                    type_name(&other)
                )],
                BTreeMap::new(),
            ));
        }
    };
    let result = match method.as_str() {
        "ping" => Ok(Value::String("pong".into())),
        "register" => methods::register::register(&state, &params).await,
        "lock.acquire" => methods::locks::acquire(&state, &params).await,
        "lock.release" => methods::locks::release(&state, &params).await,
        "lock.query" => methods::locks::query(&state, &params).await,
        "intent.declare" => methods::intents::declare_any(state.clone(), params).await,
        "intent.update" => methods::intents::update(&state, &params).await,
        "intent.query" => methods::intents::query(&state, &params).await,
        "intent.abandon" => methods::intents::abandon(&state, &params).await,
        "contract.propose" => methods::contracts::propose(&state, &params).await,
        "contract.respond" => methods::contracts::respond(&state, &params).await,
        "contract.query" => methods::contracts::query(&state, &params).await,
        "contract.withdraw" => methods::contracts::withdraw(&state, &params).await,
        "events.poll" => methods::events::poll(&state, &params).await,
        "lock.renew" => methods::liveness::renew(&state, &params).await,
        "lock.forceRelease" => methods::liveness::force_release(&state, &params).await,
        "session.end" => methods::liveness::end(&state, &params).await,
        "audit.query" => methods::liveness::audit_query(&state, &params).await,
        "session.heartbeat" => methods::liveness::heartbeat(&state, &params).await,
        "lease.acquire" => methods::leases::acquire(&state, &params).await,
        "lease.renew" => methods::leases::renew(&state, &params).await,
        "lease.release" => methods::leases::release(&state, &params).await,
        "lease.forceRelease" => methods::leases::force_release(&state, &params).await,
        "lease.query" => methods::leases::query(&state, &params).await,
        "check-contracts" => methods::checks::check_contracts(&state, &params).await,
        "rpc.discover" => Ok(crate::discover::document().clone()),
        "daemon.status" => methods::status::status(&state).await,
        "daemon.stop" => Ok(methods::status::stop(&state)),
        "store.status" => methods::status::store_status(&state).await,
        "analyzers.list" => methods::status::analyzers_list(&state).await,
        "symbols.at" => methods::symbols::at(&state, &params).await,
        "graph.status" => methods::graph::status(&state, &params).await,
        "symbols.list" => methods::graph::list(&state, &params).await,
        "symbols.resolve" => methods::graph::resolve(&state, &params).await,
        "code.callers" => methods::graph::callers(&state, &params).await,
        "code.callees" => methods::graph::callees(&state, &params).await,
        "conflicts.forecast" => methods::conflicts::forecast(&state, &params).await,
        "claims.check" => methods::claims::check(state.clone(), params).await,
        "claims.record" => methods::claims::record(state.clone(), params).await,
        "claims.query" => methods::claims::query(&state, &params).await,
        "claims.end" => methods::claims::end(&state, &params).await,
        _ => Err(Failure(RpcError::new(ErrorCode::MethodNotFound, None))),
    };
    result.map_err(|f| f.0)
}
