//! Claims on the edit path (issue 30): what protecting agents that share one checkout
//! costs the agent at each edit, as a whole `wit guard` process on the 2,200-line
//! fixture, with another session's claim in the same file.
//!
//! - the pre-edit hook for an edit of another definition of that file (no warning: the
//!   claims check runs in full, finds nothing);
//! - the pre-edit hook for an edit of the claimed definition (a warning);
//! - the post-edit hook reporting an edit (`claims.record`: the file read, analysed,
//!   compared with HEAD, the session's claim written), each run a real change.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde_json::{Value, json};

use crate::Options;
use crate::daemon::Daemon;
use crate::forecast::git;
use crate::report::Report;
use crate::stats::Samples;

/// `wit guard --agent claude` with `payload` on stdin, as a Claude Code session without
/// `WIT_SESSION`; its exit code and stdout.
fn hook(opts: &Options, root: &Path, payload: &Value) -> Result<(Duration, i32, String)> {
    use std::io::Write;
    let t0 = Instant::now();
    let mut child = Command::new(&opts.wit)
        .args(["guard", "--agent", "claude"])
        .env("WIT_REPO_ROOT", root)
        .env_remove("WIT_SESSION")
        .env_remove("CLAUDE_SESSION_ID")
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(payload.to_string().as_bytes())?;
    let out = child.wait_with_output()?;
    Ok((
        t0.elapsed(),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

/// A Claude Code `Edit` payload of `session` (`event`: `PreToolUse` or `PostToolUse`)
/// of `file`.
fn edit(root: &Path, file: &str, session: &str, event: &str, old: &str, new: &str) -> Value {
    json!({
        "session_id": session, "transcript_path": "/dev/null", "cwd": root,
        "hook_event_name": event, "tool_name": "Edit",
        "tool_input": {"file_path": root.join(file), "old_string": old, "new_string": new},
        "tool_response": {"filePath": root.join(file)},
    })
}

/// Runs the claims measures (`runs` samples each) on the fixture repository at `root`
/// (not a git repository yet), whose generated TypeScript file is `file`.
pub(crate) fn run(
    opts: &Options,
    report: &mut Report,
    runs: usize,
    root: &Path,
    file: &str,
) -> Result<()> {
    let root = root.to_owned();
    git(&root, &["init", "-q"])?;
    git(&root, &["add", "."])?;
    git(&root, &["commit", "-qm", "fixture"])?;
    let daemon = Daemon::start(&opts.wit, &root)?;
    daemon.indexed(Duration::from_secs(120), Duration::from_millis(20))?;
    let mut c = daemon.connect()?;
    // Another session changed fn10 and reported it: its claim stands in the file.
    let path = root.join(file);
    let text = std::fs::read_to_string(&path)?;
    std::fs::write(
        &path,
        text.replacen("  if (v > 10) {", "  if (v >= 10) {", 1),
    )?;
    c.ok(
        "claims.record",
        json!({"sessionId": "claude-other", "files": [file]}),
    )?;

    let mut quiet = Samples::default();
    let mut warned = Samples::default();
    for _ in 0..runs {
        let (wall, code, out) = hook(
            opts,
            &root,
            &edit(
                &root,
                file,
                "claude-bench",
                "PreToolUse",
                "  if (v > 45) {",
                "  if (v >= 45) {",
            ),
        )?;
        if code != 0 || !out.is_empty() {
            bail!("an edit of another definition: exit {code}, {out}");
        }
        quiet.0.push(wall);
        let (wall, code, out) = hook(
            opts,
            &root,
            &edit(
                &root,
                file,
                "claude-bench",
                "PreToolUse",
                "  if (v >= 10) {",
                "  if (v > 11) {",
            ),
        )?;
        if code != 0 || !out.contains("claude-other") {
            bail!("an edit of the claimed definition: exit {code}, {out}");
        }
        warned.0.push(wall);
    }
    report.latency(
        "wit guard, another session's claim in the file (whole process)",
        &quiet,
        "≤ 5 ms p50",
    );
    report.latency(
        "wit guard, edit of a claimed definition: warning (whole process)",
        &warned,
        "",
    );

    // The post-edit hook after a real edit each time (checked first, as the pre-edit hook
    // does; only the post-edit hook is timed).
    let mut recorded = Samples::default();
    for i in 0..runs {
        let (old, new) = if i % 2 == 0 {
            ("  if (v > 45) {", "  if (v >= 45) {")
        } else {
            ("  if (v >= 45) {", "  if (v > 45) {")
        };
        hook(
            opts,
            &root,
            &edit(&root, file, "claude-bench", "PreToolUse", old, new),
        )?;
        let text = std::fs::read_to_string(&path)?;
        std::fs::write(&path, text.replacen(old, new, 1))?;
        let (wall, code, _) = hook(
            opts,
            &root,
            &edit(&root, file, "claude-bench", "PostToolUse", old, new),
        )?;
        if code != 0 {
            bail!("the post-edit hook: exit {code}");
        }
        recorded.0.push(wall);
    }
    report.latency(
        "wit guard post-edit: claims.record (whole process)",
        &recorded,
        "≤ 10 ms p50",
    );
    drop(daemon);
    Ok(())
}
