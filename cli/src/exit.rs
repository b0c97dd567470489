//! How a failed command ends: its exit code, its human message and its `--json` error object.

use serde_json::{Value, json};
use wit_core::protocol::{ErrorCode, RpcError};

/// The exit codes of `wit`, shown in `wit --help`.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  success (also `declare` with conflicts: they are reported, the intent is stored)
  1  any other error (I/O, unexpected daemon answer)
  2  usage error (bad arguments, or the daemon refused the parameters: INVALID_REQUEST)
  3  refused by the coordination rules: LOCK_CONFLICT, LOCK_NOT_HELD, LOCK_NOT_FOUND,
     INTENT_NOT_FOUND, INTENT_NOT_OWNED, INVALID_TRANSITION, SYMBOL_NOT_FOUND,
     CONTRACT_NOT_FOUND, CONTRACT_ALREADY_RESOLVED, SELF_ACCEPT_NOT_ALLOWED
  4  the daemon is unreachable or could not be started
  5  `wit check-contracts` found contract violations

With --json, stdout holds exactly one JSON document; on failure it is
{\"error\":{\"code\":…,\"message\":\"LOCK_CONFLICT\",\"data\":…}} (daemon errors keep their
JSON-RPC code; errors of the CLI itself use the exit code as `code` and the names
USAGE_ERROR, DAEMON_UNREACHABLE, CONTRACT_VIOLATIONS or ERROR).

Environment:
  WIT_SESSION        your session identity (else CLAUDE_SESSION_ID, else .wit/session.id)
  WIT_REPO_ROOT      the repository root (else the nearest .wit/ upward, else the git top level)
  NO_COLOR           disables colour";

/// Success.
pub const OK: u8 = 0;
/// Any other error.
pub const OTHER: u8 = 1;
/// Usage error (clap uses 2 as well).
pub const USAGE: u8 = 2;
/// A domain error of the daemon (`-32000`).
pub const CONFLICT: u8 = 3;
/// The daemon is unreachable or failed to start.
pub const UNREACHABLE: u8 = 4;
/// `check-contracts` found violations.
pub const VIOLATIONS: u8 = 5;

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments or input the CLI itself rejects.
    Usage(String),
    /// The daemon answered with an error; `explanation` says it for a human.
    Rpc {
        /// The JSON-RPC error as received.
        error: RpcError,
        /// A sentence for the reader (`src/a.ts:f is locked by s2 until 14:32 (12 min left)`).
        explanation: String,
    },
    /// No daemon answers and none could be started.
    Unreachable(String),
    /// `check-contracts` found this many violations (already printed).
    Violations(usize),
    /// Anything else.
    Other(String),
    /// A failure already shown to the user (on stderr, or as the JSON document); only its
    /// exit code remains to be used.
    Reported(Box<Failure>),
}

impl Failure {
    /// Shorthand for [`Failure::Other`].
    pub fn other(msg: impl std::fmt::Display) -> Self {
        Failure::Other(msg.to_string())
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Usage(_) => USAGE,
            Failure::Rpc { error, .. } => match error.kind() {
                Some(ErrorCode::InvalidRequest) => USAGE,
                _ if error.code == ErrorCode::LockConflict.code() => CONFLICT,
                _ => OTHER,
            },
            Failure::Unreachable(_) => UNREACHABLE,
            Failure::Violations(_) => VIOLATIONS,
            Failure::Other(_) => OTHER,
            Failure::Reported(inner) => inner.exit_code(),
        }
    }

    /// The message printed on stderr (without the `wit: ` prefix).
    ///
    /// Control characters in it are escaped (line breaks excepted): messages quote paths,
    /// session ids and names that a repository or another agent chose.
    pub fn human(&self) -> String {
        let text = match self {
            Failure::Usage(m) | Failure::Unreachable(m) | Failure::Other(m) => m.clone(),
            Failure::Rpc { explanation, .. } => explanation.clone(),
            Failure::Violations(n) => format!("{n} contract violation(s)"),
            Failure::Reported(inner) => return inner.human(),
        };
        wit_core::text::escape_keep_newlines(&text).into_owned()
    }

    /// The `--json` document: `{"error":{"code","message","data"}}`.
    pub fn json(&self) -> Value {
        let (code, message, data) = match self {
            Failure::Rpc { error, explanation } => {
                let mut data = error.data.clone().unwrap_or(Value::Null);
                if let Value::Object(map) = &mut data {
                    map.entry("explanation")
                        .or_insert_with(|| json!(explanation));
                } else if data.is_null() {
                    data = json!({ "explanation": explanation });
                }
                return json!({"error": {"code": error.code, "message": error.message, "data": data}});
            }
            Failure::Usage(m) => (USAGE, "USAGE_ERROR", m),
            Failure::Unreachable(m) => (UNREACHABLE, "DAEMON_UNREACHABLE", m),
            Failure::Other(m) => (OTHER, "ERROR", m),
            Failure::Reported(inner) => return inner.json(),
            Failure::Violations(n) => {
                return json!({"error": {"code": VIOLATIONS, "message": "CONTRACT_VIOLATIONS", "data": {"count": n}}});
            }
        };
        json!({"error": {"code": code, "message": message, "data": {"explanation": data}}})
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Other(e.to_string())
    }
}

/// A command's result.
pub type CmdResult<T = ()> = Result<T, Failure>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domain_errors_exit_3_and_invalid_request_exits_2() {
        let rpc = |code: ErrorCode| Failure::Rpc {
            error: RpcError::new(code, None),
            explanation: String::new(),
        };
        assert_eq!(rpc(ErrorCode::LockConflict).exit_code(), CONFLICT);
        assert_eq!(rpc(ErrorCode::SelfAcceptNotAllowed).exit_code(), CONFLICT);
        assert_eq!(rpc(ErrorCode::InvalidRequest).exit_code(), USAGE);
        assert_eq!(rpc(ErrorCode::InternalError).exit_code(), OTHER);
        assert_eq!(Failure::Unreachable(String::new()).exit_code(), UNREACHABLE);
    }

    #[test]
    fn rpc_error_json_keeps_code_message_and_data() {
        let f = Failure::Rpc {
            error: RpcError::new(ErrorCode::LockConflict, Some(json!({"heldBy": "s2"}))),
            explanation: "locked".into(),
        };
        let v = f.json();
        assert_eq!(v["error"]["code"], -32000);
        assert_eq!(v["error"]["message"], "LOCK_CONFLICT");
        assert_eq!(v["error"]["data"]["heldBy"], "s2");
    }
}
