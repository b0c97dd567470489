//! Which changes of two checkouts collide.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::diff::digest;
use crate::model::{
    Change, FileChange, Forecast, Hop, Kind, MemberChange, MemberChangeKind, Side, SymbolChange,
    UseRef,
};
use crate::textual::Region;

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

/// One three-way merge the forecast asks the caller to run with git's own algorithm (and,
/// where git stops on a file an analyzer covers, to locate where and ask wit's merge
/// driver: see [`TextVerdict::Conflict`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge<'a> {
    /// The file it is about.
    pub path: &'a str,
    /// The common version: `None` for the file's own blob at the pair's base (the caller
    /// holds the base's tree), `Some("")` for the empty blob.
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
    /// They do not.
    Conflict {
        /// How many conflicting hunks git reported.
        conflicts: usize,
        /// Where, in each side's lines ([`crate::colliding_regions`]; empty when not
        /// located: a file compared as text, a binary one).
        regions: Vec<Region>,
        /// What wit's merge driver would make of it (a file an analyzer covers).
        driver: Driver,
    },
    /// The merge could not be tried (an object missing from this machine's repository,
    /// git failing): no forecast either way.
    Unknown,
}

impl TextVerdict {
    /// A conflict of `conflicts` hunks, nothing more known.
    pub fn conflict(conflicts: usize) -> TextVerdict {
        TextVerdict::Conflict {
            conflicts,
            regions: Vec::new(),
            driver: Driver::Unknown,
        }
    }
}

/// What wit's merge driver (`wit_merge`) would make of a file git's line merge stops on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// Not asked (no analyzer covers the file), or no answer.
    Unknown,
    /// It merges the file cleanly; `installed`: git runs it for this file (`wit hook
    /// install`), so the merge will not stop.
    Merges {
        /// Whether the driver is installed for the file.
        installed: bool,
    },
    /// It stops too (a definition changed on both sides git cannot merge within, …).
    Stops,
}

/// A file git's line merge would stop on that wit's merge driver, installed for it,
/// merges cleanly: no forecast, since the merge will not stop, but worth saying
/// (`wit conflicts` lists them).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DriverMerge {
    /// The file.
    pub path: String,
    /// One sentence for people.
    pub summary: String,
}

/// What comparing two parties gives: the forecasts, and the files whose merge wit's
/// driver takes over.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The collisions, sorted by id.
    pub forecasts: Vec<Forecast>,
    /// Files git alone would stop on that the installed driver merges, by path.
    pub driver_merges: Vec<DriverMerge>,
}

/// The forecasts between `a` and `b`, whose changes are both against one base (see
/// [`compare`]).
pub fn forecast(
    a: Checkout<'_>,
    b: Checkout<'_>,
    merge: &mut dyn FnMut(Merge<'_>) -> TextVerdict,
) -> Vec<Forecast> {
    compare(a, b, merge).forecasts
}

/// The forecasts between `a` and `b`, whose changes are both against one base, and the
/// files wit's installed merge driver takes over. `merge` runs git's three-way merge of
/// a file both changed (the whole file: its verdict is git's, so the textual kind agrees
/// with git by construction), and where git stops on a file an analyzer covers, locates
/// the collision and asks wit's merge driver ([`TextVerdict::Conflict`]). The answer is
/// the same whichever daemon asks, and sorted by id.
pub fn compare(
    a: Checkout<'_>,
    b: Checkout<'_>,
    merge: &mut dyn FnMut(Merge<'_>) -> TextVerdict,
) -> Outcome {
    let mut out: Vec<Forecast> = Vec::new();
    let mut driver_merges: Vec<DriverMerge> = Vec::new();
    for (path, fa) in a.files {
        let Some(fb) = b.files.get(path) else {
            continue;
        };
        match (fa, fb) {
            (
                FileChange::Symbols {
                    symbols: sa,
                    deleted: da,
                    blob: ba,
                },
                FileChange::Symbols {
                    symbols: sb,
                    deleted: db,
                    blob: bb,
                },
            ) => {
                let same = same_symbols(a, b, path, sa, sb, &mut out);
                if da != db {
                    // Deleted on one side, changed on the other (maybe only outside every
                    // definition): git stops on it as modify/delete.
                    if same.is_empty() {
                        let blob = |deleted: bool| (!deleted).then_some("changed");
                        let never = &mut |_: Merge<'_>| TextVerdict::Unknown;
                        out.extend(textual(a, b, path, blob(*da), blob(*db), never));
                    }
                } else if let (Some(ba), Some(bb)) = (ba, bb)
                    && ba != bb
                {
                    let verdict = merge(Merge {
                        path,
                        base: None,
                        a: ba,
                        b: bb,
                    });
                    if let TextVerdict::Conflict {
                        conflicts,
                        regions,
                        driver,
                    } = verdict
                    {
                        let stop = Stop {
                            path,
                            conflicts,
                            regions: &regions,
                            sides: (sa, sb),
                            same: &same,
                        };
                        match driver {
                            Driver::Merges { installed: true } => {
                                driver_merges.push(stop.driver_merge(&a, &b));
                            }
                            _ => out.extend(stop.forecast(a, b, driver)),
                        }
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
            // One side analysed, the other compared as text (its analyzer failed on its
            // version): no symbols to compare, but git's merge of the two versions.
            (FileChange::Symbols { blob, deleted, .. }, FileChange::Text { blob: other, .. })
            | (FileChange::Text { blob: other, .. }, FileChange::Symbols { blob, deleted, .. }) => {
                let symbols_side = if *deleted { None } else { blob.as_deref() };
                if *deleted || blob.is_some() {
                    let (x, y) = if matches!(fa, FileChange::Symbols { .. }) {
                        (symbols_side, other.as_deref())
                    } else {
                        (other.as_deref(), symbols_side)
                    };
                    out.extend(textual(a, b, path, x, y, merge));
                }
            }
        }
    }
    callers(a, b, &mut out, false);
    callers(b, a, &mut out, true);
    member_users(a, b, &mut out, false);
    member_users(b, a, &mut out, true);
    out.sort_by(|x, y| x.id.cmp(&y.id));
    out.dedup_by(|x, y| x.id == y.id);
    driver_merges.sort_by(|x, y| x.path.cmp(&y.path));
    Outcome {
        forecasts: out,
        driver_merges,
    }
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
) -> HashSet<String> {
    let mut reported = HashSet::new();
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
        reported.insert(ca.match_key().to_owned());
    }
    reported
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

/// How a sentence says a member change: `removes the field coupon of src/o.ts:Order`.
fn member_clause(path: &str, m: &MemberChange) -> String {
    let (ty, name) = m.member.rsplit_once('.').unwrap_or(("", &m.member));
    let of = format!("{name} of {path}:{ty}");
    match (m.change, &m.to, &m.before, &m.after) {
        (MemberChangeKind::Renamed, Some(to), _, _) => format!("renames the member {of} to {to}"),
        (MemberChangeKind::Retyped, _, Some(b), Some(a)) => {
            format!("changes the type of the member {of} ({b} → {a})")
        }
        _ => format!("removes the member {of}"),
    }
}

/// How a sentence says the receiver a member is used on: `on a value of type Order`,
/// `on this.cart`.
fn receiver_clause(u: &UseRef) -> String {
    match u.receiver.strip_prefix("new:") {
        Some(ty) => format!("on a value declared of type {ty}"),
        None => format!("on {}", u.receiver),
    }
}

/// `changer`'s members of types removed, renamed or retyped, read or written by `user`'s
/// changed code. `swapped`: `changer` is the pair's second party (sides stay in the
/// pair's order).
fn member_users(changer: Checkout<'_>, user: Checkout<'_>, out: &mut Vec<Forecast>, swapped: bool) {
    let mut breaking: HashMap<String, (&str, &MemberChange)> = HashMap::new();
    for (path, f) in changer.files {
        if let FileChange::Symbols { symbols, .. } = f {
            for m in symbols.iter().flat_map(|c| &c.members) {
                breaking.insert(format!("{path}:{}", m.member), (path, m));
            }
        }
    }
    if breaking.is_empty() {
        return;
    }
    for (path, f) in user.files {
        let FileChange::Symbols { symbols, .. } = f else {
            continue;
        };
        for c in symbols.iter().filter(|c| c.change.has_new_code()) {
            let user_path = format!("{path}:{}", c.base_name());
            for u in &c.uses {
                let Some((type_file, m)) = breaking.get(&u.member) else {
                    continue;
                };
                let paths = vec![user_path.clone(), u.member.clone()];
                let changer_side = Side {
                    checkout: changer.id.to_owned(),
                    session: changer.session.map(str::to_owned),
                    symbol_path: u.member.clone(),
                    change: format!("member-{}", m.change.as_str()),
                    before: m.before.clone(),
                    after: m.after.clone(),
                    line: Some(m.line),
                };
                let verb = if u.write { "writes" } else { "reads" };
                let user_side = Side {
                    checkout: user.id.to_owned(),
                    session: user.session.map(str::to_owned),
                    symbol_path: user_path.clone(),
                    change: verb.into(),
                    before: None,
                    after: None,
                    line: Some(u.line),
                };
                let (first, second) = if swapped {
                    (&user, &changer)
                } else {
                    (&changer, &user)
                };
                let sides = if swapped {
                    vec![user_side, changer_side]
                } else {
                    vec![changer_side, user_side]
                };
                out.push(Forecast {
                    id: id(Kind::MemberVsUses, first, second, &paths),
                    kind: Kind::MemberVsUses,
                    summary: format!(
                        "{} {} and {}'s {} {user_path} {verb} it {} (line {})",
                        changer.label(),
                        member_clause(type_file, m),
                        user.label(),
                        if c.change == Change::Added {
                            "new"
                        } else {
                            "changed"
                        },
                        receiver_clause(u),
                        u.line
                    ),
                    symbol_paths: paths,
                    sides,
                    chain: vec![
                        user.hop(&user_path, Some(u.line)),
                        changer.hop(&u.member, None),
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
            TextVerdict::Conflict { conflicts, .. } => conflicts,
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

/// An analysed file both changed that git's line merge stops on.
struct Stop<'s> {
    path: &'s str,
    conflicts: usize,
    regions: &'s [Region],
    /// Each side's changed definitions in the file.
    sides: (&'s [SymbolChange], &'s [SymbolChange]),
    /// The definitions (match keys) of the file a same-symbol forecast names already.
    same: &'s HashSet<String>,
}

/// Whether the change `c` (of a definition now present) wrote any of `lines` (one-based,
/// end exclusive; empty: a deletion just before `lines.start`, which is inside the
/// definition when both lines around it are).
fn touches(c: &SymbolChange, lines: &std::ops::Range<usize>) -> bool {
    if !c.change.has_new_code() {
        return false;
    }
    let (first, last) = (c.line, c.end_line.max(c.line));
    if lines.is_empty() {
        first < lines.start && lines.start <= last
    } else {
        first < lines.end && lines.start <= last
    }
}

/// The changes of `side` that wrote any of `lines` ([`touches`]), without those around
/// another of them (a class whose method is named is not named too).
fn innermost<'c>(
    side: &'c [SymbolChange],
    lines: &std::ops::Range<usize>,
) -> Vec<&'c SymbolChange> {
    let found: Vec<&SymbolChange> = side.iter().filter(|c| touches(c, lines)).collect();
    let span = |c: &SymbolChange| (c.line, c.end_line.max(c.line));
    found
        .iter()
        .filter(|c| {
            let (first, last) = span(c);
            !found.iter().any(|o| {
                let (of, ol) = span(o);
                !std::ptr::eq(*o, **c) && first <= of && ol <= last && (of, ol) != (first, last)
            })
        })
        .copied()
        .collect()
}

/// `line 4`, `lines 4–6` (an empty range: the place before its start).
fn lines_text(lines: &std::ops::Range<usize>) -> String {
    if lines.end > lines.start + 1 {
        format!("lines {}–{}", lines.start, lines.end - 1)
    } else {
        format!("line {}", lines.start)
    }
}

/// `price`, `price and tax`, `a, b and c`.
fn names(list: &[&SymbolChange]) -> String {
    let mut names: Vec<&str> = list.iter().map(|c| c.name.as_str()).collect();
    names.dedup();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

impl Stop<'_> {
    /// Why git stops, one clause per located region that no definition changed on both
    /// sides explains (`adjacent changes of price (main) and tax (wt-b)`), and whether
    /// every located region is explained so.
    fn reasons(&self, a: &Checkout<'_>, b: &Checkout<'_>) -> (Vec<String>, bool) {
        let mut out: Vec<String> = Vec::new();
        let mut all_explained = !self.regions.is_empty();
        for r in self.regions {
            let da = innermost(self.sides.0, &r.a);
            let db = innermost(self.sides.1, &r.b);
            let both: Vec<&SymbolChange> = da
                .iter()
                .filter(|x| db.iter().any(|y| x.match_key() == y.match_key()))
                .copied()
                .collect();
            if both.iter().any(|c| self.same.contains(c.match_key())) {
                continue; // the same-symbol forecast names it
            }
            all_explained = false;
            let (la, lb) = (a.label(), b.label());
            let outside = |who: &str, lines: &std::ops::Range<usize>| {
                format!(
                    "{who}'s change outside its definitions ({})",
                    lines_text(lines)
                )
            };
            let clause = match (da.is_empty(), db.is_empty()) {
                // The very same change on both sides (no same-symbol forecast), which git
                // still stops on: the lines around it differ.
                (false, false) if !both.is_empty() => format!(
                    "both made the same change of {}, but not to the same lines around it",
                    names(&both)
                ),
                (false, false) => format!(
                    "adjacent changes of {} ({la}) and {} ({lb})",
                    names(&da),
                    names(&db)
                ),
                (true, false) => format!(
                    "{} next to {lb}'s change of {}",
                    outside(la, &r.a),
                    names(&db)
                ),
                (false, true) => format!(
                    "{la}'s change of {} next to {}",
                    names(&da),
                    outside(lb, &r.b)
                ),
                (true, true) => format!(
                    "both changed the text outside its definitions ({} in {la}, {} in {lb}: \
                     imports, module-level code, lines between definitions)",
                    lines_text(&r.a),
                    lines_text(&r.b)
                ),
            };
            if !out.contains(&clause) {
                out.push(clause);
            }
        }
        (out, all_explained)
    }

    /// The textual forecast, unless what git stops on is only definitions changed on
    /// both sides (the same-symbol forecasts say it) or nothing located and a
    /// same-symbol forecast names the file already.
    fn forecast(&self, a: Checkout<'_>, b: Checkout<'_>, driver: Driver) -> Option<Forecast> {
        let (reasons, explained) = self.reasons(&a, &b);
        if explained || (reasons.is_empty() && !self.same.is_empty()) {
            return None;
        }
        const SHOWN: usize = 3;
        let mut why = reasons
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ");
        if reasons.len() > SHOWN {
            why.push_str(&format!("; and {} more", reasons.len() - SHOWN));
        }
        let n = self.conflicts;
        let although = if self.same.is_empty() && !reasons.is_empty() {
            " although no definition is changed on both sides"
        } else {
            ""
        };
        let mut summary = format!(
            "{}: git would not merge {} and {} cleanly{although} ({n} conflicting hunk{})",
            self.path,
            a.label(),
            b.label(),
            if n == 1 { "" } else { "s" }
        );
        if !why.is_empty() {
            summary.push_str(": ");
            summary.push_str(&why);
        }
        if driver == (Driver::Merges { installed: false }) {
            summary.push_str(" (wit's merge driver would merge it: `wit hook install` sets it up)");
        }
        let paths = vec![self.path.to_owned()];
        let first = |side: usize| {
            self.regions
                .first()
                .map(|r| if side == 0 { r.a.start } else { r.b.start })
        };
        let side = |c: &Checkout<'_>, i: usize| Side {
            checkout: c.id.to_owned(),
            session: c.session.map(str::to_owned),
            symbol_path: self.path.to_owned(),
            change: "modified".into(),
            before: None,
            after: None,
            line: first(i),
        };
        Some(Forecast {
            id: id(Kind::Textual, &a, &b, &paths),
            kind: Kind::Textual,
            summary,
            symbol_paths: paths,
            sides: vec![side(&a, 0), side(&b, 1)],
            chain: Vec::new(),
        })
    }

    /// What `wit conflicts` says of a file the installed driver merges.
    fn driver_merge(&self, a: &Checkout<'_>, b: &Checkout<'_>) -> DriverMerge {
        let (reasons, _) = self.reasons(a, b);
        let why = if reasons.is_empty() {
            String::new()
        } else {
            format!(": {}", reasons.join("; "))
        };
        DriverMerge {
            path: self.path.to_owned(),
            summary: format!(
                "{}: git's line merge would stop on {}'s and {}'s changes{why}; wit's merge \
                 driver, installed for it, merges them definition by definition",
                self.path,
                a.label(),
                b.label()
            ),
        }
    }
}
