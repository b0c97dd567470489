//! The hooks as `wit init --agents claude` configured them in the checkout's
//! `.claude/settings.json`, run as Claude Code runs them (`sh -c`, the payload on stdin,
//! the checkout as working directory, no `WIT_SESSION`), and what their answers say.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::Value;

/// The configured commands.
pub struct Hooks {
    pre: String,
    post: String,
    session_end: String,
}

/// Which hook.
#[derive(Debug, Clone, Copy)]
pub enum Event {
    /// `PreToolUse`.
    Pre,
    /// `PostToolUse`.
    Post,
    /// `SessionEnd`.
    SessionEnd,
}

/// One hook's run.
#[derive(Debug, Clone)]
pub struct Run {
    /// Its exit code (`-1`: killed by a signal).
    pub code: i32,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// Its wall time, process start to exit.
    pub wall: Duration,
}

impl Hooks {
    /// The commands `wit` configured in `root/.claude/settings.json` for the pre-edit,
    /// post-edit and session-end hooks (each must be there).
    pub fn configured(root: &Path) -> Result<Hooks> {
        let path = root.join(".claude/settings.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let settings: Value = serde_json::from_str(&text).context(".claude/settings.json")?;
        let find = |event: &str| -> Result<String> {
            settings["hooks"][event]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|g| g["hooks"][0]["command"].as_str())
                .find(|c| c.contains(" guard --agent claude"))
                .map(str::to_owned)
                .with_context(|| format!("no wit hook for {event} in {}", path.display()))
        };
        Ok(Hooks {
            pre: find("PreToolUse")?,
            post: find("PostToolUse")?,
            session_end: find("SessionEnd")?,
        })
    }

    /// Runs the hook of `event` in `root` with `input` on its stdin.
    pub fn run(&self, event: Event, root: &Path, input: &Value) -> Result<Run> {
        let command = match event {
            Event::Pre => &self.pre,
            Event::Post => &self.post,
            Event::SessionEnd => &self.session_end,
        };
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(command).current_dir(root);
        clean_env(&mut cmd);
        let t0 = Instant::now();
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("running the hook {command:?}"))?;
        let mut stdin = child.stdin.take().context("the hook's stdin")?;
        stdin.write_all(input.to_string().as_bytes())?;
        drop(stdin);
        let out = child.wait_with_output()?;
        Ok(Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            wall: t0.elapsed(),
        })
    }
}

/// The environment of every `wit` process of the replay: no identity but the payload's
/// (`WIT_SESSION`, `CLAUDE_SESSION_ID` removed), the checkout found from the working
/// directory, the SQLite store, and git without the user's configuration.
pub fn clean_env(cmd: &mut Command) {
    for var in [
        "WIT_SESSION",
        "CLAUDE_SESSION_ID",
        "WIT_REPO_ROOT",
        "WIT_STORE_URL",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1");
}

/// A definition an answer names: the session that changed it (`None`: an unattributed
/// change) and its `file:name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Named {
    /// The session, as the answer names it; `None` for "an edit outside any agent
    /// session".
    pub session: Option<String>,
    /// `file:name`.
    pub symbol: String,
}

/// What the pre-edit hook answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Exit 0, nothing said.
    Allowed,
    /// Exit 0 with a warning: the other sessions' changes the edit runs into (`hits`),
    /// and how many signature-vs-callers collisions and other warnings it names.
    Warned {
        /// Claims the edit touches.
        hits: Vec<Named>,
        /// Signature-vs-callers collisions with other sessions' changes.
        collisions: usize,
        /// Any other warning line (the forecast between checkouts: none expected here).
        other: usize,
    },
    /// Exit 2: the changes the edit would undo (or, under `claimed = "refuse"`, touch).
    Refused {
        /// The claims named.
        named: Vec<Named>,
        /// Whether the reason is the lost update (not a lock, a lease or a setting).
        undo: bool,
    },
    /// Not checked (no daemon answer in time, an unreadable payload): allowed with a
    /// line on stderr, which is kept.
    Unchecked {
        /// The line.
        why: String,
    },
    /// Any other exit code.
    Failed {
        /// The exit code.
        code: i32,
        /// Its stderr.
        stderr: String,
    },
}

impl Verdict {
    /// Whether the tool call goes through.
    pub fn allows(&self) -> bool {
        matches!(
            self,
            Verdict::Allowed | Verdict::Warned { .. } | Verdict::Unchecked { .. }
        )
    }

    /// Whether it says the edit runs into another session's change of a definition it
    /// touches: a warning naming a claim, or a refusal.
    pub fn flags_claim(&self) -> bool {
        match self {
            Verdict::Warned { hits, .. } => !hits.is_empty(),
            Verdict::Refused { .. } => true,
            _ => false,
        }
    }
}

/// The claim a line of the guard's sentences names: `<who> changed the body of <file:name>
/// …`, `<who> added <file:name> …` and so on, `<who>` being a session id or the sentence
/// for an unattributed change.
fn named(line: &str) -> Option<Named> {
    const UNATTRIBUTED: &str = "an edit outside any agent session";
    let (session, rest) = if line.starts_with(UNATTRIBUTED) {
        let at = line.find(") ")? + 2; // the sentence ends with "(… editor)"
        (None, &line[at..])
    } else {
        let (who, rest) = line.split_once(' ')?;
        (Some(who.to_owned()), rest)
    };
    let symbol = [
        "changed the body of ",
        "changed the signature of ",
        "added ",
        "removed ",
        "renamed ",
    ]
    .iter()
    .find_map(|p| rest.strip_prefix(p))?
    .split(' ')
    .next()?
    .trim_end_matches(':');
    Some(Named {
        session,
        symbol: symbol.to_owned(),
    })
}

/// What the pre-edit hook's run says.
pub fn verdict(run: &Run) -> Verdict {
    match run.code {
        0 => {
            if run.stderr.contains("not checked") {
                return Verdict::Unchecked {
                    why: run.stderr.trim().to_owned(),
                };
            }
            if run.stdout.trim().is_empty() {
                return Verdict::Allowed;
            }
            let answer: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
            let text = answer["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap_or_default();
            let (mut hits, mut collisions, mut other) = (Vec::new(), 0, 0);
            for line in text.lines().filter_map(|l| l.strip_prefix("wit guard: ")) {
                if line.ends_with("(uncommitted):") {
                    hits.extend(named(line));
                } else if line.starts_with("signature-vs-callers") {
                    collisions += 1;
                } else {
                    other += 1;
                }
            }
            Verdict::Warned {
                hits,
                collisions,
                other,
            }
        }
        2 => Verdict::Refused {
            named: run
                .stderr
                .lines()
                .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
                .filter_map(|l| named(l.trim_start()))
                .collect(),
            undo: run.stderr.contains("would undo another session's"),
        },
        code => Verdict::Failed {
            code,
            stderr: run.stderr.trim().to_owned(),
        },
    }
}

/// Fails unless the post-edit hook took the edit without a word (it never refuses; a
/// line on stderr means the edit was not attributed).
pub fn recorded(run: &Run) -> Result<()> {
    if run.code != 0 || !run.stderr.trim().is_empty() {
        bail!(
            "the post-edit hook: exit {}: {}",
            run.code,
            run.stderr.trim()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(code: i32, stdout: &str, stderr: &str) -> Run {
        Run {
            code,
            stdout: stdout.into(),
            stderr: stderr.into(),
            wall: Duration::ZERO,
        }
    }

    #[test]
    fn warnings_refusals_and_silence_are_told_apart_with_the_claims_they_name() {
        assert_eq!(verdict(&run(0, "", "")), Verdict::Allowed);
        let text = "wit guard: eval-a changed the body of src/a.py:Flask.run 2 s ago (uncommitted):\n    -x\n    +y\n\
                    wit guard: an edit outside any agent session (a shell command, a generator or a person's editor) added src/a.py:g (uncommitted):\n\
                    Your edit changes that code too: …\n\
                    wit guard: signature-vs-callers — eval-a changes src/a.py:f …: call it as it is now";
        let stdout = serde_json::json!({
            "systemMessage": text,
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": text},
        })
        .to_string();
        assert_eq!(
            verdict(&run(0, &stdout, "")),
            Verdict::Warned {
                hits: vec![
                    Named {
                        session: Some("eval-a".into()),
                        symbol: "src/a.py:Flask.run".into()
                    },
                    Named {
                        session: None,
                        symbol: "src/a.py:g".into()
                    },
                ],
                collisions: 1,
                other: 0,
            }
        );
        let refused = "wit guard: refused: this edit would undo another session's uncommitted change:\n  \
                       eval-a changed the signature of src/a.ts:price: (n) → (n, r) 1 s ago:\n    -a\n    +b\n\
                       The edit writes back the code as it was before that change, …";
        assert_eq!(
            verdict(&run(2, "", refused)),
            Verdict::Refused {
                named: vec![Named {
                    session: Some("eval-a".into()),
                    symbol: "src/a.ts:price".into()
                }],
                undo: true,
            }
        );
        let unchecked = verdict(&run(
            0,
            "",
            "wit guard: edit not checked against locks: no wit daemon is running",
        ));
        assert!(matches!(unchecked, Verdict::Unchecked { .. }));
        assert!(unchecked.allows() && !unchecked.flags_claim());
    }
}
