//! Running a command on a real pseudo-terminal, for the CLI paths that only exist on a
//! terminal (the `wit trust` question, `wit watch`'s alternate screen).
//!
//! The terminal comes from util-linux `script`: it runs the command on a fresh pty whose
//! input is what we write to `script`'s stdin and whose output (stdout and stderr of the
//! command, plus the terminal's echo) is `script`'s stdout. A written `\x03` therefore goes
//! through the terminal's line discipline and becomes a SIGINT for the command, exactly as
//! a user's Ctrl-C would.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a command on the pty may take to print what a test waits for.
pub const PTY_TIMEOUT: Duration = Duration::from_secs(30);

/// A command running on a pseudo-terminal; killed on drop if still running.
pub struct Pty {
    child: Child,
    input: Option<ChildStdin>,
    chunks: Receiver<Vec<u8>>,
    output: Vec<u8>,
    closed: bool,
}

/// What a command on the pty did, once it has exited.
#[derive(Debug)]
pub struct PtyExit {
    /// The command's exit code (`script -e` passes it through; -1 when killed).
    pub code: i32,
    /// Everything the terminal showed, escape sequences included.
    pub output: String,
}

impl Pty {
    /// Runs `cmd` (its program, arguments, environment and working directory) on a new
    /// pseudo-terminal.
    pub fn spawn(cmd: &Command) -> Self {
        let mut line = String::from("exec");
        // `exec`: the command replaces the shell, so the terminal's SIGINT reaches only it
        // and its exit code is the one `script -e` reports.
        for word in std::iter::once(cmd.get_program()).chain(cmd.get_args()) {
            line.push(' ');
            line.push_str(&shell_quote(word));
        }
        let mut script = Command::new("script");
        script
            .args(["--quiet", "--return", "--command"])
            .arg(line)
            .arg("/dev/null")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (key, value) in cmd.get_envs() {
            match value {
                Some(v) => script.env(key, v),
                None => script.env_remove(key),
            };
        }
        if let Some(dir) = cmd.get_current_dir() {
            script.current_dir(dir);
        }
        let mut child = script
            .spawn()
            .expect("run `script` (util-linux) to get a pseudo-terminal");
        let input = child.stdin.take();
        let mut stdout = child.stdout.take().expect("piped stdout");
        let (tx, chunks) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Pty {
            child,
            input,
            chunks,
            output: Vec::new(),
            closed: false,
        }
    }

    /// Everything the terminal has shown so far.
    pub fn output(&self) -> String {
        String::from_utf8_lossy(&self.output).into_owned()
    }

    /// Reads until the terminal has shown `text`; panics (with the output) after
    /// [`PTY_TIMEOUT`] or when the command ends first.
    #[track_caller]
    pub fn wait_for(&mut self, text: &str) {
        let deadline = Instant::now() + PTY_TIMEOUT;
        while !self.output().contains(text) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => self.output.extend_from_slice(&chunk),
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "timed out waiting for {text:?}; the terminal shows {:?}",
                        self.output()
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "the command ended before showing {text:?}: {:?}",
                        self.output()
                    )
                }
            }
        }
    }

    /// Types `bytes` on the terminal.
    pub fn send(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().expect("the terminal's input is open");
        input.write_all(bytes).expect("write to the pty");
        input.flush().expect("flush the pty input");
    }

    /// Waits (up to [`PTY_TIMEOUT`]) until the command exits and its output is read to the
    /// end.
    #[track_caller]
    pub fn finish(mut self) -> PtyExit {
        let deadline = Instant::now() + PTY_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => self.output.extend_from_slice(&chunk),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "the command did not exit; the terminal shows {:?}",
                        self.output()
                    )
                }
            }
        }
        // Our end of the input stays open until here: `script` forwards an EOF on its stdin
        // to the terminal, which must not reach the command before it is done.
        self.input = None;
        let status = self.child.wait().expect("wait for script");
        self.closed = true;
        PtyExit {
            code: status.code().unwrap_or(-1),
            output: self.output(),
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if !self.closed {
            // Killing `script` closes the pty, which hangs up (SIGHUP) the command on it.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn shell_quote(word: &OsStr) -> String {
    let text = String::from_utf8_lossy(word.as_bytes());
    format!("'{}'", text.replace('\'', r"'\''"))
}
