//! `wit init`: `.wit/`, `.gitignore`, the shared session id, the daemon, and the
//! coordination instructions for agents in CLAUDE.md and AGENTS.md.

use std::path::Path;

use serde::Serialize;
use wit_boundary::RepoFileError;
use wit_boundary::repo_file::append_repo_file;

use crate::commands::daemon::{fetch_status, notice_version};
use crate::context::Ctx;
use crate::exit::{CmdResult, Failure};
use crate::instructions::{INSTRUCTIONS, SECTION_MARKER};
use crate::output::print_json;
use crate::session;

/// What happened to one file.
#[derive(Debug, Serialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FileOutcome {
    /// The file did not exist and was written.
    Created,
    /// The file existed; wit's part was appended.
    Appended,
    /// Nothing to do.
    Unchanged,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitReport {
    root: String,
    session_id: String,
    gitignore: FileOutcome,
    claude_md: FileOutcome,
    agents_md: FileOutcome,
    daemon_pid: Option<u32>,
    /// What `--agents` integrated (see `wit integrate`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    agents: Vec<crate::integrate::AgentReport>,
}

/// `wit init [--agents …]`. Idempotent: a second run changes nothing.
pub async fn run(ctx: &Ctx, agents: &[crate::integrate::Agent]) -> CmdResult {
    let root = &ctx.repo.root;
    // Resolved first, so that an unusable binary path refuses before anything is written.
    let program = if agents.is_empty() {
        String::new()
    } else {
        crate::integrate::wit_program()?
    };
    let wit = ctx.repo.ensure_wit_dir()?;
    wit.check_not_committed().map_err(Failure::other)?;
    // Every file init writes is written beneath the root: a CLAUDE.md, AGENTS.md or
    // .gitignore that is a symlink out of the repository is refused, and the error says so.
    let gitignore = ensure_gitignore(root).map_err(Failure::other)?;
    let session_id = match session::read_shared(&ctx.repo)? {
        Some(id) => id,
        None => session::write_shared(&ctx.repo)?,
    };
    let claude_md = append_section(root, "CLAUDE.md").map_err(Failure::other)?;
    let agents_md = append_section(root, "AGENTS.md").map_err(Failure::other)?;
    let mut integrated = Vec::new();
    for agent in agents {
        if !integrated
            .iter()
            .any(|r: &crate::integrate::AgentReport| r.agent == *agent)
        {
            integrated.push(crate::integrate::run_agent(
                root, *agent, false, false, &program,
            )?);
        }
    }
    let mut client = ctx.client().await?;
    let status = fetch_status(&mut client).await.ok();
    if let Some(st) = &status {
        notice_version(st);
    }
    let report = InitReport {
        root: root.display().to_string(),
        session_id,
        gitignore,
        claude_md,
        agents_md,
        daemon_pid: status.map(|s| s.pid),
        agents: integrated,
    };
    if ctx.json {
        print_json(&report);
        return Ok(());
    }
    let say = |o: FileOutcome| match o {
        FileOutcome::Created => "created",
        FileOutcome::Appended => "instructions appended",
        FileOutcome::Unchanged => "already set up",
    };
    println!("wit is set up in {}", ctx.style.bold(&report.root));
    println!(
        "  .wit/        state, socket and log (ignored by git: {})",
        say(report.gitignore)
    );
    println!("  CLAUDE.md    {}", say(report.claude_md));
    println!("  AGENTS.md    {}", say(report.agents_md));
    match report.daemon_pid {
        Some(pid) => println!("  daemon       running (pid {pid})"),
        None => println!("  daemon       running"),
    }
    println!(
        "  session      {} (shared fallback; each agent should set WIT_SESSION)",
        report.session_id
    );
    if !report.agents.is_empty() {
        crate::integrate::print_human(&report.agents, false, false, ctx);
    }
    println!("Next: wit hook install   (refuse commits that break accepted contracts)");
    Ok(())
}

/// Largest file init reads to decide whether it was set up already.
const READ_LIMIT: u64 = 16 * 1024 * 1024;

/// The text of the repository file `rel`, or `None` when it does not exist.
fn read_existing(root: &Path, rel: &str) -> Result<Option<String>, RepoFileError> {
    match wit_boundary::read_repo_file(root, rel, READ_LIMIT) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Adds `.wit/` to `.gitignore` unless a line already ignores it.
pub fn ensure_gitignore(root: &Path) -> Result<FileOutcome, RepoFileError> {
    let existing = read_existing(root, ".gitignore")?;
    let ignored = existing.as_deref().is_some_and(|s| {
        s.lines()
            .map(str::trim)
            .any(|l| matches!(l, ".wit" | ".wit/" | "/.wit" | "/.wit/"))
    });
    if ignored {
        return Ok(FileOutcome::Unchanged);
    }
    let sep = match &existing {
        Some(s) if !s.is_empty() && !s.ends_with('\n') => "\n",
        _ => "",
    };
    append_repo_file(
        root,
        ".gitignore",
        &format!("{sep}# wit coordination state\n.wit/\n"),
    )?;
    Ok(if existing.is_some() {
        FileOutcome::Appended
    } else {
        FileOutcome::Created
    })
}

/// Appends [`INSTRUCTIONS`] to the repository file `rel` once; never rewrites what is
/// there.
pub fn append_section(root: &Path, rel: &str) -> Result<FileOutcome, RepoFileError> {
    let existing = read_existing(root, rel)?;
    if existing
        .as_deref()
        .is_some_and(|s| s.contains(SECTION_MARKER))
    {
        return Ok(FileOutcome::Unchanged);
    }
    let sep = match &existing {
        None => "",
        Some(s) if s.is_empty() => "",
        Some(s) if s.ends_with("\n\n") => "",
        Some(s) if s.ends_with('\n') => "\n",
        Some(_) => "\n\n",
    };
    append_repo_file(root, rel, &format!("{sep}{INSTRUCTIONS}"))?;
    Ok(if existing.is_some() {
        FileOutcome::Appended
    } else {
        FileOutcome::Created
    })
}

#[cfg(test)]
#[path = "../../../tests/e2e/support/instructions.rs"]
mod workflow_phrases;

#[cfg(test)]
mod tests {
    use super::workflow_phrases::WORKFLOW_PHRASES;
    use super::*;

    #[test]
    fn instructions_teach_the_whole_workflow() {
        for needle in WORKFLOW_PHRASES {
            assert!(INSTRUCTIONS.contains(needle), "missing {needle}");
        }
        assert!(INSTRUCTIONS.starts_with(SECTION_MARKER));
    }
}
