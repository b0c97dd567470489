//! `wit symbols`, `wit callers`, `wit callees`: the repository code graph; and the check
//! that `wit lock` / `wit declare` make before naming a symbol that does not exist.

use serde_json::{Value, json};
use wit_core::protocol::{ErrorCode, RpcError};

use crate::client::{CallError, Client};
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::output::{Cell, print_json, shown, table};

/// `wit symbols FILE…`.
pub async fn symbols(ctx: &Ctx, files: Vec<String>) -> CmdResult {
    if files.is_empty() {
        return Err(Failure::Usage("name at least one file".into()));
    }
    let mut client = ctx.client().await?;
    let mut docs = Vec::new();
    for f in &files {
        let rel = ctx.repo.relative(f)?;
        let r: Value = call(&mut client, "symbols.list", json!({"file": rel}), &rel).await?;
        docs.push(r);
    }
    if ctx.json {
        if docs.len() == 1 {
            print_json(&docs[0]);
        } else {
            print_json(&json!({"files": docs}));
        }
        return Ok(());
    }
    for doc in &docs {
        let file = doc["file"].as_str().unwrap_or_default();
        let status = doc["status"].as_str().unwrap_or_default();
        if status != "analysed" {
            let why = doc["reason"]
                .as_str()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            println!("{}: {}{}", shown(file), status, shown(&why));
            continue;
        }
        println!("{}", ctx.style.bold(&shown(file)));
        let rows: Vec<Vec<Cell>> = doc["symbols"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                let start = s["startLine"].as_u64().unwrap_or(0) + 1;
                let end = s["endLine"].as_u64().unwrap_or(0) + 1;
                vec![
                    Cell::plain(s["address"].as_str().unwrap_or_default()),
                    Cell::plain(s["kind"].as_str().unwrap_or_default()),
                    Cell::plain(format!("{start}-{end}")),
                    Cell::plain(if s["exported"].as_bool() == Some(true) {
                        "yes"
                    } else {
                        ""
                    }),
                    Cell::plain(s["signature"].as_str().unwrap_or_default()),
                ]
            })
            .collect();
        if rows.is_empty() {
            println!("  (no definitions)");
        } else {
            print!(
                "{}",
                table(
                    &ctx.style,
                    &["SYMBOL", "KIND", "LINES", "EXPORTED", "SIGNATURE"],
                    rows
                )
            );
        }
    }
    Ok(())
}

/// `wit callers SYMBOL [--depth N]` (`callers` true) and `wit callees SYMBOL [--depth N]`.
pub async fn edges(ctx: &Ctx, symbol: &str, depth: u8, callers: bool) -> CmdResult {
    let path = ctx.repo.symbol_path(symbol)?;
    let mut client = ctx.client().await?;
    let method = if callers {
        "code.callers"
    } else {
        "code.callees"
    };
    let r: Value = call(
        &mut client,
        method,
        json!({"symbolPath": path, "depth": depth}),
        &path,
    )
    .await?;
    if ctx.json {
        print_json(&r);
        return Ok(());
    }
    let key = if callers { "callers" } else { "callees" };
    let list = r[key].as_array().cloned().unwrap_or_default();
    let target = r["symbol"].as_str().unwrap_or(&path);
    if list.is_empty() {
        println!(
            "No {key} of {}{}.",
            ctx.style.bold(&shown(target)),
            if r["complete"] == false {
                " (the index is still being built)"
            } else {
                ""
            }
        );
        return Ok(());
    }
    println!(
        "{} of {}:",
        if callers { "Callers" } else { "Callees" },
        ctx.style.bold(&shown(target))
    );
    let rows: Vec<Vec<Cell>> = list
        .iter()
        .map(|e| {
            let other = if callers { &e["caller"] } else { &e["callee"] };
            let at = format!(
                "{}:{}",
                e["file"].as_str().unwrap_or_default(),
                e["line"].as_u64().unwrap_or(0) + 1
            );
            let indent = "  ".repeat(e["depth"].as_u64().unwrap_or(1).saturating_sub(1) as usize);
            vec![
                Cell::plain(format!("{indent}{}", other.as_str().unwrap_or_default())),
                Cell::plain(e["resolution"].as_str().unwrap_or_default()),
                Cell::plain(at),
            ]
        })
        .collect();
    print!(
        "{}",
        table(
            &ctx.style,
            &[
                if callers { "CALLER" } else { "CALLEE" },
                "RESOLUTION",
                "CALL SITE"
            ],
            rows
        )
    );
    if r["complete"] == false {
        println!("(the index is still being built: callers in files not indexed yet are missing)");
    }
    Ok(())
}

/// Refuses symbol paths that name no definition of their (analysed) file: "no symbol `X`
/// in `F` — did you mean …". Files that do not analyse (missing, unsupported, failing)
/// and daemons without `symbols.resolve` pass: nothing is known against them.
pub async fn require_existing(client: &mut Client, paths: &[String]) -> CmdResult {
    for p in paths {
        let r = match client
            .call_value("symbols.resolve", json!({"symbolPath": p}))
            .await
        {
            Ok(r) => r,
            Err(CallError::Rpc(e)) if e.kind() == Some(ErrorCode::MethodNotFound) => return Ok(()),
            Err(CallError::Rpc(_)) => continue,
            Err(e) => return Err(crate::context::failure(e, p)),
        };
        if r["exists"] != false || r["status"] != "analysed" {
            continue;
        }
        let (file, name) = p.split_once(':').unwrap_or((p.as_str(), ""));
        let suggestions: Vec<String> = r["suggestions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str())
            .map(|s| s.split_once(':').map_or(s, |(_, n)| n).to_owned())
            .collect();
        let hint = match suggestions.as_slice() {
            [] => String::new(),
            s => format!(
                " — did you mean {}?",
                s.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let explanation = format!(
            "no symbol `{}` in `{}`{}  (pass --allow-missing to go ahead anyway)",
            shown(name),
            shown(file),
            shown(&hint)
        );
        return Err(Failure::Rpc {
            error: RpcError::new(
                ErrorCode::SymbolNotFound,
                Some(json!({"symbolPath": p, "suggestions": r["suggestions"]})),
            ),
            explanation,
        });
    }
    Ok(())
}
