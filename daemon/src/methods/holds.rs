//! What locks and leases hold, as the methods show and match it: the pieces that locks,
//! leases, intents and liveness share, in a home of their own below all four, so that
//! their imports run one way (liveness ends a session's intents and leases; intents,
//! locks and leases only read these).

use serde_json::{Value, json};
use wit_core::SymbolPath;
use wit_core::protocol::{ErrorCode, iso8601_millis};

use super::{Failure, event};
use crate::analysis::symbol_spellings;
use crate::leases::Patterns;
use crate::state::AppState;
use crate::store::audit;
use crate::store::db::Db;
use crate::store::leases::{self, LeaseRow};

/// Runs `attempt` on the lock `symbol_path` names, by any name of its definition: with
/// the path as given, then, when no lock stands under it (`LOCK_NOT_FOUND`), with the
/// definition's other spellings. Locks are kept under the canonical name, so a method
/// given `src/a.ts:save` (as `lock.acquire` echoed it) finds `src/a.ts:Session.save`.
/// The first attempt's error stands when there is no other spelling.
pub(crate) async fn by_any_spelling<T, F, Fut>(
    state: &AppState,
    symbol_path: &str,
    mut attempt: F,
) -> Result<T, Failure>
where
    F: FnMut(Vec<String>) -> Fut,
    Fut: std::future::Future<Output = Result<T, Failure>>,
{
    match attempt(vec![symbol_path.to_owned()]).await {
        Err(f) if f.0.kind() == Some(ErrorCode::LockNotFound) => {
            let others = other_spellings(state, symbol_path).await?;
            if others.is_empty() {
                return Err(f);
            }
            attempt(others).await
        }
        done => done,
    }
}

/// The other spellings of the definition `symbol_path` names (canonical first), from the
/// file's current content. Empty for a path that is not `file:name`, or a file that is
/// gone or does not analyse.
async fn other_spellings(state: &AppState, symbol_path: &str) -> Result<Vec<String>, Failure> {
    let Some(sp) = SymbolPath::parse(symbol_path) else {
        return Ok(Vec::new());
    };
    let outcome = state.analyse_disk(vec![sp.file.to_owned()]).await?;
    let analysis = outcome.first().and_then(|o| o.analysis());
    Ok(symbol_spellings(sp.file, sp.name, analysis.map(|a| &**a))
        .into_iter()
        .filter(|s| s != symbol_path)
        .collect())
}

/// Largest accepted `ttlMs`: about 100 years, so that expiry times stay formattable.
pub(crate) const MAX_TTL_MS: u64 = 100 * 365 * 24 * 3600 * 1000;
/// Most covered files listed per lease in an answer (the count is always exact).
const MAX_LISTED_FILES: usize = 100;

/// The wire form of a lease.
pub(crate) fn lease_json(lease: &LeaseRow, now: i64) -> Value {
    json!({
        "leaseId": lease.id,
        "sessionId": lease.session_id,
        "mode": lease.mode.as_str(),
        "paths": lease.paths,
        "reason": lease.reason,
        "acquiredAt": iso8601_millis(lease.acquired_at),
        "expiresAt": iso8601_millis(lease.expires_at),
        "ttlRemainingMs": lease.expires_at - now,
    })
}

/// The first of `held` (the exclusive leases of sessions other than the one locking,
/// `store::leases::exclusive_of_others_read`) covering `file`: what keeps that session from
/// locking a symbol of it.
pub(crate) fn covering(held: Vec<LeaseRow>, file: &str) -> Option<LeaseRow> {
    held.into_iter().find(|l| l.patterns().covers(file))
}

/// Every lease, exclusive or shared, of sessions other than `me` covering some of
/// `files` (see [`covering_files`]), and the exclusive ones among them as rows.
pub(crate) fn others_over_files(
    tx: &dyn Db,
    files: &[String],
    me: &str,
    now: i64,
) -> Result<(Vec<Value>, Vec<LeaseRow>), Failure> {
    let others = leases::of_others(tx, me, now)?;
    let exclusive = others
        .iter()
        .filter(|l| l.mode == crate::leases::Mode::Exclusive)
        .cloned()
        .collect();
    Ok((covering_files(others, files, now), exclusive))
}

/// Those of `held` covering some of `files`, each as [`lease_json`] with the files it
/// covers (at most [`MAX_LISTED_FILES`] listed) and their count; each file is matched
/// once against one set of every lease's patterns.
pub(crate) fn covering_files(held: Vec<LeaseRow>, files: &[String], now: i64) -> Vec<Value> {
    if held.is_empty() {
        return Vec::new();
    }
    let lists: Vec<Patterns> = held.iter().map(LeaseRow::patterns).collect();
    let Some(covering) = crate::leases::Covering::new(&lists) else {
        return Vec::new();
    };
    let mut covered: Vec<Vec<&String>> = vec![Vec::new(); held.len()];
    let mut scratch = Vec::new();
    for file in files {
        for i in covering.lists_covering(file, &mut scratch) {
            covered[i].push(file);
        }
    }
    let mut out = Vec::new();
    for (lease, covered) in held.iter().zip(covered) {
        if covered.is_empty() {
            continue;
        }
        let mut item = lease_json(lease, now);
        item["files"] = json!(covered.iter().take(MAX_LISTED_FILES).collect::<Vec<_>>());
        item["fileCount"] = json!(covered.len());
        out.push(item);
    }
    out
}

/// A release by force, of a lock or a lease: recorded alike in the audit log (action
/// `forced`), the event log (`<what>.forced`, about the former holder) and the daemon's
/// log, and answered alike.
pub(crate) struct Forced<'a> {
    /// `lock` or `lease`.
    pub what: &'static str,
    /// The audit log's subject (a symbol path, `lease:<id>`).
    pub audit_subject: &'a str,
    /// The event's subject and the answer's id (a symbol path, a lease id).
    pub subject: &'a str,
    /// Who held it.
    pub holder: &'a str,
    /// Who forced it.
    pub by: &'a str,
    /// Why.
    pub reason: &'a str,
}

impl Forced<'_> {
    /// Records it, inside the write; `data` adds to the event's `{by, reason}`.
    pub(crate) fn record(&self, tx: &dyn Db, now: i64, mut data: Value) -> Result<(), Failure> {
        audit::record(
            tx,
            now,
            "forced",
            self.audit_subject,
            self.holder,
            Some(self.by),
            self.reason,
        )?;
        data["by"] = json!(self.by);
        data["reason"] = json!(self.reason);
        event(
            tx,
            &format!("{}.forced", self.what),
            Some(self.holder),
            self.subject,
            data,
        )?;
        tracing::warn!(
            subject = %self.subject,
            holder = %self.holder,
            by = %self.by,
            "{} released by force: {}",
            self.what,
            self.reason
        );
        Ok(())
    }

    /// The answer, with the subject under `key` (`symbolPath`, `leaseId`).
    pub(crate) fn answer(&self, key: &str, now: i64) -> Value {
        let mut v = json!({
            "released": true,
            "formerHolder": self.holder,
            "by": self.by,
            "reason": self.reason,
            "at": now,
        });
        v[key] = json!(self.subject);
        v
    }
}
