//! `wit mcp`: an MCP server on stdio (built on `rmcp`) for agents that speak MCP.
//!
//! A thin front-end: every tool is one call to the repository's daemon (or the same few
//! calls the matching CLI command makes), over the daemon's socket, like the CLI. The
//! daemon stays the one source of truth and no method's logic lives here. The daemon is
//! started when none runs, as by any command.
//!
//! - Tools: [`tools`] (`wit_declare`, `wit_lock`, `wit_release`, `wit_status`, …), one per
//!   protocol method.
//! - Resource: `wit://status`, the JSON of `wit status --json` plus the server's identity.
//! - Errors: a daemon error is a tool error (`isError: true`) whose structured content is
//!   the CLI's `--json` error document (`{"error":{"code","message","data"}}`, `data`
//!   carrying e.g. `heldBy` and `expiresAt`, plus the CLI's `explanation`); its text is
//!   `LOCK_CONFLICT: <explanation>`. Only requests the server cannot route (unknown tool,
//!   arguments not matching the schema) are protocol errors. A bad request never ends the
//!   server.
//! - Identity: see [`identity`].
//! - Notifications: a client that subscribes to `wit://status` (`resources/subscribe`)
//!   gets `notifications/resources/updated` whenever the daemon's event log
//!   (`events.poll`) has something new — a lock, an intent, a contract changed — and reads
//!   the resource again. The server follows the log with one long poll, no timer. The
//!   newer `subscriptions/listen` of protocol 2026-07-28 is not offered yet. The tool
//!   `wit_events` returns the log itself.

pub mod identity;
pub mod tools;

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, SubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool_handler};
use serde_json::{Value, json};

use crate::client::Client;
use crate::commands::status::{SessionInfo, snapshot};
use crate::context::{Ctx, failure};
use crate::exit::{CmdResult, Failure};
use crate::output::Style;
use crate::root::Repo;
use identity::Identity;

/// Follows the daemon's event log and tells `peer` that the status changed after each
/// batch of new events. Ends when a notification cannot be delivered (the client left).
async fn follow_events(repo: Repo, peer: rmcp::service::Peer<RoleServer>, since: Value) {
    let mut since = since;
    loop {
        let Ok((mut client, _)) = crate::autostart::ensure_running(&repo).await else {
            return;
        };
        client.set_timeout(std::time::Duration::from_secs(90));
        loop {
            let params = json!({"since": since, "timeoutMs": 60_000});
            let Ok(r) = client.call_value("events.poll", params).await else {
                break; // the daemon went away: reconnect (which restarts it)
            };
            let new = r["events"].as_array().is_some_and(|e| !e.is_empty());
            since = r["next"].clone();
            if new
                && peer
                    .notify_resource_updated(rmcp::model::ResourceUpdatedNotificationParam::new(
                        STATUS_URI,
                    ))
                    .await
                    .is_err()
            {
                return;
            }
        }
    }
}

/// The URI of the status resource.
pub const STATUS_URI: &str = "wit://status";

/// What the server tells the model about itself at `initialize`.
const INSTRUCTIONS: &str = "wit coordinates AI agents editing one repository. Before \
    changing code: wit_status to see who works on what, wit_declare your intent (files and \
    symbols), wit_lock each function you will edit (symbolPath `file:name`, file relative \
    to the repository root), re-read the file, edit, then wit_release and \
    wit_intent_update to resolved. A LOCK_CONFLICT means another agent holds the symbol: \
    do not edit it; work on something else and retry after its expiresAt, or coordinate \
    with the holder. To fix a function signature others rely on, wit_contract_propose it; \
    another agent accepts it with wit_contract_respond; commits breaking an accepted \
    contract are refused (check with wit_check_contracts). When agents work in several git \
    worktrees, wit_conflicts forecasts where their uncommitted edits would collide.";

/// Serves MCP on stdin/stdout until the client closes it.
pub async fn run(ctx: &Ctx) -> CmdResult {
    let server = WitMcp::new(ctx.repo.clone());
    let service = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Failure::other(format!("starting the MCP server: {e}")))?;
    // The end of the session (stdin closed, or the client quit) is the normal way out.
    service
        .waiting()
        .await
        .map_err(|e| Failure::other(format!("MCP server: {e}")))?;
    Ok(())
}

/// The MCP server of one repository.
#[derive(Clone)]
pub struct WitMcp {
    inner: Arc<Inner>,
    tool_router: ToolRouter<Self>,
}

/// The state shared by all requests.
struct Inner {
    /// The repository served.
    repo: Repo,
    /// Who this server acts as.
    identity: Identity,
}

impl WitMcp {
    /// A server for `repo`; reads its identity from the environment now.
    pub fn new(repo: Repo) -> WitMcp {
        let identity = Identity::new(&repo);
        WitMcp {
            inner: Arc::new(Inner { repo, identity }),
            tool_router: Self::tool_router(),
        }
    }

    /// A connection to the daemon, starting it when none runs. One connection per tool
    /// call: a reconnect costs well under a millisecond on a Unix socket, and it means a
    /// restarted daemon never meets a stale keep-alive connection (retrying a call whose
    /// connection broke could apply it twice). Starting a daemon holds `.wit/startup.lock`
    /// (a blocking flock) for at most the daemon's ready timeout; only the first call of a
    /// session, or one after the daemon stopped, can meet it.
    async fn client(&self) -> CmdResult<Client> {
        let (client, started) = crate::autostart::ensure_running(&self.inner.repo).await?;
        if started {
            // stderr is the MCP stdio transport's log channel.
            eprintln!(
                "wit mcp: started the daemon for {}",
                self.inner.repo.root.display()
            );
        }
        Ok(client)
    }

    /// The session id the tools act as (see [`identity`]).
    fn session(&self, ctx: &RequestContext<RoleServer>) -> CmdResult<String> {
        let name = ctx.client_info().map(|i| i.name);
        self.inner
            .identity
            .resolve(name.as_deref())
            .map(|(id, _)| id)
    }

    /// Calls `method` and returns its raw result; errors are explained about `subject`.
    async fn call(
        &self,
        client: &mut Client,
        method: &str,
        params: Value,
        subject: &str,
    ) -> CmdResult<Value> {
        client
            .call_value(method, params)
            .await
            .map_err(|e| failure(e, subject))
    }

    /// The status snapshot (the same calls as `wit status`) with this server's identity.
    async fn status(&self, ctx: &RequestContext<RoleServer>) -> CmdResult<Value> {
        let mut client = self.client().await?;
        let cmd = Ctx {
            repo: self.inner.repo.clone(),
            json: true,
            style: Style::plain(),
        };
        let mut snap = snapshot(&cmd, &mut client, None).await?;
        let name = ctx.client_info().map(|i| i.name);
        let identity = self.inner.identity.resolve(name.as_deref());
        snap.session = identity.as_ref().ok().map(|(id, source)| SessionInfo {
            id: id.clone(),
            source,
        });
        let mut v = serde_json::to_value(&snap).map_err(Failure::other)?;
        if let Err(f) = identity {
            v["sessionProblem"] = json!(f.human());
        }
        Ok(v)
    }

    /// Makes a repository path of a path a model gave: an absolute path inside the
    /// repository becomes relative to its root; a relative one is taken as relative to
    /// the root already (the server's working directory does not matter). The daemon
    /// validates and normalizes the result.
    fn repo_path(&self, path: &str) -> CmdResult<String> {
        let path = path.trim();
        if std::path::Path::new(path).is_absolute() {
            self.inner.repo.relative(path)
        } else {
            Ok(path.to_owned())
        }
    }

    /// [`Self::repo_path`] for the file part of a `file:name` symbol path.
    fn symbol_path(&self, symbol: &str) -> CmdResult<String> {
        let symbol = symbol.trim();
        match symbol.split_once(':') {
            Some((file, name)) => Ok(format!("{}:{name}", self.repo_path(file)?)),
            // The daemon answers INVALID_REQUEST naming the field.
            None => Ok(symbol.to_owned()),
        }
    }
}

/// A successful tool result: a sentence for the model (when there is one worth saying),
/// then the daemon's JSON answer, which is also the structured content.
pub fn success(summary: Option<String>, value: Value) -> CallToolResult {
    let mut r = CallToolResult::structured(value);
    if let Some(s) = summary {
        r.content.insert(0, ContentBlock::text(s));
    }
    r
}

/// A failed tool call as an MCP tool error: text `NAME: explanation`, structured content
/// the CLI's `--json` error document (code, name, `data` with the explanation).
pub fn tool_error(f: &Failure) -> CallToolResult {
    let doc = f.json();
    let name = doc["error"]["message"]
        .as_str()
        .unwrap_or("ERROR")
        .to_owned();
    // Unescaped: JSON-RPC text is not a terminal, the client shows it as it wants.
    let explanation = match f {
        Failure::Rpc { explanation, .. } => explanation.clone(),
        other => other.human(),
    };
    let mut r = CallToolResult::structured_error(doc);
    r.content
        .insert(0, ContentBlock::text(format!("{name}: {explanation}")));
    r
}

/// Turns a tool's outcome into its result (tool errors are results, not protocol errors).
pub fn finish(r: CmdResult<CallToolResult>) -> Result<CallToolResult, ErrorData> {
    Ok(r.unwrap_or_else(|f| tool_error(&f)))
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for WitMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(
            Implementation::new("wit", env!("CARGO_PKG_VERSION"))
                .with_title("wit: coordination for AI coding agents"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    #[allow(deprecated)] // resources/subscribe: what today's clients send.
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if request.uri != STATUS_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {} (wit serves {STATUS_URI})", request.uri),
                None,
            ));
        }
        // Where the log ends now, read before answering: every change the client can cause
        // after its subscribe returned is then notified.
        let mut client = self.client().await.map_err(|f| {
            ErrorData::internal_error(format!("wit: {}", f.human()), Some(f.json()))
        })?;
        let now = self
            .call(
                &mut client,
                "events.poll",
                json!({"since": i64::MAX}),
                "events",
            )
            .await
            .map_err(|f| {
                ErrorData::internal_error(format!("wit: {}", f.human()), Some(f.json()))
            })?;
        let repo = self.inner.repo.clone();
        let peer = context.peer.clone();
        // One follower per subscription; it ends when the client goes away (a failed
        // notification) and survives a daemon restart (it reconnects).
        tokio::spawn(async move { follow_events(repo, peer, now["last"].clone()).await });
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(STATUS_URI, "status")
                .with_title("wit status")
                .with_description(
                    "Intents, locks (with time left) and contracts of the repository, and \
                     the session this server acts as: the JSON of `wit status --json`. \
                     Subscribe to be told when it changes.",
                )
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != STATUS_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {} (wit serves {STATUS_URI})", request.uri),
                None,
            ));
        }
        let v = self.status(&context).await.map_err(|f| {
            ErrorData::internal_error(format!("wit status: {}", f.human()), Some(f.json()))
        })?;
        let text = serde_json::to_string_pretty(&v)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, STATUS_URI).with_mime_type("application/json"),
        ])
        .into())
    }
}
