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

/// An open `GET /events` stream (server-sent events): the events as `events.poll`
/// returns them, one at a time. It keeps its connection to itself.
pub struct EventStream {
    body: hyper::body::Incoming,
    pending: String,
    /// Held so the connection lives as long as the stream.
    _client: Client,
}

impl Client {
    /// Opens `GET /events?<query>` on this connection (which the stream then owns).
    /// `Ok(None)`: the daemon has no event stream (an older one answers 404), so the
    /// caller falls back to `events.poll`. The query's values must be percent-encoded
    /// ([`query_value`]).
    pub async fn events_stream(mut self, query: &str) -> Result<Option<EventStream>, CallError> {
        let req = hyper::Request::get(format!("/events?{query}"))
            .header(hyper::header::HOST, "wit")
            .header(hyper::header::ACCEPT, "text/event-stream")
            .body(Full::new(Bytes::new()))
            .map_err(|e| CallError::Transport(e.to_string()))?;
        let open = async {
            self.sender
                .ready()
                .await
                .map_err(|e| CallError::Transport(format!("connection to the daemon lost: {e}")))?;
            self.sender
                .send_request(req)
                .await
                .map_err(|e| CallError::Transport(format!("request to the daemon failed: {e}")))
        };
        let resp = tokio::time::timeout(self.timeout, open)
            .await
            .map_err(|_| CallError::Timeout)??;
        match resp.status() {
            hyper::StatusCode::OK => Ok(Some(EventStream {
                body: resp.into_body(),
                pending: String::new(),
                _client: self,
            })),
            hyper::StatusCode::NOT_FOUND => Ok(None),
            status => {
                let bytes = resp
                    .into_body()
                    .collect()
                    .await
                    .map(|b| b.to_bytes())
                    .unwrap_or_default();
                Err(CallError::Transport(format!(
                    "GET /events: HTTP {status}: {}",
                    String::from_utf8_lossy(&bytes).trim()
                )))
            }
        }
    }
}

impl EventStream {
    /// The next event (keep-alive comments skipped); `Ok(None)` when the stream ended (the
    /// daemon stopped). Cancel-safe: what was read stays buffered for the next call.
    pub async fn next_event(&mut self) -> Result<Option<Value>, CallError> {
        loop {
            while let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let data: Vec<&str> = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                if data.is_empty() {
                    continue;
                }
                return serde_json::from_str(&data.join("\n"))
                    .map(Some)
                    .map_err(|e| CallError::Transport(format!("an event is not JSON: {e}")));
            }
            match self.body.frame().await {
                None => return Ok(None),
                Some(Err(e)) => {
                    return Err(CallError::Transport(format!("the event stream broke: {e}")));
                }
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.pending.push_str(&String::from_utf8_lossy(&data));
                    }
                }
            }
        }
    }
}

/// `value` percent-encoded for a query string (everything but `A-Za-z0-9-._~`).
pub fn query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The query of `GET /events` for `since`, `kinds` (none: all) and `session`.
pub fn events_query(since: i64, kinds: &[String], session: Option<&str>) -> String {
    let mut q = format!("since={since}");
    if !kinds.is_empty() {
        let kinds: Vec<String> = kinds.iter().map(|k| query_value(k)).collect();
        q.push_str(&format!("&kinds={}", kinds.join(",")));
    }
    if let Some(s) = session {
        q.push_str(&format!("&sessionId={}", query_value(s)));
    }
    q
}

#[cfg(test)]
mod tests {
    use super::{events_query, query_value};

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(query_value("lock.acquired"), "lock.acquired");
        assert_eq!(query_value("a b+c,d/é"), "a%20b%2Bc%2Cd%2F%C3%A9");
        assert_eq!(events_query(3, &[], None), "since=3");
        assert_eq!(
            events_query(0, &["lock.acquired".into(), "x y".into()], Some("s&1")),
            "since=0&kinds=lock.acquired,x%20y&sessionId=s%261"
        );
    }
}
