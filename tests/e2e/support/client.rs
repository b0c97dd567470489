//! A small HTTP/1.1 client over a Unix socket, with keep-alive and raw access.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

/// An HTTP response as read off the socket.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Headers, names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The (de-chunked) body.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (panics with the body text when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "response body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A v1 request body; `params: None` omits the field.
pub fn rpc_request(method: &str, params: Option<Value>) -> Value {
    let id = format!("req-{}", NEXT_ID.fetch_add(1, Ordering::Relaxed));
    let mut req = json!({ "jsonrpc": "2.0", "witVersion": "1", "id": id, "method": method });
    if let Some(p) = params {
        req["params"] = p;
    }
    req
}

/// One connection to the daemon; requests reuse it (keep-alive).
pub struct Client {
    writer: UnixStream,
    reader: BufReader<UnixStream>,
}

impl Client {
    /// Connects to `socket` (30 s read/write timeouts so a hung daemon fails the test).
    pub fn connect(socket: &Path) -> io::Result<Self> {
        let stream = UnixStream::connect(socket)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        stream.set_write_timeout(Some(Duration::from_secs(30)))?;
        let reader = BufReader::new(stream.try_clone()?);
        Ok(Self {
            writer: stream,
            reader,
        })
    }

    /// The underlying stream, for raw writes, shutdowns or clones.
    pub fn stream(&self) -> &UnixStream {
        &self.writer
    }

    /// Writes raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.write_all(bytes)?;
        self.writer.flush()
    }

    /// Sends one HTTP request (`Content-Length` framing) and reads its response.
    pub fn request(&mut self, method: &str, path: &str, body: &[u8]) -> io::Result<HttpResponse> {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: wit\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body);
        self.send_raw(&bytes)?;
        self.read_response()
    }

    /// Reads one HTTP response.
    pub fn read_response(&mut self) -> io::Result<HttpResponse> {
        let mut status_line = String::new();
        if self.reader.read_line(&mut status_line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed before a response",
            ));
        }
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(format!("bad status line {status_line:?}")))?;
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| bad(format!("bad header {line:?}")))?;
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let mut resp = HttpResponse {
            status,
            headers,
            body: Vec::new(),
        };
        if let Some(len) = resp.header("content-length") {
            let len: usize = len.parse().map_err(|_| bad("bad content-length".into()))?;
            resp.body = vec![0; len];
            self.reader.read_exact(&mut resp.body)?;
        } else if resp
            .header("transfer-encoding")
            .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
        {
            resp.body = self.read_chunked()?;
        } else {
            self.reader.read_to_end(&mut resp.body)?;
        }
        Ok(resp)
    }

    fn read_chunked(&mut self) -> io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let mut size_line = String::new();
            self.reader.read_line(&mut size_line)?;
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| bad(format!("bad chunk size {size_line:?}")))?;
            let mut chunk = vec![0; size + 2];
            self.reader.read_exact(&mut chunk)?;
            if size == 0 {
                return Ok(body);
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }

    /// POSTs raw bytes to `/rpc`.
    pub fn post_rpc_bytes(&mut self, body: &[u8]) -> HttpResponse {
        self.request("POST", "/rpc", body)
            .expect("HTTP exchange with the daemon")
    }

    /// POSTs a JSON value to `/rpc` and returns the parsed response envelope.
    pub fn post_json(&mut self, body: &Value) -> Value {
        self.post_rpc_bytes(body.to_string().as_bytes()).json()
    }

    /// Calls `method` with `params` and returns the whole response envelope.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.post_json(&rpc_request(method, Some(params)))
    }

    /// Calls `method` and returns its `result`, panicking (with the response) on an error.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let resp = self.call(method, params);
        assert!(resp.get("error").is_none(), "{method} failed: {resp}");
        resp["result"].clone()
    }

    /// The direct callers of `symbol` (`code.callers`), by symbol path.
    pub fn caller_names(&mut self, symbol: &str) -> Vec<String> {
        self.ok("code.callers", json!({ "symbolPath": symbol }))["callers"]
            .as_array()
            .expect("callers")
            .iter()
            .map(|e| e["caller"].as_str().expect("caller").to_owned())
            .collect()
    }

    /// Calls `method`, asserts it failed, and returns the `error` object.
    pub fn err(&mut self, method: &str, params: Value) -> Value {
        let resp = self.call(method, params);
        assert!(
            resp.get("result").is_none(),
            "{method} unexpectedly succeeded: {resp}"
        );
        resp["error"].clone()
    }
}

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg)
}
