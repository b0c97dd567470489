//! A minimal keep-alive JSON-RPC client over the daemon's Unix socket.
//!
//! Why not hyper: the benchmark measures the daemon, so the client must add as little as
//! possible and nothing asynchronous; one blocking connection per thread, requests written
//! as one buffer, responses read by `Content-Length`.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

/// One keep-alive connection.
pub struct Conn {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
}

/// A JSON-RPC reply: the result, or the error object.
pub type Reply = std::result::Result<Value, Value>;

impl Conn {
    /// Connects to the socket.
    pub fn connect(socket: &Path) -> Result<Self> {
        let stream = UnixStream::connect(socket)
            .with_context(|| format!("connecting to {}", socket.display()))?;
        Ok(Self {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
            next_id: 0,
        })
    }

    /// Sends one request and waits for its reply.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Reply> {
        self.next_id += 1;
        let body = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "witVersion": "1", "id": self.next_id.to_string(),
            "method": method, "params": params,
        }))?;
        self.call_body(&body)
    }

    /// The request body of `method` with `params`, serialized ahead of time (so that a
    /// measure of a large request does not time the client's serialization).
    pub fn body(method: &str, params: &Value) -> Result<Vec<u8>> {
        Ok(serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "witVersion": "1", "id": "prepared",
            "method": method, "params": params,
        }))?)
    }

    /// Sends a prepared request body (see [`Conn::body`]) and waits for its reply.
    pub fn call_body(&mut self, body: &[u8]) -> Result<Reply> {
        let mut req = format!(
            "POST /rpc HTTP/1.1\r\nHost: wit\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        req.extend_from_slice(body);
        self.writer.write_all(&req)?;
        let body = self.read_response()?;
        let mut v: Value = serde_json::from_slice(&body).context("response is not JSON")?;
        if let Some(e) = v.get_mut("error") {
            return Ok(Err(e.take()));
        }
        Ok(Ok(v
            .get_mut("result")
            .map(Value::take)
            .unwrap_or(Value::Null)))
    }

    /// Like [`Conn::call`], but an RPC error is an error.
    pub fn ok(&mut self, method: &str, params: Value) -> Result<Value> {
        match self.call(method, params)? {
            Ok(v) => Ok(v),
            Err(e) => bail!("{method} failed: {e}"),
        }
    }

    /// Sends a request without reading its reply (for requests left waiting on purpose).
    pub fn send(&mut self, method: &str, params: Value) -> Result<()> {
        let body = Self::body(method, &params)?;
        let mut req = format!(
            "POST /rpc HTTP/1.1\r\nHost: wit\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        req.extend_from_slice(&body);
        self.writer.write_all(&req)?;
        Ok(())
    }

    /// The raw stream (for `GET /events`).
    pub fn stream(&self) -> &UnixStream {
        &self.writer
    }

    /// The buffered reader of the connection (for `GET /events`).
    pub fn reader(&mut self) -> &mut BufReader<UnixStream> {
        &mut self.reader
    }

    fn read_response(&mut self) -> Result<Vec<u8>> {
        let mut line = String::new();
        let mut len = None;
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                bail!("daemon closed the connection");
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                len = Some(v.trim().parse::<usize>()?);
            }
        }
        let len = len.context("response without Content-Length")?;
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body)?;
        Ok(body)
    }
}
