//! The Claude Code hook payloads of the replay, built from the documented payloads the
//! end-to-end tests use (`tests/e2e/fixtures/guard/`): the same fields, with the session,
//! the checkout and the edit filled in. No `WIT_SESSION` is set anywhere: the payload's
//! `session_id` is each session's identity, as it is for two Claude Code sessions
//! started side by side.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

const EDIT: &str = include_str!("../../../../tests/e2e/fixtures/guard/claude-post-edit.json");
const WRITE: &str = include_str!("../../../../tests/e2e/fixtures/guard/claude-write.json");
const SESSION_END: &str =
    include_str!("../../../../tests/e2e/fixtures/guard/claude-session-end.json");

/// Before or after the tool ran (`PreToolUse`, `PostToolUse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// The pre-edit hook: the guard checks the edit.
    Before,
    /// The post-edit hook: the edit was made, its changes become the session's claims.
    After,
}

impl When {
    fn event(self) -> &'static str {
        match self {
            When::Before => "PreToolUse",
            When::After => "PostToolUse",
        }
    }
}

fn fixture(text: &str) -> Result<Value> {
    serde_json::from_str(text).context("a documented payload that is not JSON")
}

/// The fields every tool payload of `session` in checkout `root` carries.
fn common(v: &mut Value, root: &Path, session: &str, when: When, call: usize) {
    v["session_id"] = json!(session);
    v["transcript_path"] = json!(format!("/tmp/claims-eval/{session}.jsonl"));
    v["cwd"] = json!(root);
    v["hook_event_name"] = json!(when.event());
    v["tool_use_id"] = json!(format!("toolu_eval_{call:06}"));
}

/// Claude Code's `Edit` of `file` (repository-relative) replacing `old` by `new`: the
/// pre-edit payload, or the post-edit one with the tool's response.
pub fn edit(
    root: &Path,
    session: &str,
    file: &str,
    old: &str,
    new: &str,
    when: When,
    call: usize,
) -> Result<Value> {
    let mut v = fixture(EDIT)?;
    common(&mut v, root, session, when, call);
    let path = root.join(file);
    v["tool_name"] = json!("Edit");
    v["tool_input"] = json!({
        "file_path": path, "old_string": old, "new_string": new, "replace_all": false,
    });
    match when {
        When::Before => {
            v.as_object_mut().map(|o| o.remove("tool_response"));
        }
        When::After => {
            v["tool_response"] = json!({
                "filePath": path, "oldString": old, "newString": new,
                "replaceAll": false, "userModified": false,
            });
        }
    }
    Ok(v)
}

/// Claude Code's `Write` of the whole `file` with `content` (`created`: the file did not
/// exist): the pre-edit payload, or the post-edit one.
pub fn write(
    root: &Path,
    session: &str,
    file: &str,
    content: &str,
    created: bool,
    when: When,
    call: usize,
) -> Result<Value> {
    let mut v = fixture(WRITE)?;
    common(&mut v, root, session, when, call);
    let path = root.join(file);
    v["tool_name"] = json!("Write");
    v["tool_input"] = json!({ "file_path": path, "content": content });
    if when == When::After {
        v["tool_response"] = json!({
            "type": if created { "create" } else { "update" },
            "filePath": path, "content": content,
        });
    }
    Ok(v)
}

/// Claude Code's `SessionEnd` of `session`.
pub fn session_end(root: &Path, session: &str) -> Result<Value> {
    let mut v = fixture(SESSION_END)?;
    v["session_id"] = json!(session);
    v["cwd"] = json!(root);
    v["transcript_path"] = json!(format!("/tmp/claims-eval/{session}.jsonl"));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_is_the_documented_payload_with_the_session_and_the_strings_filled_in() {
        let root = Path::new("/tmp/co");
        let old = "    return \"x\"\n"; // quotes and newlines survive as JSON
        let pre = edit(
            root,
            "eval-a",
            "src/a.py",
            old,
            "    return 1\n",
            When::Before,
            3,
        )
        .unwrap();
        assert_eq!(pre["session_id"], "eval-a");
        assert_eq!(pre["hook_event_name"], "PreToolUse");
        assert_eq!(pre["tool_name"], "Edit");
        assert_eq!(pre["cwd"], "/tmp/co");
        assert_eq!(pre["tool_input"]["file_path"], "/tmp/co/src/a.py");
        assert_eq!(pre["tool_input"]["old_string"], old);
        assert_eq!(pre["tool_input"]["new_string"], "    return 1\n");
        assert_eq!(pre["tool_input"]["replace_all"], false);
        assert!(pre.get("tool_response").is_none(), "{pre}");
        // The documented fields nobody fills stay as documented.
        assert_eq!(pre["permission_mode"], "default");
        let post = edit(root, "eval-a", "src/a.py", old, "x", When::After, 3).unwrap();
        assert_eq!(post["hook_event_name"], "PostToolUse");
        assert_eq!(post["tool_response"]["filePath"], "/tmp/co/src/a.py");
        assert_eq!(post["tool_response"]["oldString"], old);
        assert_eq!(post["tool_use_id"], pre["tool_use_id"]);
        // No placeholder of the fixture is left anywhere.
        assert!(!post.to_string().contains("__"), "{post}");
    }

    #[test]
    fn a_write_and_a_session_end_name_their_session() {
        let root = Path::new("/tmp/co");
        let pre = write(
            root,
            "eval-b",
            "lib/x.ts",
            "let a;\n",
            false,
            When::Before,
            1,
        )
        .unwrap();
        assert_eq!(pre["tool_name"], "Write");
        assert_eq!(pre["tool_input"]["content"], "let a;\n");
        assert_eq!(pre["tool_input"]["file_path"], "/tmp/co/lib/x.ts");
        assert!(pre.get("tool_response").is_none());
        let post = write(root, "eval-b", "lib/x.ts", "let a;\n", true, When::After, 1).unwrap();
        assert_eq!(post["tool_response"]["type"], "create");
        assert!(!post.to_string().contains("__"), "{post}");
        let end = session_end(root, "eval-b").unwrap();
        assert_eq!(end["hook_event_name"], "SessionEnd");
        assert_eq!(end["session_id"], "eval-b");
        assert!(!end.to_string().contains("__"), "{end}");
    }
}
