//! `wit intent update|start|done|abandon|list`.

use serde_json::json;
use wit_core::protocol::{IntentRecord, IntentUpdated};

use crate::args::{AnyStatus, IntentCmd, TargetStatus};
use crate::context::{Ctx, call};
use crate::exit::CmdResult;
use crate::output::{Cell, ago, print_json, session_cell, table, truncate};
use crate::session::Session;

/// An intent's files, then its symbols in brackets when it names any: the
/// `FILES [SYMBOLS]` column of `wit intent list` and `wit status`.
pub(crate) fn targets(i: &IntentRecord) -> String {
    let syms = i.symbol_list();
    let mut files = i.file_list().join(", ");
    if !syms.is_empty() {
        files.push_str(&format!(" [{}]", syms.join(", ")));
    }
    files
}

/// Runs a `wit intent` subcommand.
pub async fn run(ctx: &Ctx, cmd: IntentCmd) -> CmdResult {
    match cmd {
        IntentCmd::Update { id, status } => update(ctx, &id, status).await,
        IntentCmd::Start { id } => update(ctx, &id, TargetStatus::Active).await,
        IntentCmd::Done { id } => update(ctx, &id, TargetStatus::Resolved).await,
        IntentCmd::Abandon { id, reason, force } => abandon(ctx, &id, reason, force).await,
        IntentCmd::List {
            all,
            status,
            file,
            mine,
        } => list(ctx, all, status, file, mine).await,
    }
}

async fn update(ctx: &Ctx, id: &str, status: TargetStatus) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let id = &crate::ids::intent(&mut client, id.trim()).await?;
    let r: IntentUpdated = call(
        &mut client,
        "intent.update",
        json!({"intentId": id, "sessionId": session.id, "status": status.as_str()}),
        id,
    )
    .await?;
    if ctx.json {
        print_json(&r);
    } else {
        println!(
            "Intent {} is now {}.",
            r.intent_id,
            ctx.style.green(r.status.as_str())
        );
    }
    Ok(())
}

/// `wit intent abandon`: through `intent.abandon`, which also lets another session close
/// an ended session's intent (on the record); `intent.update` against an older daemon.
async fn abandon(ctx: &Ctx, id: &str, reason: Option<String>, force: bool) -> CmdResult {
    let session = ctx.session()?;
    let mut client = ctx.client().await?;
    let id = &crate::ids::intent(&mut client, id.trim()).await?;
    let mut params = json!({"intentId": id, "sessionId": session.id});
    if let Some(r) = &reason {
        params["reason"] = json!(r);
    }
    if force {
        params["force"] = json!(true);
    }
    let r: serde_json::Value = match client.call("intent.abandon", params).await {
        Ok(r) => r,
        Err(crate::client::CallError::Rpc(e))
            if e.kind() == Some(wit_core::protocol::ErrorCode::MethodNotFound)
                && reason.is_none() =>
        {
            return update(ctx, id, TargetStatus::Abandoned).await;
        }
        Err(e) => return Err(crate::context::failure(e, id)),
    };
    if ctx.json {
        print_json(&r);
    } else if r["owner"] == r["by"] {
        println!("Intent {id} is now {}.", ctx.style.green("abandoned"));
    } else {
        println!(
            "Intent {id} of {} is now {}; recorded in `wit audit`.",
            crate::output::shown(r["owner"].as_str().unwrap_or("?")),
            ctx.style.green("abandoned")
        );
    }
    Ok(())
}

async fn list(
    ctx: &Ctx,
    all: bool,
    status: Option<AnyStatus>,
    file: Option<String>,
    mine: bool,
) -> CmdResult {
    let session = if mine {
        Some(ctx.session()?)
    } else {
        Session::lookup(&ctx.repo)
    };
    let mut client = ctx.client().await?;
    let mut base = json!({});
    if let Some(f) = &file {
        base["file"] = json!(ctx.repo.relative(f)?);
    }
    if mine && let Some(s) = &session {
        base["sessionId"] = json!(s.id);
    }
    let statuses: Vec<Option<&str>> = match (all, status) {
        (true, _) => ["declared", "active", "resolved", "abandoned"]
            .into_iter()
            .map(Some)
            .collect(),
        (false, Some(s)) => vec![Some(match s {
            AnyStatus::Declared => "declared",
            AnyStatus::Active => "active",
            AnyStatus::Resolved => "resolved",
            AnyStatus::Abandoned => "abandoned",
        })],
        (false, None) => vec![None],
    };
    let mut intents: Vec<IntentRecord> = Vec::new();
    for st in statuses {
        let mut p = base.clone();
        if let Some(st) = st {
            p["status"] = json!(st);
        }
        let mut got: Vec<IntentRecord> = call(&mut client, "intent.query", p, "intents").await?;
        intents.append(&mut got);
    }
    intents.sort_by_key(|i| i.declared_at);
    if ctx.json {
        print_json(&intents);
        return Ok(());
    }
    if intents.is_empty() {
        println!("No intents.");
        return Ok(());
    }
    let me = session.as_ref().map(|s| s.id.as_str());
    let style = &ctx.style;
    let rows = intents
        .iter()
        .map(|i| {
            vec![
                Cell::plain(&i.intent_id),
                session_cell(&i.session_id, me, style),
                Cell::plain(i.status.as_str()),
                Cell::plain(truncate(&targets(i), 48)),
                Cell::plain(truncate(&i.description, 48)),
                Cell::styled(ago(i.updated_at), |t| style.dim(t)),
            ]
        })
        .collect();
    print!(
        "{}",
        table(
            style,
            &[
                "ID",
                "SESSION",
                "STATUS",
                "FILES [SYMBOLS]",
                "DESCRIPTION",
                "UPDATED"
            ],
            rows
        )
    );
    Ok(())
}
