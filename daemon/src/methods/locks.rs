//! `lock.acquire`, `lock.release`, `lock.query`.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use wit_core::protocol::{
    CallerWarning, ErrorCode, LockAcquired, LockRecord, Released, iso8601_millis,
};
use wit_core::{Analysis, SymbolPath};

use super::holds::MAX_TTL_MS;
use super::{Failure, event, to_value, validated};
use crate::analysis::symbol_spellings;
use crate::clock::now_ms;
use crate::params::Params;
use crate::state::AppState;
use crate::store::leases::LeaseRow;
use crate::store::locks::{self, LockRow};

/// Longest `waitMs` (extension): one hour.
const MAX_WAIT_MS: u64 = 3_600_000;

/// `lock.acquire {symbolPath, sessionId, ttlMs?}`.
///
/// The lock is stored under the symbol's canonical path (see
/// [`crate::analysis::symbol_spellings`]): `src/store.py:get` naming the method
/// `Store.get` is locked as `src/store.py:Store.get`, and a lock another session holds
/// under any spelling of the same definition is a LOCK_CONFLICT. Protocol v1 answers in
/// the request's spelling (`src/store.py:get`), and names the lock so wherever it shows it
/// (lock.query, caller warnings, LOCK_INTERSECTION, DEP_CHAIN): agents compare strings.
/// A file that does not analyse (missing, unsupported, refused) is locked as given.
pub(crate) async fn acquire(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.symbol_path("symbolPath");
    let session = p.req_str("sessionId");
    let ttl = p.opt_positive_int("ttlMs", MAX_TTL_MS);
    let wait_ms = p.opt_non_negative_int("waitMs", MAX_WAIT_MS);
    p.finish()?;
    let (symbol_path, session) = (validated(symbol_path)?, validated(session)?);
    let ttl = ttl.unwrap_or(state.config.default_lock_ttl_ms) as i64;
    let sp = validated(SymbolPath::parse(&symbol_path))?;

    // Analysed first: the canonical name decides which row is the lock, and the same
    // analysis gives the caller warnings once the lock is taken.
    let outcome = state.analyse_disk(vec![sp.file.to_owned()]).await?;
    let analysis = outcome.first().and_then(|o| o.analysis()).cloned();
    let spellings = symbol_spellings(sp.file, sp.name, analysis.as_deref());

    let wait = wait_ms.unwrap_or(0);
    let outcome = if wait == 0 {
        try_take(state, &spellings, &symbol_path, &session, ttl)
            .await?
            .0
    } else {
        wait_for_lock(state, &spellings, &symbol_path, &session, ttl, wait).await?
    };
    let row = match outcome {
        Ok(row) => row,
        Err(Blocker::Lock(holder)) => {
            return Err(Failure::domain(
                ErrorCode::LockConflict,
                json!({ "heldBy": holder.session_id, "expiresAt": iso8601_millis(holder.expires_at) }),
            ));
        }
        // Extension: a v1 client sees an ordinary LOCK_CONFLICT (holder and expiry are
        // the lease's); `lease` says what it is.
        Err(Blocker::Lease(lease)) => {
            return Err(Failure::domain(
                ErrorCode::LockConflict,
                json!({
                    "heldBy": lease.session_id,
                    "expiresAt": iso8601_millis(lease.expires_at),
                    "lease": super::holds::lease_json(&lease, now_ms()),
                }),
            ));
        }
    };
    let (warnings, guesses) = match &analysis {
        Some(analysis) => {
            caller_warnings(
                state,
                sp.file,
                sp.name,
                (&row.symbol_path, &row.spelling),
                analysis,
                &session,
            )
            .await?
        }
        None => (Vec::new(), Vec::new()),
    };
    let outcomes = [match &analysis {
        Some(a) => crate::analysis::FileOutcome::Analysed(a.clone()),
        None => crate::analysis::FileOutcome::NotFound,
    }];
    let unknown =
        super::graph::unknown_symbols(&[sp.file.to_owned()], &outcomes, &[sp.name.to_owned()]);
    // v1 answers with the path as the request spelled it (normalized); the lock itself is
    // stored, excluded and announced (events, extensions) under the canonical one.
    let value = to_value(&LockAcquired {
        symbol_path: row.spelling,
        session_id: row.session_id,
        acquired_at: iso8601_millis(row.acquired_at),
        expires_at: iso8601_millis(row.expires_at),
        warnings,
    })?;
    let mut value = super::graph::with_unknown(value, unknown);
    // Extension: callers the graph only guesses by name, said to be guesses.
    if !guesses.is_empty() {
        value["nameOnlyWarnings"] = guesses
            .into_iter()
            .map(|w| {
                let mut w = serde_json::to_value(w).unwrap_or_default();
                w["resolution"] = json!("name-only");
                w
            })
            .collect();
    }
    Ok(value)
}

/// What keeps a session from a lock.
enum Blocker {
    /// Another session's lock on the symbol (under some spelling).
    Lock(LockRow),
    /// Another session's exclusive lease over the symbol's file.
    Lease(LeaseRow),
}

impl Blocker {
    fn expires_at(&self) -> i64 {
        match self {
            Blocker::Lock(l) => l.expires_at,
            Blocker::Lease(l) => l.expires_at,
        }
    }
}

/// One attempt at the lock under its canonical spelling (`spellings[0]`): `Ok(row)` when
/// taken or refreshed, `Err` when another session holds it (under any spelling) or holds
/// an exclusive lease over its file; with the store's clock at the decision.
async fn try_take(
    state: &AppState,
    spellings: &[String],
    given: &str,
    session: &str,
    ttl: i64,
) -> Result<(Result<LockRow, Blocker>, i64), Failure> {
    let who = session.to_owned();
    let given = given.to_owned();
    let aliases = spellings.to_vec();
    let worktree = state.worktree_name();
    let Some((canonical, others)) = aliases.split_first() else {
        return Err(Failure::internal("a symbol path without a spelling"));
    };
    let (declared_canonical, declared_others, declared_who) =
        (canonical.clone(), others.to_vec(), who.clone());
    let taken = state
        .write_prefetched(
            Box::new(move || decision_reads(&declared_canonical, &declared_others, &declared_who)),
            move |tx| {
                let now = tx.now_ms();
                let Some((canonical, others)) = aliases.split_first() else {
                    return Err(Failure::internal("a symbol path without a spelling"));
                };
                // Everything the decision reads, in one go (one round trip to PostgreSQL, or
                // none of its own: declared ahead, it travels with the batch's other reads).
                let reads = decision_reads(canonical, others, &who);
                let queries: Vec<_> = reads.iter().map(crate::store::db::Read::query).collect();
                let answers = tx.rows_all(&queries)?;
                let (alias_rows, rest) = answers.split_at(others.len());
                let [leases, canonical_rows] = rest else {
                    return Err(Failure::internal("a query of the batch went unanswered"));
                };
                for (alias, rows) in others.iter().zip(alias_rows) {
                    // A row under another spelling (written before locks were kept under
                    // the canonical name) counts only while it lasts.
                    if let Some(lock) = locks::live(rows, now)? {
                        if lock.session_id != who {
                            return Ok((Err(Blocker::Lock(lock)), now));
                        }
                        // Our own lock under another spelling becomes the canonical one.
                        locks::delete(tx, alias)?;
                    }
                }
                let file = canonical.split_once(':').map_or("", |(f, _)| f);
                let leases = crate::store::leases::unexpired(leases, now)?;
                if let Some(lease) = super::holds::covering(leases, file) {
                    return Ok((Err(Blocker::Lease(lease)), now));
                }
                let before = locks::first(canonical_rows)?;
                if let Some(old) = before.as_ref().filter(|l| l.expires_at <= now) {
                    crate::store::audit::record(
                        tx,
                        now,
                        "expired",
                        canonical,
                        &old.session_id,
                        None,
                        "its TTL ran out (taken over)",
                    )?;
                    event(
                        tx,
                        "lock.expired",
                        Some(&old.session_id),
                        canonical,
                        json!({ "expiredAt": iso8601_millis(old.expires_at) }),
                    )?;
                }
                let taken = locks::take(
                    tx,
                    before.clone(),
                    canonical,
                    &given,
                    &who,
                    now,
                    now.saturating_add(ttl),
                )?
                .map_err(Blocker::Lock);
                if taken.is_ok() {
                    super::session_seen(tx, &who, &worktree, now)?;
                }
                if let Ok(row) = &taken {
                    let refreshed = before
                        .as_ref()
                        .is_some_and(|l| l.expires_at > now && l.session_id == who);
                    event(
                        tx,
                        if refreshed {
                            "lock.refreshed"
                        } else {
                            "lock.acquired"
                        },
                        Some(&who),
                        canonical,
                        json!({ "expiresAt": iso8601_millis(row.expires_at), "ttlMs": ttl }),
                    )?;
                }
                Ok((taken, now))
            },
        )
        .await;
    if let Ok((Ok(row), _)) = &taken {
        state.lock_expiry.lock_expires_at(row.expires_at);
    }
    taken
}

/// What deciding a `lock.acquire` reads: each other spelling's lock and the canonical
/// row, and the exclusive leases of others; expired or not (expiry is checked on the
/// answers, so the reads can be declared before the store's clock is read: see
/// [`crate::store::db::Read`]).
fn decision_reads(canonical: &str, others: &[String], who: &str) -> Vec<crate::store::db::Read> {
    let mut reads: Vec<_> = others.iter().map(|a| locks::get_any_read(a)).collect();
    reads.push(crate::store::leases::exclusive_of_others_read(who));
    reads.push(locks::get_any_read(canonical));
    reads
}

/// `lock.acquire` with `waitMs` (extension): queues behind the holder, first come first
/// served among the waiters of this symbol, until the lock is free or `wait_ms` passes.
/// Only the head of the queue tries; every committed write that changed something (a
/// release, a forced release; not its own failed tries, which change nothing) wakes it,
/// and it also wakes when the holder's TTL runs out. A waiter whose client goes away
/// leaves the queue (its ticket is dropped with the request).
async fn wait_for_lock(
    state: &AppState,
    spellings: &[String],
    given: &str,
    session: &str,
    ttl: i64,
    wait_ms: u64,
) -> Result<Result<LockRow, Blocker>, Failure> {
    let key = spellings.first().cloned().unwrap_or_default();
    let ticket = state.lock_queues.join(&key);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(wait_ms);
    let mut changed = state.events.subscribe();
    loop {
        // Marked before looking, so a write between the look and the wait still wakes us.
        changed.mark_unchanged();
        let timed_out = tokio::time::Instant::now() >= deadline;
        // The head of the line tries (and so does anyone whose wait ran out, for its
        // answer); the others only look when the current lock expires.
        // How long the holder has left, on the store's clock (the one expiry is decided
        // by: a host whose clock differs from the database's still wakes on time).
        let left = if ticket.is_head() || timed_out {
            match try_take(state, spellings, given, session, ttl).await? {
                (Ok(row), _) => return Ok(Ok(row)),
                (Err(holder), _) if timed_out => return Ok(Err(holder)),
                (Err(holder), now) => Some(holder.expires_at() - now),
            }
        } else {
            // Free but not ours to take yet (waiters ahead go first): `None`.
            current_holder(state, &key)
                .await?
                .map(|(h, now)| h.expires_at - now)
        };
        // Wake at the next committed write, at the holder's expiry, or at the deadline.
        let until = match left {
            Some(ms) => deadline.min(
                tokio::time::Instant::now() + std::time::Duration::from_millis(ms.max(0) as u64),
            ),
            None => deadline,
        };
        let _ = tokio::time::timeout_at(until, changed.changed()).await;
    }
}

/// The unexpired lock on `symbol_path`, if any, with the store's clock when it was read.
async fn current_holder(
    state: &AppState,
    symbol_path: &str,
) -> Result<Option<(LockRow, i64)>, Failure> {
    let path = symbol_path.to_owned();
    state
        .read(move |conn| {
            let now = conn.now_ms();
            Ok(locks::get(conn, &path, now)?.map(|l| (l, now)))
        })
        .await
}

/// Callers of the newly locked symbol (`name` in `file`, locked as `locked`: its canonical
/// path and the request's spelling) that another session has locked, each named as its
/// holder named it, the chain ending with the symbol as this request named it (v1
/// compares these strings).
///
/// A warning names a caller that resolution links to the symbol (the code graph's
/// callers in any file, each as its lock spellings, canonical first). Callers the graph
/// only guesses by name come back apart (the second list), never mixed in. While the
/// graph does not know the definition (not indexed yet), v1's rule stands: the same-file
/// callers of the name.
///
/// Only a caller another session holds a lock in can be warned about, so the other
/// sessions' locks are read first (after ours is taken: every lock taken before ours is
/// seen): with none, there is nothing to look for; with a few, only their files' calls
/// are resolved, and those locks are the ones the warnings name (no second read).
/// Finding every caller of a name resolves each call of it in the repository: a name
/// defined in a thousand files of a large one, called from a thousand more, took 4 ms,
/// on every first lock of a symbol and again after any interface changed anywhere, which
/// during the index's build is all the time.
async fn caller_warnings(
    state: &AppState,
    file: &str,
    name: &str,
    (locked, given): (&str, &str),
    analysis: &Arc<Analysis>,
    session: &str,
) -> Result<(Vec<CallerWarning>, Vec<CallerWarning>), Failure> {
    let me = session.to_owned();
    let others = state
        .read(move |conn| {
            let now = conn.now_ms();
            Ok(locks::held_by_others(conn, &me, now)?)
        })
        .await?;
    // With a few: those locks are all a warning can name, read already.
    let few = match others {
        locks::Others::None => return Ok((Vec::new(), Vec::new())),
        locks::Others::Few(rows) => Some(rows),
        locks::Others::Many => None,
    };
    // A caller's candidate spellings are `its file:its name`, and a lock matches one
    // exactly: every part of a lock's path before a colon may be that file (a file name
    // may hold a colon).
    let within: Option<HashSet<String>> = few.as_ref().map(|rows| {
        rows.iter()
            .flat_map(|l| {
                let p = &l.symbol_path;
                p.match_indices(':').map(|(i, _)| p[..i].to_owned())
            })
            .collect()
    });
    let graph = {
        let (file, name, fresh) = (file.to_owned(), name.to_owned(), analysis.clone());
        state
            .with_index(move |ix| {
                super::graph::caller_spellings(ix, &file, &name, &fresh, within.as_ref())
            })
            .await?
    };
    let mut candidate_lists: Vec<Vec<String>> = Vec::new();
    if !graph.known {
        // Call edges name callees by their bare name (`obj.save()` → `save`).
        let bare = analysis
            .find(name)
            .map(|s| s.name.clone())
            .unwrap_or_else(|| name.rsplit('.').next().unwrap_or(name).to_owned());
        let mut callers: Vec<String> = Vec::new();
        for caller in analysis.callers_of(&bare) {
            if !callers.iter().any(|c| c == caller) {
                callers.push(caller.to_owned());
            }
        }
        // A method caller may be locked by its qualified or its bare name.
        candidate_lists = callers
            .iter()
            .map(|caller| {
                let mut candidates = vec![format!("{file}:{caller}")];
                if let Some((_, bare)) = caller.rsplit_once('.') {
                    candidates.push(format!("{file}:{bare}"));
                }
                candidates
            })
            .collect();
    }
    let add = |lists: &mut Vec<Vec<String>>, spellings: Vec<String>| {
        if !lists
            .iter()
            .any(|c| c.iter().any(|p| spellings.contains(p)))
        {
            lists.push(spellings);
        }
    };
    // Same-file callers first, as v1 lists them, then the other files' (stable order).
    let mut resolved = graph.resolved;
    let own = format!("{file}:");
    resolved.sort_by_key(|spellings| !spellings.iter().any(|p| p.starts_with(&own)));
    for spellings in resolved {
        add(&mut candidate_lists, spellings);
    }
    let mut guesses: Vec<Vec<String>> = Vec::new();
    for spellings in graph.name_only {
        if !candidate_lists
            .iter()
            .any(|c| c.iter().any(|p| spellings.contains(p)))
        {
            add(&mut guesses, spellings);
        }
    }
    if candidate_lists.is_empty() && guesses.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    if let Some(rows) = few {
        let by_path: std::collections::HashMap<&str, &LockRow> =
            rows.iter().map(|l| (l.symbol_path.as_str(), l)).collect();
        let mut get = |p: &str| Ok(by_path.get(p).map(|l| (*l).clone()));
        let (held, guessed) = (
            held_callers(candidate_lists, (locked, given), session, &mut get)?,
            held_callers(guesses, (locked, given), session, &mut get)?,
        );
        return Ok((held, guessed));
    }
    let (locked, given, me) = (locked.to_owned(), given.to_owned(), session.to_owned());
    state
        .read(move |conn| {
            let now = conn.now_ms();
            let mut get = |p: &str| Ok(locks::get(conn, p, now)?);
            let held = held_callers(candidate_lists, (&locked, &given), &me, &mut get)?;
            let guessed = held_callers(guesses, (&locked, &given), &me, &mut get)?;
            Ok((held, guessed))
        })
        .await
}

/// The warnings for `lists` (each caller's lock spellings): the first spelling of each
/// that `get` finds locked by a session other than `me`, skipping the lock just taken
/// (`locked`; `given`: its spelling in the request, which ends each chain).
fn held_callers(
    lists: Vec<Vec<String>>,
    (locked, given): (&str, &str),
    me: &str,
    get: &mut dyn FnMut(&str) -> Result<Option<LockRow>, Failure>,
) -> Result<Vec<CallerWarning>, Failure> {
    let mut warnings = Vec::new();
    for candidates in lists {
        for candidate in candidates {
            if candidate == locked {
                continue;
            }
            if let Some(lock) = get(&candidate)?
                && lock.session_id != me
            {
                warnings.push(CallerWarning {
                    locked_symbol: lock.spelling.clone(),
                    held_by: lock.session_id,
                    chain: vec![lock.spelling, given.to_owned()],
                });
                break;
            }
        }
    }
    Ok(warnings)
}

/// `lock.release {symbolPath, sessionId}`: by any spelling of the locked definition.
///
/// The path as given is tried first (no analysis: the client usually sends back what
/// `lock.acquire` answered); when no lock has that name, the file is analysed and the
/// other spellings of the same definition are tried.
pub(crate) async fn release(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let symbol_path = p.lenient_symbol_path("symbolPath");
    let session = p.req_str("sessionId");
    p.finish()?;
    let (symbol_path, session) = (validated(symbol_path)?, validated(session)?);
    super::holds::by_any_spelling(state, &symbol_path, |spellings| {
        release_one_of(state, spellings, session.clone())
    })
    .await?;
    to_value(&Released { released: true })
}

/// Releases the first of `spellings` that names a live lock, if `session` holds it.
async fn release_one_of(
    state: &AppState,
    spellings: Vec<String>,
    session: String,
) -> Result<(), Failure> {
    // The first spelling's lock is what a release reads first: declared ahead.
    let first = spellings.first().cloned().unwrap_or_default();
    state
        .write_prefetched(
            Box::new(move || vec![locks::get_any_read(&first)]),
            move |tx| {
                let now = tx.now_ms();
                for path in &spellings {
                    let q = locks::get_any_query(path);
                    let Some(lock) = locks::live(&tx.rows(&q.sql, &q.args)?, now)? else {
                        continue;
                    };
                    if lock.session_id != session {
                        return Err(Failure::domain(
                            ErrorCode::LockNotHeld,
                            json!({ "heldBy": lock.session_id }),
                        ));
                    }
                    locks::delete(tx, path)?;
                    event(tx, "lock.released", Some(&session), path, json!({}))?;
                    return Ok(());
                }
                // Gone: if another session forced it away from us, say so (the former
                // holder learns it from its next call, not only from the events).
                for path in &spellings {
                    if let Some(f) = crate::store::audit::last_forced(tx, path, &session)? {
                        return Err(Failure::domain(
                            ErrorCode::LockNotFound,
                            json!({ "forced": { "by": f.by, "at": f.at, "reason": f.reason } }),
                        ));
                    }
                }
                Err(Failure::bare(ErrorCode::LockNotFound))
            },
        )
        .await
}

/// `lock.query {sessionId?}`.
pub(crate) async fn query(state: &AppState, params: &Map<String, Value>) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let session = p.opt_str("sessionId");
    p.finish()?;
    let (now, rows) = state
        .read(move |conn| {
            let now = conn.now_ms();
            Ok((now, locks::list(conn, session.as_deref(), now)?))
        })
        .await?;
    let records: Vec<LockRecord> = rows
        .into_iter()
        .map(|r: LockRow| LockRecord {
            ttl_remaining_ms: r.expires_at - now,
            symbol_path: r.spelling,
            session_id: r.session_id,
            acquired_at: iso8601_millis(r.acquired_at),
            expires_at: iso8601_millis(r.expires_at),
        })
        .collect();
    to_value(&records)
}
