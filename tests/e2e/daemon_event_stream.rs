//! `GET /events`: the event log as server-sent events on the daemon's socket — in order
//! with no gap, a reconnect with `Last-Event-ID` missing nothing, filters, clear 400s,
//! keep-alives, a clean end when the daemon stops, a slow reader holding up no one, and
//! the peer-uid check of `/rpc`.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;

use serde_json::{Value, json};

use crate::support::client::Client;
use crate::support::daemon::Daemon;
use crate::support::repo::TempRepo;
use crate::support::sse::{EventStream, Message};

/// Opens a stream and waits for its opening comment (the stream is then subscribed: every
/// change committed after this is delivered).
fn open(d: &Daemon, target: &str, headers: &[(&str, &str)]) -> EventStream {
    let mut s = EventStream::open(d.socket(), target, headers).expect("GET /events");
    assert_eq!(s.status, 200, "{target}");
    assert_eq!(s.header("content-type"), Some("text/event-stream"));
    let hello = s.next_message().unwrap().expect("the opening message");
    assert_eq!(hello.retry.as_deref(), Some("1000"), "{hello:?}");
    assert!(
        hello.data.is_none() && !hello.comments.is_empty(),
        "{hello:?}"
    );
    s
}

/// The next `n` events of `s`.
fn take(s: &mut EventStream, n: usize) -> Vec<Message> {
    (0..n)
        .map(|_| s.next_event().unwrap().expect("an event before the end"))
        .collect()
}

/// Some changes by sessions `a` and `b`: `rounds` × (acquire by a, release by a, acquire by
/// b, release by b).
fn changes(c: &mut Client, rounds: usize) {
    for i in 0..rounds {
        for s in ["a", "b"] {
            let lock = json!({"symbolPath": format!("x.ts:f{i}"), "sessionId": s});
            c.ok("lock.acquire", lock.clone());
            c.ok("lock.release", lock);
        }
    }
}

fn poll_all(c: &mut Client, params: Value) -> Vec<Value> {
    c.ok("events.poll", params)["events"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn every_event_arrives_in_order_with_no_gap_and_a_reconnect_misses_nothing() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    // 14 events already in the log (two session.started, then 12 lock events).
    changes(&mut c, 3);
    let mut s = open(&d, "/events", &[]);
    changes(&mut c, 3); // 12 more, committed while the stream is open
    let got = take(&mut s, 26);
    let logged = poll_all(&mut c, json!({"since": 0}));
    assert_eq!(logged.len(), 26);
    for (i, (m, e)) in got.iter().zip(&logged).enumerate() {
        assert_eq!(
            m.id.as_deref(),
            Some(format!("{}", i + 1).as_str()),
            "no gap"
        );
        assert_eq!(m.event.as_deref(), e["kind"].as_str());
        assert_eq!(
            &m.json(),
            e,
            "data is the event exactly as events.poll has it"
        );
    }
    drop(s);

    // Reconnect with the last id seen: everything after it, also what happened meanwhile.
    changes(&mut c, 1);
    let mut s = open(&d, "/events?since=1", &[("Last-Event-ID", "20")]);
    let ids: Vec<String> = take(&mut s, 10)
        .into_iter()
        .map(|m| m.id.unwrap())
        .collect();
    assert_eq!(ids, (21..=30).map(|n| n.to_string()).collect::<Vec<_>>());
    changes(&mut c, 1);
    let ids: Vec<String> = take(&mut s, 4).into_iter().map(|m| m.id.unwrap()).collect();
    assert_eq!(ids, ["31", "32", "33", "34"]);
}

#[test]
fn kinds_and_session_filter_the_stream() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    changes(&mut c, 2);
    let mut s = open(
        &d,
        "/events?kinds=lock.released,intent.declared&sessionId=b",
        &[],
    );
    c.ok(
        "intent.declare",
        json!({"sessionId": "b", "description": "d", "files": ["x.ts"]}),
    );
    let got = take(&mut s, 3);
    let expected = poll_all(
        &mut c,
        json!({"kinds": ["lock.released", "intent.declared"], "sessionId": "b"}),
    );
    assert_eq!(expected.len(), 3);
    let kinds: Vec<&str> = got.iter().map(|m| m.event.as_deref().unwrap()).collect();
    assert_eq!(kinds, ["lock.released", "lock.released", "intent.declared"]);
    for (m, e) in got.iter().zip(&expected) {
        assert_eq!(&m.json(), e);
    }
    // A filter that matches nothing yet still delivers what comes later.
    let mut s = open(&d, "/events?since=0&kinds=contract.proposed", &[]);
    std::fs::write(
        repo.path().join("x.ts"),
        "export function f(a: number): number { return a; }\n",
    )
    .unwrap();
    c.ok(
        "contract.propose",
        json!({"sessionId": "a", "symbolPath": "x.ts:f"}),
    );
    let m = s.next_event().unwrap().unwrap();
    assert_eq!(m.event.as_deref(), Some("contract.proposed"));
}

#[test]
fn a_bad_query_parameter_or_method_gets_a_clear_answer() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let s = EventStream::open(
        d.socket(),
        "/events?since=-1&kinds=a,,b&sessionId=&color=red",
        &[("Last-Event-ID", "yesterday")],
    )
    .unwrap();
    assert_eq!(s.status, 400);
    let body: Value = serde_json::from_str(&s.body().unwrap()).unwrap();
    assert_eq!(body["error"], "BAD_QUERY");
    let named: Vec<&String> = body["fieldErrors"].as_object().unwrap().keys().collect();
    assert_eq!(
        named,
        ["Last-Event-ID", "color", "kinds", "sessionId", "since"],
        "{body}"
    );
    assert!(
        body["fieldErrors"]["since"]
            .as_str()
            .unwrap()
            .contains("non-negative integer")
    );

    let mut c = d.client();
    let resp = c.request("POST", "/events", b"{}").unwrap();
    assert_eq!(resp.status, 405);
    assert_eq!(resp.header("allow"), Some("GET"));
    // The daemon serves on.
    assert_eq!(c.ok("ping", json!({})), "pong");
}

#[test]
fn keep_alives_flow_while_idle_and_the_stream_ends_cleanly_when_the_daemon_stops() {
    let repo = TempRepo::new();
    let mut d = Daemon::start(repo.path());
    let mut s = open(&d, "/events?keepAliveMs=100", &[]);
    let idle = s.next_message().unwrap().expect("a keep-alive");
    assert_eq!(idle.comments, ["keep-alive"]);
    assert!(idle.data.is_none());
    let stopping = std::thread::spawn(move || {
        let out = d.signal_and_wait(libc::SIGTERM);
        assert!(out.status.success(), "{out:?}");
    });
    // The terminating chunk: `None`, not an error or a hang.
    loop {
        match s.next_message() {
            Ok(Some(m)) => assert_eq!(m.comments, ["keep-alive"], "{m:?}"),
            Ok(None) => break,
            Err(e) => panic!("the stream broke instead of ending: {e}"),
        }
    }
    stopping.join().unwrap();
}

#[test]
fn a_slow_or_gone_reader_holds_up_no_one_and_later_reads_everything() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut slow = open(&d, "/events", &[]);
    // A reader that goes away at once.
    drop(open(&d, "/events", &[]));
    // Far more than the socket buffers hold: 300 events of about 4 KB each.
    let mut c = d.client();
    for i in 0..300 {
        let files: Vec<String> = (0..100)
            .map(|f| format!("src/some/longer/path/{i}/file{f:03}.ts"))
            .collect();
        c.ok(
            "intent.declare",
            json!({"sessionId": format!("s{i}"), "description": "d", "files": files}),
        );
        if i % 50 == 0 {
            assert_eq!(d.client().ok("ping", json!({})), "pong");
        }
    }
    let status = c.ok("daemon.status", json!({}));
    assert_eq!(status["counts"]["intents"], 300);
    // The slow reader gets all of it, in order, from the durable log: each new session's
    // session.started, then its intent.declared.
    let all = take(&mut slow, 600);
    for (i, m) in all.iter().enumerate() {
        assert_eq!(m.id.as_deref(), Some(format!("{}", i + 1).as_str()));
    }
    let declared: Vec<_> = all
        .iter()
        .filter(|m| m.event.as_deref() == Some("intent.declared"))
        .collect();
    assert_eq!(declared.len(), 300);
    assert!(
        declared
            .iter()
            .all(|m| m.json()["data"]["fileCount"] == 100)
    );
}

#[test]
fn a_peer_of_another_user_gets_no_stream() {
    let Some((uid, gid)) = crate::support::fake_peer::other_user() else {
        eprintln!("skipped: needs root to create a second local user");
        return;
    };
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let wit = repo.path().join(".wit");
    let script = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(20)
try:
    s.connect(sys.argv[1])
except PermissionError:
    sys.stdout.write("no access")
    sys.exit(0)
data = b""
try:
    s.sendall(b"GET /events HTTP/1.1\r\nHost: wit\r\n\r\n")
    while True:
        d = s.recv(65536)
        if not d:
            break
        data += d
except (BrokenPipeError, ConnectionResetError):
    pass
sys.stdout.write("connected;" + data.decode("latin-1"))
"#;
    // Make the socket reachable to the other user, so only SO_PEERCRED stands in the way.
    // The daemon makes `.wit/` private again when it checks it (its forecast's store
    // does at start), so the modes are set again until the other user reaches the socket.
    let mut out = None;
    for _ in 0..50 {
        std::fs::set_permissions(&wit, std::fs::Permissions::from_mode(0o711)).unwrap();
        std::fs::set_permissions(d.socket(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let mut dir = repo.path().to_owned();
        while let Some(parent) = dir.parent() {
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755));
            dir = parent.to_owned();
            if dir == std::env::temp_dir() || dir.as_os_str() == "/" {
                break;
            }
        }
        let run = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(d.socket())
            .uid(uid)
            .gid(gid)
            .output()
            .unwrap();
        if run.stdout != b"no access" {
            out = Some(run);
            break;
        }
    }
    let out = out.expect("the other user never reached the socket");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout, "connected;",
        "connected, then dropped without a byte: {out:?}"
    );
    let log = std::fs::read_to_string(wit.join("daemon.log")).unwrap_or_default();
    assert!(
        log.contains("refused a connection from another user"),
        "{log}"
    );
    // Our own stream still works.
    drop(open(&d, "/events", &[]));
}
