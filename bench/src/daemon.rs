//! The real daemon under test: `wit daemon run` on a temp repository.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::client::Conn;

/// A running daemon, stopped (SIGTERM, then kill) on drop.
pub struct Daemon {
    child: Child,
    /// The socket path.
    pub socket: PathBuf,
    /// Time from spawn to the first `pong`.
    pub cold_start: Duration,
}

impl Daemon {
    /// Starts `wit daemon run` for `root` and waits for the first `pong`.
    pub fn start(wit: &Path, root: &Path) -> Result<Self> {
        Self::start_on(wit, root, None)
    }

    /// [`Daemon::start`] with its state in the PostgreSQL store `store_url`, or (`None`)
    /// in SQLite whatever the environment says.
    pub fn start_on(wit: &Path, root: &Path, store_url: Option<&str>) -> Result<Self> {
        let socket = root.join(".wit/daemon.sock");
        let t0 = Instant::now();
        let mut cmd = Command::new(wit);
        match store_url {
            Some(url) => cmd.env("WIT_STORE_URL", url),
            None => cmd.env_remove("WIT_STORE_URL"),
        };
        let child = cmd
            .args(["daemon", "run"])
            .env("WIT_REPO_ROOT", root)
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {}", wit.display()))?;
        let mut daemon = Daemon {
            child,
            socket,
            cold_start: Duration::ZERO,
        };
        // Readiness: poll connect + ping. The poll interval bounds the measurement error.
        loop {
            if let Ok(mut c) = Conn::connect(&daemon.socket)
                && let Ok(Ok(v)) = c.call("ping", json!({}))
                && v == "pong"
            {
                daemon.cold_start = t0.elapsed();
                return Ok(daemon);
            }
            if let Some(status) = daemon.child.try_wait()? {
                bail!("daemon exited during start-up: {status}");
            }
            if t0.elapsed() > Duration::from_secs(20) {
                bail!("daemon did not answer ping within 20 s");
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// The daemon's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A new connection.
    pub fn connect(&self) -> Result<Conn> {
        Conn::connect(&self.socket)
    }

    /// `graph.status` once the first build of the index is over, asked every `poll`;
    /// an error after `limit`.
    pub fn indexed(&self, limit: Duration, poll: Duration) -> Result<serde_json::Value> {
        let mut c = self.connect()?;
        let t0 = Instant::now();
        loop {
            let status = c.ok("graph.status", json!({}))?;
            if status["state"] == "ready" {
                return Ok(status);
            }
            if t0.elapsed() > limit {
                bail!("the index was not built within {} s", limit.as_secs());
            }
            std::thread::sleep(poll);
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        // SAFETY: kill(2) with a pid we spawned and have not reaped; no memory involved.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Wall time and max RSS (KiB) of one whole process run.
pub fn time_process(cmd: &mut Command) -> Result<(Duration, u64)> {
    let t0 = Instant::now();
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    let pid = child.id() as libc::pid_t;
    std::mem::forget(child);
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child's pid with valid pointers to locals; it reaps the child
    // (the Child handle was forgotten so std never waits on it again).
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = t0.elapsed();
    if r != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        bail!("process failed with status {status}");
    }
    Ok((wall, usage.ru_maxrss as u64))
}
