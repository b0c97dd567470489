//! `conflicts.forecast` (extension): the conflict forecast between checkouts (see
//! `crate::forecast`) and between the sessions of one checkout (their claims, see
//! `crate::claims`), as `wit conflicts`, `wit status`, `wit watch`, the MCP tool and the
//! edit-time guard show it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::Failure;
use crate::forecast::STALE_MS;
use crate::params::Params;
use crate::state::AppState;
use crate::store::claims::{ClaimRow, CollisionRow};
use crate::store::forecast::{self as rows, CheckoutRow, ForecastRow};

/// Everything the answer is made of, read in one go.
struct Read {
    checkouts: Vec<CheckoutRow>,
    forecasts: Vec<ForecastRow>,
    driver_merges: Vec<(String, String, String)>,
    collisions: Vec<CollisionRow>,
    claims: Vec<ClaimRow>,
    sessions: BTreeMap<String, Vec<String>>,
    counts: BTreeMap<String, i64>,
    file: Vec<(String, String, String)>,
    now: i64,
}

/// `conflicts.forecast {checkout?, sessionId?, symbolPath?, file?}` → `{checkout,
/// forecasts, driverMerges, checkouts, claims, pending?}`: every standing forecast between live
/// checkouts and between two sessions of one checkout (sides naming a `session`), or
/// those touching the checkout (its path, directory name or branch), the session (its
/// checkout's; for a collision between sessions, one of the two), the symbol, or the
/// file; `claims`: the standing claims (uncommitted changes by session) the same filters
/// keep; `driverMerges`: the files of live pairs that git's line merge would stop on and
/// wit's installed merge driver merges (no forecast: the merge will not stop); with
/// `file`, also `pending`: what the other live checkouts changed in that file
/// (against their merge base with this checkout), the collisions an edit of it would
/// make.
pub(crate) async fn forecast(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<Value, Failure> {
    let mut p = Params::new(params);
    let checkout = p.opt_str("checkout");
    let session = p.opt_str("sessionId");
    let symbol = p.opt_symbol_path_filter("symbolPath");
    let file = p.opt_file("file");
    p.finish()?;
    let file_q = file.clone();
    let read = state
        .read(move |db| {
            let now = db.now_ms();
            let mut sessions: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (s, wt) in crate::store::sessions::active_worktrees(db, now)? {
                sessions.entry(wt).or_default().push(s);
            }
            let mut counts: BTreeMap<String, i64> = BTreeMap::new();
            let all = rows::checkouts(db)?;
            for (c, _, n) in rows::change_counts(db)? {
                let e = counts.entry(c).or_default();
                *e = (*e).max(n);
            }
            Ok(Read {
                file: match &file_q {
                    Some(f) if !f.is_empty() => rows::file_changes(db, f)?,
                    _ => Vec::new(),
                },
                checkouts: all,
                forecasts: rows::all_forecasts(db)?,
                driver_merges: rows::all_driver_merges(db)?,
                collisions: crate::store::claims::collisions(db)?,
                claims: crate::store::claims::all(db)?,
                sessions,
                counts,
                now,
            })
        })
        .await?;
    let me = state.worktree_name();
    let live = |c: &str| {
        read.checkouts
            .iter()
            .any(|r| r.checkout == c && read.now - r.seen_at < STALE_MS)
    };
    let row = |c: &str| read.checkouts.iter().find(|r| r.checkout == c);
    // Pairs are compared only while both checkouts are ready; one that has just gone
    // rebasing, merging or indexing has its changes withdrawn, and its pairs' rows are
    // cleared by its daemon right after it writes that state: a reader in between must
    // not see them.
    let ready = |c: &str| row(c).is_some_and(|r| r.state == "ready");
    // A checkout by its name, its path (without the clone's id a PostgreSQL store adds),
    // its directory's name or its branch.
    let names = |c: &str, q: &str| {
        let path = crate::worktree::checkout_path(c);
        c == q
            || path == q
            || wit_forecast::short(path) == q
            || row(c).and_then(|r| r.branch.as_deref()) == Some(q)
    };
    let session_checkout: Option<String> = session.as_ref().map(|s| {
        read.sessions
            .iter()
            .find(|(_, list)| list.contains(s))
            .map(|(wt, _)| wt.clone())
            .unwrap_or_default()
    });
    let mut forecasts: Vec<Value> = Vec::new();
    for f in &read.forecasts {
        if !live(&f.a) || !live(&f.b) {
            continue; // a silent checkout's: cleared at the next heartbeat
        }
        if !ready(&f.a) || !ready(&f.b) {
            continue;
        }
        let Ok(mut body) = serde_json::from_str::<Value>(&f.body) else {
            continue;
        };
        if let Some(q) = &checkout
            && !names(&f.a, q)
            && !names(&f.b, q)
        {
            continue;
        }
        if let Some(wt) = &session_checkout
            && *wt != f.a
            && *wt != f.b
        {
            continue;
        }
        if !forecast_passes(&body, symbol.as_deref(), file.as_deref()) {
            continue;
        }
        if let Some(sides) = body["sides"].as_array_mut() {
            for side in sides {
                let c = side["checkout"].as_str().unwrap_or_default().to_owned();
                side["branch"] = json!(row(&c).and_then(|r| r.branch.clone()));
                side["sessions"] = json!(read.sessions.get(&c).cloned().unwrap_or_default());
                side["self"] = json!(c == me);
            }
        }
        body["since"] = json!(f.since);
        forecasts.push(body);
    }
    // Collisions between two sessions of one checkout: a claim is state, so they stand
    // whether or not that checkout's daemon runs.
    for c in &read.collisions {
        let Ok(mut body) = serde_json::from_str::<Value>(&c.body) else {
            continue;
        };
        let sessions: Vec<String> = body["sides"]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|s| s["session"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(q) = &checkout
            && !names(&c.checkout, q)
        {
            continue;
        }
        if let Some(s) = &session
            && !sessions.contains(s)
        {
            continue;
        }
        if !forecast_passes(&body, symbol.as_deref(), file.as_deref()) {
            continue;
        }
        if let Some(sides) = body["sides"].as_array_mut() {
            for side in sides {
                let s = side["session"].as_str().unwrap_or_default().to_owned();
                side["branch"] = json!(row(&c.checkout).and_then(|r| r.branch.clone()));
                side["sessions"] = json!([s]);
                side["self"] = json!(c.checkout == me);
            }
        }
        body["since"] = json!(c.since);
        forecasts.push(body);
    }
    // Files git's line merge would stop on that wit's installed merge driver merges: no
    // collision, but worth knowing (a merge that will not stop).
    let mut driver_merges: Vec<Value> = Vec::new();
    for (a, b, notes) in &read.driver_merges {
        if !live(a) || !live(b) {
            continue;
        }
        if let Some(q) = &checkout
            && !names(a, q)
            && !names(b, q)
        {
            continue;
        }
        if let Some(wt) = &session_checkout
            && wt != a
            && wt != b
        {
            continue;
        }
        let Ok(list) = serde_json::from_str::<Vec<wit_forecast::DriverMerge>>(notes) else {
            continue;
        };
        for m in list {
            if !touches(&[m.path.as_str()], symbol.as_deref(), file.as_deref()) {
                continue;
            }
            driver_merges.push(json!({
                "file": m.path,
                "checkouts": [a, b],
                "summary": m.summary,
            }));
        }
    }
    let claims: Vec<Value> = read
        .claims
        .iter()
        .filter(|r| checkout.as_ref().is_none_or(|q| names(&r.checkout, q)))
        .filter(|r| session.as_ref().is_none_or(|s| r.claim.session == *s))
        .filter(|r| {
            let path = r.claim.symbol_path();
            touches(&[path.as_str()], symbol.as_deref(), file.as_deref())
        })
        .map(|r| super::claims::claim_json(&r.checkout, &r.claim))
        .collect();
    let checkouts: Vec<Value> = read
        .checkouts
        .iter()
        .map(|r| {
            json!({
                "path": r.checkout,
                "branch": r.branch,
                "head": r.head,
                "state": r.state,
                "live": read.now - r.seen_at < STALE_MS,
                "seenAt": r.seen_at,
                "changedFiles": read.counts.get(&r.checkout).copied().unwrap_or(0),
                "sessions": read.sessions.get(&r.checkout).cloned().unwrap_or_default(),
                "self": r.checkout == me,
            })
        })
        .collect();
    let mut answer = json!({
        "checkout": me,
        "forecasts": forecasts,
        "driverMerges": driver_merges,
        "checkouts": checkouts,
        "claims": claims,
    });
    if let Some(file) = file.filter(|f| !f.is_empty()) {
        answer["pending"] = pending(state, &read, &me, &file).await?;
    }
    Ok(answer)
}

/// Whether a stored forecast body passes the `symbolPath` and `file` filters, by the
/// `symbolPaths` it names (see [`touches`]).
fn forecast_passes(forecast: &Value, symbol: Option<&str>, file: Option<&str>) -> bool {
    let paths: Vec<&str> = forecast["symbolPaths"]
        .as_array()
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    touches(&paths, symbol, file)
}

/// Whether a forecast (or claim) naming `paths` passes the `symbolPath` and `file`
/// filters.
fn touches(paths: &[&str], symbol: Option<&str>, file: Option<&str>) -> bool {
    symbol.is_none_or(|s| paths.contains(&s))
        && file.is_none_or(|f| {
            paths
                .iter()
                .any(|p| *p == f || p.split_once(':').is_some_and(|(pf, _)| pf == f))
        })
}

/// What the other live checkouts changed in `file`, each against its merge base with
/// this checkout.
async fn pending(state: &AppState, read: &Read, me: &str, file: &str) -> Result<Value, Failure> {
    let mine = read
        .checkouts
        .iter()
        .find(|r| r.checkout == me)
        .and_then(|r| r.head.clone());
    let others: Vec<(CheckoutRow, Vec<(String, String)>)> = read
        .checkouts
        .iter()
        .filter(|r| r.checkout != me && read.now - r.seen_at < STALE_MS && r.state == "ready")
        .map(|r| {
            let rows = read
                .file
                .iter()
                .filter(|(c, _, _)| *c == r.checkout)
                .map(|(_, base, change)| (base.clone(), change.clone()))
                .collect();
            (r.clone(), rows)
        })
        .filter(|(_, rows): &(CheckoutRow, Vec<(String, String)>)| !rows.is_empty())
        .collect();
    if others.is_empty() {
        return Ok(json!([]));
    }
    let root = state.root.clone();
    let sessions = read.sessions.clone();
    let file = file.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        for (r, rows) in others {
            let base = match (&mine, &r.head) {
                (Some(a), Some(b)) => crate::forecast::pair_base(&root, a, b),
                _ => None,
            };
            let Some((_, change)) = rows.iter().find(|(b, _)| Some(b) == base.as_ref()) else {
                continue;
            };
            let Ok(change) = serde_json::from_str::<Value>(change) else {
                continue;
            };
            out.push(json!({
                "checkout": r.checkout,
                "branch": r.branch,
                "sessions": sessions.get(&r.checkout).cloned().unwrap_or_default(),
                "file": file,
                "change": change,
            }));
        }
        Value::Array(out)
    })
    .await
    .map_err(Failure::from_join)
}
