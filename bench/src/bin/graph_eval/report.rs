//! The report: per repository, recall and precision with their counts, how the oracle's
//! sites were matched to wit's, the time taken, and (with `--misses N`) samples of the
//! missed edges and wrong resolutions grouped by reason, laid out to be read while
//! improving resolution.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::score::{Counts, Finding, Score};

/// Findings of one reason: how many, and evenly spread samples.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// The reason.
    pub reason: String,
    /// Findings with this reason.
    pub count: usize,
    /// Up to N of them, spread over the list (so over files, not the first file's).
    pub samples: Vec<Finding>,
}

/// Groups `findings` by reason, largest group first, with up to `n` samples each; `code`
/// gives the source line of a sample (file, 0-based line).
pub fn groups(findings: &[Finding], n: usize, code: &dyn Fn(&str, usize) -> String) -> Vec<Group> {
    let mut by: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        by.entry(f.reason.as_str()).or_default().push(f);
    }
    let mut out: Vec<Group> = by
        .into_iter()
        .map(|(reason, list)| Group {
            reason: reason.to_owned(),
            count: list.len(),
            samples: spread(list.len(), n)
                .into_iter()
                .map(|i| {
                    let mut f = list[i].clone();
                    f.code = code(&f.file, f.line);
                    f
                })
                .collect(),
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
    out
}

/// `n` indices spread evenly over `0..len` (all of them when `len <= n`).
pub fn spread(len: usize, n: usize) -> Vec<usize> {
    if len <= n {
        return (0..len).collect();
    }
    (0..n).map(|k| k * len / n).collect()
}

/// Seconds spent on one repository.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timing {
    /// Writing HEAD's tree out.
    pub checkout: f64,
    /// Building wit's graph and resolving every site (while the oracles run).
    pub wit: f64,
    /// The oracles, wall clock (started before wit's graph, so overlapping it).
    pub oracles: f64,
    /// Everything.
    pub total: f64,
}

/// One repository's results.
#[derive(Debug, Clone, Serialize)]
pub struct RepoReport {
    /// A short name (`expressjs/express`).
    pub name: String,
    /// The repository as given.
    pub path: String,
    /// HEAD.
    pub head: String,
    /// Files wit indexed.
    pub files: usize,
    /// Files an analyzer covers that wit did not index (size cap, not UTF-8).
    pub not_indexed: usize,
    /// Configuration files given to the graph.
    pub config_files: usize,
    /// The oracles run, with versions (`typescript 5.9.3`, `jedi 0.20.0`).
    pub oracles: Vec<String>,
    /// Oracle output lines that were not sites.
    pub oracle_noise: usize,
    /// The tallies.
    pub counts: Counts,
    /// `counts.edges_right / counts.edges`.
    pub recall: Option<f64>,
    /// `counts.edges_in_file_right / counts.edges_in_file`.
    pub in_file_recall: Option<f64>,
    /// `counts.resolved_agree / counts.resolved_judged`.
    pub precision: Option<f64>,
    /// Seconds.
    pub seconds: Timing,
    /// Missed oracle edges by reason (samples only with `--misses`).
    pub misses: Vec<Group>,
    /// Wrong resolutions by reason.
    pub wrong: Vec<Group>,
    /// wit sites the oracle does not list (a check of the matching and of the oracles'
    /// coverage).
    pub unmatched: Vec<Group>,
    /// Wrong resolutions of sites outside definitions, asked as if inside one.
    pub outside_wrong: Vec<Group>,
    /// Missed edges outside definitions, asked as if inside one.
    pub outside_misses: Vec<Group>,
    /// Resolutions the oracle cannot judge (no answer, or only a type member).
    pub unjudged: Vec<Group>,
}

impl RepoReport {
    /// The report of `score`, with `n` samples per reason.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        path: String,
        head: String,
        (files, not_indexed, config_files): (usize, usize, usize),
        oracles: Vec<String>,
        oracle_noise: usize,
        score: &Score,
        n: usize,
        code: &dyn Fn(&str, usize) -> String,
        seconds: Timing,
    ) -> Self {
        RepoReport {
            name,
            path,
            head,
            files,
            not_indexed,
            config_files,
            oracles,
            oracle_noise,
            counts: score.counts.clone(),
            recall: score.counts.recall(),
            in_file_recall: score.counts.in_file_recall(),
            precision: score.counts.precision(),
            seconds,
            misses: groups(&score.misses, n, code),
            wrong: groups(&score.wrong, n, code),
            unmatched: groups(&score.unmatched, n, code),
            outside_wrong: groups(&score.outside_wrong, n, code),
            outside_misses: groups(&score.outside_misses, n, code),
            unjudged: groups(&score.unjudged, n, code),
        }
    }
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// One entry per repository.
    pub repositories: Vec<RepoReport>,
    /// Samples per reason asked for (`--misses`).
    pub samples: usize,
    /// Seconds for the whole run.
    pub seconds: f64,
}

fn pct(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |x| format!("{:.1} %", x * 100.0))
}

impl Report {
    /// The human-readable report.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "graph-eval: wit's call resolution (Graph::resolve_site) against the TypeScript checker \
             (TS/JS), jedi (Python), javac (Java) and go/types (Go)\n\
             edge = a call inside a definition that the oracle resolves to a function declared in \
             the repository;\n\
             recall = edges wit resolves to the same definition / edges; precision = sites wit \
             resolves that agree / sites wit resolves that the oracle answers\n"
        );
        let _ = writeln!(
            out,
            "{:<20} {:>6} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6}  {:<24} {:<24}",
            "repository",
            "files",
            "edges",
            "right",
            "else",
            "name",
            "unres",
            "nosite",
            "secs",
            "recall",
            "precision"
        );
        for r in &self.repositories {
            let c = &r.counts;
            let _ = writeln!(
                out,
                "{:<20} {:>6} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6.1}  {:<24} {:<24}",
                r.name,
                r.files,
                c.edges,
                c.edges_right,
                c.edges_wrong,
                c.edges_name_only,
                c.edges_unresolved,
                c.edges_no_site,
                r.seconds.total,
                format!("{} ({}/{})", pct(r.recall), c.edges_right, c.edges),
                format!(
                    "{} ({}/{})",
                    pct(r.precision),
                    c.resolved_agree,
                    c.resolved_judged
                ),
            );
        }
        let _ = writeln!(
            out,
            "\n(edges: right = resolved to the oracle's definition, else = resolved elsewhere, \
             name = name-only, unres = unresolved, nosite = no wit call site)\nrun: {:.1} s",
            self.seconds
        );
        for r in &self.repositories {
            let c = &r.counts;
            let _ = writeln!(
                out,
                "\n== {} ({}) at {}, oracles: {}",
                r.name,
                r.path,
                &r.head[..r.head.len().min(12)],
                r.oracles.join(", ")
            );
            let _ = writeln!(
                out,
                "   files: {} indexed, {} not indexed, {} configuration files; \
                 {:.1} s (checkout {:.1}, wit {:.1}, oracles {:.1} alongside)",
                r.files,
                r.not_indexed,
                r.config_files,
                r.seconds.total,
                r.seconds.checkout,
                r.seconds.wit,
                r.seconds.oracles
            );
            let _ = writeln!(
                out,
                "   oracle sites: {} ({} constructor calls left out; {} outside any definition, \
                 {} of them edges, not counted); matched {} on their line + {} to the site wit \
                 kept in their place; {} inside a definition without a wit site",
                c.oracle_sites,
                c.constructors,
                c.outside,
                c.outside_edges,
                c.direct,
                c.dedup,
                c.no_site
            );
            let _ = writeln!(
                out,
                "   wit on matched sites: {} resolved ({} judged, {} the oracle cannot answer, \
                 {} where it names only a type member), \
                 {} name-only, {} unresolved; edges name-only to the right definition: {}; \
                 wit sites the oracle does not list: {} of {}{}",
                c.resolved,
                c.resolved_judged,
                c.resolved_no_answer,
                c.resolved_type_member,
                c.name_only,
                c.unresolved,
                c.edges_name_only_right,
                c.wit_unmatched,
                c.wit_sites,
                if r.oracle_noise > 0 {
                    format!("; {} oracle output lines were not sites", r.oracle_noise)
                } else {
                    String::new()
                }
            );
            let _ = writeln!(
                out,
                "   edges within a file: {}, resolved to the oracle's definition {}: recall {}",
                c.edges_in_file,
                c.edges_in_file_right,
                pct(r.in_file_recall),
            );
            let _ = writeln!(
                out,
                "   outside definitions, resolved as if inside one (wit keeps no such edge): \
                 recall {} ({}/{}), precision {} ({}/{})",
                pct(c.outside_recall()),
                c.outside_right,
                c.outside_edges,
                pct(c.outside_precision()),
                c.outside_agree,
                c.outside_judged
            );
            if self.samples == 0 {
                continue;
            }
            section(&mut out, "missed edges", &r.misses);
            section(&mut out, "wrong resolutions", &r.wrong);
            section(
                &mut out,
                "resolutions the oracle cannot judge (not in precision)",
                &r.unjudged,
            );
            section(&mut out, "wit sites the oracle does not list", &r.unmatched);
            section(
                &mut out,
                "missed edges outside definitions (asked as if inside one)",
                &r.outside_misses,
            );
            section(
                &mut out,
                "wrong resolutions outside definitions (asked as if inside one)",
                &r.outside_wrong,
            );
        }
        out
    }
}

/// One list of groups with their samples (lines 1-based, as editors count).
fn section(out: &mut String, title: &str, groups: &[Group]) {
    let total: usize = groups.iter().map(|g| g.count).sum();
    let _ = writeln!(out, "\n   -- {title}: {total}");
    for g in groups {
        let _ = writeln!(out, "   [{}] {}", g.count, g.reason);
        for f in &g.samples {
            let _ = writeln!(
                out,
                "     {}:{}  {}{}(…)   in {}",
                f.file,
                f.line + 1,
                f.receiver.as_deref().map_or(String::new(), |r| format!(
                    "{}.",
                    if r.is_empty() { "<expr>" } else { r }
                )),
                f.callee,
                f.caller.as_deref().unwrap_or("?"),
            );
            if !f.code.is_empty() {
                let _ = writeln!(out, "         | {}", f.code);
            }
            if let Some(t) = &f.oracle {
                let _ = writeln!(
                    out,
                    "         oracle: {}:{} (line {}, {}{})",
                    t.file,
                    t.name,
                    t.line + 1,
                    t.kind,
                    if t.external { ", external" } else { "" }
                );
            }
            if let Some(w) = &f.wit {
                let _ = writeln!(out, "         wit:    {w}");
            }
        }
    }
}
