//! What the worktrees one daemon process serves have in common: the families of shared
//! index content ([`crate::index::shared`]), the merge-base trees their forecasts read
//! ([`Trees`]) and the verdicts of the merges they ask
//! ([`crate::forecast::verdicts`]), the PostgreSQL stores they share ([`PgStores`]), who
//! is woken by other daemons' commits to a shared store ([`Sharers`]), and the list of
//! worktrees served, for `daemon.status` and `daemon.stop`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use crate::forecast::verdicts::Verdicts;
use crate::index::shared::Families;
use crate::store::pg::PgStore;

/// The process serving one or more worktrees.
#[derive(Default)]
pub(crate) struct Process {
    /// Index content shared by worktrees with the same analyzers.
    pub families: Families,
    /// The commits' trees the worktrees' forecasts compare against.
    pub trees: Trees,
    /// The verdicts of the merges the worktrees' forecasts ask.
    pub verdicts: Arc<Verdicts>,
    /// The PostgreSQL stores the worktrees use.
    pub pg_stores: PgStores,
    /// The worktrees on each shared store, and its watcher.
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

/// Values the worktrees of a process share by key while one of them holds each: weak, so
/// a value no worktree holds any more is freed.
pub(crate) struct Kept<K, V>(Mutex<HashMap<K, Weak<V>>>);

impl<K, V> Default for Kept<K, V> {
    fn default() -> Self {
        Kept(Mutex::new(HashMap::new()))
    }
}

impl<K: std::hash::Hash + Eq, V> Kept<K, V> {
    /// The value kept for `key`, if a worktree holds it.
    pub(crate) fn get<Q>(&self, key: &Q) -> Option<Arc<V>>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        self.lock().get(key).and_then(Weak::upgrade)
    }

    /// Keeps `value` for `key`, unless another worktree made and kept one meanwhile (both
    /// made it without the lock): then that one, and `value` is dropped.
    pub(crate) fn keep(&self, key: K, value: Arc<V>) -> Arc<V> {
        let mut kept = self.lock();
        kept.retain(|_, v| v.strong_count() > 0);
        if let Some(earlier) = kept.get(&key).and_then(Weak::upgrade) {
            return earlier;
        }
        kept.insert(key, Arc::downgrade(&value));
        value
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Weak<V>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The trees of the commits the forecasts of a process's worktrees compare against, by
/// commit id: worktrees of one repository usually share their merge bases, and a tree of
/// 10,000 files is about 2 MB.
#[derive(Default)]
pub(crate) struct Trees(Kept<String, Tree>);

impl Trees {
    /// `commit`'s tree, read with `read` unless a worktree holds it already.
    pub(crate) fn get_or(
        &self,
        commit: &str,
        read: impl FnOnce() -> Option<Tree>,
    ) -> Option<Arc<Tree>> {
        if let Some(tree) = self.0.get(commit) {
            return Some(tree);
        }
        // Read without the lock (a git process); two worktrees reading the same commit
        // at once both read it, and the earlier kept is the one used.
        Some(self.0.keep(commit.to_owned(), Arc::new(read()?)))
    }
}

/// The PostgreSQL stores of a process's worktrees, by URL and project: the worktrees of
/// one repository share one project, and a store is 6 connections to the server (4 for
/// reads, the writer, the listener) and a thread: eight worktrees each with its own held
/// 48 of the server's 100 by default. One store serves them all, and its batches group
/// their writes.
#[derive(Default)]
pub(crate) struct PgStores(Kept<(String, String), PgStore>);

impl PgStores {
    /// The store of `project` at `url`, connected (and its schema migrated) unless a
    /// worktree of this process holds it already.
    pub(crate) async fn get_or_connect(
        &self,
        url: &str,
        project: &str,
    ) -> Result<Arc<PgStore>, String> {
        let key = (url.to_owned(), project.to_owned());
        if let Some(store) = self.0.get(&key) {
            return Ok(store);
        }
        let store = Arc::new(PgStore::connect(url, project).await?);
        Ok(self.0.keep(key, store))
    }
}

/// Which shared store a worktree is on.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum StoreKey {
    /// An SQLite database, by path.
    Sqlite(PathBuf),
    /// A PostgreSQL project: its database (host, port and name, as
    /// `store::target::shown` gives them) and the project.
    Postgres(String, String),
}

/// Wakes one worktree's waiters (its `AppState::events`).
pub(crate) type Wake = Box<dyn Fn() + Send + Sync>;

/// The worktrees this process serves on each store other daemons may write to, and the
/// one task per store that watches it for their commits (`crate::others`): eight
/// worktrees of one repository poll their shared SQLite database once, not eight times,
/// and listen to their PostgreSQL store on one connection, not eight.
#[derive(Default)]
pub(crate) struct Sharers {
    by_store: Mutex<HashMap<StoreKey, Sharing>>,
    next: std::sync::atomic::AtomicU64,
}

/// The worktrees on one database.
#[derive(Default)]
struct Sharing {
    wakes: Vec<(u64, Wake)>,
    watcher: Option<tokio::task::JoinHandle<()>>,
}

impl Sharers {
    /// Adds a worktree on `store`, woken with `wake`; `start` starts the store's watcher
    /// when it has none. The worktree's key, for [`Sharers::leave`].
    pub(crate) fn join(
        &self,
        store: &StoreKey,
        wake: Wake,
        start: impl FnOnce() -> tokio::task::JoinHandle<()>,
    ) -> u64 {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut map = self.lock();
        let sharing = map.entry(store.clone()).or_default();
        sharing.wakes.push((id, wake));
        if sharing.watcher.is_none() {
            sharing.watcher = Some(start());
        }
        id
    }

    /// Wakes every worktree on `store`.
    pub(crate) fn wake(&self, store: &StoreKey) {
        if let Some(sharing) = self.lock().get(store) {
            for (_, wake) in &sharing.wakes {
                wake();
            }
        }
    }

    /// Takes the worktree `id` off `store`; when it was the last one, the watcher to stop
    /// (an SQLite watcher's connection must be closed before the worktree's store, so
    /// that the last one out checkpoints the WAL).
    pub(crate) fn leave(&self, store: &StoreKey, id: u64) -> Option<tokio::task::JoinHandle<()>> {
        let mut map = self.lock();
        let sharing = map.get_mut(store)?;
        sharing.wakes.retain(|(i, _)| *i != id);
        if !sharing.wakes.is_empty() {
            return None;
        }
        map.remove(store)?.watcher
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<StoreKey, Sharing>> {
        self.by_store.lock().unwrap_or_else(|p| p.into_inner())
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

    #[test]
    fn a_kept_value_is_shared_while_held_and_freed_with_its_last_holder() {
        let kept: Kept<&str, String> = Kept::default();
        let first = kept.keep("k", Arc::new("first".to_owned()));
        // Made meanwhile by another worktree: the one kept first is used.
        let second = kept.keep("k", Arc::new("second".to_owned()));
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(*kept.get("k").unwrap(), "first");
        drop((first, second));
        assert!(kept.get("k").is_none(), "freed with its last holder");
        assert_eq!(*kept.keep("k", Arc::new("third".to_owned())), "third");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_worktrees_of_a_process_share_one_postgresql_store_per_url_and_project() {
        let cluster = wit_testkit::postgres::Cluster::start();
        cluster.create_db("wit");
        let url = cluster.url("wit");
        let stores = PgStores::default();
        let a = stores.get_or_connect(&url, "p1").await.unwrap();
        let b = stores.get_or_connect(&url, "p1").await.unwrap();
        assert!(Arc::ptr_eq(&a, &b), "one store for one project");
        let other = stores.get_or_connect(&url, "p2").await.unwrap();
        assert!(!Arc::ptr_eq(&a, &other), "another project, another store");
        let weak = Arc::downgrade(&a);
        drop((a, b));
        assert!(weak.upgrade().is_none(), "closed with its last worktree");
        let again = stores.get_or_connect(&url, "p1").await.unwrap();
        assert_eq!(again.project(), "p1");
        let refused = stores.get_or_connect("postgresql://nobody@/x?host=/nonexistent", "p1");
        assert!(
            refused.await.is_err(),
            "a store that cannot be reached is an error"
        );
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
        let db = &StoreKey::Sqlite(PathBuf::from("/r/.wit/state.db"));
        let other = &StoreKey::Postgres("postgresql://h/d".into(), "/r".into());
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
