//! The tools of `wit mcp`: one per protocol method, each one daemon call (or the same few
//! calls as the matching CLI command). Descriptions are written for the model: when to
//! call the tool, what the answer means, what to do on a conflict.
//!
//! Paths are relative to the repository root (absolute paths inside it are accepted).

use std::collections::BTreeSet;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use wit_core::SymbolPath;
use wit_core::protocol::{CheckResult, ContractRecord, IntentDeclared, LockAcquired, StagedFile};

use super::{WitMcp, finish, success};
use crate::commands::check::{check_in_batches, describe_violations};
use crate::commands::declare::describe;
use crate::exit::{CmdResult, Failure};
use crate::forecast;
use crate::output::{Style, until};

/// `wit_declare` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeclareParams {
    /// What you are about to do, in one sentence, for the other agents.
    pub description: String,
    /// Files you will change, relative to the repository root (at least one).
    pub files: Vec<String>,
    /// Names (not paths) of the functions or methods you will change in those files.
    #[serde(default)]
    pub symbols: Vec<String>,
}

/// `wit_lock` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockParams {
    /// The symbol to lock: `file:name`, the file relative to the repository root, e.g.
    /// `src/auth.ts:validateToken` (a method: `src/store.py:Store.get`).
    pub symbol_path: String,
    /// How long the lock lasts, in milliseconds (default: the repository's, 30 minutes
    /// unless wit.toml says otherwise). Locking again refreshes it.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// When another session holds it, wait up to this many milliseconds for it (first come,
    /// first served; at most 60000 here) instead of getting LOCK_CONFLICT at once.
    #[serde(default)]
    pub wait_ms: Option<u64>,
}

/// `wit_release` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseParams {
    /// The symbol to release, `file:name`, as locked.
    pub symbol_path: String,
}

/// `wit_renew` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenewParams {
    /// The symbol, `file:name`, as locked.
    pub symbol_path: String,
    /// New time to live from now, in ms (default: the repository's lock TTL).
    #[serde(default)]
    pub ttl_ms: Option<u64>,
}

/// `wit_force_release` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForceReleaseParams {
    /// The locked symbol, `file:name`.
    pub symbol_path: String,
    /// Why the holder's lock must go (recorded in the audit log, shown to the holder).
    pub reason: String,
}

/// `wit_lease` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeaseParams {
    /// Patterns relative to the repository root: `src/auth/` (everything beneath),
    /// `**/*.sql`, `src/{a,b}.ts`, or plain files.
    pub paths: Vec<String>,
    /// Shared instead of exclusive: other shared leases may overlap it.
    #[serde(default)]
    pub shared: bool,
    /// Time to live in ms (default: the repository's lock TTL).
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// Why, shown to the other agents.
    #[serde(default)]
    pub reason: Option<String>,
}

/// `wit_lease_release` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeaseReleaseParams {
    /// The lease id (or a unique prefix); omitted: every lease you hold.
    #[serde(default)]
    pub lease_id: Option<String>,
}

/// No arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// Statuses an intent may be moved to.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IntentStatus {
    /// Work is under way.
    Active,
    /// Done.
    Resolved,
    /// Given up.
    Abandoned,
}

impl IntentStatus {
    fn as_str(self) -> &'static str {
        match self {
            IntentStatus::Active => "active",
            IntentStatus::Resolved => "resolved",
            IntentStatus::Abandoned => "abandoned",
        }
    }
}

/// `wit_intent_update` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IntentUpdateParams {
    /// The intent id wit_declare returned (any unique prefix of it works).
    pub intent_id: String,
    /// The new status: active (started), resolved (done) or abandoned (given up).
    pub status: IntentStatus,
}

/// `wit_contract_propose` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProposeParams {
    /// The function or method whose current signature becomes the contract: `file:name`.
    pub symbol_path: String,
}

/// `wit_contract_respond` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RespondParams {
    /// The contract id (any unique prefix of it works).
    pub contract_id: String,
    /// true to accept (commits breaking the signature are then refused), false to reject.
    pub accept: bool,
}

/// Contract statuses to filter on.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContractStatus {
    /// Waiting for another session's answer.
    Proposed,
    /// Enforced by the pre-commit hook.
    Accepted,
    /// Refused.
    Rejected,
    /// No longer enforced.
    Withdrawn,
    /// Replaced by a newer accepted contract on the same symbol.
    Superseded,
}

impl ContractStatus {
    fn as_str(self) -> &'static str {
        match self {
            ContractStatus::Proposed => "proposed",
            ContractStatus::Accepted => "accepted",
            ContractStatus::Rejected => "rejected",
            ContractStatus::Withdrawn => "withdrawn",
            ContractStatus::Superseded => "superseded",
        }
    }
}

/// `wit_contract_query` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueryParams {
    /// Only contracts of this status (default: proposed, accepted and rejected).
    #[serde(default)]
    pub status: Option<ContractStatus>,
    /// Only contracts on this symbol, `file:name`.
    #[serde(default)]
    pub symbol_path: Option<String>,
}

/// `wit_events` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventsParams {
    /// The last `seq` you saw (default 0: from the start of the log).
    #[serde(default)]
    pub since: Option<u64>,
    /// How long to wait for a new event when there is none yet, in ms (default 0: answer
    /// at once; at most 60000 here).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Only these kinds, e.g. `lock.released`, `lock.expired`, `contract.accepted`.
    #[serde(default)]
    pub kinds: Vec<String>,
}

/// `wit_contract_withdraw` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WithdrawParams {
    /// The contract id (any unique prefix of it works).
    pub contract_id: String,
    /// Why; required when the contract was proposed by another session (it is recorded).
    #[serde(default)]
    pub reason: Option<String>,
}

/// `wit_conflicts` arguments: filters that combine; none gives every standing forecast.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConflictsParams {
    /// Only forecasts involving this checkout: its absolute path, its directory name or
    /// its branch.
    #[serde(default)]
    pub checkout: Option<String>,
    /// Only forecasts involving the checkout this session works in.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Only forecasts naming this symbol, `file:name` (file relative to the repository
    /// root).
    #[serde(default)]
    pub symbol_path: Option<String>,
    /// Only forecasts touching this file (relative to the repository root); the answer
    /// then also lists under `pending` what the other checkouts changed in it.
    #[serde(default)]
    pub file: Option<String>,
}

/// `wit_check_contracts` arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckParams {
    /// Files to check (working tree content), relative to the repository root. Empty or
    /// absent: every file that has an accepted contract.
    #[serde(default)]
    pub files: Vec<String>,
}

#[tool_router(router = tool_router, vis = "pub(super)")]
impl WitMcp {
    /// `intent.declare`.
    #[tool(
        name = "wit_declare",
        description = "Declare what you are about to change, before editing: a one-line \
            description, the files (relative to the repository root) and the function names. \
            Other agents see it in wit_status. The intent is stored even when it conflicts; \
            the answer lists the conflicts: INTENT_OVERLAP (another agent plans to change the \
            same code: agree with them who goes first), LOCK_INTERSECTION (a symbol you named \
            is locked: wait for its release or ask the holder), DEP_CHAIN (your code calls a \
            function another agent has locked: its signature may change, check with them). \
            Keep the returned intentId for wit_intent_update."
    )]
    async fn wit_declare(
        &self,
        Parameters(p): Parameters<DeclareParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.declare(p, &ctx).await)
    }

    /// `lock.acquire`.
    #[tool(
        name = "wit_lock",
        description = "Lock one function or method for your session before editing it \
            (symbolPath `file:name`, file relative to the repository root). Locking a symbol \
            you hold refreshes its expiry. On success, re-read the file before editing (another \
            agent may have changed it), and release the lock with wit_release when done. \
            `warnings` name locked functions that call yours: changing its signature may break \
            their holder's work. On LOCK_CONFLICT (a tool error) another agent holds it: do NOT \
            edit the symbol; data.heldBy says who and data.expiresAt until when. Work on \
            something else and retry later, or coordinate with the holder."
    )]
    async fn wit_lock(
        &self,
        Parameters(p): Parameters<LockParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.lock(p, &ctx).await)
    }

    /// `lock.release`.
    #[tool(
        name = "wit_release",
        description = "Release a lock of your session (symbolPath as locked) as soon as you \
            are done editing the symbol, so that other agents can take it. LOCK_NOT_HELD means \
            another session holds it (leave it); LOCK_NOT_FOUND means it was not locked or its \
            lock expired (nothing to do)."
    )]
    async fn wit_release(
        &self,
        Parameters(p): Parameters<ReleaseParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.release(p, &ctx).await)
    }

    /// The snapshot of `wit status`.
    #[tool(
        name = "wit_status",
        description = "See who works on what, before starting and whenever a conflict is \
            reported: the declared and active intents (session, files, symbols, description), \
            the unexpired locks (holder, expiresAt, ttlRemainingMs) and the contracts, plus \
            `session`: the identity you act as (locks and intents whose sessionId is yours are \
            yours). The same JSON as the wit://status resource."
    )]
    async fn wit_status(
        &self,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.status(&ctx).await.map(|v| success(None, v)))
    }

    /// `intent.update`.
    #[tool(
        name = "wit_intent_update",
        description = "Move one of your intents on: active when you start the work, resolved \
            when it is done (release your locks too), abandoned when you give it up. Only the \
            session that declared an intent may update it (INTENT_NOT_OWNED otherwise); a \
            finished intent cannot change (INVALID_TRANSITION)."
    )]
    async fn wit_intent_update(
        &self,
        Parameters(p): Parameters<IntentUpdateParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.intent_update(p, &ctx).await)
    }

    /// `contract.propose`.
    #[tool(
        name = "wit_contract_propose",
        description = "Propose the current signature of a function or method (symbolPath \
            `file:name`) as a contract other agents can rely on, e.g. before they write code \
            calling it. Another session must accept it (wit_contract_respond); once accepted, \
            commits changing that signature are refused. To change an accepted signature, \
            propose the new one: accepting it supersedes the old contract. SYMBOL_NOT_FOUND: \
            the file has no function of that name (check the path and name)."
    )]
    async fn wit_contract_propose(
        &self,
        Parameters(p): Parameters<ProposeParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.propose(p, &ctx).await)
    }

    /// `contract.respond`.
    #[tool(
        name = "wit_contract_respond",
        description = "Accept (accept: true) or reject (accept: false) a contract another \
            session proposed; find proposed ones with wit_contract_query or wit_status. \
            Accepting means you rely on that signature: commits that break it are refused. You \
            cannot answer your own proposal (SELF_ACCEPT_NOT_ALLOWED), nor one already \
            answered (CONTRACT_ALREADY_RESOLVED)."
    )]
    async fn wit_contract_respond(
        &self,
        Parameters(p): Parameters<RespondParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.respond(p, &ctx).await)
    }

    /// `contract.query`.
    #[tool(
        name = "wit_contract_query",
        description = "List contracts, optionally of one status (proposed, accepted, \
            rejected, withdrawn, superseded) or on one symbol (`file:name`). Accepted contracts \
            are the signatures you must not change without a new accepted contract."
    )]
    async fn wit_contract_query(
        &self,
        Parameters(p): Parameters<QueryParams>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.query(p).await)
    }

    /// `contract.withdraw` (an extension method).
    #[tool(
        name = "wit_contract_withdraw",
        description = "Stop enforcing a contract (proposed or accepted). Its proposer may \
            withdraw it freely; another session must give a reason, which is recorded with who \
            and when. Prefer proposing the new signature (accepting it supersedes the old \
            contract) when the signature changes on purpose."
    )]
    async fn wit_contract_withdraw(
        &self,
        Parameters(p): Parameters<WithdrawParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.withdraw(p, &ctx).await)
    }

    /// `lock.renew` (an extension method).
    #[tool(
        name = "wit_renew",
        description = "Extend a lock you hold before it expires, when your edit takes longer \
            than planned (ttlMs from now; default: the repository's lock TTL). LOCK_NOT_FOUND \
            means it already expired or was released: take it again with wit_lock."
    )]
    async fn wit_renew(
        &self,
        Parameters(p): Parameters<RenewParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.renew(p, &ctx).await)
    }

    /// `lock.forceRelease` (an extension method).
    #[tool(
        name = "wit_force_release",
        description = "Release ANOTHER session's lock, only when that agent is clearly gone \
            (crashed, finished without releasing) — never to get around a conflict with a live \
            agent; ask or wait instead. The reason is recorded with your identity in the audit \
            log and shown to the former holder."
    )]
    async fn wit_force_release(
        &self,
        Parameters(p): Parameters<ForceReleaseParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.force_release(p, &ctx).await)
    }

    /// `lease.acquire` (an extension method).
    #[tool(
        name = "wit_lease",
        description = "Reserve whole files or directories before a broad change (moving, \
            renaming, regenerating many files): exclusive by default, so no other agent locks, \
            leases, edits or commits under them; shared when you only need nobody to take them \
            exclusively. Release it with wit_lease_release when done. LEASE_CONFLICT lists who \
            holds what overlaps: work elsewhere, narrow the paths, or wait."
    )]
    async fn wit_lease(
        &self,
        Parameters(p): Parameters<LeaseParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.lease(p, &ctx).await)
    }

    /// `lease.release` (an extension method).
    #[tool(
        name = "wit_lease_release",
        description = "Release a lease you hold as soon as the broad change it protected is \
            done (leaseId, or a unique prefix of it), or every lease you hold (no arguments), \
            so other agents can edit those files again."
    )]
    async fn wit_lease_release(
        &self,
        Parameters(p): Parameters<LeaseReleaseParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.lease_release(p, &ctx).await)
    }

    /// `session.end` (an extension method).
    #[tool(
        name = "wit_end_session",
        description = "When you are done with the whole task: release every lock and lease \
            you hold at once (your intents stay; mark them resolved with wit_intent_update)."
    )]
    async fn wit_end_session(
        &self,
        Parameters(_): Parameters<NoParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.end_session(&ctx).await)
    }

    /// `events.poll` (an extension method).
    #[tool(
        name = "wit_events",
        description = "What changed, in order: the event log of locks (acquired, refreshed, \
            released, expired), intents (declared, updated) and contracts (proposed, accepted, \
            rejected, withdrawn, superseded), each with a gap-free `seq`. Call it with the \
            last `next` you got to see only what is new; with timeoutMs it waits for the next \
            change, e.g. for a lock you need to be released (kinds: [\"lock.released\", \
            \"lock.expired\"]) instead of polling wit_status."
    )]
    async fn wit_events(
        &self,
        Parameters(p): Parameters<EventsParams>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.events(p).await)
    }

    /// `conflicts.forecast` (an extension method).
    #[tool(
        name = "wit_conflicts",
        description = "The conflict forecast: where the uncommitted edits of this \
            repository's checkouts (git worktrees, one per agent) would collide, and where \
            the sessions sharing one checkout already do, before anyone commits: same-symbol \
            (one function changed in two checkouts, or by two sessions), signature-vs-callers \
            (a signature changed in one while another's new or changed code calls it; `chain` \
            gives each hop with its line), textual (a file git could not merge). Each forecast \
            names both checkouts, their branches and sessions (`self`: yours) and what each \
            side did (signature before/after). Call it before editing a file another agent may \
            be changing (with `file`: `pending` lists what the other checkouts changed in it) \
            and when wit_status shows a forecast; then coordinate with the session named. \
            `checkouts` gives each checkout's state (indexing, rebasing and merging ones are \
            not fully compared). `claims` lists the uncommitted changes of each session \
            (who changed which definition, since when, a short diff): build on them, never \
            write a file back from an earlier read."
    )]
    async fn wit_conflicts(
        &self,
        Parameters(p): Parameters<ConflictsParams>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.conflicts(p).await)
    }

    /// `check-contracts`.
    #[tool(
        name = "wit_check_contracts",
        description = "Check files (working tree, relative to the repository root; none: \
            every file with an accepted contract) against the accepted contracts, before \
            committing: the pre-commit hook refuses commits that break one. `violations` lists \
            each broken contract with the expected and actual signature. To fix one, restore \
            the signature, or propose the new one and have another session accept it, or \
            withdraw the old contract with a reason."
    )]
    async fn wit_check_contracts(
        &self,
        Parameters(p): Parameters<CheckParams>,
    ) -> Result<CallToolResult, ErrorData> {
        finish(self.check_contracts(p).await)
    }
}

/// The bodies of the tools, in the CLI's error type so that `?` works; [`finish`] turns a
/// failure into a tool error.
impl WitMcp {
    async fn declare(
        &self,
        p: DeclareParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let session = self.session(ctx)?;
        let files: Vec<String> = p
            .files
            .iter()
            .filter(|f| !f.trim().is_empty())
            .map(|f| self.repo_path(f))
            .collect::<CmdResult<_>>()?;
        let mut params =
            json!({"sessionId": session, "description": p.description, "files": files});
        let symbols: Vec<&str> = p
            .symbols
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .collect();
        if !symbols.is_empty() {
            params["symbols"] = json!(symbols);
        }
        let mut client = self.client().await?;
        let v = self
            .call(&mut client, "intent.declare", params, "intent")
            .await?;
        let summary = serde_json::from_value::<IntentDeclared>(v.clone())
            .ok()
            .map(|r| {
                let style = Style::plain();
                let mut s = format!("Declared intent {}", r.intent_id);
                let leases = crate::commands::declare::lease_lines(&v, &style);
                let n = r.conflicts.items.len() + leases.len();
                if n == 0 {
                    s.push_str(": no conflicts.");
                } else {
                    s.push_str(&format!(" with {n} conflict(s):"));
                    for item in &r.conflicts.items {
                        s.push_str("\n- ");
                        s.push_str(describe(item, &style).trim_start());
                    }
                    for line in leases {
                        s.push_str("\n- ");
                        s.push_str(line.trim_start());
                    }
                }
                s
            });
        Ok(success(summary, v))
    }

    async fn lock(
        &self,
        p: LockParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let session = self.session(ctx)?;
        let path = self.symbol_path(&p.symbol_path)?;
        let mut params = json!({"symbolPath": path, "sessionId": session});
        if let Some(ttl) = p.ttl_ms {
            params["ttlMs"] = json!(ttl);
        }
        let mut client = self.client().await?;
        if let Some(wait) = p.wait_ms.map(|w| w.min(60_000)) {
            params["waitMs"] = json!(wait);
            client.set_timeout(std::time::Duration::from_millis(wait + 30_000));
        }
        let v = self
            .call(&mut client, "lock.acquire", params, &path)
            .await?;
        let summary = serde_json::from_value::<LockAcquired>(v.clone())
            .ok()
            .map(|r| {
                let mut s = format!(
                    "Locked {} {}. Re-read the file before editing it; release with wit_release.",
                    r.symbol_path,
                    until(&r.expires_at)
                );
                for w in &r.warnings {
                    s.push_str(&format!(
                        "\nwarning: {} calls it and is locked by {}; changes here may break \
                         their work, coordinate with {}",
                        w.locked_symbol, w.held_by, w.held_by
                    ));
                }
                s
            });
        Ok(success(summary, v))
    }

    /// Calls `method` as this session on the symbol `symbol` (resolved like every path of
    /// the tools), with `extra` fields added; the resolved path and the daemon's answer.
    async fn on_symbol(
        &self,
        ctx: &RequestContext<RoleServer>,
        symbol: &str,
        method: &str,
        extra: Value,
    ) -> CmdResult<(String, Value)> {
        let session = self.session(ctx)?;
        let path = self.symbol_path(symbol)?;
        let mut params = json!({"symbolPath": path, "sessionId": session});
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        let mut client = self.client().await?;
        let v = self.call(&mut client, method, params, &path).await?;
        Ok((path, v))
    }

    async fn release(
        &self,
        p: ReleaseParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let (path, v) = self
            .on_symbol(ctx, &p.symbol_path, "lock.release", json!({}))
            .await?;
        Ok(success(Some(format!("Released {path}.")), v))
    }

    async fn renew(
        &self,
        p: RenewParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let extra = match p.ttl_ms {
            Some(t) => json!({"ttlMs": t}),
            None => json!({}),
        };
        let (path, v) = self
            .on_symbol(ctx, &p.symbol_path, "lock.renew", extra)
            .await?;
        Ok(success(
            Some(format!("Renewed {path} until {}.", v["expiresAt"])),
            v,
        ))
    }

    async fn force_release(
        &self,
        p: ForceReleaseParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let (path, v) = self
            .on_symbol(
                ctx,
                &p.symbol_path,
                "lock.forceRelease",
                json!({"reason": p.reason}),
            )
            .await?;
        Ok(success(
            Some(format!(
                "Released {path} by force (held by {}).",
                v["formerHolder"]
            )),
            v,
        ))
    }

    async fn lease(
        &self,
        p: LeaseParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let session = self.session(ctx)?;
        let mut client = self.client().await?;
        let mut params = json!({
            "sessionId": session,
            "paths": p.paths,
            "mode": if p.shared { "shared" } else { "exclusive" },
        });
        if let Some(t) = p.ttl_ms {
            params["ttlMs"] = json!(t);
        }
        if let Some(r) = p.reason {
            params["reason"] = json!(r);
        }
        let v = self
            .call(&mut client, "lease.acquire", params, "lease")
            .await?;
        Ok(success(
            Some(format!("Leased {} until {}.", v["paths"], v["expiresAt"])),
            v,
        ))
    }

    async fn lease_release(
        &self,
        p: LeaseReleaseParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let session = self.session(ctx)?;
        let mut client = self.client().await?;
        let mine = self
            .call(
                &mut client,
                "lease.query",
                json!({"sessionId": session}),
                "leases",
            )
            .await?;
        let held: Vec<String> = mine["leases"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|l| l["leaseId"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let ids: Vec<String> = match p.lease_id.as_deref().map(str::trim) {
            None => held,
            Some(prefix) => {
                let matching: Vec<String> = held
                    .iter()
                    .filter(|id| id.starts_with(&prefix.to_ascii_lowercase()))
                    .cloned()
                    .collect();
                if matching.len() == 1 {
                    matching
                } else {
                    vec![prefix.to_owned()]
                }
            }
        };
        for id in &ids {
            self.call(
                &mut client,
                "lease.release",
                json!({"leaseId": id, "sessionId": session}),
                id,
            )
            .await?;
        }
        Ok(success(
            Some(format!("Released {} lease(s).", ids.len())),
            json!({ "released": ids }),
        ))
    }

    async fn end_session(&self, ctx: &RequestContext<RoleServer>) -> CmdResult<CallToolResult> {
        let session = self.session(ctx)?;
        let mut client = self.client().await?;
        let v = self
            .call(
                &mut client,
                "session.end",
                json!({"sessionId": session}),
                &session,
            )
            .await?;
        Ok(success(None, v))
    }

    async fn intent_update(
        &self,
        p: IntentUpdateParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let session = self.session(ctx)?;
        let mut client = self.client().await?;
        let id = crate::ids::intent(&mut client, p.intent_id.trim()).await?;
        let v = self
            .call(
                &mut client,
                "intent.update",
                json!({"intentId": id, "sessionId": session, "status": p.status.as_str()}),
                &id,
            )
            .await?;
        Ok(success(None, v))
    }

    async fn propose(
        &self,
        p: ProposeParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let (_, v) = self
            .on_symbol(ctx, &p.symbol_path, "contract.propose", json!({}))
            .await?;
        Ok(success(None, v))
    }

    async fn respond(
        &self,
        p: RespondParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let session = self.session(ctx)?;
        let mut client = self.client().await?;
        let id = crate::ids::contract(&mut client, p.contract_id.trim()).await?;
        let v = self
            .call(
                &mut client,
                "contract.respond",
                json!({"contractId": id, "sessionId": session, "accept": p.accept}),
                &id,
            )
            .await?;
        Ok(success(None, v))
    }

    async fn query(&self, p: QueryParams) -> CmdResult<CallToolResult> {
        let mut params = json!({});
        if let Some(s) = p.status {
            params["status"] = json!(s.as_str());
        }
        if let Some(s) = &p.symbol_path {
            params["symbolPath"] = json!(self.symbol_path(s)?);
        }
        let mut client = self.client().await?;
        let v = self
            .call(&mut client, "contract.query", params, "contracts")
            .await?;
        // An array is not a valid structured content (it must be an object).
        Ok(success(None, json!({ "contracts": v })))
    }

    async fn conflicts(&self, p: ConflictsParams) -> CmdResult<CallToolResult> {
        let given = |v: &Option<String>| {
            v.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let mut params = json!({});
        if let Some(c) = given(&p.checkout) {
            params["checkout"] = json!(c);
        }
        if let Some(s) = given(&p.session_id) {
            params["sessionId"] = json!(s);
        }
        if let Some(s) = given(&p.symbol_path) {
            params["symbolPath"] = json!(self.symbol_path(&s)?);
        }
        if let Some(f) = given(&p.file) {
            params["file"] = json!(self.repo_path(&f)?);
        }
        let file = params["file"].as_str().map(str::to_owned);
        let mut client = self.client().await?;
        let v = self
            .call(
                &mut client,
                "conflicts.forecast",
                params,
                "the conflict forecast",
            )
            .await?;
        let answer = forecast::Answer::parse(&v);
        let style = Style::plain();
        let mut summary = match answer.forecasts.len() {
            0 => "No forecast collision.".to_owned(),
            n => format!("{n} forecast collision(s):"),
        };
        for f in &answer.forecasts {
            summary.push_str("\n- ");
            summary.push_str(&f.lines(&style).join("\n  "));
        }
        if let Some(file) = &file {
            for p in &answer.pending {
                summary.push_str(&format!(
                    "\nPending in {file}: {}",
                    forecast::pending_text(p)
                ));
            }
        }
        Ok(success(Some(summary), v))
    }

    async fn events(&self, p: EventsParams) -> CmdResult<CallToolResult> {
        // Bounded below the client's usual request timeout (a model should not hang).
        let timeout = p.timeout_ms.unwrap_or(0).min(60_000);
        let mut params = json!({"since": p.since.unwrap_or(0), "timeoutMs": timeout});
        if !p.kinds.is_empty() {
            params["kinds"] = json!(p.kinds);
        }
        let mut client = self.client().await?;
        client.set_timeout(std::time::Duration::from_millis(timeout + 30_000));
        let v = self
            .call(&mut client, "events.poll", params, "events")
            .await?;
        let n = v["events"].as_array().map_or(0, Vec::len);
        Ok(success(
            Some(format!(
                "{n} event(s); poll again with since = {}",
                v["next"]
            )),
            v,
        ))
    }

    async fn withdraw(
        &self,
        p: WithdrawParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CmdResult<CallToolResult> {
        let session = self.session(ctx)?;
        let mut client = self.client().await?;
        let id = crate::ids::contract(&mut client, p.contract_id.trim()).await?;
        let mut params = json!({"contractId": id, "sessionId": session});
        if let Some(r) = p.reason {
            params["reason"] = json!(r);
        }
        let v = self
            .call(&mut client, "contract.withdraw", params, &id)
            .await?;
        Ok(success(None, v))
    }

    /// The working-tree part of `wit check-contracts`: the same files, the same batches,
    /// the same `check-contracts` calls.
    async fn check_contracts(&self, p: CheckParams) -> CmdResult<CallToolResult> {
        let mut client = self.client().await?;
        let explicit = p.files.iter().any(|f| !f.trim().is_empty());
        let paths: Vec<String> = if explicit {
            p.files
                .iter()
                .filter(|f| !f.trim().is_empty())
                .map(|f| self.repo_path(f))
                .collect::<CmdResult<_>>()?
        } else {
            let accepted: Vec<ContractRecord> = serde_json::from_value(
                self.call(
                    &mut client,
                    "contract.query",
                    json!({"status": "accepted"}),
                    "contracts",
                )
                .await?,
            )
            .map_err(|e| Failure::other(format!("unexpected contract.query answer: {e}")))?;
            accepted
                .iter()
                .filter_map(|c| SymbolPath::parse(&c.symbol_path).map(|p| p.file.to_owned()))
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        let mut files = Vec::with_capacity(paths.len());
        let mut skipped: Vec<Value> = Vec::new();
        for path in paths {
            let content = match self.read_repo_file(&path) {
                Ok(bytes) => bytes,
                // A contracted file that is gone breaks its contracts: check it as empty.
                Err(e) if e.is_not_found() && !explicit => Vec::new(),
                Err(e) => return Err(Failure::Usage(e.to_string())),
            };
            match String::from_utf8(content) {
                Ok(content) => files.push(StagedFile { path, content }),
                Err(_) => skipped.push(json!({"path": path, "reason": "not UTF-8 text"})),
            }
        }
        let found = check_in_batches(&mut client, files).await?;
        skipped.extend(
            found
                .too_large
                .into_iter()
                .map(|p| json!({"path": p, "reason": "too large to send to the daemon"})),
        );
        let checked = found.checked;
        let r = CheckResult {
            violations: found.violations,
        };
        let summary = if r.violations.is_empty() {
            format!("No contract violations ({checked} file(s) checked).")
        } else {
            describe_violations(&r.violations, &Style::plain())
        };
        let mut v = serde_json::to_value(&r).map_err(Failure::other)?;
        v["checked"] = json!(checked);
        v["skipped"] = json!(skipped);
        Ok(success(Some(summary), v))
    }

    /// Reads a repository file named by a model through the boundary: beneath the root
    /// only (`..`, absolute paths and symlinks leading out are refused), never blocking on
    /// a FIFO, at most what one request to the daemon can carry.
    fn read_repo_file(&self, path: &str) -> Result<Vec<u8>, wit_boundary::RepoFileError> {
        wit_boundary::read_repo_file(
            &self.inner.repo.root,
            path,
            crate::commands::check::READ_LIMIT,
        )
    }
}
