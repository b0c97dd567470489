//! `intent.declare`, `intent.update`, `intent.query`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use wit_core::protocol::{
    ConflictItem, ConflictReport, ErrorCode, IntentDeclared, IntentRecord, IntentStatus,
    IntentUpdated, iso8601_millis,
};

use super::{Failure, event, to_value, validated};
use crate::analysis::{qualify_callee, symbol_spellings};
use crate::params::Params;
use crate::state::{AppState, now_ms};
use crate::store::intents::{self, FileRange};
use crate::store::locks;

const ALL_STATUSES: &[&str] = &["declared", "active", "resolved", "abandoned"];
const TARGET_STATUSES: &[&str] = &["active", "resolved", "abandoned"];

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

    let mut unique_files: Vec<String> = Vec::with_capacity(files.len());
    for f in &files {
        if !unique_files.contains(f) {
            unique_files.push(f.clone());
        }
    }
    let mut unique_symbols: Vec<String> = Vec::with_capacity(symbols.len());
    for s in &symbols {
        if !unique_symbols.contains(s) {
            unique_symbols.push(s.clone());
        }
    }

    // Analysis from current disk content: per-file ranges and the callees of each
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
    // Each declared `file:symbol` as the spellings its lock may have.
    let mut lock_pairs: Vec<Vec<String>> = Vec::new();
    let mut outcomes = Vec::new();
    if !unique_symbols.is_empty() {
        outcomes = state.analyse_disk(unique_files.clone()).await?;
    }
    for (i, file) in unique_files.iter().enumerate() {
        let analysis = outcomes.get(i).and_then(|o| o.analysis()).map(|a| &**a);
        for name in &unique_symbols {
            let mut spellings = symbol_spellings(file, name, analysis);
            let given = format!("{file}:{name}");
            if !spellings.contains(&given) {
                spellings.push(given);
            }
            lock_pairs.push(spellings);
        }
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
                    if !dep_pairs
                        .iter()
                        .any(|(i, c)| *i == intent_symbol && *c == spellings)
                    {
                        dep_pairs.push((intent_symbol.clone(), spellings));
                    }
                }
            }
        }
    }
    // Callees in other files, from the code graph (issue 10).
    for pair in
        super::graph::cross_file_callees(state, &unique_files, &outcomes, &unique_symbols).await?
    {
        if !dep_pairs.contains(&pair) {
            dep_pairs.push(pair);
        }
    }
    let unknown = super::graph::unknown_symbols(&unique_files, &outcomes, &unique_symbols);
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
    };
    let intent_id = record.intent_id.clone();
    let items = state
        .write(move |tx| {
            let now = now_ms();
            let me = record.session_id.as_str();
            let mut items = Vec::new();

            // 1. INTENT_OVERLAP, in declaration order of the other intents.
            let mut overlapping: BTreeMap<i64, (String, String, String)> = BTreeMap::new();
            for mine in &ranges {
                for other in intents::live_on_file_of_others(tx, &mine.file, me)? {
                    let overlaps = match (mine.range, other.range) {
                        (Some((s, e)), Some((os, oe))) => s < oe && e > os,
                        _ => true,
                    };
                    if overlaps {
                        overlapping.entry(other.rowid).or_insert((
                            other.intent_id,
                            other.session_id,
                            other.description,
                        ));
                    }
                }
            }
            for (_, (id, sess, desc)) in overlapping {
                items.push(ConflictItem::IntentOverlap {
                    overlapping_intent_id: id,
                    overlapping_session_id: sess,
                    description: desc,
                });
            }

            // 2. LOCK_INTERSECTION for each declared file × symbol, whichever spelling
            //    of the definition the lock is under.
            for spellings in &lock_pairs {
                if let Some(lock) = live_lock_of_other(tx, spellings, me, now)? {
                    items.push(ConflictItem::LockIntersection {
                        symbol_path: lock.symbol_path,
                        held_by: lock.session_id,
                        expires_at: iso8601_millis(lock.expires_at),
                    });
                }
            }

            // 3. DEP_CHAIN for each callee of a declared symbol.
            for (intent_symbol, spellings) in dep_pairs {
                if let Some(lock) = live_lock_of_other(tx, &spellings, me, now)? {
                    items.push(ConflictItem::DepChain {
                        intent_symbol,
                        locked_callee: lock.symbol_path,
                        held_by: lock.session_id,
                    });
                }
            }

            intents::insert(tx, &record, &ranges)?;
            event(
                tx,
                "intent.declared",
                Some(&record.session_id),
                &record.intent_id,
                json!({
                    "description": record.description,
                    "files": record.file_list(),
                    "symbols": record.symbol_list(),
                    "conflicts": items.len(),
                }),
            )?;
            Ok(items)
        })
        .await?;
    let value = to_value(&IntentDeclared {
        intent_id,
        conflicts: ConflictReport {
            has_conflicts: !items.is_empty(),
            items,
        },
    })?;
    Ok(super::graph::with_unknown(value, unknown))
}

/// The first live lock under one of `spellings` (of one definition), when another
/// session than `me` holds it.
fn live_lock_of_other(
    conn: &rusqlite::Connection,
    spellings: &[String],
    me: &str,
    now: i64,
) -> Result<Option<locks::LockRow>, Failure> {
    for path in spellings {
        if let Some(lock) = locks::get(conn, path, now)? {
            return Ok((lock.session_id != me).then_some(lock));
        }
    }
    Ok(None)
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
            let now = now_ms().max(intent.updated_at);
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

/// `intent.query {sessionId?, file?, status?}`.
pub(crate) async fn query(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.opt_str("sessionId");
    let file = p.opt_file("file");
    let status = p.opt_enum("status", ALL_STATUSES);
    p.finish()?;
    let status = status.as_deref().and_then(IntentStatus::parse);
    let records = state
        .read(move |conn| {
            Ok(intents::query(
                conn,
                session.as_deref(),
                file.as_deref(),
                status,
            )?)
        })
        .await?;
    to_value(&records)
}
