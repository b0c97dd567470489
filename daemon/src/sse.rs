//! `GET /events` (extension): the event log as server-sent events, on the same socket as
//! `/rpc` (so behind the same peer-uid check).
//!
//! Query parameters: `since` (the last seq seen, default 0: from the start), `kinds` (a
//! comma list), `sessionId`; the `Last-Event-ID` header (sent by a reconnecting SSE
//! client) takes precedence over `since`. A bad or unknown parameter is a `400` naming it.
//! Each event is one message: `id: <seq>`, `event: <kind>`, `data: <the event as
//! events.poll returns it>`. The stream opens with a `retry:` hint and a comment, sends a
//! comment every `keepAliveMs` (default 15 s) while nothing happens, and ends cleanly when
//! the daemon stops.
//!
//! Bounded buffering: each stream has a producer task that reads the durable log in
//! batches and hands messages to the response through a small channel. A slow client
//! fills the channel and the producer simply waits (it holds nothing anyone else needs);
//! when the client catches up, the producer reads on from the log where it was. A client
//! that goes away closes the channel and ends its producer.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Body, Bytes, Frame};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{HeaderMap, Response, StatusCode};
use serde_json::json;
use tokio::sync::{mpsc, watch};

use crate::state::AppState;
use crate::store::events::{self, Event};

/// The path served.
pub(crate) const PATH: &str = "/events";
/// Messages buffered per stream before its producer waits for the client.
const CHANNEL_MESSAGES: usize = 32;
/// Events read from the log at a time.
const BATCH: usize = 100;
/// Default and bounds of `keepAliveMs`.
const KEEP_ALIVE_MS: u64 = 15_000;
const KEEP_ALIVE_MIN_MS: u64 = 100;
const KEEP_ALIVE_MAX_MS: u64 = 300_000;
/// Reconnect delay advised to clients (`retry:`), in ms.
const RETRY_MS: u64 = 1_000;

/// What a stream delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Query {
    pub since: i64,
    pub kinds: Option<Vec<String>>,
    pub session_id: Option<String>,
    pub keep_alive: Duration,
}

/// Reads the query string and `Last-Event-ID`; `Err` names every bad parameter.
pub(crate) fn parse(
    query: Option<&str>,
    headers: &HeaderMap,
) -> Result<Query, BTreeMap<String, String>> {
    let mut errors = BTreeMap::new();
    let mut q = Query {
        since: 0,
        kinds: None,
        session_id: None,
        keep_alive: Duration::from_millis(KEEP_ALIVE_MS),
    };
    let seq = |v: &str| v.parse::<u64>().ok().filter(|n| *n <= i64::MAX as u64);
    for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (Some(name), Some(value)) = (decode(name), decode(value)) else {
            errors.insert(
                pair.to_owned(),
                "is not valid percent-encoded UTF-8".to_owned(),
            );
            continue;
        };
        match name.as_str() {
            "since" => match seq(&value) {
                Some(n) => q.since = n as i64,
                None => {
                    errors.insert(name, "must be a non-negative integer".to_owned());
                }
            },
            "kinds" => {
                let kinds: Vec<String> = value.split(',').map(str::to_owned).collect();
                if kinds.iter().any(String::is_empty) {
                    errors.insert(
                        name,
                        "must be a comma list of non-empty event kinds".to_owned(),
                    );
                } else {
                    q.kinds = Some(kinds);
                }
            }
            "sessionId" if value.is_empty() => {
                errors.insert(name, "must not be empty".to_owned());
            }
            "sessionId" => q.session_id = Some(value),
            "keepAliveMs" => match value.parse::<u64>() {
                Ok(ms) if (KEEP_ALIVE_MIN_MS..=KEEP_ALIVE_MAX_MS).contains(&ms) => {
                    q.keep_alive = Duration::from_millis(ms);
                }
                _ => {
                    errors.insert(
                        name,
                        format!(
                            "must be an integer from {KEEP_ALIVE_MIN_MS} to {KEEP_ALIVE_MAX_MS}"
                        ),
                    );
                }
            },
            _ => {
                errors.insert(
                    name,
                    "is not a parameter of /events (since, kinds, sessionId, keepAliveMs)"
                        .to_owned(),
                );
            }
        }
    }
    if let Some(last) = headers.get("last-event-id") {
        match last.to_str().ok().map(str::trim).and_then(seq) {
            Some(n) => q.since = n as i64,
            None => {
                errors.insert(
                    "Last-Event-ID".to_owned(),
                    "must be a non-negative integer (an event's id)".to_owned(),
                );
            }
        }
    }
    if errors.is_empty() {
        Ok(q)
    } else {
        Err(errors)
    }
}

/// `%XX`-decoding, with `+` as a space (as browsers' `URLSearchParams` encode it).
fn decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// The `400` for bad parameters: a JSON body `{"error": "BAD_QUERY", "fieldErrors": …}`.
pub(crate) fn bad_request(errors: BTreeMap<String, String>) -> Response<Full<Bytes>> {
    let body = json!({
        "error": "BAD_QUERY",
        "reason": "GET /events takes since, kinds (comma list), sessionId, keepAliveMs and the Last-Event-ID header",
        "fieldErrors": errors,
    });
    let mut resp = Response::new(Full::new(Bytes::from(body.to_string())));
    *resp.status_mut() = StatusCode::BAD_REQUEST;
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    resp
}

/// The streaming response for `query`, ending when `stop` turns true.
pub(crate) fn stream(
    state: Arc<AppState>,
    query: Query,
    stop: watch::Receiver<bool>,
) -> Response<EventStream> {
    let (send, recv) = mpsc::channel(CHANNEL_MESSAGES);
    tokio::spawn(produce(state, query, send, stop));
    let mut resp = Response::new(EventStream(recv));
    let headers = resp.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

/// One SSE message for `event`.
pub(crate) fn message(event: &Event) -> Bytes {
    let data = serde_json::to_string(event).unwrap_or_else(|_| "null".to_owned());
    // Kinds are fixed identifiers and the data is one line of JSON (serde escapes every
    // newline), so no field can break the framing.
    Bytes::from(format!(
        "id: {}\nevent: {}\ndata: {data}\n\n",
        event.seq, event.kind
    ))
}

/// Reads the log from `query.since` and sends each message, waiting for the next committed
/// change when there is none; keep-alive comments meanwhile. Ends when the client is gone,
/// the daemon stops, or the store fails (the client then reconnects with its last id).
async fn produce(
    state: Arc<AppState>,
    query: Query,
    send: mpsc::Sender<Bytes>,
    mut stop: watch::Receiver<bool>,
) {
    // Subscribed before the first read, so a change committed in between still wakes us.
    let mut changed = state.events.subscribe();
    let hello = format!(
        "retry: {RETRY_MS}\n: wit events from seq {}\n\n",
        query.since
    );
    if send.send(Bytes::from(hello)).await.is_err() {
        return;
    }
    let mut since = query.since;
    loop {
        if *stop.borrow() {
            return;
        }
        let (kinds, session) = (query.kinds.clone(), query.session_id.clone());
        let read = state
            .read(move |conn| {
                let found =
                    events::since(conn, since, BATCH, kinds.as_deref(), session.as_deref())?;
                Ok((found, events::last_seq(conn)?))
            })
            .await;
        let Ok((found, last)) = read else {
            return;
        };
        let full = found.len() == BATCH;
        for event in &found {
            tokio::select! {
                sent = send.send(message(event)) => if sent.is_err() { return },
                _ = stop.changed() => return,
            }
            since = event.seq;
        }
        if full {
            continue;
        }
        // Everything up to `last` was read (the two reads share the connection, so no
        // write came between): with filters, what was skipped is not scanned again.
        since = since.max(last);
        loop {
            tokio::select! {
                woke = changed.changed() => {
                    if woke.is_err() { return }
                    break;
                }
                () = tokio::time::sleep(query.keep_alive) => {
                    if send.send(Bytes::from_static(b": keep-alive\n\n")).await.is_err() {
                        return;
                    }
                }
                () = send.closed() => return,
                _ = stop.changed() => return,
            }
        }
    }
}

/// The response body of a stream: the producer's messages, ending when it ends.
pub(crate) struct EventStream(mpsc::Receiver<Bytes>);

impl Body for EventStream {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.0.poll_recv(cx).map(|m| m.map(|b| Ok(Frame::data(b))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(q: &str, last: Option<&str>) -> Result<Query, Vec<String>> {
        let mut headers = HeaderMap::new();
        if let Some(l) = last {
            headers.insert("last-event-id", HeaderValue::from_str(l).unwrap());
        }
        parse(Some(q), &headers).map_err(|e| e.into_keys().collect())
    }

    #[test]
    fn parameters_are_read_and_every_bad_one_is_named() {
        let q = query(
            "since=5&kinds=lock.acquired,intent.declared&sessionId=a%20b+c",
            None,
        )
        .unwrap();
        assert_eq!(q.since, 5);
        assert_eq!(
            q.kinds.as_deref(),
            Some(&["lock.acquired".to_owned(), "intent.declared".to_owned()][..])
        );
        assert_eq!(q.session_id.as_deref(), Some("a b c"));
        assert_eq!(q.keep_alive, Duration::from_millis(KEEP_ALIVE_MS));
        // Last-Event-ID wins over since (a reconnect keeps the original URL).
        assert_eq!(query("since=5", Some("9")).unwrap().since, 9);
        assert_eq!(query("", None).unwrap(), query("&", None).unwrap());

        assert_eq!(
            query(
                "since=-1&kinds=a,,b&sessionId=&keepAliveMs=5&x=1",
                Some("z")
            )
            .unwrap_err(),
            [
                "Last-Event-ID",
                "keepAliveMs",
                "kinds",
                "sessionId",
                "since",
                "x"
            ]
        );
        assert_eq!(query("since=%zz", None).unwrap_err(), ["since=%zz"]);
        assert_eq!(
            query("since=99999999999999999999", None).unwrap_err(),
            ["since"]
        );
    }

    #[test]
    fn a_message_is_one_sse_event_with_the_poll_json() {
        let e = Event {
            seq: 3,
            at: 10,
            kind: "lock.acquired".into(),
            session_id: Some("s".into()),
            subject: "a.ts:f".into(),
            data: json!({"note": "two\nlines"}),
        };
        let text = String::from_utf8(message(&e).to_vec()).unwrap();
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            text,
            format!("id: 3\nevent: lock.acquired\ndata: {json}\n\n")
        );
        assert_eq!(text.matches('\n').count(), 4, "one data line");
    }
}
