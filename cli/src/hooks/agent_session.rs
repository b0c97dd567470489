//! Claude Code's session hooks, answered by `wit guard` (the same command as the pre-edit
//! hook, so one hook entry point sees one identity):
//!
//! - **`SessionStart`**: registers the session with the daemon (`register`, starting the
//!   daemon if none runs: a session is starting, so wit is about to be used) and prints a
//!   short status to stdout, which Claude Code adds to the model's context: who holds
//!   which locks, the open intents of others, and the workflow in one line.
//! - **`SessionEnd`** (Claude Code, Gemini CLI): ends the session (`session.end`): its
//!   locks are released, each release audited, so that a finished agent does not block
//!   the others until its TTLs run out (`[guard] release_on_session_end = false` keeps
//!   them), and its claims end (`claims.end`, when the locks are kept). Intents stay:
//!   they are a record of what was meant, closed by their owner.
//! - **`SubagentStop`** (Claude Code): the subagent's claims become its session's
//!   (`claims.end` with `handOverTo`): its work is now the session's to carry on.
//!
//! The identity is the guard's ([`super::identity`]): `WIT_SESSION` when set, else the
//! payload's `session_id` (with the subagent's `agent_id` for `SubagentStop`). No hook
//! here ever blocks the agent (exit 0 whatever happens; problems go to stderr).

use serde_json::{Value, json};
use wit_core::protocol::{IntentRecord, LockRecord};
use wit_core::text::escape;

use crate::client::Client;
use crate::hooks::runtime;
use crate::root::Repo;

/// The session events handled here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionEvent {
    /// `SessionStart`.
    Start,
    /// `SessionEnd`.
    End,
    /// `SubagentStop`.
    SubagentStop,
}

/// The session event a hook payload announces, if it is one of ours.
pub fn event_of(input: &str) -> Option<(SessionEvent, Value)> {
    let v: Value = serde_json::from_str(input).ok()?;
    let event = match v.get("hook_event_name")?.as_str()? {
        "SessionStart" => SessionEvent::Start,
        "SessionEnd" => SessionEvent::End,
        "SubagentStop" => SessionEvent::SubagentStop,
        _ => return None,
    };
    Some((event, v))
}

/// The identity the session hooks act as: `WIT_SESSION`, else the payload's
/// `session_id`.
fn identity(payload: &Value) -> Option<String> {
    super::identity::acting(payload.get("session_id").and_then(Value::as_str), None)
}

/// Handles a session event; always exit 0.
pub fn handle(event: SessionEvent, payload: &Value, repo: &Repo) -> u8 {
    let Some(session) = identity(payload) else {
        eprintln!("wit: no session id (set WIT_SESSION); nothing registered or released");
        return 0;
    };
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("wit: {e}");
            return 0;
        }
    };
    let outcome = match event {
        SessionEvent::Start => rt.block_on(start(repo, &session)),
        SessionEvent::End => rt.block_on(end(repo, &session)),
        SessionEvent::SubagentStop => rt.block_on(subagent_stop(repo, payload, &session)),
    };
    match outcome {
        Ok(text) => {
            if !text.is_empty() {
                println!("{text}");
            }
        }
        Err(e) => eprintln!("wit: {}", escape(&e)),
    }
    0
}

async fn start(repo: &Repo, session: &str) -> Result<String, String> {
    let (mut client, _) = crate::autostart::ensure_running(repo)
        .await
        .map_err(|f| f.human())?;
    call(
        &mut client,
        "register",
        json!({"name": "claude-code", "sessionId": session}),
    )
    .await?;
    let locks: Vec<LockRecord> =
        serde_json::from_value(call(&mut client, "lock.query", json!({})).await?)
            .map_err(|e| e.to_string())?;
    let intents: Vec<IntentRecord> =
        serde_json::from_value(call(&mut client, "intent.query", json!({})).await?)
            .map_err(|e| e.to_string())?;
    let mut out = format!(
        "wit coordinates this repository. You are session {}.",
        escape(session)
    );
    let others: Vec<&LockRecord> = locks.iter().filter(|l| l.session_id != session).collect();
    let their_intents: Vec<&IntentRecord> =
        intents.iter().filter(|i| i.session_id != session).collect();
    if others.is_empty() && their_intents.is_empty() {
        out.push_str(" No other session holds locks or has open intents.");
    }
    for l in others.iter().take(10) {
        out.push_str(&format!(
            "\n- {} is locked by {} ({} min left): do not edit it; wait, or coordinate.",
            escape(&l.symbol_path),
            escape(&l.session_id),
            l.ttl_remaining_ms / 60_000
        ));
    }
    for i in their_intents.iter().take(10) {
        out.push_str(&format!(
            "\n- {} intends: {} ({})",
            escape(&i.session_id),
            escape(&i.description),
            escape(&crate::commands::intent::targets(i))
        ));
    }
    out.push_str(
        "\nBefore changing code: `wit declare --description … --files …`, `wit lock \
         file:symbol`; release with `wit release` when done.",
    );
    Ok(out)
}

async fn end(repo: &Repo, session: &str) -> Result<String, String> {
    let release = match super::guard_config::guard_config(repo) {
        Ok(c) => c.release_on_session_end,
        Err(e) => {
            eprintln!("wit: {e}");
            true
        }
    };
    // The daemon is not started for this: with none running there is nothing to release.
    let mut client = crate::autostart::connect_existing(repo, super::guard_config::LIMIT)
        .await
        .map_err(|e| e.to_string())?;
    if !release {
        // The locks stay; the claims end with the session all the same (nobody is left
        // to coordinate with about them). An older daemon has no claims.
        return match call(&mut client, "claims.end", json!({"sessionId": session})).await {
            Ok(_) => Ok(String::new()),
            Err(e) if e.contains("METHOD_NOT_FOUND") => Ok(String::new()),
            Err(e) => Err(e),
        };
    }
    // One `session.end`: the daemon releases the locks, audits each release and records
    // the end in its event log.
    let ended = call(&mut client, "session.end", json!({"sessionId": session})).await?;
    let n = ended["releasedLocks"].as_array().map_or(0, Vec::len);
    if n > 0 {
        eprintln!(
            "wit: session {} ended; released {n} lock(s)",
            escape(session)
        );
    }
    Ok(String::new())
}

/// A subagent stopped: its claims become the session's (nothing to do when `WIT_SESSION`
/// names both, or the payload names no subagent).
async fn subagent_stop(repo: &Repo, payload: &Value, session: &str) -> Result<String, String> {
    let agent = payload.get("agent_id").and_then(Value::as_str);
    let Some(subagent) =
        super::identity::acting(payload.get("session_id").and_then(Value::as_str), agent)
    else {
        return Ok(String::new());
    };
    if subagent == session {
        return Ok(String::new());
    }
    let mut client = crate::autostart::connect_existing(repo, super::guard_config::LIMIT)
        .await
        .map_err(|e| e.to_string())?;
    match call(
        &mut client,
        "claims.end",
        json!({"sessionId": subagent, "handOverTo": session}),
    )
    .await
    {
        Ok(_) => Ok(String::new()),
        Err(e) if e.contains("METHOD_NOT_FOUND") => Ok(String::new()),
        Err(e) => Err(e),
    }
}

async fn call(client: &mut Client, method: &str, params: Value) -> Result<Value, String> {
    client
        .call_value(method, params)
        .await
        .map_err(|e| format!("{method}: {e}"))
}
