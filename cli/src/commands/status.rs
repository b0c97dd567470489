//! `wit status`: intents, locks and contracts at a glance (also the frame of `wit watch`).

use serde::Serialize;
use serde_json::json;
use wit_core::protocol::{ContractRecord, ContractStatus, IntentRecord, LeaseRecord, LockRecord};

use crate::autostart::CALL_TIMEOUT;
use crate::client::Client;
use crate::commands::daemon::{DaemonStatus, fetch_status, notice_version};
use crate::commands::intent;
use crate::context::{Ctx, call};
use crate::duration::human_span;
use crate::exit::{CmdResult, Failure};
use crate::forecast;
use crate::output::{
    Cell, Style, ago, fit_line, local_clock, print_json, session_cell, shown, table, truncate,
};
use crate::session::Session;

/// Everything `wit status` shows.
#[derive(Debug, Serialize)]
pub struct Snapshot {
    /// The repository root.
    pub root: String,
    /// The caller's session (`null` when none is set up yet).
    pub session: Option<SessionInfo>,
    /// `daemon.status`, when the daemon supports it.
    pub daemon: Option<DaemonStatus>,
    /// Declared and active intents.
    pub intents: Vec<IntentRecord>,
    /// Unexpired locks.
    pub locks: Vec<LockRecord>,
    /// All contracts.
    pub contracts: Vec<ContractRecord>,
    /// Unexpired file/glob leases (empty against a daemon without leases).
    pub leases: Vec<LeaseRecord>,
    /// The conflict forecast between this repository's checkouts, as `conflicts.forecast`
    /// answers it (`{checkout, forecasts, checkouts}`); absent against a daemon without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forecast: Option<serde_json::Value>,
    /// Code-graph conflicts of the caller's locks (`wit status` only; empty in `wit
    /// watch`): a caller or callee of one of them, in any file, locked by another session.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub graph_conflicts: Vec<GraphConflict>,
}

/// A lock of ours linked through the code graph to another session's lock.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GraphConflict {
    /// `caller` (their lock calls ours) or `callee` (ours calls theirs).
    pub kind: &'static str,
    /// The call chain, caller first: `[caller, callee]`.
    pub chain: Vec<String>,
    /// The other session.
    pub held_by: String,
}

/// Most of the caller's own locks looked up in the graph (one call each).
const GRAPH_LOCKS_CHECKED: usize = 20;

/// For each of `me`'s locks: callers and callees locked by another session.
async fn graph_conflicts(
    client: &mut Client,
    locks: &[LockRecord],
    me: &str,
) -> Vec<GraphConflict> {
    let held = |path: &str| {
        locks
            .iter()
            .find(|l| l.session_id != me && (l.symbol_path == path))
            .map(|l| l.session_id.clone())
    };
    let mut out = Vec::new();
    for mine in locks
        .iter()
        .filter(|l| l.session_id == me)
        .take(GRAPH_LOCKS_CHECKED)
    {
        for (method, key) in [("code.callers", "callers"), ("code.callees", "callees")] {
            let Ok(r) = client
                .call_value(method, json!({"symbolPath": mine.symbol_path}))
                .await
            else {
                continue;
            };
            for e in r[key].as_array().into_iter().flatten() {
                let (Some(caller), Some(callee)) = (e["caller"].as_str(), e["callee"].as_str())
                else {
                    continue;
                };
                let other = if key == "callers" { caller } else { callee };
                if let Some(held_by) = held(other) {
                    out.push(GraphConflict {
                        kind: if key == "callers" { "caller" } else { "callee" },
                        chain: vec![caller.to_owned(), callee.to_owned()],
                        held_by,
                    });
                }
            }
        }
    }
    out
}

/// The caller's identity, as shown.
#[derive(Debug, Serialize)]
pub struct SessionInfo {
    /// The id.
    pub id: String,
    /// Where it came from.
    pub source: &'static str,
}

/// Fetches a snapshot: six calls, issued concurrently on six connections (the daemon
/// serves them in parallel), which keeps `wit status` near one round trip.
pub async fn snapshot(
    ctx: &Ctx,
    client: &mut Client,
    session: Option<&Session>,
) -> CmdResult<Snapshot> {
    let socket = ctx.repo.socket();
    let extra = || async {
        Client::connect(&socket, CALL_TIMEOUT)
            .await
            .map_err(|e| Failure::Unreachable(e.to_string()))
    };
    let (c2, c3, c4, c5, c6) = tokio::join!(extra(), extra(), extra(), extra(), extra());
    let (mut c2, mut c3, mut c4, mut c5, mut c6) = (c2?, c3?, c4?, c5?, c6?);
    let (daemon, intents, locks, contracts, leases, forecast) = tokio::join!(
        fetch_status(client),
        call::<Vec<IntentRecord>>(&mut c2, "intent.query", json!({}), "intents"),
        call::<Vec<LockRecord>>(&mut c3, "lock.query", json!({}), "locks"),
        call::<Vec<ContractRecord>>(&mut c4, "contract.query", json!({}), "contracts"),
        call::<serde_json::Value>(&mut c5, "lease.query", json!({}), "leases"),
        call::<serde_json::Value>(&mut c6, "conflicts.forecast", json!({}), "forecast"),
    );
    let (daemon, intents, locks, contracts) = (daemon.ok(), intents?, locks?, contracts?);
    // An older daemon has no leases: nothing to show rather than a failed status.
    let leases: Vec<LeaseRecord> = leases
        .ok()
        .and_then(|v| serde_json::from_value(v["leases"].clone()).ok())
        .unwrap_or_default();
    Ok(Snapshot {
        root: ctx.repo.root.display().to_string(),
        session: session.map(|s| SessionInfo {
            id: s.id.clone(),
            source: s.source_label(),
        }),
        daemon,
        intents,
        locks,
        contracts,
        leases,
        // An older daemon has no forecast, and a failed one must not fail the status.
        forecast: forecast.ok().filter(serde_json::Value::is_object),
        graph_conflicts: Vec::new(),
    })
}

/// `wit status`.
pub async fn run(ctx: &Ctx) -> CmdResult {
    let mut client = ctx.client().await?;
    // Reading the identity never creates one: status is read-only.
    let session = Session::lookup(&ctx.repo);
    let mut snap = snapshot(ctx, &mut client, session.as_ref()).await?;
    if let Some(d) = &snap.daemon {
        notice_version(d);
    }
    if let Some(me) = &session {
        snap.graph_conflicts = graph_conflicts(&mut client, &snap.locks, &me.id).await;
    }
    if ctx.json {
        print_json(&snap);
    } else {
        print!("{}", render(&snap, &ctx.style));
        if !snap.graph_conflicts.is_empty() {
            println!(
                "\nCode-graph conflicts of your locks ({}):",
                snap.graph_conflicts.len()
            );
            for c in &snap.graph_conflicts {
                let chain: Vec<String> = c.chain.iter().map(|p| shown(p).into_owned()).collect();
                println!(
                    "  {}  {} (locked by {}): coordinate with {}",
                    ctx.style.yellow(if c.kind == "caller" {
                        "CALLER_LOCKED"
                    } else {
                        "CALLEE_LOCKED"
                    }),
                    chain.join(" → "),
                    shown(&c.held_by),
                    shown(&c.held_by)
                );
            }
        }
    }
    Ok(())
}

/// A snapshot laid out as lines: the header, then one [`Section`] per kind of record.
/// [`render`] shows all of it; [`render_fit`] fits it to a terminal.
pub struct Layout {
    /// The root/session/daemon line and any configuration problems.
    pub header: Vec<String>,
    /// Intents, locks, contracts.
    pub sections: Vec<Section>,
}

/// One part of the view: a title, then (when there are records) a table header and one
/// line per record, then optional footer lines.
pub struct Section {
    /// `Intents (3)` or `Intents: none`.
    pub title: String,
    /// The table's column header, when there are rows.
    pub head: Option<String>,
    /// One line per record.
    pub rows: Vec<String>,
    /// Lines after the rows (e.g. how many rejected contracts are not shown).
    pub footer: Vec<String>,
    /// The command that lists them all, for "N more" lines.
    pub all_command: &'static str,
}

/// Splits a rendered table into its header line and its rows.
fn split_table(t: String) -> (Option<String>, Vec<String>) {
    let mut lines = t.lines().map(str::to_owned);
    let head = lines.next();
    (head, lines.collect())
}

/// Lays a snapshot out.
pub fn layout(s: &Snapshot, style: &Style) -> Layout {
    let me = s.session.as_ref().map(|x| x.id.as_str());
    // A session working in another worktree (they share one state) is shown with it.
    let worktrees = s.daemon.as_ref().map(|d| &d.worktrees);
    let session_cell = |session: &str, me: Option<&str>, style: &Style| {
        let elsewhere = worktrees
            .and_then(|w| w.get(session))
            .filter(|w| **w != s.root)
            .map(|w| w.rsplit('/').next().unwrap_or(w).to_owned());
        match elsewhere {
            Some(name) if me == Some(session) => {
                Cell::styled(format!("{session} (you) @{name}"), |t| style.cyan(t))
            }
            Some(name) => Cell::plain(format!("{session} @{name}")),
            None => session_cell(session, me, style),
        }
    };
    let who = match &s.session {
        Some(x) => format!("you are {} ({})", style.bold(&x.id), x.source),
        None => "no session (set WIT_SESSION)".to_owned(),
    };
    let daemon = match &s.daemon {
        Some(d) => format!("daemon pid {}, up {}", d.pid, human_span(d.uptime_ms)),
        None => "daemon running".to_owned(),
    };
    let mut header = vec![format!("{} · {who} · {daemon}", style.bold(&s.root))];
    // Shared state and a worktree's unused state of its own: said before anything else.
    if let Some(d) = &s.daemon {
        if d.state.backend.as_deref() == Some("postgres") {
            header.push(style.dim(&format!(
                "state shared in the PostgreSQL store {} (project {})",
                shown(&d.state.database),
                shown(d.state.project.as_deref().unwrap_or("?"))
            )));
        }
        if let Some(main) = &d.state.shared_with {
            header.push(style.dim(&format!(
                "state shared with the main worktree {} (every worktree of this repository)",
                shown(main)
            )));
        }
        if let Some(own) = &d.state.separate_state {
            header.push(style.yellow(&format!(
                "this worktree's own {} is not used: it predates shared state; remove it once \
                 nothing in it matters",
                shown(own)
            )));
        }
        if let Some(note) = &d.state.note {
            header.push(style.yellow(&format!(
                "state not shared with other worktrees: {}",
                shown(note)
            )));
        }
    }
    // wit.toml and plugin problems first: the user must not miss that a config was refused.
    if let Some(d) = &s.daemon {
        let problems = crate::commands::analyzers::problems(&d.config, &d.failed, style);
        header.extend(problems.lines().map(str::to_owned));
    }

    let intents = if s.intents.is_empty() {
        Section {
            title: format!("{} none", style.bold("Intents:")),
            head: None,
            rows: Vec::new(),
            footer: Vec::new(),
            all_command: "wit intent list",
        }
    } else {
        let rows =
            s.intents
                .iter()
                .map(|i| {
                    vec![
                        Cell::plain(&i.intent_id),
                        session_cell(&i.session_id, me, style),
                        match &i.owner_ended {
                            // Its agent is gone: anyone may abandon it (`wit intent abandon`).
                            Some(_) => Cell::styled(
                                format!("{} (session ended)", i.status.as_str()),
                                |t| style.yellow(t),
                            ),
                            None => Cell::styled(i.status.as_str(), |t| style.green(t)),
                        },
                        Cell::plain(truncate(&intent::targets(i), 48)),
                        Cell::plain(truncate(&i.description, 48)),
                        Cell::styled(ago(i.declared_at), |t| style.dim(t)),
                    ]
                })
                .collect();
        let (head, rows) = split_table(table(
            style,
            &[
                "ID",
                "SESSION",
                "STATUS",
                "FILES [SYMBOLS]",
                "DESCRIPTION",
                "DECLARED",
            ],
            rows,
        ));
        Section {
            title: style.bold(&format!("Intents ({})", s.intents.len())),
            head,
            rows,
            footer: Vec::new(),
            all_command: "wit intent list",
        }
    };

    let locks = if s.locks.is_empty() {
        Section {
            title: format!("{} none", style.bold("Locks:")),
            head: None,
            rows: Vec::new(),
            footer: Vec::new(),
            all_command: "wit status",
        }
    } else {
        let rows = s
            .locks
            .iter()
            .map(|l| {
                let expires = wit_core::protocol::parse_iso8601_millis(&l.expires_at)
                    .map(local_clock)
                    .unwrap_or_else(|| l.expires_at.clone());
                let left = human_span(l.ttl_remaining_ms);
                let left = if l.ttl_remaining_ms < 120_000 {
                    Cell::styled(left, |t| style.yellow(t))
                } else {
                    Cell::plain(left)
                };
                vec![
                    Cell::styled(&l.symbol_path, |t| style.bold(t)),
                    session_cell(&l.session_id, me, style),
                    Cell::plain(expires),
                    left,
                ]
            })
            .collect();
        let (head, rows) = split_table(table(style, &["SYMBOL", "HELD BY", "UNTIL", "LEFT"], rows));
        Section {
            title: style.bold(&format!("Locks ({})", s.locks.len())),
            head,
            rows,
            footer: Vec::new(),
            all_command: "wit status",
        }
    };

    let listed: Vec<&ContractRecord> = s
        .contracts
        .iter()
        .filter(|c| c.status != ContractStatus::Rejected)
        .collect();
    let rejected = s.contracts.len() - listed.len();
    let footer = if rejected > 0 {
        vec![style.dim(&format!(
            "  ({rejected} rejected not shown; `wit contract list`)"
        ))]
    } else {
        Vec::new()
    };
    let contracts = if listed.is_empty() {
        Section {
            title: format!("{} none", style.bold("Contracts:")),
            head: None,
            rows: Vec::new(),
            footer,
            all_command: "wit contract list",
        }
    } else {
        let (head, rows) = split_table(contract_table(&listed, style, me));
        Section {
            title: style.bold(&format!("Contracts ({})", listed.len())),
            head,
            rows,
            footer,
            all_command: "wit contract list",
        }
    };
    let mut sections = vec![intents, locks];
    // Shown only when some exist: most repositories never use leases.
    if !s.leases.is_empty() {
        let (head, rows) = split_table(crate::commands::lease::lease_table(&s.leases, style, me));
        sections.push(Section {
            title: style.bold(&format!("Leases ({})", s.leases.len())),
            head,
            rows,
            footer: Vec::new(),
            all_command: "wit lease list",
        });
    }
    sections.push(contracts);
    if let Some(section) = claims_section(s, style, me) {
        sections.push(section);
    }
    if let Some(section) = forecast_section(s, style) {
        sections.push(section);
    }
    Layout { header, sections }
}

/// The uncommitted changes of this checkout by the session that made them (claims);
/// shown only when there are some.
fn claims_section(s: &Snapshot, style: &Style, me: Option<&str>) -> Option<Section> {
    let answer = s.forecast.as_ref()?;
    let here = answer["checkout"].as_str().unwrap_or_default();
    let claims: Vec<crate::claims::Claim> = crate::claims::each(answer, "claims")
        .into_iter()
        .filter(|c: &crate::claims::Claim| c.checkout == here)
        .collect();
    if claims.is_empty() {
        return None;
    }
    let (head, rows) = split_table(table(
        style,
        &["SESSION", "DEFINITION", "CHANGE", "SINCE"],
        crate::claims::rows(&claims, me, style, false),
    ));
    Some(Section {
        title: style.bold(&format!(
            "Uncommitted changes by session ({}; details: wit claims)",
            claims.len()
        )),
        head,
        rows,
        footer: Vec::new(),
        all_command: "wit claims",
    })
}

/// The conflict forecast between this repository's checkouts: one row per standing
/// collision, then the checkouts; shown only when a collision stands or another checkout
/// is live (most repositories have one checkout, and the section would say nothing).
fn forecast_section(s: &Snapshot, style: &Style) -> Option<Section> {
    let answer = forecast::Answer::parse(s.forecast.as_ref()?);
    if answer.forecasts.is_empty() && !answer.has_other_checkouts() {
        return None;
    }
    let footer = vec![format!(
        "  {}",
        style.dim(&forecast::checkouts_line(&answer))
    )];
    if answer.forecasts.is_empty() {
        return Some(Section {
            title: format!("{} none", style.bold("Conflict forecast:")),
            head: None,
            rows: Vec::new(),
            footer,
            all_command: "wit conflicts",
        });
    }
    let (head, rows) = split_table(table(
        style,
        &["KIND", "BETWEEN", "SUMMARY"],
        forecast::status_rows(&answer, style),
    ));
    Some(Section {
        title: style.bold(&format!(
            "Conflict forecast ({}; details: wit conflicts)",
            answer.forecasts.len()
        )),
        head,
        rows,
        footer,
        all_command: "wit conflicts",
    })
}

/// The human rendering of a snapshot: everything, one record per line.
pub fn render(s: &Snapshot, style: &Style) -> String {
    let l = layout(s, style);
    let mut out = String::new();
    for line in &l.header {
        out.push_str(line);
        out.push('\n');
    }
    for sec in &l.sections {
        out.push('\n');
        out.push_str(&sec.title);
        out.push('\n');
        for line in sec.head.iter().chain(&sec.rows).chain(&sec.footer) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The view fitted to a `width` × `height` terminal: the header always shows; the rows
/// of the three sections share the remaining lines (round robin, so none is crowded out);
/// a section that cannot show all its rows ends with `… N more (command)`; every line is
/// cut to `width` visible characters (ending with `…`). At most `height` lines.
pub fn render_fit(s: &Snapshot, style: &Style, width: usize, height: usize) -> Vec<String> {
    let l = layout(s, style);
    let mut out: Vec<String> = l.header.iter().map(|h| fit_line(h, width)).collect();
    // Fixed lines per section: a blank line, the title, the table header, the footer.
    let fixed: usize = l
        .sections
        .iter()
        .map(|s| 2 + usize::from(s.head.is_some()) + s.footer.len())
        .sum();
    let mut avail = height.saturating_sub(out.len() + fixed);
    let mut alloc = vec![0usize; l.sections.len()];
    // A "more" line is reserved for every section that cannot show all its rows; first
    // reserve for all with rows, then give back what the fully shown ones do not need.
    let with_rows = l.sections.iter().filter(|s| !s.rows.is_empty()).count();
    let mut reserved = with_rows.min(avail);
    avail -= reserved;
    for _pass in 0..2 {
        loop {
            let mut gave = false;
            for (i, sec) in l.sections.iter().enumerate() {
                if avail > 0 && alloc[i] < sec.rows.len() {
                    alloc[i] += 1;
                    avail -= 1;
                    gave = true;
                }
            }
            if !gave {
                break;
            }
        }
        let full = l
            .sections
            .iter()
            .zip(&alloc)
            .filter(|(s, a)| !s.rows.is_empty() && **a == s.rows.len())
            .count();
        let give_back = full.min(reserved);
        reserved -= give_back;
        avail += give_back;
    }
    for (sec, n) in l.sections.iter().zip(alloc) {
        out.push(String::new());
        out.push(fit_line(&sec.title, width));
        if let Some(h) = &sec.head {
            out.push(fit_line(h, width));
        }
        out.extend(sec.rows.iter().take(n).map(|r| fit_line(r, width)));
        if n < sec.rows.len() {
            let more = format!("  … {} more ({})", sec.rows.len() - n, sec.all_command);
            out.push(fit_line(&style.dim(&more), width));
        }
        out.extend(sec.footer.iter().map(|f| fit_line(f, width)));
    }
    out.truncate(height);
    out
}

/// Contracts as a table (shared with `wit contract list`).
pub fn contract_table(contracts: &[&ContractRecord], style: &Style, me: Option<&str>) -> String {
    let rows = contracts
        .iter()
        .map(|c| {
            let status = match c.status {
                ContractStatus::Accepted => Cell::styled("accepted", |t| style.green(t)),
                ContractStatus::Proposed => Cell::styled("proposed", |t| style.yellow(t)),
                ContractStatus::Rejected => Cell::styled("rejected", |t| style.dim(t)),
                ContractStatus::Withdrawn => Cell::styled("withdrawn", |t| style.dim(t)),
                ContractStatus::Superseded => Cell::styled("superseded", |t| style.dim(t)),
            };
            let by = if me == Some(c.proposer_session_id.as_str()) {
                format!("{} (you)", c.proposer_session_id)
            } else {
                c.proposer_session_id.clone()
            };
            vec![
                Cell::plain(&c.contract_id),
                Cell::styled(&c.symbol_path, |t| style.bold(t)),
                Cell::plain(truncate(&c.signature, 60)),
                status,
                Cell::plain(by),
                Cell::styled(ago(c.proposed_at), |t| style.dim(t)),
            ]
        })
        .collect();
    table(
        style,
        &[
            "ID",
            "SYMBOL",
            "SIGNATURE",
            "STATUS",
            "PROPOSED BY",
            "PROPOSED",
        ],
        rows,
    )
}
