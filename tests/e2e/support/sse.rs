//! A server-sent-events client for `GET /events` over the Unix socket: reads the response
//! head, then de-chunks the body as it arrives and splits it into SSE messages.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

/// One SSE message (a block ended by a blank line).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Message {
    pub id: Option<String>,
    pub event: Option<String>,
    /// The `data:` lines joined with `\n` (SSE's rule).
    pub data: Option<String>,
    pub retry: Option<String>,
    /// `:` comment lines, without the colon.
    pub comments: Vec<String>,
}

impl Message {
    /// The data parsed as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.data.as_deref().unwrap_or("null")).expect("data is JSON")
    }
}

/// An open `GET /events` response.
pub struct EventStream {
    reader: BufReader<UnixStream>,
    /// Status code.
    pub status: u16,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    chunked: bool,
    pending: String,
    ended: bool,
}

impl EventStream {
    /// Sends `GET <target>` (path and query) with optional extra header lines and reads
    /// the response head.
    pub fn open(socket: &Path, target: &str, extra_headers: &[(&str, &str)]) -> io::Result<Self> {
        let mut stream = UnixStream::connect(socket)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        stream.set_write_timeout(Some(Duration::from_secs(30)))?;
        let mut head =
            format!("GET {target} HTTP/1.1\r\nHost: wit\r\nAccept: text/event-stream\r\n");
        for (name, value) in extra_headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        let mut reader = BufReader::new(stream);
        let mut status_line = String::new();
        if reader.read_line(&mut status_line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "closed before a response",
            ));
        }
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((n, v)) = line.split_once(':') {
                headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
            }
        }
        let chunked = headers
            .iter()
            .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
        Ok(Self {
            reader,
            status,
            headers,
            chunked,
            pending: String::new(),
            ended: false,
        })
    }

    /// The first header named `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The whole body of a non-streaming answer (a 400, a 405).
    pub fn body(mut self) -> io::Result<String> {
        let len: usize = self
            .header("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body)?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// Reads more of the body into `pending`; `false` at the end of the stream.
    fn fill(&mut self) -> io::Result<bool> {
        if self.ended {
            return Ok(false);
        }
        if !self.chunked {
            let mut buf = [0u8; 8192];
            let n = self.reader.read(&mut buf)?;
            self.pending.push_str(&String::from_utf8_lossy(&buf[..n]));
            self.ended = n == 0;
            return Ok(n > 0);
        }
        let mut size_line = String::new();
        if self.reader.read_line(&mut size_line)? == 0 {
            self.ended = true;
            return Ok(false);
        }
        let size = usize::from_str_radix(size_line.trim(), 16)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, size_line.clone()))?;
        let mut chunk = vec![0; size + 2];
        self.reader.read_exact(&mut chunk)?;
        if size == 0 {
            self.ended = true;
            return Ok(false);
        }
        self.pending
            .push_str(&String::from_utf8_lossy(&chunk[..size]));
        Ok(true)
    }

    /// The next message, comments-only ones included; `None` when the stream ended
    /// cleanly (the terminating chunk).
    pub fn next_message(&mut self) -> io::Result<Option<Message>> {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                return Ok(Some(parse_block(&block)));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// The next message carrying an event (comments skipped); `None` at the end.
    pub fn next_event(&mut self) -> io::Result<Option<Message>> {
        loop {
            match self.next_message()? {
                Some(m) if m.data.is_none() => continue,
                other => return Ok(other),
            }
        }
    }
}

fn parse_block(block: &str) -> Message {
    let mut m = Message::default();
    for line in block.lines() {
        if let Some(comment) = line.strip_prefix(':') {
            m.comments.push(comment.trim_start().to_owned());
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value).to_owned();
        match field {
            "id" => m.id = Some(value),
            "event" => m.event = Some(value),
            "retry" => m.retry = Some(value),
            "data" => {
                m.data = Some(match m.data.take() {
                    Some(d) => format!("{d}\n{value}"),
                    None => value,
                })
            }
            _ => {}
        }
    }
    m
}
