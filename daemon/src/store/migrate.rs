//! `wit store migrate`: copies a repository's SQLite state (`.wit/state.db`, the main
//! worktree's for a linked worktree) into its project in the PostgreSQL store, once.
//!
//! Everything is copied in one transaction under the project's write lock, together with
//! a marker row in `public.wit_migrations` (project, source database): a second run finds
//! the marker and copies nothing, and a run that fails copies nothing at all. Rows that
//! already exist in the project (another checkout shared it first) are kept, never
//! overwritten (`ON CONFLICT DO NOTHING`). The event log is copied, with its numbers, only
//! into a project whose log is empty: appended to another log its numbers would collide
//! with, or come before, events other daemons have already seen.

use std::path::Path;

use rusqlite::OpenFlags;
use serde::Serialize;

use super::db::{Arg, Cell, Db, DbExt, DbResult, args};
use super::pg::PgStore;
use super::target::{StoreTarget, resolve, shown};

/// What a migration did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrationReport {
    /// Host and database of the store.
    pub store: String,
    /// The project the state went to.
    pub project: String,
    /// The SQLite database copied.
    pub source: String,
    /// When an earlier run already copied this source (Unix ms); nothing was copied now.
    pub already_migrated_at: Option<i64>,
    /// Rows copied per table (rows already present are not counted).
    pub copied: std::collections::BTreeMap<String, u64>,
    /// Events not copied because the project's event log was not empty.
    pub events_left_out: u64,
}

/// Tables copied as they are (every column but a generated key), with their columns.
const PLAIN: &[(&str, &str)] = &[
    ("agents", "session_id, name, registered_at"),
    (
        "locks",
        "symbol_path, session_id, acquired_at, expires_at, spelling",
    ),
    (
        "contracts",
        "id, proposer_session_id, symbol_path, file, signature, status, responder_session_id, \
         proposed_at, responded_at, retired_by, retired_at, retire_reason, superseded_by, \
         spelling",
    ),
    (
        "audit",
        "at, action, symbol_path, holder, by_session, reason",
    ),
    ("heartbeats", "session_id, last_at"),
    (
        "leases",
        "id, session_id, mode, paths, reason, acquired_at, expires_at",
    ),
    ("ended_sessions", "session_id, ended_at, reason"),
    ("session_worktrees", "session_id, worktree, seen_at"),
    // Uncommitted changes of the checkouts, by session: state (a stale write of a
    // claimed definition is refused), tied to checkouts that keep their paths.
    (
        "claims",
        "checkout, file, def_key, session_id, since, edited_at, body",
    ),
    ("collisions", "id, checkout, body, since"),
];

const INTENT_COLUMNS: &str = "id, session_id, description, files, symbols, start_byte, \
                              end_byte, status, declared_at, updated_at, file_set";

/// Copies the SQLite state of the repository at `root` into the PostgreSQL store its
/// environment names (`WIT_STORE_URL`, or the user's config; see `store::target`).
pub async fn migrate_to_shared_store(root: &Path) -> Result<MigrationReport, String> {
    let root = root
        .canonicalize()
        .map_err(|e| format!("cannot resolve {}: {e}", root.display()))?;
    let config = crate::config::Config::load(&root);
    let wit = wit_boundary::WitDir::new(&root);
    let placement = crate::worktree::place(&root, &wit);
    let main_root = placement
        .main_worktree
        .clone()
        .unwrap_or_else(|| root.clone());
    let clone_id = || crate::worktree::clone_id(&placement.state).ok();
    let StoreTarget::Postgres { url, project } =
        resolve(&root, &main_root, &config.parsed, &clone_id)
    else {
        return Err(format!(
            "no PostgreSQL store is configured: set {} (or [store] url in \
             ~/.config/wit/config.toml) to the store to copy this repository's state into",
            super::target::URL_VAR
        ));
    };
    let source = placement.state.database();
    if !source.exists() {
        return Err(format!("there is no {} to copy", source.display()));
    }
    placement
        .state
        .check_database("state.db")
        .map_err(|e| e.to_string())?;
    let store = PgStore::connect(&url, &project).await?;
    let source_text = source.display().to_string();
    let sqlite = rusqlite::Connection::open_with_flags(
        &source,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NOFOLLOW,
    )
    .map_err(|e| format!("opening {}: {e}", source.display()))?;
    super::schema::register_functions(&sqlite).map_err(|e| e.to_string())?;
    let version: i64 = sqlite
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| format!("reading {}: {e}", source.display()))?;
    if version != super::schema::CURRENT_VERSION {
        return Err(format!(
            "{} has schema version {version}, not this wit's {}: start this wit's daemon on it \
             once (it migrates), then copy",
            source.display(),
            super::schema::CURRENT_VERSION
        ));
    }
    let mut report = MigrationReport {
        store: shown(&url),
        project: project.clone(),
        source: source_text.clone(),
        already_migrated_at: None,
        copied: Default::default(),
        events_left_out: 0,
    };
    let store = std::sync::Arc::new(store);
    let done = tokio::task::spawn_blocking(move || {
        store.write_now(|db| copy(&sqlite, db, &project, &source_text, &mut report))?;
        Ok::<_, super::db::DbError>(report)
    })
    .await
    .map_err(|e| format!("the copy did not finish: {e}"))?;
    done.map_err(|e| e.to_string())
}

fn copy(
    src: &rusqlite::Connection,
    dst: &dyn Db,
    project: &str,
    source: &str,
    report: &mut MigrationReport,
) -> DbResult<()> {
    dst.execute(
        "CREATE TABLE IF NOT EXISTS public.wit_migrations (
             project TEXT NOT NULL, source TEXT NOT NULL, at BIGINT NOT NULL,
             PRIMARY KEY (project, source))",
        args![],
    )?;
    if let Some(at) = dst.query_opt(
        "SELECT at FROM public.wit_migrations WHERE project = ?1 AND source = ?2",
        args![project, source],
        |r| r.get::<i64>(0),
    )? {
        report.already_migrated_at = Some(at);
        return Ok(());
    }
    let src: &dyn Db = src;
    for (table, columns) in PLAIN {
        let n = copy_rows(src, dst, table, columns, "")?;
        report.copied.insert((*table).to_owned(), n);
    }
    // Intents get the store's own numbers; their per-file rows follow them.
    let mut intents = 0;
    let mut files = 0;
    for row in src.rows(
        &format!("SELECT seq, {INTENT_COLUMNS} FROM intents ORDER BY seq"),
        args![],
    )? {
        let cells: Vec<Arg<'_>> = row.0[1..].iter().map(Arg::from).collect();
        let placeholders = placeholders(cells.len());
        let Some(seq) = dst.query_opt(
            &format!(
                "INSERT INTO intents ({INTENT_COLUMNS}) VALUES ({placeholders})
                 ON CONFLICT DO NOTHING RETURNING seq"
            ),
            &cells,
            |r| r.get::<i64>(0),
        )?
        else {
            continue;
        };
        intents += 1;
        let old: i64 = row.get(0)?;
        for f in src.rows(
            "SELECT file, live, start_byte, end_byte FROM intent_files WHERE intent_seq = ?1",
            args![old],
        )? {
            let mut cells: Vec<Arg<'_>> = f.0.iter().map(Arg::from).collect();
            cells.push(Arg::Int(seq));
            files += dst.execute(
                "INSERT INTO intent_files (file, live, start_byte, end_byte, intent_seq)
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
                &cells,
            )? as u64;
        }
    }
    report.copied.insert("intents".to_owned(), intents);
    report.copied.insert("intent_files".to_owned(), files);
    let events_here: i64 = dst.query_row("SELECT COUNT(*) FROM events", args![], |r| r.get(0))?;
    if events_here == 0 {
        let n = copy_rows(
            src,
            dst,
            "events",
            "seq, at, kind, session_id, subject, data",
            " ORDER BY seq",
        )?;
        report.copied.insert("events".to_owned(), n);
    } else {
        report.events_left_out =
            src.query_row("SELECT COUNT(*) FROM events", args![], |r| r.get::<i64>(0))? as u64;
    }
    dst.execute(
        "INSERT INTO public.wit_migrations (project, source, at) VALUES (?1, ?2, ?3)",
        args![project, source, dst.now_ms()],
    )?;
    Ok(())
}

fn copy_rows(src: &dyn Db, dst: &dyn Db, table: &str, columns: &str, order: &str) -> DbResult<u64> {
    let mut n = 0;
    let insert = |width: usize| {
        format!(
            "INSERT INTO {table} ({columns}) VALUES ({}) ON CONFLICT DO NOTHING",
            placeholders(width)
        )
    };
    for row in src.rows(&format!("SELECT {columns} FROM {table}{order}"), args![])? {
        let cells: Vec<Arg<'_>> = row.0.iter().map(Arg::from).collect();
        n += dst.execute(&insert(cells.len()), &cells)? as u64;
    }
    Ok(n)
}

fn placeholders(n: usize) -> String {
    (1..=n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl<'a> From<&'a Cell> for Arg<'a> {
    fn from(c: &'a Cell) -> Self {
        match c {
            Cell::Int(v) => Arg::Int(*v),
            Cell::Bool(b) => Arg::Int(i64::from(*b)),
            Cell::Text(t) => Arg::Text(t),
            // No column of the state holds reals or blobs.
            Cell::Null | Cell::Real(_) | Cell::Blob(_) => Arg::Null,
        }
    }
}
