//! What the worktrees one daemon process serves have in common: the families of shared
//! index content ([`crate::index::shared`]), the merge-base trees their forecasts read
//! ([`Trees`]) and the verdicts of the merges they ask
//! ([`crate::forecast::verdicts`]), and the list of worktrees served, for
//! `daemon.status` and `daemon.stop`.

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
}
