//! Who the caller is: `WIT_SESSION`, else `CLAUDE_SESSION_ID`, else `.wit/session.id`.

use std::io::Write;

use wit_boundary::witdir::Access;

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
        let id = match read_shared(repo)? {
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
            read_shared(repo).ok().flatten().map(|id| Session {
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

/// The shared id of `.wit/session.id`; `Ok(None)` when there is none yet. Refuses a
/// `.wit/` that is not wit's own, and a `session.id` that came with the repository (a
/// committed one would silently set every agent's identity).
pub fn read_shared(repo: &Repo) -> Result<Option<String>, Failure> {
    let wit = repo.wit();
    if !wit.check().map_err(Failure::other)? {
        return Ok(None);
    }
    let Some(text) = wit
        .read_small("session.id", SESSION_FILE_LIMIT)
        .map_err(Failure::other)?
    else {
        return Ok(None);
    };
    wit.check_not_committed().map_err(Failure::other)?;
    let id = text.trim();
    if id.is_empty() {
        return Ok(None);
    }
    if id.chars().any(wit_core::text::is_unsafe) {
        return Err(Failure::other(format!(
            "{}: refused: the session id contains control characters ({}); remove the file \
             and run wit again",
            wit.session_file().display(),
            wit_core::text::escape(id)
        )));
    }
    Ok(Some(id.to_owned()))
}

/// Largest `session.id` read (ids are ~14 characters).
const SESSION_FILE_LIMIT: u64 = 256;

/// Writes a fresh shared id, unless another process got there first, in which case that
/// one is used: every agent must end up with the same shared id. The id is written to a
/// private file and hard-linked into place, so nobody ever reads a half-written file.
pub fn write_shared(repo: &Repo) -> Result<String, Failure> {
    let wit = repo.ensure_wit_dir()?;
    let id = format!("agent-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let target = wit.session_file();
    let tmp_name = format!(".session.id.{}", std::process::id());
    // A leftover of a crashed process with our pid; ours to remove.
    wit.remove(&tmp_name).map_err(Failure::other)?;
    let mut tmp = wit
        .open(&tmp_name, Access::CreateNew)
        .map_err(Failure::other)?;
    writeln!(tmp, "{id}")?;
    drop(tmp);
    let linked = std::fs::hard_link(wit.file(&tmp_name), &target);
    let _ = wit.remove(&tmp_name);
    match linked {
        Ok(()) => Ok(id),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read_shared(repo)?
            .ok_or_else(|| Failure::other(format!("{} exists but is empty", target.display()))),
        Err(e) => Err(Failure::other(format!("writing {}: {e}", target.display()))),
    }
}
