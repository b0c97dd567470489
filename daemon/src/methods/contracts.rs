//! `contract.propose`, `contract.respond`, `contract.query`, and the extension
//! `contract.withdraw`.
//!
//! The lifecycle beyond v1 (openrpc.extensions.json): a contract can be **withdrawn** —
//! by its proposer, or by any other session with a reason, recorded with who and when —
//! and accepting a contract **supersedes** every other accepted contract on the same
//! symbol. Without that, following the pre-commit hook's own advice (propose and accept
//! the new signature) left the file uncommittable: the old accepted contract still refused
//! the new signature and could not be rejected.

use crate::store::db::Db;
use serde_json::{Map, Value, json};
use wit_core::SymbolPath;
use wit_core::protocol::{
    ContractProposed, ContractRecord, ContractResponded, ContractStatus, ErrorCode,
};

use super::{Failure, event, to_value, validated};
use crate::analysis::symbol_spellings;
use crate::params::Params;
use crate::state::AppState;
use crate::store::contracts;

/// Status filters of `contract.query`: v1's three, plus the extension statuses.
const STATUSES: &[&str] = &[
    "proposed",
    "accepted",
    "rejected",
    "withdrawn",
    "superseded",
];

/// `contract.propose {sessionId, symbolPath}`: captures the signature from disk.
pub(crate) async fn propose(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.req_str("sessionId");
    let symbol_path = p.symbol_path("symbolPath");
    p.finish()?;
    let (session, symbol_path) = (validated(session)?, validated(symbol_path)?);
    let sp = validated(SymbolPath::parse(&symbol_path))?;
    let unloaded = unloaded_plugins_note(state, sp.file);
    let not_found = || {
        let mut data = json!({ "symbolPath": symbol_path });
        if let Some(reason) = &unloaded {
            data["reason"] = json!(reason);
        }
        Failure::domain(ErrorCode::SymbolNotFound, data)
    };

    let outcome = state.analyse_disk(vec![sp.file.to_owned()]).await?;
    let analysis = outcome
        .first()
        .and_then(|o| o.analysis())
        .ok_or_else(not_found)?;
    // Only callables have signatures: a class, interface or type alias is "not found".
    let def = analysis
        .find(sp.name)
        .filter(|s| s.kind.is_callable())
        .ok_or_else(not_found)?;
    let signature = def.signature.clone().ok_or_else(not_found)?;
    // Stored under the canonical spelling (`Store.get` for the method `get` resolves to),
    // so that every spelling of one function is one contract; answered (v1) in the
    // request's.
    let symbol_path_given = symbol_path.clone();
    let symbol_path = format!("{}:{}", sp.file, def.qualified_name());

    let record = ContractRecord {
        contract_id: uuid::Uuid::new_v4().to_string(),
        proposer_session_id: session,
        symbol_path: symbol_path.clone(),
        signature: signature.clone(),
        status: ContractStatus::Proposed,
        responder_session_id: None,
        // Set by the write, on the store's clock: daemons on machines whose clocks
        // differ still order the contracts they share by one clock.
        proposed_at: 0,
        responded_at: None,
        retired: None,
    };
    let contract_id = record.contract_id.clone();
    let file = sp.file.to_owned();
    let spelling = symbol_path_given.clone();
    state
        .write(move |tx| {
            let record = ContractRecord {
                proposed_at: tx.now_ms(),
                ..record
            };
            contracts::insert(tx, &record, &file, &spelling)?;
            event(
                tx,
                "contract.proposed",
                Some(&record.proposer_session_id),
                &record.contract_id,
                json!({ "symbolPath": record.symbol_path, "signature": record.signature }),
            )
        })
        .await?;
    to_value(&ContractProposed {
        contract_id,
        symbol_path: symbol_path_given,
        signature,
    })
}

/// `contract.respond {contractId, sessionId, accept}`.
pub(crate) async fn respond(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let contract_id = p.req_str("contractId");
    let session = p.req_str("sessionId");
    let accept = p.req_bool("accept");
    p.finish()?;
    let (contract_id, session, accept) = (
        validated(contract_id)?,
        validated(session)?,
        validated(accept)?,
    );
    let status = if accept {
        ContractStatus::Accepted
    } else {
        ContractStatus::Rejected
    };
    let responded = state
        .write(move |tx| {
            let contract = open_contract(tx, &contract_id, &[ContractStatus::Proposed])?;
            if contract.proposer_session_id == session {
                return Err(Failure::bare(ErrorCode::SelfAcceptNotAllowed));
            }
            let now = tx.now_ms();
            contracts::respond(tx, &contract_id, status, &session, now)?;
            event(
                tx,
                if accept {
                    "contract.accepted"
                } else {
                    "contract.rejected"
                },
                Some(&session),
                &contract_id,
                json!({ "symbolPath": contract.symbol_path }),
            )?;
            if accept {
                // The newly accepted contract replaces the older ones on this symbol.
                for old in contracts::accepted_on(tx, &contract.symbol_path, &contract_id)? {
                    contracts::retire(
                        tx,
                        &old,
                        ContractStatus::Superseded,
                        &session,
                        &format!("superseded by contract {contract_id}"),
                        Some(&contract_id),
                        now,
                    )?;
                    event(
                        tx,
                        "contract.superseded",
                        Some(&session),
                        &old,
                        json!({ "symbolPath": contract.symbol_path, "supersededBy": contract_id }),
                    )?;
                }
            }
            Ok(ContractResponded {
                contract_id,
                status,
            })
        })
        .await?;
    to_value(&responded)
}

/// `contract.withdraw {contractId, sessionId, reason?}` (extension): stops enforcing a
/// proposed or accepted contract. The proposer may withdraw without a reason; any other
/// session must give one, and either way who, when and why are recorded.
pub(crate) async fn withdraw(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let contract_id = p.req_str("contractId");
    let session = p.req_str("sessionId");
    let reason = p.opt_str("reason");
    p.finish()?;
    let (contract_id, session) = (validated(contract_id)?, validated(session)?);
    let record = state
        .write(move |tx| {
            let contract = open_contract(
                tx,
                &contract_id,
                &[ContractStatus::Proposed, ContractStatus::Accepted],
            )?;
            let reason = reason
                .map(|r| r.trim().to_owned())
                .filter(|r| !r.is_empty());
            let reason = match reason {
                Some(r) => r,
                None if contract.proposer_session_id == session => {
                    "withdrawn by its proposer".to_owned()
                }
                None => {
                    return Err(crate::params::invalid_request(
                        Vec::new(),
                        [(
                            "reason".to_owned(),
                            vec!["required when withdrawing another session's contract".to_owned()],
                        )]
                        .into_iter()
                        .collect(),
                    )
                    .into());
                }
            };
            contracts::retire(
                tx,
                &contract_id,
                ContractStatus::Withdrawn,
                &session,
                &reason,
                None,
                tx.now_ms(),
            )?;
            event(
                tx,
                "contract.withdrawn",
                Some(&session),
                &contract_id,
                json!({
                    "symbolPath": contract.symbol_path,
                    "reason": reason,
                    "proposer": contract.proposer_session_id,
                }),
            )?;
            if contract.proposer_session_id != session {
                tracing::warn!(
                    contract = %contract_id,
                    by = %session,
                    proposer = %contract.proposer_session_id,
                    "contract on {} withdrawn by another session than its proposer: {reason}",
                    contract.symbol_path
                );
            }
            contracts::get(tx, &contract_id)?
                .ok_or_else(|| Failure::bare(ErrorCode::ContractNotFound))
        })
        .await?;
    Ok(json!({
        "contractId": record.contract_id,
        "status": record.status.as_str(),
        "retired": record.retired,
    }))
}

/// The contract `contract_id` when its status is one of `open`: else CONTRACT_NOT_FOUND,
/// or CONTRACT_ALREADY_RESOLVED with its status (the order both methods specify).
fn open_contract(
    conn: &dyn Db,
    contract_id: &str,
    open: &[ContractStatus],
) -> Result<ContractRecord, Failure> {
    let Some(contract) = contracts::get(conn, contract_id)? else {
        return Err(Failure::bare(ErrorCode::ContractNotFound));
    };
    if !open.contains(&contract.status) {
        return Err(Failure::domain(
            ErrorCode::ContractAlreadyResolved,
            json!({ "status": contract.status.as_str() }),
        ));
    }
    Ok(contract)
}

/// Why a file may have no analyzer although `wit.toml` names plugins: they were not
/// loaded (untrusted, stale, broken). `None` when the file's language is handled or no
/// plugin was refused.
fn unloaded_plugins_note(state: &AppState, file: &str) -> Option<String> {
    if state.analysis.supports(file) {
        return None;
    }
    let failed = &state.config.plugins.failed;
    if failed.is_empty() {
        return None;
    }
    let names: Vec<String> = failed
        .iter()
        .map(|f| format!("{} ({})", f.path.display(), f.error))
        .collect();
    Some(format!(
        "no loaded analyzer handles this file; wit.toml names plugins that were not loaded: \
         {} — see `wit analyzers` (an untrusted repository needs `wit trust`)",
        names.join("; ")
    ))
}

/// `contract.query {symbolPath?, status?}`.
pub(crate) async fn query(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.opt_symbol_path_filter("symbolPath");
    let status = p.opt_enum("status", STATUSES);
    p.finish()?;
    let status = status.as_deref().and_then(ContractStatus::parse);
    // Contracts are stored under the canonical spelling; a filter naming the same
    // definition another way (`file:get` for `file:Store.get`) finds them too.
    let filters: Vec<Option<String>> = match symbol_path.as_deref().map(SymbolPath::parse) {
        Some(Some(sp)) => {
            let outcome = state.analyse_disk(vec![sp.file.to_owned()]).await?;
            let analysis = outcome.first().and_then(|o| o.analysis());
            let mut spellings = symbol_spellings(sp.file, sp.name, analysis.map(|a| &**a));
            let given = format!("{}:{}", sp.file, sp.name);
            if !spellings.contains(&given) {
                spellings.push(given);
            }
            spellings.into_iter().map(Some).collect()
        }
        _ => vec![symbol_path],
    };
    let several = filters.len() > 1;
    let mut records = state
        .read(move |conn| {
            let mut records: Vec<ContractRecord> = Vec::new();
            for filter in &filters {
                for r in contracts::query(conn, filter.as_deref(), status)? {
                    // A filter matches the canonical path or the proposer's spelling: one
                    // contract may answer two spellings of the same definition.
                    if !records.iter().any(|seen| seen.contract_id == r.contract_id) {
                        records.push(r);
                    }
                }
            }
            Ok(records)
        })
        .await?;
    if several {
        // One list in proposal order, as a single query gives it.
        records.sort_by_key(|r| r.proposed_at);
    }
    to_value(&records)
}
