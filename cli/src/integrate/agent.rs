//! The coding agents `wit integrate` (and `wit init --agents`) can set up: a value of the
//! command line, so in a file of its own that the argument definitions can name without
//! depending on the integration itself.

use clap::ValueEnum;
use serde::Serialize;

/// The coding agents wit can set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Claude Code: .mcp.json, .claude/settings.json, CLAUDE.md.
    Claude,
    /// Codex CLI: .codex/config.toml, .codex/hooks.json, AGENTS.md.
    Codex,
    /// Cursor: .cursor/mcp.json, .cursor/hooks.json, .cursor/rules/wit.mdc.
    Cursor,
    /// Gemini CLI: .gemini/settings.json, GEMINI.md.
    Gemini,
}

impl Agent {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Cursor => "cursor",
            Agent::Gemini => "gemini",
        }
    }
}
