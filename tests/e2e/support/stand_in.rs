//! A stand-in for a daemon of another wit version, listening on a repository's socket.
//!
//! Why a stand-in: the CLI must notice when the daemon it reaches was built from another
//! wit version (an upgrade while a daemon keeps running). Only the current version can be
//! built here, so nothing real could play the old daemon. The stand-in speaks the real wire
//! protocol on a real Unix socket (HTTP/1.1 `POST /rpc`, JSON-RPC v1 envelopes) and answers
//! just the calls `wit status` makes, with an old `version` in `daemon.status`.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use serde_json::{Value, json};

/// The version the stand-in claims to run.
pub const OLD_VERSION: &str = "0.0.1-old";

/// The pid the stand-in reports: above the largest pid Linux hands out (2^22), so that a
/// `wit daemon stop` aimed at the stand-in by mistake signals no process.
pub const STAND_IN_PID: u32 = 4_194_305;

/// The one event of the stand-in's log (`events.poll`; it has no `GET /events`).
pub static STAND_IN_EVENT: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
    json!({"seq": 1, "at": 1_700_000_000_000_i64, "kind": "lock.acquired", "sessionId": "old",
           "subject": "x.ts:f", "data": {}})
});

/// A listening stand-in; stops listening and removes its socket on drop.
pub struct OldDaemon {
    socket: PathBuf,
    stopping: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl OldDaemon {
    /// Listens on `<root>/.wit/daemon.sock` (creating `.wit/`).
    pub fn serve(root: &Path) -> Self {
        let socket = root.join(".wit").join("daemon.sock");
        std::fs::create_dir_all(socket.parent().expect("a parent")).expect("create .wit");
        let listener = UnixListener::bind(&socket).expect("bind the stand-in's socket");
        let stopping = Arc::new(AtomicBool::new(false));
        let status = status_result(root, &socket);
        let stop = Arc::clone(&stopping);
        let acceptor = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let status = status.clone();
                // One thread per connection: `wit status` opens four at once.
                std::thread::spawn(move || serve_connection(stream, &status));
            }
        });
        OldDaemon {
            socket,
            stopping,
            acceptor: Some(acceptor),
        }
    }
}

impl Drop for OldDaemon {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wakes the acceptor blocked in accept(2) so it sees the flag.
        let _ = UnixStream::connect(&self.socket);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// A `daemon.status` result shaped like the real one, but from another version.
fn status_result(root: &Path, socket: &Path) -> Value {
    json!({
        "pid": STAND_IN_PID,
        "version": OLD_VERSION,
        "startedAt": 1_700_000_000_000_i64,
        "uptimeMs": 90_000,
        "root": root.display().to_string(),
        "socket": socket.display().to_string(),
        "counts": {"locks": 0, "intents": 0, "contracts": 0},
        "analyzers": [
            {"id": "typescript", "extensions": ["ts", "mts", "cts"], "origin": "builtin"}
        ],
        "config": {"file": root.join("wit.toml").display().to_string(), "present": false},
        "failed": []
    })
}

/// Answers requests on one keep-alive connection until the client closes it.
fn serve_connection(stream: UnixStream, status: &Value) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some((request_line, body)) = read_request(&mut reader) {
        // Like every daemon before the event stream: only POST /rpc exists.
        if !request_line.starts_with("POST /rpc ") {
            let text = "not found: the wit daemon serves POST /rpc\n";
            let head = format!(
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
                text.len()
            );
            if writer.write_all(head.as_bytes()).is_err()
                || writer.write_all(text.as_bytes()).is_err()
            {
                return;
            }
            continue;
        }
        let Ok(body) = serde_json::from_slice::<Value>(&body) else {
            return;
        };
        let answer = answer(&body, status).to_string();
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            answer.len()
        );
        if writer.write_all(head.as_bytes()).is_err()
            || writer.write_all(answer.as_bytes()).is_err()
        {
            return;
        }
    }
}

/// Reads one request (the CLI frames bodies with `Content-Length`) and returns its request
/// line and body; `None` at the end of the connection or on anything unreadable.
fn read_request(reader: &mut BufReader<UnixStream>) -> Option<(String, Vec<u8>)> {
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).ok()? == 0 {
        return None;
    }
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((request_line, body))
}

/// The JSON-RPC v1 response to `request`.
fn answer(request: &Value, status: &Value) -> Value {
    let id = request["id"].clone();
    let envelope = |key: &str, value: Value| {
        let mut response = json!({"jsonrpc": "2.0", "witVersion": "1", "id": id});
        response[key] = value;
        response
    };
    match request["method"].as_str().unwrap_or_default() {
        "ping" => envelope("result", json!("pong")),
        "daemon.status" => envelope("result", status.clone()),
        "lock.query" | "intent.query" | "contract.query" => envelope("result", json!([])),
        // One event in its log, for the clients that fall back to long polls.
        "events.poll" if request["params"]["since"].as_i64().unwrap_or(0) < 1 => envelope(
            "result",
            json!({"events": [STAND_IN_EVENT.clone()], "next": 1, "last": 1}),
        ),
        "events.poll" => envelope("result", json!({"events": [], "next": 1, "last": 1})),
        other => envelope(
            "error",
            json!({"code": -32601, "message": "METHOD_NOT_FOUND", "data": {"method": other}}),
        ),
    }
}
