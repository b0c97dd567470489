//! `wit events`: the daemon's event log (`events.poll`), once or followed (through the
//! daemon's event stream `GET /events`, or by long polls against an older daemon).

use std::io::Write;

use serde_json::{Value, json};
use tokio::signal::unix::{SignalKind, signal};

use crate::autostart;
use crate::client::events_query;
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::output::{local_clock, print_json, shown};

/// How long one poll waits when following (the daemon answers as soon as an event lands).
const FOLLOW_WAIT_MS: u64 = 30_000;

/// One event on one line: `seq  time  kind  subject  by session  details`.
fn line(e: &Value) -> String {
    let seq = e["seq"].as_i64().unwrap_or(0);
    let at = e["at"].as_i64().map(local_clock).unwrap_or_default();
    let kind = e["kind"].as_str().unwrap_or("?");
    let subject = e["subject"].as_str().unwrap_or("");
    let by = e["sessionId"].as_str().unwrap_or("-");
    let data = match &e["data"] {
        Value::Object(m) if m.is_empty() => String::new(),
        // A forecast's data is the whole forecast: its summary says it in one line.
        Value::Object(m) if kind.starts_with("forecast.") && m.contains_key("summary") => {
            let summary = m["summary"].as_str().unwrap_or_default();
            match m.get("reason").and_then(Value::as_str) {
                Some(reason) => format!("  {summary} (cleared: {reason})"),
                None => format!("  {summary}"),
            }
        }
        // A claim's data reads as a sentence too (already escaped).
        Value::Object(_) if kind.starts_with("claim.") => {
            match crate::claims::event_line(kind, &e["data"]) {
                Some(text) => format!("  {text}"),
                None => format!("  {}", e["data"]),
            }
        }
        Value::Object(_) => format!("  {}", e["data"]),
        _ => String::new(),
    };
    format!(
        "{seq:>6}  {at}  {kind:<19} {}  by {}{}",
        shown(subject),
        shown(by),
        shown(&data)
    )
}

/// `wit events`.
pub async fn run(
    ctx: &Ctx,
    since: u64,
    follow: bool,
    kinds: Vec<String>,
    session: Option<String>,
) -> CmdResult {
    let mut client = ctx.client().await?;
    let mut params = json!({"since": since});
    if !kinds.is_empty() {
        params["kinds"] = json!(kinds);
    }
    if let Some(s) = &session {
        params["sessionId"] = json!(s);
    }
    if !follow {
        let mut all: Vec<Value> = Vec::new();
        loop {
            let r: Value = call(&mut client, "events.poll", params.clone(), "events").await?;
            let batch = r["events"].as_array().cloned().unwrap_or_default();
            let done = batch.is_empty();
            all.extend(batch);
            params["since"] = r["next"].clone();
            if done || r["next"] == r["last"] {
                break;
            }
        }
        if ctx.json {
            print_json(&all);
        } else if all.is_empty() {
            println!("No events.");
        } else {
            for e in &all {
                println!("{}", line(e));
            }
        }
        return Ok(());
    }
    let mut sigint = signal(SignalKind::interrupt()).map_err(Failure::other)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(Failure::other)?;
    // The daemon's event stream (GET /events): each event as soon as it is committed, on
    // one connection. It ends when the daemon stops; the long-poll loop below then takes
    // over from the last event shown (and reports the daemon gone, as it always did). A
    // daemon without the stream (an older one) is long-polled from the start.
    let query = events_query(since as i64, &kinds, session.as_deref());
    let stream = match autostart::connect_existing(&ctx.repo, autostart::CALL_TIMEOUT).await {
        Ok(c) => c.events_stream(&query).await.ok().flatten(),
        Err(_) => None,
    };
    if let Some(mut stream) = stream {
        loop {
            let next = tokio::select! {
                next = stream.next_event() => next,
                _ = sigint.recv() => return Ok(()),
                _ = sigterm.recv() => return Ok(()),
            };
            let Ok(Some(e)) = next else { break };
            if let Some(seq) = e["seq"].as_i64() {
                params["since"] = json!(seq);
            }
            let text = if ctx.json { e.to_string() } else { line(&e) };
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{text}").is_err() || out.flush().is_err() {
                return Ok(());
            }
        }
    }
    params["timeoutMs"] = json!(FOLLOW_WAIT_MS);
    client.set_timeout(std::time::Duration::from_millis(FOLLOW_WAIT_MS + 10_000));
    loop {
        let poll = call::<Value>(&mut client, "events.poll", params.clone(), "events");
        let r = tokio::select! {
            r = poll => r?,
            _ = sigint.recv() => return Ok(()),
            _ = sigterm.recv() => return Ok(()),
        };
        let mut out = std::io::stdout().lock();
        for e in r["events"].as_array().into_iter().flatten() {
            let text = if ctx.json { e.to_string() } else { line(e) };
            if writeln!(out, "{text}").is_err() {
                return Ok(());
            }
        }
        let _ = out.flush();
        params["since"] = r["next"].clone();
    }
}
