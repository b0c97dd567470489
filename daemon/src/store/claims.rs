//! Claims (see `crate::claims`): who changed which definition of a checkout, uncommitted,
//! and the collisions between two sessions of one checkout that follow from them.
//!
//! A claim is a row per (checkout, file, definition, session) with the claim itself as
//! JSON (`wit_forecast::claims::Claim`). Every change is an event in the same write:
//! `claim.appeared` when a session's claim on a definition starts, `claim.cleared` (with
//! its reason) when it ends. Collisions between sessions are recomputed from the
//! checkout's claims in the write that changed them (`wit_forecast::forecast` between
//! each two sessions, the same function that compares two checkouts) and announced as the
//! forecast between checkouts is: `forecast.appeared`, `forecast.cleared`.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use wit_forecast::claims::{Claim, changes_by_session};
use wit_forecast::{Checkout, Forecast, TextVerdict};

use super::db::{Arg, Db, DbExt, DbResult, args};

/// One claim as stored: its checkout and the claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClaimRow {
    /// The checkout (its root path, as its daemon names it).
    pub checkout: String,
    /// The claim.
    pub claim: Claim,
}

/// What one write did to the claims.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Changed {
    /// Claims that started.
    pub appeared: usize,
    /// Claims written again (the definition edited further).
    pub updated: usize,
    /// Claims that ended.
    pub cleared: usize,
}

/// The rows `sql` selects as `(checkout, body)`.
fn rows(db: &dyn Db, sql: &str, args: &[Arg<'_>]) -> DbResult<Vec<ClaimRow>> {
    let read = |r: &super::db::Row| -> DbResult<Option<ClaimRow>> {
        let checkout: String = r.get(0)?;
        let body: String = r.get(1)?;
        // A row this build cannot read (a newer wit's) is left out, not an error.
        Ok(serde_json::from_str::<Claim>(&body)
            .ok()
            .map(|claim| ClaimRow { checkout, claim }))
    };
    Ok(db
        .query_map(sql, args, read)?
        .into_iter()
        .flatten()
        .collect())
}

/// The claims on `file` of `checkout`, every session's.
pub(crate) fn of_file(db: &dyn Db, checkout: &str, file: &str) -> DbResult<Vec<Claim>> {
    Ok(rows(
        db,
        "SELECT checkout, body FROM claims WHERE checkout = ?1 AND file = ?2
         ORDER BY def_key, session_id",
        args![checkout, file],
    )?
    .into_iter()
    .map(|r| r.claim)
    .collect())
}

/// Every claim of `checkout`.
pub(crate) fn of_checkout(db: &dyn Db, checkout: &str) -> DbResult<Vec<Claim>> {
    Ok(rows(
        db,
        "SELECT checkout, body FROM claims WHERE checkout = ?1
         ORDER BY file, def_key, session_id",
        args![checkout],
    )?
    .into_iter()
    .map(|r| r.claim)
    .collect())
}

/// Every claim of every checkout sharing this store.
pub(crate) fn all(db: &dyn Db) -> DbResult<Vec<ClaimRow>> {
    rows(
        db,
        "SELECT checkout, body FROM claims ORDER BY checkout, file, def_key, session_id",
        args![],
    )
}

/// The files of `checkout` that hold claims.
pub(crate) fn files_of(db: &dyn Db, checkout: &str) -> DbResult<Vec<String>> {
    db.query_map(
        "SELECT DISTINCT file FROM claims WHERE checkout = ?1 ORDER BY file",
        args![checkout],
        |r| r.get(0),
    )
}

/// The event data of a claim: where, which definition, whose, how it differs from HEAD.
fn event_data(checkout: &str, c: &Claim) -> Value {
    json!({
        "checkout": checkout,
        "file": c.file,
        "symbolPath": c.symbol_path(),
        "sessionId": (!c.session.is_empty()).then_some(&c.session),
        "change": c.change.change.as_str(),
        "kind": c.change.kind,
        "before": c.change.before,
        "after": c.change.after,
        "line": c.change.line,
        "since": c.since,
        "editedAt": c.edited_at,
    })
}

fn session_arg(c: &Claim) -> Option<&str> {
    (!c.session.is_empty()).then_some(c.session.as_str())
}

fn delete(db: &dyn Db, checkout: &str, c: &Claim, why: &str, at: i64) -> DbResult<()> {
    db.execute_later(
        "DELETE FROM claims WHERE checkout = ?1 AND file = ?2 AND def_key = ?3
         AND session_id = ?4",
        args![checkout, &c.file, c.key(), &c.session],
    )?;
    let mut data = event_data(checkout, c);
    data["reason"] = json!(why);
    super::events::append(
        db,
        at,
        "claim.cleared",
        session_arg(c),
        &c.symbol_path(),
        &data,
    )
}

/// Writes `upserts` and removes `cleared` (each ending with `why`) in `checkout`, with
/// their events, then reconciles the checkout's collisions between sessions.
pub(crate) fn apply(
    db: &dyn Db,
    checkout: &str,
    upserts: &[Claim],
    cleared: &[Claim],
    why: &str,
) -> DbResult<Changed> {
    let at = db.now_ms();
    let mut done = Changed::default();
    let written: BTreeSet<(&str, &str, &str)> = upserts
        .iter()
        .map(|c| (c.file.as_str(), c.key(), c.session.as_str()))
        .collect();
    for c in cleared {
        // A claim cleared and written again (an unattributed one adopted by its
        // session is cleared under '' and written under the session) is one change.
        if written.contains(&(c.file.as_str(), c.key(), c.session.as_str())) {
            continue;
        }
        delete(db, checkout, c, why, at)?;
        done.cleared += 1;
    }
    for c in upserts {
        let existed = db
            .query_opt(
                "SELECT 1 FROM claims WHERE checkout = ?1 AND file = ?2 AND def_key = ?3
                 AND session_id = ?4",
                args![checkout, &c.file, c.key(), &c.session],
                |_| Ok(()),
            )?
            .is_some();
        write(db, checkout, c)?;
        if existed {
            done.updated += 1;
        } else {
            super::events::append(
                db,
                at,
                "claim.appeared",
                session_arg(c),
                &c.symbol_path(),
                &event_data(checkout, c),
            )?;
            done.appeared += 1;
        }
    }
    if done != Changed::default() {
        reconcile_collisions(db, checkout, why)?;
    }
    Ok(done)
}

/// Ends every claim of `session` in every checkout (its session ended, or it handed its
/// work over), with `why`; how many ended.
pub(crate) fn end_session(db: &dyn Db, session: &str, why: &str) -> DbResult<usize> {
    let ended = rows(
        db,
        "SELECT checkout, body FROM claims WHERE session_id = ?1",
        args![session],
    )?;
    clear_rows(db, &ended, why)
}

/// Whether some claim was not edited since `before` (Unix ms).
pub(crate) fn any_idle(db: &dyn Db, before: i64) -> DbResult<bool> {
    Ok(db
        .query_opt(
            "SELECT 1 FROM claims WHERE edited_at < ?1 LIMIT 1",
            args![before],
            |_| Ok(()),
        )?
        .is_some())
}

/// Ends the claims not edited since `before` (Unix ms) by their session: a session that
/// went quiet, or died without its session-end hook, never holds a claim forever.
pub(crate) fn end_idle(db: &dyn Db, before: i64, why: &str) -> DbResult<usize> {
    let idle = rows(
        db,
        "SELECT checkout, body FROM claims WHERE edited_at < ?1",
        args![before],
    )?;
    clear_rows(db, &idle, why)
}

/// Moves every claim of `from` to `to` (a subagent's work handed to its session): one
/// claim per definition, the earlier start and both sets of earlier versions kept.
pub(crate) fn hand_over(db: &dyn Db, from: &str, to: &str) -> DbResult<usize> {
    let moving = rows(
        db,
        "SELECT checkout, body FROM claims WHERE session_id = ?1",
        args![from],
    )?;
    let mut checkouts: BTreeSet<String> = BTreeSet::new();
    let at = db.now_ms();
    for row in &moving {
        let c = &row.claim;
        let theirs = of_file(db, &row.checkout, &c.file)?
            .into_iter()
            .find(|o| o.key() == c.key() && o.by(to));
        let mut moved = c.clone();
        moved.session = to.to_owned();
        if let Some(t) = theirs {
            moved.since = moved.since.min(t.since);
            let mut prior = t.prior.clone();
            prior.extend(c.prior.iter().filter(|p| !t.prior.contains(p)).cloned());
            moved.prior = prior;
            if t.edited_at > c.edited_at {
                moved.change = t.change.clone();
                moved.edited_at = t.edited_at;
                moved.diff = t.diff.clone();
                moved.own = t.own.clone();
                moved.own_before = t.own_before.clone();
            }
        }
        delete(db, &row.checkout, c, &format!("handed over to {to}"), at)?;
        write(db, &row.checkout, &moved)?;
        checkouts.insert(row.checkout.clone());
    }
    for checkout in &checkouts {
        reconcile_collisions(db, checkout, &format!("{from} handed over to {to}"))?;
    }
    Ok(moving.len())
}

/// Writes `c` as its session's claim on its definition in `checkout` (one row per
/// checkout, file, definition and session; written again in place).
fn write(db: &dyn Db, checkout: &str, c: &Claim) -> DbResult<()> {
    let body = serde_json::to_string(c).unwrap_or_default();
    db.execute_later(
        "INSERT INTO claims (checkout, file, def_key, session_id, since, edited_at, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (checkout, file, def_key, session_id) DO UPDATE SET
             since = excluded.since, edited_at = excluded.edited_at, body = excluded.body",
        args![
            checkout,
            &c.file,
            c.key(),
            &c.session,
            c.since,
            c.edited_at,
            &body
        ],
    )
}

fn clear_rows(db: &dyn Db, ended: &[ClaimRow], why: &str) -> DbResult<usize> {
    let at = db.now_ms();
    let mut checkouts: BTreeSet<&str> = BTreeSet::new();
    for row in ended {
        delete(db, &row.checkout, &row.claim, why, at)?;
        checkouts.insert(&row.checkout);
    }
    for checkout in checkouts {
        reconcile_collisions(db, checkout, why)?;
    }
    Ok(ended.len())
}

/// One standing collision between two sessions of a checkout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CollisionRow {
    /// Its id (see `wit_forecast::Forecast::id`).
    pub id: String,
    /// The checkout.
    pub checkout: String,
    /// The collision, a `wit_forecast::Forecast` as JSON.
    pub body: String,
    /// Unix ms when it appeared.
    pub since: i64,
}

/// Every standing collision between sessions, oldest first.
pub(crate) fn collisions(db: &dyn Db) -> DbResult<Vec<CollisionRow>> {
    db.query_map(
        "SELECT id, checkout, body, since FROM collisions ORDER BY since, id",
        args![],
        |r| {
            Ok(CollisionRow {
                id: r.get(0)?,
                checkout: r.get(1)?,
                body: r.get(2)?,
                since: r.get(3)?,
            })
        },
    )
}

/// The collisions between each two sessions with claims in `checkout`, as the forecast
/// between two checkouts computes them (no textual kind: one checkout has one version of
/// each file).
pub(crate) fn between_sessions(checkout: &str, claims: &[Claim]) -> Vec<Forecast> {
    let by = changes_by_session(claims);
    let sessions: Vec<&String> = by.keys().collect();
    let mut out = Vec::new();
    for (i, a) in sessions.iter().enumerate() {
        for b in &sessions[i + 1..] {
            out.extend(wit_forecast::forecast(
                Checkout::session(checkout, a, &by[*a]),
                Checkout::session(checkout, b, &by[*b]),
                &mut |_| TextVerdict::Unknown,
            ));
        }
    }
    out
}

/// Replaces `checkout`'s standing collisions with those its claims make now; each one
/// that appears or clears (with `why`) is an event.
pub(crate) fn reconcile_collisions(db: &dyn Db, checkout: &str, why: &str) -> DbResult<()> {
    let now = between_sessions(checkout, &of_checkout(db, checkout)?);
    let standing: Vec<(String, String)> = db.query_map(
        "SELECT id, body FROM collisions WHERE checkout = ?1",
        args![checkout],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let at = db.now_ms();
    for f in &now {
        let body = serde_json::to_string(f).unwrap_or_default();
        match standing.iter().find(|(id, _)| *id == f.id) {
            Some((_, was)) if *was == body => {}
            Some(_) => db.execute_later(
                "UPDATE collisions SET body = ?2 WHERE id = ?1",
                args![&f.id, &body],
            )?,
            None => {
                db.execute_later(
                    "INSERT INTO collisions (id, checkout, body, since) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (id) DO UPDATE SET body = excluded.body",
                    args![&f.id, checkout, &body, at],
                )?;
                let data = serde_json::to_value(f).unwrap_or_default();
                super::events::append(db, at, "forecast.appeared", None, &f.id, &data)?;
            }
        }
    }
    for (id, body) in standing
        .iter()
        .filter(|(id, _)| !now.iter().any(|f| f.id == *id))
    {
        db.execute_later("DELETE FROM collisions WHERE id = ?1", args![id])?;
        let mut data: Value = serde_json::from_str(body).unwrap_or_else(|_| json!({}));
        if let Some(obj) = data.as_object_mut() {
            obj.insert("reason".into(), why.into());
        }
        super::events::append(db, at, "forecast.cleared", None, id, &data)?;
    }
    Ok(())
}
