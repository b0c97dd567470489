//! The coordination instructions wit writes into the agents' instruction files
//! (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`, Cursor's rule), by `wit init` and by
//! `wit integrate`; in a module of their own, below both.

/// Marks the start of wit's section; its presence means "already written, leave alone".
pub const SECTION_MARKER: &str = "<!-- wit:coordination -->";

/// The instructions appended to CLAUDE.md and AGENTS.md.
pub const INSTRUCTIONS: &str = r#"<!-- wit:coordination -->
## Coordinating with other agents (wit)

Several agents may edit this repository at the same time; `wit` keeps them out of each
other's way. Follow this workflow for every change:

1. Give yourself a unique identity, once per shell: `export WIT_SESSION=<your-session-id>`.
   Without it every agent shares one identity and conflicts go unnoticed.
2. Look first: `wit status` shows who intends to change what, the locks held (with time
   left) and the signature contracts.
3. Declare what you are about to change:
   `wit declare --description "what and why" --files src/a.ts src/b.ts --symbols fnA fnB`.
   Read every conflict it prints and coordinate with the session it names before you
   touch the same code.
4. Lock each symbol right before editing it: `wit lock src/a.ts:fnA --ttl 30m`.
5. Re-read the file right before you edit it: another agent may have changed it since you
   last read it. Edit the part you change rather than writing a whole file back. Before
   an edit, wit warns when another session changed that code and has not committed it
   (keep their change; tell them), and refuses an edit that would undo their change (a
   write from an earlier read): read the file again and redo your edit on its current
   content. `wit claims` lists every uncommitted change by session.
6. If `wit lock` fails with LOCK_CONFLICT (exit code 3), do not edit anyway and do not give
   up: do other work and retry later; the message says who holds it and until when.
7. Release as soon as you are done: `wit release src/a.ts:fnA` (or `wit release --all`).
8. Close your intent: `wit intent done <intent-id>` (or `wit intent abandon <intent-id>`).

Contracts: `wit contract propose src/api.ts:handler` captures a function's signature; once
another session accepts it (`wit contract accept <id>`), commits that change it are
refused. Every command takes `--json` for machine-readable output; `wit --help` lists the
exit codes.
<!-- /wit:coordination -->
"#;
