//! Starting the daemon when none runs, done so that concurrent `wit` processes agree.
//!
//! 1. Connect. Success → done.
//! 2. Otherwise take `.wit/startup.lock` (flock), so that of several `wit` processes
//!    started at once exactly one spawns a daemon, and connect again (the lock holder
//!    before us may have started one).
//! 3. Remove the socket only when connecting was *refused* (a daemon died without cleaning
//!    up); any other error is reported, never "fixed" by deleting files.
//! 4. Spawn `wit daemon run` detached (new session, stdio to /dev/null; it logs to
//!    `.wit/daemon.log`) and wait, bounded, until it answers `ping`.

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use wit_boundary::witdir::Access;

use crate::client::{Client, ConnectError};
use crate::exit::Failure;
use crate::root::Repo;

/// Timeout for a normal command's calls (declare analyses files, so be generous).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a freshly spawned daemon gets to answer `ping`.
pub const READY_TIMEOUT: Duration = Duration::from_secs(15);

/// Connects to a running daemon without starting one.
pub async fn connect_existing(repo: &Repo, timeout: Duration) -> Result<Client, ConnectError> {
    Client::connect(&repo.socket(), timeout).await
}

/// Connects to the repository's daemon, starting one when none runs. The flag says
/// whether this call started it.
pub async fn ensure_running(repo: &Repo) -> Result<(Client, bool), Failure> {
    match connect_existing(repo, CALL_TIMEOUT).await {
        Ok(c) => return Ok((c, false)),
        Err(ConnectError::Missing | ConnectError::Refused) => {}
        Err(ConnectError::Other(m)) => return Err(Failure::Unreachable(m)),
    }
    let wit = repo.ensure_wit_dir()?;
    // The daemon refuses a committed `.wit/` too, but before it can log why; saying it here
    // gives the user the reason (one git call, only when a daemon is about to start).
    wit.check_not_committed().map_err(Failure::other)?;
    let lock = wit
        .open("startup.lock", Access::ReadWrite)
        .map_err(|e| Failure::Unreachable(e.to_string()))?;
    // Blocking is fine: nothing else runs on this runtime yet. The lock is released when
    // `lock` is dropped at the end of this function.
    lock.lock().map_err(|e| {
        Failure::Unreachable(format!("locking {}: {e}", wit.startup_lock().display()))
    })?;
    match connect_existing(repo, CALL_TIMEOUT).await {
        Ok(c) => return Ok((c, false)),
        Err(ConnectError::Missing) => {}
        Err(ConnectError::Refused) => {
            let _ = wit.remove("daemon.sock");
        }
        Err(ConnectError::Other(m)) => return Err(Failure::Unreachable(m)),
    }
    let log_start = log_len(repo);
    let child = spawn_detached(repo)?;
    let client = wait_ready(repo, child).await?;
    print_import_note(repo, log_start);
    drop(lock);
    Ok((client, true))
}

/// Spawns `wit daemon run` for `repo`, detached from this process and its terminal.
pub fn spawn_detached(repo: &Repo) -> Result<Child, Failure> {
    let exe = std::env::current_exe().map_err(|e| {
        Failure::Unreachable(format!(
            "cannot find the wit binary to start the daemon: {e}"
        ))
    })?;
    let mut cmd = Command::new(exe);
    cmd.args(["daemon", "run"])
        .env("WIT_REPO_ROOT", &repo.root)
        .current_dir(&repo.root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: the closure runs in the forked child before exec and only calls setsid(2),
    // which is async-signal-safe; it touches no memory of the parent. A new session
    // detaches the daemon from our terminal, so closing it (SIGHUP) or Ctrl-C in it
    // (SIGINT to the foreground group) does not stop the daemon.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
        .map_err(|e| Failure::Unreachable(format!("starting the daemon: {e}")))
}

/// Waits until the daemon answers `ping`, or fails with the end of its log.
async fn wait_ready(repo: &Repo, mut child: Child) -> Result<Client, Failure> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    let mut exited = None;
    loop {
        if let Ok(mut c) = connect_existing(repo, Duration::from_secs(2)).await
            && c.call_value("ping", json!({})).await.is_ok()
        {
            c.set_timeout(CALL_TIMEOUT);
            return Ok(c);
        }
        if exited.is_none() {
            // The child exits at once when another daemon already holds the repository
            // (started outside our lock); keep trying to connect to that one a little.
            exited = child.try_wait().ok().flatten();
        }
        let budget = if exited.is_some() {
            Duration::from_secs(2)
        } else {
            READY_TIMEOUT
        };
        if start.elapsed() >= budget {
            let why = match exited {
                Some(status) => format!("the daemon exited ({status})"),
                None => format!("the daemon did not answer within {} s", budget.as_secs()),
            };
            return Err(Failure::Unreachable(format!(
                "{why}; see {}{}",
                repo.log_file().display(),
                log_tail(repo)
            )));
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// The last lines of the daemon's log, escaped (the log is ours, but it quotes paths and
/// names a repository chose).
fn log_tail(repo: &Repo) -> String {
    let Ok(Some(log)) = repo.wit().read_small("daemon.log", u64::MAX) else {
        return String::new();
    };
    let lines: Vec<&str> = log.lines().rev().take(5).collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut s = String::from(":");
    for l in lines.into_iter().rev() {
        s.push_str("\n  ");
        s.push_str(&wit_core::text::escape(l));
    }
    s
}

/// The length of the daemon's log now (0 when there is none yet).
fn log_len(repo: &Repo) -> u64 {
    repo.wit()
        .open("daemon.log", Access::Read)
        .ok()
        .and_then(|f| f.metadata().ok())
        .map_or(0, |m| m.len())
}

/// How much of what a starting daemon logged is searched for the import note.
const NEW_LOG_LIMIT: u64 = 64 * 1024;

/// Tells the user, once, that the daemon just started imported the first wit
/// implementation's state: the note is in the log lines written since `log_start` (the
/// import happens before the daemon answers, so it is there by now), and only the daemon
/// that imported writes one.
fn print_import_note(repo: &Repo, log_start: u64) {
    let Ok(mut log) = repo.wit().open("daemon.log", Access::Read) else {
        return;
    };
    let mut new = Vec::new();
    if log.seek(SeekFrom::Start(log_start)).is_err()
        || log.take(NEW_LOG_LIMIT).read_to_end(&mut new).is_err()
    {
        return;
    }
    for line in String::from_utf8_lossy(&new).lines() {
        if let Some(at) = line.find(wit_daemon::IMPORT_NOTE) {
            eprintln!("wit: {}", wit_core::text::escape(&line[at..]));
        }
    }
}
