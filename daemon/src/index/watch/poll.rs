//! Directories past the watch budget ([`super::budget`]): listed now and then instead of
//! watched. Each listing is compared with the one before (every entry's kind, inode, size,
//! modification and change time, never following a symlink: `wit_boundary::repo_dir`),
//! and whatever differs is reported as the watch would have reported it: a file written,
//! created, removed or renamed; a directory created or removed. A change there is noticed
//! within [`POLL_INTERVAL`], then settles like any other.
//!
//! What a scan costs is one `stat` per entry of every polled directory (about a
//! microsecond each): should a scan take longer than 1/[`MAX_SHARE`] of the interval, the
//! next waits longer, so polling never takes more than that share of a core.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use wit_boundary::repo_dir::{EntryKind, list_repo_dir};

use super::Change;

/// How often the polled directories are listed (at most: see [`MAX_SHARE`]).
pub(crate) const POLL_INTERVAL: Duration = Duration::from_secs(2);
/// A scan that took `t` is followed by the next after at least `t × MAX_SHARE`.
const MAX_SHARE: u32 = 20;

/// One directory's entries at its last listing: kind and stamp by name.
type Listing = HashMap<String, (EntryKind, (u64, u64, i64, i64, i64, i64))>;

/// The polled directories and their last listings.
pub(super) struct Poller {
    dirs: BTreeMap<String, Listing>,
    /// When the next scan is due (set while some directory is polled).
    next: Option<Instant>,
    interval: Duration,
}

impl Default for Poller {
    fn default() -> Self {
        Self {
            dirs: BTreeMap::new(),
            next: None,
            interval: POLL_INTERVAL,
        }
    }
}

impl Poller {
    /// How many directories are polled.
    pub(super) fn len(&self) -> usize {
        self.dirs.len()
    }

    /// Whether `rel` is polled.
    pub(super) fn contains(&self, rel: &str) -> bool {
        self.dirs.contains_key(rel)
    }

    /// The interval between scans now.
    pub(super) fn interval(&self) -> Duration {
        self.interval
    }

    /// Polls the directory `rel` from now on: listed now, so that the next scan reports
    /// what changes after this moment. A directory that cannot be listed (gone, refused)
    /// is not polled.
    pub(super) fn add(&mut self, root: &Path, rel: &str) {
        if self.dirs.contains_key(rel) {
            return;
        }
        if let Some(listing) = list(root, rel) {
            self.dirs.insert(rel.to_owned(), listing);
            self.next
                .get_or_insert_with(|| Instant::now() + self.interval);
        }
    }

    /// Stops polling some directory (the first in path order), after one last comparison
    /// into `out` (for a directory about to be watched: what changed before its watch
    /// began is not lost); returns it.
    pub(super) fn take_first(&mut self, root: &Path, out: &mut Vec<Change>) -> Option<String> {
        let rel = self.dirs.keys().next()?.clone();
        self.compare(root, &rel, out);
        self.dirs.remove(&rel);
        if self.dirs.is_empty() {
            self.next = None;
        }
        Some(rel)
    }

    /// When the next scan is due, if any directory is polled.
    pub(super) fn due(&self) -> Option<Instant> {
        self.next
    }

    /// Lists every polled directory and reports into `out` what changed since the last
    /// listing. A directory that can no longer be listed is reported whole (each entry
    /// it had) and no longer polled.
    pub(super) fn scan(&mut self, root: &Path, out: &mut Vec<Change>) {
        let started = Instant::now();
        let dirs: Vec<String> = self.dirs.keys().cloned().collect();
        for rel in dirs {
            self.compare(root, &rel, out);
        }
        let took = started.elapsed();
        self.interval = POLL_INTERVAL.max(took * MAX_SHARE);
        self.next = (!self.dirs.is_empty()).then(|| Instant::now() + self.interval);
    }

    /// Lists `rel` again and reports what differs from its last listing.
    fn compare(&mut self, root: &Path, rel: &str, out: &mut Vec<Change>) {
        let Some(old) = self.dirs.get_mut(rel) else {
            return;
        };
        let path = |name: &str| {
            if rel.is_empty() {
                name.to_owned()
            } else {
                format!("{rel}/{name}")
            }
        };
        let Some(new) = list(root, rel) else {
            for name in old.keys() {
                out.push(Change {
                    rel: path(name),
                    new_dir: false,
                });
            }
            self.dirs.remove(rel);
            return;
        };
        for (name, (kind, stamp)) in &new {
            let before = old.get(name);
            let is_dir = *kind == EntryKind::Dir;
            let changed = match before {
                None => true,
                Some((k, _)) if k != kind => true,
                // A directory's own stamp moves with its entries: those are its own
                // watch's (or listing's) to report, as inotify reports them.
                Some(_) if is_dir => false,
                Some((_, s)) => s != stamp,
            };
            if changed {
                let new_dir = is_dir && before.is_none_or(|(k, _)| *k != EntryKind::Dir);
                out.push(Change {
                    rel: path(name),
                    new_dir,
                });
            }
        }
        for name in old.keys().filter(|n| !new.contains_key(*n)) {
            out.push(Change {
                rel: path(name),
                new_dir: false,
            });
        }
        *old = new;
    }
}

/// The listing of `rel`, or `None` when it cannot be listed.
fn list(root: &Path, rel: &str) -> Option<Listing> {
    let entries = list_repo_dir(root, rel).ok()?;
    Some(
        entries
            .into_iter()
            .map(|e| (e.name, (e.kind, e.stamp)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changes(out: &mut Vec<Change>) -> Vec<(String, bool)> {
        let mut v: Vec<(String, bool)> = out.drain(..).map(|c| (c.rel, c.new_dir)).collect();
        v.sort();
        v
    }

    /// A write, a creation, a removal and a new directory in a polled directory are all
    /// reported by the next scan, and nothing when nothing changed; a directory removed
    /// reports what it held and is no longer polled.
    #[test]
    fn a_scan_reports_what_changed_in_a_polled_directory_since_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.ts"), "a").unwrap();
        std::fs::write(root.join("src/b.ts"), "b").unwrap();
        let mut p = Poller::default();
        p.add(&root, "src");
        p.add(&root, "missing");
        assert_eq!(p.len(), 1);
        assert!(p.due().is_some());
        let mut out = Vec::new();
        p.scan(&root, &mut out);
        assert!(out.is_empty());
        std::fs::write(root.join("src/a.ts"), "a, longer").unwrap();
        std::fs::write(root.join("src/c.ts"), "c").unwrap();
        std::fs::remove_file(root.join("src/b.ts")).unwrap();
        std::fs::create_dir(root.join("src/sub")).unwrap();
        p.scan(&root, &mut out);
        assert_eq!(
            changes(&mut out),
            [
                ("src/a.ts".to_owned(), false),
                ("src/b.ts".to_owned(), false),
                ("src/c.ts".to_owned(), false),
                ("src/sub".to_owned(), true),
            ]
        );
        std::fs::write(root.join("src/sub/x.ts"), "x").unwrap();
        p.scan(&root, &mut out);
        assert!(out.is_empty(), "a subdirectory's entries are its own");
        std::fs::remove_dir_all(root.join("src")).unwrap();
        p.scan(&root, &mut out);
        assert_eq!(
            changes(&mut out),
            [
                ("src/a.ts".to_owned(), false),
                ("src/c.ts".to_owned(), false),
                ("src/sub".to_owned(), false),
            ]
        );
        assert_eq!(p.len(), 0);
        assert!(p.due().is_none());
    }
}
