//! The verdicts of git's merge and of wit's merge driver on three versions of a file,
//! kept once for every worktree one process serves.
//!
//! Both checkouts of a pair compute the pair's forecasts, with the checkouts in the same
//! order (sorted), so both ask the same merges of the same three contents (see
//! `store::forecast::reconcile` for why both compute). A save in one of N checkouts, of a
//! file the others changed too, used to run 2 × (N − 1) merges, each up to a few dozen
//! `git merge-file` processes and three parses with wit's driver, of which only N − 1
//! differ. A verdict depends on nothing of the checkout asking:
//! - git's: on the three contents (named by their ids: a blob's, or the SHA-256 of a
//!   published text) and the size cap they are read under;
//! - the driver's: on those, and on the analyzer that cuts the file into definitions
//!   (chosen by the file's path, among analyzers that may differ between worktrees with
//!   different `wit.toml`s: [`crate::index::shared::analyzers_key`]).
//!
//! git runs with the repository's configuration, which its worktrees share (a
//! worktree-only `merge.conflictStyle` changes how conflicts are written, not how many
//! there are). So the forecasts of one process keep each verdict once, and one asking for
//! a verdict another is computing waits for it rather than run the same processes.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use wit_forecast::TextVerdict;

/// Verdicts remembered before a memo starts afresh.
const KEPT: usize = 4096;

/// How long a forecast waits for another's merge of the same versions before it runs the
/// merge itself (a merge is milliseconds to a second; this only bounds a stuck one).
const WAIT_AT_MOST: Duration = Duration::from_secs(10);

/// Three versions of one file, by the ids of their contents, read under a size cap.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct Versions {
    /// `[analysis] max_file_bytes` of the checkout reading them: a version over it is
    /// not merged, so the cap is part of what a verdict says.
    pub limit: u64,
    /// The base's, ours, theirs.
    pub ids: [String; 3],
}

/// The merges of one process's forecasts.
#[derive(Default)]
pub(crate) struct Verdicts {
    /// git's verdict on three versions.
    pub git: Memo<Versions, TextVerdict>,
    /// Whether wit's merge driver merges three versions git stops on, by the analyzers'
    /// key, the file's path (its analyzer) and the versions.
    pub driver: Memo<(String, String, Versions), bool>,
}

/// Values computed once per key, by whichever caller asks first; callers asking while it
/// computes wait for its value.
pub(crate) struct Memo<K, V> {
    state: Mutex<State<K, V>>,
    settled: Condvar,
}

struct State<K, V> {
    done: HashMap<K, V>,
    /// Keys being computed.
    pending: HashSet<K>,
    /// Callers waiting for a pending key.
    waiting: usize,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo {
            state: Mutex::new(State {
                done: HashMap::new(),
                pending: HashSet::new(),
                waiting: 0,
            }),
            settled: Condvar::new(),
        }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> Memo<K, V> {
    /// The value of `key`: kept, or awaited from the caller computing it, or computed now
    /// with `compute` (`None`: no value, nothing kept; a caller that was waiting then
    /// computes it itself).
    pub(crate) fn get_or(&self, key: &K, compute: impl FnOnce() -> Option<V>) -> Option<V> {
        let deadline = Instant::now() + WAIT_AT_MOST;
        let mut state = self.lock();
        loop {
            if let Some(v) = state.done.get(key) {
                return Some(v.clone());
            }
            if !state.pending.contains(key) {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                drop(state);
                return compute();
            }
            state.waiting += 1;
            state = self
                .settled
                .wait_timeout(state, left)
                .map_or_else(|p| p.into_inner().0, |(s, _)| s);
            state.waiting -= 1;
        }
        state.pending.insert(key.clone());
        drop(state);
        let mut computing = Computing {
            memo: self,
            key,
            value: None,
        };
        computing.value = compute();
        computing.value.clone()
    }

    /// How many callers wait for a value being computed (for tests).
    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.lock().waiting
    }

    fn lock(&self) -> MutexGuard<'_, State<K, V>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A key being computed: dropped, its value (if any) is kept and the waiters wake, also
/// when the computation panicked.
struct Computing<'m, K: Eq + Hash + Clone, V: Clone> {
    memo: &'m Memo<K, V>,
    key: &'m K,
    value: Option<V>,
}

impl<K: Eq + Hash + Clone, V: Clone> Drop for Computing<'_, K, V> {
    fn drop(&mut self) {
        let mut state = self.memo.lock();
        state.pending.remove(self.key);
        if let Some(v) = self.value.take() {
            if state.done.len() >= KEPT {
                state.done.clear();
            }
            state.done.insert(self.key.clone(), v);
        }
        drop(state);
        self.memo.settled.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    /// Runs `get_or(key)` on a thread whose computation blocks until `release` says so;
    /// returns once it is computing.
    fn computing_on_a_thread(
        memo: &Arc<Memo<u32, String>>,
        value: Option<String>,
    ) -> (mpsc::Sender<()>, std::thread::JoinHandle<Option<String>>) {
        let (started_tx, started) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let m = memo.clone();
        let first = std::thread::spawn(move || {
            m.get_or(&1, || {
                started_tx.send(()).unwrap();
                released.recv().unwrap();
                value
            })
        });
        started.recv().unwrap();
        (release, first)
    }

    /// Waits until `n` callers wait on `memo` (a readiness check, not a sleep).
    fn until_waiting(memo: &Memo<u32, String>, n: usize) {
        while memo.waiting() < n {
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_caller_asking_while_another_computes_waits_for_its_value() {
        let memo = Arc::new(Memo::default());
        let (release, first) = computing_on_a_thread(&memo, Some("merged".into()));
        let computed = Arc::new(AtomicUsize::new(0));
        let (m, c) = (memo.clone(), computed.clone());
        let second = std::thread::spawn(move || {
            m.get_or(&1, || {
                c.fetch_add(1, Ordering::SeqCst);
                Some("again".into())
            })
        });
        until_waiting(&memo, 1);
        release.send(()).unwrap();
        assert_eq!(first.join().unwrap().as_deref(), Some("merged"));
        assert_eq!(second.join().unwrap().as_deref(), Some("merged"));
        assert_eq!(computed.load(Ordering::SeqCst), 0);
        // Kept: a later caller does not compute either.
        assert_eq!(memo.get_or(&1, || None).as_deref(), Some("merged"));
        // Another key is computed.
        assert_eq!(
            memo.get_or(&2, || Some("two".into())).as_deref(),
            Some("two")
        );
    }

    #[test]
    fn no_value_is_not_kept_and_a_waiting_caller_computes_it_itself() {
        let memo = Arc::new(Memo::default());
        let (release, first) = computing_on_a_thread(&memo, None);
        let m = memo.clone();
        let second = std::thread::spawn(move || m.get_or(&1, || Some("mine".into())));
        until_waiting(&memo, 1);
        release.send(()).unwrap();
        assert_eq!(first.join().unwrap(), None);
        assert_eq!(second.join().unwrap().as_deref(), Some("mine"));
        assert_eq!(memo.get_or(&1, || None).as_deref(), Some("mine"));
    }

    #[test]
    fn a_computation_that_panics_wakes_the_waiters() {
        let memo: Arc<Memo<u32, String>> = Arc::new(Memo::default());
        let (started_tx, started) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let m = memo.clone();
        let first = std::thread::spawn(move || {
            m.get_or(&1, || -> Option<String> {
                started_tx.send(()).unwrap();
                released.recv().unwrap();
                panic!("the computation failed");
            })
        });
        started.recv().unwrap();
        let m = memo.clone();
        let second = std::thread::spawn(move || m.get_or(&1, || Some("mine".into())));
        until_waiting(&memo, 1);
        release.send(()).unwrap();
        assert!(first.join().is_err());
        assert_eq!(second.join().unwrap().as_deref(), Some("mine"));
    }

    #[test]
    fn a_full_memo_starts_afresh() {
        let memo: Memo<usize, usize> = Memo::default();
        for k in 0..KEPT {
            memo.get_or(&k, || Some(k));
        }
        assert_eq!(memo.get_or(&0, || None), Some(0));
        memo.get_or(&KEPT, || Some(KEPT));
        assert_eq!(memo.get_or(&0, || None), None, "the earlier verdicts went");
        assert_eq!(memo.get_or(&KEPT, || None), Some(KEPT));
    }
}
