//! The uncommitted texts a checkout publishes for git's merge, and that merge.
//!
//! **Where the content goes (decided).** A textual forecast needs git's three-way merge
//! of a file both checkouts changed, so the daemon computing a pair needs the *other*
//! checkout's uncommitted version. It used to write each changed file into the
//! repository's object database (`git hash-object -w`): a `0600` private key, untracked
//! and git-ignored or not, became a world-readable loose object that stays until `git gc
//! --prune` and travels with every copy of `.git`. Now nothing of a checkout's
//! uncommitted content goes there. Each daemon keeps the versions it publishes in a
//! private directory of the repository's common `.wit/` (the main worktree's, which the
//! daemons of all its worktrees share): `.wit/forecast/<checkout>/<sha256>`, directories
//! 0700 and files 0600, written and read only through `wit_boundary::content` (no
//! symlink followed, a read bounded and checked against its name). What a checkout
//! publishes names its content by that SHA-256 (`FileChange::Text::blob`).
//!
//! Why not in memory alone: the two daemons of a pair are separate processes, and the
//! store rows they share are no place for file contents (a PostgreSQL store is on another
//! machine). Why not a private object directory: git would still compress and keep every
//! version as an object of its own, and a second object database is one more thing to
//! keep out of `git gc`'s and the user's way; plain files are all `git merge-file` needs.
//!
//! **Bounds and clean-up.** Each file is at most `[analysis] max_file_bytes`, a
//! checkout keeps at most [`BUDGET`] bytes (a change past it is published as not
//! compared, with that reason), and only what its current changes name: after each
//! publication the rest of its directory is removed; a daemon that stops removes its
//! directory, and the directory of a checkout silent long enough to be forgotten is
//! removed by whichever daemon forgets it. Separate clones sharing a PostgreSQL store
//! have separate `.wit/`s: there the textual kind is left out, as before.
//!
//! **Merges.** git's `merge-file` runs on private copies of the three versions (scratch
//! files in this checkout's directory, removed at once), never `--object-id`. A verdict is
//! remembered by the three contents' ids, so a pair recomputed after every save merges
//! only the files whose versions moved.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use wit_boundary::content::{ContentStore, content_id, owner_name};
use wit_core::text::escape;
use wit_forecast::{FileChange, TextVerdict};

use super::git::{self, Batch, Blob};

/// Most bytes of changed text one checkout keeps for the others (64 MiB).
pub(crate) const BUDGET: u64 = 64 << 20;

/// Verdicts remembered before the cache starts afresh.
const VERDICTS_KEPT: usize = 4096;

/// The area of `.wit/` holding the published texts.
const AREA: &str = "forecast";

/// Where one side of a merge comes from.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// A blob of the repository's history (the base's version of a file).
    Object(&'a str),
    /// A published content of the checkout named.
    Published { checkout: &'a str, id: &'a str },
    /// The empty text (a file new on both sides).
    Empty,
}

impl Source<'_> {
    fn key(&self) -> String {
        match self {
            Source::Object(id) => format!("o:{id}"),
            Source::Published { id, .. } => format!("c:{id}"),
            Source::Empty => String::new(),
        }
    }
}

/// This checkout's published texts, and the merges of pairs.
pub(crate) struct Texts {
    root: std::path::PathBuf,
    store: Option<ContentStore>,
    owner: String,
    limit: u64,
    /// What this checkout has in the store: id → bytes.
    stored: HashMap<String, u64>,
    verdicts: HashMap<(String, String, String), TextVerdict>,
}

impl Texts {
    /// The texts of the checkout `me` at `root`, kept under the common `.wit/` `wit`.
    pub(crate) fn new(root: &Path, wit: &wit_boundary::WitDir, me: &str, limit: u64) -> Self {
        let store = match ContentStore::open(wit, AREA) {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!("forecast: no textual forecasts: {}", escape(&e.to_string()));
                None
            }
        };
        let owner = owner_name(me);
        if let Some(store) = &store {
            // Whatever a previous run of this checkout's daemon left.
            let _ = store.remove_owner(&owner);
        }
        Texts {
            root: root.to_owned(),
            store,
            owner,
            limit,
            stored: HashMap::new(),
            verdicts: HashMap::new(),
        }
    }

    /// Keeps `bytes` for the other daemons; its id, or why it is not kept.
    pub(crate) fn keep(&mut self, bytes: &[u8]) -> Result<String, String> {
        let id = content_id(bytes);
        if self.stored.contains_key(&id) {
            return Ok(id);
        }
        let used: u64 = self.stored.values().sum();
        if used + bytes.len() as u64 > BUDGET {
            return Err(format!(
                "more changed text than the forecast keeps for one checkout ({} MiB)",
                BUDGET >> 20
            ));
        }
        let store = self
            .store
            .as_ref()
            .ok_or("the forecast's directory in .wit/ cannot be used (see the log)")?;
        store.put(&self.owner, bytes).map_err(|e| {
            tracing::warn!("forecast: {}", escape(&e.to_string()));
            "it could not be kept for the other checkouts (see the log)".to_owned()
        })?;
        self.stored.insert(id.clone(), bytes.len() as u64);
        Ok(id)
    }

    /// Removes every kept text that `changes` no longer name.
    pub(crate) fn retain<'a>(&mut self, changes: impl Iterator<Item = &'a FileChange>) {
        let mut named: HashSet<&str> = HashSet::new();
        for change in changes {
            match change {
                FileChange::Text { blob: Some(id), .. } => {
                    named.insert(id);
                }
                FileChange::Symbols {
                    outside: Some(o), ..
                } => {
                    named.insert(&o.now);
                    if let Some(base) = &o.base {
                        named.insert(base);
                    }
                }
                _ => {}
            }
        }
        if self.stored.keys().all(|id| named.contains(id.as_str())) {
            return;
        }
        self.stored.retain(|id, _| named.contains(id.as_str()));
        if let Some(store) = &self.store {
            let _ = store.retain(&self.owner, &|id| named.contains(id));
        }
    }

    /// Removes this checkout's directory (its daemon stops).
    pub(crate) fn withdraw(&mut self) {
        self.stored.clear();
        if let Some(store) = &self.store {
            let _ = store.remove_owner(&self.owner);
        }
    }

    /// Removes the directories of `gone` checkouts, and of any checkout not in `known`
    /// whose directory has not changed for `age` (a daemon killed before it had a row).
    pub(crate) fn forget(&self, gone: &[String], known: &[String], age: std::time::Duration) {
        let Some(store) = &self.store else { return };
        for c in gone {
            let _ = store.remove_owner(&owner_name(c));
        }
        let known: HashSet<String> = known.iter().map(|c| owner_name(c)).collect();
        for (owner, old) in store.owners().unwrap_or_default() {
            if owner != self.owner && !known.contains(&owner) && old >= age {
                let _ = store.remove_owner(&owner);
            }
        }
    }

    /// git's three-way merge of `a` and `b` against `base` (see the module docs).
    pub(crate) fn merge(
        &mut self,
        batch: &mut Batch,
        base: Source<'_>,
        a: Source<'_>,
        b: Source<'_>,
    ) -> TextVerdict {
        let key = (base.key(), a.key(), b.key());
        if let Some(v) = self.verdicts.get(&key) {
            return v.clone();
        }
        let verdict = self.run_merge(batch, base, a, b);
        if verdict != TextVerdict::Unknown {
            if self.verdicts.len() >= VERDICTS_KEPT {
                self.verdicts.clear();
            }
            self.verdicts.insert(key, verdict.clone());
        }
        verdict
    }

    fn run_merge(
        &self,
        batch: &mut Batch,
        base: Source<'_>,
        a: Source<'_>,
        b: Source<'_>,
    ) -> TextVerdict {
        let Some(store) = &self.store else {
            return TextVerdict::Unknown;
        };
        let mut read = |s: Source<'_>| -> Option<Vec<u8>> {
            match s {
                Source::Empty => Some(Vec::new()),
                Source::Object(id) => match batch.read(id, self.limit) {
                    Blob::Bytes(b) => Some(b),
                    Blob::Missing | Blob::TooLarge(_) => None,
                },
                Source::Published { checkout, id } => store
                    .get(&owner_name(checkout), id, self.limit)
                    .ok()
                    .flatten(),
            }
        };
        let (Some(base), Some(a), Some(b)) = (read(base), read(a), read(b)) else {
            return TextVerdict::Unknown;
        };
        let scratch = |bytes: &[u8]| store.scratch(&self.owner, bytes).ok();
        let (Some(fa), Some(fbase), Some(fb)) = (scratch(&a), scratch(&base), scratch(&b)) else {
            return TextVerdict::Unknown;
        };
        git::merge_file(&self.root, fa.path(), fbase.path(), fb.path())
    }
}
