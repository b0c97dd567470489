//! The prepare-commit-msg hook: a `Wit-Intent: <id>` trailer per declared or active
//! intent of the session. Silent on any failure, 500 ms limit, and no duplicates when the
//! message already carries the trailer (`git commit --amend`): `git interpret-trailers
//! --if-exists addIfDifferent` does the parsing git itself does.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;
use wit_core::protocol::IntentRecord;

use crate::client::Client;
use crate::hooks::{runtime, with_deadline};
use crate::root;
use crate::session::Session;

/// The whole hook's time limit.
pub const LIMIT: Duration = Duration::from_millis(500);

/// Runs the hook with git's arguments (`<message file> [<source> [<sha>]]`); always exits 0.
pub fn run(args: &[String]) -> u8 {
    let Some(msg_file) = args.first().map(PathBuf::from) else {
        return 0;
    };
    let _ = with_deadline(LIMIT, move || add_trailers(&msg_file));
    0
}

fn add_trailers(msg_file: &Path) -> Option<()> {
    let repo = root::discover().ok()?;
    let session = Session::lookup(&repo)?;
    let rt = runtime().ok()?;
    let intents: Vec<IntentRecord> = rt.block_on(async {
        let mut client = Client::connect(&repo.socket(), LIMIT).await.ok()?;
        client
            .call("intent.query", json!({"sessionId": session.id}))
            .await
            .ok()
    })?;
    if intents.is_empty() {
        return Some(());
    }
    let mut cmd = Command::new("git");
    cmd.arg("interpret-trailers")
        .args(["--if-exists", "addIfDifferent"]);
    for i in &intents {
        cmd.arg("--trailer")
            .arg(format!("Wit-Intent: {}", i.intent_id));
    }
    let out = cmd
        .arg(msg_file)
        .current_dir(&repo.root)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    // Write beside the message and rename, so a deadline never leaves half a message.
    let tmp = msg_file.with_extension("wit-tmp");
    std::fs::write(&tmp, &out.stdout).ok()?;
    std::fs::rename(&tmp, msg_file).ok()
}
