//! One module per command family; [`run`] dispatches.

pub mod analyzers;
pub mod check;
pub mod claims;
pub mod conflicts;
pub mod contract;
pub mod daemon;
pub mod declare;
pub mod events;
pub mod graph;
pub mod init;
pub mod intent;
pub mod lease;
pub mod liveness;
pub mod lock;
pub mod status;
pub mod store;
pub mod trust;
pub mod watch;

use crate::args::{Command, HookCmd};
use crate::context::Ctx;
use crate::exit::CmdResult;
use crate::hooks;

/// Runs a parsed command (except `daemon run` and `hook run`, which `main` handles
/// before any runtime exists).
pub async fn run(ctx: &Ctx, command: Command) -> CmdResult {
    match command {
        Command::Init { agents } => init::run(ctx, &agents).await,
        Command::Status => status::run(ctx).await,
        Command::Conflicts(a) => conflicts::run(ctx, a).await,
        Command::Claims(a) => claims::run(ctx, a).await,
        Command::Declare(a) => declare::run(ctx, a).await,
        Command::Intent(c) => intent::run(ctx, c).await,
        Command::Lock(a) => lock::lock(ctx, a).await,
        Command::Release(a) => lock::release(ctx, a).await,
        Command::Symbols { files } => graph::symbols(ctx, files).await,
        Command::Callers(a) => graph::edges(ctx, &a.symbol, a.depth, true).await,
        Command::Callees(a) => graph::edges(ctx, &a.symbol, a.depth, false).await,
        Command::Contract(c) => contract::run(ctx, c).await,
        Command::Watch { interval } => watch::run(ctx, interval).await,
        Command::Renew { symbols, ttl } => liveness::renew(ctx, symbols, ttl).await,
        Command::ForceRelease { symbol, reason } => {
            liveness::force_release(ctx, &symbol, &reason).await
        }
        Command::EndSession { abandon_intents } => {
            liveness::end_session(ctx, abandon_intents).await
        }
        Command::Lease(c) => lease::run(ctx, c).await,
        Command::Audit { session } => liveness::audit(ctx, session).await,
        Command::Events {
            since,
            follow,
            kinds,
            session,
        } => events::run(ctx, since, follow, kinds, session).await,
        Command::Hook(HookCmd::Install { force }) => hooks::install::install(ctx, force),
        Command::Hook(HookCmd::Uninstall) => hooks::install::uninstall(ctx),
        Command::Hook(HookCmd::Run { .. } | HookCmd::Merge(_))
        | Command::Guard(_)
        | Command::Completions { .. }
        | Command::Man => {
            unreachable!("handled in main")
        }
        Command::CheckContracts { files, staged } => check::run(ctx, files, staged).await,
        Command::Daemon(c) => daemon::run(ctx, c).await,
        Command::Store(crate::args::StoreCmd::Status) => store::status(ctx).await,
        Command::Store(crate::args::StoreCmd::Migrate) => store::migrate(ctx).await,
        Command::Analyzers => analyzers::run(ctx).await,
        Command::Trust { yes } => trust::trust(ctx, yes).await,
        Command::Untrust => trust::untrust(ctx).await,
        Command::Mcp => crate::mcp::run(ctx).await,
        Command::Integrate {
            agents,
            remove,
            dry_run,
        } => crate::integrate::run(ctx, &agents, remove, dry_run),
    }
}
