//! The starting side: a `wit daemon run` asks the repository's daemon to serve its
//! worktree, then holds the connection until it is told to stop (a signal) or the
//! worktree stops being served.
//!
//! Nothing is sent before the socket is known to be ours: `host.sock` must be a socket
//! owned by this user in the state's `.wit/` (verified private and ours by the caller),
//! and the process answering must run as this user (the kernel's peer credentials).

use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use wit_boundary::WitDir;
use wit_boundary::witdir::SocketState;

use super::wire::{self, Attach, Compat, Reply};
use crate::error::DaemonError;

/// How long the host may take to open the worktree's store and bind its socket.
const READY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a stop may take once asked.
const STOP_TIMEOUT: Duration = Duration::from_secs(15);

/// What asking gave.
pub(crate) enum Attached {
    /// The repository's daemon serves the worktree; hold this while it should.
    Served(Hold),
    /// No daemon of the repository listens (or a crashed one left its socket).
    NoHost,
    /// A daemon listens but will not serve this worktree, for this reason.
    Refused(String),
}

/// A worktree served by the repository's daemon, for as long as this is held.
pub(crate) struct Hold {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
    /// The serving process.
    pub pid: u32,
    /// Where it logs.
    pub log: std::path::PathBuf,
}

/// Asks the daemon listening on `state`'s `host.sock` to serve `root`.
pub(crate) async fn attach(state: &WitDir, root: &Path) -> Result<Attached, DaemonError> {
    let path = state.file(wire::SOCKET);
    match wit_boundary::witdir::check_socket(&path) {
        Ok(SocketState::Missing) => return Ok(Attached::NoHost),
        Ok(SocketState::Ours) => {}
        Err(e) => {
            return Ok(Attached::Refused(format!(
                "{} is not a socket of this user: {e}",
                path.display()
            )));
        }
    }
    let stream =
        match tokio::time::timeout(Duration::from_secs(2), UnixStream::connect(&path)).await {
            Ok(Ok(s)) => s,
            Ok(Err(_)) | Err(_) => return Ok(Attached::NoHost),
        };
    if stream.peer_cred().map(|c| c.uid()).ok() != Some(wit_boundary::identity::euid()) {
        return Ok(Attached::Refused(
            "the process on the repository's daemon socket is not this user's".into(),
        ));
    }
    let (read, mut writer) = stream.into_split();
    let request = Attach {
        attach: root.to_owned(),
        compat: Compat::current(),
    };
    if writer.write_all(&wire::line(&request)).await.is_err() {
        return Ok(Attached::NoHost);
    }
    let mut reader = BufReader::new(read);
    let reply = tokio::time::timeout(READY_TIMEOUT, wire::read_line(&mut reader))
        .await
        .ok()
        .flatten()
        .and_then(|l| serde_json::from_str::<Reply>(&l).ok());
    match reply {
        Some(Reply::Ready { pid, log }) => Ok(Attached::Served(Hold {
            reader,
            writer,
            pid,
            log,
        })),
        Some(Reply::AlreadyRunning { pid }) => Err(DaemonError::AlreadyRunning {
            pid,
            socket: WitDir::new(root).socket(),
        }),
        Some(Reply::Refused { reason }) => Ok(Attached::Refused(reason)),
        Some(Reply::Failed { reason }) => Err(DaemonError::Hosted(reason)),
        Some(Reply::Stopped) | None => Ok(Attached::Refused(
            "the repository's daemon did not answer".into(),
        )),
    }
}

impl Hold {
    /// Waits until `stop` resolves (then asks the daemon to stop serving the worktree and
    /// waits until it has) or the worktree stops being served otherwise.
    pub(crate) async fn until(mut self, stop: impl std::future::Future<Output = ()>) {
        tokio::select! {
            () = stop => {
                let _ = self.writer.write_all(b"stop\n").await;
                let _ = tokio::time::timeout(STOP_TIMEOUT, wire::read_line(&mut self.reader)).await;
            }
            _ = wire::read_line(&mut self.reader) => {}
        }
    }
}
