//! Wire types of protocol v1, exactly as `openrpc.json` spells them.
//!
//! The daemon serializes these; the CLI deserializes them. Any change to a field name or
//! shape here breaks agents that already speak v1, so these types are frozen: extensions
//! add new types, never new required fields on these.

use serde::{Deserialize, Serialize};

/// The `witVersion` every request and response carries.
pub const WIT_VERSION: &str = "1";

/// The JSON-RPC version string.
pub const JSONRPC_VERSION: &str = "2.0";

/// Default lock TTL when neither the request nor `wit.toml` sets one: 30 minutes.
pub const DEFAULT_LOCK_TTL_MS: u64 = 1_800_000;

/// What `check-contracts` reports as `actual` when the contracted symbol is gone.
pub const SYMBOL_NOT_FOUND_IN_STAGED: &str = "(symbol not found in staged content)";

/// Every error the protocol defines, with its JSON-RPC code and message name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `-32700`: the body is not JSON.
    ParseError,
    /// `-32600`: the envelope or the parameters are invalid.
    InvalidRequest,
    /// `-32601`: no such method.
    MethodNotFound,
    /// `-32001`: `witVersion` is not `"1"`.
    VersionMismatch,
    /// `-32603`: the daemon failed (storage error, …). Not in v1's list; used only when
    /// nothing else fits, so that a client never gets a dropped connection instead.
    InternalError,
    /// The symbol is locked by another session.
    LockConflict,
    /// No unexpired lock on the symbol.
    LockNotFound,
    /// The lock is held by another session.
    LockNotHeld,
    /// No intent with that id.
    IntentNotFound,
    /// The intent belongs to another session.
    IntentNotOwned,
    /// The status change is not allowed.
    InvalidTransition,
    /// The file, language or symbol was not found.
    SymbolNotFound,
    /// No contract with that id.
    ContractNotFound,
    /// The contract was already accepted or rejected.
    ContractAlreadyResolved,
    /// A session tried to accept its own contract.
    SelfAcceptNotAllowed,
    /// Extension (`lease.acquire`): the paths overlap another session's lease or lock.
    LeaseConflict,
    /// Extension: no unexpired lease with that id.
    LeaseNotFound,
    /// Extension: the lease belongs to another session.
    LeaseNotHeld,
}

impl ErrorCode {
    /// Every code, for tables and round-trip tests.
    pub const ALL: [ErrorCode; 18] = [
        ErrorCode::ParseError,
        ErrorCode::InvalidRequest,
        ErrorCode::MethodNotFound,
        ErrorCode::VersionMismatch,
        ErrorCode::InternalError,
        ErrorCode::LockConflict,
        ErrorCode::LockNotFound,
        ErrorCode::LockNotHeld,
        ErrorCode::IntentNotFound,
        ErrorCode::IntentNotOwned,
        ErrorCode::InvalidTransition,
        ErrorCode::SymbolNotFound,
        ErrorCode::ContractNotFound,
        ErrorCode::ContractAlreadyResolved,
        ErrorCode::SelfAcceptNotAllowed,
        ErrorCode::LeaseConflict,
        ErrorCode::LeaseNotFound,
        ErrorCode::LeaseNotHeld,
    ];

    /// The numeric JSON-RPC code.
    pub fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::VersionMismatch => -32001,
            ErrorCode::InternalError => -32603,
            _ => -32000,
        }
    }

    /// The bare name used as `error.message`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::ParseError => "PARSE_ERROR",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::MethodNotFound => "METHOD_NOT_FOUND",
            ErrorCode::VersionMismatch => "VERSION_MISMATCH",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::LockConflict => "LOCK_CONFLICT",
            ErrorCode::LockNotFound => "LOCK_NOT_FOUND",
            ErrorCode::LockNotHeld => "LOCK_NOT_HELD",
            ErrorCode::IntentNotFound => "INTENT_NOT_FOUND",
            ErrorCode::IntentNotOwned => "INTENT_NOT_OWNED",
            ErrorCode::InvalidTransition => "INVALID_TRANSITION",
            ErrorCode::SymbolNotFound => "SYMBOL_NOT_FOUND",
            ErrorCode::ContractNotFound => "CONTRACT_NOT_FOUND",
            ErrorCode::ContractAlreadyResolved => "CONTRACT_ALREADY_RESOLVED",
            ErrorCode::SelfAcceptNotAllowed => "SELF_ACCEPT_NOT_ALLOWED",
            ErrorCode::LeaseConflict => "LEASE_CONFLICT",
            ErrorCode::LeaseNotFound => "LEASE_NOT_FOUND",
            ErrorCode::LeaseNotHeld => "LEASE_NOT_HELD",
        }
    }

    /// The code whose message name is `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// The numeric code.
    pub code: i64,
    /// The bare code name (`LOCK_CONFLICT`).
    pub message: String,
    /// Structured detail, per method and code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl RpcError {
    /// An error of `code` with optional `data`.
    pub fn new(code: ErrorCode, data: Option<serde_json::Value>) -> Self {
        Self {
            code: code.code(),
            message: code.name().to_owned(),
            data,
        }
    }

    /// The [`ErrorCode`] named by `message`, if it is one of ours.
    pub fn kind(&self) -> Option<ErrorCode> {
        ErrorCode::from_name(&self.message)
    }
}

/// A JSON-RPC request as sent by a client.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// Always `"1"`.
    pub wit_version: String,
    /// The request id (a string in v1).
    pub id: String,
    /// The method name.
    pub method: String,
    /// By-name parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<serde_json::Value>,
}

impl Request {
    /// A v1 request.
    pub fn new(
        id: impl Into<String>,
        method: impl Into<String>,
        params: serde_json::Value,
    ) -> Self {
        Self {
            jsonrpc: JSONRPC_VERSION.into(),
            wit_version: WIT_VERSION.into(),
            id: id.into(),
            method: method.into(),
            params: Some(params),
        }
    }
}

/// A JSON-RPC response: exactly one of `result` and `error`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// Always `"1"`.
    pub wit_version: String,
    /// The request's id, or `null` when it could not be read.
    pub id: Option<String>,
    /// The result on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    /// The error on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

/// `lock.acquire` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockAcquired {
    /// The locked path.
    pub symbol_path: String,
    /// The holder.
    pub session_id: String,
    /// ISO 8601 UTC with milliseconds.
    pub acquired_at: String,
    /// ISO 8601 UTC with milliseconds.
    pub expires_at: String,
    /// Callers of the symbol locked by other sessions.
    pub warnings: Vec<CallerWarning>,
}

/// A caller of a newly locked symbol that is itself locked by another session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallerWarning {
    /// The caller's symbol path.
    pub locked_symbol: String,
    /// The session holding the caller's lock.
    pub held_by: String,
    /// `[callerPath, newlyLockedPath]`.
    pub chain: Vec<String>,
}

/// An unexpired lock, as `lock.query` returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockRecord {
    /// The locked path.
    pub symbol_path: String,
    /// The holder.
    pub session_id: String,
    /// ISO 8601 UTC with milliseconds.
    pub acquired_at: String,
    /// ISO 8601 UTC with milliseconds.
    pub expires_at: String,
    /// `expiresAt − now` in milliseconds.
    pub ttl_remaining_ms: i64,
}

/// A file/glob lease (extension: `lease.acquire`, `lease.query`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseRecord {
    /// Its id (UUID).
    pub lease_id: String,
    /// The holder.
    pub session_id: String,
    /// `exclusive` or `shared`.
    pub mode: String,
    /// The patterns, normalized.
    pub paths: Vec<String>,
    /// Why, as the holder said.
    #[serde(default)]
    pub reason: Option<String>,
    /// ISO 8601 UTC with milliseconds.
    pub acquired_at: String,
    /// ISO 8601 UTC with milliseconds.
    pub expires_at: String,
    /// `expiresAt − now` in milliseconds.
    pub ttl_remaining_ms: i64,
    /// With `lease.query {files}`: the given files it covers (at most 100 listed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

impl LeaseRecord {
    /// Whether the lease keeps other sessions' edits out.
    pub fn is_exclusive(&self) -> bool {
        self.mode == "exclusive"
    }
}

/// Intent status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IntentStatus {
    /// Just declared.
    Declared,
    /// Work under way.
    Active,
    /// Done.
    Resolved,
    /// Given up.
    Abandoned,
}

impl IntentStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            IntentStatus::Declared => "declared",
            IntentStatus::Active => "active",
            IntentStatus::Resolved => "resolved",
            IntentStatus::Abandoned => "abandoned",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "declared" => IntentStatus::Declared,
            "active" => IntentStatus::Active,
            "resolved" => IntentStatus::Resolved,
            "abandoned" => IntentStatus::Abandoned,
            _ => return None,
        })
    }

    /// Whether `self → to` is allowed: declared→active|resolved|abandoned,
    /// active→resolved|abandoned, nothing out of resolved/abandoned.
    pub fn can_become(self, to: IntentStatus) -> bool {
        use IntentStatus::*;
        matches!(
            (self, to),
            (Declared, Active | Resolved | Abandoned) | (Active, Resolved | Abandoned)
        )
    }

    /// Declared and active intents are "live": they take part in conflicts.
    pub fn is_live(self) -> bool {
        matches!(self, IntentStatus::Declared | IntentStatus::Active)
    }
}

/// A stored intent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntentRecord {
    /// UUID v4.
    pub intent_id: String,
    /// The declaring session.
    pub session_id: String,
    /// What the session means to do.
    pub description: String,
    /// `",a,b,"`.
    pub files: String,
    /// JSON-encoded array of names.
    pub symbols: String,
    /// Union start byte of the declared symbols, or `null` for a file-level intent.
    pub start_byte: Option<i64>,
    /// Union end byte, or `null`.
    pub end_byte: Option<i64>,
    /// Current status.
    pub status: IntentStatus,
    /// Unix milliseconds.
    pub declared_at: i64,
    /// Unix milliseconds.
    pub updated_at: i64,
    /// Extension (`intent.query`): the declaring session ended after the intent's last
    /// change — any session may now abandon it (`intent.abandon`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_ended: Option<OwnerEnded>,
}

/// When and why an intent's session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerEnded {
    /// Unix milliseconds.
    pub at: i64,
    /// `its session ended`, `its heartbeats stopped`.
    pub reason: String,
}

impl IntentRecord {
    /// The file list, decoded from `",a,b,"`.
    pub fn file_list(&self) -> Vec<&str> {
        self.files.split(',').filter(|f| !f.is_empty()).collect()
    }

    /// The symbol names, decoded from their JSON string (empty when malformed).
    pub fn symbol_list(&self) -> Vec<String> {
        serde_json::from_str(&self.symbols).unwrap_or_default()
    }
}

/// `intent.declare` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntentDeclared {
    /// UUID of the new intent.
    pub intent_id: String,
    /// What it collides with.
    pub conflicts: ConflictReport,
}

/// The conflict report of `intent.declare`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConflictReport {
    /// `!items.is_empty()`.
    pub has_conflicts: bool,
    /// Overlaps, then lock intersections, then dependency chains.
    pub items: Vec<ConflictItem>,
}

/// One conflict, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ConflictItem {
    /// Another live intent shares a file (and byte range).
    #[serde(rename = "INTENT_OVERLAP", rename_all = "camelCase")]
    IntentOverlap {
        /// Its id.
        overlapping_intent_id: String,
        /// Its session.
        overlapping_session_id: String,
        /// Its description.
        description: String,
    },
    /// A declared `file:symbol` is locked by another session.
    #[serde(rename = "LOCK_INTERSECTION", rename_all = "camelCase")]
    LockIntersection {
        /// The locked path.
        symbol_path: String,
        /// Its holder.
        held_by: String,
        /// ISO 8601 expiry.
        expires_at: String,
    },
    /// A callee of a declared symbol is locked by another session.
    #[serde(rename = "DEP_CHAIN", rename_all = "camelCase")]
    DepChain {
        /// The declared symbol path.
        intent_symbol: String,
        /// The locked callee path.
        locked_callee: String,
        /// Its holder.
        held_by: String,
    },
}

/// `intent.update` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntentUpdated {
    /// The intent.
    pub intent_id: String,
    /// Its new status.
    pub status: IntentStatus,
    /// Unix milliseconds.
    pub updated_at: i64,
}

/// Contract status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContractStatus {
    /// Waiting for another session.
    Proposed,
    /// Enforced by `check-contracts`.
    Accepted,
    /// Ignored.
    Rejected,
    /// Taken back by its proposer, or (recorded) by another session: no longer enforced.
    /// An extension status: `contract.query` shows it only when asked for it.
    Withdrawn,
    /// Retired because a newer contract on the same symbol was accepted. An extension
    /// status, shown only when asked for.
    Superseded,
}

impl ContractStatus {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ContractStatus::Proposed => "proposed",
            ContractStatus::Accepted => "accepted",
            ContractStatus::Rejected => "rejected",
            ContractStatus::Withdrawn => "withdrawn",
            ContractStatus::Superseded => "superseded",
        }
    }

    /// Whether this is one of protocol v1's statuses (proposed, accepted, rejected); the
    /// others come from extensions and are shown to v1 queries only when asked for.
    pub fn is_v1(self) -> bool {
        matches!(
            self,
            ContractStatus::Proposed | ContractStatus::Accepted | ContractStatus::Rejected
        )
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "proposed" => ContractStatus::Proposed,
            "accepted" => ContractStatus::Accepted,
            "rejected" => ContractStatus::Rejected,
            "withdrawn" => ContractStatus::Withdrawn,
            "superseded" => ContractStatus::Superseded,
            _ => return None,
        })
    }
}

/// A stored contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractRecord {
    /// UUID v4.
    pub contract_id: String,
    /// Who proposed it.
    pub proposer_session_id: String,
    /// `file:name`.
    pub symbol_path: String,
    /// The canonical signature captured at proposal.
    pub signature: String,
    /// Current status.
    pub status: ContractStatus,
    /// Who accepted or rejected it.
    pub responder_session_id: Option<String>,
    /// Unix milliseconds.
    pub proposed_at: i64,
    /// Unix milliseconds, or `null`.
    pub responded_at: Option<i64>,
    /// Extension, only on a withdrawn or superseded contract: who retired it, when, why,
    /// and (superseded) which contract replaced it. Absent on v1 records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired: Option<ContractRetirement>,
}

/// How a contract stopped being enforced (`contract.withdraw`, or superseding).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractRetirement {
    /// The session that withdrew it, or that accepted the replacement.
    pub by: String,
    /// Unix milliseconds.
    pub at: i64,
    /// The reason given (withdrawal), or why it was superseded.
    pub reason: String,
    /// The contract that replaced it (superseded only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// `contract.propose` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractProposed {
    /// UUID of the new contract.
    pub contract_id: String,
    /// `file:name`.
    pub symbol_path: String,
    /// The captured signature.
    pub signature: String,
}

/// `contract.respond` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContractResponded {
    /// The contract.
    pub contract_id: String,
    /// `accepted` or `rejected`.
    pub status: ContractStatus,
}

/// One file passed to `check-contracts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedFile {
    /// Path relative to the repo root.
    pub path: String,
    /// Full content.
    pub content: String,
}

/// A broken contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// The contract.
    pub contract_id: String,
    /// `file:name`.
    pub symbol_path: String,
    /// The contracted signature.
    pub expected: String,
    /// The signature in the checked content, or [`SYMBOL_NOT_FOUND_IN_STAGED`].
    pub actual: String,
}

/// `check-contracts` result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// Empty when every contract holds.
    pub violations: Vec<Violation>,
}

/// `register` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Registered {
    /// Row id of the registration.
    pub agent_id: i64,
}

/// `lock.release` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Released {
    /// Always `true`.
    pub released: bool,
}

/// Formats Unix milliseconds as ISO 8601 UTC with milliseconds (`2024-01-15T10:30:00.000Z`).
pub fn iso8601_millis(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1000);
    let ms = unix_ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
}

/// Parses the format of [`iso8601_millis`] back to Unix milliseconds.
pub fn parse_iso8601_millis(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 24
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[19] != b'.'
        || b[23] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se, ms) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    Some(((days * 86_400 + h * 3600 + mi * 60 + se) * 1000) + ms)
}

// Howard Hinnant's civil-date algorithms: exact for the proleptic Gregorian calendar, and
// small enough that pulling in a date crate for one format is not worth it.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timestamps_format_and_round_trip() {
        assert_eq!(iso8601_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            iso8601_millis(1_705_314_600_000),
            "2024-01-15T10:30:00.000Z"
        );
        assert_eq!(iso8601_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
        for t in [0, 1_705_314_600_000, 951_782_400_123, 4_102_444_799_999] {
            assert_eq!(parse_iso8601_millis(&iso8601_millis(t)), Some(t));
        }
        assert_eq!(parse_iso8601_millis("2024-01-15 10:30:00Z"), None);
    }

    #[test]
    fn conflict_items_serialize_with_their_type_tag() {
        let item = ConflictItem::DepChain {
            intent_symbol: "a.ts:f".into(),
            locked_callee: "a.ts:g".into(),
            held_by: "s2".into(),
        };
        assert_eq!(
            serde_json::to_value(&item).unwrap(),
            json!({"type":"DEP_CHAIN","intentSymbol":"a.ts:f","lockedCallee":"a.ts:g","heldBy":"s2"})
        );
    }

    #[test]
    fn error_codes_round_trip_by_name() {
        for c in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_name(c.name()), Some(c));
        }
        assert_eq!(ErrorCode::VersionMismatch.code(), -32001);
        assert_eq!(ErrorCode::LockConflict.code(), -32000);
    }

    #[test]
    fn transitions_follow_the_protocol() {
        use IntentStatus::*;
        assert!(Declared.can_become(Active));
        assert!(Active.can_become(Resolved));
        assert!(!Active.can_become(Declared));
        assert!(!Resolved.can_become(Abandoned));
        assert!(!Declared.can_become(Declared));
    }
}
