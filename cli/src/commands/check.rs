//! `wit check-contracts`: files (working tree or index) against the accepted contracts.

use std::collections::BTreeSet;

use serde_json::json;
use wit_core::SymbolPath;
use wit_core::protocol::{CheckResult, ContractRecord, StagedFile, Violation};
use wit_core::text::escape;

use crate::client::Client;
use crate::context::{Ctx, call};
use crate::exit::{CmdResult, Failure};
use crate::git;
use crate::output::{Style, print_json};

/// `wit check-contracts [FILE…] [--staged]`.
pub async fn run(ctx: &Ctx, files: Vec<String>, staged: bool) -> CmdResult {
    let mut client = ctx.client().await?;
    // Files the commit being prepared deletes: checked as empty, like a missing file below.
    let mut deleted = BTreeSet::new();
    let paths: Vec<String> = if files.is_empty() {
        if staged {
            let mut paths = Vec::new();
            for p in git::staged_paths(&ctx.repo.root).map_err(Failure::other)? {
                // No contract can name a path that is not UTF-8 (symbol paths are UTF-8
                // strings): leaving it out loses nothing, and the others are still checked.
                let Some(path) = p.utf8() else {
                    eprintln!("wit: skipping {}: its name is not UTF-8", p.shown());
                    continue;
                };
                if p.deleted {
                    deleted.insert(path.to_owned());
                }
                paths.push(path.to_owned());
            }
            paths
        } else {
            let accepted: Vec<ContractRecord> = call(
                &mut client,
                "contract.query",
                json!({"status": "accepted"}),
                "contracts",
            )
            .await?;
            accepted
                .iter()
                .filter_map(|c| SymbolPath::parse(&c.symbol_path).map(|p| p.file.to_owned()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        }
    } else {
        files
            .iter()
            .map(|f| ctx.repo.relative(f))
            .collect::<CmdResult<_>>()?
    };
    // Staged content: every file in one `git cat-file --batch`, as the hook does.
    let mut from_index = if staged {
        let to_read: Vec<&[u8]> = paths
            .iter()
            .filter(|p| !deleted.contains(*p))
            .map(|p| p.as_bytes())
            .collect();
        git::staged_contents(&ctx.repo.root, &to_read)
            .map_err(Failure::other)?
            .into_iter()
    } else {
        Vec::new().into_iter()
    };
    let mut staged_files = Vec::with_capacity(paths.len());
    for path in paths {
        let content = if deleted.contains(&path) {
            Vec::new()
        } else if staged {
            match from_index.next() {
                Some(Ok(bytes)) => bytes,
                // One unreadable file is reported and skipped; the others are checked.
                Some(Err(e)) => {
                    eprintln!("wit: skipping {}: {e}", escape(&path));
                    continue;
                }
                None => return Err(Failure::other("git cat-file --batch answered too few")),
            }
        } else {
            // Through the boundary: a symlink out of the repository or a FIFO is refused,
            // never followed or waited on.
            match wit_boundary::read_repo_file(&ctx.repo.root, &path, READ_LIMIT) {
                Ok(bytes) => bytes,
                // A contracted file that is gone breaks its contracts: check it as empty.
                Err(e) if e.is_not_found() && files.is_empty() => Vec::new(),
                Err(e) => return Err(Failure::Usage(escape(&e.to_string()).into_owned())),
            }
        };
        let Ok(content) = String::from_utf8(content) else {
            eprintln!("wit: skipping {}: not UTF-8 text", escape(&path));
            continue;
        };
        staged_files.push(StagedFile { path, content });
    }
    let found = check_in_batches(&mut client, staged_files).await?;
    for path in &found.too_large {
        eprintln!(
            "wit: skipping {}: too large to send to the daemon",
            escape(path)
        );
    }
    let checked = found.checked;
    let r = CheckResult {
        violations: found.violations,
    };
    if ctx.json {
        print_json(&r);
    } else if r.violations.is_empty() {
        println!(
            "{} ({checked} file{} checked)",
            ctx.style.green("No contract violations"),
            if checked == 1 { "" } else { "s" }
        );
    } else {
        eprint!("{}", describe_violations(&r.violations, &ctx.style));
    }
    if r.violations.is_empty() {
        Ok(())
    } else {
        Err(Failure::Reported(Box::new(Failure::Violations(
            r.violations.len(),
        ))))
    }
}

/// Largest serialized size of the files of one `check-contracts` request: the daemon's
/// body limit, less room for the envelope.
const REQUEST_BUDGET: usize = wit_daemon::BODY_LIMIT_BYTES - 64 * 1024;

/// `files` cut into requests that each fit the daemon's body limit, so that a commit of
/// many (or big) files is checked in several requests rather than refused as a whole
/// (which would skip the check). Second: the paths of files too large to be sent even
/// alone.
pub fn request_batches(files: Vec<StagedFile>) -> (Vec<Vec<StagedFile>>, Vec<String>) {
    let mut batches: Vec<Vec<StagedFile>> = Vec::new();
    let mut too_large = Vec::new();
    let mut current = Vec::new();
    let mut size = 0;
    for f in files {
        // JSON escaping can make the text bigger than the content; measure what is sent
        // (+1 for the comma between array items).
        let len = serde_json::to_vec(&f).map_or(usize::MAX, |v| v.len().saturating_add(1));
        if len > REQUEST_BUDGET {
            too_large.push(f.path);
            continue;
        }
        if size + len > REQUEST_BUDGET {
            batches.push(std::mem::take(&mut current));
            size = 0;
        }
        size += len;
        current.push(f);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    (batches, too_large)
}

/// Sends `files` to `check-contracts`.
pub async fn check(client: &mut Client, files: Vec<StagedFile>) -> CmdResult<CheckResult> {
    call(
        client,
        "check-contracts",
        json!({"files": files}),
        "check-contracts",
    )
    .await
}

/// Largest working-tree file read for a check: nothing larger fits in one request to the
/// daemon anyway.
pub const READ_LIMIT: u64 = wit_daemon::BODY_LIMIT_BYTES as u64;

/// What [`check_in_batches`] found.
pub struct Checked {
    /// Every violation, over all requests.
    pub violations: Vec<Violation>,
    /// How many files were sent.
    pub checked: usize,
    /// Files too large to send to the daemon at all (not checked).
    pub too_large: Vec<String>,
}

/// Checks `files` with `check-contracts`, in as many requests as the daemon's body limit
/// needs ([`request_batches`]): what the CLI, the hooks and the MCP server all send.
pub async fn check_in_batches(client: &mut Client, files: Vec<StagedFile>) -> CmdResult<Checked> {
    let (batches, too_large) = request_batches(files);
    let checked = batches.iter().map(Vec::len).sum();
    let mut violations = Vec::new();
    for batch in batches {
        violations.extend(check(client, batch).await?.violations);
    }
    Ok(Checked {
        violations,
        checked,
        too_large,
    })
}

/// Violations for a human: symbol, expected, actual.
pub fn describe_violations(v: &[Violation], style: &Style) -> String {
    let mut out = format!(
        "{}\n",
        style.red(&format!(
            "{} contract violation{}:",
            v.len(),
            if v.len() == 1 { "" } else { "s" }
        ))
    );
    for x in v {
        out.push_str(&format!(
            "  {}  (contract {})\n    expected: {}\n    actual:   {}\n",
            style.bold(&x.symbol_path),
            x.contract_id,
            style.green(&x.expected),
            style.red(&x.actual)
        ));
    }
    out.push_str(
        "Restore the signatures, or change the contract: propose the new signature \
         (wit contract propose <file:name>) and have another session accept it, which \
         supersedes the old contract; or withdraw the old one \
         (wit contract withdraw <contract-id> --reason \"…\").\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, len: usize) -> StagedFile {
        StagedFile {
            path: path.into(),
            content: "x".repeat(len),
        }
    }

    /// Many or big files go in several requests, each under the daemon's body limit,
    /// instead of one request the daemon refuses (which would skip the whole check).
    #[test]
    fn requests_fit_the_body_limit_and_only_an_oversized_file_is_left_out() {
        let nine_mib = 9 * 1024 * 1024;
        let files = vec![
            file("a.ts", nine_mib),
            file("b.ts", nine_mib),
            file("huge.ts", wit_daemon::BODY_LIMIT_BYTES),
            file("c.ts", 10),
        ];
        let (batches, too_large) = request_batches(files);
        assert_eq!(too_large, vec!["huge.ts".to_owned()]);
        let names: Vec<Vec<&str>> = batches
            .iter()
            .map(|b| b.iter().map(|f| f.path.as_str()).collect())
            .collect();
        assert_eq!(names, vec![vec!["a.ts"], vec!["b.ts", "c.ts"]]);
        for b in &batches {
            let body = serde_json::to_vec(&json!({ "files": b })).unwrap();
            assert!(body.len() < wit_daemon::BODY_LIMIT_BYTES);
        }
    }
}
