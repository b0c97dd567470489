//! Analyses made ahead of need: the content an edit the guard has just checked is about
//! to write, analysed so that the watcher and the post-edit hook find it in the analysis
//! cache when the write happens.
//!
//! Nobody waits for these, and the agent is waiting for something else meanwhile: the
//! guard's own process to finish, the edit, the post-edit hook's start. Run on the
//! blocking pool right after the guard's answer, such an analysis took a core the guard
//! still needed (on two cores, the guard's time with another session's claim in a
//! 2,200-line file went from 5 to 8 ms p50 in `wit-bench --claims`). So they run on one
//! thread of their own at a lower priority ([`crate::priority`]): a request for the same
//! file waits for an analysis under way rather than parse it twice, and the thread still
//! progresses on a busy machine.
//!
//! At most [`QUEUED`] wait; past that a preparation is dropped, which costs only the time
//! it would have saved.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Mutex, Weak};

use crate::analysis::AnalysisService;

/// Most preparations waiting at once.
const QUEUED: usize = 16;

/// The preparing thread's queue.
pub(crate) struct Prepare {
    queue: Mutex<Option<SyncSender<(String, String)>>>,
}

impl Prepare {
    /// Starts the preparing thread of `analysis` (it ends with the service). A thread that
    /// cannot start leaves a queue that drops everything: preparing is an optimisation.
    pub(crate) fn start(analysis: Weak<AnalysisService>) -> Prepare {
        let (tx, rx) = std::sync::mpsc::sync_channel(QUEUED);
        let spawned = std::thread::Builder::new()
            .name("wit-prepare".into())
            .spawn(move || run(&analysis, &rx));
        let queue = match spawned {
            Ok(_) => Some(tx),
            Err(e) => {
                tracing::warn!("the preparing thread did not start: {e}");
                None
            }
        };
        Prepare {
            queue: Mutex::new(queue),
        }
    }

    /// Asks for `content` to be analysed as the file `rel`, later, at the thread's
    /// priority.
    pub(crate) fn later(&self, rel: String, content: String) {
        let queue = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = queue.as_ref()
            && let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) =
                tx.try_send((rel, content))
        {
            tracing::debug!("a preparation dropped: the queue is full");
        }
    }
}

fn run(analysis: &Weak<AnalysisService>, queue: &Receiver<(String, String)>) {
    crate::priority::lower_this_thread();
    while let Ok((rel, content)) = queue.recv() {
        let Some(analysis) = analysis.upgrade() else {
            return;
        };
        analysis.analyse_content(&rel, &content);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// What is prepared is in the cache afterwards, made from exactly that content.
    #[test]
    fn a_prepared_content_is_found_in_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let analysis = Arc::new(AnalysisService::new(
            root,
            wit_analyzers::builtin_registry(),
        ));
        let prepare = Prepare::start(Arc::downgrade(&analysis));
        let content = "export function prepared() { return 1; }\n";
        prepare.later("src/a.ts".into(), content.into());
        // The thread runs on its own; the cache is asked until it has the analysis.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            if let Some(a) = analysis.cached_content("src/a.ts", content) {
                assert_eq!(a.symbols[0].name, "prepared");
                break;
            }
            assert!(std::time::Instant::now() < deadline, "never prepared");
            std::thread::yield_now();
        }
    }
}
