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
//! files in this checkout's directory, removed at once), never `--object-id`, with the
//! histogram diff `git merge` uses. Where it stops on a file an analyzer covers, wit's
//! merge driver (`wit_merge`, its line merges run the same way) is asked whether it would
//! merge the file, and git whether it is installed for it. A verdict is remembered by the
//! three contents' ids, once for every worktree the process serves
//! ([`super::verdicts`]), so a pair recomputed after every save merges only the files
//! whose versions moved, and the two checkouts of a pair merge them once.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use wit_boundary::content::{ContentStore, content_id, owner_name};
use wit_core::Registry;
use wit_core::text::escape;
use wit_forecast::{Driver, FileChange, TextVerdict};

use super::git::{self, Batch, Blob};
use super::verdicts::{Verdicts, Versions};

/// Most bytes of changed text one checkout keeps for the others (64 MiB).
pub(crate) const BUDGET: u64 = 64 << 20;

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
    /// The merges' verdicts, shared with the process's other worktrees.
    verdicts: Arc<Verdicts>,
}

impl Texts {
    /// The texts of the checkout `me` at `root`, kept under the common `.wit/` `wit`;
    /// `verdicts` are the process's.
    pub(crate) fn new(
        root: &Path,
        wit: &wit_boundary::WitDir,
        me: &str,
        limit: u64,
        verdicts: Arc<Verdicts>,
    ) -> Self {
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
            verdicts,
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
                FileChange::Text { blob: Some(id), .. }
                | FileChange::Symbols { blob: Some(id), .. } => {
                    named.insert(id);
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

    /// git's three-way merge of `a` and `b` against `base`, the versions of `path` (see
    /// the module docs). Where git stops on a file `registry` analyses, the verdict
    /// locates it ([`wit_forecast::colliding_regions`]) and says what wit's merge driver
    /// would make of it (`installed`: whether git runs it for the file; asked only then).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn merge(
        &mut self,
        batch: &mut Batch,
        path: &str,
        registry: &Registry,
        base: Source<'_>,
        a: Source<'_>,
        b: Source<'_>,
        installed: &mut dyn FnMut(&str) -> bool,
    ) -> TextVerdict {
        let versions = Versions {
            limit: self.limit,
            ids: [base.key(), a.key(), b.key()],
        };
        // Read at most once, by whichever verdict is computed here first.
        let mut texts: Option<[Vec<u8>; 3]> = None;
        let verdict = self.verdicts.git.get_or(&versions, || {
            let texts = texts.insert(self.read(batch, base, a, b)?);
            Some(self.run_merge(texts)).filter(|v| *v != TextVerdict::Unknown)
        });
        let Some(TextVerdict::Conflict {
            conflicts, regions, ..
        }) = verdict
        else {
            return verdict.unwrap_or(TextVerdict::Unknown);
        };
        // A file no analyzer covers never reaches wit's driver.
        let merges = match registry.for_path(path) {
            None => None,
            Some(_) => {
                let analyzers = crate::index::shared::analyzers_key(registry);
                let key = (analyzers, path.to_owned(), versions);
                self.verdicts.driver.get_or(&key, || {
                    let texts = match texts {
                        Some(read) => read,
                        None => self.read(batch, base, a, b)?,
                    };
                    self.driver_merges(path, registry, &texts)
                })
            }
        };
        let Some(merges) = merges else {
            return TextVerdict::Conflict {
                conflicts,
                regions,
                driver: Driver::Unknown,
            };
        };
        let driver = if merges {
            Driver::Merges {
                installed: installed(path),
            }
        } else {
            Driver::Stops
        };
        TextVerdict::Conflict {
            conflicts,
            regions,
            driver,
        }
    }

    /// The three versions' bytes: base, a, b.
    fn read(
        &self,
        batch: &mut Batch,
        base: Source<'_>,
        a: Source<'_>,
        b: Source<'_>,
    ) -> Option<[Vec<u8>; 3]> {
        let store = self.store.as_ref()?;
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
        Some([read(base)?, read(a)?, read(b)?])
    }

    /// git's verdict on `[base, a, b]`, located when it stops on text.
    fn run_merge(&self, [base, a, b]: &[Vec<u8>; 3]) -> TextVerdict {
        let Some(store) = &self.store else {
            return TextVerdict::Unknown;
        };
        let scratch = |bytes: &[u8]| store.scratch(&self.owner, bytes).ok();
        let (Some(fa), Some(fbase), Some(fb)) = (scratch(a), scratch(base), scratch(b)) else {
            return TextVerdict::Unknown;
        };
        match git::merge_file(&self.root, fa.path(), fbase.path(), fb.path()) {
            TextVerdict::Conflict {
                conflicts, driver, ..
            } => {
                let text = |v: &[u8]| std::str::from_utf8(v).ok().map(str::to_owned);
                let regions = match (text(base), text(a), text(b)) {
                    (Some(base), Some(a), Some(b)) => {
                        wit_forecast::colliding_regions(&base, &a, &b)
                    }
                    _ => Vec::new(),
                };
                TextVerdict::Conflict {
                    conflicts,
                    regions,
                    driver,
                }
            }
            other => other,
        }
    }

    /// Whether wit's merge driver merges `[base, a, b]` of `path` cleanly, git's line
    /// merge having stopped on them (`None`: it could not be asked).
    fn driver_merges(&self, path: &str, registry: &Registry, blobs: &[Vec<u8>; 3]) -> Option<bool> {
        let store = self.store.as_ref()?;
        let mut git = git::ScratchMerge {
            root: &self.root,
            store,
            owner: &self.owner,
        };
        let blobs = [&blobs[0][..], &blobs[1], &blobs[2]];
        match wit_merge::merges_cleanly(path, blobs, registry, self.limit, &mut git) {
            Ok(clean) => Some(clean),
            Err(e) => {
                tracing::debug!("forecast: wit's merge of {}: {}", escape(path), escape(&e));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adjacent one-line functions, each changed on one side: git stops, wit's driver
    /// merges.
    const BASE: &str = "export function price(n: number): number { return n * 2; }\nexport function tax(n: number): number { return n / 10; }\n";

    #[test]
    fn the_checkouts_of_one_process_merge_three_versions_once() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let git = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(&root)
            .status()
            .unwrap();
        assert!(git.success());
        let wit = wit_boundary::WitDir::new(&root);
        wit.ensure().unwrap();
        let registry = wit_analyzers::builtin_registry();
        let mut batch = Batch::new(&root);
        let shared = Arc::new(Verdicts::default());
        let limit = 1 << 20;
        let mut a = Texts::new(&root, &wit, "/w/a", limit, shared.clone());
        let mut b = Texts::new(&root, &wit, "/w/b", limit, shared.clone());
        let base = a.keep(BASE.as_bytes()).unwrap();
        let ours = a.keep(BASE.replace("n * 2", "n * 3").as_bytes()).unwrap();
        let theirs = b.keep(BASE.replace("n / 10", "n / 5").as_bytes()).unwrap();
        let sources = [
            Source::Published {
                checkout: "/w/a",
                id: &base,
            },
            Source::Published {
                checkout: "/w/a",
                id: &ours,
            },
            Source::Published {
                checkout: "/w/b",
                id: &theirs,
            },
        ];
        let mut merge_at = |path: &str, texts: &mut Texts, installed: bool| {
            let [s0, s1, s2] = sources;
            texts.merge(&mut batch, path, &registry, s0, s1, s2, &mut |_| installed)
        };
        // The same contents in a file another analyzer reads (Python, where they do not
        // parse): the driver's verdict is that file's own.
        let python = merge_at("src/rates.py", &mut a, false);
        assert!(
            matches!(
                python,
                TextVerdict::Conflict {
                    driver: Driver::Stops,
                    ..
                }
            ),
            "{python:?}"
        );
        let mut merge =
            |texts: &mut Texts, installed: bool| merge_at("src/rates.ts", texts, installed);
        let first = merge(&mut a, false);
        let TextVerdict::Conflict {
            conflicts,
            regions,
            driver,
        } = first.clone()
        else {
            panic!("git stops on adjacent lines: {first:?}");
        };
        assert_eq!((conflicts, regions.len()), (1, 1), "{first:?}");
        assert_eq!(driver, Driver::Merges { installed: false });

        // The texts gone, the other checkout still gets the verdicts (it merges nothing)
        // with its own answer to whether git runs the driver.
        a.withdraw();
        b.withdraw();
        let second = merge(&mut b, true);
        let TextVerdict::Conflict {
            conflicts: c2,
            regions: r2,
            driver: d2,
        } = second
        else {
            panic!("{second:?}");
        };
        assert_eq!((c2, r2), (conflicts, regions));
        assert_eq!(d2, Driver::Merges { installed: true });

        // A checkout of another process would have had to merge them, and could not.
        let mut alone = Texts::new(&root, &wit, "/w/c", limit, Arc::default());
        assert_eq!(merge(&mut alone, false), TextVerdict::Unknown);
    }
}
