//! `wit lease take|list|renew|release|force-release`: file and glob leases (the daemon's
//! `lease.*` extension methods).

use serde_json::{Value, json};
use wit_core::protocol::LeaseRecord;

use crate::args::LeaseCmd;
use crate::client::Client;
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::output::{Cell, print_json, session_cell, shown, table, truncate, until};
use crate::session::Session;

/// Runs a `wit lease` subcommand.
pub async fn run(ctx: &Ctx, cmd: LeaseCmd) -> CmdResult {
    match cmd {
        LeaseCmd::Take {
            paths,
            shared,
            ttl,
            reason,
        } => take(ctx, paths, shared, ttl, reason).await,
        LeaseCmd::List { mine, file } => list(ctx, mine, file).await,
        LeaseCmd::Renew { id, ttl } => renew(ctx, &id, ttl).await,
        LeaseCmd::Release { ids, all } => release(ctx, ids, all).await,
        LeaseCmd::ForceRelease { id, reason } => force_release(ctx, &id, &reason).await,
    }
}

/// A pattern of the command line, relative to the current directory, as the daemon
/// wants it (relative to the root); a trailing `/` (everything beneath) is kept.
fn pattern(ctx: &Ctx, arg: &str) -> CmdResult<String> {
    let mut rel = ctx.repo.relative(arg)?;
    if rel.is_empty() {
        rel = "**".into();
    } else if arg.ends_with('/') {
        rel.push('/');
    }
    Ok(rel)
}

async fn take(
    ctx: &Ctx,
    paths: Vec<String>,
    shared: bool,
    ttl: Option<u64>,
    reason: Option<String>,
) -> CmdResult {
    let patterns = paths
        .iter()
        .map(|p| pattern(ctx, p))
        .collect::<CmdResult<Vec<_>>>()?;
    let session = ctx.session()?;
    session.warn_if_shared();
    let mut client = ctx.client().await?;
    let mut params = json!({
        "sessionId": session.id,
        "paths": patterns,
        "mode": if shared { "shared" } else { "exclusive" },
    });
    if let Some(t) = ttl {
        params["ttlMs"] = json!(t);
    }
    if let Some(r) = reason {
        params["reason"] = json!(r);
    }
    let answer = client.call::<LeaseRecord>("lease.acquire", params).await;
    let lease = match answer {
        Ok(lease) => lease,
        Err(crate::client::CallError::Rpc(e))
            if e.kind() == Some(wit_core::protocol::ErrorCode::LeaseConflict) =>
        {
            let text = describe_conflicts(e.data.as_ref());
            return Err(Failure::Rpc {
                error: e,
                explanation: text,
            });
        }
        Err(e) => return Err(crate::context::failure(e, &patterns.join(" "))),
    };
    if ctx.json {
        print_json(&lease);
    } else {
        println!(
            "Leased {} ({}) {}; id {}.",
            shown(&lease.paths.join(" ")),
            lease.mode,
            until(&lease.expires_at),
            lease.lease_id
        );
    }
    Ok(())
}

/// What a LEASE_CONFLICT collided with, one line each.
fn describe_conflicts(data: Option<&Value>) -> String {
    let mut text = String::from("those paths overlap what other sessions hold:");
    let items = data
        .and_then(|d| d["conflicts"].as_array())
        .cloned()
        .unwrap_or_default();
    for item in &items {
        let holder = item["sessionId"].as_str().unwrap_or("?");
        let when = item["expiresAt"].as_str().map(until).unwrap_or_default();
        if item["kind"] == "lock" {
            text.push_str(&format!(
                "\n  lock {} held by {} {}",
                shown(item["symbolPath"].as_str().unwrap_or("?")),
                shown(holder),
                when
            ));
        } else {
            let paths: Vec<&str> = item["paths"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            text.push_str(&format!(
                "\n  {} lease {} on {} held by {} {}",
                item["mode"].as_str().unwrap_or("?"),
                item["leaseId"].as_str().unwrap_or("?"),
                shown(&paths.join(" ")),
                shown(holder),
                when
            ));
        }
    }
    text.push_str("\nwait for them, narrow your paths, or take a --shared lease");
    text
}

/// The full id of the lease `prefix` names (any unique prefix, as for intents).
async fn lease_id(client: &mut Client, prefix: &str) -> CmdResult<String> {
    let prefix = prefix.trim();
    if prefix.len() >= 36 {
        return Ok(prefix.to_owned());
    }
    let all: Value = call(client, "lease.query", json!({}), "leases").await?;
    let want = prefix.to_ascii_lowercase();
    let matches: Vec<&str> = all["leases"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| l["leaseId"].as_str())
                .filter(|id| id.to_ascii_lowercase().starts_with(&want))
                .collect()
        })
        .unwrap_or_default();
    match matches.as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => Ok(prefix.to_owned()),
        many => Err(Failure::Usage(format!(
            "lease id prefix {} is ambiguous: {}",
            shown(prefix),
            many.join(", ")
        ))),
    }
}

async fn list(ctx: &Ctx, mine: bool, files: Vec<String>) -> CmdResult {
    let session = if mine {
        Some(ctx.session()?)
    } else {
        Session::lookup(&ctx.repo)
    };
    let mut client = ctx.client().await?;
    let mut params = json!({});
    if mine && let Some(s) = &session {
        params["sessionId"] = json!(s.id);
    }
    if !files.is_empty() {
        let rel = files
            .iter()
            .map(|f| ctx.repo.relative(f))
            .collect::<CmdResult<Vec<_>>>()?;
        params["files"] = json!(rel);
    }
    let answer: Value = call(&mut client, "lease.query", params, "leases").await?;
    let leases: Vec<LeaseRecord> =
        serde_json::from_value(answer["leases"].clone()).unwrap_or_default();
    if ctx.json {
        print_json(&leases);
        return Ok(());
    }
    if leases.is_empty() {
        println!("No leases.");
        return Ok(());
    }
    print!(
        "{}",
        lease_table(&leases, &ctx.style, session.as_ref().map(|s| s.id.as_str()))
    );
    Ok(())
}

/// Leases as a table (shared with `wit status`).
pub fn lease_table(
    leases: &[LeaseRecord],
    style: &crate::output::Style,
    me: Option<&str>,
) -> String {
    let rows = leases
        .iter()
        .map(|l| {
            vec![
                Cell::plain(&l.lease_id),
                Cell::styled(truncate(&l.paths.join(" "), 48), |t| style.bold(t)),
                Cell::plain(&l.mode),
                session_cell(&l.session_id, me, style),
                Cell::plain(crate::duration::human_span(l.ttl_remaining_ms)),
                Cell::plain(truncate(l.reason.as_deref().unwrap_or(""), 40)),
            ]
        })
        .collect();
    table(
        style,
        &["ID", "PATHS", "MODE", "HELD BY", "LEFT", "REASON"],
        rows,
    )
}

async fn renew(ctx: &Ctx, id: &str, ttl: Option<u64>) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let id = lease_id(&mut client, id).await?;
    let mut params = json!({"leaseId": id, "sessionId": session.id});
    if let Some(t) = ttl {
        params["ttlMs"] = json!(t);
    }
    let lease: LeaseRecord = call(&mut client, "lease.renew", params, &id).await?;
    if ctx.json {
        print_json(&lease);
    } else {
        println!(
            "Renewed lease {} {}.",
            lease.lease_id,
            until(&lease.expires_at)
        );
    }
    Ok(())
}

async fn release(ctx: &Ctx, ids: Vec<String>, all: bool) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let ids = if all {
        let mine: Value = call(
            &mut client,
            "lease.query",
            json!({"sessionId": session.id}),
            "leases",
        )
        .await?;
        mine["leases"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|l| l["leaseId"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    } else if ids.is_empty() {
        return Err(Failure::Usage(
            "name a lease id (see `wit lease list --mine`) or pass --all".into(),
        ));
    } else {
        ids
    };
    let mut released = Vec::new();
    for id in ids {
        let id = lease_id(&mut client, &id).await?;
        let _: Value = call(
            &mut client,
            "lease.release",
            json!({"leaseId": id, "sessionId": session.id}),
            &id,
        )
        .await?;
        released.push(id);
    }
    if ctx.json {
        print_json(&json!({ "released": released }));
    } else if released.is_empty() {
        println!("You hold no leases.");
    } else {
        println!(
            "Released {} lease(s): {}.",
            released.len(),
            released.join(", ")
        );
    }
    Ok(())
}

async fn force_release(ctx: &Ctx, id: &str, reason: &str) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let id = lease_id(&mut client, id).await?;
    let r: Value = call(
        &mut client,
        "lease.forceRelease",
        json!({"leaseId": id, "sessionId": session.id, "reason": reason}),
        &id,
    )
    .await?;
    if ctx.json {
        print_json(&r);
    } else {
        println!(
            "Released lease {} by force (it was held by {}); recorded in `wit audit`.",
            id,
            shown(r["formerHolder"].as_str().unwrap_or("?"))
        );
    }
    Ok(())
}
