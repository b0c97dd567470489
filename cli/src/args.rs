//! The command line.

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::duration::parse_duration_ms;
use crate::exit::EXIT_CODES_HELP;

/// `wit`: coordination for AI coding agents sharing one repository.
#[derive(Parser, Debug)]
#[command(
    name = "wit",
    version,
    about = "Coordination for AI coding agents sharing one repository",
    long_about = "Coordination for AI coding agents sharing one repository: declare intents, lock \
                  symbols, agree on signature contracts. Talks to the repository's daemon \
                  (.wit/daemon.sock), starting it when none runs."
)]
pub struct Cli {
    /// Machine output: exactly one JSON document on stdout.
    #[arg(long, global = true)]
    pub json: bool,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Adds the exit-code table to the top-level help (a `const` cannot be `concat!`ed).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    let base = Cli::command();
    let help = format!(
        "Example:\n  wit init && export WIT_SESSION=agent-a && wit status\n\n{EXIT_CODES_HELP}\n\n\
         Shell completions: `wit completions bash|zsh|fish`; manual page: `wit man`."
    );
    base.after_help(help.clone()).after_long_help(help)
}

/// The help after `wit integrate --help`: what each agent gets.
const INTEGRATE_HELP: &str = "\
Files written (paths relative to the repository root):
  claude  .mcp.json (mcpServers.wit), .claude/settings.json (hooks PreToolUse
          Edit|MultiEdit|Write -> wit guard --agent claude, SessionStart -> wit status,
          SessionEnd -> wit release --all), CLAUDE.md (instructions)
  codex   .codex/config.toml ([mcp_servers.wit]), .codex/hooks.json (PreToolUse
          apply_patch -> wit guard --agent codex, SessionStart -> wit status), AGENTS.md
  cursor  .cursor/mcp.json (mcpServers.wit), .cursor/hooks.json (preToolUse
          Write|Edit|MultiEdit -> wit guard --agent cursor), .cursor/rules/wit.mdc
  gemini  .gemini/settings.json (mcpServers.wit, hooks BeforeTool write_file|replace ->
          wit guard --agent gemini), GEMINI.md (instructions)
wit is named `wit` when the wit on your PATH is this binary, else by its absolute path.

Examples:
  wit integrate claude --dry-run     # show the diffs, write nothing
  wit integrate claude codex
  wit integrate --remove cursor";

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Set up wit in this repository: .wit/, .gitignore, a session id, the daemon, and
    /// coordination instructions in CLAUDE.md and AGENTS.md; with --agents, also what
    /// `wit integrate` writes for each agent named.
    #[command(after_help = "Example:\n  wit init\n  wit init --agents claude,codex")]
    Init {
        /// Also integrate these agents (comma-separated), as `wit integrate` does.
        #[arg(long, value_delimiter = ',', value_name = "AGENT")]
        agents: Vec<crate::integrate::agent::Agent>,
    },

    /// Show intents, locks (with time left) and contracts, and the conflict forecast
    /// between this repository's checkouts (git worktrees) when there are several.
    #[command(after_help = "Example:\n  wit status\n  wit status --json")]
    Status,

    /// The conflict forecast: where the uncommitted edits of this repository's checkouts
    /// (git worktrees) would collide — one function changed in two of them
    /// (same-symbol), a signature changed in one while another's new or changed code
    /// calls it (signature-vs-callers, with the call chain), a member of a type removed,
    /// renamed or retyped in one while another's code reads or writes it
    /// (member-vs-uses), or a file git could not merge (textual, with why) — and the
    /// state of each checkout, and the files wit's merge driver will merge. Exit 0
    /// whether or not any stands.
    #[command(after_help = "Example:\n  wit conflicts\n  \
                      wit conflicts --file src/pricing.ts   # also what other checkouts changed in it\n  \
                      wit conflicts --checkout wt-b --json")]
    Conflicts(ConflictsArgs),

    /// The uncommitted changes of the checkouts, definition by definition, by the session
    /// (agent) whose edit made each one (its claim; `(unattributed)`: a change no agent's
    /// hook reported, such as a shell command or a person's editor). The edit-time guard
    /// warns an agent about to change another's claimed code, and refuses an edit that
    /// would undo it (a write from a stale read). A claim ends when the code is committed
    /// or reverted, when its session ends, or after `[guard] claim_idle` without an edit.
    #[command(after_help = "Example:\n  wit claims\n  \
                      wit claims --session agent-a --diff\n  \
                      wit claims --file src/pricing.ts --json")]
    Claims(ClaimsArgs),

    /// Declare what you are about to change; prints the conflicts found (exit 0 even with
    /// conflicts: the intent is stored either way).
    #[command(
        after_help = "Example:\n  wit declare --description \"refactor token checks\" \
                            --files src/auth.ts src/api.ts --symbols validateToken"
    )]
    Declare(DeclareArgs),

    /// Update or list intents.
    #[command(subcommand)]
    Intent(IntentCmd),

    /// Lock symbols (`file:name`) for your session. All or nothing: when one is locked by
    /// another session, none is taken.
    #[command(
        after_help = "Example:\n  wit lock src/auth.ts:validateToken --ttl 45m\n  wit lock src/auth.ts:validateToken --wait 5m   # queue behind the holder\n  \
                            wit lock --symbol src/auth.ts:validateToken"
    )]
    Lock(LockArgs),

    /// List the definitions of files (name to address them with, kind, lines, exported,
    /// signature), from their current content.
    #[command(
        after_help = "Example:\n  wit symbols src/db.ts src/api.ts\n  wit symbols src/db.ts --json\n\n\
                      A name shared by two definitions is addressed as name#kind \
                      (input#function) or name#N (the N-th)."
    )]
    Symbols {
        /// Files, relative to the current directory.
        #[arg(required = true)]
        files: Vec<String>,
    },

    /// Who calls a symbol, across the repository (the code graph); each edge says
    /// whether it is resolved (by imports and scoping) or name-only.
    #[command(
        after_help = "Example:\n  wit callers src/db.ts:query\n  wit callers src/db.ts:query --depth 3 --json"
    )]
    Callers(GraphArgs),

    /// What a symbol calls, across the repository (the code graph); unresolved callees
    /// show as ?:name.
    #[command(
        after_help = "Example:\n  wit callees src/api.ts:handler\n  wit callees src/api.ts:Api.get --depth 2"
    )]
    Callees(GraphArgs),

    /// Release locks of your session.
    #[command(
        after_help = "Example:\n  wit release src/auth.ts:validateToken\n  wit release --all"
    )]
    Release(ReleaseArgs),

    /// Propose, accept, reject and list signature contracts.
    #[command(subcommand)]
    Contract(ContractCmd),

    /// A live view of intents, locks, contracts and the conflict forecast; Ctrl-C to quit. With --json, one JSON
    /// document per line each time the state changes.
    #[command(after_help = "Example:\n  wit watch")]
    Watch {
        /// How often to ask the daemon when it cannot push changes (an older daemon
        /// without an event log, or one being restarted), e.g. 500ms or 2s. A current
        /// daemon's changes show at once.
        #[arg(long, default_value = "500ms", value_parser = parse_duration_ms)]
        interval: u64,
    },

    /// Pre-edit hook for coding agents: reads the hook's JSON on stdin, exits 2 (reason on stderr) when the edit changes a symbol another session has locked; lets it through with a warning (JSON on stdout) when another checkout changed the file.
    #[command(
        after_help = "Example (Claude Code PreToolUse hook on Edit|MultiEdit|Write):\n  wit guard\n  wit guard --agent gemini   # also: codex, cursor"
    )]
    Guard(GuardArgs),

    /// Install or remove the git hooks (pre-commit contract check, Wit-Intent trailers) and
    /// the merge driver (merges definitions changed on different sides).
    #[command(subcommand)]
    Hook(HookCmd),

    /// Check files against the accepted contracts (exit 5 on violations). With no FILE,
    /// every file that has an accepted contract.
    #[command(
        name = "check-contracts",
        after_help = "Example:\n  wit check-contracts src/auth.ts\n  wit check-contracts --staged"
    )]
    CheckContracts {
        /// Files to check, relative to the current directory.
        files: Vec<String>,
        /// Check the staged (index) content instead of the working tree, like the
        /// pre-commit hook.
        #[arg(long)]
        staged: bool,
    },

    /// Run or manage the repository's daemon.
    #[command(subcommand)]
    Daemon(DaemonCmd),

    /// The coordination store: where locks, intents, leases and contracts live.
    #[command(subcommand)]
    Store(StoreCmd),

    /// List the analyzers in use (built-in and plugins from wit.toml), the plugins that
    /// were not loaded and why, and whether wit.toml was accepted.
    #[command(after_help = "Example:\n  wit analyzers\n  wit analyzers --json")]
    Analyzers,

    /// Allow the daemon to load the analyzer plugins wit.toml names. Shows each file and
    /// its SHA-256 and asks for confirmation (or --yes); the grant is stored in your config
    /// directory, pinned to those hashes, and goes stale when any of them changes. A
    /// running daemon is restarted to load them.
    #[command(
        after_help = "Example:\n  wit trust\n  wit trust --yes   # no question (scripts, CI)"
    )]
    Trust {
        /// Trust without asking (required when stdin is not a terminal).
        #[arg(long, short = 'y')]
        yes: bool,
    },

    /// Revoke `wit trust` for this repository; a running daemon is restarted without its
    /// plugins.
    #[command(after_help = "Example:\n  wit untrust")]
    Untrust,

    /// Extend locks your session holds (each to now + TTL).
    #[command(after_help = "Example:\n  wit renew src/auth.ts:validateToken --ttl 30m")]
    Renew {
        /// Symbol paths, `file:name` (file relative to the current directory).
        #[arg(required = true)]
        symbols: Vec<String>,
        /// The new time to live: 90s, 30m, 2h (default: the daemon's).
        #[arg(long, value_parser = parse_duration_ms)]
        ttl: Option<u64>,
    },

    /// Release another session's abandoned lock (its agent crashed or left). Recorded
    /// with who, when and why (`wit audit`); the holder is told by the event log.
    #[command(
        name = "force-release",
        after_help = "Example:\n  wit force-release src/auth.ts:validateToken --reason \"agent-b crashed an hour ago\""
    )]
    ForceRelease {
        /// The locked symbol, `file:name`.
        symbol: String,
        /// Why (required; recorded).
        #[arg(long)]
        reason: String,
    },

    /// End your session: release all its locks and leases (intents stay, shown as ended,
    /// unless --abandon-intents).
    #[command(
        name = "end-session",
        after_help = "Example:\n  wit end-session\n  wit end-session --abandon-intents"
    )]
    EndSession {
        /// Also abandon your declared and active intents.
        #[arg(long)]
        abandon_intents: bool,
    },

    /// File and glob leases: reserve whole files or directories for a while, exclusively
    /// (nobody else locks, leases, edits or commits under them) or shared.
    #[command(subcommand)]
    Lease(LeaseCmd),

    /// The audit log: locks released by force, by expiry, or because their session ended.
    #[command(after_help = "Example:\n  wit audit\n  wit audit --session agent-b --json")]
    Audit {
        /// Only records where this session held or released the lock.
        #[arg(long)]
        session: Option<String>,
    },

    /// Print the event log: every lock, intent and contract change, numbered without
    /// gaps. With --follow, wait for new ones (Ctrl-C to stop); with --json, one event
    /// object per line.
    #[command(
        after_help = "Example:\n  wit events\n  wit events --follow --kind lock.acquired --kind lock.released\n  \
                      wit events --since 120 --json"
    )]
    Events {
        /// Only events after this sequence number.
        #[arg(long, default_value_t = 0)]
        since: u64,
        /// Keep waiting for new events.
        #[arg(long, short = 'f')]
        follow: bool,
        /// Only this kind (repeatable), e.g. lock.expired.
        #[arg(long = "kind", value_name = "KIND")]
        kinds: Vec<String>,
        /// Only events about this session.
        #[arg(long)]
        session: Option<String>,
    },

    /// Serve MCP on stdio (tools wit_declare, wit_lock, …, resource wit://status) for an MCP client; identity: WIT_SESSION, else the client's name plus a random suffix.
    #[command(
        after_help = "Example (MCP configuration):\n  {\"command\": \"wit\", \"args\": [\"mcp\"], \"env\": {\"WIT_SESSION\": \"agent-a\"}}"
    )]
    Mcp,

    /// Set up a coding agent to use wit: its MCP server registration (`wit mcp`), its
    /// pre-edit hook (`wit guard`, which refuses an edit of a symbol another session has
    /// locked) and the coordination instructions, merged into the project files it reads.
    /// Other keys, their order and comments are kept; a second run changes nothing;
    /// --remove takes out exactly what wit added.
    #[command(after_help = INTEGRATE_HELP)]
    Integrate {
        /// The agents: claude, codex, cursor, gemini.
        #[arg(required = true, value_name = "AGENT")]
        agents: Vec<crate::integrate::agent::Agent>,
        /// Take wit's entries out again (files left empty are deleted).
        #[arg(long)]
        remove: bool,
        /// Show the diff of each file and write nothing.
        #[arg(long)]
        dry_run: bool,
    },

    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Example:\n  \
        wit completions bash > ~/.local/share/bash-completion/completions/wit\n  \
        wit completions zsh > ~/.zfunc/_wit      # with fpath+=(~/.zfunc) in ~/.zshrc\n  \
        wit completions fish > ~/.config/fish/completions/wit.fish")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },

    /// Print the manual page (roff), e.g. `wit man | man -l -`.
    #[command(after_help = "Example:\n  wit man > ~/.local/share/man/man1/wit.1 && man wit")]
    Man,
}

/// `wit conflicts`.
#[derive(Args, Debug)]
pub struct ConflictsArgs {
    /// Only forecasts involving this checkout: its path (relative to the current
    /// directory), its directory name or its branch.
    #[arg(long, value_name = "PATH|NAME|BRANCH")]
    pub checkout: Option<String>,
    /// Only forecasts involving the checkout this session works in.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only forecasts naming this symbol, `file:name` (file relative to the current
    /// directory).
    #[arg(long, value_name = "FILE:NAME")]
    pub symbol: Option<String>,
    /// Only forecasts touching this file (relative to the current directory); also lists
    /// what the other checkouts changed in it.
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
}

/// `wit claims`.
#[derive(Args, Debug)]
pub struct ClaimsArgs {
    /// Only this session's claims (`""`: the unattributed ones).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only claims in this file (relative to the current directory).
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Only claims of this checkout: its path, directory name (every checkout sharing the
    /// state by default).
    #[arg(long, value_name = "PATH|NAME")]
    pub checkout: Option<String>,
    /// Show each change: a short diff from HEAD.
    #[arg(long)]
    pub diff: bool,
}

/// `wit declare`.
#[derive(Args, Debug)]
pub struct DeclareArgs {
    /// What you mean to do, for the other agents.
    #[arg(long, short = 'd')]
    pub description: String,
    /// Files you will change, relative to the current directory (space- or comma-separated).
    #[arg(long, short = 'f', num_args = 1.., value_delimiter = ',', required = true)]
    pub files: Vec<String>,
    /// Symbol names (not paths) you will change in those files.
    #[arg(long, short = 's', num_args = 1.., value_delimiter = ',')]
    pub symbols: Vec<String>,
    /// Declare even names no declared file defines (by default refused, with the
    /// nearest names).
    #[arg(long)]
    pub allow_missing: bool,
}

/// Intent statuses a session may set.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetStatus {
    /// Work is under way.
    Active,
    /// Done.
    Resolved,
    /// Given up.
    Abandoned,
}

impl TargetStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            TargetStatus::Active => "active",
            TargetStatus::Resolved => "resolved",
            TargetStatus::Abandoned => "abandoned",
        }
    }
}

/// Any intent status, for filters.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnyStatus {
    /// Declared, not started.
    Declared,
    /// Under way.
    Active,
    /// Done.
    Resolved,
    /// Given up.
    Abandoned,
}

/// `wit intent …`.
#[derive(Subcommand, Debug)]
pub enum IntentCmd {
    /// Set an intent's status (declared → active → resolved, or abandoned).
    #[command(after_help = "Example:\n  wit intent update 3f2a…-… active")]
    Update {
        /// The intent id, or any unique prefix of it.
        id: String,
        /// The new status.
        status: TargetStatus,
    },
    /// Mark an intent active (work under way).
    #[command(after_help = "Example:\n  wit intent start <intent-id>")]
    Start {
        /// The intent id, or any unique prefix of it.
        id: String,
    },
    /// Mark an intent resolved.
    #[command(
        after_help = "Example:\n  wit intent done <intent-id>",
        visible_alias = "resolve"
    )]
    Done {
        /// The intent id, or any unique prefix of it.
        id: String,
    },
    /// Mark an intent abandoned — your own, or another session's once that session ended
    /// (`wit status` shows it), or with --force; another's needs --reason (recorded in
    /// `wit audit`).
    #[command(
        after_help = "Example:\n  wit intent abandon <intent-id>\n  wit intent abandon <intent-id> --reason \"agent-b crashed\""
    )]
    Abandon {
        /// The intent id, or any unique prefix of it.
        id: String,
        /// Why (required for another session's intent; recorded).
        #[arg(long)]
        reason: Option<String>,
        /// Abandon another session's intent although that session has not ended.
        #[arg(long, requires = "reason")]
        force: bool,
    },
    /// List intents (declared and active ones unless --all or --status).
    #[command(
        after_help = "Example:\n  wit intent list --mine\n  wit intent list --all --file src/auth.ts"
    )]
    List {
        /// Every status, finished ones included.
        #[arg(long, conflicts_with = "status")]
        all: bool,
        /// Only this status.
        #[arg(long)]
        status: Option<AnyStatus>,
        /// Only intents naming this file (relative to the current directory).
        #[arg(long)]
        file: Option<String>,
        /// Only your session's intents.
        #[arg(long)]
        mine: bool,
    },
}

/// `wit lease …`.
#[derive(Subcommand, Debug)]
pub enum LeaseCmd {
    /// Lease files or globs: `src/auth/` (everything beneath), `**/*.sql`, `src/{a,b}.ts`.
    #[command(
        after_help = "Patterns are relative to the current directory: '*' and '?' within a \
                      segment, '**' as a whole segment, [abc], {a,b}; a trailing '/' means \
                      everything beneath; a plain path is that file.\n\nExample:\n  \
                      wit lease take src/auth/ --reason \"moving the auth module\"\n  \
                      wit lease take 'migrations/*.sql' --shared --ttl 2h"
    )]
    Take {
        /// Patterns to lease.
        #[arg(required = true)]
        paths: Vec<String>,
        /// Share the paths with other shared leases (only exclusive ones conflict).
        #[arg(long)]
        shared: bool,
        /// How long: 90s, 30m, 2h (default: the daemon's lock TTL).
        #[arg(long, value_parser = parse_duration_ms)]
        ttl: Option<u64>,
        /// Why, shown to the other sessions.
        #[arg(long)]
        reason: Option<String>,
    },
    /// List the leases (all sessions' unless --mine).
    #[command(after_help = "Example:\n  wit lease list\n  wit lease list --file src/auth/token.ts")]
    List {
        /// Only your session's.
        #[arg(long)]
        mine: bool,
        /// Only leases covering this file (relative to the current directory); repeatable.
        #[arg(long)]
        file: Vec<String>,
    },
    /// Extend a lease you hold.
    #[command(after_help = "Example:\n  wit lease renew 3f2a --ttl 1h")]
    Renew {
        /// The lease id, or any unique prefix of it.
        id: String,
        /// The new time to live (default: the daemon's lock TTL).
        #[arg(long, value_parser = parse_duration_ms)]
        ttl: Option<u64>,
    },
    /// Release leases you hold.
    #[command(after_help = "Example:\n  wit lease release 3f2a\n  wit lease release --all")]
    Release {
        /// Lease ids, or unique prefixes.
        ids: Vec<String>,
        /// Every lease of your session.
        #[arg(long, conflicts_with = "ids")]
        all: bool,
    },
    /// Release another session's abandoned lease; recorded in `wit audit`.
    #[command(
        name = "force-release",
        after_help = "Example:\n  wit lease force-release 3f2a --reason \"agent-b crashed\""
    )]
    ForceRelease {
        /// The lease id, or any unique prefix of it.
        id: String,
        /// Why (required; recorded).
        #[arg(long)]
        reason: String,
    },
}

/// `wit lock`.
#[derive(Args, Debug)]
pub struct LockArgs {
    /// Symbol paths, `file:name` (file relative to the current directory).
    pub symbols: Vec<String>,
    /// A symbol path (as the first implementation spelled it); repeatable.
    #[arg(long = "symbol", value_name = "PATH")]
    pub symbol: Vec<String>,
    /// How long the lock lasts: 90s, 30m, 2h, 1h30m (a bare number is milliseconds).
    /// Default: the daemon's (30m unless wit.toml says otherwise).
    #[arg(long, value_parser = parse_duration_ms)]
    pub ttl: Option<u64>,
    /// When the symbol is locked by another session, wait up to this long for it (first
    /// come, first served among the waiters), e.g. 30s or 5m, instead of failing at once.
    #[arg(long, value_parser = parse_duration_ms, value_name = "DURATION")]
    pub wait: Option<u64>,
    /// Lock even a name the file does not define (by default `wit lock` refuses it:
    /// "no symbol `X` in `F` — did you mean …").
    #[arg(long)]
    pub allow_missing: bool,
}

/// `wit callers` / `wit callees`.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// The symbol, `file:name` (file relative to the current directory).
    pub symbol: String,
    /// Levels to follow: 1 = direct only; up to 8.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub depth: u8,
}

/// `wit release`.
#[derive(Args, Debug)]
pub struct ReleaseArgs {
    /// Symbol paths to release.
    pub symbols: Vec<String>,
    /// A symbol path (as the first implementation spelled it); repeatable.
    #[arg(long = "symbol", value_name = "PATH")]
    pub symbol: Vec<String>,
    /// Release every lock of your session.
    #[arg(long, conflicts_with_all = ["symbols", "symbol"])]
    pub all: bool,
}

/// `wit contract …`.
#[derive(Subcommand, Debug)]
pub enum ContractCmd {
    /// Capture a function's current signature as a contract for others to accept.
    #[command(after_help = "Example:\n  wit contract propose src/api.ts:handleLogin")]
    Propose {
        /// `file:name` of a function or method.
        symbol: String,
    },
    /// Accept another session's contract; commits breaking it are then refused.
    #[command(after_help = "Example:\n  wit contract accept <contract-id>")]
    Accept {
        /// The contract id, or any unique prefix of it.
        id: String,
    },
    /// Reject another session's contract.
    #[command(after_help = "Example:\n  wit contract reject <contract-id>")]
    Reject {
        /// The contract id, or any unique prefix of it.
        id: String,
    },
    /// Stop enforcing a contract (proposed or accepted). Its proposer may withdraw it;
    /// another session must say why (--reason), and who, when and why are recorded.
    #[command(after_help = "Example:\n  wit contract withdraw f04d\n  \
                      wit contract withdraw f04d --reason \"signature changed on purpose in #142\"\n\n\
                      To change an accepted signature instead, propose the new one and have \
                      another session accept it: that supersedes the old contract.")]
    Withdraw {
        /// The contract id, or any unique prefix of it.
        id: String,
        /// Why (required for another session's contract).
        #[arg(long)]
        reason: Option<String>,
    },
    /// List contracts.
    #[command(after_help = "Example:\n  wit contract list --status accepted")]
    List {
        /// Only this status: proposed, accepted, rejected, withdrawn or superseded
        /// (without it: proposed, accepted and rejected).
        #[arg(long, value_parser = ["proposed", "accepted", "rejected", "withdrawn", "superseded"])]
        status: Option<String>,
        /// Only this symbol path.
        #[arg(long)]
        symbol: Option<String>,
    },
}

/// Git hooks wit provides.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookName {
    /// Refuses commits that break accepted contracts.
    PreCommit,
    /// Adds `Wit-Intent:` trailers.
    PrepareCommitMsg,
    /// Refuses pushing commits that break accepted contracts.
    PrePush,
}

/// `wit hook …`.
#[derive(Subcommand, Debug)]
pub enum HookCmd {
    /// Install the pre-commit, prepare-commit-msg and pre-push hooks (respects core.hooksPath). An
    /// existing hook not made by wit is kept: with --force it is moved to `<hook>.pre-wit`
    /// and run before wit's; without, nothing is changed. Also sets up wit's merge driver
    /// for the files wit's analyzers cover (merge.wit.driver in the repository's config,
    /// `*.ts merge=wit` and the like in .git/info/attributes; .gitattributes is not
    /// touched): where git's line merge would stop, it merges definition by definition.
    #[command(
        after_help = "Example:\n  wit hook install\n  wit hook install --force   # keep and chain to an existing hook\n\n\
                      Run it again after `wit trust` or a change of wit.toml's languages, or of the \
                      merge attributes in .gitattributes, to update the files the merge driver covers."
    )]
    Install {
        /// Chain to (rather than refuse) an existing hook not made by wit.
        #[arg(long)]
        force: bool,
    },
    /// Remove wit's hooks and merge driver and restore what was there before.
    #[command(
        visible_alias = "remove",
        after_help = "Example:\n  wit hook remove       # or: wit hook uninstall"
    )]
    Uninstall,
    /// The merge driver git runs (set up by `wit hook install`): merges one file
    /// definition by definition where git's line merge stops.
    #[command(hide = true, long_about = MERGE_DRIVER_HELP)]
    Merge(MergeArgs),
    /// Run a hook (called by the installed hook scripts).
    #[command(hide = true)]
    Run {
        /// Which hook.
        hook: HookName,
        /// The arguments git passed to the hook.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// `wit hook merge --help`: what the driver does and how git calls it.
const MERGE_DRIVER_HELP: &str = "\
The merge driver git runs for the files wit's analyzers cover, once `wit hook install` has
set it up (merge.wit.driver in the repository's config, `*.ts merge=wit` and the like in
.git/info/attributes). It is not meant to be run by hand.

git's own line merge goes first; a file it merges cleanly is left exactly as git merged it.
Where git stops, the three versions are cut into their definitions (functions, classes,
methods, types) and merged definition by definition: definitions changed, added or removed
on different sides are merged (adjacent one-line functions, the last line of one function
and the first of the next, both sides adding a function at the end of the file); a
definition changed on both sides is merged by git's line merge of its three versions, then
member by member (methods of a class), and keeps git's conflict markers where that stops; a
definition deleted on one side and changed on the other is a conflict; the text outside
definitions is merged by git's line merge. A file that does not parse cleanly, is larger
than [analysis] max_file_bytes, or has no analyzer is merged by git's line merge alone.

Exit status: 0 merged cleanly, 1 conflict markers left in OURS, 2 the merge could not be
made (OURS left as it was). One line on stderr says what the driver did when it differs
from git's merge.";

/// `wit hook merge` arguments: what git passes a merge driver.
#[derive(Args, Debug)]
#[command(
    after_help = "Example (what `wit hook install` writes as merge.wit.driver):\n  \
    wit hook merge --marker-size %L --path %P --base-label %S --ours-label %X \
    --theirs-label %Y %O %A %B"
)]
pub struct MergeArgs {
    /// The common ancestor's version (git's %O).
    pub base: std::ffi::OsString,
    /// Our version (%A); the result is written over it.
    pub ours: std::ffi::OsString,
    /// Their version (%B).
    pub theirs: std::ffi::OsString,
    /// The conflict markers' length (%L).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub marker_size: u16,
    /// The path of the file being merged (%P): its extension chooses the analyzer.
    #[arg(long)]
    pub path: Option<std::ffi::OsString>,
    /// The label of the common ancestor in conflicts (%S).
    #[arg(long)]
    pub base_label: Option<std::ffi::OsString>,
    /// The label of our side (%X).
    #[arg(long)]
    pub ours_label: Option<std::ffi::OsString>,
    /// The label of their side (%Y).
    #[arg(long)]
    pub theirs_label: Option<std::ffi::OsString>,
}

/// `wit daemon …`.
#[derive(Subcommand, Debug)]
pub enum DaemonCmd {
    /// Serve the repository in the foreground until SIGINT/SIGTERM. When the repository's
    /// daemon already runs (started in another worktree), it serves this worktree too and
    /// this command stays until SIGINT/SIGTERM, then stops the serving: one process per
    /// repository serves every worktree, holding the files they share once.
    #[command(
        after_help = "Example:\n  wit daemon run\n  wit daemon run --alone   # a process of its own, shared with no other worktree"
    )]
    Run {
        /// Serve this worktree in a process of its own, never another worktree's
        /// (isolation, debugging). Costs the memory and index build the sharing saves.
        #[arg(long)]
        alone: bool,
    },
    /// Start the daemon in the background (no-op when it runs).
    #[command(after_help = "Example:\n  wit daemon start")]
    Start,
    /// Stop serving this worktree and wait until it is stopped. The process exits unless
    /// it serves other worktrees of the repository (daemons without `daemon.stop` get
    /// SIGTERM).
    #[command(after_help = "Example:\n  wit daemon stop")]
    Stop,
    /// Stop the daemon and start it again (e.g. after upgrading wit).
    #[command(after_help = "Example:\n  wit daemon restart")]
    Restart,
    /// One line: pid, socket, uptime, counts, analyzers. Does not start the daemon
    /// (exit 4 when it is not running).
    #[command(after_help = "Example:\n  wit daemon status")]
    Status,
}

/// `wit store …`.
#[derive(Subcommand, Debug)]
pub enum StoreCmd {
    /// Backend, database, reachability, schema version and one round trip's latency.
    #[command(after_help = "Example:\n  wit store status\n  wit store status --json")]
    Status,
    /// Copy this repository's SQLite state (.wit/state.db) into the PostgreSQL store named
    /// by WIT_STORE_URL (or [store] url in ~/.config/wit/config.toml), once: a second run
    /// copies nothing. Rows already in the shared project are kept; the event log is
    /// copied only into an empty one. Restart the daemon with WIT_STORE_URL set afterwards
    /// (`wit daemon restart`).
    #[command(
        after_help = "Example:\n  WIT_STORE_URL=postgresql://wit@db.internal/wit wit store migrate\n  wit store migrate --json"
    )]
    Migrate,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::FromArgMatches;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let m =
            command().try_get_matches_from(std::iter::once("wit").chain(args.iter().copied()))?;
        Cli::from_arg_matches(&m)
    }

    #[test]
    fn the_command_line_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn lock_accepts_positional_and_symbol_flag_and_ttl() {
        let Cli {
            command: Command::Lock(l),
            ..
        } = parse(&["lock", "a.ts:f", "--symbol", "b.ts:g", "--ttl", "90s"]).unwrap()
        else {
            panic!()
        };
        assert_eq!(l.symbols, ["a.ts:f"]);
        assert_eq!(l.symbol, ["b.ts:g"]);
        assert_eq!(l.ttl, Some(90_000));
        assert!(parse(&["lock", "a.ts:f", "--ttl", "soon"]).is_err());
    }

    #[test]
    fn declare_takes_lists_and_json_is_global() {
        let cli = parse(&[
            "declare",
            "-d",
            "x",
            "--files",
            "a.ts",
            "b.ts",
            "--symbols",
            "f,g",
            "--json",
        ])
        .unwrap();
        assert!(cli.json);
        let Command::Declare(d) = cli.command else {
            panic!()
        };
        assert_eq!(d.files, ["a.ts", "b.ts"]);
        assert_eq!(d.symbols, ["f", "g"]);
        assert!(
            parse(&["declare", "-d", "x"]).is_err(),
            "--files is required"
        );
    }

    #[test]
    fn trust_takes_yes() {
        let Cli {
            command: Command::Trust { yes },
            ..
        } = parse(&["trust", "--yes"]).unwrap()
        else {
            panic!()
        };
        assert!(yes);
        assert!(matches!(
            parse(&["analyzers", "--json"]).unwrap().command,
            Command::Analyzers
        ));
    }

    #[test]
    fn release_all_excludes_symbols() {
        assert!(parse(&["release", "--all", "a.ts:f"]).is_err());
        assert!(parse(&["release", "--all"]).is_ok());
    }
}

/// `wit guard` arguments.
#[derive(clap::Args, Debug)]
pub struct GuardArgs {
    /// Whose hook convention the input (stdin) and the answer follow.
    #[arg(long, value_enum, default_value_t = crate::hooks::guard_payload::Agent::Claude)]
    pub agent: crate::hooks::guard_payload::Agent,
}
