//! Claims: several agents in one checkout, protected from each other without locks
//! (issue 30). The pure rules are `wit_forecast::claims`; this module feeds them.
//!
//! - **Attribution.** After an agent's edit its post-edit hook (`wit guard` on
//!   `PostToolUse`/`AfterTool`) sends `claims.record`: the file is read, analysed and
//!   compared with its version at HEAD, and each definition the edit changed becomes (or
//!   stays) the session's claim ([`Claims::observe`]). A change no hook announced (a shell
//!   command, a generator, a person's editor) reaches this module from the index's file
//!   watcher and becomes an unattributed claim (session `""`) — unless it is the content
//!   of an edit the guard has just checked ([`pending`]): the watcher often sees an
//!   agent's write before the agent's own hook reports it.
//! - **Checks.** Before an edit the guard sends `claims.check` with the file's content as
//!   the edit would leave it ([`Claims::check`]): the definitions it changes, the claims
//!   of other sessions on them (a warning; a refusal when the edit writes back a version
//!   the other session had changed: a lost update), and the signature-vs-callers and
//!   member-vs-uses collisions it would make with other sessions' claimed changes.
//! - **Ends.** A claim ends when its definition equals HEAD again (reverted, or committed:
//!   a HEAD move compares every claimed file again), when its session ends
//!   (`session.end`), or after `[guard] claim_idle` without an edit by its session
//!   (`crate::purge`).
//!
//! Claims are state, in the store (both backends), so they survive a restart; what an edit
//! in flight is expected to write ([`pending`]) and HEAD's analysed files ([`head`]) are
//! memory only.

pub(crate) mod head;
pub(crate) mod pending;
pub(crate) mod worker;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;

use sha2::{Digest, Sha256};
use wit_boundary::RepoFileError;
use wit_core::Analysis;
use wit_core::text::escape;
use wit_forecast::claims::{self as rules, Actor, Attribution, Claim, Hit, Observed, Touch};
use wit_forecast::{CallRef, Checkout, FileChange, Forecast, Kind, Version};
use wit_graph::{Resolution, SiteRef, Target};

use crate::analysis::{AnalysisService, FileOutcome};
use crate::index::RepoIndex;
use crate::methods::Failure;
use crate::store::claims::Changed;
use head::{AtHead, Head};
use pending::{EXPECTED, Pending, Proposal};

/// How long after a change an unattributed claim of exactly that version may still be
/// taken over by the session whose post-edit hook reports it.
const ADOPT_WITHIN_MS: i64 = 30_000;

/// What made a file be looked at.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    /// The session's post-edit hook (`claims.record`).
    Hook(&'a str),
    /// The file watcher.
    Watcher,
}

/// The claims of this daemon's checkout.
pub(crate) struct Claims {
    root: PathBuf,
    checkout: String,
    limit: u64,
    analysis: Arc<AnalysisService>,
    index: Arc<RepoIndex>,
    head: Mutex<Head>,
    pending: Mutex<Pending>,
    /// The content (SHA-256) of each file as a session's post-edit hook last reported it:
    /// the watcher, often seeing that same write later, has nothing to add to it. Without
    /// this, a write seen after its session ended (its claims with it) came back as an
    /// unattributed claim of a change its session had reported.
    reported: Mutex<HashMap<String, [u8; 32]>>,
    /// One observation at a time: each reads a file's claims and writes them back.
    observing: Mutex<()>,
    /// The definitions of each file's last checked version, by the analysis they were
    /// computed from (see [`Claims::definitions`]).
    definitions: Mutex<HashMap<String, KeptDefinitions>>,
}

/// The definitions of one version of a file, by key.
type Defs = std::collections::BTreeMap<String, wit_forecast::Definition>;

/// A file's definitions with the analysis (of one version) they were computed from.
type KeptDefinitions = (Weak<Analysis>, Arc<Defs>);

/// Most files whose definitions [`Claims::definitions`] keeps (it starts afresh past it).
const DEFINITIONS_KEPT: usize = 64;

/// Most files [`Claims::reported`] remembers (a bound on memory; it starts afresh past it).
const REPORTED_KEPT: usize = 4096;

/// What `claims.check` finds for one edited file.
#[derive(Debug, Default)]
pub(crate) struct EditCheck {
    /// Other sessions' claims the edit runs into.
    pub hits: Vec<Hit>,
    /// Signature-vs-callers and member-vs-uses collisions the edit would make with other
    /// sessions' claims.
    pub collisions: Vec<Forecast>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn sha(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// `source` with `edits` (ordered ranges and their replacements) applied; `None` when a
/// range is not one of `source`.
fn applied(source: &str, edits: &[(std::ops::Range<usize>, String)]) -> Option<String> {
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    for (range, text) in edits {
        out.push_str(source.get(at..range.start)?);
        out.push_str(text);
        at = range.end;
    }
    out.push_str(source.get(at..)?);
    Some(out)
}

/// Paths that are never a change of the checkout's: wit's and git's own directories.
fn own_files(rel: &str) -> bool {
    rel == ".wit" || rel.starts_with(".wit/") || rel == ".git" || rel.starts_with(".git/")
}

/// What the claims need of the coordination store: the claims of a checkout, and
/// writing what an observation changes. Blocking (called from blocking threads);
/// implemented for the daemon's state in [`worker`].
pub(crate) trait Rows {
    /// The claims on `file` of `checkout`, every session's.
    fn of_file(&self, checkout: &str, file: &str) -> Result<Vec<Claim>, Failure>;
    /// Every claim of `checkout`.
    fn of_checkout(&self, checkout: &str) -> Result<Vec<Claim>, Failure>;
    /// The files of `checkout` that hold claims.
    fn files_of(&self, checkout: &str) -> Result<Vec<String>, Failure>;
    /// Writes `upserts`, ends `cleared` with `why` (events, collisions reconciled).
    fn apply(
        &self,
        checkout: &str,
        upserts: Vec<Claim>,
        cleared: Vec<Claim>,
        why: &str,
    ) -> Result<Changed, Failure>;
}

impl Claims {
    /// The claims of the checkout at `root` (canonical), named `checkout` in the store.
    pub(crate) fn new(
        root: PathBuf,
        checkout: String,
        common_dir: Option<PathBuf>,
        limit: u64,
        analysis: Arc<AnalysisService>,
        index: Arc<RepoIndex>,
    ) -> Self {
        Claims {
            head: Mutex::new(Head::new(&root, common_dir)),
            root,
            checkout,
            limit,
            analysis,
            index,
            pending: Mutex::new(Pending::default()),
            reported: Mutex::new(HashMap::new()),
            observing: Mutex::new(()),
            definitions: Mutex::new(HashMap::new()),
        }
    }

    /// The file's current text and analysis (`Ok(None)`: it does not exist), or why it
    /// has no claims (unreadable, not analysable).
    fn current(&self, rel: &str) -> Result<Option<(String, Arc<Analysis>)>, String> {
        let bytes = match wit_boundary::read_repo_file(&self.root, rel, self.limit) {
            Ok(b) => b,
            Err(RepoFileError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        match self.analysis.analyse_read(rel, &bytes) {
            FileOutcome::Analysed(a) => {
                let text = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())?;
                Ok(Some((text, a)))
            }
            FileOutcome::Failed(why) => Err(why),
            _ => Err("not analysed".into()),
        }
    }

    /// The file at HEAD `commit` (`None`: HEAD does not have it), or why it cannot be
    /// compared.
    fn at_head(
        &self,
        commit: Option<&str>,
        rel: &str,
    ) -> Result<Option<Arc<head::HeadFile>>, String> {
        let Some(commit) = commit else {
            return Ok(None);
        };
        let analyzer = self
            .analysis
            .registry()
            .for_path(rel)
            .ok_or("no analyzer")?
            .clone();
        let found = lock(&self.head).file(commit, rel, self.limit, |source| {
            analyzer.analyze_full(source).map_err(|e| e.to_string())
        });
        match found {
            AtHead::File(f) => Ok(Some(f)),
            AtHead::Absent => Ok(None),
            AtHead::Unknown(why) => Err(why),
        }
    }

    /// Looks at `rel` as it is now (after an edit reported by `source`): the claims it
    /// makes, moves on or ends are written, with their events. Blocking.
    pub(crate) fn observe(
        &self,
        store: &dyn Rows,
        rel: &str,
        source: Source<'_>,
    ) -> Result<Changed, Failure> {
        if own_files(rel) || !self.analysis.supports(rel) {
            return Ok(Changed::default());
        }
        let _one = lock(&self.observing);
        let commit = self.head_now(store)?;
        let now = match self.current(rel) {
            Ok(now) => now,
            Err(why) => {
                tracing::debug!("claims: {} not compared: {}", escape(rel), escape(&why));
                return Ok(Changed::default());
            }
        };
        let content = now.as_ref().map(|(text, _)| sha(text.as_bytes()));
        let at = crate::clock::now_ms();
        {
            let mut reported = lock(&self.reported);
            match (source, content) {
                (Source::Hook(_), Some(sha)) => {
                    if reported.len() >= REPORTED_KEPT {
                        reported.clear();
                    }
                    reported.insert(rel.to_owned(), sha);
                }
                (Source::Watcher, Some(sha)) if reported.get(rel) == Some(&sha) => {
                    return Ok(Changed::default());
                }
                _ => {
                    reported.remove(rel);
                }
            }
        }
        let proposal = match source {
            Source::Hook(session) => Some(
                lock(&self.pending)
                    .take(session, rel)
                    .map(|p| (session.to_owned(), Some(p.untouched)))
                    .unwrap_or_else(|| (session.to_owned(), None)),
            ),
            Source::Watcher => {
                let mut pending = lock(&self.pending);
                match pending.matching(rel, content.as_ref()) {
                    Some(p) => Some((p.session, Some(p.untouched))),
                    // Expected shortly: the session's own report decides (`Worker`
                    // looks again once it is overdue). Overdue, the change is nobody's in
                    // particular: a checked edit may never be made (its tool failed, the
                    // user refused it), and a late report still takes the change over
                    // (see `ADOPT_WITHIN_MS`).
                    None => match pending.latest(rel) {
                        Some(p) if p.at.elapsed() < EXPECTED => return Ok(Changed::default()),
                        _ => None,
                    },
                }
            }
        };
        let (session, untouched) = proposal.unwrap_or_default();
        let actor = Actor::Edit {
            session: &session,
            adopt_since: matches!(source, Source::Hook(_)).then_some(at - ADOPT_WITHIN_MS),
            untouched: untouched.as_ref(),
        };
        self.attribute(store, rel, commit.as_deref(), now, actor, "reverted", at)
    }

    /// Compares `rel` (its current version `now`) with HEAD and writes what `actor`'s
    /// observation changes; `why` is the reason of the claims that end.
    #[allow(clippy::too_many_arguments)]
    fn attribute(
        &self,
        store: &dyn Rows,
        rel: &str,
        commit: Option<&str>,
        now: Option<(String, Arc<Analysis>)>,
        actor: Actor<'_>,
        why: &str,
        at: i64,
    ) -> Result<Changed, Failure> {
        let head = match self.at_head(commit, rel) {
            Ok(h) => h,
            Err(why) => {
                tracing::debug!("claims: {} not compared: {}", escape(rel), escape(&why));
                return Ok(Changed::default());
            }
        };
        let claims = store.of_file(&self.checkout, rel)?;
        let seen = Observed {
            file: rel,
            head: head.as_deref().map(|h| Version {
                source: &h.source,
                analysis: &h.analysis,
            }),
            now: now
                .as_ref()
                .map(|(source, analysis)| Version { source, analysis }),
        };
        let mut found: Attribution = rules::attribute(&seen, &claims, actor, at);
        if found.upserts.is_empty() && found.cleared.is_empty() {
            return Ok(Changed::default());
        }
        if let Some((_, analysis)) = &now {
            self.fill_calls(rel, analysis, &mut found.upserts);
        }
        store.apply(&self.checkout, found.upserts, found.cleared, why)
    }

    /// What each claim's version of its definition calls, and which members of types it
    /// reads or writes, as the checkout's code graph resolves them (name-only guesses left
    /// out, as in the forecast between checkouts).
    fn fill_calls(&self, rel: &str, analysis: &Arc<Analysis>, claims: &mut [Claim]) {
        let names: Vec<String> = claims
            .iter()
            .filter(|c| c.change.change.has_new_code() && c.file == rel)
            .map(|c| c.change.name.clone())
            .collect();
        if names.is_empty() {
            return;
        }
        let found = self
            .index
            .resolved_calls_of_each(rel, &names, Some(analysis));
        let calls: HashMap<&str, Vec<CallRef>> = names
            .iter()
            .map(String::as_str)
            .zip(found)
            .filter_map(|(name, list)| Some((name, list?)))
            .collect();
        let uses = self.index.member_uses_of_each(rel, &names, analysis, true);
        let uses: HashMap<&str, Vec<wit_forecast::UseRef>> =
            names.iter().map(String::as_str).zip(uses).collect();
        for c in claims.iter_mut() {
            if let Some(list) = calls.get(c.change.name.as_str()) {
                c.change.calls = list.clone();
            }
            if let Some(list) = uses.get(c.change.name.as_str()) {
                c.change.uses = list.clone();
            }
        }
    }

    /// HEAD now; when it moved, every claimed file is compared with it first (claims
    /// committed, or undone by a checkout or reset, end).
    fn head_now(&self, store: &dyn Rows) -> Result<Option<String>, Failure> {
        let (commit, moved) = lock(&self.head).commit();
        if moved {
            let files = store.files_of(&self.checkout)?;
            let at = crate::clock::now_ms();
            for rel in files {
                let now = match self.current(&rel) {
                    Ok(now) => now,
                    Err(_) => continue,
                };
                self.attribute(
                    store,
                    &rel,
                    commit.as_deref(),
                    now,
                    Actor::Nobody,
                    "committed",
                    at,
                )?;
            }
        }
        Ok(commit)
    }

    /// Compares the claimed files with HEAD when it moved (the worker's round).
    pub(crate) fn look_at_head(&self, store: &dyn Rows) -> Result<(), Failure> {
        let _one = lock(&self.observing);
        self.head_now(store).map(drop)
    }

    /// What an edit by `me` leaving `rel` as `edited` (`None`: deleting it) runs into,
    /// and remembers it as expected (see [`pending`]). `edits`, when the caller knows
    /// them: where the edit lands in the current content (ranges and replacements).
    ///
    /// The edit's definitions are found from where it lands, on the current version's
    /// analysis (the one the index keeps current), without analysing the edited content
    /// ([`rules::touches_at`]): an agent waits on this before every edit. The edited
    /// content is analysed only when that cannot tell (an edit across the edge of a
    /// definition, no `edits`), or when what other sessions claim needs it: a definition
    /// one removed (the edit may bring it back), a signature one changed (the edit may call
    /// it), code of theirs calling what the edit changes (its signature may change).
    /// Blocking.
    pub(crate) fn check(
        &self,
        store: &dyn Rows,
        me: &str,
        rel: &str,
        edited: Option<&str>,
        edits: Option<&[(std::ops::Range<usize>, String)]>,
    ) -> Result<EditCheck, Failure> {
        if own_files(rel) || !self.analysis.supports(rel) {
            return Ok(EditCheck::default());
        }
        let Ok(current) = self.current(rel) else {
            return Ok(EditCheck::default());
        };
        let current_version = current
            .as_ref()
            .map(|(source, analysis)| Version { source, analysis });
        let defs = match &current {
            Some((source, analysis)) => self.definitions(rel, source, analysis),
            None => Arc::default(),
        };
        // Where the edit lands, when the caller's ranges rebuild exactly the content it
        // sent (else the file changed since it read it, or the ranges are wrong).
        let quick = match (current_version.as_ref(), edited, edits) {
            (Some(v), Some(text), Some(edits))
                if applied(v.source, edits).as_deref() == Some(text) =>
            {
                let edits: Vec<(std::ops::Range<usize>, &str)> =
                    edits.iter().map(|(r, t)| (r.clone(), t.as_str())).collect();
                rules::touches_at(v, &defs, &edits)
            }
            _ => None,
        };
        let mut after: Option<(&str, Arc<Analysis>)> = None;
        let touches = match quick {
            Some(t) => t,
            None => match self.touches_whole(rel, &defs, edited) {
                Some((a, t)) => {
                    after = a;
                    t
                }
                None => return Ok(EditCheck::default()),
            },
        };
        let touched: BTreeSet<&str> = touches.iter().map(|t| t.key.as_str()).collect();
        lock(&self.pending).add(Proposal {
            session: me.to_owned(),
            file: rel.to_owned(),
            content: edited.map(|t| sha(t.as_bytes())),
            untouched: defs
                .keys()
                .filter(|k| !touched.contains(k.as_str()))
                .cloned()
                .collect(),
            at: Instant::now(),
        });
        let all = store.of_checkout(&self.checkout)?;
        let theirs: Vec<&Claim> = all.iter().filter(|c| !c.by(me)).collect();
        if theirs.is_empty() {
            return Ok(EditCheck::default());
        }
        let here = |c: &&&Claim| c.file == rel;
        let paths: BTreeSet<String> = touches
            .iter()
            .map(|t| format!("{rel}:{}", t.name))
            .collect();
        let removed_here = theirs
            .iter()
            .filter(here)
            .any(|c| c.change.change == wit_forecast::Change::Removed);
        let in_this_file = format!("{rel}:");
        let callers = theirs.iter().any(|c| c.change.breaks_callers())
            || theirs.iter().any(|c| {
                c.change
                    .calls
                    .iter()
                    .any(|call| paths.contains(&call.callee))
            })
            // A member another session removed or retyped (the edit may use it), or code
            // of theirs using a member of this file's types (the edit may remove it).
            || theirs.iter().any(|c| !c.change.members.is_empty())
            || theirs.iter().any(|c| {
                c.change
                    .uses
                    .iter()
                    .any(|u| u.member.starts_with(&in_this_file))
            });
        let touches = if after.is_none() && edited.is_some() && (removed_here || callers) {
            match self.touches_whole(rel, &defs, edited) {
                Some((a, t)) => {
                    after = a;
                    t
                }
                None => return Ok(EditCheck::default()),
            }
        } else {
            touches
        };
        if touches.is_empty() {
            return Ok(EditCheck::default());
        }
        let in_file: Vec<Claim> = all.iter().filter(|c| c.file == rel).cloned().collect();
        let mut hits = rules::check(&touches, &in_file, me);
        // What is said to the agent (a warning, a refusal) rests on whole analyses: where
        // the edit lands tells cheaply that it runs into nobody, but its text after the
        // edit is its pieces with the edit spliced in, which a parse may not agree with.
        let touches = if after.is_none() && !hits.is_empty() && edited.is_some() {
            match self.touches_whole(rel, &defs, edited) {
                Some((a, t)) => {
                    after = a;
                    hits = rules::check(&t, &in_file, me);
                    t
                }
                None => return Ok(EditCheck::default()),
            }
        } else {
            touches
        };
        let collisions = if callers {
            self.callers(me, rel, &touches, after.as_ref(), &all)
        } else {
            Vec::new()
        };
        Ok(EditCheck { hits, collisions })
    }

    /// What the edit touches from whole analyses of the current and the edited version
    /// (`current`: the current version's definitions, as [`Claims::definitions`] keeps
    /// them; empty for a file that does not exist), with the edited version's analysis
    /// (`None` in it: the edit deletes the file); `None` when the edited content does not
    /// analyse.
    #[allow(clippy::type_complexity)]
    fn touches_whole<'t>(
        &self,
        rel: &str,
        current: &Defs,
        edited: Option<&'t str>,
    ) -> Option<(Option<(&'t str, Arc<Analysis>)>, Vec<Touch>)> {
        let after = self.analyse_edited(rel, edited).ok()?;
        let will = after
            .as_ref()
            .map(|(source, analysis)| {
                wit_forecast::definitions_of(&Version {
                    source,
                    analysis: analysis.as_ref(),
                })
            })
            .unwrap_or_default();
        Some((after, rules::touches_between(current, &will)))
    }

    /// The edited content's analysis (`Ok(None)`: the edit deletes the file), through the
    /// service's cache: reanalysed incrementally from the file's, kept for the post-edit
    /// hook and the watcher once the edit is written, and leaving the version on disk
    /// cached beside it. `Err`: it does not analyse.
    fn analyse_edited<'t>(
        &self,
        rel: &str,
        edited: Option<&'t str>,
    ) -> Result<Option<(&'t str, Arc<Analysis>)>, ()> {
        let Some(text) = edited else {
            return Ok(None);
        };
        match self.analysis.analyse_content(rel, text) {
            FileOutcome::Analysed(a) => Ok(Some((text, a))),
            _ => Err(()),
        }
    }

    /// The definitions of the version `source` of `rel`, analysed as `analysis`
    /// ([`wit_forecast::definitions_of`]), computed once per analysis: every check of an
    /// edit of a file compares against its current version, and digesting each
    /// definition's own text was most of a check's work on a 2,200-line file.
    fn definitions(&self, rel: &str, source: &str, analysis: &Arc<Analysis>) -> Arc<Defs> {
        let mut kept = lock(&self.definitions);
        if let Some((of, defs)) = kept.get(rel)
            && Weak::ptr_eq(of, &Arc::downgrade(analysis))
        {
            return defs.clone();
        }
        let defs = Arc::new(wit_forecast::definitions_of(&Version { source, analysis }));
        if kept.len() >= DEFINITIONS_KEPT && !kept.contains_key(rel) {
            kept.clear();
        }
        kept.insert(rel.to_owned(), (Arc::downgrade(analysis), defs.clone()));
        defs
    }

    /// The signature-vs-callers and member-vs-uses collisions between the edit (its
    /// touched definitions as they differ from HEAD, with what they call and use) and
    /// each other session's claims.
    fn callers(
        &self,
        me: &str,
        rel: &str,
        touches: &[Touch],
        after: Option<&(&str, Arc<Analysis>)>,
        all: &[Claim],
    ) -> Vec<Forecast> {
        // Only what an analysis of the edited content gives: the caller made one.
        let commit = lock(&self.head).commit().0;
        let Ok(head) = self.at_head(commit.as_deref(), rel) else {
            return Vec::new();
        };
        let keys: BTreeSet<&str> = touches.iter().map(|t| t.key.as_str()).collect();
        let mut mine = wit_forecast::diff_symbols(
            head.as_deref().map(|h| Version {
                source: &h.source,
                analysis: &h.analysis,
            }),
            after.map(|(source, analysis)| Version { source, analysis }),
        );
        mine.retain(|c| keys.contains(c.match_key()));
        if let Some((_, analysis)) = after {
            for c in &mut mine {
                c.calls = self.resolve_calls(rel, analysis, &c.name);
                c.uses = self.index.member_uses_in(rel, analysis, &c.name, true);
            }
        }
        let files = std::collections::BTreeMap::from([(
            rel.to_owned(),
            FileChange::Symbols {
                symbols: mine,
                deleted: after.is_none(),
                blob: None,
            },
        )]);
        let others: Vec<Claim> = all.iter().filter(|c| !c.by(me)).cloned().collect();
        let by = rules::changes_by_session(&others);
        let checkout = &self.checkout;
        let mut out = Vec::new();
        for (session, theirs) in &by {
            out.extend(
                wit_forecast::forecast(
                    Checkout::session(checkout, me, &files),
                    Checkout::session(checkout, session, theirs),
                    &mut |_| wit_forecast::TextVerdict::Unknown,
                )
                .into_iter()
                .filter(|f| matches!(f.kind, Kind::SignatureVsCallers | Kind::MemberVsUses)),
            );
        }
        out
    }

    /// What `caller` (an address in `analysis`, the edited version of `rel`) calls, as the
    /// code graph resolves each call site (the file's imports as indexed).
    fn resolve_calls(&self, rel: &str, analysis: &Analysis, caller: &str) -> Vec<CallRef> {
        // An address carries `#kind`/`#N` for a later duplicate; call sites name the
        // qualified name.
        let qualified = caller.split('#').next().unwrap_or(caller);
        let mut out: Vec<CallRef> = self.index.read(|g| {
            analysis
                .call_sites
                .iter()
                .filter(|s| s.caller == qualified)
                .filter_map(|s| match g.resolve(rel, SiteRef::from(s)) {
                    (Target::Symbol(target), Resolution::Resolved) => Some(CallRef {
                        callee: target.path(),
                        line: s.line + 1,
                    }),
                    _ => None,
                })
                .collect()
        });
        out.sort();
        out.dedup_by(|a, b| a.callee == b.callee);
        out
    }
}
