//! `wit conflicts`: the conflict forecast between the checkouts (git worktrees) of this
//! repository (`conflicts.forecast`), readable, or with `--json` the daemon's answer whole.

use std::path::Path;

use serde_json::{Value, json};

use crate::args::ConflictsArgs;
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::forecast::{Answer, checkouts_line, pending_text};
use crate::output::{Style, print_json, shown};

/// `--checkout`: a path (relative to the current directory, like every path on wit's
/// command line) when it names an existing directory, made the absolute root of the
/// checkout holding it, which is how the daemons name checkouts; otherwise a directory
/// name or a branch, passed as given. Only an argument that looks like a path (`/` in it,
/// or `.`/`..`) is tried as one, so a checkout named like a directory of the repository
/// (`--checkout src`) still means the checkout.
fn checkout_arg(arg: &str) -> CmdResult<String> {
    let looks_like_path = arg.contains('/') || arg == "." || arg == "..";
    let dir = Path::new(arg).canonicalize().ok().filter(|p| p.is_dir());
    let Some(dir) = dir.filter(|_| looks_like_path) else {
        return Ok(arg.to_owned());
    };
    // The checkout's root: the nearest directory holding `.git` (a directory in the main
    // worktree, a file in a linked one).
    let root = dir
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .unwrap_or(&dir);
    root.to_str().map(str::to_owned).ok_or_else(|| {
        Failure::Usage(format!(
            "{} is not a UTF-8 path",
            shown(&root.display().to_string())
        ))
    })
}

/// The daemon's parameters for the command line's filters: files relative to the current
/// directory made repository-relative, as every command does.
fn params(ctx: &Ctx, a: &ConflictsArgs) -> CmdResult<Value> {
    let given = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let mut p = json!({});
    if let Some(c) = given(&a.checkout) {
        p["checkout"] = json!(checkout_arg(&c)?);
    }
    if let Some(s) = given(&a.session) {
        p["sessionId"] = json!(s);
    }
    if let Some(s) = given(&a.symbol) {
        p["symbolPath"] = json!(ctx.repo.symbol_path(&s)?);
    }
    if let Some(f) = given(&a.file) {
        let rel = ctx.repo.relative(&f)?;
        if rel.is_empty() {
            return Err(Failure::Usage(format!(
                "{} is the repository root, not a file",
                shown(&f)
            )));
        }
        p["file"] = json!(rel);
    }
    Ok(p)
}

/// `wit conflicts`.
pub async fn run(ctx: &Ctx, a: ConflictsArgs) -> CmdResult {
    let params = params(ctx, &a)?;
    let filtered = params.as_object().is_some_and(|m| !m.is_empty());
    let file = params["file"].as_str().map(str::to_owned);
    let mut client = ctx.client().await?;
    let v: Value = call(
        &mut client,
        "conflicts.forecast",
        params,
        "the conflict forecast",
    )
    .await?;
    if ctx.json {
        print_json(&v);
    } else {
        print!(
            "{}{}",
            render(&Answer::parse(&v), file.as_deref(), filtered, &ctx.style),
            claims_lines(&crate::claims::each(&v, "claims"))
        );
    }
    Ok(())
}

/// The readable forecast: each collision in full, what other checkouts changed in `file`
/// (when one was asked about), then one line on the checkouts.
pub fn render(a: &Answer, file: Option<&str>, filtered: bool, style: &Style) -> String {
    let mut out = String::new();
    let n = a.forecasts.len();
    if n > 0 {
        out.push_str(&style.bold(&format!(
            "Conflict forecast: {n} collision{} between checkouts of this repository or \
             sessions of one checkout",
            if n == 1 { "" } else { "s" }
        )));
        out.push('\n');
        for f in &a.forecasts {
            out.push('\n');
            for line in f.lines(style) {
                out.push_str(&line);
                out.push('\n');
            }
        }
    } else if !a.has_other_checkouts() && !filtered {
        out.push_str(
            "No conflict forecast: no other checkout of this repository is live, and the \
             sessions working in this one do not collide (`wit claims` lists their \
             uncommitted changes).\n",
        );
    } else if filtered {
        out.push_str("No forecast collision matches.\n");
    } else {
        out.push_str(
            "No forecast collision: the uncommitted changes of the checkouts do not collide.\n",
        );
    }
    if let Some(file) = file {
        out.push('\n');
        if a.pending.is_empty() {
            out.push_str(&format!(
                "No other live checkout changed {}.\n",
                shown(file)
            ));
        } else {
            out.push_str(&format!(
                "{} in other checkouts (editing it here may collide):\n",
                style.bold(&format!("Changes to {file}"))
            ));
            for p in &a.pending {
                out.push_str(&format!("  {}\n", pending_text(p)));
            }
        }
    }
    if !a.checkouts.is_empty() {
        out.push('\n');
        out.push_str(&style.dim(&checkouts_line(a)));
        out.push('\n');
    }
    out
}

/// The uncommitted changes by session (claims) the answer lists, one line per session of
/// each checkout: what `wit claims` shows in full. Empty when there are none.
pub fn claims_lines(claims: &[crate::claims::Claim]) -> String {
    let mut by: std::collections::BTreeMap<(String, Option<String>), Vec<String>> =
        std::collections::BTreeMap::new();
    for c in claims {
        by.entry((c.checkout.clone(), c.session_id.clone()))
            .or_default()
            .push(format!("{} ({})", shown(&c.symbol_path), shown(&c.change)));
    }
    if by.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nUncommitted changes by session (details: wit claims):\n");
    for ((checkout, session), list) in by {
        out.push_str(&format!(
            "  {} in {}: {}\n",
            crate::claims::who(session.as_deref()),
            shown(crate::forecast::short(&checkout)),
            list.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_without_collisions_says_why() {
        let s = Style::plain();
        let alone = Answer::parse(&json!({"checkout": "/r", "forecasts": [], "checkouts": [
            {"path": "/r", "branch": "main", "state": "ready", "live": true, "self": true}]}));
        assert!(render(&alone, None, false, &s).contains("no other checkout"));
        let two = Answer::parse(&json!({"checkout": "/r", "forecasts": [], "checkouts": [
            {"path": "/r", "branch": "main", "state": "ready", "live": true, "self": true},
            {"path": "/w/b", "branch": "b", "state": "indexing", "live": true}]}));
        let out = render(&two, Some("src/a.ts"), true, &s);
        assert!(out.contains("No forecast collision matches."), "{out}");
        assert!(
            out.contains("No other live checkout changed src/a.ts."),
            "{out}"
        );
        assert!(
            out.contains("b (branch b): indexing (its code graph"),
            "{out}"
        );
    }

    #[test]
    fn claims_are_listed_by_session_and_escaped() {
        let claims: Vec<crate::claims::Claim> = crate::claims::each(
            &json!({"claims": [
                {"checkout": "/r/main", "symbolPath": "a.ts:f", "sessionId": "agent-a", "change": "body"},
                {"checkout": "/r/main", "symbolPath": "a.ts:g\u{1b}", "sessionId": "agent-a", "change": "added"},
                {"checkout": "/r/main", "symbolPath": "b.ts:h", "sessionId": null, "change": "body"},
            ]}),
            "claims",
        );
        let out = claims_lines(&claims);
        assert!(
            out.contains("  agent-a in main: a.ts:f (body), a.ts:g\\u{1b} (added)\n"),
            "{out}"
        );
        assert!(out.contains("an edit outside any agent session"), "{out}");
        assert_eq!(claims_lines(&[]), "");
    }

    #[test]
    fn a_checkout_path_is_its_root_and_a_name_is_kept() {
        assert_eq!(checkout_arg("wt-b").unwrap(), "wt-b");
        assert_eq!(checkout_arg("feature/x").unwrap(), "feature/x");
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("wt/src")).unwrap();
        std::fs::write(root.join("wt/.git"), "gitdir: /elsewhere\n").unwrap();
        let arg = format!("{}/wt/src/", root.display());
        assert_eq!(
            checkout_arg(&arg).unwrap(),
            root.join("wt").to_str().unwrap()
        );
    }
}
