//! Claims: who changed which definition of one checkout, uncommitted.
//!
//! Several agents often share one checkout. Each uncommitted change of a definition (a
//! function, a method, a class: nested definitions apart, as in [`crate::diff_symbols`])
//! belongs to the session whose edit made it — its **claim** — or, for a change no agent's
//! hook announced (a shell command, a generator, a person's editor), to nobody in
//! particular (the session `""`, *unattributed*). A claim is compared against the
//! checkout's HEAD: it ends when the definition's text equals HEAD's again.
//!
//! Three questions, all pure (the daemon reads the files, analyses them, resolves calls
//! and keeps the claims):
//!
//! - [`attribute`]: a file was seen in a new version (after a session's edit, or by the
//!   file watcher); which claims does that create, change or end?
//! - [`touches`] and [`check`]: a session is about to replace a file's current version
//!   with another; which definitions does that touch, which of them another session
//!   claims, and which edits would *undo* another session's change, as a write from a
//!   stale read does (the lost update): writing back a version that definition had before
//!   the other session changed it, or putting back, in lines the other session's latest
//!   edits of it changed, the text they had before (when both changed the definition,
//!   the stale version is one it never had).
//! - Collisions between sessions — the same definition changed by two, a signature
//!   changed by one while another's changed code calls it — are [`crate::forecast`]'s
//!   answer between two parties, each session's claims being its changes
//!   ([`changes_by_session`]): one notion of a collision for sessions and checkouts.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::diff::{Definition, Version, definitions_of, diff_symbols};
use crate::model::{FileChange, SymbolChange};

/// The digest that stands for "the definition does not exist" in a claim's versions.
pub const ABSENT: &str = "-";

/// Most earlier versions a claim remembers (see [`Claim::prior`]).
const PRIOR_KEPT: usize = 16;

/// Most lines of a claim's [`Claim::diff`].
const DIFF_LINES: usize = 14;

/// Longest line of a claim's [`Claim::diff`], in characters.
const DIFF_LINE_CHARS: usize = 160;

/// Longest own text of a definition a claim keeps (see [`Claim::own`]), in bytes: a
/// longer one is protected by its versions' digests alone.
const OWN_KEPT: usize = 64 * 1024;

/// One session's claim on one definition of one file of a checkout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    /// The file (repository-relative).
    pub file: String,
    /// The session whose edits made the change; `""` for a change no agent's hook
    /// announced (seen by the file watcher).
    pub session: String,
    /// How the definition differs from HEAD as this session left it: its digest is the
    /// definition's own text after this session's last edit (`None`: it removed it), its
    /// calls what that version calls.
    pub change: SymbolChange,
    /// The digests of the versions the definition had before each of this session's
    /// edits ([`ABSENT`]: it did not exist), oldest first: writing one of these back
    /// undoes the session's work.
    pub prior: Vec<String>,
    /// Unix ms of the session's first edit of it.
    pub since: i64,
    /// Unix ms of the session's last edit of it.
    pub edited_at: i64,
    /// A short unified diff of the definition, HEAD's version to this session's.
    pub diff: String,
    /// The definition's own text as this session left it (see
    /// [`crate::Definition::own`]); `None` when it removed it, or the text is over
    /// [`OWN_KEPT`]. With [`Claim::own_before`] it tells an edit that puts back what
    /// this session's latest edits replaced from one that builds on them (see
    /// [`check`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<String>,
    /// Its own text before this session's latest run of edits of it (the edits no other
    /// session's edit of it came between); `None` when it did not exist then, or the
    /// text is over [`OWN_KEPT`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_before: Option<String>,
}

impl Claim {
    /// `file:name`, the definition as the protocol names it (its name at HEAD for a
    /// renamed one).
    pub fn symbol_path(&self) -> String {
        format!("{}:{}", self.file, self.change.base_name())
    }

    /// What matches it with the same definition in another version.
    pub fn key(&self) -> &str {
        self.change.match_key()
    }

    /// The digest of the version this session left ([`ABSENT`]: it removed it).
    pub fn version(&self) -> &str {
        self.change.digest.as_deref().unwrap_or(ABSENT)
    }

    /// Whether the session named `session` made it (`""`: unattributed).
    pub fn by(&self, session: &str) -> bool {
        self.session == session
    }
}

/// One version of a file seen by the claims: the file, and its versions at HEAD and now
/// (`None`: absent in that version).
#[derive(Debug, Clone, Copy)]
pub struct Observed<'a> {
    /// The file (repository-relative).
    pub file: &'a str,
    /// At the checkout's HEAD.
    pub head: Option<Version<'a>>,
    /// Now.
    pub now: Option<Version<'a>>,
}

/// Who a version of a file is credited to (see [`attribute`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor<'a> {
    /// A session's edit (`""`: one no agent's hook announced). Unattributed claims made
    /// at or after `adopt_since` that hold exactly this version become the session's:
    /// the file watcher saw the session's write before the session's own hook said so.
    Edit {
        /// The session.
        session: &'a str,
        /// See above; `None`: adopt nothing.
        adopt_since: Option<i64>,
        /// The definitions (keys) that existed before the edit and that it left alone,
        /// when known (the guard checked the edit before it was made): one of them that
        /// differs from HEAD in a version no claim holds was changed by someone else
        /// before, and is claimed unattributed. `None`: every such definition is the
        /// session's.
        untouched: Option<&'a BTreeSet<String>>,
    },
    /// Nobody: HEAD moved (a commit, a checkout) and the claims are only compared with
    /// it again. Nothing is claimed anew.
    Nobody,
}

/// What one observation does to a file's claims.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Attribution {
    /// Claims made or changed (the whole claim as it now stands).
    pub upserts: Vec<Claim>,
    /// Claims that end: their definition equals HEAD's again, or (adopted) they became
    /// another session's.
    pub cleared: Vec<Claim>,
}

/// What observing `seen` with these `claims` of its file (every session's, any order)
/// changes, at Unix ms `at`. A definition that differs from HEAD in a version no claim
/// holds is the actor's edit: the actor's claim on it is made or moved on (remembering
/// the version it had before, for [`check`]). A claimed definition that equals HEAD
/// again ends every claim on it.
pub fn attribute(seen: &Observed<'_>, claims: &[Claim], actor: Actor<'_>, at: i64) -> Attribution {
    let head = seen.head.as_ref().map(definitions_of).unwrap_or_default();
    let now = seen.now.as_ref().map(definitions_of).unwrap_or_default();
    let changes = diff_symbols(seen.head, seen.now);
    let changed: BTreeSet<&str> = changes.iter().map(SymbolChange::match_key).collect();
    let mut out = Attribution::default();
    for c in claims {
        if !changed.contains(c.key()) {
            out.cleared.push(c.clone());
        }
    }
    for change in &changes {
        let key = change.match_key();
        let version = change.digest.as_deref().unwrap_or(ABSENT);
        let on: Vec<&Claim> = claims.iter().filter(|c| c.key() == key).collect();
        let diff = short_diff(
            head.get(key).map_or("", |d| d.text.as_str()),
            now.get(key).map_or("", |d| d.text.as_str()),
        );
        let session = match actor {
            Actor::Nobody => {
                // Compared with a new HEAD: each claim keeps its own version and takes
                // the definition's new standing against HEAD.
                for c in on {
                    let mut moved = c.clone();
                    moved.change = SymbolChange {
                        digest: c.change.digest.clone(),
                        calls: c.change.calls.clone(),
                        uses: c.change.uses.clone(),
                        ..change.clone()
                    };
                    if c.version() == version {
                        moved.diff = diff.clone();
                    }
                    if moved != *c {
                        out.upserts.push(moved);
                    }
                }
                continue;
            }
            Actor::Edit {
                session, untouched, ..
            } => match untouched {
                Some(keys) if keys.contains(key) => "",
                _ => session,
            },
        };
        // A claimed definition gone under its key, whose version is this new key's (its
        // enclosing definition renamed, or it moved): the claims follow it, whoever moved
        // it.
        if on.is_empty() && version != ABSENT {
            let moved: Vec<&Claim> = claims
                .iter()
                .filter(|c| !now.contains_key(c.key()) && c.version() == version)
                .collect();
            if !moved.is_empty() {
                for c in moved {
                    let mut follows = c.clone();
                    follows.change = SymbolChange {
                        calls: c.change.calls.clone(),
                        ..change.clone()
                    };
                    follows.diff = diff.clone();
                    out.upserts.push(follows);
                    if !out.cleared.contains(c) {
                        out.cleared.push(c.clone());
                    }
                }
                continue;
            }
        }
        if on.iter().any(|c| c.version() == version) {
            // No edit of it since a claim recorded this very version: unattributed
            // claims of that version made lately are the actor's own write.
            if let Actor::Edit {
                adopt_since: Some(since),
                ..
            } = actor
                && !session.is_empty()
                && !on.iter().any(|c| c.by(session) && c.version() == version)
            {
                for c in on
                    .iter()
                    .filter(|c| c.by("") && c.version() == version && c.edited_at >= since)
                {
                    let mut adopted = (*c).clone();
                    adopted.session = session.to_owned();
                    out.cleared.push((*c).clone());
                    out.upserts.push(merge_into(
                        adopted,
                        on.iter().find(|m| m.by(session)).copied(),
                    ));
                }
            }
            continue;
        }
        // The version it had just before this edit: the latest claim's, else HEAD's.
        let latest = on.iter().max_by_key(|c| c.edited_at);
        let before = latest
            .map(|c| c.version().to_owned())
            .or_else(|| head.get(key).map(|d| d.digest.clone()))
            .unwrap_or_else(|| ABSENT.to_owned());
        // The text before this session's run of edits of it: its earlier start when
        // nobody edited it since, so that every line of the run is the session's.
        let own_before = match latest {
            Some(c) if c.by(session) => c.own_before.clone(),
            Some(c) => c.own.clone(),
            None => head.get(key).and_then(|d| kept(&d.own)),
        };
        let mine = on.iter().find(|c| c.by(session));
        let mut prior = mine.map(|c| c.prior.clone()).unwrap_or_default();
        if !prior.contains(&before) {
            prior.push(before);
        }
        if prior.len() > PRIOR_KEPT {
            prior.drain(..prior.len() - PRIOR_KEPT);
        }
        out.upserts.push(Claim {
            file: seen.file.to_owned(),
            session: session.to_owned(),
            change: change.clone(),
            prior,
            since: mine.map_or(at, |c| c.since),
            edited_at: at,
            diff,
            own: now.get(key).and_then(|d| kept(&d.own)),
            own_before,
        });
    }
    out
}

/// `own` when a claim keeps it (not over [`OWN_KEPT`]).
fn kept(own: &str) -> Option<String> {
    (own.len() <= OWN_KEPT).then(|| own.to_owned())
}

/// `adopted` (an unattributed claim becoming a session's) joined with the session's own
/// claim on the same definition, if it had one: the earlier start, both sets of earlier
/// versions.
fn merge_into(mut adopted: Claim, mine: Option<&Claim>) -> Claim {
    if let Some(m) = mine {
        adopted.since = adopted.since.min(m.since);
        let mut prior = m.prior.clone();
        for p in &adopted.prior {
            if !prior.contains(p) {
                prior.push(p.clone());
            }
        }
        adopted.prior = prior;
    }
    adopted
}

/// One definition an edit changes: its text, its signature, or whether it exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    /// What matches it with the claims (see [`SymbolChange::key`]).
    pub key: String,
    /// Its address in the version it is in (the edited one, else the current one).
    pub name: String,
    /// What it is.
    pub kind: String,
    /// Digest of its own text now ([`ABSENT`]: the edit adds it).
    pub before: String,
    /// Digest of its own text after the edit ([`ABSENT`]: the edit removes it).
    pub after: String,
    /// Its signature now.
    pub signature_before: Option<String>,
    /// Its signature after the edit.
    pub signature_after: Option<String>,
    /// One-based line where it starts, in the version it is in.
    pub line: usize,
    /// Its own text now (`None`: the edit adds it).
    pub own_before: Option<String>,
    /// Its own text after the edit (`None`: the edit removes it).
    pub own_after: Option<String>,
}

/// The definitions an edit from `current` to `edited` changes (`None`: the file absent
/// in that version), in the order of the file, removed ones last.
pub fn touches(current: Option<Version<'_>>, edited: Option<Version<'_>>) -> Vec<Touch> {
    let was = current.as_ref().map(definitions_of).unwrap_or_default();
    let will = edited.as_ref().map(definitions_of).unwrap_or_default();
    touches_between(&was, &will)
}

/// [`touches`] from the two versions' definitions ([`definitions_of`]; empty for a file
/// absent in that version), for a caller that has them already.
pub fn touches_between(
    was: &BTreeMap<String, Definition>,
    will: &BTreeMap<String, Definition>,
) -> Vec<Touch> {
    let touch = |key: &str, a: Option<&Definition>, b: Option<&Definition>| {
        let shown = b.or(a)?;
        let digest = |d: Option<&Definition>| d.map_or(ABSENT.to_owned(), |d| d.digest.clone());
        let signature = |d: Option<&Definition>| d.and_then(|d| d.signature.clone());
        let same = digest(a) == digest(b) && signature(a) == signature(b);
        (!same).then(|| Touch {
            key: key.to_owned(),
            name: shown.name.clone(),
            kind: shown.kind.clone(),
            before: digest(a),
            after: digest(b),
            signature_before: signature(a),
            signature_after: signature(b),
            line: shown.line,
            own_before: a.map(|d| d.own.clone()),
            own_after: b.map(|d| d.own.clone()),
        })
    };
    let mut out: Vec<Touch> = will
        .iter()
        .filter_map(|(k, d)| touch(k, was.get(k), Some(d)))
        .collect();
    out.sort_by_key(|t| t.line);
    // A definition gone under its key whose own text is there under a key the edit adds
    // (its enclosing definition renamed, or it moved into another) lives on: the edit
    // does not remove it.
    let appeared = moved_digests(was, will);
    out.extend(
        was.iter()
            .filter(|(k, d)| !will.contains_key(*k) && !appeared.contains(d.digest.as_str()))
            .filter_map(|(k, d)| touch(k, Some(d), None)),
    );
    out
}

/// The digests of the definitions of `now` under keys `was` does not have: where a
/// definition gone under its own key may live on.
fn moved_digests<'a>(
    was: &BTreeMap<String, Definition>,
    now: &'a BTreeMap<String, Definition>,
) -> BTreeSet<&'a str> {
    now.iter()
        .filter(|(k, _)| !was.contains_key(*k))
        .map(|(_, d)| d.digest.as_str())
        .collect()
}

/// The definitions an edit changes, found from where it lands in the current version
/// without analysing the edited one: `edits` are the byte ranges of `current`'s source the
/// edit replaces (not overlapping, in order; an empty range is an insertion) and their
/// replacement texts, `defs` the definitions of `current` ([`definitions_of`]). A
/// definition is touched when an edit lands in its own text (the text between its nested
/// definitions; an insertion strictly inside it), and its text after the edit is its own
/// pieces with those edits applied. `None` when that cannot be told this way: an edit
/// that is not inside a definition without nested ones (the caller then compares whole
/// analyses, [`touches`]). Definitions the edit adds are not seen here.
///
/// Only an edit inside such a leaf is told here, because text put between definitions
/// (or outside them) belongs to whatever the parse makes of it: lines appended after a
/// blank line below a Python method are that method's, not its class's (found by
/// claims-eval on flask: B's lines at the end of `Flask.do_teardown_request` were taken
/// for a change of `Flask`'s own text, so B was warned of A's claim on the class and its
/// own change of the method went unattributed).
pub fn touches_at(
    current: &Version<'_>,
    defs: &BTreeMap<String, Definition>,
    edits: &[(std::ops::Range<usize>, &str)],
) -> Option<Vec<Touch>> {
    let in_a_leaf = |range: &std::ops::Range<usize>| {
        defs.values().any(|d| {
            d.own_ranges.len() == 1
                && if range.is_empty() {
                    d.range.start < range.start && range.start < d.range.end
                } else {
                    d.range.start <= range.start && range.end <= d.range.end
                }
        })
    };
    if !edits.iter().all(|(range, _)| in_a_leaf(range)) {
        return None;
    }
    let source = current.source;
    let mut out = Vec::new();
    for d in defs.values() {
        let mut touched = false;
        let mut pieces: Vec<String> = Vec::with_capacity(d.own_ranges.len());
        for piece in &d.own_ranges {
            let mut text = String::new();
            let mut at = piece.start;
            for (range, new) in edits {
                let inside = if range.is_empty() {
                    piece.start <= range.start
                        && range.start <= piece.end
                        && d.range.start < range.start
                        && range.start < d.range.end
                } else {
                    piece.start <= range.start && range.end <= piece.end
                };
                if inside {
                    text.push_str(source.get(at..range.start)?);
                    text.push_str(new);
                    at = range.end;
                    touched = true;
                } else if !range.is_empty() && range.start < piece.end && range.end > piece.start {
                    return None;
                }
            }
            text.push_str(source.get(at..piece.end)?);
            pieces.push(text);
        }
        if !touched {
            continue;
        }
        let own_after = crate::diff::own_pieces(pieces.iter().map(String::as_str));
        let after = crate::diff::digest(&own_after);
        if after == d.digest {
            continue;
        }
        out.push(Touch {
            key: d.key.clone(),
            name: d.name.clone(),
            kind: d.kind.clone(),
            before: d.digest.clone(),
            after,
            signature_before: d.signature.clone(),
            // Not known without analysing the edited version.
            signature_after: None,
            line: d.line,
            own_before: Some(d.own.clone()),
            own_after: Some(own_after),
        });
    }
    out.sort_by_key(|t| t.line);
    Some(out)
}

/// One claim of another session an edit runs into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The claim.
    pub claim: Claim,
    /// The edit's change of its definition.
    pub touch: Touch,
    /// Whether the edit would undo that session's work (see [`check`]).
    pub undoes: bool,
}

/// The claims of sessions other than `me` that `touches` (of one file) run into, given
/// every claim on that file. An edit that undoes another session's change is always a
/// hit; one that changes a definition another session claims is a hit unless `me` has
/// changed it since (its own claim holds the current version): the other session's
/// change was already in front of `me` then.
///
/// An edit undoes a session's change of a definition when it writes back a version the
/// definition had before one of that session's edits, or when it takes back what that
/// session's latest run of edits changed and the definition still holds ([`puts_back`]):
/// a write from a read made before the session's change, of a definition the writer
/// changed too, is a version the definition never had, but the session's lines are gone
/// from it all the same.
pub fn check(touches: &[Touch], claims: &[Claim], me: &str) -> Vec<Hit> {
    let mut out = Vec::new();
    for t in touches {
        let on = claims.iter().filter(|c| c.key() == t.key);
        let latest_mine = claims
            .iter()
            .any(|c| c.key() == t.key && c.by(me) && c.version() == t.before);
        for c in on.filter(|c| !c.by(me)) {
            let undoes = c.prior.contains(&t.after)
                || match (&c.own_before, &c.own, &t.own_before, &t.own_after) {
                    (Some(was), Some(theirs), Some(now), Some(edited)) => {
                        puts_back(was, theirs, now, edited)
                    }
                    _ => false,
                };
            if undoes || !latest_mine {
                out.push(Hit {
                    claim: c.clone(),
                    touch: t.clone(),
                    undoes,
                });
            }
        }
    }
    out
}

/// Whether `edited` takes back a session's change of `was` into `theirs` (texts of one
/// definition) that `now` still holds, in either of two ways:
/// - it puts back `was`'s text in a run of lines the session changed: `edited` has
///   `was`'s text there (its changes from `was` lie elsewhere) and not the session's new
///   lines;
/// - it takes the session's new lines out of `now` without putting anything in their
///   place (a write from a read made before them, of lines the writer changed too, keeps
///   the writer's lines and drops theirs).
///
/// An edit that changes the session's lines further (builds on their change) takes back
/// nothing; nor does one that changes any line of a run of adjacent lines the session
/// changed while keeping was's text out of it (the run is taken whole: which of its lines
/// became which is not known).
pub fn puts_back(was: &str, theirs: &str, now: &str, edited: &str) -> bool {
    let edited_runs = changed_runs(was, edited);
    let now_runs = changed_runs(was, now);
    let removals: Vec<Run> = changed_runs(now, edited)
        .into_iter()
        .filter(|r| r.added.trim().is_empty())
        .collect();
    changed_runs(was, theirs).iter().any(|run| {
        let theirs_new = run.added.as_str();
        let back = now_runs.iter().any(|n| run.meets(n))
            && !edited_runs.iter().any(|e| run.meets(e))
            && (theirs_new.trim().is_empty() || !edited.contains(theirs_new));
        let out = !theirs_new.trim().is_empty()
            && now.contains(theirs_new)
            && removals.iter().any(|r| r.removed.contains(theirs_new));
        back || out
    })
}

/// A run of lines of one text that another text replaces: lines `start .. end` (an
/// insertion: `start == end`, before line `start`), their text, and the lines put there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Run {
    start: usize,
    end: usize,
    removed: String,
    added: String,
}

impl Run {
    /// Whether two runs of one text's lines meet: they share a line, or one inserts
    /// inside the other, or both insert at one place.
    fn meets(&self, other: &Run) -> bool {
        let (a, b) = ((self.start, self.end), (other.start, other.end));
        match (a.0 == a.1, b.0 == b.1) {
            (true, true) => a.0 == b.0,
            (true, false) => b.0 < a.0 && a.0 < b.1,
            (false, true) => a.0 < b.0 && b.0 < a.1,
            (false, false) => a.0 < b.1 && b.0 < a.1,
        }
    }
}

/// The runs of `from`'s lines that `to` replaces, in order.
fn changed_runs(from: &str, to: &str) -> Vec<Run> {
    let diff = similar::TextDiff::from_lines(from, to);
    let mut out: Vec<Run> = Vec::new();
    let mut open: Option<Run> = None;
    for op in diff.ops() {
        if op.tag() == similar::DiffTag::Equal {
            out.extend(open.take());
            continue;
        }
        let old = op.old_range();
        let run = open.get_or_insert(Run {
            start: old.start,
            end: old.start,
            removed: String::new(),
            added: String::new(),
        });
        run.end = old.end;
        for change in diff.iter_changes(op) {
            match change.tag() {
                similar::ChangeTag::Insert => run.added.push_str(change.value()),
                similar::ChangeTag::Delete => run.removed.push_str(change.value()),
                similar::ChangeTag::Equal => {}
            }
        }
    }
    out.extend(open);
    out
}

/// Every session's claims as the changes of a party of [`crate::forecast`]: session →
/// file → its changed definitions.
pub fn changes_by_session(claims: &[Claim]) -> BTreeMap<String, BTreeMap<String, FileChange>> {
    let mut by: BTreeMap<String, BTreeMap<String, Vec<SymbolChange>>> = BTreeMap::new();
    for c in claims {
        by.entry(c.session.clone())
            .or_default()
            .entry(c.file.clone())
            .or_default()
            .push(c.change.clone());
    }
    by.into_iter()
        .map(|(session, files)| {
            let files = files
                .into_iter()
                .map(|(file, mut symbols)| {
                    symbols.sort_by_key(|s| s.line);
                    let change = FileChange::Symbols {
                        symbols,
                        deleted: false,
                        blob: None,
                    };
                    (file, change)
                })
                .collect();
            (session, files)
        })
        .collect()
}

/// A unified diff of `before` to `after` for people: the changed lines with one line of
/// context, at most [`DIFF_LINES`] lines of at most [`DIFF_LINE_CHARS`] characters, no
/// headers. Empty when they are equal.
pub fn short_diff(before: &str, after: &str) -> String {
    if before == after {
        return String::new();
    }
    let diff = similar::TextDiff::from_lines(before, after);
    let mut lines: Vec<String> = Vec::new();
    let mut more = 0usize;
    for group in diff.grouped_ops(1) {
        for op in group {
            for change in diff.iter_changes(&op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                if lines.len() >= DIFF_LINES {
                    more += 1;
                    continue;
                }
                let text = change.value().trim_end_matches(['\n', '\r']);
                let mut line: String = text.chars().take(DIFF_LINE_CHARS).collect();
                if text.chars().count() > DIFF_LINE_CHARS {
                    line.push('…');
                }
                lines.push(format!("{sign}{line}"));
            }
        }
    }
    if more > 0 {
        lines.push(format!(
            "… {more} more line{}",
            if more == 1 { "" } else { "s" }
        ));
    }
    lines.join("\n")
}
