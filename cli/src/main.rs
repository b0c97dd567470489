//! `wit`: coordination for AI coding agents sharing one repository.
//!
//! One binary in two roles: the CLI agents and humans call, and (`wit daemon run`) the
//! per-repository daemon. See `wit --help` for the commands and exit codes.

mod args;
mod autostart;
mod client;
mod commands;
mod context;
mod duration;
mod exit;
mod explain;
mod git;
mod hooks;
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
        // Help and version go to stdout with 0; usage errors to stderr with 2.
        Err(e) => e.exit(),
    };
    ExitCode::from(run(cli))
}

fn run(cli: Cli) -> u8 {
    let json = cli.json;
    // The roles that must not go through the normal path: the daemon itself, and the
    // hooks, which have their own deadlines and never start a daemon.
    match &cli.command {
        Command::Daemon(DaemonCmd::Run) => return daemon_run(),
        Command::Hook(HookCmd::Run { hook, args }) => {
            return match hook {
                HookName::PreCommit => hooks::pre_commit::run(),
                HookName::PrepareCommitMsg => hooks::prepare_msg::run(args),
            };
        }
        _ => {}
    }
    let result = (|| {
        let repo = match &cli.command {
            Command::Init => root::discover_or_cwd()?,
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

fn daemon_run() -> u8 {
    let repo = match root::discover_or_cwd() {
        Ok(r) => r,
        Err(f) => {
            eprintln!("wit: {}", f.human());
            return f.exit_code();
        }
    };
    match wit_daemon::run_blocking(&repo.root) {
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
