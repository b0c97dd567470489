//! Claims (uncommitted changes of a checkout, by the session that made them) as wit shows
//! them: the daemon's answers read leniently, and the sentences the edit-time guard,
//! `wit claims`, `wit status` and `wit watch` print. In a module of its own, below all of
//! them, so that none has to import another.
//!
//! Every string in a claim was chosen by a repository (file and symbol names, the diff of
//! its code) or another agent (session ids): everything is escaped before it reaches a
//! terminal or a model, and an element that does not read is skipped.

use serde::Deserialize;
use serde_json::Value;

use crate::forecast::{Forecast, short};
use crate::output::{Style, ago, shown, truncate};

/// One claim, as `claims.query`, `claims.check` and `conflicts.forecast` give it.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Claim {
    /// The checkout (its root path).
    pub checkout: String,
    /// The file.
    pub file: String,
    /// `file:name` of the definition.
    pub symbol_path: String,
    /// `function`, `method`, `class`, …
    pub kind: String,
    /// The session whose change it is; `None` for a change no agent's hook announced.
    pub session_id: Option<String>,
    /// How the definition differs from HEAD: `body`, `signature`, `added`, `removed`,
    /// `renamed`.
    pub change: String,
    /// Its signature at HEAD.
    pub before: Option<String>,
    /// Its signature as the session left it.
    pub after: Option<String>,
    /// One-based line where it starts.
    pub line: Option<i64>,
    /// Unix ms of the session's first edit of it.
    pub since: Option<i64>,
    /// Unix ms of the session's last edit of it.
    pub edited_at: Option<i64>,
    /// A short diff, HEAD's version to the session's.
    pub diff: String,
    /// `claims.check` only: whether the edit would undo this change.
    pub undoes: bool,
}

/// What `claims.check` found for one file.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct FileCheck {
    /// The file.
    pub file: String,
    /// Other sessions' claims the edit runs into.
    pub hits: Vec<Claim>,
    /// Signature-vs-callers collisions the edit would make.
    pub collisions: Vec<Forecast>,
}

/// Each element of `v[key]` that reads as `T`; the others are skipped.
pub fn each<T: serde::de::DeserializeOwned>(v: &Value, key: &str) -> Vec<T> {
    v[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| serde_json::from_value(e.clone()).ok())
        .collect()
}

/// Who made a claim, for sentences: the session, or what an unattributed change is.
pub fn who(session: Option<&str>) -> String {
    match session {
        Some(s) => shown(s).into_owned(),
        None => "an edit outside any agent session (a shell command, a generator or a person's \
                 editor)"
            .to_owned(),
    }
}

/// `changed the body of src/p.ts:price`, `changed the signature of …: (n) → (n, r)`,
/// `added …`, `removed …`, `renamed …`. Escaped.
pub fn change_text(c: &Claim) -> String {
    let sym = shown(&c.symbol_path);
    match c.change.as_str() {
        "signature" => format!(
            "changed the signature of {sym}: {} → {}",
            shown(c.before.as_deref().unwrap_or("?")),
            shown(c.after.as_deref().unwrap_or("?"))
        ),
        "body" => format!("changed the body of {sym}"),
        "added" => format!("added {sym}"),
        "removed" => format!("removed {sym}"),
        "renamed" => format!("renamed {sym}"),
        other => format!("{} {sym}", shown(other)),
    }
}

/// `claude-a changed the body of src/p.ts:price 3 min ago`: who, what, since when.
fn headline(c: &Claim) -> String {
    format!(
        "{} {}{}",
        who(c.session_id.as_deref()),
        change_text(c),
        since(c)
    )
}

/// ` 3 min ago`, from the claim's first edit.
fn since(c: &Claim) -> String {
    c.since.map(|s| format!(" {}", ago(s))).unwrap_or_default()
}

/// The diff, indented, each line escaped.
fn diff_block(c: &Claim) -> String {
    c.diff
        .lines()
        .map(|l| format!("    {}\n", shown(l)))
        .collect()
}

/// The guard's warning for an edit that changes definitions other sessions changed and
/// have not committed, and the collisions with their signature changes; `None` when
/// there is neither.
pub fn warning(hits: &[&Claim], collisions: &[&Forecast]) -> Option<String> {
    if hits.is_empty() && collisions.is_empty() {
        return None;
    }
    let mut text = String::new();
    for c in hits {
        text.push_str(&format!(
            "wit guard: {} (uncommitted):\n{}",
            headline(c),
            diff_block(c)
        ));
    }
    if !hits.is_empty() {
        let names: Vec<String> = hits.iter().map(|c| who(c.session_id.as_deref())).collect();
        text.push_str(&format!(
            "Your edit changes that code too: keep their change (it is in the file now), and \
             tell {} what you are doing if it affects their work. `wit claims` lists every \
             uncommitted change by session. The edit is allowed.\n",
            names.first().map(String::as_str).unwrap_or("them")
        ));
    }
    for f in collisions {
        text.push_str(&format!(
            "wit guard: {} — {}: call it as it is now, or coordinate with that session \
             (`wit conflicts`). The edit is allowed.\n",
            shown(&f.kind),
            shown(&f.summary)
        ));
    }
    Some(text.trim_end().to_owned())
}

/// The guard's refusal of an edit that would undo other sessions' uncommitted changes
/// (`undone`), or, under `[guard] claimed = "refuse"`, change code they changed
/// (`claimed`).
pub fn refusal(undone: &[&Claim], claimed: &[&Claim]) -> String {
    let mut text = String::new();
    if !undone.is_empty() {
        text.push_str(
            "wit guard: refused: this edit would undo another session's uncommitted change:\n",
        );
        for c in undone {
            text.push_str(&format!("  {}:\n{}", headline(c), diff_block(c)));
        }
        let first = undone[0];
        text.push_str(&format!(
            "The edit writes back the code as it was before that change, as a write made from \
             an earlier read of the file does: their work would be lost. Read {} again and make \
             your change on its current content (edit the part you mean to change rather than \
             writing the whole file). If undoing their change is really meant, agree on it with \
             {}: once they revert it, commit it or end their session, the edit goes through.",
            shown(&first.file),
            who(first.session_id.as_deref())
        ));
    } else {
        text.push_str(
            "wit guard: refused: this edit changes code another session changed and has not \
             committed (wit.toml sets [guard] claimed = \"refuse\"):\n",
        );
        for c in claimed {
            text.push_str(&format!("  {}:\n{}", headline(c), diff_block(c)));
        }
        text.push_str(
            "Coordinate with them first: work on something else until they commit, or ask them \
             to; `wit claims` lists every uncommitted change by session.",
        );
    }
    text
}

/// The rows of `wit status`'s and `wit claims`' table: session, definition, change,
/// since, checkout (when `checkouts`).
pub fn rows(
    claims: &[Claim],
    me: Option<&str>,
    style: &Style,
    checkouts: bool,
) -> Vec<Vec<crate::output::Cell>> {
    use crate::output::{Cell, session_cell};
    claims
        .iter()
        .map(|c| {
            let session = match &c.session_id {
                Some(s) => session_cell(s, me, style),
                None => Cell::styled("(unattributed)", |t| style.dim(t)),
            };
            let change = match (c.change.as_str(), &c.before, &c.after) {
                ("signature", Some(b), Some(a)) => truncate(&format!("signature {b} → {a}"), 60),
                (other, _, _) => other.to_owned(),
            };
            let mut row = vec![
                session,
                Cell::plain(c.symbol_path.clone()),
                Cell::plain(change),
                Cell::plain(c.since.map(ago).unwrap_or_default()),
            ];
            if checkouts {
                row.push(Cell::plain(short(&c.checkout).to_owned()));
            }
            row
        })
        .collect()
}

/// `claim.appeared` / `claim.cleared` event data as one line for `wit watch` and `wit
/// events`: `agent-a changed the body of src/p.ts:price` / `… no longer claimed
/// (committed)`.
pub fn event_line(kind: &str, data: &Value) -> Option<String> {
    let c: Claim = serde_json::from_value(data.clone()).ok()?;
    let who = match c.session_id.as_deref() {
        Some(s) => shown(s).into_owned(),
        None => "an unattributed edit".to_owned(),
    };
    match kind {
        "claim.appeared" => Some(format!("{who} {} (uncommitted)", change_text(&c))),
        "claim.cleared" => Some(format!(
            "{} no longer claimed by {who} ({})",
            shown(&c.symbol_path),
            shown(data["reason"].as_str().unwrap_or("ended"))
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claim() -> Claim {
        serde_json::from_value(json!({
            "checkout": "/r/main", "file": "src/p.ts", "symbolPath": "src/p.ts:price",
            "kind": "function", "sessionId": "agent-a", "change": "body", "line": 1,
            "since": 1, "editedAt": 2, "diff": "-  return n * 2;\n+  return n * 3;\u{1b}[2J",
            "undoes": true,
        }))
        .unwrap()
    }

    #[test]
    fn a_refusal_names_the_session_the_symbol_and_the_diff_and_says_to_read_again() {
        let c = claim();
        let text = refusal(&[&c], &[]);
        assert!(
            text.contains("would undo another session's uncommitted change"),
            "{text}"
        );
        assert!(
            text.contains("agent-a changed the body of src/p.ts:price"),
            "{text}"
        );
        assert!(text.contains("-  return n * 2;"), "{text}");
        assert!(text.contains("Read src/p.ts again"), "{text}");
        assert!(!text.contains('\u{1b}'), "escaped: {text:?}");
    }

    #[test]
    fn a_warning_for_an_unattributed_change_says_what_made_it() {
        let mut c = claim();
        c.session_id = None;
        let text = warning(&[&c], &[]).unwrap();
        assert!(
            text.starts_with("wit guard: an edit outside any agent session"),
            "{text}"
        );
        assert!(text.contains("The edit is allowed."), "{text}");
        assert_eq!(warning(&[], &[]), None);
    }

    #[test]
    fn events_read_as_lines_and_odd_data_is_skipped() {
        let appeared = json!({"symbolPath": "src/p.ts:price", "sessionId": "agent-a", "change": "signature",
                              "before": "(n)", "after": "(n, r)"});
        assert_eq!(
            event_line("claim.appeared", &appeared).unwrap(),
            "agent-a changed the signature of src/p.ts:price: (n) → (n, r) (uncommitted)"
        );
        let cleared =
            json!({"symbolPath": "src/p.ts:price", "sessionId": null, "reason": "committed"});
        assert_eq!(
            event_line("claim.cleared", &cleared).unwrap(),
            "src/p.ts:price no longer claimed by an unattributed edit (committed)"
        );
        assert_eq!(event_line("claim.appeared", &json!(7)), None);
    }
}
