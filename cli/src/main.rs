//! `wit`: coordination for AI coding agents sharing one repository.
//!
//! One binary in two roles: the CLI agents and humans call, and (`wit daemon run`) the
//! per-repository daemon. See `wit --help` for the commands and exit codes.

// Every line the CLI prints to stdout goes through these two, which shadow the standard
// macros in the whole crate (a `macro_rules!` defined here, before the modules, is in
// scope in all of them). The standard ones panic when stdout is a closed pipe
// (`wit status --json | head -1`: "failed printing to stdout: Broken pipe"); these end the
// process quietly with exit 0 instead, as ripgrep does ([`output::write_out`]). One
// definition covers every command, text and `--json` alike.
macro_rules! println {
    () => {
        $crate::output::write_out(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::output::write_out(format_args!($($arg)*), true)
    };
}

macro_rules! print {
    ($($arg:tt)*) => {
        $crate::output::write_out(format_args!($($arg)*), false)
    };
}

mod args;
mod autostart;
mod claims;
mod client;
mod commands;
mod context;
mod duration;
mod exit;
mod explain;
mod forecast;
mod git;
mod hooks;
mod ids;
mod instructions;
mod integrate;
mod mcp;
mod output;
mod root;
mod session;

use std::process::ExitCode;

use clap::FromArgMatches;

use crate::args::{Cli, Command, DaemonCmd, HookCmd, HookName};
use crate::context::Ctx;
use crate::exit::Failure;
use crate::output::Style;

fn main() -> ExitCode {
    let cli = match args::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    ExitCode::from(run(cli))
}

/// Help and version go to stdout with 0; usage errors to stderr with 2 — and, under
/// `--json` (anywhere on the line, since clap stopped before it could read the flag), also
/// as the documented error object on stdout, so that `--json` always means JSON.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let informational = matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    let json = std::env::args_os().skip(1).any(|a| a == "--json");
    if json && !informational {
        let text = e.render().to_string();
        let first = text.lines().next().unwrap_or("usage error");
        let message = first.strip_prefix("error: ").unwrap_or(first).to_owned();
        output::print_json(&serde_json::json!({"error": {
            "code": exit::USAGE,
            "message": "USAGE_ERROR",
            "data": {"explanation": message, "usage": text},
        }}));
        eprint!("{text}");
        return ExitCode::from(exit::USAGE);
    }
    e.exit()
}

/// Writes generated output (`wit man`, `wit completions`); a closed pipe (`wit man |
/// head`) ends the process quietly, as every other output does.
fn write_stdout(bytes: &[u8]) -> u8 {
    print!("{}", String::from_utf8_lossy(bytes));
    exit::OK
}

fn run(cli: Cli) -> u8 {
    let json = cli.json;
    // The roles that must not go through the normal path: the daemon itself, and the
    // hooks, which have their own deadlines and never start a daemon.
    match &cli.command {
        Command::Daemon(DaemonCmd::Run { alone }) => return daemon_run(*alone),
        Command::Hook(HookCmd::Merge(args)) => return hooks::merge_driver::run(args),
        Command::Hook(HookCmd::Run { hook, args }) => {
            return match hook {
                HookName::PreCommit => hooks::pre_commit::run(),
                HookName::PrepareCommitMsg => hooks::prepare_msg::run(args),
                HookName::PrePush => hooks::pre_push::run(),
            };
        }
        Command::Guard(args) => return hooks::guard::run(args),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut args::command(), "wit", &mut script);
            return write_stdout(&script);
        }
        Command::Man => {
            let mut page = Vec::new();
            if let Err(e) = clap_mangen::Man::new(args::command()).render(&mut page) {
                eprintln!("wit: rendering the manual page: {e}");
                return exit::OTHER;
            }
            return write_stdout(&page);
        }
        _ => {}
    }
    let result = (|| {
        let repo = match &cli.command {
            Command::Init { .. } => root::discover_or_cwd()?,
            _ => root::discover()?,
        };
        let ctx = Ctx {
            repo,
            json,
            style: Style::detect(),
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::other(format!("starting the async runtime: {e}")))?;
        rt.block_on(commands::run(&ctx, cli.command))
    })();
    match result {
        Ok(()) => exit::OK,
        Err(f) => {
            if !matches!(f, Failure::Reported(_)) {
                if json {
                    output::print_json(&f.json());
                } else {
                    eprintln!("wit: {}", f.human());
                }
            }
            f.exit_code()
        }
    }
}

fn daemon_run(alone: bool) -> u8 {
    let repo = match root::discover_or_cwd() {
        Ok(r) => r,
        Err(f) => {
            eprintln!("wit: {}", f.human());
            return f.exit_code();
        }
    };
    let mode = if alone {
        wit_daemon::Mode::Alone
    } else {
        wit_daemon::Mode::Shared
    };
    match wit_daemon::run_blocking(&repo.root, mode) {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!(
                "wit: daemon: {}",
                wit_core::text::escape_keep_newlines(&e.to_string())
            );
            exit::OTHER
        }
    }
}
