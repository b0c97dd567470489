//! The socket server: HTTP/1.1 with keep-alive over the Unix socket, `POST /rpc` and the
//! event stream `GET /events` (see `sse`).

use std::convert::Infallible;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Either, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::UnixListener;
use tokio::sync::watch;
use tokio::task::JoinSet;
use wit_core::protocol::{ErrorCode, RpcError};

use crate::envelope::{self, error_response, ok_response};
use crate::methods::Failure;
use crate::router;
use crate::sse;
use crate::state::AppState;

/// Largest accepted request body: 16 MiB. A larger body is answered with HTTP 413 and a
/// JSON-RPC `INVALID_REQUEST` (id `null`) whose `data` is
/// `{"reason": "...", "limitBytes": 16777216}`; the connection is then closed, and the
/// daemon goes on serving everyone else.
pub const BODY_LIMIT_BYTES: usize = 16 * 1024 * 1024;

/// From this size on, a request body is parsed on the blocking pool.
const LARGE_BODY_BYTES: usize = 256 * 1024;

/// How long in-flight requests get to finish at shutdown.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(3);

/// Accepts connections until `shutdown` resolves, then lets open connections finish their
/// current request (bounded by [`DRAIN_TIMEOUT`]).
pub(crate) async fn serve(
    listener: UnixListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()>,
) {
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    if peer_is_us(&stream) {
                        connections.spawn(serve_connection(stream, state.clone(), stop_rx.clone()));
                    }
                }
                Err(e) => {
                    // Typically EMFILE; back off instead of spinning.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        tracing::warn!(
            "closing {} connection(s) still busy at shutdown",
            connections.len()
        );
        connections.abort_all();
    }
}

/// Whether the peer runs as our effective uid (`SO_PEERCRED`). The socket is 0600 in a
/// 0700 directory, so nobody else should reach it; this is the second wall, for a socket
/// path made reachable some other way. Other peers are dropped without an answer.
pub(crate) fn peer_is_us(stream: &tokio::net::UnixStream) -> bool {
    match stream.peer_cred() {
        Ok(cred) if cred.uid() == wit_boundary::identity::euid() => true,
        Ok(cred) => {
            tracing::warn!(
                uid = cred.uid(),
                pid = cred.pid(),
                "refused a connection from another user"
            );
            false
        }
        Err(e) => {
            tracing::warn!("refused a connection whose credentials could not be read: {e}");
            false
        }
    }
}

async fn serve_connection(
    stream: tokio::net::UnixStream,
    state: Arc<AppState>,
    mut stop: watch::Receiver<bool>,
) {
    let streams_stop = stop.clone();
    let service = service_fn(move |req| route(state.clone(), streams_stop.clone(), req));
    // No header-read timeout: in hyper it also runs while a keep-alive connection is idle,
    // and clients (agents, `wit watch`) legitimately keep a connection open between
    // requests. The socket is owner-only, so a slow client is the user's own process, and
    // it costs one idle task.
    let conn = http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service);
    let mut conn = pin!(conn);
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(e) = result {
                tracing::debug!("connection ended: {e}");
            }
        }
        _ = stop.changed() => {
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

/// A response: a whole body, or the event stream of `GET /events`.
type Reply = Response<Either<Full<Bytes>, sse::EventStream>>;

/// `GET /events` (see [`sse`]); everything else is [`handle`]'s.
async fn route(
    state: Arc<AppState>,
    stop: watch::Receiver<bool>,
    req: Request<Incoming>,
) -> Result<Reply, Infallible> {
    if req.uri().path() != sse::PATH {
        return handle(state, req).await.map(|r| r.map(Either::Left));
    }
    if req.method() != Method::GET {
        let drained = drain(req.into_body()).await;
        let mut resp = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed: use GET /events\n",
        );
        resp.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET"));
        return Ok(closing_unless(drained, resp).map(Either::Left));
    }
    Ok(match sse::parse(req.uri().query(), req.headers()) {
        Ok(query) => sse::stream(state, query, stop).map(Either::Right),
        Err(errors) => sse::bad_request(errors).map(Either::Left),
    })
}

async fn handle(
    state: Arc<AppState>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if req.uri().path() != "/rpc" {
        let drained = drain(req.into_body()).await;
        return Ok(closing_unless(
            drained,
            plain(
                StatusCode::NOT_FOUND,
                "not found: the wit daemon serves POST /rpc and GET /events\n",
            ),
        ));
    }
    if req.method() != Method::POST {
        let drained = drain(req.into_body()).await;
        let mut resp = plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed: use POST /rpc\n",
        );
        resp.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("POST"));
        return Ok(closing_unless(drained, resp));
    }
    let declared_len = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared_len.is_some_and(|n| n > BODY_LIMIT_BYTES as u64) {
        return Ok(too_large());
    }
    let body = match Limited::new(req.into_body(), BODY_LIMIT_BYTES)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => return Ok(too_large()),
        Err(e) => {
            // The client went away or broke the framing; nobody is left to read much.
            tracing::debug!("reading a request body failed: {e}");
            return Ok(plain(
                StatusCode::BAD_REQUEST,
                "could not read the request body\n",
            ));
        }
    };

    // Parsing a large body (a declare of 50,000 files is a few MiB) takes milliseconds:
    // done on the blocking pool, so that no other client waits for it.
    let checked = if body.len() > LARGE_BODY_BYTES {
        match tokio::task::spawn_blocking(move || envelope::check(&body)).await {
            Ok(checked) => checked,
            Err(e) => {
                let resp = error_response(None, Failure::from_join(e).0);
                return Ok(json_response(StatusCode::OK, &resp));
            }
        }
    } else {
        envelope::check(&body)
    };
    let call = match checked {
        Ok(call) => call,
        Err(rejection) => return Ok(json_response(rejection.status, &rejection.body)),
    };
    if !router::is_known(&call.method) {
        let resp = error_response(
            Some(call.id),
            RpcError::new(ErrorCode::MethodNotFound, None),
        );
        return Ok(json_response(StatusCode::OK, &resp));
    }
    let started = Instant::now();
    let id = call.id;
    let method = call.method.clone();
    // A panicking handler fails this request only. Caught in place rather than by running
    // the handler as its own task: a spawn per request costs a task allocation and a
    // cross-thread wake-up, a large share of a quick request.
    let outcome = CatchUnwind(Box::pin(router::call(state, call.method, call.params))).await;
    let response = match outcome {
        Ok(Ok(result)) => ok_response(id, result),
        Ok(Err(error)) => error_response(Some(id), error),
        Err(_) => error_response(
            Some(id),
            Failure::internal("the request handler panicked").0,
        ),
    };
    tracing::debug!(
        method,
        elapsed_us = started.elapsed().as_micros() as u64,
        error = response.error.as_ref().map(|e| e.message.as_str()),
        "rpc"
    );
    Ok(json_response(StatusCode::OK, &response))
}

/// Most bytes of an unwanted body (wrong path or method) read and thrown away.
const DRAIN_LIMIT_BYTES: usize = 1024 * 1024;
/// Longest wait for an unwanted body.
const DRAIN_TIMEOUT_BODY: Duration = Duration::from_secs(2);

/// Reads and discards a body the daemon will not use, so that a client still sending it
/// gets the 404/405 instead of a broken pipe. Bounded in bytes and time; `false` when the
/// body was not read to its end (then the connection must close).
async fn drain(body: Incoming) -> bool {
    let read = Limited::new(body, DRAIN_LIMIT_BYTES).collect();
    matches!(
        tokio::time::timeout(DRAIN_TIMEOUT_BODY, read).await,
        Ok(Ok(_))
    )
}

/// `resp`, marked `Connection: close` unless the request body was read to its end.
fn closing_unless(drained: bool, mut resp: Response<Full<Bytes>>) -> Response<Full<Bytes>> {
    if !drained {
        resp.headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    resp
}

/// Polls a future, turning a panic during a poll into `Err`. The handler's state is
/// dropped right after a panic and never polled again, so no broken state is observed
/// (hence `AssertUnwindSafe`).
struct CatchUnwind<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn std::any::Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

fn json_response(status: StatusCode, body: &wit_core::protocol::Response) -> Response<Full<Bytes>> {
    let bytes = match serde_json::to_vec(body) {
        Ok(b) => b,
        Err(e) => {
            tracing::error!("serializing a response: {e}");
            br#"{"jsonrpc":"2.0","witVersion":"1","id":null,"error":{"code":-32603,"message":"INTERNAL_ERROR"}}"#.to_vec()
        }
    };
    let mut resp = Response::new(Full::new(Bytes::from(bytes)));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    resp
}

fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut resp = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

fn too_large() -> Response<Full<Bytes>> {
    let error = RpcError::new(
        ErrorCode::InvalidRequest,
        Some(json!({
            "reason": format!("request body exceeds the limit of {BODY_LIMIT_BYTES} bytes"),
            "limitBytes": BODY_LIMIT_BYTES,
        })),
    );
    let mut resp = json_response(StatusCode::PAYLOAD_TOO_LARGE, &error_response(None, error));
    // The rest of the body is never read, so this connection cannot carry another request.
    resp.headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    resp
}
