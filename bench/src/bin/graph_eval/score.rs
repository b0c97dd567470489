//! Scoring, pure: the oracle's call sites matched to wit's, recall and precision counted,
//! and every miss and wrong resolution kept with a reason.
//!
//! Matching. wit's analyzer keeps one call site per (calling definition, callee,
//! receiver), at its first position, and none outside a definition; the oracles list every
//! call. An oracle site is matched (1) to a wit site on the same (file, line, callee),
//! as multisets, equal receivers paired first ("direct"); else (2) to the wit site an
//! earlier oracle site of the same innermost definition, callee and receiver text was
//! matched to (the analyzer spells some receivers otherwise than the source: a local of
//! evident class as `new:Class`, one of unknown class as `""`, so the text alone cannot
//! pair them); else (3) to the earlier wit site the analyzer kept in its place: same
//! callee and receiver, its caller a definition whose scope holds the oracle site, the
//! innermost such ("dedup"; resolution depends only on caller, callee and receiver, so
//! the kept site's answer is the answer for this one).
//! An oracle site inside no callable definition is "outside": wit records no edge there by
//! design, so it counts neither way. One inside a definition without a wit site is a miss
//! of wit's analyzer ("no wit call site").

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use wit_graph::Resolution;

use crate::oracle::{OracleSite, OracleTarget};
use crate::wit_side::{WitFile, WitSite, WitTarget};

/// The tallies of one repository.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Call sites the oracle listed in indexed files.
    pub oracle_sites: usize,
    /// Of them, classes called as constructors (Python): left out of everything below.
    pub constructors: usize,
    /// Oracle sites outside every callable definition (module level, class bodies,
    /// decorators of top-level definitions): wit keeps no edge for them.
    pub outside: usize,
    /// Of those, oracle edges (not in `edges`).
    pub outside_edges: usize,
    /// Outside edges the graph resolves to the oracle's definition when asked as if the
    /// call were in a definition (a secondary recall: wit keeps no such edge).
    pub outside_right: usize,
    /// Outside sites the graph resolves, asked so, that the oracle answers.
    pub outside_judged: usize,
    /// Of them, those that agree (a secondary precision).
    pub outside_agree: usize,
    /// Oracle sites matched to a wit site on their own line.
    pub direct: usize,
    /// Oracle sites matched to the earlier wit site the analyzer kept in their place.
    pub dedup: usize,
    /// Oracle sites inside a definition with no wit site.
    pub no_site: usize,
    /// wit's call sites in the files.
    pub wit_sites: usize,
    /// Of them, those no oracle site matched on their line.
    pub wit_unmatched: usize,

    /// Oracle edges inside definitions: sites the oracle resolves to a function declared
    /// in the repository. Recall's denominator.
    pub edges: usize,
    /// Of them, resolved by wit to the same definition. Recall's numerator.
    pub edges_right: usize,
    /// Resolved by wit to another definition.
    pub edges_wrong: usize,
    /// Name-only in wit.
    pub edges_name_only: usize,
    /// Name-only in wit, to the right definition.
    pub edges_name_only_right: usize,
    /// Unresolved in wit.
    pub edges_unresolved: usize,
    /// Without a wit call site.
    pub edges_no_site: usize,
    /// Edges to a definition of the caller's own file (the measure of calls within a
    /// file, which needs no module resolution: Java's and Go's scoping rules alone).
    pub edges_in_file: usize,
    /// Of them, resolved by wit to the same definition.
    pub edges_in_file_right: usize,

    /// Matched sites wit resolved.
    pub resolved: usize,
    /// Of them, sites the oracle has no answer for (out of precision).
    pub resolved_no_answer: usize,
    /// Of them, sites where the oracle names only a member of an interface or type
    /// literal of the repository (out of precision: see [`type_member`]).
    pub resolved_type_member: usize,
    /// Sites wit resolved and the oracle answered. Precision's denominator.
    pub resolved_judged: usize,
    /// Of them, where wit's definition is the oracle's. Precision's numerator.
    pub resolved_agree: usize,
    /// Matched sites wit found by name only.
    pub name_only: usize,
    /// Matched sites wit left unresolved.
    pub unresolved: usize,
}

impl Counts {
    /// `edges_right / edges`, when there are edges.
    pub fn recall(&self) -> Option<f64> {
        ratio(self.edges_right, self.edges)
    }

    /// `edges_in_file_right / edges_in_file`, when there are such edges.
    pub fn in_file_recall(&self) -> Option<f64> {
        ratio(self.edges_in_file_right, self.edges_in_file)
    }

    /// `resolved_agree / resolved_judged`, when wit resolved any judged site.
    pub fn precision(&self) -> Option<f64> {
        ratio(self.resolved_agree, self.resolved_judged)
    }

    /// `outside_right / outside_edges`.
    pub fn outside_recall(&self) -> Option<f64> {
        ratio(self.outside_right, self.outside_edges)
    }

    /// `outside_agree / outside_judged`.
    pub fn outside_precision(&self) -> Option<f64> {
        ratio(self.outside_agree, self.outside_judged)
    }
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

/// A miss, a wrong resolution, or a wit site the oracle does not list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Why (see [`MissReason`], [`wrong_reason`]).
    pub reason: String,
    /// The calling file.
    pub file: String,
    /// 0-based line of the call.
    pub line: usize,
    /// The called name.
    pub callee: String,
    /// The receiver (`None` for a plain call).
    pub receiver: Option<String>,
    /// wit's calling definition, when wit has the site.
    pub caller: Option<String>,
    /// The oracle's answer.
    pub oracle: Option<OracleTarget>,
    /// wit's answer: `resolved file:name`, `name-only file:name` or `unresolved`.
    pub wit: Option<String>,
    /// The source line of the call (filled by the caller of [`score`]).
    pub code: String,
}

/// Why an oracle edge was missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissReason {
    /// wit's analyzer has no site for the call.
    NoSite,
    /// wit left it unresolved.
    Unresolved,
    /// wit found the right definition, by name only.
    NameOnlyRight,
    /// wit guessed another definition by name.
    NameOnlyOther,
    /// wit resolved it to another definition.
    Elsewhere,
}

impl MissReason {
    /// The reason as the report groups it.
    pub fn as_str(self) -> &'static str {
        match self {
            MissReason::NoSite => "no wit call site (inside a definition)",
            MissReason::Unresolved => "unresolved",
            MissReason::NameOnlyRight => "name-only, the right definition",
            MissReason::NameOnlyOther => "name-only, another definition",
            MissReason::Elsewhere => "resolved elsewhere",
        }
    }
}

/// Why an oracle edge that wit answered with `resolution` (agreeing or not) is a miss;
/// `None` when it is not.
fn miss_reason(resolution: Resolution, agree: bool) -> Option<MissReason> {
    match resolution {
        Resolution::Resolved if agree => None,
        Resolution::Resolved => Some(MissReason::Elsewhere),
        Resolution::NameOnly if agree => Some(MissReason::NameOnlyRight),
        Resolution::NameOnly => Some(MissReason::NameOnlyOther),
        Resolution::Unresolved => Some(MissReason::Unresolved),
    }
}

/// Why wit's resolution disagrees with the oracle's answer `t`: grouped by what the
/// oracle says the name is.
pub fn wrong_reason(t: &OracleTarget) -> String {
    if t.external {
        "oracle: outside the repository (runtime, stdlib, dependency)".to_owned()
    } else if t.function {
        "oracle: another in-repo function".to_owned()
    } else {
        format!("oracle: in-repo non-function ({})", t.kind)
    }
}

/// Whether the oracle's answer is only a member of an interface or type literal declared
/// in the repository (`MethodSignature`, `PropertySignature`; Java's and Go's
/// `interface-method`): the receiver's declared type, not code. The checker cannot say
/// which implementation runs (`ky.create` is typed `KyInstance.create` and implemented by
/// an assignment in a factory), so a wit resolution to an implementation can be neither
/// confirmed nor refuted: such sites are kept out of precision and listed apart.
pub fn type_member(t: &OracleTarget) -> bool {
    !t.external
        && matches!(
            t.kind.as_str(),
            "MethodSignature" | "PropertySignature" | "interface-method"
        )
}

/// The reason of a resolution the oracle cannot judge.
fn unjudged_reason(t: &OracleTarget) -> String {
    format!(
        "oracle names only a type member ({}); implementation unknown to it",
        t.kind
    )
}

/// The score of one repository.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Score {
    /// Tallies.
    pub counts: Counts,
    /// Every missed oracle edge.
    pub misses: Vec<Finding>,
    /// Every wit resolution the oracle contradicts.
    pub wrong: Vec<Finding>,
    /// Every wit site no oracle site matched on its line.
    pub unmatched: Vec<Finding>,
    /// Sites outside definitions that the graph, asked as if they were inside one,
    /// resolves against the oracle's answer.
    pub outside_wrong: Vec<Finding>,
    /// Oracle edges outside definitions that the graph, asked so, does not resolve to
    /// the oracle's definition.
    pub outside_misses: Vec<Finding>,
    /// Sites inside definitions that wit resolved and the oracle cannot judge: it has no
    /// answer, or names only a type member (see [`type_member`]).
    pub unjudged: Vec<Finding>,
}

/// How one oracle site was matched to wit's sites of its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// The wit site (index) on the same line.
    Direct(usize),
    /// The earlier wit site (index) kept in its place.
    Dedup(usize),
    /// Inside a definition, no wit site.
    NoSite,
    /// Outside every callable definition.
    Outside,
}

/// Whether wit's definition `w` is the oracle's `o`: same file, and the address (without a
/// `#kind`/`#N` qualifier) equal to the oracle's qualified name, or else the same last
/// name segment with the oracle's declaration (or name) line inside wit's definition.
/// Never for a conversion.
pub fn agrees(w: &WitTarget, o: &OracleTarget) -> bool {
    // A Go conversion `T(x)` names a type, and is no call: wit resolving it to the type
    // is wrong however right the type (a lock on `T` must not warn of it as a caller).
    if o.external || w.file != o.file || o.kind == "conversion" {
        return false;
    }
    let address = wit_core::analysis::split_qualifier(&w.name).0;
    if address == o.name {
        return true;
    }
    let within = |line: usize| w.lines.0 <= line && line <= w.lines.1;
    last_segment(address) == last_segment(&o.name) && (within(o.line) || within(o.name_line))
}

fn last_segment(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Matches the oracle sites of one file (`sites`, any order) to the file's wit sites.
/// Returns each site's match and, for each wit site, whether a site matched it directly.
pub fn match_file(sites: &[&OracleSite], wit: &WitFile) -> (Vec<Match>, Vec<bool>) {
    let mut at: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    for (i, w) in wit.sites.iter().enumerate() {
        at.entry((w.line, w.callee.as_str())).or_default().push(i);
    }
    let mut order: Vec<usize> = (0..sites.len()).collect();
    order.sort_by_key(|&i| (sites[i].line, sites[i].byte));
    let mut found: Vec<Option<Match>> = vec![None; sites.len()];
    let mut used = vec![false; wit.sites.len()];
    // Equal receivers first, so that `a.f(b.f())` pairs each call with its own site.
    for same_receiver in [true, false] {
        for &o in &order {
            if found[o].is_some() {
                continue;
            }
            let s = sites[o];
            let Some(candidates) = at.get(&(s.line, s.callee.as_str())) else {
                continue;
            };
            if let Some(&w) = candidates
                .iter()
                .find(|&&w| !used[w] && (!same_receiver || wit.sites[w].receiver == s.receiver))
            {
                used[w] = true;
                found[o] = Some(Match::Direct(w));
            }
        }
    }
    // Source order: the first call of a (definition, callee, receiver) is the one the
    // analyzer kept, and the later ones follow its match.
    let mut first: HashMap<CallKey<'_>, usize> = HashMap::new();
    for &o in &order {
        let s = sites[o];
        let key = (innermost(s, wit), s.callee.as_str(), s.receiver.as_deref());
        let m = match found[o] {
            Some(m) => m,
            None => match first.get(&key) {
                Some(&w) => Match::Dedup(w),
                None => kept_in_place(s, wit),
            },
        };
        if let Match::Direct(w) | Match::Dedup(w) = m {
            first.entry(key).or_insert(w);
        }
        found[o] = Some(m);
    }
    let matches = found
        .into_iter()
        .map(|m| m.unwrap_or(Match::NoSite))
        .collect();
    (matches, used)
}

/// An oracle call's innermost definition (its scope), callee and receiver text.
type CallKey<'a> = (Option<(usize, usize)>, &'a str, Option<&'a str>);

/// The scope of the innermost callable definition of wit's holding `s`.
fn innermost(s: &OracleSite, wit: &WitFile) -> Option<(usize, usize)> {
    wit.callables
        .iter()
        .map(|c| c.scope)
        .filter(|&(start, end)| start <= s.byte && s.byte < end)
        .min_by_key(|&(start, end)| end - start)
}

/// The wit site the analyzer kept in place of `s` (see the module docs), or why none.
fn kept_in_place(s: &OracleSite, wit: &WitFile) -> Match {
    let owners: Vec<(&str, usize)> = wit
        .callables
        .iter()
        .filter(|c| c.scope.0 <= s.byte && s.byte < c.scope.1)
        .map(|c| (c.name.as_str(), c.scope.1 - c.scope.0))
        .collect();
    if owners.is_empty() {
        return Match::Outside;
    }
    wit.sites
        .iter()
        .enumerate()
        .filter(|(_, w)| w.callee == s.callee && same_receiver(w, s) && w.line <= s.line)
        .filter_map(|(i, w)| {
            let span = owners
                .iter()
                .filter(|(name, _)| *name == w.caller)
                .map(|(_, span)| *span)
                .min()?;
            // Innermost caller first, then the nearest earlier site.
            Some((span, std::cmp::Reverse(w.line), i))
        })
        .min()
        .map_or(Match::NoSite, |(_, _, i)| Match::Dedup(i))
}

/// Whether wit's site `w` can stand for the oracle's `s` by receiver: the same text, or a
/// local the analyzer reported by its evident class (`doc` as `new:Doc`: the first
/// `doc.write()` of a function is kept, and so stands for the others) or as one of
/// unknown class (`""`: every local of unknown class calling that name in the function
/// is one site).
fn same_receiver(w: &WitSite, s: &OracleSite) -> bool {
    let local = s.receiver.as_deref().is_some_and(|r| {
        !r.is_empty()
            && r.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '#')
    });
    w.receiver == s.receiver
        || (local
            && w.receiver
                .as_deref()
                .is_some_and(|r| r.starts_with("new:") || r.is_empty()))
}

/// How the graph resolves an oracle site wit keeps no site for (outside definitions).
pub type AsIf<'a> = &'a dyn Fn(&OracleSite) -> (Resolution, Option<WitTarget>);

/// Scores `oracle`'s sites against wit's `files`; `as_if` answers for the sites outside
/// definitions (the secondary figures). Oracle sites of files wit did not index are
/// ignored (the oracles are only given indexed files).
pub fn score(oracle: &[OracleSite], files: &BTreeMap<String, WitFile>, as_if: AsIf<'_>) -> Score {
    let mut by_file: BTreeMap<&str, Vec<&OracleSite>> = BTreeMap::new();
    for s in oracle {
        by_file.entry(s.file.as_str()).or_default().push(s);
    }
    let mut score = Score::default();
    for (file, wf) in files {
        score.counts.wit_sites += wf.sites.len();
        let sites = by_file.remove(file.as_str()).unwrap_or_default();
        let (matches, used) = match_file(&sites, wf);
        for (s, m) in sites.iter().zip(matches) {
            tally(&mut score, s, m, wf, as_if);
        }
        for (w, _) in wf.sites.iter().zip(&used).filter(|(_, u)| !**u) {
            score.counts.wit_unmatched += 1;
            score.unmatched.push(Finding {
                reason: "wit site the oracle does not list".to_owned(),
                file: file.clone(),
                line: w.line,
                callee: w.callee.clone(),
                receiver: w.receiver.clone(),
                caller: Some(w.caller.clone()),
                oracle: None,
                wit: Some(describe_wit(w.resolution, w.target.as_ref())),
                code: String::new(),
            });
        }
    }
    score
}

/// `resolved file:name`, `name-only file:name`, `unresolved`.
pub fn describe_wit(resolution: Resolution, target: Option<&WitTarget>) -> String {
    match target {
        Some(t) => format!("{} {}:{}", resolution.as_str(), t.file, t.name),
        None => resolution.as_str().to_owned(),
    }
}

/// Counts one oracle site with its match.
fn tally(score: &mut Score, s: &OracleSite, m: Match, wf: &WitFile, as_if: AsIf<'_>) {
    let c = &mut score.counts;
    c.oracle_sites += 1;
    if s.constructor {
        c.constructors += 1;
        return;
    }
    let is_edge = s.target.as_ref().is_some_and(|t| !t.external && t.function);
    let finding = |reason: &str, w: Option<&crate::wit_side::WitSite>| Finding {
        reason: reason.to_owned(),
        file: s.file.clone(),
        line: s.line,
        callee: s.callee.clone(),
        receiver: s.receiver.clone(),
        caller: w.map(|w| w.caller.clone()),
        oracle: s.target.clone(),
        wit: w.map(|w| describe_wit(w.resolution, w.target.as_ref())),
        code: String::new(),
    };
    let w = match m {
        Match::Outside => {
            c.outside += 1;
            c.outside_edges += usize::from(is_edge);
            let (resolution, wt) = as_if(s);
            let agree = match (&wt, &s.target) {
                (Some(wt), Some(t)) => agrees(wt, t),
                _ => false,
            };
            let with_wit = |mut f: Finding| {
                f.wit = Some(describe_wit(resolution, wt.as_ref()));
                f
            };
            if is_edge {
                match miss_reason(resolution, agree) {
                    None => c.outside_right += 1,
                    Some(reason) => score
                        .outside_misses
                        .push(with_wit(finding(reason.as_str(), None))),
                }
            }
            if resolution == Resolution::Resolved
                && let Some(t) = s.target.as_ref().filter(|t| !type_member(t))
            {
                c.outside_judged += 1;
                c.outside_agree += usize::from(agree);
                if !agree {
                    score
                        .outside_wrong
                        .push(with_wit(finding(&wrong_reason(t), None)));
                }
            }
            return;
        }
        Match::NoSite => {
            c.no_site += 1;
            if is_edge {
                c.edges += 1;
                c.edges_in_file += usize::from(s.target.as_ref().is_some_and(|t| t.file == s.file));
                c.edges_no_site += 1;
                score
                    .misses
                    .push(finding(MissReason::NoSite.as_str(), None));
            }
            return;
        }
        Match::Direct(w) => {
            c.direct += 1;
            &wf.sites[w]
        }
        Match::Dedup(w) => {
            c.dedup += 1;
            &wf.sites[w]
        }
    };
    let agree = match (&w.target, &s.target) {
        (Some(wt), Some(ot)) => agrees(wt, ot),
        _ => false,
    };
    if is_edge {
        c.edges += 1;
        if s.target.as_ref().is_some_and(|t| t.file == s.file) {
            c.edges_in_file += 1;
            c.edges_in_file_right += usize::from(w.resolution == Resolution::Resolved && agree);
        }
        match w.resolution {
            Resolution::Resolved if agree => c.edges_right += 1,
            Resolution::Resolved => c.edges_wrong += 1,
            Resolution::NameOnly => {
                c.edges_name_only += 1;
                c.edges_name_only_right += usize::from(agree);
            }
            Resolution::Unresolved => c.edges_unresolved += 1,
        }
        if let Some(reason) = miss_reason(w.resolution, agree) {
            score.misses.push(finding(reason.as_str(), Some(w)));
        }
    }
    match w.resolution {
        Resolution::Resolved => {
            c.resolved += 1;
            match &s.target {
                None => {
                    c.resolved_no_answer += 1;
                    score.unjudged.push(finding(
                        "oracle has no answer (no symbol or declaration)",
                        Some(w),
                    ));
                }
                Some(t) if type_member(t) && !agree => {
                    c.resolved_type_member += 1;
                    score.unjudged.push(finding(&unjudged_reason(t), Some(w)));
                }
                Some(t) => {
                    c.resolved_judged += 1;
                    if agree {
                        c.resolved_agree += 1;
                    } else {
                        score.wrong.push(finding(&wrong_reason(t), Some(w)));
                    }
                }
            }
        }
        Resolution::NameOnly => c.name_only += 1,
        Resolution::Unresolved => c.unresolved += 1,
    }
}
