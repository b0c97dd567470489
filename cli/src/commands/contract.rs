//! `wit contract propose|accept|reject|list`.

use serde_json::json;
use wit_core::protocol::{ContractProposed, ContractRecord, ContractResponded};

use crate::args::ContractCmd;
use crate::commands::status::contract_table;
use crate::context::{Ctx, call};
use crate::exit::CmdResult;
use crate::output::{print_json, shown};
use crate::session::Session;

/// Runs a `wit contract` subcommand.
pub async fn run(ctx: &Ctx, cmd: ContractCmd) -> CmdResult {
    match cmd {
        ContractCmd::Propose { symbol } => propose(ctx, symbol.trim()).await,
        ContractCmd::Accept { id } => respond(ctx, &id, true).await,
        ContractCmd::Reject { id } => respond(ctx, &id, false).await,
        ContractCmd::Withdraw { id, reason } => withdraw(ctx, &id, reason).await,
        ContractCmd::List { status, symbol } => list(ctx, status, symbol).await,
    }
}

async fn propose(ctx: &Ctx, symbol: &str) -> CmdResult {
    let symbol = &ctx.repo.symbol_path(symbol)?;
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let r: ContractProposed = call(
        &mut client,
        "contract.propose",
        json!({"sessionId": session.id, "symbolPath": symbol}),
        symbol,
    )
    .await?;
    if ctx.json {
        print_json(&r);
    } else {
        println!(
            "Proposed contract {} for {}: {}",
            ctx.style.bold(&r.contract_id),
            shown(&r.symbol_path),
            ctx.style.cyan(&r.signature)
        );
        println!(
            "Another session accepts it with: wit contract accept {}",
            r.contract_id
        );
    }
    Ok(())
}

async fn respond(ctx: &Ctx, id: &str, accept: bool) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let id = &crate::ids::contract(&mut client, id.trim()).await?;
    let r: ContractResponded = call(
        &mut client,
        "contract.respond",
        json!({"contractId": id, "sessionId": session.id, "accept": accept}),
        id,
    )
    .await?;
    if ctx.json {
        print_json(&r);
    } else if accept {
        println!(
            "Contract {} {}: commits that change this signature are now refused by the pre-commit hook.",
            r.contract_id,
            ctx.style.green("accepted")
        );
    } else {
        println!("Contract {} rejected.", r.contract_id);
    }
    Ok(())
}

async fn withdraw(ctx: &Ctx, id: &str, reason: Option<String>) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let id = &crate::ids::contract(&mut client, id.trim()).await?;
    let mut params = json!({"contractId": id, "sessionId": session.id});
    if let Some(r) = reason {
        params["reason"] = json!(r);
    }
    let r: serde_json::Value = call(&mut client, "contract.withdraw", params, id).await?;
    if ctx.json {
        print_json(&r);
    } else {
        println!(
            "Contract {id} withdrawn ({}): the pre-commit hook no longer enforces it.",
            shown(r["retired"]["reason"].as_str().unwrap_or(""))
        );
    }
    Ok(())
}

async fn list(ctx: &Ctx, status: Option<String>, symbol: Option<String>) -> CmdResult {
    let mut client = ctx.client().await?;
    let mut params = json!({});
    if let Some(s) = status {
        params["status"] = json!(s);
    }
    if let Some(s) = symbol {
        params["symbolPath"] = json!(ctx.repo.symbol_path(&s)?);
    }
    let contracts: Vec<ContractRecord> =
        call(&mut client, "contract.query", params, "contracts").await?;
    if ctx.json {
        print_json(&contracts);
    } else if contracts.is_empty() {
        println!("No contracts.");
    } else {
        let me = Session::lookup(&ctx.repo).map(|s| s.id);
        let refs: Vec<&ContractRecord> = contracts.iter().collect();
        print!("{}", contract_table(&refs, &ctx.style, me.as_deref()));
    }
    Ok(())
}
