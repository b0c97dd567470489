//! The pre-commit hook: staged content of supported files → `check-contracts`; violations
//! refuse the commit. Fails open: no daemon, a slow daemon or any error lets the commit
//! proceed, with one line on stderr saying the check was skipped.

use std::time::Duration;

use serde_json::json;
use wit_core::protocol::{CheckResult, ErrorCode, StagedFile};

use crate::client::{CallError, Client, ConnectError};
use crate::commands::analyzers::AnalyzerList;
use crate::commands::check::describe_violations;
use crate::git;
use crate::hooks::{runtime, with_deadline};
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
        let mut client = match Client::connect(&repo.socket(), LIMIT).await {
            Ok(c) => c,
            Err(ConnectError::Missing | ConnectError::Refused) => {
                return Outcome::Skipped(
                    "no wit daemon is running (it is not started by hooks)".into(),
                );
            }
            Err(e) => return Outcome::Skipped(e.to_string()),
        };
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
        let mut files = Vec::new();
        for staged in paths {
            let ext = staged.path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
            if !extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)) {
                continue;
            }
            match git::staged_file_content(&repo.root, &staged) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(content) => files.push(StagedFile {
                        path: staged.path,
                        content,
                    }),
                    Err(_) => continue,
                },
                Err(e) => return Outcome::Skipped(e),
            }
        }
        if files.is_empty() {
            return Outcome::Clean;
        }
        match client
            .call::<CheckResult>("check-contracts", json!({"files": files}))
            .await
        {
            Ok(r) if r.violations.is_empty() => Outcome::Clean,
            Ok(r) => Outcome::Violations(describe_violations(&r.violations, style)),
            Err(e) => Outcome::Skipped(e.to_string()),
        }
    })
}
