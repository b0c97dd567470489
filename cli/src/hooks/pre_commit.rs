//! The pre-commit hook: staged content of supported files → `check-contracts`; violations
//! refuse the commit, and so do staged paths under another session's exclusive lease
//! (`lease.query`; the committer is `WIT_SESSION`, `CLAUDE_SESSION_ID` or the shared id).
//!
//! Fails open only when the check as a whole cannot run: no daemon, a daemon slower than
//! [`LIMIT`], git unable to list or read the index. The commit then proceeds, with one line
//! on stderr saying the check was skipped. What concerns one file never skips the check:
//! a path that is not UTF-8 (no contract can name it) or content that is not UTF-8 text is
//! left out, a file git cannot read is reported on stderr and left out, and every other
//! file is still checked — so no file name and no number of files turns the check off.

use std::time::Duration;

use serde_json::json;
use wit_core::protocol::{ErrorCode, LeaseRecord, StagedFile};
use wit_core::text::escape;

use crate::client::CallError;
use crate::commands::analyzers::AnalyzerList;
use crate::commands::check::describe_violations;
use crate::git;
use crate::hooks::{check_files, connect_daemon, runtime, with_deadline};
use crate::output::Style;
use crate::root;

/// The whole hook's time limit.
pub const LIMIT: Duration = Duration::from_secs(2);

/// Extensions of the built-in analyzers, used when the daemon predates `analyzers.list`.
const BUILTIN_EXTENSIONS: &[&str] = &["ts", "tsx", "js", "jsx", "mjs", "cjs", "py"];

enum Outcome {
    Clean,
    Violations(String),
    Skipped(String),
}

/// Runs the hook; returns the process exit code (1 refuses the commit).
pub fn run() -> u8 {
    let style = Style::plain();
    match with_deadline(LIMIT, move || check(&style)) {
        Some(Outcome::Clean) => 0,
        Some(Outcome::Violations(text)) => {
            eprint!("{text}");
            eprintln!("wit: commit refused (bypass once with git commit --no-verify)");
            1
        }
        Some(Outcome::Skipped(why)) => {
            eprintln!("wit: contract check skipped: {why}");
            0
        }
        None => {
            eprintln!(
                "wit: contract check skipped: no answer within {} s",
                LIMIT.as_secs()
            );
            0
        }
    }
}

fn check(style: &Style) -> Outcome {
    let repo = match root::discover() {
        Ok(r) => r,
        Err(e) => return Outcome::Skipped(e.human()),
    };
    let paths = match git::staged_paths(&repo.root) {
        Ok(p) => p,
        Err(e) => return Outcome::Skipped(e),
    };
    if paths.is_empty() {
        return Outcome::Clean;
    }
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => return Outcome::Skipped(e),
    };
    rt.block_on(async {
        let mut client = match connect_daemon(&repo, LIMIT).await {
            Ok(c) => c,
            Err(why) => return Outcome::Skipped(why),
        };
        // Other sessions' exclusive leases over the staged paths (deleted ones included).
        let leased = match leased_by_others(&mut client, &repo, &paths).await {
            Ok(text) => text,
            Err(why) => return Outcome::Skipped(why),
        };
        let contracts = check_contracts(&mut client, &repo, &paths, style).await;
        match (contracts, leased) {
            (Outcome::Violations(v), Some(l)) => Outcome::Violations(format!("{v}{l}")),
            (Outcome::Skipped(why), Some(l)) => {
                eprintln!("wit: contract check skipped: {why}");
                Outcome::Violations(l)
            }
            (Outcome::Clean, Some(l)) => Outcome::Violations(l),
            (other, None) => other,
        }
    })
}

/// Describes the exclusive leases of other sessions than the committer's (`WIT_SESSION`,
/// `CLAUDE_SESSION_ID` or the shared id) over the staged paths; `None` when there are none
/// or the daemon predates leases.
async fn leased_by_others(
    client: &mut crate::client::Client,
    repo: &root::Repo,
    paths: &[git::StagedPath],
) -> Result<Option<String>, String> {
    let files: Vec<&str> = paths.iter().filter_map(|p| p.utf8()).collect();
    if files.is_empty() {
        return Ok(None);
    }
    let answer = match client
        .call::<serde_json::Value>("lease.query", json!({ "files": files }))
        .await
    {
        Ok(v) => v,
        Err(CallError::Rpc(e)) if e.kind() == Some(ErrorCode::MethodNotFound) => return Ok(None),
        Err(e) => return Err(format!("lease.query: {e}")),
    };
    let me = crate::session::Session::lookup(repo).map(|s| s.id);
    let leases: Vec<LeaseRecord> =
        serde_json::from_value(answer["leases"].clone()).unwrap_or_default();
    let foreign: Vec<&LeaseRecord> = leases
        .iter()
        .filter(|l| l.is_exclusive() && me.as_deref() != Some(l.session_id.as_str()))
        .collect();
    if foreign.is_empty() {
        return Ok(None);
    }
    let mut text = String::from("wit: staged files are under another session's exclusive lease:\n");
    for l in foreign {
        text.push_str(&format!(
            "  {} — lease {} on {} held by {}{}\n",
            escape(&l.files.join(", ")),
            escape(&l.lease_id),
            escape(&l.paths.join(" ")),
            escape(&l.session_id),
            l.reason
                .as_deref()
                .map(|r| format!(": {}", escape(r)))
                .unwrap_or_default(),
        ));
    }
    text.push_str(
        "wit: wait for the lease to end (`wit lease list`) or ask its holder to release it\n",
    );
    Ok(Some(text))
}

/// The contract check of the staged content.
async fn check_contracts(
    client: &mut crate::client::Client,
    repo: &root::Repo,
    paths: &[git::StagedPath],
    style: &Style,
) -> Outcome {
    // Every extension some analyzer (built-in or plugin) handles: files of other types
    // cannot hold contracts.
    let extensions: Vec<String> = match client
        .call::<AnalyzerList>("analyzers.list", json!({}))
        .await
    {
        Ok(list) => list
            .analyzers
            .into_iter()
            .flat_map(|a| a.extensions)
            .collect(),
        Err(CallError::Rpc(e)) if e.kind() == Some(ErrorCode::MethodNotFound) => {
            BUILTIN_EXTENSIONS.iter().map(|s| s.to_string()).collect()
        }
        Err(e) => return Outcome::Skipped(e.to_string()),
    };
    // What to send: files some analyzer reads. A path that is not UTF-8 cannot be
    // named by any contract (symbol paths are UTF-8 strings), so skipping it loses
    // nothing, and it must not stop the others being checked.
    let mut wanted = Vec::new();
    for staged in paths {
        let Some(path) = staged.utf8() else { continue };
        let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        if extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)) {
            wanted.push((path, staged.deleted));
        }
    }
    let to_read: Vec<&[u8]> = wanted
        .iter()
        .filter(|(_, deleted)| !deleted)
        .map(|(p, _)| p.as_bytes())
        .collect();
    let mut contents = match git::staged_contents(&repo.root, &to_read) {
        Ok(c) => c.into_iter(),
        Err(e) => return Outcome::Skipped(format!("reading the staged files: {e}")),
    };
    let mut files = Vec::with_capacity(wanted.len());
    for (path, deleted) in wanted {
        // A deleted file is checked as empty: its contracts' symbols are gone.
        let bytes = if deleted {
            Vec::new()
        } else {
            match contents.next() {
                Some(Ok(bytes)) => bytes,
                // One unreadable file is reported and skipped; the rest are checked.
                Some(Err(e)) => {
                    eprintln!("wit: {} not checked: {e}", escape(path));
                    continue;
                }
                None => return Outcome::Skipped("reading the staged files: too few".into()),
            }
        };
        // Content that is not UTF-8 text holds no symbols an analyzer would find.
        if let Ok(content) = String::from_utf8(bytes) {
            files.push(StagedFile {
                path: path.to_owned(),
                content,
            });
        }
    }
    if files.is_empty() {
        return Outcome::Clean;
    }
    let violations = match check_files(client, files).await {
        Ok(violations) => violations,
        Err(why) => return Outcome::Skipped(why),
    };
    if violations.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Violations(describe_violations(&violations, style))
    }
}
