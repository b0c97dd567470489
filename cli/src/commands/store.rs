//! `wit store status`: which store holds the coordination state (`store.status`);
//! `wit store migrate`: copy the SQLite state into the PostgreSQL store, once.

use serde_json::{Value, json};

use crate::context::{Ctx, call};
use crate::exit::CmdResult;
use crate::output::{print_json, shown};

/// `wit store status`.
pub async fn status(ctx: &Ctx) -> CmdResult {
    let mut client = ctx.client().await?;
    let s: Value = call(&mut client, "store.status", json!({}), "store").await?;
    if ctx.json {
        print_json(&s);
        return Ok(());
    }
    let text = |k: &str| s[k].as_str().unwrap_or("?").to_owned();
    println!(
        "{} store at {}: {}, schema version {}, {} µs per round trip",
        text("backend"),
        shown(&text("database")),
        if s["reachable"] == true {
            "reachable"
        } else {
            "unreachable"
        },
        s["schemaVersion"],
        s["latencyUs"],
    );
    if let Some(project) = s["project"].as_str() {
        println!(
            "project {} (shared by every daemon naming it)",
            shown(project)
        );
    }
    if let Some(main) = s["sharedWith"].as_str() {
        println!(
            "shared with the main worktree {} (every worktree of this repository)",
            shown(main)
        );
    }
    Ok(())
}

/// `wit store migrate`.
pub async fn migrate(ctx: &Ctx) -> CmdResult {
    let report = wit_daemon::migrate_to_shared_store(&ctx.repo.root)
        .await
        .map_err(crate::exit::Failure::other)?;
    if ctx.json {
        print_json(&json!(report));
        return Ok(());
    }
    match report.already_migrated_at {
        Some(at) => println!(
            "{} was copied into the PostgreSQL store {} (project {}) already, at {}: nothing copied",
            shown(&report.source),
            shown(&report.store),
            shown(&report.project),
            wit_core::protocol::iso8601_millis(at)
        ),
        None => {
            let counts: Vec<String> = report
                .copied
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(table, n)| format!("{n} {table}"))
                .collect();
            println!(
                "copied {} into the PostgreSQL store {} (project {}): {}",
                shown(&report.source),
                shown(&report.store),
                shown(&report.project),
                if counts.is_empty() {
                    "nothing to copy".to_owned()
                } else {
                    counts.join(", ")
                }
            );
            if report.events_left_out > 0 {
                println!(
                    "{} events left out: the project's event log was not empty",
                    report.events_left_out
                );
            }
            println!("restart the daemon with WIT_STORE_URL set to use it: wit daemon restart");
        }
    }
    Ok(())
}
