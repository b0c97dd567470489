//! `contract.propose`, `contract.respond`, `contract.query`.

use serde_json::{Map, Value, json};
use wit_core::SymbolPath;
use wit_core::protocol::{
    ContractProposed, ContractRecord, ContractResponded, ContractStatus, ErrorCode,
};

use super::{Failure, to_value, validated};
use crate::params::Params;
use crate::state::{AppState, now_ms};
use crate::store::contracts;

const STATUSES: &[&str] = &["proposed", "accepted", "rejected"];

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
    let not_found = || {
        Failure::domain(
            ErrorCode::SymbolNotFound,
            json!({ "symbolPath": symbol_path }),
        )
    };

    let outcome = state.analyse_disk(vec![sp.file.to_owned()]).await?;
    let analysis = outcome
        .first()
        .and_then(|o| o.analysis())
        .ok_or_else(not_found)?;
    // Only callables have signatures: a class, interface or type alias is "not found".
    let signature = analysis
        .find(sp.name)
        .filter(|s| s.kind.is_callable())
        .and_then(|s| s.signature.clone())
        .ok_or_else(not_found)?;

    let record = ContractRecord {
        contract_id: uuid::Uuid::new_v4().to_string(),
        proposer_session_id: session,
        symbol_path: symbol_path.clone(),
        signature: signature.clone(),
        status: ContractStatus::Proposed,
        responder_session_id: None,
        proposed_at: now_ms(),
        responded_at: None,
    };
    let contract_id = record.contract_id.clone();
    let file = sp.file.to_owned();
    state
        .write(move |tx| Ok(contracts::insert(tx, &record, &file)?))
        .await?;
    to_value(&ContractProposed {
        contract_id,
        symbol_path,
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
            let Some(contract) = contracts::get(tx, &contract_id)? else {
                return Err(Failure::bare(ErrorCode::ContractNotFound));
            };
            if contract.status != ContractStatus::Proposed {
                return Err(Failure::domain(
                    ErrorCode::ContractAlreadyResolved,
                    json!({ "status": contract.status.as_str() }),
                ));
            }
            if contract.proposer_session_id == session {
                return Err(Failure::bare(ErrorCode::SelfAcceptNotAllowed));
            }
            contracts::respond(tx, &contract_id, status, &session, now_ms())?;
            Ok(ContractResponded {
                contract_id,
                status,
            })
        })
        .await?;
    to_value(&responded)
}

/// `contract.query {symbolPath?, status?}`.
pub(crate) async fn query(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.opt_str("symbolPath");
    let status = p.opt_enum("status", STATUSES);
    p.finish()?;
    let status = status.as_deref().and_then(ContractStatus::parse);
    let records = state
        .read(move |conn| Ok(contracts::query(conn, symbol_path.as_deref(), status)?))
        .await?;
    to_value(&records)
}
