//! `wit store status`: which store holds the coordination state (`store.status`).

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
    if let Some(main) = s["sharedWith"].as_str() {
        println!(
            "shared with the main worktree {} (every worktree of this repository)",
            shown(main)
        );
    }
    Ok(())
}
