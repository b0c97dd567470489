//! What the worktrees one daemon process serves have in common: the families of shared
//! index content ([`crate::index::shared`]) and the list of worktrees served, for
//! `daemon.status` and `daemon.stop`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::index::shared::Families;

/// The process serving one or more worktrees.
#[derive(Default)]
pub(crate) struct Process {
    /// Index content shared by worktrees with the same analyzers.
    pub families: Families,
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
