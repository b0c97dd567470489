//! Startup and shutdown: `.wit/` (0700), single instance (flock), stale files, the socket
//! (0600), the pid file, logging, signals.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::Arc;

use std::io::IsTerminal;
use tokio::net::UnixListener;
use tokio::signal::unix::{SignalKind, signal};

use crate::analysis::{self, Analysis};
use crate::config::Config;
use crate::error::DaemonError;
use crate::purge;
use crate::server;
use crate::state::{AppState, now_ms};
use crate::store::Store;
use wit_boundary::WitDir;

/// Serves `root` until SIGTERM/SIGINT (see [`crate::run_blocking`]).
pub(crate) async fn run(root: &Path) -> Result<(), DaemonError> {
    // Signal handlers first, so that a signal arriving just after readiness is not lost.
    let mut sigterm = signal(SignalKind::terminate())
        .map_err(|e| DaemonError::io("installing SIGTERM handler", e))?;
    let mut sigint = signal(SignalKind::interrupt())
        .map_err(|e| DaemonError::io("installing SIGINT handler", e))?;

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
    ensure_private_dir(wit.dir())?;

    // The lock is held for the life of the process; its file is never deleted, so that two
    // starting daemons always contend for the same inode.
    let lock = take_instance_lock(&wit)?;
    init_logging(&wit);

    // We hold the lock, so any socket or pid file present is a crashed daemon's leftover.
    remove_if_present(&wit.socket())?;
    remove_if_present(&wit.pid_file())?;

    let store = Arc::new(Store::open(&wit.database())?);
    // wit.toml, then the registry (plugins need the file's list and the trust check).
    let mut config = Config::load(&root);
    let (registry, plugins) = analysis::build_registry(&root, &config.parsed);
    config.plugins = plugins;
    let openrpc = serde_json::from_str(crate::OPENRPC_JSON).unwrap_or(serde_json::Value::Null);
    let state = Arc::new(AppState {
        root: root.clone(),
        wit: wit.clone(),
        config,
        store: store.clone(),
        analysis: Arc::new(Analysis::new(root.clone(), registry)),
        started_at_ms: now_ms(),
        openrpc,
    });

    let listener = UnixListener::bind(wit.socket())
        .map_err(|e| DaemonError::io(format!("binding {}", wit.socket().display()), e))?;
    fs::set_permissions(wit.socket(), fs::Permissions::from_mode(0o600))
        .map_err(|e| DaemonError::io("setting the socket's mode", e))?;
    write_pid_file(&wit)?;
    tracing::info!(root = %root.display(), pid = std::process::id(), "wit daemon serving");
    // A human who ran `wit daemon run` in a terminal sees that it works and where to look;
    // detached daemons (stderr is /dev/null) and tests (a pipe) stay silent.
    if std::io::stderr().is_terminal() {
        eprintln!(
            "wit daemon serving {} on {} (pid {}); log: {}; Ctrl-C to stop",
            root.display(),
            wit.socket().display(),
            std::process::id(),
            wit.log_file().display()
        );
    }

    let purger = tokio::spawn(purge::run(state.clone()));
    server::serve(listener, state, async {
        tokio::select! {
            _ = sigterm.recv() => tracing::info!("SIGTERM received, shutting down"),
            _ = sigint.recv() => tracing::info!("SIGINT received, shutting down"),
        }
    })
    .await;
    purger.abort();

    let _ = fs::remove_file(wit.socket());
    let _ = fs::remove_file(wit.pid_file());
    store.close();
    tracing::info!("wit daemon stopped");
    drop(lock);
    Ok(())
}

/// Creates `dir` with mode 0700, or tightens an existing one to 0700.
fn ensure_private_dir(dir: &Path) -> Result<(), DaemonError> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            if !dir.is_dir() {
                return Err(DaemonError::io(
                    format!("{} exists and is not a directory", dir.display()),
                    e,
                ));
            }
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(|e| DaemonError::io(format!("setting the mode of {}", dir.display()), e))
        }
        Err(e) => Err(DaemonError::io(format!("creating {}", dir.display()), e)),
    }
}

fn take_instance_lock(wit: &WitDir) -> Result<File, DaemonError> {
    let path = wit.lock_file();
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(|e| DaemonError::io(format!("opening {}", path.display()), e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(DaemonError::AlreadyRunning {
            pid: wit.read_pid(),
            socket: wit.socket(),
        }),
        Err(TryLockError::Error(e)) => {
            Err(DaemonError::io(format!("locking {}", path.display()), e))
        }
    }
}

fn remove_if_present(path: &Path) -> Result<(), DaemonError> {
    match fs::remove_file(path) {
        Ok(()) => {
            tracing::info!("removed stale {}", path.display());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(DaemonError::io(
            format!("removing stale {}", path.display()),
            e,
        )),
    }
}

fn write_pid_file(wit: &WitDir) -> Result<(), DaemonError> {
    let path = wit.pid_file();
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| DaemonError::io(format!("writing {}", path.display()), e))?;
    writeln!(f, "{}", std::process::id())
        .map_err(|e| DaemonError::io(format!("writing {}", path.display()), e))
}

/// Logs to `.wit/daemon.log` (level from `WIT_LOG`, default `info`). Logging is best
/// effort: a daemon that cannot open its log still serves.
fn init_logging(wit: &WitDir) {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(wit.log_file());
    let Ok(file) = file else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("WIT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
}
