//! The pairs of changes replayed: real merges of the history, and pairs of nearby commits
//! each applied alone to one base.

use std::collections::BTreeSet;

use anyhow::Result;
use serde::Serialize;

use super::git::Git;

/// Where a pair comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A real merge commit: base = merge-base(p1, p2), A = p1, B = p2.
    Merge,
    /// Two nearby commits C1 (older) and C2 touching a common file: base = C1's parent,
    /// A = C1, B = C2's change cherry-picked onto the base.
    Generated,
}

impl Source {
    /// `merge` or `generated`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Merge => "merge",
            Source::Generated => "generated",
        }
    }
}

/// Two sides' changes against one base, as trees.
#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    /// Where it comes from.
    pub source: Source,
    /// For people: the merge commit, or `C1+C2`.
    pub label: String,
    /// The base commit (a checkout of the pair starts there).
    pub base_commit: String,
    /// The base tree.
    pub base: String,
    /// Side A's tree.
    pub a: String,
    /// Side B's tree.
    pub b: String,
}

/// How far apart (in `git log --topo-order` positions) the two commits of a generated pair
/// may be: close enough that they plausibly were written at the same time.
pub const WINDOW: usize = 5;

/// FNV-1a, 64 bits: a fixed, documented order for sampling (not `DefaultHasher`, whose
/// algorithm may change between Rust releases).
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Up to `total` pairs: half of them merges, the rest (more when the history has few
/// merges) generated, any common file accepted (see [`merges`] and [`generated`]).
pub fn choose(git: &Git, total: usize) -> Result<Chosen> {
    let mut chosen = Chosen::default();
    merges(git, total / 2, &mut chosen)?;
    let rest = total - chosen.pairs.len();
    generated(git, rest, |_| true, &mut chosen)?;
    Ok(chosen)
}

/// Adds up to `cap` pairs from the history's merges to `chosen`. Candidates are taken in
/// the order of a hash of their commit ids: deterministic, and spread over the whole
/// history rather than its newest end. Candidates skipped are counted by reason.
pub fn merges(git: &Git, cap: usize, chosen: &mut Chosen) -> Result<()> {
    let mut merges = git.merges()?;
    chosen.merge_candidates = merges.len();
    merges.sort_by_key(|(m, _, _)| (fnv(m), m.clone()));
    let mut taken = 0;
    for (m, p1, p2) in merges {
        if taken >= cap {
            break;
        }
        let Some(base_commit) = git.merge_base(&p1, &p2)? else {
            chosen.skipped.push("merge: no merge base".into());
            continue;
        };
        let (base, a, b) = (
            git.tree_of(&base_commit)?,
            git.tree_of(&p1)?,
            git.tree_of(&p2)?,
        );
        if base == a || base == b {
            // One side changed nothing (a `--no-ff` merge of a branch with nothing new on
            // the other): nothing could collide.
            chosen.skipped.push("merge: one side unchanged".into());
            continue;
        }
        taken += 1;
        chosen.pairs.push(Pair {
            source: Source::Merge,
            label: format!("merge {}", &m[..12]),
            base_commit,
            base,
            a,
            b,
        });
    }
    Ok(())
}

/// Adds up to `cap` generated pairs to `chosen`: two commits at most [`WINDOW`] apart
/// whose common files (as `git log --name-only` lists them) `accept` takes, in the order
/// of a hash of their ids (see [`merges`]).
pub fn generated(
    git: &Git,
    cap: usize,
    accept: impl Fn(&BTreeSet<String>) -> bool,
    chosen: &mut Chosen,
) -> Result<()> {
    let commits = git.commits_with_files()?;
    // `commits` is newest first: C2 is listed before C1, so C2 is not an ancestor of C1
    // and its change is not in C1's parent already.
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    for (j, c1) in commits.iter().enumerate() {
        for (i, c2) in commits
            .iter()
            .enumerate()
            .take(j)
            .skip(j.saturating_sub(WINDOW))
        {
            let common: BTreeSet<String> = c1.files.intersection(&c2.files).cloned().collect();
            if !common.is_empty() && accept(&common) {
                candidates.push((j, i));
            }
        }
    }
    chosen.generated_candidates = candidates.len();
    candidates.sort_by_key(|&(j, i)| {
        let key = format!("{}{}", commits[j].id, commits[i].id);
        (fnv(&key), key)
    });
    let mut generated = 0;
    for (j, i) in candidates {
        if generated >= cap {
            break;
        }
        match generated_pair(git, &commits[j].id, &commits[j].parent, &commits[i].id)? {
            Ok(pair) => {
                generated += 1;
                chosen.pairs.push(pair);
            }
            Err(why) => chosen.skipped.push(why.into()),
        }
    }
    Ok(())
}

/// The generated pair of commit `c1` (whose parent is `parent`) and `c2`: base = the
/// parent, A = C1, B = C2's change applied to the base; or why there is none.
pub fn generated_pair(
    git: &Git,
    c1: &str,
    parent: &str,
    c2: &str,
) -> Result<std::result::Result<Pair, &'static str>> {
    let base = git.tree_of(parent)?;
    let a = git.tree_of(c1)?;
    let Some(b) = git.cherry_pick_tree(&base, c2)? else {
        return Ok(Err("generated: C2 does not apply onto C1's parent"));
    };
    if base == a || base == b || a == b {
        return Ok(Err("generated: a side empty or both sides equal"));
    }
    Ok(Ok(Pair {
        source: Source::Generated,
        label: format!("{}+{}", &c1[..12.min(c1.len())], &c2[..12.min(c2.len())]),
        base_commit: parent.to_owned(),
        base,
        a,
        b,
    }))
}

/// The pairs chosen, and what was passed over.
#[derive(Debug, Default)]
pub struct Chosen {
    /// The pairs, merges first.
    pub pairs: Vec<Pair>,
    /// Two-parent merges reachable from HEAD.
    pub merge_candidates: usize,
    /// Pairs of commits within [`WINDOW`] touching a common file.
    pub generated_candidates: usize,
    /// One reason per candidate tried and not used.
    pub skipped: Vec<String>,
}
