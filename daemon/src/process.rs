//! What the worktrees one daemon process serves have in common: the families of shared
//! index content ([`crate::index::shared`]), the merge-base trees their forecasts read
//! ([`Trees`]) and the verdicts of the merges they ask
//! ([`crate::forecast::verdicts`]), who is woken by other daemons' commits to a shared
//! database ([`Sharers`]), and the list of worktrees served, for `daemon.status` and
//! `daemon.stop`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use crate::forecast::verdicts::Verdicts;
use crate::index::shared::Families;

/// The process serving one or more worktrees.
#[derive(Default)]
pub(crate) struct Process {
    /// Index content shared by worktrees with the same analyzers.
    pub families: Families,
    /// The commits' trees the worktrees' forecasts compare against.
    pub trees: Trees,
    /// The verdicts of the merges the worktrees' forecasts ask.
    pub verdicts: Arc<Verdicts>,
    /// The worktrees on each shared SQLite database, and its watcher.
    pub sharers: Sharers,
    sites: Arc<Mutex<BTreeSet<PathBuf>>>,
}

impl Process {
    /// Notes that `root` is served until the returned guard is dropped.
    pub(crate) fn serving(&self, root: &Path) -> Serving {
        self.lock().insert(root.to_owned());
        Serving {
            sites: self.sites.clone(),
            root: root.to_owned(),
        }
    }

    /// Every worktree this process serves.
    pub(crate) fn sites(&self) -> Vec<PathBuf> {
        self.lock().iter().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<PathBuf>> {
        self.sites.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A worktree being served (see [`Process::serving`]).
pub(crate) struct Serving {
    sites: Arc<Mutex<BTreeSet<PathBuf>>>,
    root: PathBuf,
}

impl Drop for Serving {
    fn drop(&mut self) {
        self.sites
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.root);
    }
}

/// A commit's regular files: path → blob id.
pub(crate) type Tree = HashMap<String, String>;

/// The trees of the commits the forecasts of a process's worktrees compare against, by
/// commit id: worktrees of one repository usually share their merge bases, and a tree of
/// 10,000 files is about 2 MB. Weak: a tree no forecast holds is freed.
#[derive(Default)]
pub(crate) struct Trees(Mutex<HashMap<String, Weak<Tree>>>);

impl Trees {
    /// `commit`'s tree, read with `read` unless a worktree holds it already.
    pub(crate) fn get_or(
        &self,
        commit: &str,
        read: impl FnOnce() -> Option<Tree>,
    ) -> Option<Arc<Tree>> {
        if let Some(tree) = self.lock().get(commit).and_then(Weak::upgrade) {
            return Some(tree);
        }
        // Read without the lock (a git process); two worktrees reading the same commit
        // at once both read it, and the later one's is kept.
        let tree = Arc::new(read()?);
        let mut trees = self.lock();
        trees.retain(|_, t| t.strong_count() > 0);
        trees.insert(commit.to_owned(), Arc::downgrade(&tree));
        Some(tree)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Weak<Tree>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Wakes one worktree's waiters (its `AppState::events`).
pub(crate) type Wake = Box<dyn Fn() + Send + Sync>;

/// The worktrees this process serves on each SQLite database other daemons may write to,
/// and the one task per database that watches it for their commits (`crate::others`):
/// eight worktrees of one repository poll their shared database once, not eight times.
#[derive(Default)]
pub(crate) struct Sharers {
    by_database: Mutex<HashMap<PathBuf, Sharing>>,
    next: std::sync::atomic::AtomicU64,
}

/// The worktrees on one database.
#[derive(Default)]
struct Sharing {
    wakes: Vec<(u64, Wake)>,
    watcher: Option<tokio::task::JoinHandle<()>>,
}

impl Sharers {
    /// Adds a worktree on `db`, woken with `wake`; `start` starts the database's watcher
    /// when it has none. The worktree's key, for [`Sharers::leave`].
    pub(crate) fn join(
        &self,
        db: &Path,
        wake: Wake,
        start: impl FnOnce() -> tokio::task::JoinHandle<()>,
    ) -> u64 {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut map = self.lock();
        let sharing = map.entry(db.to_owned()).or_default();
        sharing.wakes.push((id, wake));
        if sharing.watcher.is_none() {
            sharing.watcher = Some(start());
        }
        id
    }

    /// Wakes every worktree on `db`.
    pub(crate) fn wake(&self, db: &Path) {
        if let Some(sharing) = self.lock().get(db) {
            for (_, wake) in &sharing.wakes {
                wake();
            }
        }
    }

    /// Takes the worktree `id` off `db`; when it was the last one, the watcher to stop
    /// (its connection must be closed before the worktree's store, so that the last one
    /// out checkpoints the WAL).
    pub(crate) fn leave(&self, db: &Path, id: u64) -> Option<tokio::task::JoinHandle<()>> {
        let mut map = self.lock();
        let sharing = map.get_mut(db)?;
        sharing.wakes.retain(|(i, _)| *i != id);
        if !sharing.wakes.is_empty() {
            return None;
        }
        map.remove(db)?.watcher
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Sharing>> {
        self.by_database.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_read_once_while_a_worktree_holds_it() {
        let trees = Trees::default();
        let mut reads = 0;
        let mut read = || {
            reads += 1;
            Some(Tree::from([("a.ts".to_owned(), "0".repeat(40))]))
        };
        let first = trees.get_or("c1", &mut read).unwrap();
        let second = trees.get_or("c1", &mut read).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        drop((first, second));
        trees.get_or("c1", &mut read).unwrap();
        assert_eq!(reads, 2, "read again once no worktree held it");
        assert!(trees.get_or("c2", || None).is_none());
    }

    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A wake that counts into `n`.
    fn counting(n: &Arc<AtomicUsize>) -> Wake {
        let n = n.clone();
        Box::new(move || {
            n.fetch_add(1, Ordering::SeqCst);
        })
    }

    #[tokio::test]
    async fn one_watcher_per_database_outlives_the_worktree_that_started_it() {
        let sharers = Sharers::default();
        let (db, other) = (Path::new("/r/.wit/state.db"), Path::new("/s/.wit/state.db"));
        let started = Arc::new(AtomicUsize::new(0));
        let start = || {
            started.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(std::future::pending::<()>())
        };
        let woken: Vec<Arc<AtomicUsize>> = (0..3).map(|_| Arc::default()).collect();
        let first = sharers.join(db, counting(&woken[0]), start);
        let second = sharers.join(db, counting(&woken[1]), start);
        let elsewhere = sharers.join(other, counting(&woken[2]), start);
        assert_eq!(
            started.load(Ordering::SeqCst),
            2,
            "one watcher per database"
        );

        sharers.wake(db);
        let counts = || {
            woken
                .iter()
                .map(|n| n.load(Ordering::SeqCst))
                .collect::<Vec<_>>()
        };
        assert_eq!(counts(), [1, 1, 0]);
        // The worktree whose start began the watcher leaves: the watcher stays.
        assert!(sharers.leave(db, first).is_none());
        sharers.wake(db);
        assert_eq!(counts(), [1, 2, 0]);
        // The last one out gets the watcher to stop; a later worktree starts another.
        let watcher = sharers
            .leave(db, second)
            .expect("the last one stops the watcher");
        watcher.abort();
        assert!(watcher.await.unwrap_err().is_cancelled());
        sharers.wake(db);
        assert_eq!(counts(), [1, 2, 0]);
        let again = sharers.join(db, counting(&woken[0]), start);
        assert_eq!(started.load(Ordering::SeqCst), 3);
        assert!(sharers.leave(db, again).is_some());
        assert!(sharers.leave(other, elsewhere).is_some());
    }
}
