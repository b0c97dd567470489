//! `wit check-contracts`: files (working tree or index) against the accepted contracts.

use std::collections::BTreeSet;

use serde_json::json;
use wit_core::SymbolPath;
use wit_core::protocol::{CheckResult, ContractRecord, StagedFile, Violation};

use crate::client::Client;
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::git;
use crate::output::{Style, print_json, shown};

/// `wit check-contracts [FILE…] [--staged]`.
pub async fn run(ctx: &Ctx, files: Vec<String>, staged: bool) -> CmdResult {
    let mut client = ctx.client().await?;
    // Files the commit being prepared deletes: checked as empty, like a missing file below.
    let mut deleted = BTreeSet::new();
    let paths: Vec<String> = if files.is_empty() {
        if staged {
            git::staged_paths(&ctx.repo.root)
                .map_err(Failure::other)?
                .into_iter()
                .map(|p| {
                    if p.deleted {
                        deleted.insert(p.path.clone());
                    }
                    p.path
                })
                .collect()
        } else {
            let accepted: Vec<ContractRecord> = call(
                &mut client,
                "contract.query",
                json!({"status": "accepted"}),
                "contracts",
            )
            .await?;
            accepted
                .iter()
                .filter_map(|c| SymbolPath::parse(&c.symbol_path).map(|p| p.file.to_owned()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        }
    } else {
        files
            .iter()
            .map(|f| ctx.repo.relative(f))
            .collect::<CmdResult<_>>()?
    };
    let mut staged_files = Vec::with_capacity(paths.len());
    for path in paths {
        let content = if deleted.contains(&path) {
            Vec::new()
        } else if staged {
            git::staged_content(&ctx.repo.root, &path).map_err(Failure::other)?
        } else {
            match std::fs::read(ctx.repo.root.join(&path)) {
                Ok(bytes) => bytes,
                // A contracted file that is gone breaks its contracts: check it as empty.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && files.is_empty() => {
                    Vec::new()
                }
                Err(e) => return Err(Failure::Usage(format!("{path}: {e}"))),
            }
        };
        let Ok(content) = String::from_utf8(content) else {
            eprintln!("wit: skipping {}: not UTF-8 text", shown(&path));
            continue;
        };
        staged_files.push(StagedFile { path, content });
    }
    let checked = staged_files.len();
    let r = check(&mut client, staged_files).await?;
    if ctx.json {
        print_json(&r);
    } else if r.violations.is_empty() {
        println!(
            "{} ({checked} file{} checked)",
            ctx.style.green("No contract violations"),
            if checked == 1 { "" } else { "s" }
        );
    } else {
        eprint!("{}", describe_violations(&r.violations, &ctx.style));
    }
    if r.violations.is_empty() {
        Ok(())
    } else {
        Err(Failure::Reported(Box::new(Failure::Violations(
            r.violations.len(),
        ))))
    }
}

/// Sends `files` to `check-contracts`.
pub async fn check(client: &mut Client, files: Vec<StagedFile>) -> CmdResult<CheckResult> {
    call(
        client,
        "check-contracts",
        json!({"files": files}),
        "check-contracts",
    )
    .await
}

/// Violations for a human: symbol, expected, actual.
pub fn describe_violations(v: &[Violation], style: &Style) -> String {
    let mut out = format!(
        "{}\n",
        style.red(&format!(
            "{} contract violation{}:",
            v.len(),
            if v.len() == 1 { "" } else { "s" }
        ))
    );
    for x in v {
        out.push_str(&format!(
            "  {}  (contract {})\n    expected: {}\n    actual:   {}\n",
            style.bold(&x.symbol_path),
            x.contract_id,
            style.green(&x.expected),
            style.red(&x.actual)
        ));
    }
    out.push_str("Restore the signatures, or agree on new ones (wit contract propose) with the sessions that accepted them.\n");
    out
}
