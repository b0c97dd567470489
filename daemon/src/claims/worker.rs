//! The claims attached to the daemon: their store (the daemon's state implements
//! [`Rows`]) and their thread, which turns the file watcher's settled paths into
//! observations, compares the claims with HEAD when it moves, and at start looks at the
//! files that differ from HEAD.

use std::collections::{BTreeSet, HashMap};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use wit_core::text::escape;
use wit_forecast::claims::Claim;

use super::pending::EXPECTED;
use super::{Rows, Source, head, lock};
use crate::methods::Failure;
use crate::state::AppState;
use crate::store::claims::{self as rows, Changed};

/// How often the worker looks at HEAD when no file settles.
const ROUND: Duration = Duration::from_secs(1);

/// Most changed files looked at when the daemon starts (see [`Worker::run`]).
const START_FILES: usize = 2_000;

/// Runs a store job from a blocking thread (the daemon's runtime answers it).
fn block_on<T>(fut: impl std::future::Future<Output = Result<T, Failure>>) -> Result<T, Failure> {
    tokio::runtime::Handle::current().block_on(fut)
}

impl Rows for AppState {
    fn of_file(&self, checkout: &str, file: &str) -> Result<Vec<Claim>, Failure> {
        let (checkout, file) = (checkout.to_owned(), file.to_owned());
        block_on(self.read(move |db| Ok(rows::of_file(db, &checkout, &file)?)))
    }

    fn of_checkout(&self, checkout: &str) -> Result<Vec<Claim>, Failure> {
        let checkout = checkout.to_owned();
        block_on(self.read(move |db| Ok(rows::of_checkout(db, &checkout)?)))
    }

    fn files_of(&self, checkout: &str) -> Result<Vec<String>, Failure> {
        let checkout = checkout.to_owned();
        block_on(self.read(move |db| Ok(rows::files_of(db, &checkout)?)))
    }

    fn apply(
        &self,
        checkout: &str,
        upserts: Vec<Claim>,
        cleared: Vec<Claim>,
        why: &str,
    ) -> Result<Changed, Failure> {
        let (checkout, why) = (checkout.to_owned(), why.to_owned());
        block_on(self.write(move |db| Ok(rows::apply(db, &checkout, &upserts, &cleared, &why)?)))
    }
}

/// Starts the worker of `state`'s claims (see the module documentation).
pub(crate) fn start(state: &Arc<AppState>) {
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    state.index.listen(Box::new(move |rel: &str| {
        let _ = tx.send(rel.to_owned());
    }));
    let weak = Arc::downgrade(state);
    let runtime = tokio::runtime::Handle::current();
    let spawned = std::thread::Builder::new()
        .name("wit-claims".into())
        .spawn(move || {
            let _entered = runtime.enter();
            Worker::run(weak, &rx);
        });
    if let Err(e) = spawned {
        tracing::error!("the claims thread did not start: {e}");
    }
}

/// The claims' thread: settled paths in, observations out.
/// The thread.
struct Worker;

impl Worker {
    fn run(state: Weak<AppState>, rx: &Receiver<String>) {
        // Paths seen while an edit of theirs was expected: looked at again once overdue.
        let mut deferred: HashMap<String, Instant> = HashMap::new();
        // Once the index is built (the watcher set up), the files that differ from HEAD
        // are looked at once: changes made while no daemon ran, or before the watcher
        // watched, are claimed unattributed (nobody knows whose they are), so that a
        // stale write cannot undo them either.
        let mut started = false;
        loop {
            let mut paths: BTreeSet<String> = BTreeSet::new();
            match rx.recv_timeout(ROUND) {
                Ok(p) => {
                    paths.insert(p);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            while let Ok(p) = rx.try_recv() {
                paths.insert(p);
            }
            let Some(state) = state.upgrade() else {
                return;
            };
            let claims = &state.claims;
            if !started && state.index.ready() {
                started = true;
                let root = state.root.clone();
                paths.extend(head::changed_files(&root, START_FILES).unwrap_or_default());
            }
            if let Err(e) = claims.look_at_head(&*state) {
                tracing::warn!(
                    "claims: comparing with HEAD failed: {}",
                    escape(&e.0.message)
                );
            }
            let due: Vec<String> = deferred
                .iter()
                .filter(|(_, at)| at.elapsed() >= EXPECTED)
                .map(|(p, _)| p.clone())
                .collect();
            for p in due {
                deferred.remove(&p);
                paths.insert(p);
            }
            for rel in paths {
                let expected = lock(&claims.pending).latest(&rel);
                match claims.observe(&*state, &rel, Source::Watcher) {
                    Ok(_) => {
                        if let Some(p) = expected.filter(|p| p.at.elapsed() < EXPECTED) {
                            deferred.entry(rel).or_insert(p.at);
                        }
                    }
                    Err(e) => tracing::warn!(
                        "claims: {} not recorded: {}",
                        escape(&rel),
                        escape(&e.0.message)
                    ),
                }
            }
        }
    }
}
