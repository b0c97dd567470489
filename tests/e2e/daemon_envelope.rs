//! The envelope validation order, params handling, HTTP-level errors, extensions.

use serde_json::{Value, json};

use crate::support::client::rpc_request;
use crate::support::daemon::Daemon;
use crate::support::repo::TempRepo;

fn post(d: &Daemon, body: &str) -> (u16, Value) {
    let resp = d.client().post_rpc_bytes(body.as_bytes());
    (resp.status, resp.json())
}

fn assert_envelope(resp: &Value) {
    assert_eq!(resp["jsonrpc"], "2.0", "{resp}");
    assert_eq!(resp["witVersion"], "1", "{resp}");
    assert!(
        resp.get("result").is_some() != resp.get("error").is_some(),
        "exactly one of result/error: {resp}"
    );
}

#[test]
fn ping_echoes_the_id_and_answers_pong() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let resp = d.client().post_json(&json!({
        "jsonrpc": "2.0", "witVersion": "1", "id": "abc-1", "method": "ping"
    }));
    assert_envelope(&resp);
    assert_eq!(resp["id"], "abc-1");
    assert_eq!(resp["result"], "pong");
}

#[test]
fn parse_error_is_first() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let (status, resp) = post(&d, "{not json");
    assert_eq!(status, 400);
    assert_envelope(&resp);
    assert_eq!(resp["id"], Value::Null);
    assert_eq!(resp["error"]["code"], -32700);
    assert_eq!(resp["error"]["message"], "PARSE_ERROR");
}

#[test]
fn malformed_envelopes_are_invalid_request_with_null_id() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let cases = [
        r#"[1, 2]"#,
        r#""ping""#,
        r#"42"#,
        // A non-object body cannot carry a witVersion, whatever it contains.
        r#"["witVersion", "2"]"#,
        r#"[{"jsonrpc":"2.0","witVersion":"2","id":"x","method":"ping"}]"#,
        r#"{"jsonrpc":"1.0","witVersion":"1","id":"x","method":"ping"}"#,
        r#"{"witVersion":"1","id":"x","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","witVersion":"1","id":7,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","witVersion":"1","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","witVersion":"1","id":"x","method":5}"#,
        r#"{"jsonrpc":"2.0","witVersion":"1","id":"x"}"#,
        // witVersion present but not a string: step 2 answers INVALID_REQUEST.
        r#"{"jsonrpc":"2.0","witVersion":2,"id":7,"method":"ping"}"#,
    ];
    for body in cases {
        let (status, resp) = post(&d, body);
        assert_eq!(status, 400, "{body}");
        assert_envelope(&resp);
        assert_eq!(resp["id"], Value::Null, "{body}");
        assert_eq!(resp["error"]["code"], -32600, "{body}: {resp}");
        assert_eq!(resp["error"]["message"], "INVALID_REQUEST", "{body}");
    }
    // The offending envelope field is named.
    let (_, resp) = post(
        &d,
        r#"{"jsonrpc":"2.0","witVersion":"1","id":7,"method":"ping"}"#,
    );
    assert!(
        resp["error"]["data"]["fieldErrors"]["id"].is_array(),
        "{resp}"
    );
}

#[test]
fn a_bad_envelope_with_another_string_wit_version_is_version_mismatch() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let (status, resp) = post(
        &d,
        r#"{"jsonrpc":"1.0","witVersion":"2","id":"x","method":"ping"}"#,
    );
    assert_eq!(status, 400);
    assert_eq!(resp["error"]["code"], -32001, "{resp}");
    assert_eq!(resp["error"]["message"], "VERSION_MISMATCH");
    assert_eq!(
        resp["error"]["data"],
        json!({"expected": "1", "received": "2"})
    );
    let (_, resp) = post(
        &d,
        r#"{"jsonrpc":"2.0","witVersion":"0.9","id":3,"method":"ping"}"#,
    );
    assert_eq!(resp["error"]["message"], "VERSION_MISMATCH");
    assert_eq!(resp["error"]["data"]["received"], "0.9");
}

#[test]
fn wrong_or_missing_wit_version_is_version_mismatch_with_the_id() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let cases = [
        (r#"{"jsonrpc":"2.0","id":"m","method":"ping"}"#, Value::Null),
        (
            r#"{"jsonrpc":"2.0","witVersion":"2","id":"m","method":"ping"}"#,
            json!("2"),
        ),
        (
            r#"{"jsonrpc":"2.0","witVersion":1,"id":"m","method":"ping"}"#,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","witVersion":null,"id":"m","method":"ping"}"#,
            Value::Null,
        ),
        // Version is checked before the method exists.
        (
            r#"{"jsonrpc":"2.0","witVersion":"3","id":"m","method":"no.such"}"#,
            json!("3"),
        ),
    ];
    for (body, received) in cases {
        let (status, resp) = post(&d, body);
        assert_eq!(status, 400, "{body}");
        assert_envelope(&resp);
        assert_eq!(resp["id"], "m", "{body}");
        assert_eq!(resp["error"]["code"], -32001, "{body}");
        assert_eq!(resp["error"]["message"], "VERSION_MISMATCH");
        assert_eq!(
            resp["error"]["data"],
            json!({"expected": "1", "received": received})
        );
    }
}

#[test]
fn unknown_method_is_method_not_found_before_params_are_looked_at() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    for params in [None, Some(json!([1])), Some(json!({"x": 1}))] {
        let mut c = d.client();
        let req = rpc_request("lock.steal", params);
        let resp = c.post_rpc_bytes(req.to_string().as_bytes());
        assert_eq!(resp.status, 200);
        let resp = resp.json();
        assert_envelope(&resp);
        assert_eq!(resp["id"], req["id"]);
        assert_eq!(resp["error"]["code"], -32601);
        assert_eq!(resp["error"]["message"], "METHOD_NOT_FOUND");
    }
}

#[test]
fn omitted_params_are_an_empty_object_and_non_object_params_are_refused() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    // Methods without required params work without params.
    for method in ["ping", "lock.query", "intent.query", "contract.query"] {
        let resp = c.post_json(&rpc_request(method, None));
        assert!(resp.get("result").is_some(), "{method}: {resp}");
    }
    // Methods with required params name every missing one.
    let resp = c.post_json(&rpc_request("register", None));
    assert_eq!(resp["error"]["code"], -32600);
    assert_eq!(resp["error"]["message"], "INVALID_REQUEST");
    let fields = &resp["error"]["data"]["fieldErrors"];
    assert!(
        fields["name"].is_array() && fields["sessionId"].is_array(),
        "{resp}"
    );
    let resp = c.post_json(&rpc_request("intent.declare", None));
    let fields = &resp["error"]["data"]["fieldErrors"];
    for f in ["sessionId", "description", "files"] {
        assert!(fields[f].is_array(), "{f} not named: {resp}");
    }
    assert!(
        fields.get("symbols").is_none(),
        "symbols is optional: {resp}"
    );
    // Non-object params are refused, even for ping.
    for params in [
        json!([]),
        json!("x"),
        json!(3),
        json!(null),
        json!(["a", "b"]),
    ] {
        for method in ["ping", "lock.query", "register"] {
            let resp = c.post_json(&rpc_request(method, Some(params.clone())));
            assert_eq!(resp["error"]["code"], -32600, "{method} {params}: {resp}");
            assert_eq!(resp["error"]["message"], "INVALID_REQUEST");
        }
    }
}

#[test]
fn parameter_errors_name_each_offending_field() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "register",
            json!({"name": "", "sessionId": 3}),
            vec!["name", "sessionId"],
        ),
        (
            "lock.acquire",
            json!({"symbolPath": "no-colon", "sessionId": "s"}),
            vec!["symbolPath"],
        ),
        (
            "lock.acquire",
            json!({"symbolPath": "a.ts:f", "sessionId": "s", "ttlMs": 0}),
            vec!["ttlMs"],
        ),
        (
            "lock.acquire",
            json!({"symbolPath": "a.ts:f", "sessionId": "s", "ttlMs": -5}),
            vec!["ttlMs"],
        ),
        (
            "lock.acquire",
            json!({"symbolPath": "a.ts:f", "sessionId": "s", "ttlMs": 1.5}),
            vec!["ttlMs"],
        ),
        (
            "lock.acquire",
            json!({"symbolPath": "a.ts:f", "sessionId": "s", "ttlMs": "100"}),
            vec!["ttlMs"],
        ),
        (
            "lock.release",
            json!({"symbolPath": ""}),
            vec!["sessionId", "symbolPath"],
        ),
        ("lock.query", json!({"sessionId": 1}), vec!["sessionId"]),
        (
            "intent.declare",
            json!({"sessionId": "s", "description": "d", "files": []}),
            vec!["files"],
        ),
        (
            "intent.declare",
            json!({"sessionId": "s", "description": "", "files": ["a.ts", ""]}),
            vec!["description", "files"],
        ),
        (
            "intent.declare",
            json!({"sessionId": "s", "description": "d", "files": "a.ts", "symbols": "f"}),
            vec!["files", "symbols"],
        ),
        (
            "intent.update",
            json!({"intentId": "i", "sessionId": "s", "status": "declared"}),
            vec!["status"],
        ),
        (
            "intent.update",
            json!({"intentId": "i", "sessionId": "s", "status": "done"}),
            vec!["status"],
        ),
        ("intent.query", json!({"file": 3}), vec!["file"]),
        (
            "contract.propose",
            json!({"sessionId": "s", "symbolPath": "nocolon"}),
            vec!["symbolPath"],
        ),
        (
            "contract.respond",
            json!({"contractId": "c", "sessionId": "s", "accept": "yes"}),
            vec!["accept"],
        ),
        (
            "contract.query",
            json!({"symbolPath": []}),
            vec!["symbolPath"],
        ),
        (
            "check-contracts",
            json!({"files": [{"path": "a.ts"}]}),
            vec!["files"],
        ),
        (
            "check-contracts",
            json!({"files": [{"path": "", "content": "x"}]}),
            vec!["files"],
        ),
        ("check-contracts", json!({}), vec!["files"]),
    ];
    for (method, params, fields) in cases {
        let err = c.err(method, params.clone());
        assert_eq!(err["code"], -32600, "{method} {params}: {err}");
        assert_eq!(err["message"], "INVALID_REQUEST");
        let named: Vec<&str> = err["data"]["fieldErrors"]
            .as_object()
            .unwrap_or_else(|| panic!("no fieldErrors: {err}"))
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(named, fields, "{method} {params}: {err}");
    }
    let err = c.err(
        "intent.declare",
        json!({"sessionId": "s", "description": "d", "files": []}),
    );
    assert_eq!(
        err["data"]["fieldErrors"]["files"],
        json!(["must contain at least 1 item"])
    );
}

#[test]
fn other_paths_and_http_methods_get_clean_http_errors() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    let resp = c.request("GET", "/rpc", b"").unwrap();
    assert_eq!(resp.status, 405);
    assert_eq!(resp.header("allow"), Some("POST"));
    let resp = c.request("POST", "/", b"{}").unwrap();
    assert_eq!(resp.status, 404);
    let resp = c.request("PUT", "/rpc/extra", b"{}").unwrap();
    assert_eq!(resp.status, 404);
    // The same connection still serves RPC afterwards.
    assert_eq!(c.ok("ping", json!({})), "pong");
}

#[test]
fn a_wrong_path_or_method_with_a_big_body_gets_its_http_error_not_a_broken_pipe() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    // Larger than the socket buffers: the client is still writing when the daemon decides.
    let body = vec![b'x'; 512 * 1024];
    for (method, path, status) in [("GET", "/rpc", 405), ("POST", "/nope", 404)] {
        let resp = c
            .request(method, path, &body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert_eq!(resp.status, status, "{method} {path}");
    }
    assert_eq!(
        c.ok("ping", json!({})),
        "pong",
        "the connection still serves"
    );
}

#[test]
fn one_keep_alive_connection_carries_many_requests() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    for i in 0..100 {
        let req = rpc_request("ping", None);
        let resp = c.post_json(&req);
        assert_eq!(resp["id"], req["id"], "request {i}");
        assert_eq!(resp["result"], "pong");
    }
}

#[test]
fn rpc_discover_serves_v1_and_the_extensions_as_one_document() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let doc = d.client().ok("rpc.discover", json!({}));
    let v1: Value = serde_json::from_str(include_str!("../../openrpc.json")).unwrap();
    let ext: Value = serde_json::from_str(include_str!("../../openrpc.extensions.json")).unwrap();
    assert_eq!(doc["info"], v1["info"]);
    let mut expected: Vec<Value> = v1["methods"].as_array().unwrap().clone();
    expected.extend(ext["methods"].as_array().unwrap().iter().cloned());
    assert_eq!(
        doc["methods"],
        Value::Array(expected),
        "every v1 method unchanged, then the extensions"
    );
    // The root copy of the v1 contract is the shared one, byte for byte.
    if let Ok(shared) = std::fs::read("../../shared/openrpc.json") {
        assert_eq!(
            shared,
            include_bytes!("../../openrpc.json"),
            "openrpc.json drifted from shared/"
        );
    }
}

#[test]
fn daemon_status_reports_process_counts_and_analyzers() {
    let repo = TempRepo::new();
    let d = Daemon::start(repo.path());
    let mut c = d.client();
    c.ok(
        "lock.acquire",
        json!({"symbolPath": "a.ts:f", "sessionId": "s"}),
    );
    c.ok(
        "intent.declare",
        json!({"sessionId": "s", "description": "d", "files": ["a.ts"]}),
    );
    let st = c.ok("daemon.status", json!({}));
    assert_eq!(st["pid"], d.pid());
    assert!(st["version"].is_string());
    assert!(st["startedAt"].as_i64().unwrap() > 1_600_000_000_000);
    assert!(st["uptimeMs"].as_i64().unwrap() >= 0);
    assert_eq!(st["root"], repo.path().to_str().unwrap());
    assert_eq!(st["socket"], d.socket().to_str().unwrap());
    assert_eq!(
        st["counts"],
        json!({"locks": 1, "intents": 1, "contracts": 0, "leases": 0, "lockWaiters": 0})
    );
    let analyzers = st["analyzers"].as_array().unwrap();
    for a in analyzers {
        assert!(
            a["id"].is_string() && a["extensions"].is_array() && a["origin"].is_string(),
            "{a}"
        );
    }
    let exts: Vec<&str> = analyzers
        .iter()
        .flat_map(|a| a["extensions"].as_array().unwrap())
        .filter_map(Value::as_str)
        .collect();
    for e in ["ts", "tsx", "js", "py"] {
        assert!(exts.contains(&e), "no analyzer for .{e}: {st}");
    }
}
