//! One pair replayed: two Claude Code sessions editing one checkout at the pair's base
//! through the hooks `wit init --agents claude` configured, then the lost update, scored
//! against the oracles of `oracle.rs`.
//!
//! Each side's commit is turned into steps: per changed file a built-in analyzer covers
//! (in path order), each of git's `-U0` hunks against the base as one `Edit`, hunks at
//! most six lines apart joined as `git diff` joins them (see `edits.rs`), or, for a file
//! the commit adds, one `Write` creating it; deleted files are left out (Claude Code
//! deletes through its shell, which no edit hook sees). The two sessions' steps
//! alternate, A first. Each step goes through the pre-edit hook; when it
//! is allowed, the file is changed as the tool would change it and the post-edit hook
//! reports it. Then, for each file both commits changed, B writes the file back whole
//! from its stale read (the base with B's own changes: B read the file before A's first
//! edit and never again) with `Write`, through the same hooks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::json;
use wit_bench::client::Conn;
use wit_bench::daemon::Daemon;
use wit_bench::git_tree::{SUBMODULE, SYMLINK, base_command};
use wit_bench::history::git::{Git, Hunk};
use wit_bench::history::pairs::Pair;
use wit_core::config::DEFAULT_MAX_FILE_BYTES;
use wit_core::{Analysis, Registry};
use wit_forecast::Version;

use crate::edits::{FileState, Group, Side, group, lines};
use crate::hooks::{Event, Hooks, Verdict, clean_env, recorded, verdict};
use crate::oracle::{Lines, Timeline, all_defs, changed_keys, hunk_defs, ids, texts};
use crate::payload::{self, When};

/// The two sessions' ids, as their payloads carry them.
pub fn session(side: Side) -> &'static str {
    match side {
        Side::A => "claims-eval-a",
        Side::B => "claims-eval-b",
    }
}

/// Most steps of one side replayed: a commit with more edits in analysed files (a
/// reformatting, a vendored library) is no agent's edit session, and would take minutes.
pub const MAX_STEPS: usize = 80;

/// How long the daemon may take to index the checkout.
const INDEX_WAIT: Duration = Duration::from_secs(120);

/// One step's answer and what the oracles say of it.
#[derive(Debug, Clone, Serialize)]
pub struct StepResult {
    /// Its number in the pair's interleaving (from 0).
    pub n: usize,
    /// Whose.
    pub side: Side,
    /// The file.
    pub file: String,
    /// `edit`, or `create` (a `Write` of a new file).
    pub tool: &'static str,
    /// Whether the hunk's lines had been replaced by the other session (see `edits.rs`).
    pub merged: bool,
    /// Lines of context added to make `old_string` unique.
    pub context: usize,
    /// The pre-edit hook's answer.
    pub verdict: Verdict,
    /// The definitions (line oracle) the other session changed since this session last
    /// changed them, that the step touches: a warning is due when not empty.
    pub due_lines: Vec<String>,
    /// The same by the symbol oracle (`diff_symbols` match keys).
    pub due_symbols: Vec<String>,
    /// Whether the other session had edited this file before (a warning due or not, the
    /// file holds their claims).
    pub shared_file: bool,
    /// The pre-edit hook's wall time, ms.
    pub pre_ms: f64,
    /// The post-edit hook's wall time, ms (`None`: not run, the edit was refused).
    pub post_ms: Option<f64>,
}

/// B's whole-file write from its stale read, and what it would undo.
#[derive(Debug, Clone, Serialize)]
pub struct StaleWrite {
    /// The file.
    pub file: String,
    /// The pre-edit hook's answer.
    pub verdict: Verdict,
    /// The definitions A changed (line oracle) whose text the write changes: each of A's
    /// changes to them would be lost.
    pub undoes_lines: Vec<String>,
    /// The same by the symbol oracle: A's changed definitions (`diff_symbols` keys) that
    /// `diff_symbols` reports changed between the file now and the stale version.
    pub undoes_symbols: Vec<String>,
    /// The claims on the file just before (`claims.query`): `session symbolPath change`.
    pub claims_before: Vec<String>,
}

/// Everything measured on one pair.
#[derive(Debug, Clone, Serialize)]
pub struct PairResult {
    /// `C1+C2`.
    pub label: String,
    /// The base commit.
    pub base: String,
    /// Steps of A and of B (as planned).
    pub steps: (usize, usize),
    /// The steps made or refused, in order.
    pub replayed: Vec<StepResult>,
    /// Steps with nothing left to do once the other session's edits were in (both made
    /// the same change) or that could not be made (a file both commits create).
    pub skipped_steps: Vec<String>,
    /// Whether both commits change one definition, by the line oracle (over all their
    /// hunks).
    pub both_lines: bool,
    /// The same by the symbol oracle (`diff_symbols` of base and each side).
    pub both_symbols: bool,
    /// The stale writes.
    pub stale: Vec<StaleWrite>,
    /// Seconds for the whole pair.
    pub seconds: f64,
    /// Of them, the checkout's: clone, checkout, daemon start, `wit init`, the index.
    pub setup_seconds: f64,
}

/// One version of a file: its text, analysis, and its definitions' identities.
#[derive(Clone)]
struct Loaded {
    text: String,
    analysis: Arc<Analysis>,
    ids: Arc<Vec<String>>,
}

impl Loaded {
    fn new(text: String, analysis: Arc<Analysis>) -> Self {
        let ids = Arc::new(ids(&analysis));
        Loaded {
            text,
            analysis,
            ids,
        }
    }

    /// For the line oracle.
    fn lines(&self) -> Lines<'_> {
        Lines {
            text: &self.text,
            analysis: &self.analysis,
            ids: &self.ids,
        }
    }

    fn version(&self) -> Version<'_> {
        Version {
            source: &self.text,
            analysis: &self.analysis,
        }
    }
}

/// One side's change of one file.
struct SideFile {
    after: Loaded,
    /// `None`: the side creates the file.
    hunks: Option<Vec<Hunk>>,
}

/// A file either side changes.
struct File {
    base: Option<Loaded>,
    sides: BTreeMap<Side, SideFile>,
}

/// One step of a side.
#[derive(Clone)]
struct Step {
    side: Side,
    file: String,
    /// `None`: create the file.
    hunk: Option<Group>,
}

/// What the evaluation keeps across pairs.
pub struct Replayer<'g> {
    git: &'g Git,
    registry: Registry,
    wit: PathBuf,
    join: Option<usize>,
}

impl<'g> Replayer<'g> {
    /// A replayer on `git` driving the `wit` binary `wit`, joining hunks at most `join`
    /// lines apart into one edit (`None`: every hunk is an edit).
    pub fn new(git: &'g Git, wit: &Path, join: Option<usize>) -> Self {
        Replayer {
            git,
            registry: wit_analyzers::builtin_registry(),
            wit: wit.to_owned(),
            join,
        }
    }

    /// Whether a built-in analyzer covers `path`.
    pub fn analysed(&self, path: &str) -> bool {
        self.registry.for_path(path).is_some()
    }

    /// `text` of `path` analysed as the daemon would (within its size cap), or `None`.
    fn analyse(&self, path: &str, text: &str) -> Option<Arc<Analysis>> {
        if text.len() as u64 > DEFAULT_MAX_FILE_BYTES || text.contains('\0') {
            return None;
        }
        self.registry
            .for_path(path)?
            .analyze_full(text)
            .ok()
            .map(Arc::new)
    }

    fn load(&self, path: &str, oid: &str) -> Result<Option<Loaded>> {
        let Ok(text) = String::from_utf8(self.git.cat(oid)?) else {
            return Ok(None);
        };
        Ok(self
            .analyse(path, &text)
            .map(|analysis| Loaded::new(text, analysis)))
    }

    /// The files of the pair either side changes that can be replayed: analysed, regular,
    /// present on the side (not deleted), readable on both sides.
    fn files(&self, pair: &Pair) -> Result<BTreeMap<String, File>> {
        let mut files: BTreeMap<String, File> = BTreeMap::new();
        for (side, tree) in [(Side::A, &pair.a), (Side::B, &pair.b)] {
            for r in self.git.diff_trees(&pair.base, tree)? {
                let regular = |m: &str| m != SYMLINK && m != SUBMODULE;
                if !self.analysed(&r.path) || !regular(&r.old_mode) || !regular(&r.new_mode) {
                    continue;
                }
                let Some(new_oid) = &r.new_oid else { continue };
                let Some(after) = self.load(&r.path, new_oid)? else {
                    continue;
                };
                // The base version, loaded once for both sides.
                let known = files.get(&r.path).map(|f| f.base.clone());
                let base = match (&r.old_oid, known) {
                    (_, Some(base)) => base,
                    (Some(oid), None) => match self.load(&r.path, oid)? {
                        Some(b) => Some(b),
                        None => continue,
                    },
                    (None, None) => None,
                };
                let hunks = match &r.old_oid {
                    Some(oid) => Some(self.git.hunks(oid, new_oid)?),
                    None => None,
                };
                let file = files.entry(r.path.clone()).or_insert_with(|| File {
                    base: base.clone(),
                    sides: BTreeMap::new(),
                });
                file.sides.insert(side, SideFile { after, hunks });
            }
        }
        Ok(files)
    }

    /// Replays `pair`; `Ok(Err(reason))` when it cannot be (a side with nothing to
    /// replay, or too much).
    pub fn replay(&self, pair: &Pair) -> Result<std::result::Result<PairResult, String>> {
        let t0 = Instant::now();
        let files = self.files(pair)?;
        let steps_of = |side: Side| -> Vec<Step> {
            let mut out = Vec::new();
            for (path, f) in &files {
                let Some(s) = f.sides.get(&side) else {
                    continue;
                };
                match &s.hunks {
                    None => out.push(Step {
                        side,
                        file: path.clone(),
                        hunk: None,
                    }),
                    Some(hunks) => out.extend(group(hunks, self.join).into_iter().map(|g| Step {
                        side,
                        file: path.clone(),
                        hunk: Some(g),
                    })),
                }
            }
            out
        };
        let (a, b) = (steps_of(Side::A), steps_of(Side::B));
        if a.is_empty() || b.is_empty() {
            return Ok(Err(
                "a side changes no analysed file it does not delete".into()
            ));
        }
        if a.len() > MAX_STEPS || b.len() > MAX_STEPS {
            return Ok(Err(format!("a side has more than {MAX_STEPS} edits")));
        }
        let (both_lines, both_symbols) = both_changed(&files);
        let t_setup = Instant::now();
        let checkout = Checkout::open(self.git, &pair.base_commit, &self.wit)?;
        let setup_seconds = t_setup.elapsed().as_secs_f64();
        let mut run = Run {
            replayer: self,
            checkout: &checkout,
            files: &files,
            states: files
                .iter()
                .filter_map(|(p, f)| {
                    f.base
                        .as_ref()
                        .map(|b| (p.clone(), FileState::new(&b.text)))
                })
                .collect(),
            now: BTreeMap::new(),
            lines: Timeline::default(),
            symbols: Timeline::default(),
            replayed: Vec::new(),
            skipped: Vec::new(),
            calls: 0,
            edited: BTreeSet::new(),
        };
        let mut order = Vec::with_capacity(a.len() + b.len());
        for i in 0..a.len().max(b.len()) {
            order.extend(a.get(i).cloned());
            order.extend(b.get(i).cloned());
        }
        for step in &order {
            run.step(step)?;
        }
        let mut stale = Vec::new();
        for (path, f) in &files {
            let common = f.base.is_some() && f.sides.len() == 2;
            if common && let Some(w) = run.stale_write(path)? {
                stale.push(w);
            }
        }
        for side in [Side::A, Side::B] {
            let end = checkout.hooks.run(
                Event::SessionEnd,
                &checkout.root,
                &payload::session_end(&checkout.root, session(side))?,
            )?;
            if end.code != 0 {
                bail!("the SessionEnd hook failed: {}", end.stderr.trim());
            }
        }
        Ok(Ok(PairResult {
            label: pair.label.clone(),
            base: pair.base_commit.clone(),
            steps: (a.len(), b.len()),
            replayed: run.replayed,
            skipped_steps: run.skipped,
            both_lines,
            both_symbols,
            stale,
            seconds: t0.elapsed().as_secs_f64(),
            setup_seconds,
        }))
    }
}

/// Whether both commits change one definition: by lines (any definition of a file that
/// hunks of both sides touch) and by symbols (`diff_symbols` of the base and each side).
fn both_changed(files: &BTreeMap<String, File>) -> (bool, bool) {
    let (mut by_lines, mut by_symbols) = (false, false);
    for f in files.values() {
        let (Some(a), Some(b)) = (f.sides.get(&Side::A), f.sides.get(&Side::B)) else {
            continue;
        };
        let touched = |s: &SideFile| -> BTreeSet<String> {
            match &s.hunks {
                None => all_defs(s.after.lines()),
                Some(hunks) => hunks
                    .iter()
                    .flat_map(|h| {
                        hunk_defs(f.base.as_ref().map(Loaded::lines), Some(s.after.lines()), h)
                    })
                    .collect(),
            }
        };
        by_lines |= !touched(a).is_disjoint(&touched(b));
        let base = f.base.as_ref().map(Loaded::version);
        let ka = changed_keys(base, Some(a.after.version()));
        let kb = changed_keys(base, Some(b.after.version()));
        by_symbols |= !ka.is_disjoint(&kb);
    }
    (by_lines, by_symbols)
}

/// A real git checkout of the pair's base with a real daemon and the agents' hooks.
/// Fields drop in order: the daemon stops before its directory is removed.
struct Checkout {
    daemon: Daemon,
    hooks: Hooks,
    root: PathBuf,
    _dir: tempfile::TempDir,
}

impl Checkout {
    /// Clones the evaluation's repository (`--shared`: no object copied), checks `base`
    /// out, starts `wit daemon run` there, runs `wit init --agents claude` as a user
    /// would, and waits for the index.
    fn open(git: &Git, base: &str, wit: &Path) -> Result<Checkout> {
        let dir = tempfile::tempdir().context("a temp directory for the checkout")?;
        let root = dir.path().join("checkout");
        let status = base_command()
            .args(["clone", "--quiet", "--shared", "--no-checkout"])
            .arg(git.dir())
            .arg(&root)
            .status()?;
        if !status.success() {
            bail!("git clone of the evaluation's repository failed");
        }
        let status = base_command()
            .arg("-C")
            .arg(&root)
            .args(["checkout", "--quiet", "--detach", base])
            .status()?;
        if !status.success() {
            bail!("git checkout {base} failed");
        }
        let root = root.canonicalize()?;
        let daemon = Daemon::start(wit, &root)?;
        let mut init = Command::new(wit);
        init.args(["init", "--agents", "claude"]).current_dir(&root);
        clean_env(&mut init);
        let out = init.output().context("running wit init")?;
        if !out.status.success() {
            bail!(
                "wit init --agents claude failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let hooks = Hooks::configured(&root)?;
        let mut conn = Conn::connect(&daemon.socket)?;
        let t0 = Instant::now();
        loop {
            let status = conn.call("graph.status", json!({}))?;
            if matches!(&status, Ok(v) if v["state"] == "ready") {
                break;
            }
            if t0.elapsed() > INDEX_WAIT {
                bail!("the daemon did not index the checkout within {INDEX_WAIT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Checkout {
            daemon,
            hooks,
            root,
            _dir: dir,
        })
    }

    /// The standing claims on `file`, as `session symbolPath change` (`-` for an
    /// unattributed one).
    fn claims_on(&self, file: &str) -> Result<Vec<String>> {
        let answer = self
            .daemon
            .connect()?
            .call("claims.query", json!({ "file": file }))?
            .map_err(|e| anyhow::anyhow!("claims.query: {e}"))?;
        Ok(answer["claims"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                format!(
                    "{} {} {}",
                    c["sessionId"].as_str().unwrap_or("-"),
                    c["symbolPath"].as_str().unwrap_or("?"),
                    c["change"].as_str().unwrap_or("?")
                )
            })
            .collect())
    }
}

/// The replay of one pair under way.
struct Run<'r> {
    replayer: &'r Replayer<'r>,
    checkout: &'r Checkout,
    files: &'r BTreeMap<String, File>,
    /// Files present at the base, as both sessions' edits leave them.
    states: BTreeMap<String, FileState>,
    /// The analysis of each file's current text, once computed.
    now: BTreeMap<String, Loaded>,
    lines: Timeline,
    symbols: Timeline,
    replayed: Vec<StepResult>,
    skipped: Vec<String>,
    /// Tool calls made (each one's `tool_use_id`).
    calls: usize,
    /// The files each session has edited.
    edited: BTreeSet<(Side, String)>,
}

impl Run<'_> {
    /// The file's current text, analysed.
    fn current(&mut self, path: &str, text: &str) -> Option<Loaded> {
        if let Some(l) = self.now.get(path).filter(|l| l.text == text) {
            return Some(l.clone());
        }
        let analysis = self.replayer.analyse(path, text)?;
        let loaded = Loaded::new(text.to_owned(), analysis);
        self.now.insert(path.to_owned(), loaded.clone());
        Some(loaded)
    }

    fn disk(&self, path: &str) -> PathBuf {
        self.checkout.root.join(path)
    }

    fn step(&mut self, step: &Step) -> Result<()> {
        let (me, other) = (step.side, step.side.other());
        let path = step.file.as_str();
        let files = self.files;
        let file = &files[path];
        let side = &file.sides[&me];
        let n = self.replayed.len();
        let shared_file = self.edited.contains(&(other, path.to_owned()));
        self.calls += 1;
        let call = self.calls;
        let root = self.checkout.root.clone();
        let Some(group) = &step.hunk else {
            // A file the commit creates: one Write.
            if self.disk(path).exists() {
                self.skipped.push(format!("{path}: both commits create it"));
                return Ok(());
            }
            let defs = all_defs(side.after.lines());
            let keys = changed_keys(None, Some(side.after.version()));
            let text = side.after.text.clone();
            let pre = payload::write(&root, session(me), path, &text, true, When::Before, call)?;
            let ran = self.checkout.hooks.run(Event::Pre, &root, &pre)?;
            let said = verdict(&ran);
            let mut post_ms = None;
            if said.allows() {
                if let Some(dir) = self.disk(path).parent() {
                    std::fs::create_dir_all(dir)?;
                }
                std::fs::write(self.disk(path), &text)?;
                let post =
                    payload::write(&root, session(me), path, &text, true, When::After, call)?;
                let done = self.checkout.hooks.run(Event::Post, &root, &post)?;
                recorded(&done)?;
                post_ms = Some(ms(done.wall));
                self.lines.changed(me, path, &defs, n);
                self.symbols.changed(me, path, &keys, n);
                self.edited.insert((me, path.to_owned()));
            }
            self.replayed.push(StepResult {
                n,
                side: me,
                file: path.to_owned(),
                tool: "create",
                merged: false,
                context: 0,
                verdict: said,
                due_lines: Vec::new(),
                due_symbols: Vec::new(),
                shared_file,
                pre_ms: ms(ran.wall),
                post_ms,
            });
            return Ok(());
        };
        let side_lines = lines(&side.after.text);
        let state = &self.states[path];
        let Some(planned) = state.plan(me, group, &side_lines) else {
            self.skipped
                .push(format!("{path}: a hunk of {me:?} the file already has"));
            return Ok(());
        };
        let before_text = state.text();
        let after_text = planned.text_after();
        let defs: BTreeSet<String> = group
            .parts
            .iter()
            .flat_map(|h| {
                hunk_defs(
                    file.base.as_ref().map(Loaded::lines),
                    Some(side.after.lines()),
                    h,
                )
            })
            .collect();
        let keys = match (
            self.current(path, &before_text),
            self.current(path, &after_text),
        ) {
            (Some(before), Some(after)) => {
                changed_keys(Some(before.version()), Some(after.version()))
            }
            _ => BTreeSet::new(),
        };
        let due_lines = self.lines.news(me, other, path, &defs);
        let due_symbols = self.symbols.news(me, other, path, &keys);
        let pre = payload::edit(
            &root,
            session(me),
            path,
            &planned.old,
            &planned.new,
            When::Before,
            call,
        )?;
        let ran = self.checkout.hooks.run(Event::Pre, &root, &pre)?;
        let said = verdict(&ran);
        let mut post_ms = None;
        let (merged, context) = (planned.merged, planned.context);
        if said.allows() {
            // Made as Claude Code's Edit makes it: the one occurrence replaced.
            let disk = std::fs::read_to_string(self.disk(path))?;
            if disk != before_text {
                bail!("{path} changed under the replay");
            }
            std::fs::write(
                self.disk(path),
                disk.replacen(&planned.old, &planned.new, 1),
            )?;
            let post = payload::edit(
                &root,
                session(me),
                path,
                &planned.old,
                &planned.new,
                When::After,
                call,
            )?;
            self.states
                .get_mut(path)
                .context("a planned file")?
                .commit(planned);
            let done = self.checkout.hooks.run(Event::Post, &root, &post)?;
            recorded(&done)?;
            post_ms = Some(ms(done.wall));
            self.lines.changed(me, path, &defs, n);
            self.symbols.changed(me, path, &keys, n);
            self.edited.insert((me, path.to_owned()));
            if std::fs::read_to_string(self.disk(path))? != after_text {
                bail!("{path}: the edit did not leave the planned text");
            }
        }
        self.replayed.push(StepResult {
            n,
            side: me,
            file: path.to_owned(),
            tool: "edit",
            merged,
            context,
            verdict: said,
            due_lines: due_lines.into_iter().collect(),
            due_symbols: due_symbols.into_iter().collect(),
            shared_file,
            pre_ms: ms(ran.wall),
            post_ms,
        });
        Ok(())
    }

    /// B writes `path` back whole from its stale read; `None` when that is the file as it
    /// is (A's edits there were all refused or undone).
    fn stale_write(&mut self, path: &str) -> Result<Option<StaleWrite>> {
        let state = &self.states[path];
        let (now, stale) = (state.text(), state.stale(Side::B));
        if now == stale {
            return Ok(None);
        }
        let (Some(current), Some(written)) = (
            self.current(path, &now),
            self.replayer.analyse(path, &stale),
        ) else {
            return Ok(None);
        };
        let written = Loaded::new(stale.clone(), written);
        let (texts_now, texts_then) = (texts(current.lines()), texts(written.lines()));
        let undoes_lines: Vec<String> = self
            .lines
            .all(Side::A, path)
            .into_iter()
            .filter(|d| texts_now.get(d.as_str()) != texts_then.get(d.as_str()))
            .collect();
        let changed = changed_keys(Some(current.version()), Some(written.version()));
        let undoes_symbols: Vec<String> = self
            .symbols
            .all(Side::A, path)
            .intersection(&changed)
            .cloned()
            .collect();
        let claims_before = self.checkout.claims_on(path)?;
        self.calls += 1;
        let root = self.checkout.root.clone();
        let me = session(Side::B);
        let pre = payload::write(&root, me, path, &stale, false, When::Before, self.calls)?;
        let ran = self.checkout.hooks.run(Event::Pre, &root, &pre)?;
        let said = verdict(&ran);
        if said.allows() {
            std::fs::write(self.disk(path), &stale)?;
            let post = payload::write(&root, me, path, &stale, false, When::After, self.calls)?;
            recorded(&self.checkout.hooks.run(Event::Post, &root, &post)?)?;
        }
        Ok(Some(StaleWrite {
            file: path.to_owned(),
            verdict: said,
            undoes_lines,
            undoes_symbols,
            claims_before,
        }))
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
