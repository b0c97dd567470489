//! Precision and recall of the forecast against git's merge, per source and overall, at
//! the pair and the file level, by forecast kind; with the signature-vs-callers forecasts
//! and the missed conflicts laid out for a reader.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;
use wit_forecast::Kind;

use crate::eval::PairResult;

/// The kinds in report order.
const KINDS: [Kind; 3] = [Kind::SameSymbol, Kind::SignatureVsCallers, Kind::Textual];

/// How many examples of each list the report keeps.
const EXAMPLES: usize = 10;

/// `hit / of`, or `None` when `of` is zero (the measure is undefined, not zero).
fn ratio(hit: usize, of: usize) -> Option<f64> {
    (of > 0).then(|| hit as f64 / of as f64)
}

/// True and false positives of one forecast (or one kind of forecast), and the truth's
/// size: enough for precision and recall.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Score {
    /// Flagged (pairs, or files).
    pub flagged: usize,
    /// Flagged and conflicted by git.
    pub hits: usize,
    /// Conflicted by git.
    pub truth: usize,
    /// hits / flagged.
    pub precision: Option<f64>,
    /// hits / truth.
    pub recall: Option<f64>,
}

impl Score {
    fn add(&mut self, flagged: bool, truth: bool) {
        self.flagged += usize::from(flagged);
        self.hits += usize::from(flagged && truth);
        self.truth += usize::from(truth);
    }

    fn finish(&mut self) {
        self.precision = ratio(self.hits, self.flagged);
        self.recall = ratio(self.hits, self.truth);
    }
}

/// The figures of one set of pairs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Figures {
    /// Pairs replayed.
    pub pairs: usize,
    /// A pair is flagged when any forecast exists, conflicted when git's merge leaves at
    /// least one conflicted file.
    pub pair: Score,
    /// The same with signature-vs-callers forecasts left out: only the kinds git's merge
    /// can confirm.
    pub pair_git_visible: Score,
    /// A file is flagged when a forecast's `symbol_paths` name it; each pair's files count
    /// separately.
    pub file: Score,
    /// The two symbol kinds (same-symbol, signature-vs-callers) against git's conflicts
    /// in files an analyzer covers: a pair is conflicted when one of those is, and
    /// flagged when a symbol forecast exists. Textual forecasts run git's own merge on
    /// the files no analyzer covers, so they agree with git by construction; this row
    /// leaves them out.
    pub pair_symbols: Score,
    /// The same at the file level.
    pub file_symbols: Score,
    /// Pair and file scores of each kind alone (its recall: the share of git's conflicts
    /// that kind alone names).
    pub by_kind: BTreeMap<String, KindFigures>,
}

/// One kind's figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct KindFigures {
    /// Forecasts of the kind.
    pub forecasts: usize,
    /// Pairs flagged by the kind.
    pub pair: Score,
    /// Files flagged by the kind.
    pub file: Score,
}

impl Figures {
    fn of<'a>(results: impl Iterator<Item = &'a PairResult>) -> Figures {
        let mut f = Figures::default();
        for k in KINDS {
            f.by_kind.insert(k.as_str().into(), KindFigures::default());
        }
        for r in results {
            f.pairs += 1;
            let conflict = !r.truth.is_empty();
            let truth: BTreeSet<&str> = r.truth.iter().map(String::as_str).collect();
            f.pair.add(!r.forecasts.is_empty(), conflict);
            f.pair_git_visible.add(
                r.forecasts
                    .iter()
                    .any(|b| b.kind != Kind::SignatureVsCallers),
                conflict,
            );
            let flagged: BTreeSet<&str> = r
                .forecasts
                .iter()
                .flat_map(|b| b.files.iter().map(String::as_str))
                .collect();
            count_files(&mut f.file, &flagged, &truth);
            let symbol_kinds: Vec<_> = r
                .forecasts
                .iter()
                .filter(|b| b.kind != Kind::Textual)
                .collect();
            let analysed: BTreeSet<&str> = r.truth_analysed.iter().map(String::as_str).collect();
            f.pair_symbols
                .add(!symbol_kinds.is_empty(), !analysed.is_empty());
            let files: BTreeSet<&str> = symbol_kinds
                .iter()
                .flat_map(|b| b.files.iter().map(String::as_str))
                .collect();
            count_files(&mut f.file_symbols, &files, &analysed);
            for k in KINDS {
                let of_kind: Vec<_> = r.forecasts.iter().filter(|b| b.kind == k).collect();
                let kf = f.by_kind.get_mut(k.as_str()).expect("every kind");
                kf.forecasts += of_kind.len();
                kf.pair.add(!of_kind.is_empty(), conflict);
                let files: BTreeSet<&str> = of_kind
                    .iter()
                    .flat_map(|b| b.files.iter().map(String::as_str))
                    .collect();
                count_files(&mut kf.file, &files, &truth);
            }
        }
        for s in [
            &mut f.pair,
            &mut f.pair_git_visible,
            &mut f.file,
            &mut f.pair_symbols,
            &mut f.file_symbols,
        ] {
            s.finish();
        }
        for kf in f.by_kind.values_mut() {
            kf.pair.finish();
            kf.file.finish();
        }
        f
    }
}

fn count_files(score: &mut Score, flagged: &BTreeSet<&str>, truth: &BTreeSet<&str>) {
    score.flagged += flagged.len();
    score.hits += flagged.intersection(truth).count();
    score.truth += truth.len();
}

/// Up to [`EXAMPLES`] of `groups` (one group per pair), the first of each pair first:
/// one large pair should not fill the list alone.
fn spread(groups: Vec<Vec<Example>>) -> Vec<Example> {
    let mut iters: Vec<_> = groups.into_iter().map(Vec::into_iter).collect();
    let mut out = Vec::new();
    while out.len() < EXAMPLES {
        let before = out.len();
        for it in &mut iters {
            if out.len() < EXAMPLES {
                out.extend(it.next());
            }
        }
        if out.len() == before {
            break;
        }
    }
    out
}

/// A forecast shown for a reader to judge.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    /// The pair.
    pub pair: String,
    /// The forecast's sentence, or the missed file.
    pub text: String,
    /// For a signature-vs-callers forecast: whether git's merge of the pair conflicts at
    /// all; for a miss: git's conflict types and the reason.
    pub note: String,
}

/// The whole evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The repository given.
    pub repository: String,
    /// Its HEAD commit when it was read.
    pub head: String,
    /// `--pairs`.
    pub pairs_requested: usize,
    /// Two-parent merges reachable from HEAD.
    pub merge_candidates: usize,
    /// Pairs of non-merge commits at most `WINDOW` apart touching a common file.
    pub generated_candidates: usize,
    /// Candidates tried and not used, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Pairs whose replay failed (git errors), with the error.
    pub failed: Vec<(String, String)>,
    /// All pairs.
    pub overall: Figures,
    /// By source (`merge`, `generated`).
    pub by_source: BTreeMap<String, Figures>,
    /// Signature-vs-callers forecasts (git's merge cannot see these).
    pub signature_vs_callers: usize,
    /// Of them, in pairs git merges cleanly.
    pub signature_vs_callers_in_clean_pairs: usize,
    /// Up to ten of them.
    pub signature_vs_callers_examples: Vec<Example>,
    /// Conflicted files no forecast names.
    pub missed_files: usize,
    /// By reason.
    pub missed_by_reason: BTreeMap<String, usize>,
    /// By git's conflict type.
    pub missed_by_git_type: BTreeMap<String, usize>,
    /// Up to ten of them.
    pub missed_examples: Vec<Example>,
    /// Wall-clock seconds of the replay (pair selection included).
    pub seconds: f64,
    /// Every pair's result.
    pub pairs: Vec<PairResult>,
}

impl Report {
    /// The report of `results`.
    pub fn new(
        repository: String,
        head: String,
        pairs_requested: usize,
        chosen: &wit_bench::history::pairs::Chosen,
        results: Vec<PairResult>,
        failed: Vec<(String, String)>,
        seconds: f64,
    ) -> Report {
        let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
        for s in &chosen.skipped {
            *skipped.entry(s.clone()).or_default() += 1;
        }
        let mut by_source = BTreeMap::new();
        for source in [
            wit_bench::history::pairs::Source::Merge,
            wit_bench::history::pairs::Source::Generated,
        ] {
            by_source.insert(
                source.as_str().to_owned(),
                Figures::of(results.iter().filter(|r| r.source == source)),
            );
        }
        let mut svc = 0;
        let mut svc_clean = 0;
        let mut svc_examples = Vec::new();
        let mut missed_files = 0;
        let mut missed_by_reason: BTreeMap<String, usize> = BTreeMap::new();
        let mut missed_by_git_type: BTreeMap<String, usize> = BTreeMap::new();
        let mut missed_examples = Vec::new();
        for r in &results {
            let mut svc_of_pair = Vec::new();
            let mut missed_of_pair = Vec::new();
            for b in r
                .forecasts
                .iter()
                .filter(|b| b.kind == Kind::SignatureVsCallers)
            {
                svc += 1;
                svc_clean += usize::from(r.truth.is_empty());
                svc_of_pair.push(Example {
                    pair: r.label.clone(),
                    text: b.summary.clone(),
                    note: if r.truth.is_empty() {
                        "git merges the pair cleanly".into()
                    } else {
                        format!("git conflicts on {}", r.truth.join(", "))
                    },
                });
            }
            svc_examples.push(svc_of_pair);
            for m in &r.missed {
                missed_files += 1;
                *missed_by_reason.entry(m.reason.clone()).or_default() += 1;
                *missed_by_git_type
                    .entry(if m.git_types.is_empty() {
                        "(no message)".into()
                    } else {
                        m.git_types.join(", ")
                    })
                    .or_default() += 1;
                missed_of_pair.push(Example {
                    pair: r.label.clone(),
                    text: m.file.clone(),
                    note: format!("git: {}; {}", m.git_types.join(", "), m.reason),
                });
            }
            missed_examples.push(missed_of_pair);
        }
        Report {
            repository,
            head,
            pairs_requested,
            merge_candidates: chosen.merge_candidates,
            generated_candidates: chosen.generated_candidates,
            skipped,
            failed,
            overall: Figures::of(results.iter()),
            by_source,
            signature_vs_callers: svc,
            signature_vs_callers_in_clean_pairs: svc_clean,
            signature_vs_callers_examples: spread(svc_examples),
            missed_files,
            missed_by_reason,
            missed_by_git_type,
            missed_examples: spread(missed_examples),
            seconds,
            pairs: results,
        }
    }

    /// The report as a table for people.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let pct = |x: Option<f64>| x.map_or("   n/a".into(), |x| format!("{:5.1}%", x * 100.0));
        let _ = writeln!(
            out,
            "forecast-eval: {} at {}\n{} pairs requested; candidates: {} merges, {} generated; replayed in {:.1} s",
            self.repository,
            &self.head[..self.head.len().min(12)],
            self.pairs_requested,
            self.merge_candidates,
            self.generated_candidates,
            self.seconds
        );
        for (reason, n) in &self.skipped {
            let _ = writeln!(out, "  skipped {n:>5}  {reason}");
        }
        for (pair, error) in &self.failed {
            let _ = writeln!(out, "  FAILED  {pair}: {error}");
        }
        let _ = writeln!(
            out,
            "\n{:<40} {:>6} {:>8} {:>8} {:>6} {:>10} {:>8}",
            "", "pairs", "conflict", "flagged", "hits", "precision", "recall"
        );
        let mut row = |name: String, pairs: usize, s: &Score| {
            let _ = writeln!(
                out,
                "{:<40} {:>6} {:>8} {:>8} {:>6} {:>10} {:>8}",
                name,
                pairs,
                s.truth,
                s.flagged,
                s.hits,
                pct(s.precision),
                pct(s.recall)
            );
        };
        let sets: Vec<(&str, &Figures)> = self
            .by_source
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .chain([("overall", &self.overall)])
            .collect();
        for (name, f) in &sets {
            row(format!("{name}: pairs, any forecast"), f.pairs, &f.pair);
            row(
                format!("{name}: pairs, git-visible kinds"),
                f.pairs,
                &f.pair_git_visible,
            );
            for (kind, kf) in &f.by_kind {
                row(format!("{name}: pairs, {kind}"), f.pairs, &kf.pair);
            }
            row(format!("{name}: files, any forecast"), f.pairs, &f.file);
            for (kind, kf) in &f.by_kind {
                row(format!("{name}: files, {kind}"), f.pairs, &kf.file);
            }
            row(
                format!("{name}: pairs, symbols vs analysed"),
                f.pairs,
                &f.pair_symbols,
            );
            row(
                format!("{name}: files, symbols vs analysed"),
                f.pairs,
                &f.file_symbols,
            );
        }
        let _ = writeln!(
            out,
            "\n(pairs: conflict = git's merge leaves a conflicted file; files: each pair's conflicted files;\n flagged = named by a forecast; hits = both; precision = hits/flagged; recall = hits/conflict;\n git-visible = without signature-vs-callers; symbols vs analysed = same-symbol and signature-vs-callers\n forecasts against conflicts in files an analyzer covers)"
        );
        let _ = writeln!(
            out,
            "\nsignature-vs-callers forecasts: {} ({} in pairs git merges cleanly)",
            self.signature_vs_callers, self.signature_vs_callers_in_clean_pairs
        );
        for e in &self.signature_vs_callers_examples {
            let _ = writeln!(out, "  [{}] {}\n      {}", e.pair, e.text, e.note);
        }
        let _ = writeln!(
            out,
            "\ngit conflicts no forecast names: {} files",
            self.missed_files
        );
        for (reason, n) in &self.missed_by_reason {
            let _ = writeln!(out, "  {n:>5}  {reason}");
        }
        let _ = writeln!(out, "  by git's conflict type:");
        for (t, n) in &self.missed_by_git_type {
            let _ = writeln!(out, "  {n:>5}  {t}");
        }
        for e in &self.missed_examples {
            let _ = writeln!(out, "  [{}] {}\n      {}", e.pair, e.text, e.note);
        }
        out
    }
}
