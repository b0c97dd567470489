//! `wit daemon start|stop|restart|status` (and the shared `daemon.status` shape).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::args::DaemonCmd;
use crate::autostart;
use crate::client::{CallError, Client, ConnectError};
use crate::commands::analyzers::{ConfigState, FailedPlugin};
use crate::context::{Ctx, failure};
use crate::duration::human_span;
use crate::exit::{CmdResult, Failure};
use crate::output::{print_json, shown};
use crate::root::Repo;

/// The `daemon.status` extension's result.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DaemonStatus {
    /// The daemon's pid.
    pub pid: u32,
    /// The daemon's version (`CARGO_PKG_VERSION` of its build).
    pub version: String,
    /// Unix ms.
    pub started_at: i64,
    /// Milliseconds since start.
    pub uptime_ms: i64,
    /// The repository it serves.
    pub root: String,
    /// Its socket.
    pub socket: String,
    /// How many locks, live intents and contracts it holds.
    pub counts: Counts,
    /// Loaded analyzers.
    pub analyzers: Vec<AnalyzerInfo>,
    /// `wit.toml` as the daemon read it.
    pub config: ConfigState,
    /// Plugins refused at start.
    pub failed: Vec<FailedPlugin>,
    /// Where the coordination state lives (absent from older daemons).
    #[serde(default)]
    pub state: StateInfo,
    /// The worktree each active session works in (worktrees share one state).
    #[serde(default)]
    pub worktrees: std::collections::BTreeMap<String, String>,
    /// The other worktrees of the repository the same process serves.
    #[serde(default)]
    pub served_with: Vec<String>,
    /// The index's file watcher (absent from older daemons).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<WatchInfo>,
}

/// `daemon.status` `watch`: the directories the index's file watcher watches, and those
/// past its cap that it lists now and then instead.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct WatchInfo {
    /// `inotify`, `portable` or `none`.
    pub source: String,
    /// Directories watched.
    pub watched: u64,
    /// Most directories watched.
    pub cap: u64,
    /// Where the cap comes from (`WIT_MAX_WATCHES`, or the default's reason).
    pub cap_source: String,
    /// Whether some directory is polled because the cap is reached.
    pub cap_reached: bool,
    /// Directories polled instead of watched.
    pub polled: u64,
    /// How often they are listed.
    pub poll_interval_ms: u64,
}

/// `daemon.status` state: the database, and whether it is shared with other worktrees.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StateInfo {
    /// `sqlite` or `postgres` (absent from daemons before the PostgreSQL store: SQLite).
    pub backend: Option<String>,
    /// The `state.db` in use, or the PostgreSQL store's host and database.
    pub database: String,
    /// The project a PostgreSQL store shares.
    pub project: Option<String>,
    /// The main worktree whose state this linked worktree shares.
    pub shared_with: Option<String>,
    /// A state database of this worktree's own that is not used.
    pub separate_state: Option<String>,
    /// Why the state is not shared, when it could have been.
    pub note: Option<String>,
}

/// `daemon.status` counts.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    /// Unexpired locks.
    pub locks: u64,
    /// Declared and active intents.
    pub intents: u64,
    /// Contracts.
    pub contracts: u64,
    /// Unexpired leases.
    pub leases: u64,
}

/// One loaded analyzer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalyzerInfo {
    /// `typescript`, `python`, …
    pub id: String,
    /// Extensions without the dot.
    pub extensions: Vec<String>,
    /// `builtin` or a plugin path.
    pub origin: serde_json::Value,
}

/// This CLI's version, compared with the daemon's.
pub const CLI_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Asks the daemon for its status.
pub async fn fetch_status(client: &mut Client) -> CmdResult<DaemonStatus> {
    client
        .call("daemon.status", json!({}))
        .await
        .map_err(|e| failure(e, "daemon.status"))
}

/// Prints a one-line notice when the daemon runs another version of wit.
pub fn notice_version(st: &DaemonStatus) {
    if !st.version.is_empty() && st.version != CLI_VERSION {
        eprintln!(
            "wit: notice: the daemon runs wit {} but this is wit {CLI_VERSION}; run `wit daemon restart`",
            st.version
        );
    }
}

/// One line describing a running daemon.
pub fn status_line(st: &DaemonStatus) -> String {
    let analyzers: Vec<String> = st
        .analyzers
        .iter()
        .map(|a| {
            let origin = match &a.origin {
                serde_json::Value::String(s) if s == "builtin" => String::new(),
                serde_json::Value::String(s) => format!(" from {s}"),
                serde_json::Value::Null => String::new(),
                other => format!(" from {other}"),
            };
            format!("{} ({}){origin}", a.id, a.extensions.join(", "))
        })
        .collect();
    let mut problems = String::new();
    if st.config.error.is_some() {
        problems.push_str(" · wit.toml refused (see `wit analyzers`)");
    }
    if !st.failed.is_empty() {
        problems.push_str(&format!(
            " · {} plugin(s) not loaded (see `wit analyzers`)",
            st.failed.len()
        ));
    }
    if let Some(w) = st.watch.as_ref().filter(|w| w.cap_reached) {
        problems.push_str(&format!(
            " · file watcher at its cap of {} directories: {} more listed every {} (changes there are seen that much later; WIT_MAX_WATCHES sets the cap)",
            w.cap,
            w.polled,
            human_span(w.poll_interval_ms as i64)
        ));
    }
    let shared = match st.served_with.len() {
        0 => String::new(),
        1 => " (also serving 1 other worktree)".to_owned(),
        n => format!(" (also serving {n} other worktrees)"),
    };
    format!(
        "daemon running · pid {}{shared} · wit {} · socket {} · up {} · {} locks, {} intents, {} contracts · analyzers: {}{problems}",
        st.pid,
        st.version,
        st.socket,
        human_span(st.uptime_ms),
        st.counts.locks,
        st.counts.intents,
        st.counts.contracts,
        if analyzers.is_empty() {
            "none".to_owned()
        } else {
            analyzers.join(", ")
        }
    )
}

/// Runs a `wit daemon` subcommand.
pub async fn run(ctx: &Ctx, cmd: DaemonCmd) -> CmdResult {
    match cmd {
        DaemonCmd::Run { .. } => unreachable!("handled in main"),
        DaemonCmd::Start => start(ctx).await,
        DaemonCmd::Stop => {
            let stopped = stop(&ctx.repo).await?;
            if ctx.json {
                print_json(&json!({"stopped": stopped.is_some(), "pid": stopped}));
            } else {
                match stopped {
                    Some(pid) => println!("daemon stopped (pid {pid})"),
                    None => println!("daemon not running"),
                }
            }
            Ok(())
        }
        DaemonCmd::Restart => {
            stop(&ctx.repo).await?;
            start(ctx).await
        }
        DaemonCmd::Status => {
            let mut client = match autostart::connect_existing(&ctx.repo, autostart::CALL_TIMEOUT)
                .await
            {
                Ok(c) => c,
                Err(e) => {
                    return Err(Failure::Unreachable(format!(
                        "daemon not running for {} ({e}); any wit command starts it, or `wit daemon start`",
                        ctx.repo.root.display()
                    )));
                }
            };
            let st = fetch_status(&mut client).await?;
            notice_version(&st);
            if ctx.json {
                print_json(&st);
            } else {
                println!("{}", shown(&status_line(&st)));
            }
            Ok(())
        }
    }
}

async fn start(ctx: &Ctx) -> CmdResult {
    let (mut client, started) = autostart::ensure_running(&ctx.repo).await?;
    let st = fetch_status(&mut client).await?;
    notice_version(&st);
    if ctx.json {
        print_json(&json!({"started": started, "status": st}));
    } else {
        println!(
            "{}{}",
            if started {
                "started: "
            } else {
                "already running: "
            },
            shown(&status_line(&st))
        );
    }
    Ok(())
}

/// Stops serving this worktree and waits until it is stopped (its socket gone, and the
/// process exited when it served no other worktree); returns the serving process's pid,
/// or `None` when none was running.
pub async fn stop(repo: &Repo) -> CmdResult<Option<u32>> {
    // The pid comes from the kernel (the connection's peer credentials), never from the
    // daemon's answer or the pid file: whatever listens on the socket could claim any pid
    // (pid 1, say) and have us signal it.
    let mut client = match autostart::connect_existing(repo, Duration::from_secs(5)).await {
        Ok(client) => client,
        Err(ConnectError::Refused) => {
            // A daemon that died without cleaning up; nothing to stop.
            let _ = repo.wit().remove("daemon.sock");
            return Ok(None);
        }
        Err(ConnectError::Missing) => return Ok(None),
        Err(ConnectError::Other(m)) => return Err(Failure::Unreachable(m)),
    };
    let Some(pid) = client.peer_pid() else {
        return Err(Failure::other(
            "the daemon answers but the kernel did not report its pid; stop it by hand",
        ));
    };
    let Ok(pid_t) = libc::pid_t::try_from(pid) else {
        return Err(Failure::other(format!("invalid daemon pid {pid}")));
    };
    // `daemon.stop` stops this worktree only: the process may serve the repository's
    // other worktrees too. A daemon from before it gets SIGTERM, as it always did.
    // Whether the process exits, when the daemon confirms (`stopping: true`).
    let confirmed = match client.call_value("daemon.stop", json!({})).await {
        Ok(answer) if answer["stopping"] == true => {
            Some(answer["exiting"].as_bool().unwrap_or(true))
        }
        Ok(_) => None,
        Err(CallError::Rpc(e))
            if e.code == wit_core::protocol::ErrorCode::MethodNotFound.code() =>
        {
            None
        }
        Err(e) => {
            return Err(Failure::Unreachable(format!(
                "asking the daemon to stop: {e}"
            )));
        }
    };
    // A daemon without `daemon.stop`, or that does not confirm it, is signalled, as before.
    let exiting = confirmed.unwrap_or_else(|| {
        signal(pid_t, libc::SIGTERM);
        true
    });
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        // Stopped once its socket is gone: removed last, after its checkout is withdrawn.
        let served = match autostart::connect_existing(repo, Duration::from_secs(1)).await {
            Ok(c) => c.peer_pid() == Some(pid),
            Err(ConnectError::Missing) => false,
            Err(_) => true,
        };
        let exiting_still = exiting && alive(pid_t);
        if !served && !exiting_still {
            break;
        }
        if Instant::now() >= deadline {
            if !exiting {
                return Err(Failure::other(format!(
                    "the daemon (pid {pid}) still serves this worktree after 10 s; it also \
                     serves other worktrees, so it was not killed"
                )));
            }
            signal(pid_t, libc::SIGKILL);
            eprintln!("wit: the daemon (pid {pid}) did not exit within 10 s; killed it");
            // SIGKILL cannot be caught, but it takes effect asynchronously.
            let gone = Instant::now() + Duration::from_secs(2);
            while alive(pid_t) && Instant::now() < gone {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(Some(pid))
}

fn signal(pid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: kill(2) has no memory-safety preconditions; a stale pid yields ESRCH.
    unsafe {
        libc::kill(pid, sig);
    }
}

fn alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let r = unsafe { libc::kill(pid, 0) };
    let exists = r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    // An exited daemon whose parent has not reaped it yet (a zombie: in containers, pid 1
    // often never reaps) still "exists" for kill(2), but it is gone for our purpose.
    exists && !is_zombie(pid)
}

fn is_zombie(pid: libc::pid_t) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // Format: `pid (comm) state …`; comm may contain spaces and parentheses.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .is_some_and(|state| state == "Z" || state == "X")
}
