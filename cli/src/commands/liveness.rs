//! `wit renew`, `wit force-release`, `wit end-session`, `wit audit`: ending locks early,
//! on the record (the daemon's liveness methods, openrpc.extensions.json).

use serde_json::{Value, json};

use crate::context::{Ctx, call};
use crate::exit::CmdResult;
use crate::output::{Cell, local_clock, print_json, shown, table, until};

/// `wit renew`.
pub async fn renew(ctx: &Ctx, symbols: Vec<String>, ttl: Option<u64>) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let mut renewed = Vec::new();
    for s in symbols {
        let path = ctx.repo.symbol_path(&s)?;
        let mut params = json!({"symbolPath": path, "sessionId": session.id});
        if let Some(t) = ttl {
            params["ttlMs"] = json!(t);
        }
        let r: Value = call(&mut client, "lock.renew", params, &path).await?;
        renewed.push(r);
    }
    if ctx.json {
        print_json(&renewed);
    } else {
        for r in &renewed {
            println!(
                "Renewed {} {}.",
                shown(r["symbolPath"].as_str().unwrap_or("")),
                until(r["expiresAt"].as_str().unwrap_or(""))
            );
        }
    }
    Ok(())
}

/// `wit force-release`.
pub async fn force_release(ctx: &Ctx, symbol: &str, reason: &str) -> CmdResult {
    let session = ctx.session()?;
    let path = ctx.repo.symbol_path(symbol)?;
    let mut client = ctx.client().await?;
    let r: Value = call(
        &mut client,
        "lock.forceRelease",
        json!({"symbolPath": path, "sessionId": session.id, "reason": reason}),
        &path,
    )
    .await?;
    if ctx.json {
        print_json(&r);
    } else {
        println!(
            "Released {} by force (it was held by {}); recorded in `wit audit`.",
            shown(&path),
            shown(r["formerHolder"].as_str().unwrap_or("?"))
        );
    }
    Ok(())
}

/// `wit end-session`.
pub async fn end_session(ctx: &Ctx, abandon_intents: bool) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let mut params = json!({"sessionId": session.id});
    if abandon_intents {
        params["abandonIntents"] = json!(true);
    }
    let r: Value = call(&mut client, "session.end", params, &session.id).await?;
    if ctx.json {
        print_json(&r);
    } else {
        let count = |k: &str| r[k].as_array().map_or(0, Vec::len);
        let mut said = format!(
            "Session {} ended; {} lock(s) and {} lease(s) released",
            shown(&session.id),
            count("releasedLocks"),
            count("releasedLeases")
        );
        if abandon_intents {
            said.push_str(&format!(
                ", {} intent(s) abandoned",
                count("abandonedIntents")
            ));
        }
        println!("{said}.");
    }
    Ok(())
}

/// `wit audit`.
pub async fn audit(ctx: &Ctx, session: Option<String>) -> CmdResult {
    let mut client = ctx.client().await?;
    let mut params = json!({});
    if let Some(s) = &session {
        params["sessionId"] = json!(s);
    }
    let r: Value = call(&mut client, "audit.query", params, "audit").await?;
    let records = r["records"].as_array().cloned().unwrap_or_default();
    if ctx.json {
        print_json(&records);
        return Ok(());
    }
    if records.is_empty() {
        println!("No forced, expired or session-ended releases.");
        return Ok(());
    }
    let rows = records
        .iter()
        .map(|a| {
            let text = |k: &str| a[k].as_str().unwrap_or("-").to_owned();
            vec![
                Cell::plain(a["at"].as_i64().map(local_clock).unwrap_or_default()),
                Cell::plain(text("action")),
                Cell::plain(text("symbolPath")),
                Cell::plain(text("holder")),
                Cell::plain(text("by")),
                Cell::plain(text("reason")),
            ]
        })
        .collect();
    print!(
        "{}",
        table(
            &ctx.style,
            &["WHEN", "ACTION", "SYMBOL", "HOLDER", "BY", "REASON"],
            rows
        )
    );
    Ok(())
}
