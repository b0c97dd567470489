//! `wit declare`: store an intent and explain each conflict it meets.

use serde_json::json;
use wit_core::protocol::{ConflictItem, IntentDeclared};

use crate::args::DeclareArgs;
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::output::{Style, print_json, shown, until};

/// `wit declare`. Exits 0 even with conflicts: the intent is stored either way, and the
/// conflicts are information for coordinating, not a refusal.
pub async fn run(ctx: &Ctx, a: DeclareArgs) -> CmdResult {
    // Files are relative to the current directory, like every path on the command line.
    let files: Vec<String> = a
        .files
        .iter()
        .map(|f| f.trim())
        .filter(|f| !f.is_empty())
        .map(|f| ctx.repo.relative(f))
        .collect::<Result<_, _>>()?;
    if files.is_empty() {
        return Err(Failure::Usage("--files needs at least one file".into()));
    }
    if a.description.trim().is_empty() {
        return Err(Failure::Usage("--description must not be empty".into()));
    }
    let symbols: Vec<String> = a
        .symbols
        .into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let session = ctx.session()?;
    session.warn_if_shared();
    let mut client = ctx.client().await?;
    if !a.allow_missing && !symbols.is_empty() {
        require_declared(&mut client, &files, &symbols).await?;
    }
    let mut params = json!({"sessionId": session.id, "description": a.description, "files": files});
    if !symbols.is_empty() {
        params["symbols"] = json!(symbols);
    }
    // The answer as sent (`--json` prints it whole, extension fields included), read
    // through the v1 type for the items.
    let raw: serde_json::Value = call(&mut client, "intent.declare", params, "intent").await?;
    if ctx.json {
        print_json(&raw);
        return Ok(());
    }
    let r: IntentDeclared = serde_json::from_value(raw.clone())
        .map_err(|e| Failure::other(format!("the daemon's intent.declare answer: {e}")))?;
    let leases = lease_lines(&raw, &ctx.style);
    let n = r.conflicts.items.len() + leases.len();
    if n == 0 {
        println!(
            "Declared intent {} — no conflicts.",
            ctx.style.bold(&r.intent_id)
        );
    } else {
        println!(
            "Declared intent {} — {}:",
            ctx.style.bold(&r.intent_id),
            ctx.style
                .yellow(&format!("{n} conflict{}", if n == 1 { "" } else { "s" }))
        );
        for item in &r.conflicts.items {
            println!("  {}", describe(item, &ctx.style));
        }
        for line in &leases {
            println!("  {line}");
        }
    }
    println!("When done: wit intent done {}", r.intent_id);
    Ok(())
}

/// Refuses a declared name that none of the declared files defines (each name is looked
/// up in each file; files that do not analyse say nothing).
async fn require_declared(
    client: &mut crate::client::Client,
    files: &[String],
    symbols: &[String],
) -> CmdResult {
    for name in symbols {
        let mut first_failure = None;
        let mut found = false;
        for f in files {
            match super::graph::require_existing(client, &[format!("{f}:{name}")]).await {
                Ok(()) => {
                    found = true;
                    break;
                }
                // The refusal shown is the first with suggestions (else the first).
                Err(e) => {
                    let suggests = |f: &Failure| match f {
                        Failure::Rpc { error, .. } => error
                            .data
                            .as_ref()
                            .and_then(|d| d["suggestions"].as_array())
                            .is_some_and(|s| !s.is_empty()),
                        _ => false,
                    };
                    if first_failure
                        .as_ref()
                        .is_none_or(|f| !suggests(f) && suggests(&e))
                    {
                        first_failure = Some(e);
                    }
                }
            }
        }
        if let (false, Some(e)) = (found, first_failure) {
            return Err(e);
        }
    }
    Ok(())
}

/// One line per lease of another session over the declared files (`conflicts.leases` of
/// the answer, an extension): whose, which mode, until when, over which of the files.
pub fn lease_lines(answer: &serde_json::Value, style: &Style) -> Vec<String> {
    let Some(leases) = answer["conflicts"]["leases"].as_array() else {
        return Vec::new();
    };
    let text = |v: &serde_json::Value| shown(v.as_str().unwrap_or("?")).into_owned();
    leases
        .iter()
        .map(|l| {
            let list = |v: &serde_json::Value| {
                v.as_array()
                    .map(|a| a.iter().map(text).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default()
            };
            let (holder, mode) = (text(&l["sessionId"]), text(&l["mode"]));
            let count = l["fileCount"].as_u64().unwrap_or(0);
            let advice = if mode == "exclusive" {
                format!("{holder} alone may change them: wait for the release or ask {holder}")
            } else {
                format!("{holder} is working across them: tell {holder} what you change")
            };
            format!(
                "{}  {holder} holds {} {mode} lease on {} {} over {count} of your files ({}); {advice}",
                if mode == "exclusive" {
                    style.red("LEASE            ")
                } else {
                    style.yellow("LEASE            ")
                },
                if mode == "exclusive" { "an" } else { "a" },
                list(&l["paths"]),
                until(l["expiresAt"].as_str().unwrap_or("")),
                list(&l["files"]),
            )
        })
        .collect()
}

/// One conflict on one line: what it is, what it means, who to coordinate with.
pub fn describe(item: &ConflictItem, style: &Style) -> String {
    // Every field was chosen by another agent (or a repository): escaped.
    let e = |s: &str| shown(s).into_owned();
    match item {
        ConflictItem::IntentOverlap {
            overlapping_intent_id,
            overlapping_session_id,
            description,
        } => {
            let (overlapping_intent_id, overlapping_session_id, description) = (
                e(overlapping_intent_id),
                e(overlapping_session_id),
                e(description),
            );
            format!(
                "{}  {overlapping_session_id} intends to change the same code: \"{description}\" (intent \
             {overlapping_intent_id}); agree with {overlapping_session_id} on who goes first",
                style.yellow("INTENT_OVERLAP   ")
            )
        }
        ConflictItem::LockIntersection {
            symbol_path,
            held_by,
            expires_at,
        } => {
            let (symbol_path, held_by) = (e(symbol_path), e(held_by));
            format!(
                "{}  {symbol_path} is locked by {held_by} {}; wait for the release or ask {held_by}",
                style.red("LOCK_INTERSECTION"),
                until(expires_at)
            )
        }
        ConflictItem::DepChain {
            intent_symbol,
            locked_callee,
            held_by,
        } => {
            let (intent_symbol, locked_callee, held_by) =
                (e(intent_symbol), e(locked_callee), e(held_by));
            format!(
                "{}  {intent_symbol} calls {locked_callee}, which {held_by} has locked; it may change \
             under you, so check its signature with {held_by} (chain: {intent_symbol} → {locked_callee})",
                style.yellow("DEP_CHAIN        ")
            )
        }
    }
}
