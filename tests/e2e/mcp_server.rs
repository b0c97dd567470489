//! `wit mcp` driven by a real MCP client: rmcp's client over a child process running the
//! built `wit` binary, on a temp git repository (the daemon is auto-started by the server).

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion, ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::support::cli::{CliRepo, wit_command};
use crate::support::repo::AUTH_TS;

/// Every tool the server must offer.
const TOOLS: &[&str] = &[
    "wit_check_contracts",
    "wit_conflicts",
    "wit_contract_propose",
    "wit_contract_query",
    "wit_contract_respond",
    "wit_contract_withdraw",
    "wit_declare",
    "wit_end_session",
    "wit_events",
    "wit_force_release",
    "wit_intent_update",
    "wit_lease",
    "wit_lease_release",
    "wit_lock",
    "wit_release",
    "wit_renew",
    "wit_status",
];

type Mcp = RunningService<RoleClient, ClientConfig>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn repo() -> CliRepo {
    let r = CliRepo::new();
    r.write("src/auth.ts", AUTH_TS);
    r
}

/// Starts `wit mcp` in `repo` (clean environment, `WIT_SESSION` = `session` when given) and
/// connects an MCP client named `client_name` speaking `version`.
async fn connect_with(
    repo: &CliRepo,
    session: Option<&str>,
    client_name: &str,
    version: ProtocolVersion,
) -> Mcp {
    let cmd = tokio::process::Command::from(wit_command(repo.path(), session, &["mcp"]));
    let transport = TokioChildProcess::new(cmd).expect("spawn wit mcp");
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(client_name, "1.0"),
    )
    .with_protocol_version(version)
    .serve(transport)
    .await
    .expect("MCP initialize")
}

/// [`connect_with`] with an `initialize` handshake, as today's MCP clients do.
async fn connect(repo: &CliRepo, session: Option<&str>, client_name: &str) -> Mcp {
    connect_with(
        repo,
        session,
        client_name,
        ProtocolVersion::LATEST_WITH_INITIALIZE,
    )
    .await
}

/// Calls `tool` with `args`; the result whatever `isError` says.
async fn call(mcp: &Mcp, tool: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    mcp.call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// Calls `tool`, which must succeed; its structured content.
#[track_caller]
fn ok(r: CallToolResult) -> Value {
    assert_eq!(r.is_error, Some(false), "tool failed: {r:#?}");
    r.structured_content.expect("structured content")
}

/// The text blocks of a result, joined.
fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn mcp_initializes_and_lists_every_tool_with_a_schema_and_the_status_resource() {
    let r = repo();
    runtime().block_on(async {
        let mcp = connect(&r, Some("agent-a"), "test-client").await;
        let info = mcp.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().map(|i| i.name.as_str()),
            Some("wit")
        );
        assert!(
            info.instructions
                .as_deref()
                .unwrap_or("")
                .contains("wit_lock"),
            "{info:?}"
        );
        let tools = mcp.list_all_tools().await.expect("tools/list");
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort_unstable();
        assert_eq!(names, TOOLS);
        for t in &tools {
            assert_eq!(
                t.input_schema.get("type"),
                Some(&json!("object")),
                "{}",
                t.name
            );
            let d = t.description.as_deref().unwrap_or("");
            assert!(
                d.len() > 80,
                "{} needs a description for a model: {d}",
                t.name
            );
        }
        let lock = tools
            .iter()
            .find(|t| t.name == "wit_lock")
            .expect("wit_lock");
        assert_eq!(lock.input_schema["required"], json!(["symbolPath"]));
        assert!(lock.input_schema["properties"]["ttlMs"].is_object());

        let resources = mcp.list_all_resources().await.expect("resources/list");
        assert!(
            resources.iter().any(|x| x.uri == "wit://status"),
            "{resources:?}"
        );
        mcp.cancel().await.expect("close");
    });
}

#[test]
fn mcp_every_tool_works_and_the_status_resource_reads() {
    let r = repo();
    runtime().block_on(async {
        let a = connect(&r, Some("agent-a"), "test-client").await;
        let b = connect(&r, Some("agent-b"), "test-client").await;

        let d = ok(call(
            &a,
            "wit_declare",
            json!({"description": "rate-limit login", "files": ["src/auth.ts"], "symbols": ["validateToken"]}),
        )
        .await);
        let intent = d["intentId"].as_str().expect("intentId").to_owned();
        assert_eq!(d["conflicts"]["items"], json!([]));

        let l = call(&a, "wit_lock", json!({"symbolPath": "src/auth.ts:validateToken", "ttlMs": 600000})).await;
        assert!(text(&l).contains("Locked src/auth.ts:validateToken until"), "{l:?}");
        let l = ok(l);
        assert_eq!(l["sessionId"], "agent-a");

        let s = ok(call(&a, "wit_status", json!({})).await);
        assert_eq!(s["session"], json!({"id": "agent-a", "source": "WIT_SESSION"}));
        assert_eq!(s["locks"][0]["symbolPath"], "src/auth.ts:validateToken");
        assert_eq!(s["intents"][0]["intentId"], intent.as_str());

        let u = ok(call(&a, "wit_intent_update", json!({"intentId": &intent[..8], "status": "active"})).await);
        assert_eq!(u["status"], "active");

        let p = ok(call(&a, "wit_contract_propose", json!({"symbolPath": "src/auth.ts:decode"})).await);
        let contract = p["contractId"].as_str().expect("contractId").to_owned();
        let self_accept = call(&a, "wit_contract_respond", json!({"contractId": &contract, "accept": true})).await;
        assert_eq!(self_accept.is_error, Some(true));
        assert!(text(&self_accept).starts_with("SELF_ACCEPT_NOT_ALLOWED: "), "{self_accept:?}");
        let acc = ok(call(&b, "wit_contract_respond", json!({"contractId": &contract, "accept": true})).await);
        assert_eq!(acc["status"], "accepted");
        let q = ok(call(&b, "wit_contract_query", json!({"status": "accepted"})).await);
        assert_eq!(q["contracts"][0]["contractId"], contract.as_str());

        let c = ok(call(&a, "wit_check_contracts", json!({})).await);
        assert_eq!(c["violations"], json!([]));
        assert_eq!(c["checked"], 1);
        r.write("src/auth.ts", &AUTH_TS.replace("decode(token: string)", "decode(token: number)"));
        let c = call(&a, "wit_check_contracts", json!({"files": ["src/auth.ts"]})).await;
        assert!(text(&c).contains("1 contract violation"), "{c:?}");
        assert_eq!(ok(c)["violations"][0]["contractId"], contract.as_str());

        let w = ok(call(&a, "wit_contract_withdraw", json!({"contractId": &contract, "reason": "signature changes in this branch"})).await);
        assert_eq!(w["retired"]["reason"], "signature changes in this branch");

        let rel = call(&a, "wit_release", json!({"symbolPath": "src/auth.ts:validateToken"})).await;
        assert!(text(&rel).contains("Released src/auth.ts:validateToken."), "{rel:?}");
        ok(rel);
        ok(call(&a, "wit_intent_update", json!({"intentId": &intent, "status": "resolved"})).await);

        let res = a
            .read_resource(ReadResourceRequestParams::new("wit://status"))
            .await
            .expect("resources/read");
        let ResourceContents::TextResourceContents { text, mime_type, .. } = &res.contents[0] else {
            panic!("text contents expected: {res:?}")
        };
        assert_eq!(mime_type.as_deref(), Some("application/json"));
        let s: Value = serde_json::from_str(text).expect("status JSON");
        assert_eq!(s["session"]["id"], "agent-a");
        assert_eq!(s["locks"], json!([]));
        assert_eq!(s["intents"], json!([]), "the resolved intent is no longer listed");
        assert!(s["contracts"].is_array());

        let missing = a.read_resource(ReadResourceRequestParams::new("wit://nope")).await;
        assert!(missing.is_err(), "{missing:?}");
        a.cancel().await.expect("close");
        b.cancel().await.expect("close");
    });
}

#[test]
fn mcp_lock_conflict_between_two_client_identities_is_a_tool_error_with_its_data() {
    let r = repo();
    runtime().block_on(async {
        // No WIT_SESSION, the same client program twice: two identities all the same.
        let a = connect(&r, None, "same-agent").await;
        let b = connect_with(&r, None, "same-agent", ProtocolVersion::LATEST).await;
        let id_a = ok(call(&a, "wit_status", json!({})).await)["session"].clone();
        let id_b = ok(call(&b, "wit_status", json!({})).await)["session"].clone();
        let (id_a, id_b) = (
            id_a["id"].as_str().expect("a's id").to_owned(),
            id_b["id"].as_str().expect("b's id").to_owned(),
        );
        assert!(id_a.starts_with("same-agent-") && id_b.starts_with("same-agent-"));
        assert_ne!(id_a, id_b, "two servers must never share an identity");

        ok(call(
            &a,
            "wit_lock",
            json!({"symbolPath": "src/auth.ts:validateToken"}),
        )
        .await);
        let conflict = call(
            &b,
            "wit_lock",
            json!({"symbolPath": "src/auth.ts:validateToken"}),
        )
        .await;
        assert_eq!(conflict.is_error, Some(true), "{conflict:?}");
        let t = text(&conflict);
        assert!(
            t.starts_with(&format!(
                "LOCK_CONFLICT: src/auth.ts:validateToken is locked by {id_a} until "
            )),
            "{t}"
        );
        let e = &conflict
            .structured_content
            .as_ref()
            .expect("structured error")["error"];
        assert_eq!(e["code"], -32000);
        assert_eq!(e["message"], "LOCK_CONFLICT");
        assert_eq!(e["data"]["heldBy"], id_a.as_str());
        assert!(
            e["data"]["expiresAt"]
                .as_str()
                .is_some_and(|s| s.ends_with('Z')),
            "{e}"
        );
        assert!(
            e["data"]["explanation"]
                .as_str()
                .is_some_and(|s| s.contains("retry later"))
        );

        // B may not release A's lock.
        let steal = call(
            &b,
            "wit_release",
            json!({"symbolPath": "src/auth.ts:validateToken"}),
        )
        .await;
        assert!(text(&steal).starts_with("LOCK_NOT_HELD: "), "{steal:?}");

        // Bad requests are answered and the server keeps serving.
        let unknown = b.call_tool(CallToolRequestParams::new("wit_nope")).await;
        assert!(unknown.is_err(), "{unknown:?}");
        let bad_args = b
            .call_tool(
                CallToolRequestParams::new("wit_lock").with_arguments(
                    json!({"symbolPath": 7})
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                ),
            )
            .await;
        assert!(
            bad_args.as_ref().is_err() || bad_args.as_ref().is_ok_and(|r| r.is_error == Some(true)),
            "{bad_args:?}"
        );
        let invalid = call(&b, "wit_lock", json!({"symbolPath": "no-colon"})).await;
        assert!(
            text(&invalid).starts_with("INVALID_REQUEST: "),
            "{invalid:?}"
        );
        let s = ok(call(&b, "wit_status", json!({})).await);
        assert_eq!(s["locks"][0]["sessionId"], id_a.as_str());
        a.cancel().await.expect("close");
        b.cancel().await.expect("close");
    });
}

#[test]
fn mcp_refuses_to_guess_an_identity() {
    let r = repo();
    runtime().block_on(async {
        let mcp = connect(&r, None, "").await;
        let l = call(
            &mcp,
            "wit_lock",
            json!({"symbolPath": "src/auth.ts:validateToken"}),
        )
        .await;
        assert_eq!(l.is_error, Some(true));
        assert!(text(&l).contains("set WIT_SESSION"), "{l:?}");
        // Status still works, and says why there is no session.
        let s = ok(call(&mcp, "wit_status", json!({})).await);
        assert_eq!(s["session"], Value::Null);
        assert!(
            s["sessionProblem"]
                .as_str()
                .is_some_and(|p| p.contains("WIT_SESSION"))
        );
        mcp.cancel().await.expect("close");
    });
}

/// Not a timing assertion: prints the MCP round-trip latency of wit_lock and wit_release
/// (client → `wit mcp` → daemon and back), as the performance notes report it.
#[test]
fn mcp_tool_call_latency() {
    let r = repo();
    runtime().block_on(async {
        let mcp = connect(&r, Some("agent-a"), "bench").await;
        // The first call starts the daemon; not measured.
        ok(call(&mcp, "wit_status", json!({})).await);
        let mut lock = Vec::new();
        let mut release = Vec::new();
        for _ in 0..200 {
            let t = Instant::now();
            ok(call(&mcp, "wit_lock", json!({"symbolPath": "src/auth.ts:validateToken"})).await);
            lock.push(t.elapsed());
            let t = Instant::now();
            ok(call(&mcp, "wit_release", json!({"symbolPath": "src/auth.ts:validateToken"})).await);
            release.push(t.elapsed());
        }
        let pct = |v: &mut Vec<Duration>, p: usize| {
            v.sort_unstable();
            v[(v.len() * p / 100).min(v.len() - 1)]
        };
        eprintln!(
            "MCP tool-call latency over 200 calls each: wit_lock p50 {:?} p95 {:?}; wit_release p50 {:?} p95 {:?}",
            pct(&mut lock, 50),
            pct(&mut lock, 95),
            pct(&mut release, 50),
            pct(&mut release, 95)
        );
        mcp.cancel().await.expect("close");
    });
}

/// A client that forwards `notifications/resources/updated` to a channel.
struct Notified {
    updated: tokio::sync::mpsc::UnboundedSender<String>,
}

impl rmcp::ClientHandler for Notified {
    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let _ = self.updated.send(params.uri);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("watcher", "1.0"),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

#[test]
fn mcp_status_subscribers_are_notified_of_changes_and_wit_events_returns_the_log() {
    let r = repo();
    runtime().block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let cmd = tokio::process::Command::from(wit_command(r.path(), Some("watcher"), &["mcp"]));
        let transport = TokioChildProcess::new(cmd).expect("spawn wit mcp");
        let watcher = Notified { updated: tx }
            .serve(transport)
            .await
            .expect("initialize");
        #[allow(deprecated)]
        watcher
            .peer()
            .subscribe(rmcp::model::SubscribeRequestParams::new("wit://status"))
            .await
            .expect("subscribe");
        // Another agent changes something: the subscriber hears of it, with no polling.
        r.wit(Some("other"), &["lock", "src/auth.ts:validateToken"])
            .ok();
        let uri = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("a notification")
            .expect("the channel is open");
        assert_eq!(uri, "wit://status");

        let mcp = connect(&r, Some("a"), "agent").await;
        let v = ok(call(&mcp, "wit_events", json!({"since": 0})).await);
        assert_eq!(v["events"][0]["kind"], "session.started", "{v}");
        assert_eq!(v["events"][1]["kind"], "lock.acquired", "{v}");
        assert_eq!(v["events"][1]["sessionId"], "other", "{v}");
        let next = v["next"].clone();
        // Liveness tools: renew needs the lock, force-release takes another's, end-session.
        let renew = call(
            &mcp,
            "wit_renew",
            json!({"symbolPath": "src/auth.ts:validateToken"}),
        )
        .await;
        assert_eq!(
            renew.is_error,
            Some(true),
            "a's renew of other's lock: LOCK_NOT_HELD"
        );
        let forced = ok(call(
            &mcp,
            "wit_force_release",
            json!({"symbolPath": "src/auth.ts:validateToken", "reason": "other left"}),
        )
        .await);
        assert_eq!(forced["formerHolder"], "other");
        ok(call(
            &mcp,
            "wit_lock",
            json!({"symbolPath": "src/auth.ts:validateToken"}),
        )
        .await);
        ok(call(
            &mcp,
            "wit_renew",
            json!({"symbolPath": "src/auth.ts:validateToken", "ttlMs": 600000}),
        )
        .await);
        // Leases: an exclusive lease over the file, then released by id prefix.
        let lease = ok(call(
            &mcp,
            "wit_lease",
            json!({"paths": ["src/"], "reason": "restructuring"}),
        )
        .await);
        assert_eq!(lease["paths"], json!(["src/**"]), "{lease}");
        let prefix = lease["leaseId"].as_str().unwrap()[..8].to_owned();
        let released = ok(call(&mcp, "wit_lease_release", json!({"leaseId": prefix})).await);
        assert_eq!(released["released"], json!([lease["leaseId"]]));
        ok(call(
            &mcp,
            "wit_lease",
            json!({"paths": ["docs/*.md"], "shared": true}),
        )
        .await);
        let ended = ok(call(&mcp, "wit_end_session", json!({})).await);
        assert_eq!(
            ended["releasedLeases"].as_array().unwrap().len(),
            1,
            "{ended}"
        );
        assert_eq!(ended["releasedLocks"], json!(["src/auth.ts:validateToken"]));
        let later = ok(call(&mcp, "wit_events", json!({"since": next, "timeoutMs": 10})).await);
        let kinds = crate::support::events::kinds(&later);
        assert_eq!(
            kinds,
            [
                "lock.forced",
                "session.started",
                "lock.acquired",
                "lock.refreshed",
                "lease.acquired",
                "lease.released",
                "lease.acquired",
                "lock.released",
                "lease.released",
                "session.ended"
            ],
            "{later}"
        );
        mcp.cancel().await.ok();
        watcher.cancel().await.ok();
    });
}
