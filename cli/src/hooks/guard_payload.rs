//! The pre-tool hook payloads `wit guard` reads, one shape per agent, turned into the
//! files an edit changes and how.
//!
//! Each agent's hook hands the guard one JSON object on stdin. What each field means is
//! taken from the agent's own documentation (the fixtures in `tests/e2e/fixtures/guard/`
//! follow it, with links):
//! - **Claude Code** `PreToolUse`: `tool_name` `Edit` (`tool_input.file_path`,
//!   `old_string`, `new_string`, `replace_all`), `MultiEdit` (`edits: [{old_string,
//!   new_string, replace_all}]`) or `Write` (`content`); `session_id`, `cwd`.
//! - **Gemini CLI** `BeforeTool`: `tool_name` `replace` (`file_path`, `old_string`,
//!   `new_string`, `expected_replacements`) or `write_file` (`file_path`, `content`).
//! - **Codex** `PreToolUse`: `tool_name` `apply_patch`, the patch text in
//!   `tool_input.command` (`*** Begin Patch` … `*** Update File: path` / `@@` hunks of
//!   ` `, `-`, `+` lines … `*** End Patch`).
//!
//! The same shapes arrive after the edit (Claude Code and Codex `PostToolUse`, Gemini
//! CLI `AfterTool`, with the tool's response): `event` tells which, and `failed` whether
//! the tool reported a failure (Claude Code sends `PostToolUseFailure` then, Gemini CLI
//! an `error` in `tool_response`). Claude Code adds `agent_id` inside a subagent.
//!
//! Anything else (another tool, another event) is no edit, and the guard allows it. An
//! edit tool whose path is missing or not a string is an error: the edit cannot be
//! checked, and `[guard] fail_closed` decides.
//! Every string here came from the agent, which may have been steered by a hostile
//! repository: the paths are resolved and checked by the caller, never opened as given.

use serde::Deserialize;
use serde_json::Value;

/// What one hook invocation asks about.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Payload {
    /// The agent's session id (`session_id`), when it sent one.
    pub session_id: Option<String>,
    /// The agent's working directory (`cwd`), for patch paths relative to it.
    pub cwd: Option<String>,
    /// The hook event (`hook_event_name`: `PreToolUse`, `PostToolUse`, `AfterTool`, …).
    pub event: Option<String>,
    /// The subagent the call comes from (Claude Code's `agent_id`), when it does.
    pub agent_id: Option<String>,
    /// Whether the tool reported a failure (after the call only).
    pub failed: bool,
    /// The files the tool call changes; empty when it is no edit.
    pub edits: Vec<FileEdit>,
}

/// The changes one tool call makes to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    /// The path as the agent wrote it (absolute for Claude Code and Gemini CLI).
    pub path: String,
    /// What happens to it.
    pub change: Change,
}

/// How a file changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// String replacements, applied in order (Claude `Edit`/`MultiEdit`, Gemini
    /// `replace`, a Codex update hunk).
    Replace(Vec<Replacement>),
    /// The whole content becomes this (Claude `Write`, Gemini `write_file`, Codex
    /// `*** Add File`).
    Write(String),
    /// The file goes away (Codex `*** Delete File`, or the source of `*** Move to`).
    Delete,
    /// The file is made from `from` with these replacements (the destination of a Codex
    /// `*** Move to`).
    Moved {
        /// The file moved (as the patch names it).
        from: String,
        /// The update's hunks, applied to `from`'s content.
        reps: Vec<Replacement>,
    },
}

/// One string replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The text replaced.
    pub old: String,
    /// Its replacement.
    pub new: String,
    /// Every occurrence, not only the first.
    pub all: bool,
}

/// Which agent's hook convention to read and answer in.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Agent {
    /// Claude Code `PreToolUse` (the default).
    #[default]
    Claude,
    /// Codex `PreToolUse` on `apply_patch`.
    Codex,
    /// Cursor: its hooks give no file change before an edit (see the README); allows.
    Cursor,
    /// Gemini CLI `BeforeTool`.
    Gemini,
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    hook_event_name: Option<String>,
    #[serde(default)]
    agent_id: Option<String>,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_input: Value,
    #[serde(default)]
    tool_response: Value,
}

/// Whether `tool` of `agent` is an edit tool whose input names one file (`file_path`).
fn edits_one_file(agent: Agent, tool: &str) -> bool {
    matches!(
        (agent, tool),
        (Agent::Claude, "Edit" | "MultiEdit" | "Write") | (Agent::Gemini, "replace" | "write_file")
    )
}

/// Parses a payload of `agent`'s hook. A payload that is not JSON, or not an object, is
/// an error (the caller decides what that means); one that is no edit has no `edits`.
pub fn parse(agent: Agent, text: &str) -> Result<Payload, String> {
    let raw: Raw = serde_json::from_str(text)
        .map_err(|e| format!("the hook's input is not the JSON object expected: {e}"))?;
    let non_empty = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
    // Gemini CLI's `AfterTool` carries the tool's error in its response.
    let error = raw.tool_response.get("error");
    let failed = raw.hook_event_name.as_deref() == Some("PostToolUseFailure")
        || error.is_some_and(|e| !e.is_null() && e != "" && e != &Value::Bool(false));
    let mut payload = Payload {
        session_id: non_empty(raw.session_id),
        cwd: raw.cwd,
        event: raw.hook_event_name,
        agent_id: non_empty(raw.agent_id),
        failed,
        edits: Vec::new(),
    };
    let input = &raw.tool_input;
    let str_field = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_owned);
    let tool = raw.tool_name.as_deref().unwrap_or("");
    let file = str_field("file_path").filter(|p| !p.is_empty());
    if file.is_none() && edits_one_file(agent, tool) {
        return Err(format!(
            "the {} call gives no file path (tool_input.file_path is {})",
            wit_core::text::escape(tool),
            match input.get("file_path") {
                None => "missing",
                Some(Value::String(_)) => "empty",
                Some(_) => "not a string",
            }
        ));
    }
    payload.edits = match (agent, tool, file) {
        (Agent::Claude, "Edit", Some(path)) => vec![FileEdit {
            path,
            change: Change::Replace(vec![Replacement {
                old: str_field("old_string").unwrap_or_default(),
                new: str_field("new_string").unwrap_or_default(),
                all: input.get("replace_all").and_then(Value::as_bool) == Some(true),
            }]),
        }],
        (Agent::Claude, "MultiEdit", Some(path)) => {
            let edits = input.get("edits").and_then(Value::as_array);
            let replacements = edits
                .into_iter()
                .flatten()
                .map(|e| Replacement {
                    old: text_of(e, "old_string"),
                    new: text_of(e, "new_string"),
                    all: e.get("replace_all").and_then(Value::as_bool) == Some(true),
                })
                .collect();
            vec![FileEdit {
                path,
                change: Change::Replace(replacements),
            }]
        }
        (Agent::Claude, "Write", Some(path)) | (Agent::Gemini, "write_file", Some(path)) => {
            vec![FileEdit {
                path,
                change: Change::Write(str_field("content").unwrap_or_default()),
            }]
        }
        (Agent::Gemini, "replace", Some(path)) => vec![FileEdit {
            path,
            change: Change::Replace(vec![Replacement {
                old: str_field("old_string").unwrap_or_default(),
                new: str_field("new_string").unwrap_or_default(),
                // Gemini replaces exactly `expected_replacements` occurrences (default 1).
                all: input
                    .get("expected_replacements")
                    .and_then(Value::as_u64)
                    .is_some_and(|n| n > 1),
            }]),
        }],
        (Agent::Codex, "apply_patch", _) => match input.get("command") {
            Some(Value::String(patch)) => parse_patch(patch),
            // Some Codex versions pass the argv form: the patch is the last element.
            Some(Value::Array(argv)) => argv
                .iter()
                .rev()
                .find_map(Value::as_str)
                .map(parse_patch)
                .unwrap_or_default(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    Ok(payload)
}

fn text_of(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

/// The files a Codex `apply_patch` body changes. Lenient: lines it does not understand are
/// skipped, since the guard only needs where the patch lands; `apply_patch` itself
/// refuses a malformed patch.
pub fn parse_patch(patch: &str) -> Vec<FileEdit> {
    let mut out: Vec<FileEdit> = Vec::new();
    // The update being read: path, hunks so far, the current hunk's old and new text.
    let mut current: Option<(String, Vec<Replacement>)> = None;
    let mut hunk: Option<(String, String)> = None;
    let mut adding: Option<(String, String)> = None;
    // A move being read: (destination, source); its hunks go into `current`.
    let mut moving: Option<(String, String)> = None;

    fn close_hunk(
        current: &mut Option<(String, Vec<Replacement>)>,
        hunk: &mut Option<(String, String)>,
    ) {
        if let (Some((_, reps)), Some((old, new))) = (current.as_mut(), hunk.take())
            && old != new
        {
            reps.push(Replacement {
                old,
                new,
                all: false,
            });
        }
    }
    fn close_file(
        out: &mut Vec<FileEdit>,
        current: &mut Option<(String, Vec<Replacement>)>,
        hunk: &mut Option<(String, String)>,
        adding: &mut Option<(String, String)>,
        moving: &mut Option<(String, String)>,
    ) {
        close_hunk(current, hunk);
        match (current.take(), moving.take()) {
            (Some((_, reps)), Some((to, from))) => out.push(FileEdit {
                path: to,
                change: Change::Moved { from, reps },
            }),
            (Some((path, reps)), None) => out.push(FileEdit {
                path,
                change: Change::Replace(reps),
            }),
            _ => {}
        }
        if let Some((path, content)) = adding.take() {
            out.push(FileEdit {
                path,
                change: Change::Write(content),
            });
        }
    }

    for line in patch.lines() {
        if let Some(path) = line.strip_prefix("*** Update File: ") {
            close_file(&mut out, &mut current, &mut hunk, &mut adding, &mut moving);
            current = Some((path.trim().to_owned(), Vec::new()));
        } else if let Some(path) = line.strip_prefix("*** Add File: ") {
            close_file(&mut out, &mut current, &mut hunk, &mut adding, &mut moving);
            adding = Some((path.trim().to_owned(), String::new()));
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            close_file(&mut out, &mut current, &mut hunk, &mut adding, &mut moving);
            out.push(FileEdit {
                path: path.trim().to_owned(),
                change: Change::Delete,
            });
        } else if let Some(to) = line.strip_prefix("*** Move to: ") {
            // The source file goes away as a whole (every definition in it is touched);
            // the destination is the source with the update's hunks, read on.
            if let Some((path, _)) = current.take() {
                hunk = None;
                out.push(FileEdit {
                    path: path.clone(),
                    change: Change::Delete,
                });
                moving = Some((to.trim().to_owned(), path));
                current = Some((String::new(), Vec::new()));
            }
        } else if line.starts_with("*** ") {
            // *** Begin Patch, *** End Patch, *** End of File.
            if line.starts_with("*** End Patch") {
                close_file(&mut out, &mut current, &mut hunk, &mut adding, &mut moving);
            }
        } else if line.starts_with("@@") {
            close_hunk(&mut current, &mut hunk);
            if current.is_some() {
                hunk = Some((String::new(), String::new()));
            }
        } else if let Some((_, content)) = adding.as_mut() {
            if let Some(text) = line.strip_prefix('+') {
                content.push_str(text);
                content.push('\n');
            }
        } else if current.is_some() {
            let (old, new) = hunk.get_or_insert_with(|| (String::new(), String::new()));
            if let Some(text) = line.strip_prefix('-') {
                old.push_str(text);
                old.push('\n');
            } else if let Some(text) = line.strip_prefix('+') {
                new.push_str(text);
                new.push('\n');
            } else {
                // Context (a leading space, or an empty line some writers leave bare).
                let text = line.strip_prefix(' ').unwrap_or(line);
                old.push_str(text);
                old.push('\n');
                new.push_str(text);
                new.push('\n');
            }
        }
    }
    close_file(&mut out, &mut current, &mut hunk, &mut adding, &mut moving);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_edit_multiedit_and_write() {
        let p = parse(
            Agent::Claude,
            r#"{"session_id":"s1","cwd":"/r","hook_event_name":"PreToolUse","tool_name":"Edit",
               "tool_input":{"file_path":"/r/a.ts","old_string":"x","new_string":"y","replace_all":true}}"#,
        )
        .unwrap();
        assert_eq!(p.session_id.as_deref(), Some("s1"));
        assert_eq!(
            p.edits,
            vec![FileEdit {
                path: "/r/a.ts".into(),
                change: Change::Replace(vec![Replacement {
                    old: "x".into(),
                    new: "y".into(),
                    all: true
                }])
            }]
        );
        let p = parse(
            Agent::Claude,
            r#"{"tool_name":"MultiEdit","tool_input":{"file_path":"/r/a.ts",
               "edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}}"#,
        )
        .unwrap();
        assert!(matches!(&p.edits[0].change, Change::Replace(r) if r.len() == 2 && !r[1].all));
        let p = parse(
            Agent::Claude,
            r#"{"tool_name":"Write","tool_input":{"file_path":"/r/a.ts","content":"new"}}"#,
        )
        .unwrap();
        assert_eq!(p.edits[0].change, Change::Write("new".into()));
    }

    #[test]
    fn other_tools_and_agents_are_no_edit_and_bad_json_is_an_error() {
        let bash = r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#;
        assert!(parse(Agent::Claude, bash).unwrap().edits.is_empty());
        // A Claude payload read as Gemini's is no edit: the tool names differ.
        let edit = r#"{"tool_name":"Edit","tool_input":{"file_path":"/a","old_string":"x"}}"#;
        assert!(parse(Agent::Gemini, edit).unwrap().edits.is_empty());
        assert!(parse(Agent::Cursor, edit).unwrap().edits.is_empty());
        // An edit tool without a string path cannot be checked: an error, for
        // `[guard] fail_closed` to decide (not "no edit").
        let no_path = r#"{"tool_name":"Edit","tool_input":{"old_string":"x"}}"#;
        let e = parse(Agent::Claude, no_path).unwrap_err();
        assert!(e.contains("missing"), "{e}");
        let not_string = r#"{"tool_name":"write_file","tool_input":{"file_path":7}}"#;
        let e = parse(Agent::Gemini, not_string).unwrap_err();
        assert!(e.contains("not a string"), "{e}");
        assert!(parse(Agent::Claude, "not json").is_err());
        assert!(parse(Agent::Claude, "[1]").is_err());
    }

    #[test]
    fn gemini_replace_and_write_file() {
        let p = parse(
            Agent::Gemini,
            r#"{"session_id":"g","hook_event_name":"BeforeTool","tool_name":"replace",
               "tool_input":{"file_path":"/r/a.py","old_string":"a","new_string":"b","expected_replacements":2}}"#,
        )
        .unwrap();
        assert!(matches!(&p.edits[0].change, Change::Replace(r) if r[0].all));
        let p = parse(
            Agent::Gemini,
            r#"{"tool_name":"write_file","tool_input":{"file_path":"/r/a.py","content":"c"}}"#,
        )
        .unwrap();
        assert_eq!(p.edits[0].change, Change::Write("c".into()));
    }

    #[test]
    fn codex_patches_update_add_delete_and_move() {
        let patch = "*** Begin Patch\n*** Update File: src/a.py\n@@ def f():\n def f():\n-    return 1\n+    return 2\n*** Add File: src/new.py\n+x = 1\n*** Delete File: src/old.py\n*** Update File: src/m.py\n*** Move to: src/n.py\n@@\n-a\n+b\n*** End Patch\n";
        let edits = parse_patch(patch);
        assert_eq!(
            edits,
            vec![
                FileEdit {
                    path: "src/a.py".into(),
                    change: Change::Replace(vec![Replacement {
                        old: "def f():\n    return 1\n".into(),
                        new: "def f():\n    return 2\n".into(),
                        all: false
                    }])
                },
                FileEdit {
                    path: "src/new.py".into(),
                    change: Change::Write("x = 1\n".into())
                },
                FileEdit {
                    path: "src/old.py".into(),
                    change: Change::Delete
                },
                FileEdit {
                    path: "src/m.py".into(),
                    change: Change::Delete
                },
                FileEdit {
                    path: "src/n.py".into(),
                    change: Change::Moved {
                        from: "src/m.py".into(),
                        reps: vec![Replacement {
                            old: "a\n".into(),
                            new: "b\n".into(),
                            all: false
                        }]
                    }
                },
            ]
        );
        let p = parse(
            Agent::Codex,
            &serde_json::json!({"session_id":"c","tool_name":"apply_patch",
                "tool_input":{"command": patch}})
            .to_string(),
        )
        .unwrap();
        assert_eq!(p.edits.len(), 5);
    }

    #[test]
    fn the_event_the_subagent_and_a_failed_tool_are_read() {
        let p = parse(
            Agent::Claude,
            r#"{"session_id":"s","agent_id":"sub-1","hook_event_name":"PostToolUse","tool_name":"Write",
               "tool_input":{"file_path":"/r/a.ts","content":"x"},"tool_response":{"filePath":"/r/a.ts"}}"#,
        )
        .unwrap();
        assert_eq!(p.event.as_deref(), Some("PostToolUse"));
        assert_eq!(p.agent_id.as_deref(), Some("sub-1"));
        assert!(!p.failed);
        let p = parse(
            Agent::Claude,
            r#"{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"Edit",
               "tool_input":{"file_path":"/r/a.ts","old_string":"a","new_string":"b"}}"#,
        )
        .unwrap();
        assert!(p.failed);
        let p = parse(
            Agent::Gemini,
            r#"{"session_id":"g","hook_event_name":"AfterTool","tool_name":"replace",
               "tool_input":{"file_path":"/r/a.ts","old_string":"a","new_string":"b"},
               "tool_response":{"llmContent":"Failed to edit","error":{"message":"0 occurrences"}}}"#,
        )
        .unwrap();
        assert!(p.failed);
        let p = parse(
            Agent::Gemini,
            r#"{"session_id":"g","hook_event_name":"AfterTool","tool_name":"replace",
               "tool_input":{"file_path":"/r/a.ts","old_string":"a","new_string":"b"},
               "tool_response":{"llmContent":"ok","returnDisplay":"ok"}}"#,
        )
        .unwrap();
        assert!(!p.failed);
    }
}
