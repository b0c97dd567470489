//! Daemon errors, said for the reader.

use wit_core::protocol::{ErrorCode, RpcError};

use crate::output::until;

/// A sentence explaining `e`, which happened while acting on `subject` (a symbol path or
/// an id).
pub fn explain(e: &RpcError, subject: &str) -> String {
    let held_by = data_str(e, "heldBy").unwrap_or("another session");
    match e.kind() {
        Some(ErrorCode::LockConflict) if e.data.as_ref().is_some_and(|d| d.get("lease").is_some()) => {
            let when = data_str(e, "expiresAt").map(until).unwrap_or_default();
            let paths = e
                .data
                .as_ref()
                .and_then(|d| d["lease"]["paths"].as_array())
                .map(|a| a.iter().filter_map(|p| p.as_str()).collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            format!(
                "{subject} is under an exclusive lease of {held_by} on {paths} {when}; work on \
                 something else and retry later, or coordinate with {held_by}"
            )
        }
        Some(ErrorCode::LockConflict) => {
            let when = data_str(e, "expiresAt").map(until).unwrap_or_default();
            format!(
                "{subject} is locked by {held_by} {when}; work on something else and retry later, \
                 or coordinate with {held_by}"
            )
        }
        Some(ErrorCode::LockNotHeld) => {
            format!("{subject} is locked by {held_by}, not by you; only the holder can release it")
        }
        Some(ErrorCode::LockNotFound) => format!("{subject} is not locked (or its lock expired)"),
        Some(ErrorCode::IntentNotFound) => format!("no intent {subject} (see `wit intent list --all`)"),
        Some(ErrorCode::IntentNotOwned) => match data_str(e, "owner") {
            Some(owner) => format!(
                "intent {subject} belongs to {owner}, whose session has not ended; abandon it \
                 anyway with --force --reason \"…\" (recorded), or ask {owner}"
            ),
            None => format!(
                "intent {subject} belongs to another session; only the session that declared \
                 it can update it (another may abandon it once that session ended: \
                 `wit intent abandon {subject} --reason \"…\"`)"
            ),
        },
        Some(ErrorCode::LeaseNotFound) => {
            match e.data.as_ref().and_then(|d| d.get("forced")) {
                Some(f) => format!(
                    "lease {subject} was released by force by {} ({})",
                    f["by"].as_str().unwrap_or("another session"),
                    f["reason"].as_str().unwrap_or("no reason given")
                ),
                None => format!("no lease {subject} (it expired or was released; see `wit lease list`)"),
            }
        }
        Some(ErrorCode::LeaseNotHeld) => {
            format!("lease {subject} is held by {held_by}, not by you; only the holder can change it")
        }
        Some(ErrorCode::LeaseConflict) => {
            format!("{subject} overlaps another session's lease or lock (see `wit lease list`)")
        }
        Some(ErrorCode::InvalidTransition) => {
            let cur = data_str(e, "current").unwrap_or("?");
            let req = data_str(e, "requested").unwrap_or("?");
            let allowed = match cur {
                "declared" => "it can become active, resolved or abandoned",
                "active" => "it can become resolved or abandoned",
                _ => "it is finished and cannot change any more",
            };
            format!("intent {subject} is {cur} and cannot become {req}; {allowed}")
        }
        Some(ErrorCode::SymbolNotFound) => {
            let p = data_str(e, "symbolPath").unwrap_or(subject);
            match data_str(e, "reason") {
                Some(reason) => format!("{p}: no such function or method: {reason}"),
                None => format!(
                    "{p}: no such function or method (the file is missing, its language is \
                     not supported, or it defines no callable with that name)"
                ),
            }
        }
        Some(ErrorCode::ContractNotFound) => format!("no contract {subject} (see `wit contract list`)"),
        Some(ErrorCode::ContractAlreadyResolved) => {
            let st = data_str(e, "status").unwrap_or("resolved");
            format!("contract {subject} is already {st}")
        }
        Some(ErrorCode::SelfAcceptNotAllowed) => {
            format!("you proposed contract {subject}; another session must accept or reject it")
        }
        Some(ErrorCode::InvalidRequest) => match &e.data {
            Some(d) => format!("the daemon refused the request: {}", field_errors(d)),
            None => "the daemon refused the request as invalid".into(),
        },
        Some(ErrorCode::VersionMismatch) => {
            "the daemon speaks another protocol version; run `wit daemon restart`".into()
        }
        Some(ErrorCode::MethodNotFound) => {
            "the daemon does not know this request (is it an older version? try `wit daemon restart`)".into()
        }
        _ => match &e.data {
            Some(d) => format!("the daemon failed: {} {d}", e.message),
            None => format!("the daemon failed: {}", e.message),
        },
    }
}

/// `{"fieldErrors":{"files":["must contain at least 1 item"]}}` → `files: must contain …`.
fn field_errors(d: &serde_json::Value) -> String {
    if let Some(fe) = d.get("fieldErrors").and_then(|f| f.as_object()) {
        let parts: Vec<String> = fe
            .iter()
            .map(|(k, v)| {
                let msgs = match v {
                    serde_json::Value::Array(a) => a
                        .iter()
                        .filter_map(|m| m.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    other => other.to_string(),
                };
                format!("{k}: {msgs}")
            })
            .collect();
        if !parts.is_empty() {
            return parts.join("; ");
        }
    }
    d.to_string()
}

/// The `data.<field>` string of an RPC error, if any.
fn data_str<'a>(e: &'a RpcError, field: &str) -> Option<&'a str> {
    e.data.as_ref()?.get(field)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lock_conflict_names_holder_and_time() {
        let e = RpcError::new(
            ErrorCode::LockConflict,
            Some(json!({"heldBy": "agent-7f3a", "expiresAt": "2999-01-01T00:00:00.000Z"})),
        );
        let s = explain(&e, "src/auth.ts:validateToken");
        assert!(
            s.starts_with("src/auth.ts:validateToken is locked by agent-7f3a until "),
            "{s}"
        );
        assert!(s.contains("left)"), "{s}");
    }

    #[test]
    fn field_errors_are_listed() {
        let e = RpcError::new(
            ErrorCode::InvalidRequest,
            Some(json!({"fieldErrors": {"files": ["must contain at least 1 item"]}})),
        );
        assert_eq!(
            explain(&e, ""),
            "the daemon refused the request: files: must contain at least 1 item"
        );
    }
}
