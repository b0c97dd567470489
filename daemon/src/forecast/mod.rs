//! The conflict forecast between the checkouts sharing this daemon's state (issue 22).
//!
//! Each daemon publishes, for its own checkout, what differs from the merge base of its
//! HEAD with each other live checkout's HEAD ([`changes`]): per file, the changed
//! definitions with the callees its code graph resolves, or a blob for files no analyzer
//! covers. Both daemons of a pair then compute the pair's forecasts with
//! `wit_forecast::forecast` from the published changes (git's `merge-file` for the
//! textual ones) and reconcile them into the store, where each appearance and
//! clearance is an event (`forecast.appeared`, `forecast.cleared`; see
//! `store::forecast::reconcile` for why both may compute and each is still announced
//! once).
//!
//! **When.** The file watcher hands every settled path to this thread, which compares
//! that one file with each base and republishes it only when its change differs; a commit,
//! checkout or rebase (HEAD moved) rescans; another daemon's publication (a store commit)
//! recomputes the pairs whose versions moved. Every checkout beats every [`HEARTBEAT`]; one
//! silent for [`STALE_MS`] (its daemon killed, its directory deleted) no longer counts,
//! and its forecasts clear. A daemon that stops withdraws its checkout first.
//!
//! **States** a checkout can be in, shown by `conflicts.forecast`: `ready`, `indexing`
//! (its code graph is being built: calls would be missed), `rebasing` or `merging` (the
//! checkout is between two states; its changes are withdrawn until the operation ends),
//! `no-commit` (nothing to compare with), `too-many-changes` (more changed files against
//! a merge base than one scan compares, `changes::MAX_CHANGED`: nothing of it is compared
//! until it has fewer; looked at again when HEAD moves and every [`FULL_CHECK`]). A pair
//! with no common history has no forecast.
//!
//! **What it writes, where.** Rows in the coordination store (the checkout, its changes
//! as JSON, the forecasts); the uncommitted versions of files it compares as text under
//! the common `.wit/forecast/` (private, see `texts`). Nothing in the repository or its
//! object database: git is only asked to read.

mod changes;
mod git;
mod texts;
pub(crate) mod verdicts;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender};
use std::time::{Duration, Instant};

use wit_core::text::escape;
use wit_forecast::{Checkout, FileChange, TextVerdict};

use crate::state::AppState;
use crate::store::forecast::{self as rows, CheckoutRow};
use changes::{Base, Scan, Tracker};
use texts::{Source, Texts};

/// How often a checkout with company says it is alive (and looks at its HEAD).
const HEARTBEAT: Duration = Duration::from_secs(2);
/// How often a checkout alone looks at its HEAD (and writes nothing unless it moved).
const ALONE_BEAT: Duration = Duration::from_secs(10);
/// How often git is asked about HEAD even when nothing it keeps seems to have moved.
const FULL_CHECK: Duration = Duration::from_secs(30);
/// A checkout silent this long no longer counts.
pub(crate) const STALE_MS: i64 = 20_000;
/// A checkout silent this long is forgotten.
const FORGET_MS: i64 = 10 * 60_000;
/// Most merge bases one checkout keeps changes against (one per distinct base of the
/// other checkouts; more are left out, and logged).
const MAX_BASES: usize = 8;

/// The size and time of each file git keeps about HEAD (see `Runner::head_stamp`).
type Stamp = Vec<Option<(std::time::SystemTime, u64)>>;

/// How a store job of this thread runs.
#[derive(Clone, Copy)]
enum Mode {
    Read,
    Write,
    /// A write of many rows (a first scan of a checkout with thousands of changed
    /// files): its batch runs on the blocking pool, never on the thread that answers
    /// requests.
    Heavy,
    /// A heartbeat: a write that wakes no waiter (`AppState::write_quiet`).
    Beat,
}

/// How long the forecast's `git cat-file` readers stay alive unused.
const READERS_IDLE: Duration = Duration::from_secs(10);

/// Merge bases remembered (by the pair of heads) before the cache starts afresh.
const MERGE_BASES_KEPT: usize = 256;

/// How long an answer to "does git run wit's merge driver for this file?" is reused.
const DRIVER_CHECKED: Duration = Duration::from_secs(5);

/// Changed files from which a publication is a heavy write.
const HEAVY_ROWS: usize = 256;

enum Msg {
    Path(String),
    Store,
    Stop(SyncSender<()>),
}

/// The forecast thread of this daemon.
pub(crate) struct Forecaster {
    tx: Sender<Msg>,
}

impl Forecaster {
    /// Starts the thread (and the task that tells it of other daemons' commits); the
    /// index hands it every path its watcher sees settle.
    pub(crate) fn start(state: Arc<AppState>) -> Forecaster {
        let (tx, rx) = std::sync::mpsc::channel::<Msg>();
        let paths = tx.clone();
        state.index.listen(Box::new(move |rel: &str| {
            let _ = paths.send(Msg::Path(rel.to_owned()));
        }));
        let store_tx = tx.clone();
        let mut seen = state.events.subscribe();
        // Weak: the task must not keep the daemon's state alive past its shutdown.
        let bridge_state = Arc::downgrade(&state);
        tokio::spawn(async move {
            // Every commit that changed something wakes this (the checkouts' heartbeats
            // do not: see `Runner::step`); the thread reads the checkouts' versions at most
            // every 50 ms (one short query), not once per commit.
            while seen.changed().await.is_ok() {
                // A daemon no other can share its state with (SQLite, no linked worktree)
                // has nobody's commits to look at.
                let Some(state) = bridge_state.upgrade() else {
                    return;
                };
                let shared = matches!(state.store, crate::store::Backend::Postgres(_))
                    || state.placement.may_be_shared();
                drop(state);
                if shared && store_tx.send(Msg::Store).is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        let runtime = tokio::runtime::Handle::current();
        let spawned = std::thread::Builder::new()
            .name("wit-forecast".into())
            .spawn(move || Runner::new(state, runtime).run(&rx));
        if let Err(e) = spawned {
            tracing::error!("the forecast thread did not start: {e}");
        }
        Forecaster { tx }
    }

    /// Withdraws this checkout (its rows, and the forecasts it takes part in, cleared)
    /// and stops the thread; waits at most `limit`.
    pub(crate) fn stop(&self, limit: Duration) {
        let (ack, done) = std::sync::mpsc::sync_channel(1);
        if self.tx.send(Msg::Stop(ack)).is_ok() {
            let _ = done.recv_timeout(limit);
        }
    }
}

/// The other checkouts' published changes against one base, at one version.
struct Theirs {
    version: i64,
    files: BTreeMap<String, FileChange>,
}

struct Runner {
    state: Arc<AppState>,
    runtime: tokio::runtime::Handle,
    me: String,
    tracker: Tracker,
    own: CheckoutRow,
    bases: HashMap<String, Base>,
    merge_bases: HashMap<(String, String), Option<String>>,
    others: Vec<CheckoutRow>,
    theirs: HashMap<(String, String), Theirs>,
    computed: HashMap<String, (String, i64, i64)>,
    last_beat: Option<Instant>,
    /// This checkout's git directory, asked once.
    git_dir: Option<std::path::PathBuf>,
    /// The HEAD stamp (and whether the index was ready) at the last look with git.
    stamp: Option<(Stamp, bool)>,
    /// When git was last asked.
    checked: Option<Instant>,
    /// Whether start-up is over (see the end of `Runner::step`).
    settled: bool,
    /// Trims the daemon's heap after start-up and now and then since.
    footprint: crate::footprint::Trimmer,
    /// The `git cat-file` readers of every scan, save and merge (see `git::Batch`).
    readers: git::Batch,
    /// Whether git runs wit's merge driver for a path, and when that was asked (asked
    /// only of files git's merge stops on; `wit hook install` may change it any time).
    driver_installed: HashMap<String, (bool, Instant)>,
    /// The size and time of the files that say whether git runs wit's merge driver (the
    /// common `config` and `info/attributes`) at the last round.
    driver_stamp: Option<Stamp>,
}

impl Runner {
    fn new(state: Arc<AppState>, runtime: tokio::runtime::Handle) -> Self {
        let me = state.worktree_name();
        let limit = state.config.parsed.analysis.max_file_bytes;
        let texts = Texts::new(
            &state.root,
            &state.placement.state,
            &me,
            limit,
            state.process.verdicts.clone(),
        );
        let readers = git::Batch::new(&state.root);
        let tracker = Tracker::new(
            &state.root,
            state.analysis.clone(),
            state.index.clone(),
            limit,
            texts,
            state.process.clone(),
        );
        Runner {
            own: CheckoutRow {
                checkout: me.clone(),
                branch: None,
                head: None,
                state: "indexing".into(),
                version: 0,
                seen_at: 0,
            },
            me,
            tracker,
            state,
            runtime,
            bases: HashMap::new(),
            merge_bases: HashMap::new(),
            others: Vec::new(),
            theirs: HashMap::new(),
            computed: HashMap::new(),
            last_beat: None,
            git_dir: None,
            stamp: None,
            checked: None,
            settled: false,
            footprint: crate::footprint::Trimmer::default(),
            readers,
            driver_installed: HashMap::new(),
            driver_stamp: None,
        }
    }

    /// Runs a store job from this thread (the daemon's runtime answers it).
    fn db<T: Send + 'static>(
        &self,
        mode: Mode,
        f: impl FnOnce(&dyn crate::store::db::Db) -> crate::store::db::DbResult<T> + Send + 'static,
    ) -> Option<T> {
        let state = self.state.clone();
        let job = move |db: &dyn crate::store::db::Db| f(db).map_err(crate::methods::Failure::from);
        let result = self.runtime.block_on(async move {
            match mode {
                Mode::Read => state.read(job).await,
                Mode::Write => state.write(job).await,
                Mode::Heavy => state.write_sized(true, job).await,
                Mode::Beat => state.write_quiet(job).await,
            }
        });
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::warn!("forecast: the store failed: {}", escape(&e.0.message));
                None
            }
        }
    }

    fn run(mut self, rx: &Receiver<Msg>) {
        let mut first_round = true;
        loop {
            let mut paths: BTreeSet<String> = BTreeSet::new();
            let mut store = false;
            let mut stop = None;
            // A round a second at least (the beats); the first one a moment after start,
            // not while the daemon is still answering its first requests.
            let wait = if first_round {
                Duration::from_millis(200)
            } else {
                Duration::from_secs(1)
            };
            first_round = false;
            let first = rx.recv_timeout(wait);
            let mut take = |m: Msg| match m {
                Msg::Path(p) => {
                    paths.insert(p);
                }
                Msg::Store => store = true,
                Msg::Stop(ack) => stop = Some(ack),
            };
            match first {
                Ok(m) => take(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            while let Ok(m) = rx.try_recv() {
                take(m);
            }
            if let Some(ack) = stop {
                self.withdraw();
                let _ = ack.send(());
                return;
            }
            self.step(paths, store);
        }
    }

    /// One round: the checkout's own state, the others', the changes of the saved files,
    /// then every pair whose inputs moved.
    fn step(&mut self, paths: BTreeSet<String>, store: bool) {
        // A checkout being deleted (`git worktree remove`, `rm -rf`) first looks like one
        // whose files all went: nothing is published from it; the daemon stops when its
        // root is gone and withdraws the checkout then.
        if self.deleted() {
            return;
        }
        // Alone (no other live checkout), a daemon looks at its HEAD less often and
        // writes nothing on its beats (a heartbeat wakes nobody, but it is still a
        // commit). Another checkout's first write wakes this one (`store`), which then
        // beats at once.
        let alone = self.others.is_empty();
        let every = if alone { ALONE_BEAT } else { HEARTBEAT };
        // The index just built: the checkout is ready now, not at the next beat.
        let indexed = self.own.state == "indexing" && self.state.index.ready();
        let mut beat = indexed || self.last_beat.is_none_or(|at| at.elapsed() >= every);
        let mut publish: Vec<(String, String, Option<String>)> = Vec::new();
        let mut dropped: Vec<String> = Vec::new();
        let mut moved = false;
        if beat || store {
            self.look_at_others(beat);
        }
        if alone && !self.others.is_empty() {
            beat = true; // company: say so now, and look at HEAD
        }
        if beat {
            moved = self.look_at_self(&mut dropped);
        }
        moved |= self.sync_bases(&mut publish, &mut dropped);
        moved |= self.driver_moved();
        let mut grown = None;
        // Which saved files git ignores, asked once for the round (not once per file).
        let ignored = if paths.is_empty() || self.bases.is_empty() {
            None
        } else {
            let list: Vec<&str> = paths
                .iter()
                .map(String::as_str)
                .filter(|p| !changes::own_files(p))
                .collect();
            git::ignored(&self.state.root, &list)
        };
        for rel in &paths {
            let listed = ignored.as_ref().map(|i| !i.contains(rel));
            for base in self.bases.values_mut() {
                if self.tracker.update(base, rel, &mut self.readers, listed) {
                    let json = base
                        .files
                        .get(rel)
                        .and_then(|c| serde_json::to_string(c).ok());
                    publish.push((base.id.clone(), rel.clone(), json));
                    if base.files.len() > changes::MAX_CHANGED {
                        grown = Some(base.files.len());
                    }
                }
            }
        }
        if let Some(n) = grown {
            self.too_many(n, &mut publish, &mut dropped);
            moved = true;
        }
        if !publish.is_empty() || !dropped.is_empty() || moved {
            self.own.version = (self.own.version + 1).max(crate::clock::now_ms());
        }
        if beat {
            self.last_beat = Some(Instant::now());
        }
        if self.deleted() {
            return; // deleted while this step read it (see above)
        }
        let first = self.own.seen_at == 0;
        let heartbeat = beat && !self.others.is_empty();
        let changed = !publish.is_empty() || !dropped.is_empty() || moved;
        if first || heartbeat || changed {
            let now = crate::clock::now_ms();
            // A beat that changes nothing but the time wakes nobody: the others read it
            // at their own beats, which is all liveness needs. One that comes after a
            // silence the others may have taken for a stop is announced, so that they
            // count this checkout again at once.
            let quiet = !first && !changed && now - self.own.seen_at < STALE_MS / 2;
            self.own.seen_at = now;
            let own = self.own.clone();
            let mode = if publish.len() >= HEAVY_ROWS {
                Mode::Heavy
            } else if quiet {
                Mode::Beat
            } else {
                Mode::Write
            };
            let written = self.db(mode, move |db| {
                for base in &dropped {
                    rows::drop_changes(db, &own.checkout, Some(base))?;
                }
                for (base, file, change) in &publish {
                    rows::put_change(db, &own.checkout, base, file, change.as_deref())?;
                }
                rows::put_checkout(db, &own)
            });
            if written.is_some() {
                // What this checkout's changes no longer name is no longer kept.
                let bases = &self.bases;
                self.tracker
                    .texts
                    .retain(bases.values().flat_map(|b| b.files.values()));
            }
            if written.is_none() {
                // Not published (the store failed, and said why in the log): what this
                // thread holds is ahead of what the others can read. Start over at the
                // next round (every base rescanned and published again, the checkout's
                // row written), and compute no pair from a state nobody else has.
                self.bases.clear();
                self.own.seen_at = 0;
                return;
            }
        }
        self.forecast_pairs();
        // Start-up is over once this thread has looked at a built index (its first git
        // processes and store writes done): what start-up freed goes back to the system
        // (see `crate::footprint`).
        if !self.settled && self.own.state != "indexing" {
            self.settled = true;
            self.footprint.trim(self.served());
        }
        self.footprint.tick(self.served());
        self.readers.rest(READERS_IDLE);
    }

    /// Requests the daemon answered so far.
    fn served(&self) -> u64 {
        self.state.served.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether this checkout, a git checkout when the daemon started, has lost its `.git`
    /// (it is being deleted). A directory that never was one is not "deleted": it is
    /// `not-git`, and takes no part.
    fn deleted(&self) -> bool {
        self.git_dir.is_some() && std::fs::symlink_metadata(self.state.root.join(".git")).is_err()
    }

    /// Reads HEAD, the branch and any operation under way; whether the checkout's state
    /// changed (then every base is rescanned).
    fn look_at_self(&mut self, dropped: &mut Vec<String>) -> bool {
        // git is asked (four processes) only when something it keeps about HEAD moved,
        // or every FULL_CHECK: a stat of a few files costs next to nothing per beat.
        let stamp = self.head_stamp();
        let ready = self.state.index.ready();
        if self.stamp.as_ref() == Some(&(stamp.clone(), ready))
            && self.checked.is_some_and(|at| at.elapsed() < FULL_CHECK)
        {
            return false;
        }
        self.stamp = Some((stamp, ready));
        self.checked = Some(Instant::now());
        let root = &self.state.root;
        let head = git::head(root);
        let branch = git::branch(root);
        // The git directory `head_stamp` just asked for (once for the daemon's life).
        let busy = self.git_dir.as_deref().and_then(git::in_progress);
        let state = if head.is_none() {
            if self.git_dir.is_some() {
                "no-commit"
            } else {
                "not-git"
            }
        } else if let Some(op) = busy {
            op
        } else if !ready {
            "indexing"
        } else {
            "ready"
        };
        let moved = head != self.own.head || state != self.own.state;
        if head != self.own.head || state != "ready" {
            dropped.extend(self.bases.drain().map(|(id, _)| id));
        }
        self.own.head = head;
        self.own.branch = branch;
        self.own.state = state.to_owned();
        moved
    }

    /// Whether `wit hook install` or `wit hook remove` (or anyone) changed whether git runs
    /// wit's merge driver since the last round: then every pair is computed again (this
    /// checkout's version moves, so the others' computations of its pairs are not stale),
    /// since a file git stops on is a forecast without the driver and none with it. Two
    /// stats a round.
    fn driver_moved(&mut self) -> bool {
        let Some(common) = self
            .state
            .placement
            .common_dir
            .clone()
            .or_else(|| self.git_dir.clone())
        else {
            return false;
        };
        let meta = |p: std::path::PathBuf| {
            std::fs::symlink_metadata(p)
                .ok()
                .map(|m| (m.modified().unwrap_or(std::time::UNIX_EPOCH), m.len()))
        };
        let stamp = vec![
            meta(common.join("config")),
            meta(common.join("info").join("attributes")),
        ];
        let first = self.driver_stamp.is_none();
        if self.driver_stamp.as_ref() == Some(&stamp) {
            return false;
        }
        self.driver_stamp = Some(stamp);
        self.driver_installed.clear();
        !first
    }

    /// What git keeps about this checkout's HEAD, as file sizes and times: HEAD, its
    /// reflog, the branch's ref, and the markers of a rebase or merge under way.
    fn head_stamp(&mut self) -> Stamp {
        if self.git_dir.is_none() {
            self.git_dir = git::git_dir(&self.state.root);
        }
        let Some(dir) = self.git_dir.clone() else {
            return Vec::new();
        };
        let meta = |p: &std::path::Path| {
            std::fs::symlink_metadata(p)
                .ok()
                .map(|m| (m.modified().unwrap_or(std::time::UNIX_EPOCH), m.len()))
        };
        let mut paths: Vec<std::path::PathBuf> = [
            "HEAD",
            "logs/HEAD",
            "rebase-merge",
            "rebase-apply",
            "MERGE_HEAD",
            "CHERRY_PICK_HEAD",
            "REVERT_HEAD",
        ]
        .iter()
        .map(|f| dir.join(f))
        .collect();
        // The branch's own ref (in the common directory for a linked worktree).
        if let Some(name) = wit_boundary::git::head_ref(&dir) {
            let common = self.state.placement.common_dir.clone().unwrap_or(dir);
            paths.push(common.join(name));
        }
        paths.iter().map(|p| meta(p)).collect()
    }

    /// Reads the other checkouts; on a heartbeat, also clears the pairs of checkouts gone
    /// silent and forgets those silent for long.
    fn look_at_others(&mut self, beat: bool) {
        let Some((all, pairs)) = self.db(Mode::Read, |db| {
            Ok((rows::checkouts(db)?, rows::all_pairs(db)?))
        }) else {
            return;
        };
        let now = crate::clock::now_ms();
        let live = |r: &CheckoutRow| now - r.seen_at < STALE_MS;
        self.others = all
            .iter()
            .filter(|r| r.checkout != self.me && live(r))
            .cloned()
            .collect();
        // What is kept of checkouts that left goes with them: memory stays bounded by the
        // checkouts live now, however many came and went.
        let others = &self.others;
        let live_other = |c: &str| others.iter().any(|o| o.checkout == c);
        self.theirs.retain(|(c, _), _| live_other(c));
        self.computed.retain(|c, _| live_other(c));
        if !beat {
            return;
        }
        // Pairs with a checkout silent (or gone from the table): cleared, with why.
        let standing = |c: &str| c == self.me || all.iter().any(|r| r.checkout == c && live(r));
        let clear: Vec<(String, String, String)> = pairs
            .into_iter()
            .filter_map(|(a, b)| {
                let why = if !standing(&a) {
                    format!("{} stopped", wit_forecast::short(&a))
                } else if !standing(&b) {
                    format!("{} stopped", wit_forecast::short(&b))
                } else {
                    return None;
                };
                Some((a, b, why))
            })
            .collect();
        let forget: Vec<String> = all
            .iter()
            .filter(|r| r.checkout != self.me && now - r.seen_at >= FORGET_MS)
            .map(|r| r.checkout.clone())
            .collect();
        if !forget.is_empty() {
            let known: Vec<String> = all.iter().map(|r| r.checkout.clone()).collect();
            self.tracker
                .texts
                .forget(&forget, &known, Duration::from_millis(FORGET_MS as u64));
        }
        if clear.is_empty() && forget.is_empty() {
            return; // nothing to write: no commit, nobody woken
        }
        self.db(Mode::Write, move |db| {
            for (a, b, why) in &clear {
                rows::reconcile(db, (a, b), None, &[], why)?;
            }
            for c in &forget {
                rows::remove_checkout(db, c)?;
            }
            Ok(())
        });
    }

    /// Scans the bases the live others need and this checkout does not have yet; drops
    /// those no longer needed. Whether any changed.
    fn sync_bases(
        &mut self,
        publish: &mut Vec<(String, String, Option<String>)>,
        dropped: &mut Vec<String>,
    ) -> bool {
        let mut needed: BTreeSet<String> = BTreeSet::new();
        if self.own.state == "ready"
            && let Some(head) = self.own.head.clone()
        {
            let heads: Vec<String> = self.others.iter().filter_map(|o| o.head.clone()).collect();
            for theirs in &heads {
                if let Some(base) = self.merge_base(&head, theirs) {
                    needed.insert(base);
                }
            }
        }
        if needed.len() > MAX_BASES {
            tracing::info!(
                "forecast: {} merge bases needed, keeping the first {MAX_BASES}",
                needed.len()
            );
            needed = needed.into_iter().take(MAX_BASES).collect();
        }
        let mut moved = false;
        let stale: Vec<String> = self
            .bases
            .keys()
            .filter(|b| !needed.contains(*b))
            .cloned()
            .collect();
        for id in stale {
            self.bases.remove(&id);
            dropped.push(id);
            moved = true;
        }
        for id in needed {
            if self.bases.contains_key(&id) {
                continue;
            }
            let base = match self.tracker.scan(&id, &mut self.readers) {
                Scan::Done(base) => base,
                Scan::TooMany(n) => {
                    self.too_many(n, publish, dropped);
                    return true;
                }
                Scan::Failed => {
                    tracing::info!("forecast: could not compare with {}", escape(&id));
                    continue;
                }
            };
            // A rescan replaces what was published against this base.
            dropped.push(id.clone());
            for (rel, change) in &base.files {
                publish.push((id.clone(), rel.clone(), serde_json::to_string(change).ok()));
            }
            self.bases.insert(id, base);
            moved = true;
        }
        moved
    }

    /// The checkout changed more files than a scan compares (`n`): nothing of it is
    /// published (its bases dropped) and its state says so, until a later look (HEAD
    /// moved, or every [`FULL_CHECK`]) finds fewer.
    fn too_many(
        &mut self,
        n: usize,
        publish: &mut Vec<(String, String, Option<String>)>,
        dropped: &mut Vec<String>,
    ) {
        if self.own.state != "too-many-changes" {
            tracing::info!(
                "forecast: {n} files changed against a merge base, more than the {} one scan \
                 compares: this checkout is not compared until it has fewer",
                changes::MAX_CHANGED
            );
        }
        publish.clear();
        dropped.extend(self.bases.drain().map(|(id, _)| id));
        self.own.state = "too-many-changes".into();
    }

    fn merge_base(&mut self, a: &str, b: &str) -> Option<String> {
        // Every commit of either side is a new pair of heads: the cache starts afresh
        // rather than growing for as long as the daemon runs.
        if self.merge_bases.len() >= MERGE_BASES_KEPT {
            self.merge_bases.clear();
        }
        let root = self.state.root.clone();
        self.merge_bases
            .entry((a.to_owned(), b.to_owned()))
            .or_insert_with(|| git::merge_base(&root, a, b))
            .clone()
    }

    /// Recomputes and reconciles every pair of this checkout whose inputs moved.
    fn forecast_pairs(&mut self) {
        let others = self.others.clone();
        for other in &others {
            let base = match (&self.own.head, &other.head) {
                _ if self.own.state != "ready" || other.state != "ready" => None,
                (Some(mine), Some(theirs)) => self.merge_base(&mine.clone(), &theirs.clone()),
                _ => None,
            };
            let key = (
                base.clone().unwrap_or_default(),
                self.own.version,
                other.version,
            );
            if self.computed.get(&other.checkout) == Some(&key) {
                continue;
            }
            let (a, b) = if self.me < other.checkout {
                (self.me.clone(), other.checkout.clone())
            } else {
                (other.checkout.clone(), self.me.clone())
            };
            let Some(base) = base.filter(|b| self.bases.contains_key(b)) else {
                let why = if self.own.state != "ready" {
                    not_compared(&self.me, &self.own.state)
                } else if other.state != "ready" {
                    not_compared(&other.checkout, &other.state)
                } else {
                    "no common history".to_owned()
                };
                let (a2, b2) = (a.clone(), b.clone());
                if self
                    .db(Mode::Write, move |db| {
                        rows::reconcile(db, (&a2, &b2), None, &[], &why).map(drop)
                    })
                    .is_some()
                {
                    self.computed.insert(other.checkout.clone(), key);
                }
                continue;
            };
            if !self.read_theirs(&other.checkout, &base, other.version) {
                continue;
            }
            let theirs = &self.theirs[&(other.checkout.clone(), base.clone())].files;
            let mine = &self.bases[&base].files;
            let (fa, fb) = if a == self.me {
                (mine, theirs)
            } else {
                (theirs, mine)
            };
            let base_ref = &self.bases[&base];
            let texts = &mut self.tracker.texts;
            let batch = &mut self.readers;
            let registry = self.state.analysis.registry();
            let root = &self.state.root;
            let asked = &mut self.driver_installed;
            let mut installed = |path: &str| -> bool {
                if let Some((yes, at)) = asked.get(path)
                    && at.elapsed() < DRIVER_CHECKED
                {
                    return *yes;
                }
                if asked.len() >= MERGE_BASES_KEPT {
                    asked.clear();
                }
                let yes = git::driver_installed(root, path);
                asked.insert(path.to_owned(), (yes, Instant::now()));
                yes
            };
            let mut merge = |m: wit_forecast::Merge<'_>| -> TextVerdict {
                let common = match m.base {
                    None => {
                        Tracker::base_blob(base_ref, m.path).map_or(Source::Empty, Source::Object)
                    }
                    Some(_) => Source::Empty,
                };
                let ours = Source::Published {
                    checkout: &a,
                    id: m.a,
                };
                let theirs = Source::Published {
                    checkout: &b,
                    id: m.b,
                };
                texts.merge(
                    batch,
                    m.path,
                    registry,
                    common,
                    ours,
                    theirs,
                    &mut installed,
                )
            };
            let outcome =
                wit_forecast::compare(Checkout::new(&a, fa), Checkout::new(&b, fb), &mut merge);
            let (found, notes) = (outcome.forecasts, outcome.driver_merges);
            let versions = if a == self.me {
                (self.own.version, other.version)
            } else {
                (other.version, self.own.version)
            };
            let (a2, b2) = (a.clone(), b.clone());
            let done = self.db(Mode::Write, move |db| {
                let done = rows::reconcile(db, (&a2, &b2), Some(versions), &found, "resolved")?;
                if !done.stale {
                    rows::put_driver_merges(db, &a2, &b2, &notes)?;
                }
                Ok(done)
            });
            if let Some(done) = done {
                if done.appeared + done.cleared > 0 {
                    tracing::info!(
                        "forecast {} ↔ {}: {} appeared, {} cleared",
                        escape(wit_forecast::short(&a)),
                        escape(wit_forecast::short(&b)),
                        done.appeared,
                        done.cleared
                    );
                }
                self.computed.insert(other.checkout.clone(), key);
            }
        }
    }

    /// Makes sure `checkout`'s published changes against `base` at `version` are at
    /// hand (read again only when its version moved); whether they are.
    fn read_theirs(&mut self, checkout: &str, base: &str, version: i64) -> bool {
        let key = (checkout.to_owned(), base.to_owned());
        if self.theirs.get(&key).is_some_and(|t| t.version == version) {
            return true;
        }
        let (c, b) = key.clone();
        let Some(listed) = self.db(Mode::Read, move |db| rows::changes(db, &c, &b)) else {
            return false;
        };
        let files = listed
            .into_iter()
            .filter_map(|(file, json)| {
                // Another daemon's JSON: a row this build cannot read is skipped.
                let change: FileChange = serde_json::from_str(&json).ok()?;
                crate::paths::normalize_file(&file)
                    .is_ok_and(|n| n == file)
                    .then_some((file, change))
            })
            .collect();
        self.theirs.insert(key, Theirs { version, files });
        true
    }

    /// Takes this checkout out of the forecast: its rows gone, its pairs cleared.
    fn withdraw(&mut self) {
        self.tracker.texts.withdraw();
        let me = self.me.clone();
        self.db(Mode::Write, move |db| {
            for (a, b) in rows::pairs_of(db, &me)? {
                let why = format!("{} stopped", wit_forecast::short(&me));
                rows::reconcile(db, (&a, &b), None, &[], &why)?;
            }
            rows::remove_checkout(db, &me)
        });
    }
}

/// Why a checkout in `state` (not `ready`) is not compared, as a clearance's reason:
/// `wt-b is rebasing`, `wt-b has too many changes to compare`.
fn not_compared(checkout: &str, state: &str) -> String {
    let name = wit_forecast::short(checkout);
    match state {
        "too-many-changes" => format!("{name} has too many changes to compare"),
        other => format!("{name} is {other}"),
    }
}

/// The merge base of two checkouts' HEADs, as the forecast compares them (blocking: a
/// git process).
pub(crate) fn pair_base(root: &std::path::Path, a: &str, b: &str) -> Option<String> {
    git::merge_base(root, a, b)
}
