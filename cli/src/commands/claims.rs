//! `wit claims`: the uncommitted changes of the checkouts by the session that made them
//! (`claims.query`), as a table, with `--diff` each change, or with `--json` the
//! daemon's answer whole.

use serde_json::{Value, json};

use crate::args::ClaimsArgs;
use crate::claims::{Claim, change_text, each, who};
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::output::{Style, ago, print_json, shown, table};

/// `wit claims`.
pub async fn run(ctx: &Ctx, a: ClaimsArgs) -> CmdResult {
    let mut params = json!({});
    if let Some(s) = &a.session {
        params["sessionId"] = json!(s.trim());
    }
    if let Some(c) = a
        .checkout
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        params["checkout"] = json!(c);
    }
    if let Some(f) = a.file.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        let rel = ctx.repo.relative(f)?;
        if rel.is_empty() {
            return Err(Failure::Usage(format!(
                "{} is the repository root, not a file",
                shown(f)
            )));
        }
        params["file"] = json!(rel);
    }
    let mut client = ctx.client().await?;
    let v: Value = call(&mut client, "claims.query", params, "the claims").await?;
    if ctx.json {
        print_json(&v);
        return Ok(());
    }
    let me = crate::session::Session::lookup(&ctx.repo).map(|s| s.id);
    print!(
        "{}",
        render(&each(&v, "claims"), me.as_deref(), a.diff, &ctx.style)
    );
    Ok(())
}

/// The table (checkout column when there are several), then with `diff` each change.
pub fn render(claims: &[Claim], me: Option<&str>, diff: bool, style: &Style) -> String {
    if claims.is_empty() {
        return "No uncommitted change is claimed: either nothing differs from HEAD, or no \
                agent's edit and no change seen by the daemon's file watcher made one since \
                the last commit.\n"
            .to_owned();
    }
    let several = claims.windows(2).any(|w| w[0].checkout != w[1].checkout);
    let mut header = vec!["SESSION", "DEFINITION", "CHANGE", "SINCE"];
    if several {
        header.push("CHECKOUT");
    }
    let mut out = table(
        style,
        &header,
        crate::claims::rows(claims, me, style, several),
    );
    if diff {
        for c in claims {
            out.push_str(&format!(
                "\n{} {}{}:\n",
                who(c.session_id.as_deref()),
                change_text(c),
                c.edited_at
                    .map(|t| format!(", last edited {}", ago(t)))
                    .unwrap_or_default()
            ));
            for line in c.diff.lines() {
                out.push_str(&format!("    {}\n", shown(line)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_read_as_a_table_and_diffs_escaped() {
        let claims: Vec<Claim> = each(
            &json!({"claims": [
                {"checkout": "/r", "file": "a.ts", "symbolPath": "a.ts:f", "sessionId": "agent-a",
                 "change": "body", "since": 1, "editedAt": 2, "diff": "-x\n+y\u{1b}[2J"},
                {"checkout": "/r", "file": "a.ts", "symbolPath": "a.ts:g", "sessionId": null,
                 "change": "added", "since": 1, "diff": "+z"},
            ]}),
            "claims",
        );
        let out = render(&claims, Some("agent-a"), true, &Style::plain());
        assert!(out.contains("a.ts:f"), "{out}");
        assert!(out.contains("(unattributed)"), "{out}");
        assert!(out.contains("agent-a changed the body of a.ts:f"), "{out}");
        assert!(out.contains("+y\\u{1b}[2J"), "{out}");
        assert!(!out.contains("CHECKOUT"), "one checkout: no column");
        assert!(render(&[], None, false, &Style::plain()).starts_with("No uncommitted change"));
    }
}
