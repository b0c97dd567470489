//! `wit status`: intents, locks and contracts at a glance (also the frame of `wit watch`).

use serde::Serialize;
use serde_json::json;
use wit_core::protocol::{ContractRecord, ContractStatus, IntentRecord, LockRecord};

use crate::autostart::CALL_TIMEOUT;
use crate::client::Client;
use crate::commands::daemon::{DaemonStatus, fetch_status, notice_version};
use crate::commands::intent;
use crate::context::{Ctx, call};
use crate::duration::human_span;
use crate::exit::{CmdResult, Failure};
use crate::output::{Cell, Style, ago, local_clock, print_json, session_cell, table, truncate};
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
}

/// The caller's identity, as shown.
#[derive(Debug, Serialize)]
pub struct SessionInfo {
    /// The id.
    pub id: String,
    /// Where it came from.
    pub source: &'static str,
}

/// Fetches a snapshot: four calls, issued concurrently on four connections (the daemon
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
    let (c2, c3, c4) = tokio::join!(extra(), extra(), extra());
    let (mut c2, mut c3, mut c4) = (c2?, c3?, c4?);
    let (daemon, intents, locks, contracts) = tokio::join!(
        fetch_status(client),
        call::<Vec<IntentRecord>>(&mut c2, "intent.query", json!({}), "intents"),
        call::<Vec<LockRecord>>(&mut c3, "lock.query", json!({}), "locks"),
        call::<Vec<ContractRecord>>(&mut c4, "contract.query", json!({}), "contracts"),
    );
    let (daemon, intents, locks, contracts) = (daemon.ok(), intents?, locks?, contracts?);
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
    })
}

/// `wit status`.
pub async fn run(ctx: &Ctx) -> CmdResult {
    let mut client = ctx.client().await?;
    // Reading the identity never creates one: status is read-only.
    let session = Session::lookup(&ctx.repo);
    let snap = snapshot(ctx, &mut client, session.as_ref()).await?;
    if let Some(d) = &snap.daemon {
        notice_version(d);
    }
    if ctx.json {
        print_json(&snap);
    } else {
        print!("{}", render(&snap, &ctx.style));
    }
    Ok(())
}

/// The human rendering of a snapshot.
pub fn render(s: &Snapshot, style: &Style) -> String {
    let me = s.session.as_ref().map(|x| x.id.as_str());
    let mut out = String::new();
    let who = match &s.session {
        Some(x) => format!("you are {} ({})", style.bold(&x.id), x.source),
        None => "no session (set WIT_SESSION)".to_owned(),
    };
    let daemon = match &s.daemon {
        Some(d) => format!("daemon pid {}, up {}", d.pid, human_span(d.uptime_ms)),
        None => "daemon running".to_owned(),
    };
    out.push_str(&format!("{} · {who} · {daemon}\n", style.bold(&s.root)));
    // wit.toml and plugin problems first: the user must not miss that a config was refused.
    if let Some(d) = &s.daemon {
        out.push_str(&crate::commands::analyzers::problems(
            &d.config, &d.failed, style,
        ));
    }

    out.push('\n');
    if s.intents.is_empty() {
        out.push_str(&format!("{} none\n", style.bold("Intents:")));
    } else {
        out.push_str(&format!(
            "{}\n",
            style.bold(&format!("Intents ({})", s.intents.len()))
        ));
        let rows = s
            .intents
            .iter()
            .map(|i| {
                vec![
                    Cell::plain(&i.intent_id),
                    session_cell(&i.session_id, me, style),
                    Cell::styled(i.status.as_str(), |t| style.green(t)),
                    Cell::plain(truncate(&intent::targets(i), 48)),
                    Cell::plain(truncate(&i.description, 48)),
                    Cell::styled(ago(i.declared_at), |t| style.dim(t)),
                ]
            })
            .collect();
        out.push_str(&table(
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
    }

    out.push('\n');
    if s.locks.is_empty() {
        out.push_str(&format!("{} none\n", style.bold("Locks:")));
    } else {
        out.push_str(&format!(
            "{}\n",
            style.bold(&format!("Locks ({})", s.locks.len()))
        ));
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
        out.push_str(&table(style, &["SYMBOL", "HELD BY", "UNTIL", "LEFT"], rows));
    }

    out.push('\n');
    let shown: Vec<&ContractRecord> = s
        .contracts
        .iter()
        .filter(|c| c.status != ContractStatus::Rejected)
        .collect();
    let rejected = s.contracts.len() - shown.len();
    if shown.is_empty() {
        out.push_str(&format!("{} none", style.bold("Contracts:")));
    } else {
        out.push_str(&format!(
            "{}\n",
            style.bold(&format!("Contracts ({})", shown.len()))
        ));
        out.push_str(&contract_table(&shown, style, me));
    }
    if rejected > 0 {
        out.push_str(&style.dim(&format!(
            "  ({rejected} rejected not shown; `wit contract list`)"
        )));
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
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
