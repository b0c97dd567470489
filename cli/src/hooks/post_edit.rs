//! After an agent's edit: the post-edit hook (Claude Code and Codex `PostToolUse`, Gemini
//! CLI `AfterTool`, each running `wit guard --agent …`) reports the files the edit wrote,
//! and the definitions it changed there become the session's claims (`claims.record`;
//! see the daemon's `claims` module). It never blocks anything — the edit is made — and a
//! tool that failed records nothing. Problems (no daemon, an older daemon) are one line
//! on stderr; the daemon is never started for this.

use serde_json::json;
use wit_core::protocol::ErrorCode;
use wit_core::text::escape;

use super::guard_config::LIMIT;
use super::guard_payload::Payload;
use crate::client::CallError;
use crate::root::Repo;

/// Whether the payload reports an edit already made (or a tool that failed).
pub(crate) fn is_post_edit(p: &Payload) -> bool {
    matches!(
        p.event.as_deref(),
        Some("PostToolUse" | "PostToolUseFailure" | "AfterTool")
    )
}

/// Records the edit `payload` reports; a note for stderr when it could not be recorded.
/// `resolve` turns a payload's path into a repository-relative one (`None`: outside).
pub(crate) fn record(
    payload: &Payload,
    repo: &Repo,
    resolve: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    if payload.failed {
        return None; // nothing was written
    }
    let mut files: Vec<String> = Vec::new();
    for edit in &payload.edits {
        if let Some(rel) = resolve(&edit.path)
            && !files.contains(&rel)
        {
            files.push(rel);
        }
    }
    if files.is_empty() {
        return None;
    }
    let session =
        super::identity::acting(payload.session_id.as_deref(), payload.agent_id.as_deref())
            .or_else(|| crate::session::read_shared(repo).ok().flatten());
    let Some(session) = session else {
        return Some(
            "the hook names no session (set WIT_SESSION): the edit is not attributed".into(),
        );
    };
    let rt = match super::runtime() {
        Ok(rt) => rt,
        Err(e) => return Some(e),
    };
    rt.block_on(async {
        let mut client = match super::connect_daemon(repo, LIMIT).await {
            Ok(c) => c,
            Err(e) => return Some(format!("edit not attributed: {e}")),
        };
        match client
            .call_value(
                "claims.record",
                json!({"sessionId": session, "files": files}),
            )
            .await
        {
            Ok(_) => None,
            // An older daemon: nothing to record with.
            Err(CallError::Rpc(e)) if e.kind() == Some(ErrorCode::MethodNotFound) => None,
            Err(e) => Some(format!(
                "edit not attributed: claims.record: {}",
                escape(&e.to_string())
            )),
        }
    })
}
