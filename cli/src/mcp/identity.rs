//! Which session an MCP server acts as.
//!
//! One `wit mcp` process serves one MCP client (stdio), usually one agent. Its identity is,
//! in order:
//!
//! 1. `WIT_SESSION` (else `CLAUDE_SESSION_ID`) in the server's environment, as set in the
//!    MCP configuration: the same identity the agent's `wit` commands and hooks use.
//! 2. Otherwise the MCP client's name (`clientInfo.name` of `initialize`, or of the
//!    request's metadata in stateless protocol versions) plus a random suffix drawn once
//!    per server process: `claude-code-3f9a1c2e`. Two agents of the same client program
//!    run two servers, so they get two identities and their conflicts show.
//! 3. Otherwise the server refuses to guess: every tool that acts as a session fails with a
//!    message saying to set `WIT_SESSION`.
//!
//! The shared `.wit/session.id` of the CLI is never used: every agent without its own id
//! would share it, and agents sharing one identity never conflict, which hides exactly the
//! collisions wit exists to show. There is no per-tool `session` argument either, for the
//! same reason: a model copying an id from `wit_status` output would act as another agent.
//!
//! Once chosen, the identity is fixed for the life of the process, so one agent's locks
//! are all held by one session.

use std::sync::OnceLock;

use crate::exit::Failure;
use crate::root::Repo;
use crate::session::{Session, Source};

/// Where the identity came from, as `wit_status` reports it.
pub const SOURCE_CLIENT_NAME: &str = "MCP clientInfo.name + per-process suffix";

/// The identity of one server process.
pub struct Identity {
    /// The identity of the environment, when there is one (it wins over the client's name).
    from_env: Option<Session>,
    /// The random part appended to the client's name, drawn once per process.
    suffix: String,
    /// The identity built from the first client name seen.
    from_client: OnceLock<String>,
}

impl Identity {
    /// Reads the environment (never `.wit/session.id`) and draws the suffix.
    pub fn new(repo: &Repo) -> Identity {
        let from_env = Session::lookup(repo).filter(|s| s.source != Source::Shared);
        Identity {
            from_env,
            suffix: uuid::Uuid::new_v4().simple().to_string()[..8].to_owned(),
            from_client: OnceLock::new(),
        }
    }

    /// The session id and where it came from. `client_name` is the MCP client's
    /// `clientInfo.name`, when the client sent one.
    pub fn resolve(&self, client_name: Option<&str>) -> Result<(String, &'static str), Failure> {
        if let Some(s) = &self.from_env {
            return Ok((s.id.clone(), s.source_label()));
        }
        if let Some(id) = self.from_client.get() {
            return Ok((id.clone(), SOURCE_CLIENT_NAME));
        }
        let name = client_name.map(sanitize).unwrap_or_default();
        if name.is_empty() {
            return Err(Failure::Usage(
                "no session identity: set WIT_SESSION (a unique name per agent) in the env of \
                 this MCP server's configuration; the MCP client did not send a usable \
                 clientInfo.name to derive one from"
                    .into(),
            ));
        }
        let id = self
            .from_client
            .get_or_init(|| format!("{name}-{}", self.suffix));
        Ok((id.clone(), SOURCE_CLIENT_NAME))
    }
}

/// A client name cut down to something readable in `wit status` and safe in a session id:
/// ASCII letters, digits, `.`, `_` and `-` (anything else becomes `-`), at most 40 characters.
fn sanitize(name: &str) -> String {
    let cleaned: String = name
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    cleaned.trim_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bare() -> Identity {
        Identity {
            from_env: None,
            suffix: "abcd1234".into(),
            from_client: OnceLock::new(),
        }
    }

    #[test]
    fn the_client_name_gets_the_suffix_and_stays_fixed() {
        let id = bare();
        assert_eq!(
            id.resolve(Some("Claude Code")).unwrap().0,
            "Claude-Code-abcd1234"
        );
        // A later request naming another client does not change who the process is.
        assert_eq!(id.resolve(Some("other")).unwrap().0, "Claude-Code-abcd1234");
        assert_eq!(id.resolve(None).unwrap().0, "Claude-Code-abcd1234");
    }

    #[test]
    fn no_name_is_refused_rather_than_guessed() {
        let id = bare();
        assert!(id.resolve(None).is_err());
        assert!(id.resolve(Some(" \u{1b}[ ")).is_err());
    }
}
