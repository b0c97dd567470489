//! Who the caller is: `WIT_SESSION`, else `CLAUDE_SESSION_ID`, else `.wit/session.id`.

use std::io::Write;

use crate::exit::Failure;
use crate::root::Repo;

/// Where the session id came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `WIT_SESSION`.
    WitSession,
    /// `CLAUDE_SESSION_ID`.
    ClaudeSession,
    /// `.wit/session.id`, shared by every agent without its own id.
    Shared,
}

/// The caller's session identity.
#[derive(Debug, Clone)]
pub struct Session {
    /// The id sent as `sessionId`.
    pub id: String,
    /// Where it came from.
    pub source: Source,
}

impl Session {
    /// Resolves the identity, creating `.wit/session.id` when it is needed and missing.
    pub fn resolve(repo: &Repo) -> Result<Session, Failure> {
        if let Some(id) = from_env() {
            return Ok(id);
        }
        let id = match read_shared(repo) {
            Some(id) => id,
            None => write_shared(repo)?,
        };
        Ok(Session {
            id,
            source: Source::Shared,
        })
    }

    /// Resolves the identity without writing anything (for hooks); `None` when there is none.
    pub fn lookup(repo: &Repo) -> Option<Session> {
        from_env().or_else(|| {
            read_shared(repo).map(|id| Session {
                id,
                source: Source::Shared,
            })
        })
    }

    /// Says once on stderr that the shared identity is in use (for commands that take
    /// locks or declare intents, where sharing one identity hides conflicts).
    pub fn warn_if_shared(&self) {
        if self.source == Source::Shared {
            eprintln!(
                "wit: note: no WIT_SESSION set; using the shared identity {} from .wit/session.id. \
                 All agents without WIT_SESSION share it, so they cannot conflict with each other \
                 (set WIT_SESSION to a unique name per agent).",
                self.id
            );
        }
    }

    /// A short description of the source, for `wit status`.
    pub fn source_label(&self) -> &'static str {
        match self.source {
            Source::WitSession => "WIT_SESSION",
            Source::ClaudeSession => "CLAUDE_SESSION_ID",
            Source::Shared => "shared .wit/session.id",
        }
    }
}

fn from_env() -> Option<Session> {
    let get = |k: &str| {
        std::env::var(k)
            .ok()
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    if let Some(id) = get("WIT_SESSION") {
        return Some(Session {
            id,
            source: Source::WitSession,
        });
    }
    get("CLAUDE_SESSION_ID").map(|id| Session {
        id,
        source: Source::ClaudeSession,
    })
}

fn read_shared(repo: &Repo) -> Option<String> {
    let s = std::fs::read_to_string(repo.session_file()).ok()?;
    let id = s.trim();
    (!id.is_empty()).then(|| id.to_owned())
}

/// Writes a fresh shared id, unless another process got there first, in which case that
/// one is used: every agent must end up with the same shared id. The id is written to a
/// private file and hard-linked into place, so nobody ever reads a half-written file.
pub fn write_shared(repo: &Repo) -> Result<String, Failure> {
    repo.ensure_wit_dir()?;
    let id = format!("agent-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let target = repo.session_file();
    let tmp = repo
        .wit_dir()
        .join(format!(".session.id.{}", std::process::id()));
    std::fs::File::create(&tmp).and_then(|mut f| writeln!(f, "{id}"))?;
    let linked = std::fs::hard_link(&tmp, &target);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(id),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read_shared(repo)
            .ok_or_else(|| Failure::other(format!("{} exists but is empty", target.display()))),
        Err(e) => Err(Failure::other(format!("writing {}: {e}", target.display()))),
    }
}
