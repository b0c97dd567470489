//! Edits the guard has checked and the agent is about to make: which session, which
//! file, which definitions, and the file's content once written. The file watcher often
//! sees the write before the agent's post-edit hook reports it; a write whose content is
//! a checked edit's is that session's, and another change seen shortly after a checked
//! edit of the file waits for the session's own report (at most [`EXPECTED`]).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// How long the watcher waits for a checked edit's post-edit hook before it takes a
/// change of that file as unattributed (the hook runs within milliseconds of the write;
/// a checked edit may also never be made: its tool failed, the user refused it).
pub(crate) const EXPECTED: Duration = Duration::from_secs(3);

/// Most checked edits remembered (a bound on memory; the oldest go first).
const KEPT: usize = 256;

/// One checked edit.
#[derive(Debug, Clone)]
pub(crate) struct Proposal {
    /// The session about to make it.
    pub session: String,
    /// The file.
    pub file: String,
    /// SHA-256 of the file's content once written (`None`: the edit deletes it).
    pub content: Option<[u8; 32]>,
    /// The definitions (keys) that were there before the edit and that it leaves alone.
    pub untouched: BTreeSet<String>,
    /// When it was checked.
    pub at: Instant,
}

/// The checked edits not reported yet.
#[derive(Default)]
pub(crate) struct Pending {
    list: Vec<Proposal>,
}

impl Pending {
    /// Remembers `p` (replacing the session's earlier one on the same file).
    pub(crate) fn add(&mut self, p: Proposal) {
        self.expire();
        self.list
            .retain(|q| !(q.session == p.session && q.file == p.file));
        if self.list.len() >= KEPT {
            self.list.remove(0);
        }
        self.list.push(p);
    }

    /// The session's checked edit of `file`, taken out (its post-edit hook reports it).
    pub(crate) fn take(&mut self, session: &str, file: &str) -> Option<Proposal> {
        self.expire();
        let i = self
            .list
            .iter()
            .position(|q| q.session == session && q.file == file)?;
        Some(self.list.remove(i))
    }

    /// The checked edit of `file` whose content is `content`, if one is expected.
    pub(crate) fn matching(&mut self, file: &str, content: Option<&[u8; 32]>) -> Option<Proposal> {
        self.expire();
        self.list
            .iter()
            .rev()
            .find(|q| q.file == file && q.content.as_ref() == content)
            .cloned()
    }

    /// The latest checked edit of `file` still expected (any content).
    pub(crate) fn latest(&mut self, file: &str) -> Option<Proposal> {
        self.expire();
        self.list.iter().rev().find(|q| q.file == file).cloned()
    }

    /// Proposals are kept a while past [`EXPECTED`]: a late post-edit hook still finds
    /// which definitions its edit changed.
    fn expire(&mut self) {
        self.list.retain(|q| q.at.elapsed() < EXPECTED * 10);
    }
}
