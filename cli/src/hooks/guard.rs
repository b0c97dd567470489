//! `wit guard`: the agents' pre-edit hook. Refuses an edit that changes a symbol another
//! session has locked, at the moment the agent makes it, in the agent's own convention.
//!
//! The hook hands the guard the tool call as JSON on stdin (see [`guard_payload`] for
//! each agent's shape). The guard finds the bytes of the current file the edit replaces
//! ([`guard_ranges`]), asks the daemon which locks other sessions hold in that file
//! (`lock.query`) and, only when there are some, which definitions those bytes belong
//! to (`symbols.at`); a touched definition locked by another session refuses the edit.
//! A file under another session's exclusive lease (`lease.query`) refuses it too, new
//! files included. An edit the locks and leases allow is then checked against the
//! conflict forecast (`conflicts.forecast {file}`): when another checkout (git worktree)
//! of the repository changed that file, or a standing forecast touches it, the edit goes
//! through with a warning (see below) — never a refusal, since uncommitted work elsewhere
//! binds nobody. Other sessions' claims are checked too (`claims.check`, see
//! [`claims_check`]). The locks and leases, the claims and the forecast are asked at once,
//! on three connections, and weighed in that order; no git of its own.
//!
//! **Answer.** Every supported agent (Claude Code, Codex, Gemini CLI) blocks a tool call
//! when its hook exits 2, and shows the hook's stderr to the model as the reason; exit 0
//! lets the call through. The guard refuses exactly that way, not with the JSON forms
//! (`hookSpecificOutput.permissionDecision`, Gemini's `decision`), because it is the one
//! convention all three share and the oldest: a refusal is the reason on stderr and exit
//! 2. An allowed edit prints nothing (Gemini CLI: `{}`, the empty JSON answer its
//! reference asks for) and never answers "allow", which would skip the user's own
//! permission prompt. A warning is exit 0 with JSON on stdout, without a permission
//! decision for the same reason: for Claude Code and Codex,
//! `hookSpecificOutput.additionalContext` (added to the model's context before the tool
//! runs) and `systemMessage` (shown to the user); Gemini CLI's `BeforeTool` documents no
//! field the model reads on an allowed call, so it gets `systemMessage`, for the user.
//!
//! **Identity.** The guard must see the same session the agent's `wit` commands use, or
//! an agent would be refused its own lock. When `WIT_SESSION` is set in the guard's
//! environment, it is the only identity: set it where the agent is started
//! (`WIT_SESSION=agent-a claude`), and the hook and the agent's shell commands inherit
//! the same value. Without it, the agent's commands use `CLAUDE_SESSION_ID` or the shared
//! `.wit/session.id`, and the payload carries the agent's own `session_id`: the guard
//! counts a lock held by any of these as the agent's own. So a lock is never refused to
//! the agent that took it; agents without `WIT_SESSION` share the fallback identity and
//! do not protect against each other, exactly as their `wit lock` calls do not.
//!
//! **Allowed** without asking further: a tool call that is no edit, a path outside the
//! repository (or escaping it through `..` or a symlink: never read), a file that does not
//! exist yet (a `Write` creating it), a file wit cannot read or analyse, an edit whose
//! text is not in the file (the tool will fail by itself).
//!
//! **No daemon.** The guard never starts one (like the git hooks). With none running, or
//! none answering within [`LIMIT`], the edit is allowed with one line on stderr, unless
//! `wit.toml` sets `[guard] fail_closed = true`, which refuses it with that reason. The
//! forecast is advice: it gets what is left of [`LIMIT`], and a daemon without it, an
//! error or a late answer just means no warning.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::json;
use wit_core::protocol::{ErrorCode, LeaseRecord, LockRecord};
use wit_core::text::escape;

use super::guard_config::{LIMIT, guard_config};
use super::guard_payload::{self as payload, Agent, Change, Payload};
use super::guard_ranges::{self as ranges, Range, Replaced};
use crate::args::GuardArgs;
use crate::client::{CallError, Client};
use crate::duration::human_span;
use crate::forecast;
use crate::hooks::{runtime, with_deadline};
use crate::root::{self, Repo};

/// Largest hook input read (a `Write` carries the whole new file).
const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Largest current file read to find the changed bytes. Larger than any analysable file
/// (the daemon's `max_file_bytes` decides that), so the guard never skips a file the
/// daemon would analyse.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The exit code that blocks the tool call in every supported agent.
const REFUSE: u8 = 2;

/// What the guard concluded.
#[derive(Debug)]
enum Verdict {
    /// Let the edit through; an optional note for stderr.
    Allow(Option<String>),
    /// Let the edit through with a warning for the model (and the user): another
    /// checkout's work may collide with it.
    Warn(String),
    /// Refuse it, with the reason for the model.
    Refuse(String),
    /// The check could not run (no daemon, no answer, bad input): `[guard] fail_closed`
    /// decides.
    Unchecked(String),
}

/// Runs the guard; returns the exit code.
pub fn run(args: &GuardArgs) -> u8 {
    let agent = args.agent;
    if agent == Agent::Cursor {
        // Cursor's hooks give either a shell command (beforeShellExecution) or the edit
        // after it happened (afterFileEdit): nothing to check before an edit.
        eprintln!(
            "wit guard: Cursor's hooks do not give the file and the change before an edit; \
             nothing checked (see the README, \"Edit-time guard\")"
        );
        return allow(agent);
    }
    let mut input = String::new();
    if let Err(e) = std::io::stdin()
        .take(MAX_INPUT_BYTES)
        .read_to_string(&mut input)
    {
        return unchecked(agent, None, format!("reading the hook's input: {e}"));
    }
    let repo = match root::discover() {
        Ok(repo) => repo,
        // Not in a repository: nothing wit coordinates.
        Err(_) => return allow(agent),
    };
    // Claude Code's session hooks go to the same command (one identity for all hooks).
    if let Some((event, payload)) = super::agent_session::event_of(&input) {
        return super::agent_session::handle(event, &payload, &repo);
    }
    // No `.wit/`: wit is not used here (the guard may be configured for every project).
    if std::fs::symlink_metadata(repo.wit().dir()).is_err() {
        return allow(agent);
    }
    let checked = {
        let repo = repo.clone();
        with_deadline(LIMIT, move || decide(agent, &input, &repo))
    };
    match checked {
        Some(Verdict::Allow(note)) => {
            if let Some(note) = note {
                eprintln!("wit guard: {note}");
            }
            allow(agent)
        }
        Some(Verdict::Warn(text)) => warn(agent, &text),
        Some(Verdict::Refuse(reason)) => {
            eprintln!("{reason}");
            REFUSE
        }
        Some(Verdict::Unchecked(why)) => unchecked(agent, Some(&repo), why),
        None => unchecked(
            agent,
            Some(&repo),
            format!("the daemon did not answer within {} s", LIMIT.as_secs()),
        ),
    }
}

/// The answer that lets the tool call through.
fn allow(agent: Agent) -> u8 {
    if agent == Agent::Gemini {
        // Gemini CLI parses stdout as JSON on exit 0; `{}` is its documented no-op answer.
        println!("{{}}");
    }
    0
}

/// The answer that lets the tool call through with `text` (escaped already) for the
/// model and the user, in the agent's convention (see the module documentation).
fn warn(agent: Agent, text: &str) -> u8 {
    let answer = match agent {
        Agent::Gemini => json!({ "systemMessage": text }),
        _ => json!({
            "systemMessage": text,
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text},
        }),
    };
    println!("{answer}");
    0
}

/// The check could not run: fail open (one line) unless `[guard] fail_closed = true`.
fn unchecked(agent: Agent, repo: Option<&Repo>, why: String) -> u8 {
    let (fail_closed, config_note) = match repo.map(fail_closed) {
        Some(Ok(closed)) => (closed, None),
        Some(Err(e)) => (false, Some(e)),
        None => (false, None),
    };
    if let Some(note) = config_note {
        eprintln!("wit guard: {note}");
    }
    let why = escape(&why);
    if fail_closed {
        eprintln!(
            "wit guard: refused: this edit could not be checked against other sessions' locks \
             ({why}), and wit.toml sets [guard] fail_closed = true. Start the daemon with \
             `wit daemon start` (or any wit command), then retry the edit."
        );
        REFUSE
    } else {
        eprintln!("wit guard: edit not checked against locks: {why} (the guard starts no daemon)");
        allow(agent)
    }
}

/// `[guard] fail_closed` of the repository's `wit.toml` (read only when the check could
/// not run, so the common path does not pay for it).
fn fail_closed(repo: &Repo) -> Result<bool, String> {
    guard_config(repo)
        .map(|g| g.fail_closed)
        .map_err(|e| format!("{e}; failing open"))
}

/// One file the edit changes, and where.
#[derive(Debug)]
struct Touched {
    /// Repository-relative, `/`-separated, normalized.
    rel: String,
    /// The ranges of its current content the edit replaces, with their replacements.
    changes: Vec<Replaced>,
}

fn decide(agent: Agent, input: &str, repo: &Repo) -> Verdict {
    let started = Instant::now();
    let payload = match payload::parse(agent, input) {
        Ok(p) => p,
        Err(e) => return Verdict::Unchecked(e),
    };
    if super::post_edit::is_post_edit(&payload) {
        // After the edit: recorded, never refused (the edit is made).
        return Verdict::Allow(super::post_edit::record(&payload, repo, &|p| {
            repo_relative(&repo.root, payload.cwd.as_deref(), p)
        }));
    }
    let touched = touched_files(&payload, &repo.root);
    // Every repository file the edits write, new ones included: what leases cover.
    let mut paths: Vec<String> = Vec::new();
    for edit in &payload.edits {
        if let Some(rel) = repo_relative(&repo.root, payload.cwd.as_deref(), &edit.path)
            && !paths.contains(&rel)
        {
            paths.push(rel);
        }
    }
    if touched.is_empty() && paths.is_empty() {
        return Verdict::Allow(None);
    }
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => return Verdict::Unchecked(e),
    };
    rt.block_on(check(repo, &payload, &touched, &paths, started))
}

/// The repository files the payload's edits change, with the changed byte ranges of
/// their current content. Files outside the repository, missing, unreadable or not text
/// are left out: there is nothing wit could say about them.
fn touched_files(payload: &Payload, root: &Path) -> Vec<Touched> {
    let mut out = Vec::new();
    for edit in &payload.edits {
        let Some(rel) = repo_relative(root, payload.cwd.as_deref(), &edit.path) else {
            continue;
        };
        let content = match wit_boundary::read_repo_file(root, &rel, MAX_FILE_BYTES) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(_) => continue,
            },
            // A new file (or one refused: a FIFO, a symlink out, too large).
            Err(_) => continue,
        };
        let whole = |text: String| {
            vec![Replaced {
                range: Range {
                    start: 0,
                    end: content.len(),
                },
                text,
            }]
        };
        let changes = match &edit.change {
            Change::Write(new) => ranges::diff_replaced(&content, new),
            Change::Delete => whole(String::new()),
            Change::Replace(reps) => replacement_ranges(&content, reps),
            // A move's destination already there is written over as a whole (with what
            // is not known here: the claims check reads the result itself).
            Change::Moved { .. } => whole(String::new()),
        };
        if !changes.is_empty() {
            out.push(Touched { rel, changes });
        }
    }
    out
}

/// The ranges a list of replacements changes, with their replacements. Each is looked up
/// in the current content; when one is not there (a `MultiEdit` step that edits the text
/// an earlier step wrote), the steps are applied in order and the result diffed with the
/// current content.
fn replacement_ranges(content: &str, reps: &[payload::Replacement]) -> Vec<Replaced> {
    let mut out = Vec::new();
    for rep in reps {
        match ranges::replacements(content, &rep.old, &rep.new, rep.all) {
            Some(found) => out.extend(found),
            None => {
                let mut result = content.to_owned();
                for rep in reps.iter().filter(|r| !r.old.is_empty()) {
                    result = if rep.all {
                        result.replace(&rep.old, &rep.new)
                    } else {
                        result.replacen(&rep.old, &rep.new, 1)
                    };
                }
                return ranges::diff_replaced(content, &result);
            }
        }
    }
    out
}

/// `path` (from the payload: untrusted) as a normalized repository-relative path, or
/// `None` when it is outside the repository. Relative paths are taken from the agent's
/// `cwd` when it gave an absolute one, else from the root. `..` is resolved lexically and
/// a path that climbs out is outside. Symlinks inside the repository are resolved to the
/// file they name (`alias/a.ts` with `alias -> src` is `src/a.ts`), so that locks,
/// leases and claims are matched on the file the edit really writes; one that leads out
/// of the repository is outside.
fn repo_relative(root: &Path, cwd: Option<&str>, path: &str) -> Option<String> {
    let rel = lexical_relative(root, cwd, path)?;
    resolved(root, &rel)
}

/// `rel` with every symlink on its way resolved, still beneath `root`; `None` when it
/// leads out. What does not exist yet (a new file, a new directory) is resolved through
/// its nearest existing ancestor; a dangling symlink names where it points.
fn resolved(root: &Path, rel: &str) -> Option<String> {
    let mut existing = root.join(rel);
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let mut path = loop {
        if let Ok(real) = existing.canonicalize() {
            break real;
        }
        if std::fs::symlink_metadata(&existing).is_ok_and(|m| m.file_type().is_symlink()) {
            let target = std::fs::read_link(&existing).ok()?;
            break lexical(&existing.parent()?.join(target))?;
        }
        rest.push(existing.file_name()?.to_owned());
        existing = existing.parent()?.to_path_buf();
    };
    for name in rest.iter().rev() {
        path.push(name);
    }
    relative_to(&path, root)
}

/// [`repo_relative`] without resolving symlinks inside the repository.
fn lexical_relative(root: &Path, cwd: Option<&str>, path: &str) -> Option<String> {
    if path.is_empty() || path.contains('\0') {
        return None;
    }
    let given = Path::new(path);
    let abs = if given.is_absolute() {
        given.to_path_buf()
    } else {
        match cwd.map(Path::new).filter(|c| c.is_absolute()) {
            Some(cwd) => cwd.join(given),
            None => root.join(given),
        }
    };
    let abs = lexical(&abs)?;
    if let Some(rel) = relative_to(&abs, root) {
        return Some(rel);
    }
    // The agent may spell the root differently (a symlinked home or /tmp): resolve the
    // directory that holds the file, which exists even when the file is new.
    let parent = abs.parent()?.canonicalize().ok()?;
    relative_to(&parent.join(abs.file_name()?), root)
}

fn relative_to(abs: &Path, root: &Path) -> Option<String> {
    let rel = abs.strip_prefix(root).ok()?;
    let parts: Vec<&str> = rel
        .components()
        .map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect::<Option<_>>()?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Resolves `.` and `..` without touching the disk; `None` when `..` climbs above `/`.
fn lexical(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// Who the guard speaks for (see [`super::identity`]).
struct Identity {
    /// Locks and leases held by these are the agent's own.
    mine: HashSet<String>,
    /// Whether `WIT_SESSION` decided it (then no fallback identity counts).
    explicit: bool,
    /// The identity its claims are checked as.
    acting: Option<String>,
}

impl Identity {
    fn resolve(payload: &Payload) -> Identity {
        let (session, agent) = (payload.session_id.as_deref(), payload.agent_id.as_deref());
        Identity {
            mine: super::identity::lock_holders(session, agent),
            explicit: super::identity::explicit(),
            acting: super::identity::acting(session, agent),
        }
    }
}

#[derive(Deserialize)]
struct SymbolsAt {
    status: String,
    #[serde(default)]
    symbols: Vec<TouchedSymbol>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TouchedSymbol {
    #[serde(default)]
    symbol_paths: Vec<String>,
}

async fn check(
    repo: &Repo,
    payload: &Payload,
    touched: &[Touched],
    paths: &[String],
    started: Instant,
) -> Verdict {
    let connect = || super::connect_daemon(repo, LIMIT);
    let mut client = match connect().await {
        Ok(c) => c,
        Err(why) => return Verdict::Unchecked(why),
    };
    let identity = Identity::resolve(payload);
    // Other sessions' uncommitted changes of the code the edit changes (their claims).
    // The shared identity is read only without one of the agent's own: reading it checks
    // that `.wit/` is not committed, which runs git.
    let me = match identity.acting.clone() {
        Some(me) => Some(me),
        None => crate::session::read_shared(repo).ok().flatten(),
    };
    // The three questions are asked at once, each on a connection of its own, and their
    // answers weighed in order: locks and leases refuse first, then claims, then the
    // forecast warns. Asked one after the other, the guard waited for each round trip
    // in turn, and most of its time on the daemon's claims check, which now runs beside
    // the others. A refused edit's claims check is not wasted work for the daemon: what
    // it remembers of the edit (its content, expected from this session) lapses unseen.
    let claims = async {
        let Some(me) = me.as_deref() else {
            return Ok(ClaimsVerdict::Nothing);
        };
        let mut client = connect().await?;
        claims_check(repo, &mut client, payload, touched, me).await
    };
    let forecast = async {
        let mut client = connect().await.ok()?;
        forecast_warning(&mut client, paths, started).await
    };
    let (held, claimed, forecast) = tokio::join!(
        held_elsewhere(repo, &mut client, &identity, touched, paths),
        claims,
        forecast
    );
    if let Err(verdict) = held {
        return verdict;
    }
    let mut warnings = Vec::new();
    match claimed {
        Ok(ClaimsVerdict::Refuse(text)) => return Verdict::Refuse(text),
        Ok(ClaimsVerdict::Warn(text)) => warnings.push(text),
        Ok(ClaimsVerdict::Nothing) => {}
        Err(why) => return Verdict::Unchecked(why),
    }
    warnings.extend(forecast);
    if warnings.is_empty() {
        Verdict::Allow(None)
    } else {
        Verdict::Warn(warnings.join("\n"))
    }
}

/// Refuses (`Err`) an edit of a definition another session has locked or of a file
/// another session has leased exclusively.
async fn held_elsewhere(
    repo: &Repo,
    client: &mut Client,
    identity: &Identity,
    touched: &[Touched],
    paths: &[String],
) -> Result<(), Verdict> {
    let locks: Vec<LockRecord> = match client.call("lock.query", json!({})).await {
        Ok(l) => l,
        Err(e) => return Err(Verdict::Unchecked(call_failure("lock.query", e))),
    };
    let mut conflicts: Vec<LockRecord> = Vec::new();
    for file in touched {
        // Other sessions' locks in this file; none (the usual case) ends it here.
        let foreign: Vec<&LockRecord> = locks
            .iter()
            .filter(|l| l.symbol_path.split_once(':').map(|(f, _)| f) == Some(file.rel.as_str()))
            .filter(|l| !identity.mine.contains(&l.session_id))
            .collect();
        if foreign.is_empty() {
            continue;
        }
        let ranges: Vec<_> = file
            .changes
            .iter()
            .map(|r| json!({"startByte": r.range.start, "endByte": r.range.end}))
            .collect();
        let at: SymbolsAt = match client
            .call("symbols.at", json!({"file": file.rel, "ranges": ranges}))
            .await
        {
            Ok(at) => at,
            Err(e) => return Err(Verdict::Unchecked(call_failure("symbols.at", e))),
        };
        if at.status != "analysed" {
            // A file wit cannot analyse has no symbols to protect.
            continue;
        }
        for symbol in &at.symbols {
            for lock in &foreign {
                if symbol.symbol_paths.contains(&lock.symbol_path)
                    && !conflicts.iter().any(|c| c.symbol_path == lock.symbol_path)
                {
                    conflicts.push((*lock).clone());
                }
            }
        }
    }
    // Other sessions' exclusive leases over the edited files, new ones too (an older
    // daemon has no leases).
    let mut leases: Vec<LeaseRecord> = match client
        .call::<serde_json::Value>("lease.query", json!({"files": paths}))
        .await
    {
        Ok(v) => serde_json::from_value(v["leases"].clone()).unwrap_or_default(),
        Err(CallError::Rpc(e)) if e.kind() == Some(ErrorCode::MethodNotFound) => Vec::new(),
        Err(e) => return Err(Verdict::Unchecked(call_failure("lease.query", e))),
    };
    leases.retain(|l| l.is_exclusive() && !identity.mine.contains(&l.session_id));
    if (!conflicts.is_empty() || !leases.is_empty()) && !identity.explicit {
        // The shared identity is the agent's too when it has no WIT_SESSION. Read only
        // now: reading it checks that `.wit/` is not committed, which runs git.
        if let Ok(Some(shared)) = crate::session::read_shared(repo) {
            conflicts.retain(|c| c.session_id != shared);
            leases.retain(|l| l.session_id != shared);
        }
    }
    match (conflicts.is_empty(), leases.is_empty()) {
        (false, _) => Err(Verdict::Refuse(refusal(&conflicts))),
        (true, false) => Err(Verdict::Refuse(lease_refusal(&leases))),
        (true, true) => Ok(()),
    }
}

/// What other sessions' claims make of an edit.
enum ClaimsVerdict {
    /// Nothing to say.
    Nothing,
    /// Let it through with this warning.
    Warn(String),
    /// Refuse it, with this reason.
    Refuse(String),
}

/// Asks the daemon (`claims.check`) what each edited file, as the edit leaves it, runs
/// into: an edit that undoes another session's uncommitted change is refused whatever
/// `wit.toml` says (the lost update of a write from a stale read); one that changes code
/// another session changed is a warning, or a refusal under `[guard] claimed =
/// "refuse"`; a call of a definition whose signature another session changed is a
/// warning. Files whose content after the edit cannot be known (a replacement not found:
/// the tool fails by itself) are not asked about. A daemon without claims says nothing.
async fn claims_check(
    repo: &Repo,
    client: &mut Client,
    payload: &Payload,
    touched: &[Touched],
    me: &str,
) -> Result<ClaimsVerdict, String> {
    let mut files = Vec::new();
    for edit in &payload.edits {
        let Some(rel) = repo_relative(&repo.root, payload.cwd.as_deref(), &edit.path) else {
            continue;
        };
        let resolve = |p: &str| repo_relative(&repo.root, payload.cwd.as_deref(), p);
        let Some(content) =
            super::edited::after(&repo.root, &rel, &edit.change, MAX_FILE_BYTES, resolve)
        else {
            continue;
        };
        let mut item = json!({"file": rel, "content": content});
        // Where the edit lands in the current content: the daemon then compares only the
        // definitions there instead of analysing the whole new content.
        if let Some(t) = touched.iter().find(|t| t.rel == rel)
            && !matches!(edit.change, Change::Moved { .. } | Change::Delete)
        {
            item["edits"] = t
                .changes
                .iter()
                .map(
                    |c| json!({"startByte": c.range.start, "endByte": c.range.end, "text": c.text}),
                )
                .collect();
        }
        files.push(item);
    }
    if files.is_empty() {
        return Ok(ClaimsVerdict::Nothing);
    }
    let answer = match client
        .call_value("claims.check", json!({"sessionId": me, "files": files}))
        .await
    {
        Ok(a) => a,
        Err(CallError::Rpc(e)) if e.kind() == Some(ErrorCode::MethodNotFound) => {
            return Ok(ClaimsVerdict::Nothing);
        }
        Err(e) => return Err(call_failure("claims.check", e)),
    };
    let checked: Vec<crate::claims::FileCheck> = crate::claims::each(&answer, "files");
    let hits: Vec<&crate::claims::Claim> = checked.iter().flat_map(|f| &f.hits).collect();
    let collisions: Vec<&forecast::Forecast> = checked.iter().flat_map(|f| &f.collisions).collect();
    let undone: Vec<&crate::claims::Claim> = hits.iter().copied().filter(|c| c.undoes).collect();
    if !undone.is_empty() {
        return Ok(ClaimsVerdict::Refuse(crate::claims::refusal(&undone, &[])));
    }
    if !hits.is_empty() {
        let refuse = match super::guard_config::claims_config(repo) {
            Ok(c) => c.on_claimed == wit_core::config::OnClaimed::Refuse,
            Err(e) => {
                eprintln!("wit guard: {e}; warning instead");
                false
            }
        };
        if refuse {
            return Ok(ClaimsVerdict::Refuse(crate::claims::refusal(&[], &hits)));
        }
    }
    Ok(match crate::claims::warning(&hits, &collisions) {
        Some(text) => ClaimsVerdict::Warn(text),
        None => ClaimsVerdict::Nothing,
    })
}

/// Most edited files asked about (a Codex patch may touch many; an edit of Claude Code
/// or Gemini CLI touches one: one call).
const FORECAST_FILES: usize = 4;

/// Kept free of the forecast at the end of [`LIMIT`], so that a slow answer costs the
/// warning, never the verdict already reached.
const FORECAST_MARGIN: Duration = Duration::from_millis(200);

/// The warning for an edit of `paths` from the conflict forecast: what other checkouts
/// changed in these files and the forecasts touching them, asked within what is left of
/// the guard's time. `None` (no warning) when there is nothing, and whenever the answer
/// does not come: a daemon without the forecast, an error, or too late.
async fn forecast_warning(
    client: &mut Client,
    paths: &[String],
    started: Instant,
) -> Option<String> {
    let mut warnings = Vec::new();
    for file in paths.iter().take(FORECAST_FILES) {
        let left = LIMIT.checked_sub(started.elapsed() + FORECAST_MARGIN)?;
        let call = client.call_value("conflicts.forecast", json!({ "file": file }));
        let Ok(Ok(answer)) = tokio::time::timeout(left, call).await else {
            break;
        };
        let answer = forecast::Answer::parse(&answer);
        warnings.extend(forecast::edit_warning(&answer, file));
    }
    (!warnings.is_empty()).then(|| warnings.join("\n"))
}

/// The reason shown to the model when another session leased the file exclusively.
fn lease_refusal(leases: &[LeaseRecord]) -> String {
    let mut text = String::from(
        "wit guard: refused: this edit changes a file another session has leased exclusively:\n",
    );
    for lease in leases {
        let files = lease.files.join(", ");
        text.push_str(&format!(
            "  {} — under {} (lease {}) held by {} for {} more{}\n",
            escape(&files),
            escape(&lease.paths.join(" ")),
            escape(&lease.lease_id),
            escape(&lease.session_id),
            human_span(lease.ttl_remaining_ms),
            lease
                .reason
                .as_deref()
                .map(|r| format!(": {}", escape(r)))
                .unwrap_or_default(),
        ));
    }
    let first = &leases[0];
    text.push_str(&format!(
        "Do not edit around the lease (no copy of the code elsewhere, no write through the shell). \
         Instead: work on something else and retry when the lease ends (`wit lease list` shows \
         the time left), or ask {} to release it (`wit lease release {}`).",
        escape(&first.session_id),
        escape(&first.lease_id),
    ));
    text
}

fn call_failure(method: &str, e: CallError) -> String {
    match e {
        CallError::Rpc(e) if e.kind() == Some(ErrorCode::MethodNotFound) => format!(
            "the running daemon predates {method}; restart it with `wit daemon stop` and any \
             wit command"
        ),
        e => format!("{method}: {e}"),
    }
}

/// The reason shown to the model: which symbols, who holds them and for how long, and
/// what to do instead. Every name in it came from another agent or the repository, so
/// it is escaped.
fn refusal(conflicts: &[LockRecord]) -> String {
    let mut text =
        String::from("wit guard: refused: this edit changes code another session has locked:\n");
    for lock in conflicts {
        text.push_str(&format!(
            "  {} — locked by {} for {} more (until {})\n",
            escape(&lock.symbol_path),
            escape(&lock.session_id),
            human_span(lock.ttl_remaining_ms),
            escape(&lock.expires_at),
        ));
    }
    let first = &conflicts[0];
    let (file, name) = first
        .symbol_path
        .split_once(':')
        .unwrap_or((first.symbol_path.as_str(), ""));
    text.push_str(&format!(
        "Do not edit around the lock (no copy of the code elsewhere, no write through the shell). \
         Instead: wait and retry this edit when the lock is released or expires (`wit status` \
         shows the locks and the time left); declare what you need with \
         `wit declare --description \"…\" --files {} --symbols {}` so the holder sees it; \
         or ask {} to release it (`wit release {}`). Meanwhile, work on something else.",
        escape(file),
        escape(name),
        escape(&first.session_id),
        escape(&first.symbol_path),
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_paths_resolve_inside_the_root_only() {
        let root = Path::new("/repo");
        assert_eq!(
            repo_relative(root, None, "/repo/src/a.ts").as_deref(),
            Some("src/a.ts")
        );
        assert_eq!(
            repo_relative(root, None, "/repo/./src//a.ts").as_deref(),
            Some("src/a.ts")
        );
        assert_eq!(
            repo_relative(root, None, "/repo/lib/../src/a.ts").as_deref(),
            Some("src/a.ts")
        );
        assert_eq!(
            repo_relative(root, None, "src/a.ts").as_deref(),
            Some("src/a.ts")
        );
        assert_eq!(
            repo_relative(root, Some("/repo/src"), "a.ts").as_deref(),
            Some("src/a.ts")
        );
        assert_eq!(repo_relative(root, None, "/repo/../etc/passwd"), None);
        assert_eq!(repo_relative(root, None, "../../etc/passwd"), None);
        assert_eq!(repo_relative(root, None, "/etc/passwd"), None);
        assert_eq!(repo_relative(root, None, "/repo"), None);
        assert_eq!(repo_relative(root, None, ""), None);
    }

    #[test]
    fn multiedit_steps_on_earlier_output_fall_back_to_a_diff() {
        let content = "a\nb\nc\n";
        let reps = vec![
            payload::Replacement {
                old: "b".into(),
                new: "B1".into(),
                all: false,
            },
            payload::Replacement {
                old: "B1".into(),
                new: "B2".into(),
                all: false,
            },
        ];
        assert_eq!(
            replacement_ranges(content, &reps),
            vec![Replaced {
                range: Range { start: 2, end: 4 },
                text: "B2\n".into()
            }]
        );
    }

    #[test]
    fn the_refusal_names_symbol_holder_and_time_and_escapes_them() {
        let text = refusal(&[LockRecord {
            symbol_path: "src/a.ts:f\u{1b}[2J".into(),
            session_id: "agent-b".into(),
            acquired_at: "2024-01-15T10:00:00.000Z".into(),
            expires_at: "2024-01-15T10:30:00.000Z".into(),
            ttl_remaining_ms: 25 * 60 * 1000,
        }]);
        assert!(text.contains("src/a.ts:f\\u{1b}[2J"), "{text}");
        assert!(!text.contains('\u{1b}'));
        assert!(text.contains("agent-b"));
        assert!(text.contains("25 min"));
        assert!(text.contains("wit declare"));
        assert!(text.contains("Do not edit around the lock"));
    }
}
