//! Hostile or broken clients never harm the daemon or other clients; the daemon never
//! reads outside the repository.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;

use serde_json::{Value, json};

use crate::support::client::{Client, rpc_request};
use crate::support::daemon::{Daemon, ping};
use crate::support::repo::{AUTH_TS, TempRepo};

#[test]
fn a_20_mb_body_gets_413_and_the_daemon_keeps_serving() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut bystander = d.client();
    assert_eq!(bystander.ok("ping", json!({})), "pong");

    let big = vec![b'x'; 20 * 1024 * 1024];
    let mut c = d.client();
    let head = format!(
        "POST /rpc HTTP/1.1\r\nHost: wit\r\nContent-Length: {}\r\n\r\n",
        big.len()
    );
    c.send_raw(head.as_bytes()).unwrap();
    // Write the body from another thread: the daemon answers without reading it all.
    let mut writer = c.stream().try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let _ = writer.write_all(&big);
    });
    let resp = c.read_response().unwrap();
    assert_eq!(resp.status, 413);
    let body = resp.json();
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["witVersion"], "1");
    assert_eq!(body["id"], Value::Null);
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(body["error"]["message"], "INVALID_REQUEST");
    assert_eq!(body["error"]["data"]["limitBytes"], 16 * 1024 * 1024);
    drop(c);
    sender.join().unwrap();

    // Chunked bodies (no Content-Length) are limited too.
    let mut c = d.client();
    c.send_raw(b"POST /rpc HTTP/1.1\r\nHost: wit\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    let mut writer = c.stream().try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let chunk = vec![b'y'; 1024 * 1024];
        for _ in 0..20 {
            let head = format!("{:x}\r\n", chunk.len());
            if writer.write_all(head.as_bytes()).is_err()
                || writer.write_all(&chunk).is_err()
                || writer.write_all(b"\r\n").is_err()
            {
                return;
            }
        }
        let _ = writer.write_all(b"0\r\n\r\n");
    });
    let resp = c.read_response().unwrap();
    assert_eq!(resp.status, 413);
    drop(c);
    sender.join().unwrap();

    assert_eq!(bystander.ok("ping", json!({})), "pong");
    assert!(ping(d.socket()));
}

#[test]
fn garbage_bytes_do_not_harm_other_clients() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut bystander = d.client();
    assert_eq!(bystander.ok("ping", json!({})), "pong");
    for garbage in [
        &b"\x00\xff\xfe garbage \r\n\r\n"[..],
        b"NOT-HTTP\r\n\r\n",
        b"POST /rpc HTTP/1.1\r\nContent-Length: banana\r\n\r\n",
        &[0u8; 4096][..],
    ] {
        let mut s = UnixStream::connect(d.socket()).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let _ = s.write_all(garbage);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out);
        assert!(out.is_empty() || text.starts_with("HTTP/1.1 4"), "{text}");
    }
    assert_eq!(bystander.ok("ping", json!({})), "pong");
    assert!(ping(d.socket()));
}

#[test]
fn a_client_disconnecting_mid_request_does_not_harm_others() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut bystander = d.client();
    bystander.ok(
        "lock.acquire",
        json!({"symbolPath": "a.ts:f", "sessionId": "s"}),
    );
    for partial in [
        &b"POST /rpc HTTP/1.1\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":"[..],
        b"POST /rpc HTTP/1.1\r\nHost: w",
        b"POST /rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc",
    ] {
        let mut s = UnixStream::connect(d.socket()).unwrap();
        s.write_all(partial).unwrap();
        drop(s);
    }
    // A full request whose response is never read.
    let mut s = UnixStream::connect(d.socket()).unwrap();
    let body = rpc_request("lock.query", None).to_string();
    write!(
        s,
        "POST /rpc HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    drop(s);

    assert_eq!(
        bystander
            .ok("lock.query", json!({}))
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let mut fresh = d.client();
    assert_eq!(fresh.ok("ping", json!({})), "pong");
}

#[test]
fn paths_escaping_the_root_are_never_read() {
    let repo = TempRepo::new().with_file("src/auth.ts", AUTH_TS);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.ts"),
        "export function secret(a: number): void { helper(); }\nexport function helper() {}\n",
    )
    .unwrap();
    repo.symlink(&outside.path().join("secret.ts"), "src/escape.ts");
    let d = Daemon::start(repo.path());
    let mut c: Client = d.client();
    let outside_rel = format!(
        "../{}/secret.ts",
        outside.path().file_name().unwrap().to_str().unwrap()
    );
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/escape.ts:helper", "sessionId": "A"}),
    );
    // `..` and absolute paths are refused before anything is read (security issue item 8).
    let absolute = format!("{}", outside.path().join("secret.ts").display());
    for file in [outside_rel.as_str(), absolute.as_str()] {
        let err = c.err(
            "intent.declare",
            json!({"sessionId": "B", "description": "d", "files": [file], "symbols": ["secret"]}),
        );
        assert!(
            err["data"]["fieldErrors"]["files"].is_array(),
            "{file}: {err}"
        );
        let err = c.err("intent.query", json!({"file": file}));
        assert!(
            err["data"]["fieldErrors"]["file"].is_array(),
            "{file}: {err}"
        );
        let err = c.err(
            "contract.propose",
            json!({"sessionId": "B", "symbolPath": format!("{file}:secret")}),
        );
        assert_eq!(err["message"], "INVALID_REQUEST", "{file}: {err}");
    }
    // A symlink escaping the root is never followed out of it.
    {
        let file = "src/escape.ts";
        // No range (the file was not read) and no DEP_CHAIN (no call graph from it).
        let r = c.ok(
            "intent.declare",
            json!({"sessionId": "B", "description": "d", "files": [file], "symbols": ["secret"]}),
        );
        assert_eq!(r["conflicts"]["items"], json!([]), "{file}: {r}");
        let rec = c
            .ok("intent.query", json!({"file": file}))
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["intentId"] == r["intentId"])
            .cloned()
            .unwrap();
        assert_eq!(rec["startByte"], Value::Null, "{file}");
        assert_eq!(rec["endByte"], Value::Null, "{file}");
        let err = c.err(
            "contract.propose",
            json!({"sessionId": "B", "symbolPath": format!("{file}:secret")}),
        );
        assert_eq!(err["message"], "SYMBOL_NOT_FOUND");
    }
    // Caller warnings never come from an escaping file either.
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/escape.ts:secret", "sessionId": "C"}),
    );
    let r = c.ok(
        "lock.acquire",
        json!({"symbolPath": "src/escape.ts:helper", "sessionId": "A"}),
    );
    assert_eq!(r["warnings"], json!([]));
}
