//! Serving one worktree: its single-instance lock, store, index, socket and pid file,
//! until it is told to stop. A daemon process serves one or more worktrees of a
//! repository this way ([`crate::host`]); each keeps its own socket, state and answers.

use std::fs::{self, File, TryLockError};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::io::IsTerminal;
use tokio::net::UnixListener;

use crate::analysis::{self, AnalysisService};
use crate::clock::now_ms;
use crate::config::Config;
use crate::error::DaemonError;
use crate::process::Process;
use crate::purge;
use crate::server;
use crate::state::AppState;
use crate::store::{Backend, Store};
use crate::worktree::Placement;
use wit_boundary::WitDir;
use wit_boundary::witdir::Access;

/// The worktree at `root` as a daemon may serve it: canonical, a directory, its `.wit/`
/// ours, private and not committed (everything the daemon does trusts what is in it).
/// The same checks whether the worktree is started here or another `wit daemon run` asks
/// the repository's daemon to serve it ([`crate::host`]).
pub(crate) fn verified_root(root: &Path) -> Result<(PathBuf, WitDir), DaemonError> {
    let root = root.canonicalize().map_err(|e| DaemonError::InvalidRoot {
        root: root.to_owned(),
        reason: e.to_string(),
    })?;
    if !root.is_dir() {
        return Err(DaemonError::InvalidRoot {
            root,
            reason: "not a directory".into(),
        });
    }
    let wit = WitDir::new(&root);
    wit.ensure()?;
    wit.check_not_committed()?;
    Ok((root, wit))
}

/// Where the worktree at `root` keeps its state ([`crate::worktree::place`]), that
/// directory (the main worktree's `.wit/`, for a linked worktree) checked as `root`'s own
/// was ([`verified_root`]).
pub(crate) fn verified_placement(root: &Path, wit: &WitDir) -> Result<Placement, DaemonError> {
    let placement = crate::worktree::place(root, wit);
    if placement.main_worktree.is_some() {
        placement.state.ensure()?;
        placement.state.check_not_committed()?;
    }
    Ok(placement)
}

/// Serves the worktree at `root` (see [`verified_root`], placed at `placement`) until
/// `stop` resolves (with the reason to log), `daemon.stop` asks, or the worktree is
/// deleted. `ready` is told the pid once the socket answers.
pub(crate) async fn serve(
    root: PathBuf,
    wit: WitDir,
    placement: Placement,
    process: Arc<Process>,
    stop: impl std::future::Future<Output = String>,
    ready: Option<tokio::sync::oneshot::Sender<u32>>,
) -> Result<(), DaemonError> {
    // The lock is held while this worktree is served; its file is never deleted, so that
    // two starting daemons always contend for the same inode.
    let lock = take_instance_lock(&wit)?;

    // We hold the lock, so any socket or pid file present is a crashed daemon's leftover.
    remove_stale(&wit, "daemon.sock")?;
    remove_stale(&wit, "daemon.pid")?;

    // wit.toml, then the store it and the environment name, then the registry (plugins
    // need the file's list and the trust check).
    let mut config = Config::load(&root);
    // Worktrees of one checkout share one project: the main worktree's path is the key
    // when nothing else names one.
    let main_root = placement
        .main_worktree
        .clone()
        .unwrap_or_else(|| root.clone());
    let clone_id = || match crate::worktree::clone_id(&placement.state) {
        Ok(id) => Some(id),
        Err(e) => {
            tracing::warn!(
                "this clone has no id ({}): its checkouts are named by path alone",
                wit_core::text::escape(&e.to_string())
            );
            None
        }
    };
    let target = crate::store::target::resolve(&root, &main_root, &config.parsed, &clone_id);
    // A checkout's name: its path, and on a store other machines share, its clone's id.
    let checkout = match (&target, clone_id()) {
        (crate::store::target::StoreTarget::Postgres { .. }, Some(id)) => {
            format!("{}#{id}", root.display())
        }
        _ => root.display().to_string(),
    };
    let store = match target {
        crate::store::target::StoreTarget::Sqlite => {
            placement.state.check_database("state.db")?;
            Backend::Sqlite(Arc::new(Store::open_in(&placement.state, now_ms())?))
        }
        crate::store::target::StoreTarget::Postgres { url, project } => {
            // Shared with the process's other worktrees on it (`process::PgStores`).
            let pg = process
                .pg_stores
                .get_or_connect(&url, &project)
                .await
                .map_err(DaemonError::SharedStore)?;
            tracing::info!(
                "state shared in the PostgreSQL store {} (project {})",
                pg.shown(),
                wit_core::text::escape(&project)
            );
            Backend::Postgres(pg)
        }
    };
    let (registry, plugins) = analysis::build_registry(&root, &config.parsed);
    config.plugins = plugins;
    // Worktrees with the same analyzers share what their indexes hold of equal files.
    let shared = process
        .families
        .for_analyzers(&crate::index::shared::analyzers_key(&registry));
    let analysis = Arc::new(AnalysisService::new(root.clone(), registry));
    let index = Arc::new(crate::index::RepoIndex::new(
        root.clone(),
        analysis.clone(),
        config.parsed.analysis.max_file_bytes,
        &config.parsed.graph,
        shared,
    ));
    index.start(
        wit.clone(),
        placement
            .main_worktree
            .is_some()
            .then(|| placement.state.clone()),
    );
    let claims = Arc::new(crate::claims::Claims::new(
        root.clone(),
        checkout.clone(),
        placement.common_dir.clone(),
        config.parsed.analysis.max_file_bytes,
        analysis.clone(),
        index.clone(),
    ));
    let state = Arc::new(AppState {
        checkout,
        root: root.clone(),
        wit: wit.clone(),
        config,
        store: store.clone(),
        prepare: crate::prepare::Prepare::start(Arc::downgrade(&analysis)),
        analysis,
        started_at_ms: now_ms(),
        events: tokio::sync::watch::Sender::new(0),
        lock_queues: Default::default(),
        placement,
        index,
        claims,
        lock_expiry: Default::default(),
        served: Default::default(),
        stop: Default::default(),
        process: process.clone(),
    });

    let listener = bind_private(&wit.socket())?;
    write_pid_file(&wit)?;
    // What we created, to remove only that at the end: a repository deleted and made
    // again at the same path may have a new daemon whose socket and pid file are there.
    let ours = [identity(&wit.socket()), identity(&wit.pid_file())];
    let _served = process.serving(&root);
    tracing::info!(root = %root.display(), pid = std::process::id(), "wit daemon serving");
    // A human who ran `wit daemon run` in a terminal sees that it works and where to look;
    // detached daemons (stderr is /dev/null) and tests (a pipe) stay silent. A worktree
    // another `wit daemon run` asked this process to serve (`ready`) is one line more.
    let shown = wit_core::text::escape(&root.display().to_string()).into_owned();
    if let Some(ready) = ready {
        let _ = ready.send(std::process::id());
        if std::io::stderr().is_terminal() {
            eprintln!("wit daemon: also serving {shown}");
        }
    } else if std::io::stderr().is_terminal() {
        eprintln!(
            "wit daemon serving {shown} on {} (pid {}); log: {}; Ctrl-C to stop",
            wit_core::text::escape(&wit.socket().display().to_string()),
            std::process::id(),
            wit_core::text::escape(&wit.log_file().display().to_string())
        );
    }

    let purger = tokio::spawn(purge::run(state.clone()));
    let forecaster = crate::forecast::Forecaster::start(state.clone());
    crate::claims::worker::start(&state);
    // Commits of other daemons (and of the process's other worktrees): through SQLite's
    // data version, or PostgreSQL's notifications.
    let watching = crate::others::watch_others(&state);
    let gone = repository_gone(wit.clone());
    let asked = state.clone();
    server::serve(listener, state.clone(), async move {
        tokio::select! {
            why = stop => tracing::info!(root = %root.display(), "{why}, shutting down"),
            () = asked.stop.notified() => tracing::info!(root = %root.display(), "daemon.stop asked, shutting down"),
            why = gone => tracing::warn!("{why}, shutting down"),
        }
    })
    .await;
    purger.abort();
    // Withdrawn while the store is open: the other checkouts' forecasts with this one
    // clear now, not when its heartbeat is missed. Waited for off the runtime's thread,
    // which answers the withdrawal's write, on a thread of its own: the blocking pool may
    // be busy with requests the shutdown cut short, and stopping never waits for them.
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    let stopping = std::thread::Builder::new()
        .name("wit-stop".into())
        .spawn(move || {
            forecaster.stop(std::time::Duration::from_secs(3));
            let _ = done_tx.send(());
        });
    if stopping.is_ok() {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(4), done_rx).await;
    }
    // The watcher's connection must be closed before the store's, so that the last one
    // out checkpoints and removes the WAL.
    crate::others::stop_watching(&state, watching).await;

    for (path, created) in [wit.socket(), wit.pid_file()].iter().zip(ours) {
        if created.is_some() && identity(path) == created {
            let _ = fs::remove_file(path);
        }
    }
    // Its threads end (the index's build and watcher, and with them the claims' thread
    // and the preparing thread, whose channels close): the process may serve on.
    state.index.stop();
    drop(state);
    store.close();
    tracing::info!(root = %wit.root().display(), "wit daemon stopped");
    drop(lock);
    Ok(())
}

/// How often the daemon checks that its repository still exists.
const ROOT_CHECK_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);

/// Resolves when the repository root or its `.wit/` was deleted or replaced (another
/// inode at the same path): throwaway clones and worktrees are deleted with their daemon
/// still running, and such a daemon would otherwise serve nobody forever.
async fn repository_gone(wit: WitDir) -> String {
    let root = identity(wit.root());
    let dir = identity(wit.dir());
    let mut tick = tokio::time::interval(ROOT_CHECK_INTERVAL);
    loop {
        tick.tick().await;
        if identity(wit.root()) != root {
            return format!("the repository {} is gone", wit.root().display());
        }
        if identity(wit.dir()) != dir {
            return format!("{} is gone", wit.dir().display());
        }
    }
}

/// How long a lock held after its daemon died is waited for (see [`take_instance_lock`]).
const ORPHAN_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

fn take_instance_lock(wit: &WitDir) -> Result<File, DaemonError> {
    let path = wit.lock_file();
    let file = wit.open("daemon.lock", Access::ReadWrite)?;
    let started = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            // The lock is held, yet the daemon the pid file names is gone (killed): the
            // holder is a child it forked for a `git` command that had not exec'd yet,
            // which keeps the lock's descriptor until its exec closes it, moments later.
            // Waited for, briefly, rather than refusing to start for a dead daemon.
            Err(TryLockError::WouldBlock)
                if !wit.read_pid().is_some_and(alive) && started.elapsed() < ORPHAN_LOCK_WAIT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(TryLockError::WouldBlock) => {
                return Err(DaemonError::AlreadyRunning {
                    pid: wit.read_pid(),
                    socket: wit.socket(),
                });
            }
            Err(TryLockError::Error(e)) => {
                return Err(DaemonError::io(format!("locking {}", path.display()), e));
            }
        }
    }
}

/// Whether process `pid` exists (signal 0: no signal is sent).
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill(2) with signal 0 only checks that the process exists and may be
    // signalled; it sends nothing and touches no memory of ours.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Removes `name` from `wit` if anything is there: a crashed process's leftover (the
/// caller holds the lock that guards it).
pub(crate) fn remove_stale(wit: &WitDir, name: &str) -> Result<(), DaemonError> {
    if std::fs::symlink_metadata(wit.file(name)).is_ok() {
        wit.remove(name)?;
        tracing::info!("removed stale {}", wit.file(name).display());
    }
    Ok(())
}

/// Binds a socket at `path` (in a verified `.wit/`) readable and writable by this user
/// only (0600); a socket whose mode could not be set is removed again.
pub(crate) fn bind_private(path: &Path) -> Result<UnixListener, DaemonError> {
    let listener = UnixListener::bind(path)
        .map_err(|e| DaemonError::io(format!("binding {}", path.display()), e))?;
    if let Err(e) = fs::set_permissions(path, fs::Permissions::from_mode(0o600)) {
        let _ = fs::remove_file(path);
        return Err(DaemonError::io(
            format!("setting the mode of {}", path.display()),
            e,
        ));
    }
    Ok(listener)
}

/// The device and inode of the file at `path` (not following a symlink), if any.
pub(crate) fn identity(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::symlink_metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn write_pid_file(wit: &WitDir) -> Result<(), DaemonError> {
    let path = wit.pid_file();
    let mut f = wit.open("daemon.pid", Access::Truncate)?;
    writeln!(f, "{}", std::process::id())
        .map_err(|e| DaemonError::io(format!("writing {}", path.display()), e))
}
