//! Running the real daemon (`wit daemon run`) as a child process.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::client::Client;
use super::wit_bin;

/// How long a daemon may take to answer its first ping (debug builds on a busy machine).
pub const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// A running daemon; killed (SIGKILL) and reaped on drop unless already stopped.
pub struct Daemon {
    child: Option<Child>,
    socket: PathBuf,
    root: PathBuf,
}

/// The `wit daemon run` command for `root`, with output captured.
pub fn daemon_command(root: &Path) -> Command {
    let mut cmd = Command::new(wit_bin());
    cmd.args(["daemon", "run"])
        .env("WIT_REPO_ROOT", root)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    super::store::apply(&mut cmd);
    cmd
}

impl Daemon {
    /// Starts a daemon on `root` and waits until it answers `ping`.
    pub fn start(root: &Path) -> Self {
        Self::start_with(root, daemon_command(root))
    }

    /// Starts `cmd` (a [`daemon_command`] for `root`, adjusted) and waits until it answers.
    pub fn start_with(root: &Path, mut cmd: Command) -> Self {
        let child = cmd.spawn().expect("spawn wit daemon run");
        let mut daemon = Self {
            child: Some(child),
            socket: root.join(".wit").join("daemon.sock"),
            root: root.to_owned(),
        };
        daemon.wait_ready();
        daemon
    }

    /// Polls the socket with `ping` until it answers; panics if the daemon exits first or
    /// does not answer within [`READY_TIMEOUT`].
    fn wait_ready(&mut self) {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                let out = self.child.take().map(|c| c.wait_with_output());
                panic!("daemon exited before becoming ready ({status}): {out:?}");
            }
            if ping(&self.socket) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "daemon not ready after {READY_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A new keep-alive connection.
    pub fn client(&self) -> Client {
        Client::connect(&self.socket).expect("connect to daemon socket")
    }

    /// The socket path.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The repository root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The child's pid.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("daemon running").id()
    }

    /// Sends `signal` (e.g. `libc::SIGTERM`) and waits for the process to exit.
    pub fn signal_and_wait(&mut self, signal: i32) -> Output {
        let child = self.child.take().expect("daemon running");
        // SAFETY: kill(2) with a pid we own (our un-reaped child) and a valid signal number.
        let rc = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        assert_eq!(rc, 0, "kill failed");
        child.wait_with_output().expect("wait for daemon")
    }

    /// Kills the process with SIGKILL (a crash: no cleanup) and reaps it.
    pub fn crash(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("daemon running");
        child.kill().expect("kill daemon");
        child.wait().expect("reap daemon")
    }

    /// Whether the child is still running.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| c.try_wait().ok().flatten().is_none())
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Whether a daemon answers `ping` on `socket`.
pub fn ping(socket: &Path) -> bool {
    let Ok(mut client) = Client::connect(socket) else {
        return false;
    };
    let body = super::client::rpc_request("ping", None).to_string();
    match client.request("POST", "/rpc", body.as_bytes()) {
        Ok(resp) => {
            resp.status == 200
                && serde_json::from_slice::<serde_json::Value>(&resp.body)
                    .is_ok_and(|v| v["result"] == json!("pong"))
        }
        Err(_) => false,
    }
}

/// Polls `cond` every 10 ms until it holds; panics after `timeout`.
pub fn wait_until(what: &str, timeout: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}
