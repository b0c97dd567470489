//! `intent.declare`, `intent.update`, `intent.query`.

use crate::store::db::{Db, DbExt, args};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use wit_core::protocol::{
    ConflictItem, ConflictReport, ErrorCode, IntentDeclared, IntentRecord, IntentStatus,
    IntentUpdated, OwnerEnded, iso8601_millis,
};

use super::{Failure, event, to_value, validated};
use crate::analysis::{qualify_callee, symbol_spellings};
use crate::clock::now_ms;
use crate::params::Params;
use crate::state::AppState;
use crate::store::intents::{self, FileRange};
use crate::store::locks;

const ALL_STATUSES: &[&str] = &["declared", "active", "resolved", "abandoned"];
const TARGET_STATUSES: &[&str] = &["active", "resolved", "abandoned"];
/// How many of its files an `intent.declared` event carries (with `fileCount`, all of
/// them): an event stays small whatever the intent's size.
const EVENT_FILES: usize = 100;

/// Most symbols one `intent.declare` names.
pub(crate) const MAX_DECLARED_SYMBOLS: usize = 1_000;
/// Most `file:symbol` pairs (declared files × declared symbols) one `intent.declare`
/// names: each is a definition looked up and a possible conflict item, so a declare
/// beyond this is refused (INVALID_REQUEST naming the limit) rather than bounded by
/// nothing but the request's size (50,000 files × 20 symbols froze every store read).
pub(crate) const MAX_DECLARED_PAIRS: usize = 100_000;

/// From how many files a declare is heavy: validated, planned and written on the blocking
/// pool, so that its milliseconds of CPU never hold up another client's request.
const HEAVY_FILES: usize = 2_000;

/// `intent.declare` as the router calls it: a heavy one (see [`HEAVY_FILES`]) runs whole
/// on the blocking pool (its params are dropped there too), the others inline.
pub(crate) async fn declare_any(
    state: Arc<AppState>,
    params: Map<String, Value>,
) -> Result<Value, Failure> {
    if !is_heavy(&params) {
        return declare(&state, &params).await;
    }
    // A heavy declare holds its blocking thread while it waits for its analysis and its
    // write, which need blocking threads of their own: with every thread of the (bounded)
    // pool held so, none would be left to finish them. Two at a time leaves room.
    static HEAVY_AT_ONCE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);
    let _permit = HEAVY_AT_ONCE
        .acquire()
        .await
        .map_err(|_| Failure::internal("the heavy-declare semaphore is closed"))?;
    let handle = tokio::runtime::Handle::current();
    // On a blocking thread, `block_on` drives only this future; the runtime's own thread
    // keeps driving I/O and timers, and the analysis and the write it awaits.
    tokio::task::spawn_blocking(move || handle.block_on(declare(&state, &params)))
        .await
        .map_err(Failure::from_join)?
}

fn is_heavy(params: &Map<String, Value>) -> bool {
    params
        .get("files")
        .and_then(Value::as_array)
        .is_some_and(|files| files.len() >= HEAVY_FILES)
}

/// `intent.declare {sessionId, description, files, symbols?}` → `{intentId, conflicts}`.
pub(crate) async fn declare(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.req_str("sessionId");
    let description = p.req_str("description");
    let files = p.file_array("files");
    let symbols = p.str_array("symbols", false, 0, false);
    p.finish()?;
    let (session, description, files) = (
        validated(session)?,
        validated(description)?,
        validated(files)?,
    );
    let symbols = symbols.unwrap_or_default();

    // Hash-based de-duplication, first occurrence kept: linear in the number of files.
    let unique_files = first_occurrences(&files);
    let unique_symbols = first_occurrences(&symbols);
    if unique_symbols.len() > MAX_DECLARED_SYMBOLS
        || unique_files.len().saturating_mul(unique_symbols.len()) > MAX_DECLARED_PAIRS
    {
        let why = if unique_symbols.len() > MAX_DECLARED_SYMBOLS {
            format!(
                "must contain at most {MAX_DECLARED_SYMBOLS} distinct symbols (got {})",
                unique_symbols.len()
            )
        } else {
            format!(
                "{} files × {} symbols is {} file:symbol pairs; a declare names at most \
                 {MAX_DECLARED_PAIRS} (declare fewer files or symbols, or several intents)",
                unique_files.len(),
                unique_symbols.len(),
                unique_files.len() * unique_symbols.len()
            )
        };
        return Err(crate::params::invalid_request(
            Vec::new(),
            [("symbols".to_owned(), vec![why])].into_iter().collect(),
        )
        .into());
    }

    // AnalysisService from current disk content: per-file ranges and the callees of each
    // declared `file:symbol`.
    let mut ranges: Vec<FileRange> = unique_files
        .iter()
        .map(|f| FileRange {
            file: f.clone(),
            range: None,
        })
        .collect();
    // Each dependency: the intent's `file:symbol`, then every spelling of the callee's
    // lock (canonical first, see `symbol_spellings`).
    let mut dep_pairs: Vec<(String, Vec<String>)> = Vec::new();
    let mut dep_seen: HashSet<(String, Vec<String>)> = HashSet::new();
    let mut outcomes = Vec::new();
    // Callees in other files, from the code graph (issue 10), found in the same trip.
    let mut cross_file = Vec::new();
    if !unique_symbols.is_empty() {
        let (files, symbols) = (unique_files.clone(), unique_symbols.clone());
        (outcomes, cross_file) = state
            .analyse_disk_then(unique_files.clone(), move |outcomes, ix| {
                super::graph::cross_file_callees(ix, &files, outcomes, &symbols)
            })
            .await?;
    }
    if !unique_symbols.is_empty() {
        for (slot, outcome) in ranges.iter_mut().zip(&outcomes) {
            let Some(analysis) = outcome.analysis() else {
                continue;
            };
            slot.range = analysis
                .symbols
                .iter()
                .filter(|s| unique_symbols.iter().any(|n| s.answers_to(n)))
                .map(|s| (s.start_byte as i64, s.end_byte as i64))
                .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
            for name in &unique_symbols {
                let Some(def) = analysis.find(name) else {
                    continue;
                };
                let intent_symbol = format!("{}:{name}", slot.file);
                for callee in analysis.callees_of(def) {
                    let qualified = qualify_callee(&slot.file, analysis, callee);
                    let spellings = if qualified.starts_with("?:") {
                        vec![qualified]
                    } else {
                        symbol_spellings(&slot.file, callee, Some(analysis))
                    };
                    let pair = (intent_symbol.clone(), spellings);
                    if dep_seen.insert(pair.clone()) {
                        dep_pairs.push(pair);
                    }
                }
            }
        }
    }
    for pair in cross_file {
        if !dep_pairs.contains(&pair) {
            dep_pairs.push(pair);
        }
    }
    let unknown = super::graph::unknown_symbols(&unique_files, &outcomes, &unique_symbols);
    // The files as one JSON array for the set-based overlap query and insert, built
    // before the write, so the write itself is a few statements whatever the number of
    // files.
    let file_rows = intents::FileRows::new(&ranges);
    let event_files: Vec<&String> = files.iter().take(EVENT_FILES).collect();
    let event_files = json!(event_files);
    let file_count = files.len();
    let union = ranges
        .iter()
        .filter_map(|r| r.range)
        .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));

    let now = now_ms();
    let record = IntentRecord {
        intent_id: uuid::Uuid::new_v4().to_string(),
        session_id: session,
        description,
        files: format!(",{},", files.join(",")),
        symbols: serde_json::to_string(&symbols).map_err(Failure::internal)?,
        start_byte: union.map(|u| u.0),
        end_byte: union.map(|u| u.1),
        status: IntentStatus::Declared,
        declared_at: now,
        updated_at: now,
        owner_ended: None,
    };
    let intent_id = record.intent_id.clone();
    let worktree = state.worktree_name();
    let items = state
        .write_sized(is_heavy(params), move |tx| {
            let now = tx.now_ms();
            // Stamped when written, so that declaration times follow the order in which
            // intents are stored (a heavy declare is prepared while others are written).
            let mut record = record;
            record.declared_at = record.declared_at.max(now);
            record.updated_at = record.declared_at;
            let me = record.session_id.as_str();
            let mut items = Vec::new();

            // 1. INTENT_OVERLAP, in declaration order of the other intents.
            for other in intents::overlapping_live_of_others(tx, &file_rows, me)? {
                items.push(ConflictItem::IntentOverlap {
                    overlapping_intent_id: other.intent_id,
                    overlapping_session_id: other.session_id,
                    description: other.description,
                });
            }
            // The live locks, read once: what follows is proportional to the locks that
            // exist and the declared files they are in, never to every declared pair
            // looked up in the store.
            let live: HashMap<String, locks::LockRow> = locks::list(tx, None, now)?
                .into_iter()
                .map(|l| (l.symbol_path.clone(), l))
                .collect();
            let locked_files: HashSet<&str> = live
                .values()
                .filter(|l| l.session_id != me)
                .filter_map(|l| l.symbol_path.split_once(':').map(|(file, _)| file))
                .collect();

            // Other sessions' leases over the declared files (exclusive and shared).
            let (lease_items, exclusive) =
                super::holds::others_over_files(tx, &unique_files, me, now)?;

            // 2. LOCK_INTERSECTION for each declared file × symbol, whichever spelling
            //    of the definition the lock is under; or, with no such lock, when the file
            //    is under another session's exclusive lease: the symbol is then locked to
            //    this session as surely (its lock.acquire is LOCK_CONFLICT), and a v1
            //    client learns it the one way v1 can say it.
            //    Only files with another session's lock or exclusive lease are looked at.
            for (i, file) in unique_files.iter().enumerate() {
                let locked = locked_files.contains(file.as_str());
                let lease = exclusive.iter().find(|l| l.patterns().covers(file));
                if !locked && lease.is_none() {
                    continue;
                }
                let analysis = outcomes.get(i).and_then(|o| o.analysis()).map(|a| &**a);
                for name in &unique_symbols {
                    let given = format!("{file}:{name}");
                    let held = locked
                        .then(|| {
                            let mut spellings = symbol_spellings(file, name, analysis);
                            if !spellings.contains(&given) {
                                spellings.push(given.clone());
                            }
                            live_lock_of_other(&live, &spellings, me)
                        })
                        .flatten();
                    if let Some(lock) = held {
                        items.push(ConflictItem::LockIntersection {
                            symbol_path: lock.spelling,
                            held_by: lock.session_id,
                            expires_at: iso8601_millis(lock.expires_at),
                        });
                    } else if let Some(lease) = lease {
                        items.push(ConflictItem::LockIntersection {
                            symbol_path: given,
                            held_by: lease.session_id.clone(),
                            expires_at: iso8601_millis(lease.expires_at),
                        });
                    }
                }
            }

            // 3. DEP_CHAIN for each callee of a declared symbol.
            for (intent_symbol, spellings) in dep_pairs {
                if let Some(lock) = live_lock_of_other(&live, &spellings, me) {
                    items.push(ConflictItem::DepChain {
                        intent_symbol,
                        locked_callee: lock.spelling,
                        held_by: lock.session_id,
                    });
                }
            }

            intents::insert(tx, &record, &file_rows)?;
            super::session_seen(tx, me, &worktree, now)?;
            event(
                tx,
                "intent.declared",
                Some(&record.session_id),
                &record.intent_id,
                json!({
                    "description": record.description,
                    "files": event_files,
                    "fileCount": file_count,
                    "symbols": record.symbol_list(),
                    "conflicts": items.len(),
                    "leaseConflicts": lease_items.len(),
                }),
            )?;
            Ok((items, lease_items))
        })
        .await?;
    let (items, lease_items) = items;
    let mut answer = to_value(&IntentDeclared {
        intent_id,
        conflicts: ConflictReport {
            has_conflicts: !items.is_empty(),
            items,
        },
    })?;
    // Extension: the leases, in the conflict report beside the v1 items (not among them:
    // wit-core 0.1's `ConflictItem`, on which v1 clients such as `wit declare` are built,
    // is a closed set, and an unknown item type would fail their whole answer), and as
    // `leaseConflicts`, where the first form of this extension put them.
    if !lease_items.is_empty() {
        answer["conflicts"]["leases"] = Value::Array(lease_items.clone());
        answer["leaseConflicts"] = Value::Array(lease_items);
    }
    Ok(super::graph::with_unknown(answer, unknown))
}

/// The first live lock (of `live`) under one of `spellings` (of one definition), when
/// another session than `me` holds it.
fn live_lock_of_other(
    live: &HashMap<String, locks::LockRow>,
    spellings: &[String],
    me: &str,
) -> Option<locks::LockRow> {
    let lock = spellings.iter().find_map(|path| live.get(path))?;
    (lock.session_id != me).then(|| lock.clone())
}

/// The distinct items of `items`, each at its first occurrence.
fn first_occurrences(items: &[String]) -> Vec<String> {
    let mut seen: HashSet<&str> = HashSet::with_capacity(items.len());
    items
        .iter()
        .filter(|i| seen.insert(i.as_str()))
        .cloned()
        .collect()
}

/// `intent.update {intentId, sessionId, status}`.
pub(crate) async fn update(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let intent_id = p.req_str("intentId");
    let session = p.req_str("sessionId");
    let status = p.req_enum("status", TARGET_STATUSES);
    p.finish()?;
    let (intent_id, session) = (validated(intent_id)?, validated(session)?);
    let requested = validated(status.as_deref().and_then(IntentStatus::parse))?;
    let updated = state
        .write(move |tx| {
            let Some(intent) = intents::get(tx, &intent_id)? else {
                return Err(Failure::bare(ErrorCode::IntentNotFound));
            };
            if intent.session_id != session {
                return Err(Failure::bare(ErrorCode::IntentNotOwned));
            }
            if !intent.status.can_become(requested) {
                return Err(Failure::domain(
                    ErrorCode::InvalidTransition,
                    json!({ "current": intent.status.as_str(), "requested": requested.as_str() }),
                ));
            }
            let now = tx.now_ms().max(intent.updated_at);
            intents::set_status(tx, &intent_id, requested, now)?;
            event(
                tx,
                "intent.updated",
                Some(&session),
                &intent_id,
                json!({ "from": intent.status.as_str(), "status": requested.as_str() }),
            )?;
            Ok(IntentUpdated {
                intent_id,
                status: requested,
                updated_at: now,
            })
        })
        .await?;
    to_value(&updated)
}

/// `intent.query {sessionId?, file?, status?}`. Extension: an intent whose session ended
/// after its last change carries `ownerEnded {at, reason}` — it stays until its owner
/// or another session (`intent.abandon`) closes it.
pub(crate) async fn query(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.opt_str("sessionId");
    let file = p.opt_file("file");
    let status = p.opt_enum("status", ALL_STATUSES);
    p.finish()?;
    let status = status.as_deref().and_then(IntentStatus::parse);
    let records = state
        .read(move |conn| {
            let mut records = intents::query(conn, session.as_deref(), file.as_deref(), status)?;
            for r in &mut records {
                r.owner_ended = ended_after(conn, &r.session_id, r.updated_at)?
                    .map(|(at, reason)| OwnerEnded { at, reason });
            }
            Ok(records)
        })
        .await?;
    to_value(&records)
}

/// When `session` ended at or after `since` (Unix ms), and why.
fn ended_after(conn: &dyn Db, session: &str, since: i64) -> Result<Option<(i64, String)>, Failure> {
    Ok(conn.query_opt(
        "SELECT ended_at, reason FROM ended_sessions WHERE session_id = ?1 AND ended_at >= ?2",
        args![session, since],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// `intent.abandon {intentId, sessionId, reason?, force?}` (extension): closes an intent
/// as abandoned. Its owner may always; another session may when the owner's session
/// ended after the intent's last change (`session.end`, or its heartbeats stopped), or
/// with `force: true` — either way with a `reason`, recorded in the audit log and the
/// event, so that an intent is never closed silently by someone else.
pub(crate) async fn abandon(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let intent_id = p.req_str("intentId");
    let session = p.req_str("sessionId");
    let reason = p.opt_str("reason");
    let force = p.opt_bool("force");
    p.finish()?;
    let (intent_id, session) = (validated(intent_id)?, validated(session)?);
    let reason = reason.filter(|r| !r.trim().is_empty());
    let force = force.unwrap_or(false);
    state
        .write(move |tx| {
            let Some(intent) = intents::get(tx, &intent_id)? else {
                return Err(Failure::bare(ErrorCode::IntentNotFound));
            };
            let own = intent.session_id == session;
            let ended = ended_after(tx, &intent.session_id, intent.updated_at)?;
            if !own {
                if ended.is_none() && !force {
                    return Err(Failure::domain(
                        ErrorCode::IntentNotOwned,
                        json!({
                            "owner": intent.session_id,
                            "ownerEnded": false,
                            "hint": "the owner's session has not ended; pass force: true \
                                     with a reason to abandon it anyway (recorded)",
                        }),
                    ));
                }
                if reason.is_none() {
                    return Err(crate::params::invalid_request(
                        vec!["reason: is required to abandon another session's intent".into()],
                        Default::default(),
                    )
                    .into());
                }
            }
            if !intent.status.can_become(IntentStatus::Abandoned) {
                return Err(Failure::domain(
                    ErrorCode::InvalidTransition,
                    json!({ "current": intent.status.as_str(), "requested": "abandoned" }),
                ));
            }
            let now = tx.now_ms().max(intent.updated_at);
            intents::set_status(tx, &intent_id, IntentStatus::Abandoned, now)?;
            if !own {
                let action = if ended.is_some() {
                    "intent-abandoned"
                } else {
                    "forced"
                };
                crate::store::audit::record(
                    tx,
                    now,
                    action,
                    &format!("intent:{intent_id}"),
                    &intent.session_id,
                    Some(&session),
                    reason.as_deref().unwrap_or_default(),
                )?;
            }
            event(
                tx,
                "intent.updated",
                Some(&intent.session_id),
                &intent_id,
                json!({
                    "from": intent.status.as_str(),
                    "status": "abandoned",
                    "by": session,
                    "reason": reason,
                }),
            )?;
            Ok(json!({
                "intentId": intent_id,
                "status": "abandoned",
                "updatedAt": now,
                "owner": intent.session_id,
                "by": session,
                "reason": reason,
            }))
        })
        .await
}

/// Abandons every live intent of `session` inside a write (`session.end` with
/// `abandonIntents`); returns their ids.
pub(crate) fn abandon_all_of(tx: &dyn Db, session: &str) -> Result<Vec<String>, Failure> {
    let now = tx.now_ms();
    let mut ids = Vec::new();
    for intent in intents::query(tx, Some(session), None, None)? {
        let at = now.max(intent.updated_at);
        intents::set_status(tx, &intent.intent_id, IntentStatus::Abandoned, at)?;
        event(
            tx,
            "intent.updated",
            Some(session),
            &intent.intent_id,
            json!({ "from": intent.status.as_str(), "status": "abandoned", "sessionEnded": true }),
        )?;
        ids.push(intent.intent_id);
    }
    Ok(ids)
}
