//! Which changes of two checkouts collide.

use std::collections::{BTreeMap, HashMap};

use crate::diff::digest;
use crate::model::{Change, FileChange, Forecast, Hop, Kind, Side, SymbolChange};

/// One party's changes against the pair's base, file by file: a checkout's (against the
/// merge base of two checkouts' HEADs), or one session's claimed changes in a checkout
/// (against its HEAD; see [`crate::claims`]).
#[derive(Debug, Clone, Copy)]
pub struct Checkout<'a> {
    /// The checkout's name (its root path).
    pub id: &'a str,
    /// The session of the checkout whose changes these are (`Some("")`: changes no
    /// agent's hook announced), for a forecast between two sessions of one checkout;
    /// `None` for a whole checkout.
    pub session: Option<&'a str>,
    /// Its changed files (repository-relative paths).
    pub files: &'a BTreeMap<String, FileChange>,
}

impl<'a> Checkout<'a> {
    /// A whole checkout's changes.
    pub fn new(id: &'a str, files: &'a BTreeMap<String, FileChange>) -> Self {
        Checkout {
            id,
            session: None,
            files,
        }
    }

    /// One session's claimed changes in the checkout `id`.
    pub fn session(id: &'a str, session: &'a str, files: &'a BTreeMap<String, FileChange>) -> Self {
        Checkout {
            id,
            session: Some(session),
            files,
        }
    }

    /// What the forecast's id is made of: the checkout, and the session when there is one.
    fn key(&self) -> String {
        match self.session {
            Some(s) => format!("{}\u{1f}{s}", self.id),
            None => self.id.to_owned(),
        }
    }

    /// How sentences name it: the session, or the checkout's directory name.
    fn label(&self) -> &str {
        match self.session {
            Some(s) => session_label(s),
            None => short(self.id),
        }
    }

    fn side(&self, path: &str, c: &SymbolChange) -> Side {
        Side {
            checkout: self.id.to_owned(),
            session: self.session.map(str::to_owned),
            symbol_path: format!("{path}:{}", c.base_name()),
            change: c.change.as_str().to_owned(),
            before: c.before.clone(),
            after: c.after.clone(),
            line: Some(c.line),
        }
    }

    fn hop(&self, symbol_path: &str, line: Option<usize>) -> Hop {
        Hop {
            symbol_path: symbol_path.to_owned(),
            checkout: self.id.to_owned(),
            session: self.session.map(str::to_owned),
            line,
        }
    }
}

/// How sentences name a session: itself, or for `""` (changes no agent's hook announced,
/// seen by the file watcher) `unattributed`.
pub fn session_label(session: &str) -> &str {
    if session.is_empty() {
        "unattributed"
    } else {
        session
    }
}

/// One three-way merge the forecast asks the caller to run with git's own algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge<'a> {
    /// The file it is about.
    pub path: &'a str,
    /// The common version: `None` for the file's own blob at the pair's base (the caller
    /// holds the base's tree), `Some("")` for the empty blob, else that blob.
    pub base: Option<&'a str>,
    /// The first checkout's version (a blob id).
    pub a: &'a str,
    /// The second checkout's version (a blob id).
    pub b: &'a str,
}

/// What git's three-way merge of one file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextVerdict {
    /// The two versions merge cleanly.
    Clean,
    /// They do not: `conflicts` hunks conflict.
    Conflict {
        /// How many conflicting hunks git reported.
        conflicts: usize,
    },
    /// The merge could not be tried (an object missing from this machine's repository,
    /// git failing): no forecast either way.
    Unknown,
}

/// The forecasts between `a` and `b`, whose changes are both against one base.
/// `merge` runs git's three-way merge (of a file both changed that no analyzer covers, or
/// of the text outside the definitions of one they both changed there). The answer is
/// the same whichever daemon asks, and sorted by id.
pub fn forecast(
    a: Checkout<'_>,
    b: Checkout<'_>,
    merge: &mut dyn FnMut(Merge<'_>) -> TextVerdict,
) -> Vec<Forecast> {
    let mut out: Vec<Forecast> = Vec::new();
    for (path, fa) in a.files {
        let Some(fb) = b.files.get(path) else {
            continue;
        };
        match (fa, fb) {
            (
                FileChange::Symbols {
                    symbols: sa,
                    deleted: da,
                    outside: oa,
                },
                FileChange::Symbols {
                    symbols: sb,
                    deleted: db,
                    outside: ob,
                },
            ) => {
                let before = out.len();
                same_symbols(a, b, path, sa, sb, &mut out);
                if da != db {
                    // Deleted on one side, changed on the other (maybe only outside every
                    // definition): git stops on it as modify/delete.
                    if out.len() == before {
                        let blob = |deleted: bool| (!deleted).then_some("changed");
                        let never = &mut |_: Merge<'_>| TextVerdict::Unknown;
                        out.extend(textual(a, b, path, blob(*da), blob(*db), never));
                    }
                } else if let (Some(oa), Some(ob)) = (oa, ob)
                    && oa.now != ob.now
                {
                    let base = oa.base.as_deref().or(Some(""));
                    let verdict = merge(Merge {
                        path,
                        base,
                        a: &oa.now,
                        b: &ob.now,
                    });
                    if let TextVerdict::Conflict { conflicts } = verdict {
                        out.push(outside(a, b, path, conflicts));
                    }
                }
            }
            (FileChange::Text { blob: ba, .. }, FileChange::Text { blob: bb, .. }) => {
                if let Some(f) = textual(a, b, path, ba.as_deref(), bb.as_deref(), merge) {
                    out.push(f);
                }
            }
            (FileChange::Uncompared { why }, other) | (other, FileChange::Uncompared { why }) => {
                let a_uncompared = matches!(fa, FileChange::Uncompared { .. });
                out.push(uncompared(a, b, path, why, other, a_uncompared));
            }
            // One side analysed, the other not (its analyzer failed on its version): the
            // symbols cannot be compared, and a textual merge needs both blobs. The
            // checkout's listing shows the file as not analysed.
            _ => {}
        }
    }
    callers(a, b, &mut out, false);
    callers(b, a, &mut out, true);
    out.sort_by(|x, y| x.id.cmp(&y.id));
    out.dedup_by(|x, y| x.id == y.id);
    out
}

/// The short name of a checkout for sentences: its last path component.
pub fn short(checkout: &str) -> &str {
    checkout
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or(checkout)
}

fn id(kind: Kind, a: &Checkout<'_>, b: &Checkout<'_>, paths: &[String]) -> String {
    digest(&format!(
        "{}\n{}\n{}\n{}",
        kind.as_str(),
        a.key(),
        b.key(),
        paths.join("\n")
    ))
}

fn describe(c: &SymbolChange) -> String {
    match (c.change, &c.before, &c.after) {
        (Change::Signature, Some(b), Some(a)) => format!("signature {b} → {a}"),
        (Change::Renamed, _, _) => format!("renamed to {}", c.name),
        (other, _, _) => other.as_str().to_owned(),
    }
}

/// The same definition changed by both, unless both made the very same change.
fn same_symbols(
    a: Checkout<'_>,
    b: Checkout<'_>,
    path: &str,
    sa: &[SymbolChange],
    sb: &[SymbolChange],
    out: &mut Vec<Forecast>,
) {
    let by_key: HashMap<&str, &SymbolChange> = sb.iter().map(|c| (c.match_key(), c)).collect();
    for ca in sa {
        let Some(cb) = by_key.get(ca.match_key()) else {
            continue;
        };
        let identical = ca.change == cb.change && ca.name == cb.name && ca.digest == cb.digest;
        if identical {
            continue; // git merges two identical changes cleanly
        }
        let symbol_path = format!("{path}:{}", ca.base_name());
        let paths = vec![symbol_path.clone()];
        let both = if a.session.is_some() {
            "by two sessions of this checkout"
        } else {
            "in both checkouts"
        };
        out.push(Forecast {
            id: id(Kind::SameSymbol, &a, &b, &paths),
            kind: Kind::SameSymbol,
            summary: format!(
                "{symbol_path} is changed {both} ({}: {}; {}: {})",
                a.label(),
                describe(ca),
                b.label(),
                describe(cb)
            ),
            symbol_paths: paths,
            sides: vec![a.side(path, ca), b.side(path, cb)],
            chain: Vec::new(),
        });
    }
}

/// `changer`'s definitions whose callers break, called by `caller`'s changed code.
/// `swapped`: `changer` is the pair's second checkout (sides stay in the pair's order).
fn callers(changer: Checkout<'_>, caller: Checkout<'_>, out: &mut Vec<Forecast>, swapped: bool) {
    let mut breaking: HashMap<String, (&str, &SymbolChange)> = HashMap::new();
    for (path, f) in changer.files {
        if let FileChange::Symbols { symbols, .. } = f {
            for c in symbols.iter().filter(|c| c.breaks_callers()) {
                breaking.insert(format!("{path}:{}", c.base_name()), (path, c));
            }
        }
    }
    if breaking.is_empty() {
        return;
    }
    for (path, f) in caller.files {
        let FileChange::Symbols { symbols, .. } = f else {
            continue;
        };
        for c in symbols.iter().filter(|c| c.change.has_new_code()) {
            let caller_path = format!("{path}:{}", c.base_name());
            for call in &c.calls {
                let Some((target_file, changed)) = breaking.get(&call.callee) else {
                    continue;
                };
                if call.callee == caller_path {
                    continue; // its own recursion: the same-symbol forecast says it
                }
                let paths = vec![caller_path.clone(), call.callee.clone()];
                let changer_side = changer.side(target_file, changed);
                let caller_side = Side {
                    checkout: caller.id.to_owned(),
                    session: caller.session.map(str::to_owned),
                    symbol_path: caller_path.clone(),
                    change: "calls".into(),
                    before: None,
                    after: None,
                    line: Some(call.line),
                };
                let (first, second) = if swapped {
                    (&caller, &changer)
                } else {
                    (&changer, &caller)
                };
                let sides = if swapped {
                    vec![caller_side, changer_side]
                } else {
                    vec![changer_side, caller_side]
                };
                out.push(Forecast {
                    id: id(Kind::SignatureVsCallers, first, second, &paths),
                    kind: Kind::SignatureVsCallers,
                    summary: format!(
                        "{} changes {} ({}) and {}'s {} {} calls it (line {})",
                        changer.label(),
                        call.callee,
                        describe(changed),
                        caller.label(),
                        if c.change == Change::Added {
                            "new"
                        } else {
                            "changed"
                        },
                        caller_path,
                        call.line
                    ),
                    symbol_paths: paths,
                    sides,
                    chain: vec![
                        caller.hop(&caller_path, Some(call.line)),
                        changer.hop(&call.callee, None),
                    ],
                });
            }
        }
    }
}

/// A file no analyzer covers, changed by both.
fn textual(
    a: Checkout<'_>,
    b: Checkout<'_>,
    path: &str,
    ba: Option<&str>,
    bb: Option<&str>,
    merge: &mut dyn FnMut(Merge<'_>) -> TextVerdict,
) -> Option<Forecast> {
    let conflicts = match (ba, bb) {
        (None, None) => return None, // both deleted it
        (Some(x), Some(y)) if x == y => return None,
        (Some(x), Some(y)) => match merge(Merge {
            path,
            base: None,
            a: x,
            b: y,
        }) {
            TextVerdict::Conflict { conflicts } => conflicts,
            TextVerdict::Clean | TextVerdict::Unknown => return None,
        },
        _ => 1, // one modified what the other deleted
    };
    let change = |blob: Option<&str>| {
        if blob.is_some() {
            "modified"
        } else {
            "deleted"
        }
    };
    let paths = vec![path.to_owned()];
    let text_side = |checkout: &str, blob: Option<&str>| Side {
        checkout: checkout.to_owned(),
        session: None,
        symbol_path: path.to_owned(),
        change: change(blob).into(),
        before: None,
        after: None,
        line: None,
    };
    Some(Forecast {
        id: id(Kind::Textual, &a, &b, &paths),
        kind: Kind::Textual,
        summary: match (ba, bb) {
            (Some(_), Some(_)) => format!(
                "{path}: git would not merge {} and {} cleanly ({conflicts} conflicting hunk{})",
                short(a.id),
                short(b.id),
                if conflicts == 1 { "" } else { "s" }
            ),
            _ => format!(
                "{path}: {} and {} (modify/delete)",
                format_args!("{} {} it", short(a.id), change(ba)),
                format_args!("{} {} it", short(b.id), change(bb))
            ),
        },
        symbol_paths: paths,
        sides: vec![text_side(a.id, ba), text_side(b.id, bb)],
        chain: Vec::new(),
    })
}

/// Both changed one file and one side's change could not be compared (`why`): named, with
/// git's verdict unknown, rather than left out.
fn uncompared(
    a: Checkout<'_>,
    b: Checkout<'_>,
    path: &str,
    why: &str,
    other: &FileChange,
    a_uncompared: bool,
) -> Forecast {
    let paths = vec![path.to_owned()];
    let other_change = match other {
        FileChange::Symbols { deleted: true, .. } | FileChange::Text { blob: None, .. } => {
            "deleted"
        }
        FileChange::Uncompared { .. } => "uncompared",
        _ => "modified",
    };
    let (ca, cb) = if a_uncompared {
        ("uncompared", other_change)
    } else {
        (other_change, "uncompared")
    };
    let side = |checkout: &str, change: &str| Side {
        checkout: checkout.to_owned(),
        session: None,
        symbol_path: path.to_owned(),
        change: change.into(),
        before: None,
        after: None,
        line: None,
    };
    let (who, whom) = if a_uncompared {
        (a.id, b.id)
    } else {
        (b.id, a.id)
    };
    Forecast {
        id: id(Kind::Textual, &a, &b, &paths),
        kind: Kind::Textual,
        summary: format!(
            "{path}: changed in both {} and {}; {}'s version is not compared ({why}), so \
             whether git would merge them is unknown",
            short(whom),
            short(who),
            short(who)
        ),
        symbol_paths: paths,
        sides: vec![side(a.id, ca), side(b.id, cb)],
        chain: Vec::new(),
    }
}

/// Both changed the text outside the definitions of one analysed file, and git cannot
/// merge the two.
fn outside(a: Checkout<'_>, b: Checkout<'_>, path: &str, conflicts: usize) -> Forecast {
    let paths = vec![path.to_owned()];
    let side = |checkout: &str| Side {
        checkout: checkout.to_owned(),
        session: None,
        symbol_path: path.to_owned(),
        change: "modified".into(),
        before: None,
        after: None,
        line: None,
    };
    Forecast {
        id: id(Kind::Textual, &a, &b, &paths),
        kind: Kind::Textual,
        summary: format!(
            "{path}: {} and {} both changed text outside its definitions (imports, \
             module-level code) and git would not merge it cleanly ({conflicts} conflicting \
             hunk{})",
            short(a.id),
            short(b.id),
            if conflicts == 1 { "" } else { "s" }
        ),
        symbol_paths: paths,
        sides: vec![side(a.id), side(b.id)],
        chain: Vec::new(),
    }
}
