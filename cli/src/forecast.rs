//! The conflict forecast (`conflicts.forecast`) as wit shows it: the daemon's answer read
//! leniently, and the sentences `wit conflicts`, `wit status`, `wit watch`, the MCP tool
//! `wit_conflicts` and the edit-time guard print from it. In a module of its own, below
//! all of them, so that none has to import another.
//!
//! The answer comes from a daemon that may be older or newer than this CLI, and every
//! string in it was chosen by a repository (file and symbol names) or another agent
//! (session ids, branch names): an element that does not read is skipped rather than
//! failing the command, a missing field is left out of the sentence, and everything is
//! escaped before it reaches a terminal or a model.

use serde::Deserialize;
use serde_json::Value;

use crate::output::{Style, ago, shown, truncate};

/// A `conflicts.forecast` answer.
#[derive(Debug, Default)]
pub struct Answer {
    /// The standing forecasts the filters kept.
    pub forecasts: Vec<Forecast>,
    /// Every checkout the daemons know of.
    pub checkouts: Vec<Checkout>,
    /// With `file`: what the other live checkouts changed in it.
    pub pending: Vec<Pending>,
}

/// One forecast collision between two checkouts.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Forecast {
    /// Stable while the collision stands.
    pub id: String,
    /// `same-symbol`, `signature-vs-callers` or `textual`.
    pub kind: String,
    /// The `file:name`s involved (the file, for a textual one).
    pub symbol_paths: Vec<String>,
    /// What each checkout did.
    pub sides: Vec<Side>,
    /// For `signature-vs-callers`: each hop from the caller to the changed definition.
    pub chain: Vec<Hop>,
    /// The daemon's one-sentence account.
    pub summary: String,
    /// Unix ms when it appeared.
    pub since: Option<i64>,
}

/// One checkout's part in a forecast.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Side {
    /// The checkout's root path.
    pub checkout: String,
    /// Between two sessions of one checkout: this side's session (`""`: a change no
    /// agent's hook announced).
    pub session: Option<String>,
    /// Its branch (`None`: a detached HEAD, or not said).
    pub branch: Option<String>,
    /// Sessions working there.
    pub sessions: Vec<String>,
    /// Whether it is the answering daemon's checkout.
    #[serde(rename = "self")]
    pub is_self: bool,
    /// The definition it changed, or calls from.
    pub symbol_path: String,
    /// `added`, `removed`, `body`, `signature`, `renamed`, `calls`, `modified`, `deleted`.
    pub change: String,
    /// The signature at the merge base.
    pub before: Option<String>,
    /// The signature in this checkout.
    pub after: Option<String>,
    /// One-based line in this checkout's version.
    pub line: Option<i64>,
}

/// One hop of a call chain.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Hop {
    /// The definition.
    pub symbol_path: String,
    /// The checkout whose version it is.
    pub checkout: String,
    /// Between sessions of one checkout: the session whose version it is.
    pub session: Option<String>,
    /// The line of its call of the next hop.
    pub line: Option<i64>,
}

/// A checkout (git worktree) sharing this state.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Checkout {
    /// Its root path.
    pub path: String,
    /// Its branch (`None`: detached).
    pub branch: Option<String>,
    /// `ready`, `indexing`, `rebasing`, `merging`, `no-commit`, `not-git`,
    /// `too-many-changes`.
    pub state: String,
    /// Whether its daemon was heard from lately.
    pub live: bool,
    /// Files it changed against a merge base.
    pub changed_files: Option<i64>,
    /// Sessions working there.
    pub sessions: Vec<String>,
    /// Whether it is the answering daemon's checkout.
    #[serde(rename = "self")]
    pub is_self: bool,
}

/// What another checkout changed in the file asked about.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Pending {
    /// Its root path.
    pub checkout: String,
    /// Its branch.
    pub branch: Option<String>,
    /// Sessions working there.
    pub sessions: Vec<String>,
    /// The file (repository-relative).
    pub file: String,
    /// How it changed.
    pub change: PendingChange,
}

/// How a file changed in another checkout.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PendingChange {
    /// `symbols` (an analysed file), `text` or `uncompared`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The changed definitions (`symbols`; empty: only text outside them changed).
    pub symbols: Vec<PendingSymbol>,
    /// `text`: its new content's blob (`None`: the checkout deleted it).
    pub blob: Option<String>,
    /// `text`: why an analysed language was compared as text.
    pub note: Option<String>,
    /// `uncompared`: why the forecast could not compare it (too large, …).
    pub why: Option<String>,
}

/// One changed definition of a pending file.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PendingSymbol {
    /// Its address in the file (`price`, `Cart.total`).
    pub name: String,
    /// How it changed (`body`, `signature`, `added`, `removed`, `renamed`).
    pub change: String,
    /// For a renamed one: its name at the base.
    pub from: Option<String>,
    /// Its signature at the base.
    pub before: Option<String>,
    /// Its signature now.
    pub after: Option<String>,
    /// One-based line where it starts.
    pub line: Option<i64>,
}

/// Each element of `v[key]` that reads as `T`; the others are skipped.
fn each<T: serde::de::DeserializeOwned>(v: &Value, key: &str) -> Vec<T> {
    v[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| serde_json::from_value(e.clone()).ok())
        .collect()
}

impl Answer {
    /// Reads an answer; never fails (what does not read is left out).
    pub fn parse(v: &Value) -> Answer {
        Answer {
            forecasts: each(v, "forecasts"),
            checkouts: each(v, "checkouts"),
            pending: each(v, "pending"),
        }
    }

    /// Whether a checkout other than the answering one is live: then the forecast is
    /// worth a section of `wit status` even when nothing collides.
    pub fn has_other_checkouts(&self) -> bool {
        self.checkouts.iter().any(|c| c.live && !c.is_self)
    }
}

/// A checkout's directory name: how wit names it to people (`/tmp/fx/wt-b` → `wt-b`).
pub fn short(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(path)
}

/// `wt-b (branch wt-b, agent-b, this checkout)`: a checkout with its branch, its sessions
/// and whether it is the caller's. Escaped.
pub fn who(path: &str, branch: Option<&str>, sessions: &[String], is_self: bool) -> String {
    let mut parts = vec![match branch {
        Some(b) => format!("branch {}", shown(b)),
        None => "detached HEAD".to_owned(),
    }];
    if !sessions.is_empty() {
        let list: Vec<String> = sessions.iter().map(|s| shown(s).into_owned()).collect();
        parts.push(list.join(", "));
    }
    if is_self {
        parts.push("this checkout".to_owned());
    }
    format!("{} ({})", shown(short(path)), parts.join(", "))
}

/// `, line 3` when the line is known.
fn at_line(line: Option<i64>) -> String {
    line.map(|l| format!(", line {l}")).unwrap_or_default()
}

/// `(n: number): number → (n: number, rate: number): number`, or `?` for a side unknown.
fn before_after(before: Option<&str>, after: Option<&str>) -> String {
    format!(
        "{} → {}",
        shown(before.unwrap_or("?")),
        shown(after.unwrap_or("?"))
    )
}

/// What one side did, as a clause: `changed the signature of src/p.ts:price: (n) → (n, r)
/// (line 1)`. `callee` names what a `calls` side calls. Escaped.
fn action(side: &Side, callee: Option<&str>) -> String {
    let sym = shown(&side.symbol_path);
    let at = side
        .line
        .map(|l| format!(" (line {l})"))
        .unwrap_or_default();
    match side.change.as_str() {
        "signature" => format!(
            "changed the signature of {sym}: {}{at}",
            before_after(side.before.as_deref(), side.after.as_deref())
        ),
        "body" => format!("changed the body of {sym}{at}"),
        "added" => format!("added {sym}{at}"),
        "removed" => format!("removed {sym}"),
        "renamed" => format!("renamed {sym}{at}"),
        "calls" => format!(
            "changed or added code in {sym} calls {}{at}",
            shown(callee.unwrap_or("it"))
        ),
        "modified" => format!("modified {sym} (git cannot merge it with the other side's)"),
        "deleted" => format!("deleted {sym}"),
        other => format!("{} {sym}{at}", shown(other)),
    }
}

/// How a session side is named: the session, or `unattributed` for a change no agent's
/// hook announced.
fn session_name(session: &str) -> &str {
    if session.is_empty() {
        "unattributed"
    } else {
        session
    }
}

/// The call chain, hop by hop: `src/c.ts:pay (wt-b, line 3) → src/p.ts:price (main)`.
fn chain_text(chain: &[Hop]) -> String {
    let hops: Vec<String> = chain
        .iter()
        .map(|h| {
            let mut place = match &h.session {
                Some(s) => shown(session_name(s)).into_owned(),
                None => shown(short(&h.checkout)).into_owned(),
            };
            if let Some(l) = h.line {
                place.push_str(&format!(", line {l}"));
            }
            format!("{} ({place})", shown(&h.symbol_path))
        })
        .collect();
    hops.join(" → ")
}

impl Forecast {
    /// `src/checkout.ts:pay, src/pricing.ts:price` (escaped).
    pub fn symbols(&self) -> String {
        let list: Vec<String> = self
            .symbol_paths
            .iter()
            .map(|p| shown(p).into_owned())
            .collect();
        list.join(", ")
    }

    /// Whether it is a collision between two sessions of one checkout (their claims),
    /// not between two checkouts.
    pub fn between_sessions(&self) -> bool {
        self.sides.iter().any(|s| s.session.is_some())
    }

    /// `main ↔ wt-b (this checkout)`: the two checkouts by directory name; between two
    /// sessions of one checkout, `agent-a ↔ agent-b (in main)`.
    pub fn between(&self) -> String {
        if self.between_sessions() {
            let names: Vec<String> = self
                .sides
                .iter()
                .map(|s| shown(session_name(s.session.as_deref().unwrap_or(""))).into_owned())
                .collect();
            let place = self
                .sides
                .first()
                .map(|s| shown(short(&s.checkout)).into_owned())
                .unwrap_or_default();
            return format!("{} (in {place})", names.join(" ↔ "));
        }
        let names: Vec<String> = self
            .sides
            .iter()
            .map(|s| {
                let name = shown(short(&s.checkout)).into_owned();
                if s.is_self {
                    format!("{name} (this checkout)")
                } else {
                    name
                }
            })
            .collect();
        names.join(" ↔ ")
    }

    /// The forecast in full, for `wit conflicts`: the kind and symbols, one line per side
    /// (who: what), the call chain, the summary, its id and age. Each line escaped.
    pub fn lines(&self, style: &Style) -> Vec<String> {
        let kind = if self.kind == "signature-vs-callers" {
            style.red(&self.kind)
        } else {
            style.yellow(&self.kind)
        };
        let mut out = vec![format!("{kind}  {}", style.bold(&self.symbols()))];
        for (i, side) in self.sides.iter().enumerate() {
            // A caller's side calls what the other side changed.
            let callee = match self.sides.len() {
                2 => self.sides.get(1 - i).map(|o| o.symbol_path.as_str()),
                _ => None,
            };
            let name = match &side.session {
                Some(s) => format!(
                    "{} (session in {})",
                    shown(session_name(s)),
                    shown(short(&side.checkout))
                ),
                None => who(
                    &side.checkout,
                    side.branch.as_deref(),
                    &side.sessions,
                    side.is_self,
                ),
            };
            out.push(format!("  {name}: {}", action(side, callee)));
        }
        if !self.chain.is_empty() {
            out.push(format!("  call chain: {}", chain_text(&self.chain)));
        }
        if !self.summary.is_empty() {
            out.push(format!("  {}", shown(&self.summary)));
        }
        let mut tail = format!("id {}", shown(&self.id));
        if let Some(since) = self.since {
            tail.push_str(&format!(" · appeared {}", ago(since)));
        }
        out.push(format!("  {}", style.dim(&tail)));
        out
    }
}

/// Why a checkout in `state` is not compared (or not fully), for the reader.
pub fn state_note(state: &str) -> Option<&'static str> {
    match state {
        "ready" => None,
        "indexing" => Some("its code graph is still being built: calls may be missed"),
        "rebasing" => Some("a rebase is under way: its changes are left out until it ends"),
        "merging" => Some("a merge is under way: its changes are left out until it ends"),
        "no-commit" => Some("no commit yet: nothing to compare with"),
        "not-git" => Some("not a git checkout: nothing to compare with"),
        "too-many-changes" => Some(
            "more files changed against the merge base than the forecast compares: not \
             compared until fewer",
        ),
        _ => Some("state unknown to this wit"),
    }
}

/// One checkout in a line: `wt-b (branch wt-b, agent-b, this checkout): ready, 1 changed
/// file`, with its state explained when it is not ready, or that it went silent.
pub fn checkout_text(c: &Checkout) -> String {
    let mut s = format!(
        "{}: {}",
        who(&c.path, c.branch.as_deref(), &c.sessions, c.is_self),
        shown(&c.state)
    );
    if let Some(note) = state_note(&c.state) {
        s.push_str(&format!(" ({note})"));
    }
    if let Some(n) = c.changed_files {
        s.push_str(&format!(
            ", {n} changed file{}",
            if n == 1 { "" } else { "s" }
        ));
    }
    if !c.live {
        s.push_str(" — silent (its daemon stopped?), not compared");
    }
    s
}

/// What another checkout changed in a file, as one clause: `wt-b (branch wt-b, agent-b)
/// changed src/pricing.ts:price (signature (n) → (n, rate), line 1)`. Escaped.
pub fn pending_text(p: &Pending) -> String {
    let who = who(&p.checkout, p.branch.as_deref(), &p.sessions, false);
    let file = shown(&p.file);
    match p.change.kind.as_str() {
        "symbols" if p.change.symbols.is_empty() => {
            format!("{who} changed {file} outside its definitions (imports, comments)")
        }
        "symbols" => {
            let parts: Vec<String> = p
                .change
                .symbols
                .iter()
                .map(|s| {
                    let what = match s.change.as_str() {
                        "signature" => format!(
                            "signature {}",
                            before_after(s.before.as_deref(), s.after.as_deref())
                        ),
                        "renamed" => match &s.from {
                            Some(from) => format!("renamed from {}", shown(from)),
                            None => "renamed".to_owned(),
                        },
                        other => shown(other).into_owned(),
                    };
                    format!("{file}:{} ({what}{})", shown(&s.name), at_line(s.line))
                })
                .collect();
            format!("{who} changed {}", parts.join(", "))
        }
        "uncompared" => format!(
            "{who} changed {file} (not compared: {})",
            shown(p.change.why.as_deref().unwrap_or("unknown"))
        ),
        _ if p.change.blob.is_none() => format!("{who} deleted {file}"),
        _ => {
            let note = p
                .change
                .note
                .as_deref()
                .map(|n| format!(": {}", shown(n)))
                .unwrap_or_default();
            format!("{who} changed {file} (compared as text{note})")
        }
    }
}

/// The edit-time guard's warning for an edit of `file`, from a `conflicts.forecast
/// {file}` answer: what other checkouts changed in it and the forecasts touching it;
/// `None` when there is neither. One line, escaped.
pub fn edit_warning(answer: &Answer, file: &str) -> Option<String> {
    /// Most clauses named; the rest are counted (`wit conflicts` lists them all).
    const MAX: usize = 4;
    let mut clauses: Vec<String> = answer.pending.iter().map(pending_text).collect();
    clauses.extend(
        answer
            .forecasts
            .iter()
            // Collisions between sessions of this checkout: the claims check says what
            // of them this very edit runs into.
            .filter(|f| !f.summary.is_empty() && !f.between_sessions())
            .map(|f| format!("forecast {}: {}", shown(&f.kind), shown(&f.summary))),
    );
    if clauses.is_empty() {
        return None;
    }
    let more = clauses.len().saturating_sub(MAX);
    clauses.truncate(MAX);
    let mut text = format!("wit guard: {}", clauses.join("; "));
    if more > 0 {
        text.push_str(&format!("; and {more} more"));
    }
    text.push_str(&format!(
        " — editing {} may collide with that work; coordinate with them, and run `wit \
         conflicts` for the details (the edit is allowed)",
        shown(file)
    ));
    Some(text)
}

/// The rows of `wit status`'s forecast section: kind, between, summary (which names the
/// symbols). Every cell is escaped by the table.
pub fn status_rows(answer: &Answer, style: &Style) -> Vec<Vec<crate::output::Cell>> {
    use crate::output::Cell;
    answer
        .forecasts
        .iter()
        .map(|f| {
            vec![
                Cell::styled(&f.kind, |t| style.yellow(t)),
                Cell::plain(f.between()),
                Cell::plain(truncate(&f.summary, 120)),
            ]
        })
        .collect()
}

/// `checkouts: main (branch main): ready, 3 changed files · wt-b (…): indexing (…)`.
pub fn checkouts_line(answer: &Answer) -> String {
    let list: Vec<String> = answer.checkouts.iter().map(checkout_text).collect();
    format!("checkouts: {}", list.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn example() -> Value {
        json!({
            "checkout": "/tmp/fx/wt-b",
            "checkouts": [
                {"path": "/tmp/fx/main", "branch": "master", "state": "ready", "live": true,
                 "changedFiles": 1, "sessions": [], "self": false},
                {"path": "/tmp/fx/wt-b", "branch": "wt-b", "state": "rebasing", "live": true,
                 "changedFiles": 2, "sessions": ["agent-b"], "self": true},
            ],
            "forecasts": [{
                "id": "04251fc47faace7a", "kind": "signature-vs-callers",
                "symbolPaths": ["src/checkout.ts:pay", "src/pricing.ts:price"],
                "sides": [
                    {"checkout": "/tmp/fx/main", "branch": "master", "sessions": [],
                     "self": false, "symbolPath": "src/pricing.ts:price", "change": "signature",
                     "before": "(n: number): number", "after": "(n: number, rate: number): number",
                     "line": 1},
                    {"checkout": "/tmp/fx/wt-b", "branch": "wt-b", "sessions": ["agent-b"],
                     "self": true, "symbolPath": "src/checkout.ts:pay", "change": "calls", "line": 3},
                ],
                "chain": [
                    {"symbolPath": "src/checkout.ts:pay", "checkout": "/tmp/fx/wt-b", "line": 3},
                    {"symbolPath": "src/pricing.ts:price", "checkout": "/tmp/fx/main"},
                ],
                "summary": "main changes src/pricing.ts:price and wt-b's new pay calls it",
                "since": 1_796_496_775_925_i64,
            }],
            "pending": [{
                "checkout": "/tmp/fx/main", "branch": "master", "sessions": ["agent-a"],
                "file": "src/pricing.ts",
                "change": {"type": "symbols", "symbols": [
                    {"name": "price", "kind": "function", "change": "signature",
                     "before": "(n)", "after": "(n, rate)", "line": 1}
                ]},
            }],
        })
    }

    #[test]
    fn a_forecast_reads_with_both_sides_the_chain_and_the_summary() {
        let a = Answer::parse(&example());
        let lines = a.forecasts[0].lines(&Style::plain()).join("\n");
        assert!(
            lines.starts_with("signature-vs-callers  src/checkout.ts:pay, src/pricing.ts:price"),
            "{lines}"
        );
        assert!(
            lines.contains(
                "main (branch master): changed the signature of src/pricing.ts:price: \
                 (n: number): number → (n: number, rate: number): number (line 1)"
            ),
            "{lines}"
        );
        assert!(
            lines.contains(
                "wt-b (branch wt-b, agent-b, this checkout): changed or added code in \
                 src/checkout.ts:pay calls src/pricing.ts:price (line 3)"
            ),
            "{lines}"
        );
        assert!(
            lines.contains(
                "call chain: src/checkout.ts:pay (wt-b, line 3) → src/pricing.ts:price (main)"
            ),
            "{lines}"
        );
        assert!(lines.contains("id 04251fc47faace7a"), "{lines}");
        assert_eq!(a.forecasts[0].between(), "main ↔ wt-b (this checkout)");
        let line = checkouts_line(&a);
        assert!(
            line.contains("main (branch master): ready, 1 changed file ·"),
            "{line}"
        );
        assert!(line.contains("rebasing (a rebase is under way"), "{line}");
        assert!(a.has_other_checkouts());
    }

    #[test]
    fn the_guard_warning_names_the_checkout_its_branch_sessions_and_symbols() {
        let a = Answer::parse(&example());
        let w = edit_warning(&a, "src/pricing.ts").unwrap();
        assert!(
            w.starts_with(
                "wit guard: main (branch master, agent-a) changed src/pricing.ts:price \
                 (signature (n) → (n, rate), line 1); forecast signature-vs-callers: "
            ),
            "{w}"
        );
        assert!(w.contains("`wit conflicts`"), "{w}");
        assert_eq!(edit_warning(&Answer::default(), "src/a.ts"), None);
        let text = Pending {
            checkout: "/r/wt".into(),
            branch: None,
            file: "notes.txt".into(),
            change: PendingChange {
                kind: "text".into(),
                blob: Some("abc".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(
            pending_text(&text),
            "wt (detached HEAD) changed notes.txt (compared as text)"
        );
    }

    #[test]
    fn odd_answers_are_read_without_panicking_and_names_are_escaped() {
        // Missing fields, wrong types, an element that does not read: skipped or left out.
        let a = Answer::parse(&json!({
            "forecasts": [
                {"kind": "same-symbol", "sides": [{"checkout": "/r/x\u{1b}[2J"}]},
                {"kind": 7},
                "nonsense",
            ],
            "checkouts": [{"path": "/r/x"}, {"path": 1}],
            "pending": [{"file": "a\u{7}.ts", "change": {"type": "symbols",
                         "symbols": [{"name": "f\u{1b}"}]}}],
        }));
        assert_eq!(a.forecasts.len(), 1);
        assert_eq!(a.checkouts.len(), 1);
        let all = [
            a.forecasts[0].lines(&Style::plain()).join("\n"),
            checkouts_line(&a),
            edit_warning(&a, "a\u{7}.ts").unwrap(),
        ]
        .join("\n");
        assert!(!all.chars().any(|c| c.is_control() && c != '\n'), "{all:?}");
        assert!(all.contains("x\\u{1b}[2J"), "{all}");
        let _ = Answer::parse(&json!(null));
        let _ = Answer::parse(&json!([1, 2]));
    }
}
