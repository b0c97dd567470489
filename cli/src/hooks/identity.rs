//! Who an agent's hook speaks for, without any setup.
//!
//! `WIT_SESSION`, set where the agent is started (`WIT_SESSION=agent-a claude`), is the
//! one identity whenever it is set: the hooks and the agent's own `wit` commands inherit
//! the same value. Without it, each agent session is an identity of its own, as its hook
//! payloads name it: the payload's `session_id` (Claude Code, Codex and Gemini CLI all
//! send one), and inside a Claude Code subagent `<session_id>/<agent_id>` (its own work,
//! told apart from the session that started it; its claims go to that session when the
//! subagent stops). Two agents started side by side in one checkout are then two
//! identities with nothing to configure.

use std::collections::HashSet;

/// A non-empty, trimmed environment variable.
fn env(key: &str) -> Option<String> {
    std::env::var(key)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// The identity a hook acts as: `WIT_SESSION`, else the payload's session (and subagent),
/// else `CLAUDE_SESSION_ID`; `None` when there is none.
pub(crate) fn acting(session_id: Option<&str>, agent_id: Option<&str>) -> Option<String> {
    if let Some(id) = env("WIT_SESSION") {
        return Some(id);
    }
    let session = session_id.map(str::trim).filter(|s| !s.is_empty());
    match (session, agent_id.map(str::trim).filter(|a| !a.is_empty())) {
        (Some(s), Some(a)) => Some(format!("{s}/{a}")),
        (Some(s), None) => Some(s.to_owned()),
        (None, _) => env("CLAUDE_SESSION_ID"),
    }
}

/// Whether `WIT_SESSION` decides the identity (then no fallback identity counts).
pub(crate) fn explicit() -> bool {
    env("WIT_SESSION").is_some()
}

/// The identities whose locks and leases are the agent's own: `WIT_SESSION` alone when it
/// is set; otherwise every identity the agent's `wit` commands could have used (the
/// payload's session, the subagent's, `CLAUDE_SESSION_ID`; the shared `.wit/session.id` is
/// added by the caller when it matters, since reading it runs git), so that no agent is
/// ever refused its own lock.
pub(crate) fn lock_holders(session_id: Option<&str>, agent_id: Option<&str>) -> HashSet<String> {
    if let Some(id) = env("WIT_SESSION") {
        return HashSet::from([id]);
    }
    let mut mine: HashSet<String> = session_id
        .map(|s| s.trim().to_owned())
        .into_iter()
        .chain(env("CLAUDE_SESSION_ID"))
        .collect();
    mine.extend(acting(session_id, agent_id));
    mine
}
