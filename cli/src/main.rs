//! `wit`: coordination for AI coding agents sharing one repository.
//!
//! (Skeleton: only `wit daemon run` so far; the full CLI is issue 4.)

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "wit", version, about = "Coordination for AI coding agents sharing one repository")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run or manage the per-repository daemon.
    Daemon {
        #[command(subcommand)]
        action: DaemonAction,
    },
}

#[derive(Subcommand)]
enum DaemonAction {
    /// Serve the repository in the foreground until SIGINT/SIGTERM.
    Run,
}

fn repo_root() -> PathBuf {
    if let Some(root) = std::env::var_os("WIT_REPO_ROOT") {
        return PathBuf::from(root);
    }
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Daemon {
            action: DaemonAction::Run,
        } => match wit_daemon::run_blocking(&repo_root()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("wit: daemon: {e}");
                ExitCode::FAILURE
            }
        },
    }
}
