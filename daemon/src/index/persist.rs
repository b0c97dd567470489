//! The persisted index: `.wit/index.db`, one row per indexed file (path, SHA-256 of the
//! content analysed, the analysis encoded by [`encode`]), so that a restart re-analyses
//! only the files whose content changed.
//!
//! A file of its own rather than tables in `state.db`: it is a cache (deleting it only
//! costs one cold build), it is written in bulk by the index thread while the state
//! database serves locks through its single connection, and a corrupt or foreign file is
//! simply recreated.

use std::collections::HashMap;

use rusqlite::{Connection, OpenFlags, params};
use wit_boundary::WitDir;
use wit_core::Analysis;

/// The file name under `.wit/`.
pub(crate) const FILE: &str = "index.db";
/// Bumped when the stored analysis format changes, or what the built-in analyzers report
/// for the same source does: older rows are then re-analysed, so that an upgraded daemon
/// never resolves with what an older analyzer saw. 2: receivers of evident class
/// (`new:Class`), locals of unknown class (`""`), top-level values and class fields of
/// evident class (`values`). 3: Java type bodies (`bodies`) and argument types, Java and
/// Go receivers of declared type, Go generic calls and conversions, JavaScript chains of
/// assignments, containers of Rust `impl`s for slices and tuples. 4: MessagePack instead
/// of JSON ([`encode`]).
const FORMAT: i64 = 4;

/// An analysis as stored: MessagePack with named fields. Self-describing like JSON (the
/// analysis's optional fields are left out when empty, which a format without field
/// names cannot read back), about half the size, and decoded in a fraction of the time:
/// decoding the stored analyses was a third of a warm start's and of a new worktree's
/// build (perf, 10,400 files).
pub(crate) fn encode(analysis: &Analysis) -> Option<Vec<u8>> {
    rmp_serde::to_vec_named(analysis).ok()
}

/// A stored analysis ([`encode`]); `None` when the bytes are not one.
pub(crate) fn decode(bytes: &[u8]) -> Option<Analysis> {
    rmp_serde::from_slice(bytes).ok()
}

/// A stored row: the content hash and the encoded analysis ([`encode`]).
pub(crate) type Row = ([u8; 32], Vec<u8>);

/// The open index database.
pub(crate) struct IndexDb {
    conn: Connection,
    /// The main worktree's index, read beneath this one (see [`IndexDb::attach_base`]).
    base: Option<Connection>,
}

/// The stored content hash of every file of the index `conn`.
fn hashes_in(conn: &Connection) -> HashMap<String, [u8; 32]> {
    let mut out = HashMap::new();
    let Ok(mut stmt) = conn.prepare("SELECT path, hash FROM files") else {
        return out;
    };
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
    });
    if let Ok(rows) = rows {
        for (path, hash) in rows.flatten() {
            if let Ok(hash) = <[u8; 32]>::try_from(hash.as_slice()) {
                out.insert(path, hash);
            }
        }
    }
    out
}

impl IndexDb {
    /// Opens (creating if needed) `.wit/index.db`; a file that is not a usable index is
    /// replaced by an empty one.
    pub(crate) fn open(wit: &WitDir) -> Result<Self, String> {
        // Created and checked through the boundary (owner-only, never through a symlink,
        // companions included), then opened by SQLite without following symlinks.
        let path = wit.file(FILE);
        let flags = OpenFlags::default() | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let open = || -> Result<Connection, String> {
            wit.check_database(FILE).map_err(|e| e.to_string())?;
            let sqlite = |e: rusqlite::Error| e.to_string();
            let conn = Connection::open_with_flags(&path, flags).map_err(sqlite)?;
            let setup = || -> rusqlite::Result<()> {
                conn.pragma_update(None, "journal_mode", "WAL")?;
                conn.pragma_update(None, "synchronous", "NORMAL")?;
                conn.busy_timeout(std::time::Duration::from_secs(5))?;
                let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
                if version != FORMAT {
                    conn.execute_batch(
                        "DROP TABLE IF EXISTS files;
                         CREATE TABLE files (path TEXT PRIMARY KEY, hash BLOB NOT NULL, analysis BLOB NOT NULL);",
                    )?;
                    conn.pragma_update(None, "user_version", FORMAT)?;
                }
                Ok(())
            };
            setup().map_err(sqlite)?;
            Ok(conn)
        };
        match open() {
            Ok(conn) => Ok(Self { conn, base: None }),
            Err(first) => {
                tracing::warn!("index database unusable ({first}); starting a new one");
                let _ = wit.remove(FILE);
                let _ = wit.remove("index.db-wal");
                let _ = wit.remove("index.db-shm");
                open().map(|conn| Self { conn, base: None })
            }
        }
    }

    /// The stored content hash of every file (the analyses stay on disk until asked
    /// for, so that a warm start never holds all of them at once).
    pub(crate) fn hashes(&self) -> HashMap<String, [u8; 32]> {
        hashes_in(&self.conn)
    }

    /// The stored analysis of `path`, encoded ([`encode`]).
    pub(crate) fn analysis(&self, path: &str) -> Option<Vec<u8>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT analysis FROM files WHERE path = ?1")
            .ok()?;
        stmt.query_row(params![path], |r| r.get::<_, Vec<u8>>(0))
            .ok()
    }

    /// Stores `rows` and deletes `gone`, in one transaction.
    pub(crate) fn save(&mut self, rows: &[(String, Row)], gone: &[String]) {
        let result = (|| -> rusqlite::Result<()> {
            let tx = self.conn.transaction()?;
            {
                let mut put = tx.prepare_cached(
                    "INSERT OR REPLACE INTO files (path, hash, analysis) VALUES (?1, ?2, ?3)",
                )?;
                for (path, (hash, encoded)) in rows {
                    put.execute(params![path, &hash[..], encoded])?;
                }
                let mut del = tx.prepare_cached("DELETE FROM files WHERE path = ?1")?;
                for path in gone {
                    del.execute(params![path])?;
                }
            }
            tx.commit()
        })();
        if let Err(e) = result {
            tracing::warn!("saving the index failed: {e}");
        }
    }

    /// Adds the index of another checkout of the repository (the main worktree's `.wit/`,
    /// `from`, whose state this daemon already shares) as a base read beneath this one:
    /// a new worktree reuses the analyses of every file whose content is the same there
    /// instead of parsing the whole repository again, and its own index stores only what
    /// it analysed itself (issue 31). Nothing is trusted from the base beyond what the
    /// build verifies anyway: a stored analysis is used only for a file whose content has
    /// the SHA-256 stored with it, so a file that differs between the checkouts is
    /// analysed afresh and every answer stays this checkout's own.
    ///
    /// The base is opened read-only, never created or written (only a loose mode of it is
    /// tightened to 0600, as for our own files): its file and companions
    /// must be regular files of ours (never through a symlink, as for our own database)
    /// and of this format; otherwise `Err` says why and there is no base (a cold build).
    /// `Ok(false)`: the main worktree has no index (yet).
    pub(crate) fn attach_base(&mut self, from: &WitDir) -> Result<bool, String> {
        if !from
            .check_existing_database(FILE)
            .map_err(|e| e.to_string())?
        {
            return Ok(false);
        }
        let sqlite = |e: rusqlite::Error| e.to_string();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let base = Connection::open_with_flags(from.file(FILE), flags).map_err(sqlite)?;
        base.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sqlite)?;
        let version: i64 = base
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sqlite)?;
        if version != FORMAT {
            return Err(format!("of another format ({version}, not {FORMAT})"));
        }
        base.query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0))
            .map_err(sqlite)?;
        self.base = Some(base);
        Ok(true)
    }

    /// Closes the base (once the build is over: only the build reads it).
    pub(crate) fn detach_base(&mut self) {
        self.base = None;
    }

    /// The content hash of every file of the base (see [`IndexDb::attach_base`]); empty
    /// without one, or when it cannot be read.
    pub(crate) fn base_hashes(&self) -> HashMap<String, [u8; 32]> {
        self.base.as_ref().map(hashes_in).unwrap_or_default()
    }

    /// The encoded analysis the base stores for `path`, with the hash stored beside it (the
    /// base is another daemon's to write: the row read is checked as one).
    pub(crate) fn base_analysis(&self, path: &str) -> Option<Row> {
        let mut stmt = self
            .base
            .as_ref()?
            .prepare_cached("SELECT hash, analysis FROM files WHERE path = ?1")
            .ok()?;
        let (hash, encoded) = stmt
            .query_row(params![path], |r| {
                Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, Vec<u8>>(1)?))
            })
            .ok()?;
        Some((<[u8; 32]>::try_from(hash.as_slice()).ok()?, encoded))
    }

    /// Bytes of the database (for `graph.status`).
    pub(crate) fn size(&self) -> u64 {
        self.conn
            .query_row(
                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_or(0, |n| n.max(0) as u64)
    }
}
