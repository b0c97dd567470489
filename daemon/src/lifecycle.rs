//! Startup: `.wit/` (0700), logging, signals; then the worktree is handed to the
//! repository's daemon when one runs ([`crate::host::attach`]), or this process serves it
//! (and hosts the repository's other worktrees, [`crate::host`]); the serving itself
//! (single instance, socket, pid file) is [`crate::site`].

use std::io::Write;
use std::path::Path;

use std::io::IsTerminal;
use tokio::signal::unix::{SignalKind, signal};

use crate::error::DaemonError;
use crate::host::Control;
use crate::host::attach::{Attached, attach};
use wit_boundary::WitDir;
use wit_boundary::witdir::Access;

/// How long a starter keeps asking while another process is becoming the host.
const HOST_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Serves `root` until SIGTERM/SIGINT (see [`crate::run_blocking`]).
pub(crate) async fn run(root: &Path, mode: crate::Mode) -> Result<(), DaemonError> {
    // Signal handlers first, so that a signal arriving just after readiness is not lost.
    let mut sigterm = signal(SignalKind::terminate())
        .map_err(|e| DaemonError::io("installing SIGTERM handler", e))?;
    let mut sigint = signal(SignalKind::interrupt())
        .map_err(|e| DaemonError::io("installing SIGINT handler", e))?;

    // `.wit/` must be ours (a real, private directory of this user) and must not have come
    // with the repository: everything below trusts what is in it.
    let (root, wit) = crate::site::verified_root(root)?;
    // `.wit/` is verified, so the log is a safe place from here on, and every later failure
    // is written to it: an auto-started daemon's stderr is /dev/null, and `wit` shows the
    // end of the log when the daemon it started exits. (A refused `.wit/` has no safe place
    // to log; the CLI checks the directory itself before it starts a daemon.)
    init_logging(&wit);
    let served = async {
        // Every worktree of the repository shares the main worktree's state (worktree.rs),
        // and the daemon serving them listens there.
        let placement = crate::site::verified_placement(&root, &wit)?;
        let mut control = None;
        if mode == crate::Mode::Shared {
            let deadline = std::time::Instant::now() + HOST_WAIT;
            loop {
                match attach(&placement.state, &root).await? {
                    Attached::Served(hold) => {
                        let (pid, log) = (hold.pid, hold.log.display().to_string());
                        let log = wit_core::text::escape(&log);
                        tracing::info!(
                            "served by the repository's daemon (pid {pid}), which logs to {log}"
                        );
                        if std::io::stderr().is_terminal() {
                            eprintln!(
                                "wit daemon: {} is served by the repository's daemon (pid {pid}) \
                                 with its other worktrees; log: {log}; Ctrl-C to stop serving it",
                                wit_core::text::escape(&root.display().to_string()),
                            );
                        }
                        hold.until(async {
                            tokio::select! {
                                _ = sigterm.recv() => {}
                                _ = sigint.recv() => {}
                            }
                        })
                        .await;
                        tracing::info!("no longer served by the repository's daemon (pid {pid})");
                        return Ok(());
                    }
                    Attached::Refused(why) => {
                        tracing::info!(
                            "serving this worktree in a process of its own: the repository's \
                             daemon does not serve it ({})",
                            wit_core::text::escape(&why)
                        );
                        break;
                    }
                    Attached::NoHost => {
                        control = Control::claim(&placement.state);
                        if control.is_some() || std::time::Instant::now() >= deadline {
                            break;
                        }
                        // Another process is becoming the host: ask it in a moment.
                        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    }
                }
            }
        }
        crate::host::run(root, wit, placement, control, &mut sigterm, &mut sigint).await
    }
    .await;
    match &served {
        Err(e) if e.is_already_running() => tracing::info!("not starting: {e}"),
        Err(e) => tracing::error!("wit daemon failed: {e}"),
        Ok(()) => {}
    }
    served
}

/// Logs to `.wit/daemon.log` (level from `WIT_LOG`, default `info`). Logging is best
/// effort: a daemon that cannot open its log still serves. Every line goes through
/// [`EscapingWriter`], so no text a repository or a client chose (a path, a description,
/// a plugin name) can forge a log line or carry terminal escapes to whoever reads the log.
fn init_logging(wit: &WitDir) {
    let Ok(file) = wit.open("daemon.log", Access::Append) else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("WIT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(EscapingWriter(file)))
        .try_init();
}

/// Writes each formatted log event with its control characters escaped, except the one
/// newline that ends it. The fmt subscriber formats a whole event into one buffer and
/// writes it with one `write_all`, so each `write` here is one event (or its tail).
struct EscapingWriter<W>(W);

impl<W: Write> Write for EscapingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let (body, newline) = match text.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (&*text, ""),
        };
        let mut line = wit_core::text::escape(body).into_owned();
        line.push_str(newline);
        self.0.write_all(line.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_escape_control_characters_but_keep_their_newline() {
        let mut w = EscapingWriter(Vec::new());
        w.write_all(b"plugin y\ntouch PWNED\n failed\x1b[2J\n")
            .unwrap();
        assert_eq!(
            String::from_utf8(w.0).unwrap(),
            "plugin y\\ntouch PWNED\\n failed\\u{1b}[2J\n"
        );
    }
}
