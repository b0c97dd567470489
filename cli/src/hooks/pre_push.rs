//! The pre-push hook: refuses pushing commits that break accepted contracts.
//!
//! The pre-commit hook can be skipped (`git commit --no-verify`, a commit made elsewhere,
//! a rebase); the push is the last point before others get the code. For each ref being
//! pushed, git gives the hook `<local ref> <local sha> <remote ref> <remote sha>` lines on
//! stdin; the hook checks the pushed tip commit — the code that lands — of each, against
//! every accepted contract: the files of the contracts are read from that commit with one
//! `git cat-file --batch` and sent to the daemon's `check-contracts` (a file missing from
//! the commit breaks its contracts, as a deletion does at commit time). Intermediate
//! commits are not checked: they were each checked (or skipped on purpose) at commit
//! time, and what others build on is the tip.
//!
//! - Violations refuse the push (exit 1), unless `WIT_PRE_PUSH=warn`, which prints them
//!   and lets the push through. `git push --no-verify` skips the hook, as git documents.
//! - Like the other git hooks it never starts a daemon and fails open: no daemon, or no
//!   answer within [`LIMIT`], lets the push through with one line on stderr.

use std::io::Read;
use std::time::Duration;

use serde_json::json;
use wit_core::SymbolPath;
use wit_core::protocol::{ContractRecord, StagedFile};
use wit_core::text::escape;

use crate::commands::check::describe_violations;
use crate::git;
use crate::hooks::{check_files, connect_daemon, runtime, with_deadline};
use crate::output::Style;
use crate::root;

/// The whole hook's time limit (a push waits on the network anyway; still bounded).
pub const LIMIT: Duration = Duration::from_secs(5);

enum Outcome {
    Clean,
    Violations(String),
    Skipped(String),
}

/// Runs the hook; returns the process exit code (1 refuses the push).
pub fn run() -> u8 {
    let mut input = String::new();
    if let Err(e) = std::io::stdin()
        .take(1024 * 1024)
        .read_to_string(&mut input)
    {
        eprintln!("wit: contract check of the push skipped: reading git's input: {e}");
        return 0;
    }
    let warn_only = std::env::var("WIT_PRE_PUSH").is_ok_and(|v| v.trim() == "warn");
    let style = Style::plain();
    match with_deadline(LIMIT, move || check(&input, &style)) {
        Some(Outcome::Clean) => 0,
        Some(Outcome::Violations(text)) if warn_only => {
            eprint!("{text}");
            eprintln!("wit: pushing anyway (WIT_PRE_PUSH=warn)");
            0
        }
        Some(Outcome::Violations(text)) => {
            eprint!("{text}");
            eprintln!(
                "wit: push refused: the pushed commit breaks accepted contracts (fix and \
                 commit, or push with WIT_PRE_PUSH=warn to only warn, or git push --no-verify)"
            );
            1
        }
        Some(Outcome::Skipped(why)) => {
            eprintln!("wit: contract check of the push skipped: {}", escape(&why));
            0
        }
        None => {
            eprintln!(
                "wit: contract check of the push skipped: no answer within {} s",
                LIMIT.as_secs()
            );
            0
        }
    }
}

/// The pushed tip commits: the local sha of each line, except deletions (all zeros).
fn pushed_commits(input: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in input.lines() {
        let mut fields = line.split_whitespace();
        let (Some(_local_ref), Some(sha)) = (fields.next(), fields.next()) else {
            continue;
        };
        let deletion = sha.bytes().all(|b| b == b'0');
        if !deletion && sha.bytes().all(|b| b.is_ascii_hexdigit()) && !out.iter().any(|s| s == sha)
        {
            out.push(sha.to_owned());
        }
    }
    out
}

fn check(input: &str, style: &Style) -> Outcome {
    let commits = pushed_commits(input);
    if commits.is_empty() {
        return Outcome::Clean;
    }
    let repo = match root::discover() {
        Ok(r) => r,
        Err(e) => return Outcome::Skipped(e.human()),
    };
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => return Outcome::Skipped(e),
    };
    rt.block_on(async {
        let mut client = match connect_daemon(&repo, LIMIT).await {
            Ok(c) => c,
            Err(why) => return Outcome::Skipped(why),
        };
        let accepted: Vec<ContractRecord> = match client
            .call("contract.query", json!({"status": "accepted"}))
            .await
        {
            Ok(c) => c,
            Err(e) => return Outcome::Skipped(e.to_string()),
        };
        let mut files: Vec<String> = Vec::new();
        for c in &accepted {
            if let Some(sp) = SymbolPath::parse(&c.symbol_path)
                && !files.iter().any(|f| f == sp.file)
            {
                files.push(sp.file.to_owned());
            }
        }
        if files.is_empty() {
            return Outcome::Clean;
        }
        let mut violations = Vec::new();
        for commit in &commits {
            let paths: Vec<&[u8]> = files.iter().map(|f| f.as_bytes()).collect();
            let contents = match git::committed_contents(&repo.root, commit, &paths) {
                Ok(c) => c,
                Err(e) => return Outcome::Skipped(format!("reading commit {commit}: {e}")),
            };
            let mut staged = Vec::new();
            for (path, content) in files.iter().zip(contents) {
                // Not in the commit: checked as empty (its contracts' symbols are gone).
                let bytes = content.unwrap_or_default();
                if let Ok(content) = String::from_utf8(bytes) {
                    staged.push(StagedFile {
                        path: path.clone(),
                        content,
                    });
                }
            }
            match check_files(&mut client, staged).await {
                Ok(found) => violations.extend(found),
                Err(why) => return Outcome::Skipped(why),
            }
        }
        if violations.is_empty() {
            Outcome::Clean
        } else {
            Outcome::Violations(describe_violations(&violations, style))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushed_commits_are_the_local_tips_without_deletions_or_repeats() {
        let z = "0".repeat(40);
        let a = "a".repeat(40);
        let input = format!(
            "refs/heads/main {a} refs/heads/main {z}\nrefs/heads/old {z} refs/heads/old {a}\n\
             refs/heads/x {a} refs/heads/x {a}\ngarbage\n"
        );
        assert_eq!(pushed_commits(&input), [a]);
    }
}
