//! What the merges git stops on became with wit's driver: files merged, equal to the
//! project's own resolution, left conflicted and why.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::eval::{FileResult, MergeResult};

/// How many examples of each list the report keeps.
const EXAMPLES: usize = 12;

/// Why the driver left a file conflicted, from its line on stderr.
fn why_left(note: Option<&str>) -> Vec<&'static str> {
    let Some(note) = note else {
        return vec!["the driver said nothing"];
    };
    if let Some(reason) = note.strip_prefix("left to git's line merge: ") {
        return vec![
            if reason.contains("has a syntax error at") && reason.starts_with("the ") {
                "a version has a syntax error: git's merge"
            } else if reason.starts_with("merged by definitions, the result") {
                "merged text would not parse: git's merge"
            } else if reason.starts_with("the definitions do not fit") {
                "definitions do not fit together: git's merge"
            } else if reason.contains("bytes, over") {
                "over the size cap: git's merge"
            } else if reason.contains("was not analysed") {
                "not analysed: git's merge"
            } else {
                "other: git's merge"
            },
        ];
    }
    let mut kinds = Vec::new();
    for (needle, kind) in [
        (
            "text outside definitions changed on both sides",
            "text outside definitions changed on both sides",
        ),
        (
            "deleted on one side, changed on the other",
            "a definition deleted on one side, changed on the other",
        ),
        ("added on both sides", "a definition added on both sides"),
    ] {
        if note.contains(needle) {
            kinds.push(kind);
        }
    }
    let both = note
        .split("; ")
        .any(|part| part.ends_with(" changed on both sides") && !part.starts_with("text outside"));
    if both {
        kinds.push("a definition changed on both sides");
    }
    if kinds.is_empty() {
        kinds.push("other");
    }
    kinds
}

/// The whole evaluation of one repository.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The repository evaluated.
    pub repository: String,
    /// Its HEAD.
    pub head: String,
    /// Two-parent merges reachable from HEAD.
    pub merges: usize,
    /// Merges replayed (all, unless `--merges` stopped the run early).
    pub replayed: usize,
    /// Merges git's merge stops on.
    pub conflicted_merges: usize,
    /// Files git left conflicted, over those merges.
    pub conflicted_files: usize,
    /// Of them, conflicts of contents (what a merge driver merges).
    pub content_conflicts: usize,
    /// Of those, in files the driver covers.
    pub covered: usize,
    /// Of those, merged by the driver.
    pub merged: usize,
    /// Of the merged, equal to the merge commit's file (whitespace-normalized).
    pub equal: usize,
    /// Of the merged, byte for byte equal to it.
    pub exact: usize,
    /// Covered content conflicts the driver left conflicted.
    pub left: usize,
    /// Why, per reason (a file may count under several).
    pub left_why: BTreeMap<String, usize>,
    /// In the files left conflicted: conflicting regions git's merge left, and those the
    /// merge with the driver left.
    pub left_regions: (usize, usize),
    /// Merges every conflicted file of which the driver merged.
    pub merges_resolved: usize,
    /// Files git merged cleanly whose result the driver changed (0 expected).
    pub changed_clean: usize,
    /// Merged files that differ from the merge commit's: (merge, path).
    pub differing: Vec<(String, String)>,
    /// Merges that could not be replayed, and why.
    pub failed: Vec<(String, String)>,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Every replayed merge git stops on.
    pub results: Vec<MergeResult>,
}

impl Report {
    /// The report of `results` (the merges git stops on, of `replayed`).
    pub fn new(
        repository: String,
        head: String,
        merges: usize,
        replayed: usize,
        results: Vec<MergeResult>,
        failed: Vec<(String, String)>,
        seconds: f64,
    ) -> Report {
        let all: Vec<(&MergeResult, &FileResult)> = results
            .iter()
            .flat_map(|m| m.files.iter().map(move |f| (m, f)))
            .collect();
        let covered: Vec<&(&MergeResult, &FileResult)> = all
            .iter()
            .filter(|(_, f)| f.contents && f.covered)
            .collect();
        let merged: Vec<_> = covered.iter().filter(|(_, f)| f.merged).collect();
        let mut left_why = BTreeMap::new();
        for (_, f) in covered.iter().filter(|(_, f)| !f.merged) {
            for why in why_left(f.note.as_deref()) {
                *left_why.entry(why.to_owned()).or_insert(0) += 1;
            }
        }
        Report {
            repository,
            head,
            merges,
            replayed,
            conflicted_merges: results.len(),
            conflicted_files: all.len(),
            content_conflicts: all.iter().filter(|(_, f)| f.contents).count(),
            covered: covered.len(),
            merged: merged.len(),
            equal: merged.iter().filter(|(_, f)| f.equal == Some(true)).count(),
            exact: merged.iter().filter(|(_, f)| f.exact == Some(true)).count(),
            left: covered.len() - merged.len(),
            left_regions: covered
                .iter()
                .filter(|(_, f)| !f.merged)
                .filter_map(|(_, f)| f.regions)
                .fold((0, 0), |(g, d), (a, b)| (g + a, d + b)),
            left_why,
            merges_resolved: results
                .iter()
                .filter(|m| m.files.iter().all(|f| f.merged))
                .count(),
            changed_clean: results.iter().map(|m| m.changed_clean.len()).sum(),
            differing: merged
                .iter()
                .filter(|(_, f)| f.equal != Some(true))
                .map(|(m, f)| (m.merge.clone(), f.path.clone()))
                .collect(),
            failed,
            seconds,
            results,
        }
    }

    /// The report for people.
    pub fn table(&self) -> String {
        let pct = |n: usize, of: usize| {
            if of == 0 {
                "n/a".to_owned()
            } else {
                format!("{:.0} %", 100.0 * n as f64 / of as f64)
            }
        };
        let mut s = String::new();
        let _ = writeln!(s, "merge-eval: {} at {}", self.repository, self.head);
        let _ = writeln!(
            s,
            "two-parent merges {} (replayed {}), git stops on {}, in {:.0} s",
            self.merges, self.replayed, self.conflicted_merges, self.seconds
        );
        let _ = writeln!(
            s,
            "files git left conflicted            {}",
            self.conflicted_files
        );
        let _ = writeln!(
            s,
            "  of contents                        {}",
            self.content_conflicts
        );
        let _ = writeln!(s, "  of contents, in covered files      {}", self.covered);
        let _ = writeln!(
            s,
            "merged by the driver                 {} ({} of covered)",
            self.merged,
            pct(self.merged, self.covered)
        );
        let _ = writeln!(
            s,
            "  equal to the project's resolution  {} ({}; byte for byte {})",
            self.equal,
            pct(self.equal, self.merged),
            self.exact
        );
        let _ = writeln!(
            s,
            "left conflicted                      {} (conflicting regions in them: git {}, with the driver {})",
            self.left, self.left_regions.0, self.left_regions.1
        );
        for (why, n) in &self.left_why {
            let _ = writeln!(s, "  {why}: {n}");
        }
        let _ = writeln!(
            s,
            "merges the driver resolved entirely  {} of {}",
            self.merges_resolved, self.conflicted_merges
        );
        let _ = writeln!(
            s,
            "files git merged that the driver changed: {}",
            self.changed_clean
        );
        if !self.differing.is_empty() {
            let _ = writeln!(
                s,
                "merged, differing from the merge commit (first {EXAMPLES}):"
            );
            for (m, p) in self.differing.iter().take(EXAMPLES) {
                let _ = writeln!(s, "  {} {p}", &m[..m.len().min(10)]);
            }
        }
        for (m, e) in self.failed.iter().take(EXAMPLES) {
            let _ = writeln!(s, "not replayed: {} {e}", &m[..m.len().min(10)]);
        }
        s
    }
}
