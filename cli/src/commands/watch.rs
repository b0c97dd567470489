//! `wit watch`: a live view, redrawn when the state changes.
//!
//! The view follows the daemon's event stream (`GET /events`; long polls of `events.poll`
//! against an older daemon, plain polling against one older still); it redraws when what
//! it shows changes (and every few seconds on a terminal, so that "time left" stays true). On a
//! terminal it uses the alternate screen and hides the cursor; a guard restores both on
//! every way out (Ctrl-C, SIGTERM, errors, panics). The frame is fitted to the terminal
//! (header kept, rows shared between the sections, "… N more" for the rest, lines cut to
//! the width) and redrawn when the terminal is resized. Not on a terminal, it prints one
//! line per change instead (`--json`: one snapshot per line).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::signal::unix::{SignalKind, signal};

use crate::autostart;
use crate::client::EventStream;
use crate::commands::status::{Snapshot, render_fit, snapshot};
use crate::context::Ctx;
use crate::exit::{CmdResult, Failure};
use crate::forecast;
use crate::output::{fit_line, local_clock, now_ms, shown, until};
use crate::session::Session;

/// Restores the terminal when dropped.
struct Screen {
    active: bool,
}

impl Screen {
    fn enter(tty: bool) -> Self {
        if tty {
            // Alternate screen, hidden cursor.
            print!("\x1b[?1049h\x1b[?25l");
            let _ = std::io::stdout().flush();
        }
        Screen { active: tty }
    }

    fn draw(&self, frame: &str) {
        let mut out = std::io::stdout().lock();
        if self.active {
            // Home, the frame with each line cleared to its end, then clear the rest.
            // No newline after the last line: on the terminal's last row it would scroll
            // the header away.
            let _ = write!(out, "\x1b[H");
            for (i, line) in frame.lines().enumerate() {
                if i > 0 {
                    let _ = write!(out, "\r\n");
                }
                let _ = write!(out, "{line}\x1b[K");
            }
            let _ = write!(out, "\x1b[J");
        } else {
            let _ = writeln!(out, "{frame}");
        }
        let _ = out.flush();
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if self.active {
            print!("\x1b[?25h\x1b[?1049l");
            let _ = std::io::stdout().flush();
        }
    }
}

/// What a frame depends on, apart from the clock.
fn state_key(s: &Snapshot) -> String {
    let locks: Vec<_> = s
        .locks
        .iter()
        .map(|l| (&l.symbol_path, &l.session_id, &l.expires_at))
        .collect();
    // The forecast without the checkouts' heartbeats (`seenAt`), which move every few
    // seconds while nothing shown changes.
    let forecast = s.forecast.as_ref().map(|f| {
        let checkouts: Vec<_> = f["checkouts"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                json!([
                    c["path"],
                    c["branch"],
                    c["state"],
                    c["live"],
                    c["changedFiles"],
                    c["sessions"]
                ])
            })
            .collect();
        json!({"f": f["forecasts"], "c": checkouts, "claims": f["claims"]})
    });
    json!({"i": s.intents, "l": locks, "c": s.contracts, "f": forecast}).to_string()
}

/// The claims (uncommitted changes by session) of a snapshot.
fn claims(s: &Snapshot) -> Vec<crate::claims::Claim> {
    s.forecast
        .as_ref()
        .map(|v| crate::claims::each(v, "claims"))
        .unwrap_or_default()
}

/// The standing forecasts of a snapshot (none against a daemon without them).
fn forecasts(s: &Snapshot) -> Vec<forecast::Forecast> {
    s.forecast
        .as_ref()
        .map(|v| forecast::Answer::parse(v).forecasts)
        .unwrap_or_default()
}

/// The terminal's size (columns, rows); 80×24 when it cannot be read.
fn terminal_size() -> (usize, usize) {
    match terminal_size::terminal_size_of(std::io::stdout()) {
        Some((terminal_size::Width(w), terminal_size::Height(h))) if w > 0 && h > 0 => {
            (usize::from(w), usize::from(h))
        }
        _ => (80, 24),
    }
}

/// One line per difference between two snapshots (intents, locks, contracts), for the
/// plain mode.
fn changes(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for i in &after.intents {
        match before.intents.iter().find(|b| b.intent_id == i.intent_id) {
            None => out.push(format!(
                "intent {} declared by {}: {}",
                i.intent_id,
                shown(&i.session_id),
                shown(&i.description)
            )),
            Some(b) if b.status != i.status => out.push(format!(
                "intent {} is now {}",
                i.intent_id,
                i.status.as_str()
            )),
            Some(_) => {}
        }
    }
    for b in &before.intents {
        if !after.intents.iter().any(|i| i.intent_id == b.intent_id) {
            out.push(format!("intent {} finished", b.intent_id));
        }
    }
    for l in &after.locks {
        match before.locks.iter().find(|b| b.symbol_path == l.symbol_path) {
            Some(b) if b.session_id == l.session_id && b.expires_at == l.expires_at => {}
            Some(b) if b.session_id == l.session_id => out.push(format!(
                "lock {} refreshed by {} {}",
                shown(&l.symbol_path),
                shown(&l.session_id),
                until(&l.expires_at)
            )),
            _ => out.push(format!(
                "lock {} taken by {} {}",
                shown(&l.symbol_path),
                shown(&l.session_id),
                until(&l.expires_at)
            )),
        }
    }
    for b in &before.locks {
        if !after.locks.iter().any(|l| l.symbol_path == b.symbol_path) {
            out.push(format!(
                "lock {} released (was {})",
                shown(&b.symbol_path),
                shown(&b.session_id)
            ));
        }
    }
    for c in &after.contracts {
        match before
            .contracts
            .iter()
            .find(|b| b.contract_id == c.contract_id)
        {
            None => out.push(format!(
                "contract {} on {} {} by {}",
                c.contract_id,
                shown(&c.symbol_path),
                c.status.as_str(),
                shown(&c.proposer_session_id)
            )),
            Some(b) if b.status != c.status => out.push(format!(
                "contract {} on {} is now {}",
                c.contract_id,
                shown(&c.symbol_path),
                c.status.as_str()
            )),
            Some(_) => {}
        }
    }
    let (was, now) = (claims(before), claims(after));
    for c in &now {
        let same = |b: &&crate::claims::Claim| {
            b.symbol_path == c.symbol_path
                && b.session_id == c.session_id
                && b.checkout == c.checkout
        };
        match was.iter().find(same) {
            Some(b) if b.edited_at == c.edited_at => {}
            Some(_) => out.push(format!(
                "{} edited again by {}",
                shown(&c.symbol_path),
                crate::claims::who(c.session_id.as_deref())
            )),
            None => out.push(format!(
                "{} {} (uncommitted)",
                crate::claims::who(c.session_id.as_deref()),
                crate::claims::change_text(c)
            )),
        }
    }
    for b in &was {
        let gone = !now.iter().any(|c| {
            b.symbol_path == c.symbol_path
                && b.session_id == c.session_id
                && b.checkout == c.checkout
        });
        if gone {
            out.push(format!(
                "{} is no longer an uncommitted change of {}",
                shown(&b.symbol_path),
                crate::claims::who(b.session_id.as_deref())
            ));
        }
    }
    let (was, now) = (forecasts(before), forecasts(after));
    for f in &now {
        if !was.iter().any(|b| b.id == f.id) {
            out.push(format!(
                "forecast {} ({}): {}",
                shown(&f.kind),
                f.between(),
                shown(&f.summary)
            ));
        }
    }
    for b in &was {
        if !now.iter().any(|f| f.id == b.id) {
            out.push(format!(
                "forecast {} on {} cleared",
                shown(&b.kind),
                b.symbols()
            ));
        }
    }
    out
}

/// Where the view is in the daemon's event log, and how it hears of changes.
struct Follow {
    /// The last seq seen; `None`: the daemon has no event log (an older one).
    since: Option<i64>,
    /// The open event stream (`GET /events`), when there is one.
    stream: Option<EventStream>,
    /// The daemon answered that it has no event stream: long polls instead.
    no_stream: bool,
}

/// Resolves at the next change the daemon's event log records after `follow.since`
/// (updating it), or after `wait`; sleeps `interval` when the daemon has no event log or is
/// unreachable. Changes come from the event stream, opened once and kept; a daemon
/// without it is long-polled (`events.poll`).
async fn wait_for_change(
    repo: &crate::root::Repo,
    follow: &mut Follow,
    connected: bool,
    interval: Duration,
    wait: Duration,
) {
    let Some(from) = follow.since.filter(|_| connected) else {
        follow.stream = None;
        tokio::time::sleep(interval).await;
        return;
    };
    if follow.stream.is_none() && !follow.no_stream {
        let Ok(client) = autostart::connect_existing(repo, autostart::CALL_TIMEOUT).await else {
            tokio::time::sleep(interval).await;
            return;
        };
        match client.events_stream(&format!("since={from}")).await {
            Ok(Some(stream)) => follow.stream = Some(stream),
            Ok(None) => follow.no_stream = true,
            Err(_) => {
                tokio::time::sleep(interval).await;
                return;
            }
        }
    }
    if let Some(stream) = follow.stream.as_mut() {
        match tokio::time::timeout(wait, stream.next_event()).await {
            // Nothing within `wait`: the caller redraws for the clock.
            Err(_) => {}
            Ok(Ok(Some(e))) => follow.since = e["seq"].as_i64().or(follow.since),
            // The stream ended (the daemon stopped) or broke: reopened next time.
            Ok(_) => {
                follow.stream = None;
                tokio::time::sleep(interval).await;
            }
        }
        return;
    }
    let Ok(mut client) = autostart::connect_existing(repo, wait + Duration::from_secs(10)).await
    else {
        tokio::time::sleep(interval).await;
        return;
    };
    let params = json!({"since": from, "timeoutMs": wait.as_millis() as u64});
    match client.call_value("events.poll", params).await {
        Ok(r) => follow.since = r["next"].as_i64().or(Some(from)),
        Err(_) => tokio::time::sleep(interval).await,
    }
}

/// `wit watch`.
pub async fn run(ctx: &Ctx, interval_ms: u64) -> CmdResult {
    let mut client = ctx.client().await?;
    let session = Session::lookup(&ctx.repo);
    let tty = !ctx.json && std::io::stdout().is_terminal();
    let mut sigint = signal(SignalKind::interrupt()).map_err(Failure::other)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(Failure::other)?;
    let mut resized = signal(SignalKind::window_change()).map_err(Failure::other)?;
    let screen = Screen::enter(tty);
    let interval = Duration::from_millis(interval_ms);
    let mut last_key = String::new();
    let mut last_snapshot: Option<Snapshot> = None;
    let mut last_draw = Instant::now();
    let mut connected = true;
    // The end of the event log before the first snapshot: every change after it wakes the
    // view. None: the daemon has no event log (an older one), so the view polls.
    let since: Option<i64> = client
        .call_value("events.poll", json!({"since": i64::MAX}))
        .await
        .ok()
        .and_then(|r| r["last"].as_i64());
    let mut follow = Follow {
        since,
        stream: None,
        no_stream: false,
    };
    loop {
        if !connected
            && let Ok(c) = autostart::connect_existing(&ctx.repo, autostart::CALL_TIMEOUT).await
        {
            client = c;
            connected = true;
        }
        if connected {
            match snapshot(ctx, &mut client, session.as_ref()).await {
                Ok(snap) => {
                    let key = state_key(&snap);
                    let stale = tty && last_draw.elapsed() >= Duration::from_secs(5);
                    if key != last_key || stale {
                        if ctx.json {
                            println!("{}", serde_json::to_string(&snap).map_err(Failure::other)?);
                        } else if tty {
                            let (width, height) = terminal_size();
                            let footer = fit_line(
                                &ctx.style.dim(&format!(
                                    "updated {} · Ctrl-C to quit",
                                    local_clock(now_ms())
                                )),
                                width,
                            );
                            let mut lines =
                                render_fit(&snap, &ctx.style, width, height.saturating_sub(1));
                            lines.push(footer);
                            screen.draw(&lines.join("\n"));
                        } else {
                            let stamp = local_clock(now_ms());
                            match &last_snapshot {
                                None => println!(
                                    "{stamp} watching {}: {} intents, {} locks, {} contracts, \
                                     {} forecast collisions",
                                    shown(&snap.root),
                                    snap.intents.len(),
                                    snap.locks.len(),
                                    snap.contracts.len(),
                                    forecasts(&snap).len()
                                ),
                                Some(before) => {
                                    for line in changes(before, &snap) {
                                        println!("{stamp} {line}");
                                    }
                                }
                            }
                            let _ = std::io::stdout().flush();
                        }
                        last_key = key;
                        last_snapshot = Some(snap);
                        last_draw = Instant::now();
                    }
                }
                Err(Failure::Unreachable(m)) => {
                    connected = false;
                    last_key.clear();
                    if ctx.json {
                        println!(
                            "{}",
                            json!({"error": {"code": 4, "message": "DAEMON_UNREACHABLE", "data": {"explanation": m}}})
                        );
                    } else if tty {
                        let (width, _) = terminal_size();
                        screen.draw(&fit_line(
                            &format!("daemon unreachable ({}); retrying…", shown(&m)),
                            width,
                        ));
                    } else {
                        println!(
                            "{} daemon unreachable ({}); retrying…",
                            local_clock(now_ms()),
                            shown(&m)
                        );
                    }
                }
                Err(e) => return Err(e),
            }
        }
        // Wait for the next change: the daemon's event stream (or a long poll of its event
        // log, for a daemon without the stream), so a change shows at once and nothing is
        // asked while nothing happens. On a terminal the wait is capped at 5 s so that
        // "time left" stays true; a daemon without events.poll (an older one) is polled
        // every `--interval` instead.
        let wait = if tty {
            Duration::from_secs(5)
        } else {
            Duration::from_secs(60)
        };
        let next_change = wait_for_change(&ctx.repo, &mut follow, connected, interval, wait);
        tokio::select! {
            _ = sigint.recv() => break,
            _ = sigterm.recv() => break,
            // Redraw at once for the new size.
            _ = resized.recv() => last_key.clear(),
            _ = next_change => {}
        }
    }
    drop(screen);
    Ok(())
}
