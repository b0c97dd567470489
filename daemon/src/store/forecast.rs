//! The conflict forecast's rows (see `crate::forecast`): each checkout sharing this store,
//! what it changed against each merge base another checkout needs, and the forecasts
//! standing between two checkouts. Derived state, rebuilt by the daemons from their
//! checkouts at any time: `wit store migrate` does not copy it.

use super::db::{Db, DbExt, DbResult, args};

/// A checkout as its daemon last published it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CheckoutRow {
    /// Its root path.
    pub checkout: String,
    /// Its branch, `None` on a detached HEAD.
    pub branch: Option<String>,
    /// Its HEAD commit, `None` before the first commit (or outside git).
    pub head: Option<String>,
    /// `ready`, `indexing`, `rebasing`, `merging`, `no-commit`, `not-git`.
    pub state: String,
    /// Bumped each time its changes are published.
    pub version: i64,
    /// Unix ms of its daemon's last heartbeat.
    pub seen_at: i64,
}

/// Every checkout's row, by path.
pub(crate) fn checkouts(db: &dyn Db) -> DbResult<Vec<CheckoutRow>> {
    db.query_map(
        "SELECT checkout, branch, head, state, version, seen_at FROM checkouts
         ORDER BY checkout",
        args![],
        |r| {
            Ok(CheckoutRow {
                checkout: r.get(0)?,
                branch: r.get(1)?,
                head: r.get(2)?,
                state: r.get(3)?,
                version: r.get(4)?,
                seen_at: r.get(5)?,
            })
        },
    )
}

/// Writes `row` (its version as given).
pub(crate) fn put_checkout(db: &dyn Db, row: &CheckoutRow) -> DbResult<()> {
    db.execute(
        "INSERT INTO checkouts (checkout, branch, head, state, version, seen_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (checkout) DO UPDATE SET branch = excluded.branch,
             head = excluded.head, state = excluded.state, version = excluded.version,
             seen_at = excluded.seen_at",
        args![
            &row.checkout,
            &row.branch,
            &row.head,
            &row.state,
            row.version,
            row.seen_at
        ],
    )
    .map(drop)
}

/// Replaces `checkout`'s change of `file` against `base` (`None`: unchanged there).
pub(crate) fn put_change(
    db: &dyn Db,
    checkout: &str,
    base: &str,
    file: &str,
    change: Option<&str>,
) -> DbResult<()> {
    match change {
        Some(json) => db.execute_later(
            "INSERT INTO checkout_changes (checkout, base, file, change) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (checkout, base, file) DO UPDATE SET change = excluded.change",
            args![checkout, base, file, json],
        ),
        None => db.execute_later(
            "DELETE FROM checkout_changes WHERE checkout = ?1 AND base = ?2 AND file = ?3",
            args![checkout, base, file],
        ),
    }
}

/// Forgets `checkout`'s changes against `base` (every base when `None`).
pub(crate) fn drop_changes(db: &dyn Db, checkout: &str, base: Option<&str>) -> DbResult<()> {
    match base {
        Some(base) => db.execute_later(
            "DELETE FROM checkout_changes WHERE checkout = ?1 AND base = ?2",
            args![checkout, base],
        ),
        None => db.execute_later(
            "DELETE FROM checkout_changes WHERE checkout = ?1",
            args![checkout],
        ),
    }
}

/// `checkout`'s changes against `base`: (file, change as JSON), by file.
pub(crate) fn changes(db: &dyn Db, checkout: &str, base: &str) -> DbResult<Vec<(String, String)>> {
    db.query_map(
        "SELECT file, change FROM checkout_changes WHERE checkout = ?1 AND base = ?2
         ORDER BY file",
        args![checkout, base],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// How many files each checkout changed against each base: (checkout, base, files).
pub(crate) fn change_counts(db: &dyn Db) -> DbResult<Vec<(String, String, i64)>> {
    db.query_map(
        "SELECT checkout, base, COUNT(*) FROM checkout_changes GROUP BY checkout, base",
        args![],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

/// Removes `checkout` and its changes (its daemon stops, or it is gone).
pub(crate) fn remove_checkout(db: &dyn Db, checkout: &str) -> DbResult<()> {
    drop_changes(db, checkout, None)?;
    db.execute_later("DELETE FROM checkouts WHERE checkout = ?1", args![checkout])
}

/// The versions of the pair `(a, b)` (a < b) its standing forecasts were computed from.
pub(crate) fn pair_versions(db: &dyn Db, a: &str, b: &str) -> DbResult<Option<(i64, i64)>> {
    db.query_opt(
        "SELECT va, vb FROM forecast_pairs WHERE a = ?1 AND b = ?2",
        args![a, b],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Records the versions the pair's forecasts now rest on (`None`: the pair is gone).
pub(crate) fn put_pair(
    db: &dyn Db,
    a: &str,
    b: &str,
    versions: Option<(i64, i64)>,
) -> DbResult<()> {
    match versions {
        Some((va, vb)) => db.execute_later(
            "INSERT INTO forecast_pairs (a, b, va, vb) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (a, b) DO UPDATE SET va = excluded.va, vb = excluded.vb",
            args![a, b, va, vb],
        ),
        None => db.execute_later(
            "DELETE FROM forecast_pairs WHERE a = ?1 AND b = ?2",
            args![a, b],
        ),
    }
}

/// Records the files of the pair `(a, b)` that git's line merge would stop on and wit's
/// installed merge driver merges (`wit_forecast::Outcome::driver_merges`), with the pair's
/// row (written by [`reconcile`] just before): no event, since nothing collides.
pub(crate) fn put_driver_merges(
    db: &dyn Db,
    a: &str,
    b: &str,
    merges: &[wit_forecast::DriverMerge],
) -> DbResult<()> {
    let notes = (!merges.is_empty()).then(|| serde_json::to_string(merges).unwrap_or_default());
    db.execute_later(
        "UPDATE forecast_pairs SET notes = ?3 WHERE a = ?1 AND b = ?2",
        args![a, b, &notes],
    )
}

/// Every pair's driver merges: (a, b, the list as JSON).
pub(crate) fn all_driver_merges(db: &dyn Db) -> DbResult<Vec<(String, String, String)>> {
    db.query_map(
        "SELECT a, b, notes FROM forecast_pairs WHERE notes IS NOT NULL ORDER BY a, b",
        args![],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

/// One standing forecast as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ForecastRow {
    /// Its id (see `wit_forecast::Forecast::id`).
    pub id: String,
    /// The pair, first checkout.
    pub a: String,
    /// The pair, second checkout.
    pub b: String,
    /// The forecast, JSON.
    pub body: String,
    /// Unix ms when it appeared.
    pub since: i64,
}

fn forecast_row(r: &super::db::Row) -> DbResult<ForecastRow> {
    Ok(ForecastRow {
        id: r.get(0)?,
        a: r.get(1)?,
        b: r.get(2)?,
        body: r.get(3)?,
        since: r.get(4)?,
    })
}

/// The pair's standing forecasts.
pub(crate) fn pair_forecasts(db: &dyn Db, a: &str, b: &str) -> DbResult<Vec<ForecastRow>> {
    db.query_map(
        "SELECT id, a, b, body, since FROM forecasts WHERE a = ?1 AND b = ?2 ORDER BY id",
        args![a, b],
        forecast_row,
    )
}

/// Every standing forecast, oldest first.
pub(crate) fn all_forecasts(db: &dyn Db) -> DbResult<Vec<ForecastRow>> {
    db.query_map(
        "SELECT id, a, b, body, since FROM forecasts ORDER BY since, id",
        args![],
        forecast_row,
    )
}

/// Writes a forecast (new, or its evidence updated).
pub(crate) fn put_forecast(db: &dyn Db, row: &ForecastRow) -> DbResult<()> {
    db.execute_later(
        "INSERT INTO forecasts (id, a, b, body, since) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (id) DO UPDATE SET body = excluded.body",
        args![&row.id, &row.a, &row.b, &row.body, row.since],
    )
}

/// Removes a forecast.
pub(crate) fn delete_forecast(db: &dyn Db, id: &str) -> DbResult<()> {
    db.execute_later("DELETE FROM forecasts WHERE id = ?1", args![id])
}

/// What a reconciliation of a pair did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reconciled {
    /// Forecasts that appeared.
    pub appeared: usize,
    /// Forecasts that cleared.
    pub cleared: usize,
    /// Whether a newer computation of the pair was already stored (nothing written).
    pub stale: bool,
}

/// The pairs `checkout` takes part in: (a, b).
pub(crate) fn pairs_of(db: &dyn Db, checkout: &str) -> DbResult<Vec<(String, String)>> {
    db.query_map(
        "SELECT a, b FROM forecast_pairs WHERE a = ?1 OR b = ?1
         UNION SELECT a, b FROM forecasts WHERE a = ?1 OR b = ?1",
        args![checkout],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Every pair with a standing forecast or a computation: (a, b).
pub(crate) fn all_pairs(db: &dyn Db) -> DbResult<Vec<(String, String)>> {
    db.query_map(
        "SELECT a, b FROM forecast_pairs UNION SELECT a, b FROM forecasts",
        args![],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Replaces the pair `(a, b)`'s standing forecasts with `now`, computed from the pair's
/// published changes at `versions` (`None`: the pair is gone, every forecast clears with
/// `why`). Both checkouts' daemons compute each pair; a computation from versions older
/// than (or the same as) the stored one's in either checkout is dropped, so the stored
/// answer only moves forward and each appearance and clearance is announced once: events
/// `forecast.appeared` (data: the forecast) and `forecast.cleared` (data: the forecast
/// as it stood, and `reason`).
pub(crate) fn reconcile(
    db: &dyn Db,
    (a, b): (&str, &str),
    versions: Option<(i64, i64)>,
    now: &[wit_forecast::Forecast],
    why: &str,
) -> DbResult<Reconciled> {
    let at = db.now_ms();
    if let Some((va, vb)) = versions
        && let Some((sa, sb)) = pair_versions(db, a, b)?
        && (va < sa || vb < sb || (va, vb) == (sa, sb))
    {
        return Ok(Reconciled {
            stale: true,
            ..Default::default()
        });
    }
    put_pair(db, a, b, versions)?;
    let standing = pair_forecasts(db, a, b)?;
    let mut done = Reconciled::default();
    for f in now {
        let body = serde_json::to_string(f).unwrap_or_default();
        match standing.iter().find(|s| s.id == f.id) {
            Some(s) if s.body == body => {}
            Some(s) => put_forecast(db, &ForecastRow { body, ..s.clone() })?,
            None => {
                put_forecast(
                    db,
                    &ForecastRow {
                        id: f.id.clone(),
                        a: a.to_owned(),
                        b: b.to_owned(),
                        body,
                        since: at,
                    },
                )?;
                let data = serde_json::to_value(f).unwrap_or_default();
                super::events::append(db, at, "forecast.appeared", None, &f.id, &data)?;
                done.appeared += 1;
            }
        }
    }
    for s in standing
        .iter()
        .filter(|s| !now.iter().any(|f| f.id == s.id))
    {
        delete_forecast(db, &s.id)?;
        let mut data: serde_json::Value =
            serde_json::from_str(&s.body).unwrap_or_else(|_| serde_json::json!({}));
        if let Some(obj) = data.as_object_mut() {
            obj.insert("reason".into(), why.into());
        }
        super::events::append(db, at, "forecast.cleared", None, &s.id, &data)?;
        done.cleared += 1;
    }
    Ok(done)
}

/// Every checkout's change of `file`: (checkout, base, change as JSON).
pub(crate) fn file_changes(db: &dyn Db, file: &str) -> DbResult<Vec<(String, String, String)>> {
    db.query_map(
        "SELECT checkout, base, change FROM checkout_changes WHERE file = ?1 ORDER BY checkout",
        args![file],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}
