//! One daemon process per repository and user, serving every worktree's socket.
//!
//! The first `wit daemon run` of a repository (any of its worktrees) becomes its host:
//! besides its own worktree it listens on `host.sock` in the `.wit/` holding the shared
//! state (the main worktree's) and serves each worktree a later `wit daemon run` asks it
//! to ([`attach`]). A worktree served this way has its own socket, pid file (the host's
//! pid), instance lock, store connection, index and answers, exactly as if a process of
//! its own served it; what the processes share is what their indexes hold of files with
//! the same content ([`crate::index::shared`]), so a later checkout's index costs a
//! listing, a hash per file and a lookup, and its memory only what differs.
//!
//! Decided, and why:
//! - **Each starter holds its worktree.** The asking `wit daemon run` stays (a small
//!   process) until a signal, then asks the host to stop serving its worktree; its end,
//!   even a crash, ends the serving. So stopping or killing "the daemon" of a worktree
//!   stops that worktree only, as before.
//! - **`daemon.stop` stops one worktree**; the process ends with its last worktree.
//!   SIGTERM or SIGINT to the hosting process stops every worktree it serves (their
//!   starters then end too); `wit` starts a daemon again on the next command.
//! - **Only the same build and environment share a process** ([`wire::Compat`]); a
//!   worktree refused for that, or whose host cannot be reached, is served by its own
//!   process, as is one started with `wit daemon run --alone`.
//! - **Only this user's**: the control socket is in a private `.wit/` of this user, both
//!   ends check the other's uid, and the host serves only worktrees sharing its state
//!   directory (the same repository, whose main worktree is this user's).

pub(crate) mod attach;
mod wire;

use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::signal::unix::Signal;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;
use wit_boundary::WitDir;
use wit_boundary::witdir::Access;

use crate::error::DaemonError;
use crate::process::Process;
use crate::site::identity;
use crate::worktree::Placement;
use wire::{Compat, Reply};

/// A worktree to serve, as a task of the process.
type Job = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// The right to host a repository's worktrees: its lock held, its socket bound.
pub(crate) struct Control {
    listener: UnixListener,
    /// The `.wit/` holding the state (and `host.sock`).
    state: WitDir,
    identity: Option<(u64, u64)>,
    _lock: File,
}

impl Control {
    /// Takes the hosting lock of `state` and binds its socket; `None` when another
    /// process holds the lock (it hosts, or is about to) or the socket cannot be made.
    pub(crate) fn claim(state: &WitDir) -> Option<Self> {
        let lock = state.open(wire::LOCK, Access::ReadWrite).ok()?;
        lock.try_lock().ok()?;
        // We hold the lock: a socket left there is a crashed host's.
        let path = state.file(wire::SOCKET);
        let bound = crate::site::remove_stale(state, wire::SOCKET)
            .and_then(|()| crate::site::bind_private(&path));
        let listener = match bound {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!("not hosting other worktrees: {e}");
                return None;
            }
        };
        Some(Self {
            identity: identity(&path),
            listener,
            state: state.clone(),
            _lock: lock,
        })
    }

    /// Removes the socket (if it is still the one bound here); the lock goes with `self`.
    fn close(self) {
        let path = self.state.file(wire::SOCKET);
        if self.identity.is_some() && identity(&path) == self.identity {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// What every attach handler needs.
struct Ctx {
    process: Arc<Process>,
    /// Where this process logs: the log of the worktree it was started in.
    log: PathBuf,
    state: WitDir,
    compat: Compat,
    shutdown: watch::Receiver<bool>,
    jobs: mpsc::Sender<Job>,
}

/// Serves `root` (its `.wit/` verified) and, with `control`, every worktree of the
/// repository that asks, until a signal or until no worktree is served any more. Returns
/// how serving `root` ended.
pub(crate) async fn run(
    root: PathBuf,
    wit: WitDir,
    placement: Placement,
    control: Option<Control>,
    sigterm: &mut Signal,
    sigint: &mut Signal,
) -> Result<(), DaemonError> {
    let process = Arc::new(Process::default());
    let (shutdown_tx, shutdown) = watch::channel(false);
    let (jobs_tx, mut jobs) = mpsc::channel::<Job>(8);
    let (first_tx, first_rx) = oneshot::channel();
    let log = wit.log_file();
    let mut sites: JoinSet<()> = JoinSet::new();
    {
        let process = process.clone();
        let shutdown = shutdown.clone();
        sites.spawn(async move {
            let served =
                crate::site::serve(root, wit, placement, process, stopping(shutdown), None).await;
            let _ = first_tx.send(served);
        });
    }
    let ctx = control.as_ref().map(|c| {
        Arc::new(Ctx {
            process: process.clone(),
            log: log.clone(),
            state: c.state.clone(),
            compat: Compat::current(),
            shutdown: shutdown.clone(),
            jobs: jobs_tx.clone(),
        })
    });
    loop {
        tokio::select! {
            _ = sigterm.recv() => {
                tracing::info!("SIGTERM received, shutting down");
                let _ = shutdown_tx.send(true);
            }
            _ = sigint.recv() => {
                tracing::info!("SIGINT received, shutting down");
                let _ = shutdown_tx.send(true);
            }
            accepted = accept(control.as_ref()) => {
                if let (Ok(stream), Some(ctx)) = (accepted, &ctx) {
                    tokio::spawn(handle(stream, ctx.clone()));
                }
            }
            Some(job) = jobs.recv() => {
                sites.spawn(job);
            }
            Some(_) = sites.join_next() => {
                if sites.is_empty() {
                    break;
                }
            }
        }
    }
    // No worktree left: later askers find no socket and serve themselves.
    if let Some(control) = control {
        control.close();
    }
    first_rx.await.unwrap_or(Ok(()))
}

async fn accept(control: Option<&Control>) -> std::io::Result<UnixStream> {
    match control {
        Some(c) => c.listener.accept().await.map(|(s, _)| s),
        None => std::future::pending().await,
    }
}

/// Resolves once the process is stopping, with the reason to log.
async fn stopping(mut shutdown: watch::Receiver<bool>) -> String {
    let _ = shutdown.wait_for(|s| *s).await;
    "the daemon is stopping".into()
}

/// One worktree asking to be served: checked, served, held until its starter lets go.
async fn handle(stream: UnixStream, ctx: Arc<Ctx>) {
    if !crate::server::peer_is_us(&stream) {
        return;
    }
    let (read, mut writer) = stream.into_split();
    let mut reader = BufReader::new(read);
    let Ok(Some(line)) =
        tokio::time::timeout(Duration::from_secs(5), wire::read_line(&mut reader)).await
    else {
        return;
    };
    let reply = |r: Reply| wire::line(&r);
    let request: wire::Attach = match serde_json::from_str(&line) {
        Ok(r) => r,
        Err(e) => {
            let _ = writer
                .write_all(&reply(Reply::Refused {
                    reason: format!("unreadable request: {e}"),
                }))
                .await;
            return;
        }
    };
    let site = match prepare(&ctx, request).await {
        Ok(site) => site,
        Err(reason) => {
            tracing::info!(
                "not serving a worktree asked for: {}",
                wit_core::text::escape(&reason)
            );
            let _ = writer.write_all(&reply(Reply::Refused { reason })).await;
            return;
        }
    };
    let (ready_tx, ready_rx) = oneshot::channel();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (done_tx, mut done_rx) = oneshot::channel();
    let (root, wit, placement) = site;
    let process = ctx.process.clone();
    let shutdown = ctx.shutdown.clone();
    let job: Job = Box::pin(async move {
        let stop = async move {
            tokio::select! {
                _ = stop_rx => "its `wit daemon run` ended".to_owned(),
                why = stopping(shutdown) => why,
            }
        };
        let served = crate::site::serve(root, wit, placement, process, stop, Some(ready_tx)).await;
        let _ = done_tx.send(served);
    });
    if ctx.jobs.send(job).await.is_err() {
        return;
    }
    let answer = match ready_rx.await {
        Ok(pid) => Reply::Ready {
            pid,
            log: ctx.log.clone(),
        },
        Err(_) => match (&mut done_rx).await {
            Ok(Err(DaemonError::AlreadyRunning { pid, .. })) => Reply::AlreadyRunning { pid },
            Ok(Err(e)) => Reply::Failed {
                reason: e.to_string(),
            },
            _ => Reply::Failed {
                reason: "the worktree stopped before it was served".into(),
            },
        },
    };
    let serving = matches!(answer, Reply::Ready { .. });
    // (A starter gone before the answer reaches it ends the serving below, as its end
    // always does.)
    let _ = writer.write_all(&reply(answer)).await;
    if !serving {
        return;
    }
    // Held: the starter's line (or its end: even a crash) stops this worktree.
    tokio::select! {
        _ = wire::read_line(&mut reader) => {
            let _ = stop_tx.send(());
            let _ = done_rx.await;
        }
        _ = &mut done_rx => {}
    }
    let _ = writer.write_all(&reply(Reply::Stopped)).await;
}

/// Checks a request: the same build and environment, a worktree of this user sharing
/// this host's state directory, its `.wit/` ours and not committed.
async fn prepare(ctx: &Ctx, request: wire::Attach) -> Result<(PathBuf, WitDir, Placement), String> {
    if *ctx.shutdown.borrow() {
        return Err("the daemon is stopping".into());
    }
    if let Some(why) = ctx.compat.mismatch(&request.compat) {
        return Err(why);
    }
    let state = ctx.state.clone();
    tokio::task::spawn_blocking(move || {
        let (root, wit) = crate::site::verified_root(&request.attach).map_err(|e| e.to_string())?;
        let placement = crate::site::verified_placement(&root, &wit).map_err(|e| e.to_string())?;
        if placement.state.dir() != state.dir() {
            return Err(format!(
                "{} does not share this daemon's state ({})",
                root.display(),
                state.dir().display()
            ));
        }
        Ok((root, wit, placement))
    })
    .await
    .map_err(|e| e.to_string())?
}
