//! `check-contracts`: passed content only, never the disk.

use serde_json::{Map, Value};
use wit_core::SymbolPath;
use wit_core::protocol::{CheckResult, SYMBOL_NOT_FOUND_IN_STAGED, Violation};

use super::{Failure, to_value, validated};
use crate::analysis::FileOutcome;
use crate::params::Params;
use crate::state::AppState;
use crate::store::contracts;

/// `check-contracts {files: [{path, content}]}` → `{violations}`.
pub(crate) async fn check_contracts(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let files = p.file_contents("files");
    p.finish()?;
    let files: Vec<_> = validated(files)?
        .into_iter()
        .filter(|f| state.analysis.supports(&f.path))
        .collect();
    if files.is_empty() {
        return to_value(&CheckResult::default());
    }
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    let contracts_per_file = state
        .read(move |conn| {
            paths
                .iter()
                .map(|p| contracts::accepted_in_file(conn, p).map_err(Failure::from))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;

    // Contents analysed before (a hook run again, a file unchanged since the daemon saw
    // it) are answered inline; the rest are parsed on the blocking pool, once per file
    // however many contracts it has.
    let mut outcomes: Vec<Option<FileOutcome>> = files
        .iter()
        .zip(&contracts_per_file)
        .map(|(f, contracts)| {
            if contracts.is_empty() {
                return Some(FileOutcome::Unsupported);
            }
            state
                .analysis
                .cached_content(&f.path, &f.content)
                .map(FileOutcome::Analysed)
        })
        .collect();
    if outcomes.iter().any(Option::is_none) {
        let analysis = state.analysis.clone();
        let pending: Vec<(usize, String, String)> = outcomes
            .iter()
            .enumerate()
            .filter(|(_, o)| o.is_none())
            .map(|(i, _)| (i, files[i].path.clone(), files[i].content.clone()))
            .collect();
        let done = tokio::task::spawn_blocking(move || {
            pending
                .into_iter()
                .map(|(i, path, content)| (i, analysis.analyse_content(&path, &content)))
                .collect::<Vec<_>>()
        })
        .await
        .map_err(Failure::from_join)?;
        for (i, outcome) in done {
            outcomes[i] = Some(outcome);
        }
    }

    let mut violations = Vec::new();
    for (outcome, contracts) in outcomes.into_iter().zip(contracts_per_file) {
        // Content an analyzer refuses (binary) defines no symbols.
        let parsed = match &outcome {
            Some(FileOutcome::Analysed(a)) => Some(a),
            _ => None,
        };
        for (contract, spelling) in contracts {
            let Some(sp) = SymbolPath::parse(&contract.symbol_path) else {
                continue;
            };
            let actual = parsed
                .and_then(|a| a.find(sp.name))
                .filter(|s| s.kind.is_callable())
                .and_then(|s| s.signature.clone());
            match actual {
                Some(actual) if actual == contract.signature => {}
                // Named (v1) as the contract's proposer named it, as `contract.query`
                // names it; the canonical path found the symbol.
                actual => violations.push(Violation {
                    contract_id: contract.contract_id,
                    symbol_path: spelling,
                    expected: contract.signature,
                    actual: actual.unwrap_or_else(|| SYMBOL_NOT_FOUND_IN_STAGED.to_owned()),
                }),
            }
        }
    }
    to_value(&CheckResult { violations })
}
