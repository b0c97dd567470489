//! The JSON-RPC client: HTTP/1.1 over the daemon's Unix socket, one keep-alive
//! connection per command, a timeout on every call.

use std::path::Path;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::net::UnixStream;
use wit_boundary::witdir::SocketState;
use wit_core::protocol::{Request, Response, RpcError};

/// Why connecting failed. The distinction matters: only a refused connection means the
/// socket file is stale and may be removed.
#[derive(Debug)]
pub enum ConnectError {
    /// No socket file: no daemon.
    Missing,
    /// The socket exists but nobody listens (a daemon died without cleaning up).
    Refused,
    /// Anything else (permissions, a path too long, a hung handshake).
    Other(String),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Missing => f.write_str("no daemon socket"),
            ConnectError::Refused => f.write_str("connection refused (stale socket)"),
            ConnectError::Other(m) => f.write_str(m),
        }
    }
}

/// Why a call failed.
#[derive(Debug)]
pub enum CallError {
    /// The daemon answered with a JSON-RPC error.
    Rpc(RpcError),
    /// The connection broke, the answer was not a v1 response, or it did not parse.
    Transport(String),
    /// No answer within the timeout.
    Timeout,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Rpc(e) => write!(f, "{}", e.message),
            CallError::Transport(m) => f.write_str(m),
            CallError::Timeout => f.write_str("the daemon did not answer in time"),
        }
    }
}

/// A connection to one daemon.
pub struct Client {
    sender: SendRequest<Full<Bytes>>,
    next_id: u64,
    timeout: Duration,
    peer_pid: Option<u32>,
}

/// Refuses a peer that does not run as our effective uid; returns its pid.
fn check_peer(stream: &UnixStream, socket: &Path) -> Result<Option<u32>, ConnectError> {
    let cred = stream.peer_cred().map_err(|e| {
        ConnectError::Other(format!(
            "{}: cannot read the credentials of the process behind it: {e}",
            socket.display()
        ))
    })?;
    let me = wit_boundary::identity::euid();
    if cred.uid() != me {
        return Err(ConnectError::Other(format!(
            "{}: refused: the process listening on it runs as uid {}, not as you (uid {me}); \
             wit talks only to a daemon of its own user. Remove the socket and run wit again",
            socket.display(),
            cred.uid()
        )));
    }
    Ok(cred
        .pid()
        .and_then(|p| u32::try_from(p).ok())
        .filter(|p| *p > 0))
}

impl Client {
    /// Connects to the socket at `socket`; `timeout` bounds the connection and every call.
    pub async fn connect(socket: &Path, timeout: Duration) -> Result<Client, ConnectError> {
        // Never talk to a socket that is not our own daemon's: a committed
        // `.wit/daemon.sock` symlink to another user's socket would receive staged code.
        // First the file (a socket, not a symlink, owned by us), then the peer itself.
        match wit_boundary::witdir::check_socket(socket) {
            Ok(SocketState::Missing) => return Err(ConnectError::Missing),
            Ok(SocketState::Ours) => {}
            Err(e) => return Err(ConnectError::Other(e.to_string())),
        }
        let handshake = async {
            let stream = UnixStream::connect(socket)
                .await
                .map_err(|e| match e.kind() {
                    std::io::ErrorKind::NotFound => ConnectError::Missing,
                    std::io::ErrorKind::ConnectionRefused => ConnectError::Refused,
                    _ => ConnectError::Other(format!("connecting to {}: {e}", socket.display())),
                })?;
            let peer_pid = check_peer(&stream, socket)?;
            let (sender, conn) = http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|e| ConnectError::Other(format!("HTTP handshake: {e}")))?;
            // The connection future drives the socket; it ends when `sender` is dropped.
            tokio::spawn(async move {
                let _ = conn.await;
            });
            Ok((sender, peer_pid))
        };
        let (sender, peer_pid) = tokio::time::timeout(timeout, handshake)
            .await
            .map_err(|_| ConnectError::Other("timed out connecting to the daemon".into()))??;
        Ok(Client {
            sender,
            next_id: 1,
            timeout,
            peer_pid,
        })
    }

    /// The daemon's pid as the kernel reports it for the connection (`SO_PEERCRED`), not
    /// as the daemon says it: the process `wit daemon stop` may signal.
    pub fn peer_pid(&self) -> Option<u32> {
        self.peer_pid
    }

    /// Changes the per-call timeout.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Calls `method` and returns its raw `result`.
    pub async fn call_value(&mut self, method: &str, params: Value) -> Result<Value, CallError> {
        let id = format!("wit-cli-{}", self.next_id);
        self.next_id += 1;
        let timeout = self.timeout;
        tokio::time::timeout(timeout, self.exchange(id, method, params))
            .await
            .map_err(|_| CallError::Timeout)?
    }

    /// Calls `method` and decodes its `result` as `T`.
    pub async fn call<T: DeserializeOwned>(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<T, CallError> {
        let v = self.call_value(method, params).await?;
        serde_json::from_value(v)
            .map_err(|e| CallError::Transport(format!("unexpected result of {method}: {e}")))
    }

    async fn exchange(
        &mut self,
        id: String,
        method: &str,
        params: Value,
    ) -> Result<Value, CallError> {
        let body = serde_json::to_vec(&Request::new(id, method, params))
            .map_err(|e| CallError::Transport(e.to_string()))?;
        let req = hyper::Request::post("/rpc")
            .header(hyper::header::HOST, "wit")
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| CallError::Transport(e.to_string()))?;
        self.sender
            .ready()
            .await
            .map_err(|e| CallError::Transport(format!("connection to the daemon lost: {e}")))?;
        let resp = self
            .sender
            .send_request(req)
            .await
            .map_err(|e| CallError::Transport(format!("request to the daemon failed: {e}")))?;
        let status = resp.status();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| CallError::Transport(format!("reading the daemon's answer: {e}")))?
            .to_bytes();
        let r: Response = serde_json::from_slice(&bytes).map_err(|e| {
            CallError::Transport(format!(
                "the daemon's answer (HTTP {status}) is not a JSON-RPC response: {e}"
            ))
        })?;
        match (r.error, r.result) {
            (Some(e), _) => Err(CallError::Rpc(e)),
            (None, Some(v)) => Ok(v),
            (None, None) => Ok(Value::Null),
        }
    }
}
