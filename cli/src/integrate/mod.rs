//! `wit integrate <agent>`: writes a coding agent's project files so that it uses wit —
//! the MCP server registration (`wit mcp`), the hooks (`wit guard --agent …` before and
//! after each edit, and at the end of a session or subagent where the agent has such a
//! hook) and the coordination instructions — merged into what the files already hold, and
//! `wit integrate --remove <agent>` takes exactly that out again.
//!
//! Every edit is a splice (see [`jsonc`] and [`toml`]): keys, order, comments and
//! formatting wit does not own stay byte for byte, a second run changes nothing, and a
//! removal right after an integration gives back the original bytes. What wit owns is
//! recognised by value (an MCP entry running `… wit mcp`, a hook running `… wit guard`),
//! never by position. All files are read and written beneath the repository root
//! (`wit_boundary`): a `.mcp.json` that is a symlink out of the repository is refused.

pub mod agent;
pub mod jsonc;
pub mod toml;

use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};
use wit_boundary::{RepoFileError, read_repo_file, remove_repo_file, write_repo_file};

use crate::context::Ctx;
use crate::exit::{CmdResult, Failure};
use crate::instructions::{INSTRUCTIONS, SECTION_MARKER};
use crate::output::print_json;

pub use agent::Agent;

/// The end of wit's Markdown section (see `INSTRUCTIONS`).
const SECTION_END: &str = "<!-- /wit:coordination -->\n";

/// The Cursor rule: Cursor's front matter, always applied, then the instructions.
fn cursor_rule() -> String {
    format!(
        "---\ndescription: Coordinate with other agents through wit before editing\n\
         alwaysApply: true\n---\n{INSTRUCTIONS}"
    )
}

/// One change wit makes in one file.
enum Edit {
    /// `path.key = value` in a JSON object; `keep` leaves a present key as it is (and
    /// removal drops it only when nothing else is left in the file).
    Member {
        path: &'static [&'static str],
        key: &'static str,
        value: Value,
        keep: bool,
    },
    /// `value` in the JSON array at `path`; `ours` recognises wit's element.
    Element {
        path: &'static [&'static str],
        value: Value,
    },
    /// `[mcp_servers.wit]` in TOML.
    TomlServer,
    /// The coordination section in a Markdown file.
    Section,
    /// The whole file is wit's.
    Whole(String),
}

/// The files of one agent and what wit changes in each.
fn plan(agent: Agent, exe: &str) -> Vec<(&'static str, Vec<Edit>)> {
    let mcp = || Edit::Member {
        path: &["mcpServers"],
        key: "wit",
        value: json!({"command": exe, "args": ["mcp"]}),
        keep: false,
    };
    let sh = shell_word(exe);
    let guard = format!("{sh} guard --agent {}", agent.name());
    let group = |matcher: Option<&str>, command: &str| {
        let mut g = json!({"hooks": [{"type": "command", "command": command}]});
        if let Some(m) = matcher {
            g["matcher"] = json!(m);
        }
        g
    };
    match agent {
        Agent::Claude => vec![
            (".mcp.json", vec![mcp()]),
            (
                ".claude/settings.json",
                vec![
                    Edit::Element {
                        path: &["hooks", "PreToolUse"],
                        value: group(Some("Edit|MultiEdit|Write"), &guard),
                    },
                    // After each edit: what it changed becomes the session's claim.
                    Edit::Element {
                        path: &["hooks", "PostToolUse"],
                        value: group(Some("Edit|MultiEdit|Write"), &guard),
                    },
                    // A subagent's claims go to its session when it stops.
                    Edit::Element {
                        path: &["hooks", "SubagentStop"],
                        value: group(None, &guard),
                    },
                    // The session hooks go through `wit guard` too: it reads the hook's
                    // session_id, so they act as the same identity as the edit guard.
                    Edit::Element {
                        path: &["hooks", "SessionStart"],
                        value: group(None, &guard),
                    },
                    Edit::Element {
                        path: &["hooks", "SessionEnd"],
                        value: group(None, &guard),
                    },
                ],
            ),
            ("CLAUDE.md", vec![Edit::Section]),
        ],
        Agent::Codex => vec![
            (".codex/config.toml", vec![Edit::TomlServer]),
            (
                ".codex/hooks.json",
                vec![
                    Edit::Element {
                        path: &["hooks", "PreToolUse"],
                        value: group(Some("apply_patch|Edit|Write"), &guard),
                    },
                    // Codex has no session-end hook: its claims end after `[guard]
                    // claim_idle`, at a commit, or with `wit end-session`.
                    Edit::Element {
                        path: &["hooks", "PostToolUse"],
                        value: group(Some("apply_patch|Edit|Write"), &guard),
                    },
                    Edit::Element {
                        path: &["hooks", "SessionStart"],
                        value: group(None, &format!("{sh} status")),
                    },
                ],
            ),
            ("AGENTS.md", vec![Edit::Section]),
        ],
        Agent::Cursor => vec![
            (".cursor/mcp.json", vec![mcp()]),
            (
                ".cursor/hooks.json",
                vec![
                    Edit::Member {
                        path: &[],
                        key: "version",
                        value: json!(1),
                        keep: true,
                    },
                    Edit::Element {
                        path: &["hooks", "preToolUse"],
                        value: json!({"matcher": "Write|Edit|MultiEdit", "command": guard}),
                    },
                ],
            ),
            (".cursor/rules/wit.mdc", vec![Edit::Whole(cursor_rule())]),
        ],
        Agent::Gemini => vec![
            (
                ".gemini/settings.json",
                vec![
                    mcp(),
                    Edit::Element {
                        path: &["hooks", "BeforeTool"],
                        value: group(Some("write_file|replace"), &guard),
                    },
                    Edit::Element {
                        path: &["hooks", "AfterTool"],
                        value: group(Some("write_file|replace"), &guard),
                    },
                    Edit::Element {
                        path: &["hooks", "SessionEnd"],
                        value: group(None, &guard),
                    },
                ],
            ),
            ("GEMINI.md", vec![Edit::Section]),
        ],
    }
}

/// Whether `cmd` names a binary called `wit` (the bare name or a path ending in `/wit`).
pub(crate) fn names_wit(cmd: &str) -> bool {
    let cmd = cmd.trim_matches('\'');
    cmd == "wit" || cmd.ends_with("/wit")
}

/// Whether a hook command line is one wit writes: `<wit> guard|status|release …`.
fn is_wit_command(line: &str) -> bool {
    let (prog, rest) = match line.strip_prefix('\'') {
        Some(quoted) => match quoted.split_once('\'') {
            Some((p, r)) => (p, r),
            None => return false,
        },
        None => line.split_once(' ').unwrap_or((line, "")),
    };
    names_wit(prog)
        && ["guard --agent ", "status", "release --all"]
            .iter()
            .any(|t| rest.trim_start().starts_with(t))
}

/// Whether a JSON value is something wit wrote: an MCP entry running `wit mcp`, a hook
/// group whose only hook runs wit, or a Cursor hook running wit.
fn is_ours(v: &Value) -> bool {
    if let Some(cmd) = v.get("command").and_then(Value::as_str) {
        if v.get("args") == Some(&json!(["mcp"])) {
            return names_wit(cmd);
        }
        return is_wit_command(cmd);
    }
    match v.get("hooks").and_then(Value::as_array) {
        Some(hooks) if hooks.len() == 1 => hooks[0]
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(is_wit_command),
        _ => false,
    }
}

/// `s` as one shell word: as is when it needs no quoting, else single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// How the configurations name wit: `wit` when the `wit` found on `PATH` is this very
/// binary (so a committed file works for everyone who installed wit), else this binary's
/// absolute path (a build tree, a binary not on `PATH`), like the git hooks.
pub fn wit_program() -> Result<String, Failure> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Failure::other(format!("cannot find the wit binary: {e}")))?;
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("wit"))
            .find(|p| p.is_file())
            .and_then(|p| p.canonicalize().ok())
    });
    if on_path.as_deref() == Some(exe.as_path()) {
        return Ok("wit".to_owned());
    }
    exe.to_str().map(str::to_owned).ok_or_else(|| {
        Failure::other(format!(
            "the wit binary's path {} is not UTF-8; install wit on your PATH and run it from there",
            exe.to_string_lossy()
        ))
    })
}

/// What happened to one file.
#[derive(Debug, Serialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The file did not exist and was written.
    Created,
    /// wit's entries were merged into it (or taken out of it).
    Updated,
    /// Nothing to do.
    Unchanged,
    /// Removal left nothing in a file: it was deleted.
    Deleted,
}

/// One file's result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    /// Repository-relative path.
    pub path: String,
    /// What happened (or, with `--dry-run`, would happen).
    pub outcome: Outcome,
    /// The unified diff of the change (empty when unchanged).
    pub diff: String,
    /// Why wit left something alone, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One agent's result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentReport {
    /// The agent.
    pub agent: Agent,
    /// The files, in the order written.
    pub files: Vec<FileReport>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    root: String,
    action: &'static str,
    dry_run: bool,
    program: String,
    agents: Vec<AgentReport>,
}

/// Largest file wit reads to merge into.
const READ_LIMIT: u64 = 16 * 1024 * 1024;

fn fs_err(e: RepoFileError) -> Failure {
    Failure::other(e)
}

/// The file's text, or `None` when it does not exist.
fn read(root: &Path, rel: &str) -> Result<Option<String>, Failure> {
    match read_repo_file(root, rel, READ_LIMIT) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| Failure::other(format!("{rel}: not UTF-8 text; wit leaves it alone"))),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(fs_err(e)),
    }
}

/// The new text of one file (`None`: delete it), from `old` (`None`: missing).
fn apply(
    rel: &str,
    old: Option<&str>,
    edits: &[Edit],
    remove: bool,
    exe: &str,
) -> Result<Option<String>, Failure> {
    let bad = |e: &dyn std::fmt::Display| Failure::other(format!("{rel}: {e}"));
    let mut text = match old {
        Some(t) => t.to_owned(),
        None if remove => return Ok(None),
        None => String::new(),
    };
    let is_json = edits
        .iter()
        .any(|e| matches!(e, Edit::Member { .. } | Edit::Element { .. }));
    if is_json && text.trim().is_empty() {
        text = jsonc::EMPTY.to_owned();
    }
    for edit in edits {
        let next = match (edit, remove) {
            (
                Edit::Member {
                    path,
                    key,
                    value,
                    keep,
                },
                false,
            ) => jsonc::ensure_member(&text, path, key, value, *keep).map_err(|e| bad(&e))?,
            (Edit::Member { keep: true, .. }, true) => None,
            (Edit::Member { path, key, .. }, true) => {
                jsonc::remove_member(&text, path, key, &is_ours).map_err(|e| bad(&e))?
            }
            (Edit::Element { path, value }, false) => {
                jsonc::ensure_element(&text, path, value, &is_ours).map_err(|e| bad(&e))?
            }
            (Edit::Element { path, .. }, true) => {
                jsonc::remove_elements(&text, path, &is_ours).map_err(|e| bad(&e))?
            }
            (Edit::TomlServer, false) => {
                toml::ensure_server(&text, "wit", exe).map_err(|e| bad(&e))?
            }
            (Edit::TomlServer, true) => toml::remove_server(&text, "wit").map_err(|e| bad(&e))?,
            (Edit::Section, false) => add_section(&text),
            (Edit::Section, true) => remove_section(&text),
            (Edit::Whole(content), false) => (text != *content).then(|| content.clone()),
            (Edit::Whole(content), true) => {
                if text == *content {
                    return Ok(None);
                }
                None
            }
        };
        if let Some(n) = next {
            text = n;
        }
    }
    if remove {
        // What is left once wit's entries are out: nothing, or only keys wit adds when
        // missing (Cursor's `version`) — the file was wit's, and goes.
        let keep_only = edits
            .iter()
            .all(|e| matches!(e, Edit::Member { .. } | Edit::Element { .. }));
        if is_json && keep_only {
            let keeps: serde_json::Map<String, Value> = edits
                .iter()
                .filter_map(|e| match e {
                    Edit::Member {
                        path: [],
                        key,
                        value,
                        keep: true,
                    } => Some(((*key).to_owned(), value.clone())),
                    _ => None,
                })
                .collect();
            if jsonc::is_empty_object(&text)
                || (!keeps.is_empty()
                    && jsonc::parse_value(&text).ok() == Some(Value::Object(keeps)))
            {
                return Ok(None);
            }
        }
        if text.trim().is_empty() {
            return Ok(None);
        }
    }
    Ok(Some(text))
}

/// `text` with the coordination section appended (as `wit init` does), or `None` when it
/// is there already.
fn add_section(text: &str) -> Option<String> {
    if text.contains(SECTION_MARKER) {
        return None;
    }
    let sep = match text {
        "" => "",
        s if s.ends_with("\n\n") => "",
        s if s.ends_with('\n') => "\n",
        _ => "\n\n",
    };
    Some(format!("{text}{sep}{INSTRUCTIONS}"))
}

/// `text` without the coordination section and the blank line put before it, or `None`
/// when there is no section.
fn remove_section(text: &str) -> Option<String> {
    let start = text.find(SECTION_MARKER)?;
    let end = text[start..]
        .find(SECTION_END)
        .map_or(text.len(), |i| start + i + SECTION_END.len());
    let mut before = text[..start].to_owned();
    if before.ends_with("\n\n") {
        before.pop();
    }
    Some(format!("{before}{}", &text[end..]))
}

/// A unified diff of `old` → `new` for `rel` (`/dev/null` for a missing side).
fn diff(rel: &str, old: Option<&str>, new: Option<&str>) -> String {
    let (a, b) = (old.unwrap_or(""), new.unwrap_or(""));
    if a == b && old.is_some() == new.is_some() {
        return String::new();
    }
    let from = if old.is_some() {
        format!("a/{rel}")
    } else {
        "/dev/null".into()
    };
    let to = if new.is_some() {
        format!("b/{rel}")
    } else {
        "/dev/null".into()
    };
    similar::TextDiff::from_lines(a, b)
        .unified_diff()
        .context_radius(3)
        .header(&from, &to)
        .to_string()
}

/// Integrates (or with `remove`, un-integrates) `agent` in `root`, writing nothing when
/// `dry_run`. Every file is planned before any is written, so an error changes nothing.
pub fn run_agent(
    root: &Path,
    agent: Agent,
    remove: bool,
    dry_run: bool,
    exe: &str,
) -> Result<AgentReport, Failure> {
    let mut planned = Vec::new();
    for (rel, edits) in plan(agent, exe) {
        let old = read(root, rel)?;
        let new = apply(rel, old.as_deref(), &edits, remove, exe)?;
        let outcome = match (&old, &new) {
            (None, None) => Outcome::Unchanged,
            (Some(o), Some(n)) if o == n => Outcome::Unchanged,
            (None, Some(_)) => Outcome::Created,
            (Some(_), Some(_)) => Outcome::Updated,
            (Some(_), None) => Outcome::Deleted,
        };
        if outcome != Outcome::Unchanged {
            // A target that resolves into .git/ or .wit/ (a shipped symlink) is refused
            // before anything is written.
            wit_boundary::repo_file::check_write_target(root, rel).map_err(fs_err)?;
        }
        let note = (remove && outcome == Outcome::Unchanged && old.is_some())
            .then(|| "nothing of wit's found (an entry changed by hand is left alone)".to_owned());
        planned.push((rel, old, new, outcome, note));
    }
    let mut files = Vec::new();
    for (rel, old, new, outcome, note) in planned {
        if !dry_run {
            match (&new, outcome) {
                (_, Outcome::Unchanged) => {}
                (Some(n), _) => write_repo_file(root, rel, n.as_bytes()).map_err(fs_err)?,
                (None, _) => remove_repo_file(root, rel).map_err(fs_err)?,
            }
        }
        files.push(FileReport {
            path: rel.to_owned(),
            outcome,
            diff: diff(rel, old.as_deref(), new.as_deref()),
            note: note.filter(|_| !matches!(rel, "CLAUDE.md" | "AGENTS.md" | "GEMINI.md")),
        });
    }
    Ok(AgentReport { agent, files })
}

/// `wit integrate [--remove] [--dry-run] <agent>…`.
pub fn run(ctx: &Ctx, agents: &[Agent], remove: bool, dry_run: bool) -> CmdResult {
    let root = &ctx.repo.root;
    let exe = wit_program()?;
    let mut reports = Vec::new();
    for agent in dedup(agents) {
        reports.push(run_agent(root, agent, remove, dry_run, &exe)?);
    }
    let report = Report {
        root: root.display().to_string(),
        action: if remove { "remove" } else { "integrate" },
        dry_run,
        program: exe,
        agents: reports,
    };
    if ctx.json {
        print_json(&report);
        return Ok(());
    }
    print_human(&report.agents, remove, dry_run, ctx);
    Ok(())
}

fn dedup(agents: &[Agent]) -> Vec<Agent> {
    let mut out: Vec<Agent> = Vec::new();
    for a in agents {
        if !out.contains(a) {
            out.push(*a);
        }
    }
    out
}

/// The human summary: one line per file, the diffs with `--dry-run`.
pub fn print_human(reports: &[AgentReport], remove: bool, dry_run: bool, ctx: &Ctx) {
    use crate::output::shown as escape;
    for r in reports {
        let verb = match (remove, dry_run) {
            (false, false) => "integrated with",
            (true, false) => "removed from",
            (false, true) => "would integrate with",
            (true, true) => "would remove from",
        };
        println!("wit {verb} {}", ctx.style.bold(label(r.agent)));
        for f in &r.files {
            let what = match (f.outcome, dry_run) {
                (Outcome::Created, false) => "created",
                (Outcome::Created, true) => "would be created",
                (Outcome::Updated, false) => "updated",
                (Outcome::Updated, true) => "would be updated",
                (Outcome::Deleted, false) => "deleted (nothing else was in it)",
                (Outcome::Deleted, true) => "would be deleted (nothing else is in it)",
                (Outcome::Unchanged, _) => "unchanged",
            };
            println!("  {:<24} {what}", escape(&f.path));
            if let Some(n) = &f.note {
                println!("  {:<24} ({n})", "");
            }
        }
        if dry_run {
            for f in r.files.iter().filter(|f| !f.diff.is_empty()) {
                print!("{}", escape_diff(&f.diff));
            }
        }
    }
}

/// A diff as printed: control characters from the files escaped, newlines kept.
fn escape_diff(d: &str) -> String {
    d.split_inclusive('\n')
        .map(|l| {
            let (body, nl) = l.strip_suffix('\n').map_or((l, ""), |b| (b, "\n"));
            format!("{}{nl}", crate::output::shown(body))
        })
        .collect()
}

/// The product name, for messages.
fn label(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude => "Claude Code",
        Agent::Codex => "Codex",
        Agent::Cursor => "Cursor",
        Agent::Gemini => "Gemini CLI",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wit_commands_are_recognised_quoted_or_not() {
        assert!(is_wit_command("wit guard --agent claude"));
        assert!(is_wit_command("/home/a/.cargo/bin/wit status"));
        assert!(is_wit_command("'/my dir/wit' release --all"));
        assert!(!is_wit_command("wit-other guard --agent claude"));
        assert!(!is_wit_command("./format.sh"));
        assert_eq!(shell_word("/a b/wit"), "'/a b/wit'");
        assert_eq!(shell_word("/usr/bin/wit"), "/usr/bin/wit");
    }

    #[test]
    fn sections_are_added_once_and_removed_back_to_the_text() {
        for original in ["", "# Notes\n", "# Notes\n\nmore\n"] {
            let added = add_section(original).unwrap();
            assert!(add_section(&added).is_none());
            assert_eq!(remove_section(&added).unwrap(), original);
        }
    }

    #[test]
    fn every_agent_round_trips_on_an_empty_repository() {
        for agent in [Agent::Claude, Agent::Codex, Agent::Cursor, Agent::Gemini] {
            for (rel, edits) in plan(agent, "/opt/wit") {
                let added = apply(rel, None, &edits, false, "/opt/wit")
                    .unwrap()
                    .unwrap();
                let again = apply(rel, Some(&added), &edits, false, "/opt/wit")
                    .unwrap()
                    .unwrap();
                assert_eq!(added, again, "{rel}");
                let removed = apply(rel, Some(&added), &edits, true, "/opt/wit").unwrap();
                assert_eq!(removed, None, "{rel}: {added}");
            }
        }
    }
}
