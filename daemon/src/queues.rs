//! Waiting lines for locks (`lock.acquire` with `waitMs`): per symbol, first come first
//! served. A ticket leaves its line when dropped — when its request is answered, or when
//! its client goes away and the request is cancelled.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The waiting lines of every symbol.
#[derive(Debug, Default)]
pub(crate) struct LockQueues {
    lines: Mutex<HashMap<String, VecDeque<u64>>>,
    next: AtomicU64,
}

/// A place in one line.
pub(crate) struct Ticket<'a> {
    queues: &'a LockQueues,
    key: String,
    id: u64,
}

impl LockQueues {
    /// Joins the end of `key`'s line.
    pub(crate) fn join(&self, key: &str) -> Ticket<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lines()
            .entry(key.to_owned())
            .or_default()
            .push_back(id);
        Ticket {
            queues: self,
            key: key.to_owned(),
            id,
        }
    }

    /// How many requests wait, over all symbols (`daemon.status` counts.lockWaiters).
    pub(crate) fn total(&self) -> usize {
        self.lines().values().map(VecDeque::len).sum()
    }

    /// How many wait for `key`.
    #[cfg(test)]
    pub(crate) fn len(&self, key: &str) -> usize {
        self.lines().get(key).map_or(0, VecDeque::len)
    }

    fn lines(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<u64>>> {
        // Every update is one whole statement: a poisoned lock still guards whole lines.
        self.lines.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Ticket<'_> {
    /// Whether this ticket is first in its line.
    pub(crate) fn is_head(&self) -> bool {
        self.queues
            .lines()
            .get(&self.key)
            .and_then(|l| l.front().copied())
            == Some(self.id)
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let mut lines = self.queues.lines();
        if let Some(line) = lines.get_mut(&self.key) {
            line.retain(|id| *id != self.id);
            if line.is_empty() {
                lines.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_come_first_served_and_a_dropped_ticket_leaves_the_line() {
        let q = LockQueues::default();
        let a = q.join("f");
        let b = q.join("f");
        let c = q.join("f");
        assert!(a.is_head() && !b.is_head() && !c.is_head());
        drop(b); // a cancelled waiter in the middle
        assert_eq!(q.len("f"), 2);
        drop(a);
        assert!(c.is_head(), "the next in line, not a newcomer");
        let d = q.join("f");
        assert!(!d.is_head());
        drop(c);
        drop(d);
        assert_eq!(q.len("f"), 0);
    }
}
