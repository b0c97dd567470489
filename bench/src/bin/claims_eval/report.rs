//! The figures of a run: lost updates refused, warnings against each oracle (per edit
//! and per pair), and what the guard said otherwise; with the cases that count against
//! wit laid out for a reader.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::eval::{PairResult, StaleWrite, StepResult};
use crate::hooks::Verdict;

/// How many examples of each list the report keeps.
const EXAMPLES: usize = 12;

/// `hit / of`, or `None` when `of` is zero (undefined, not zero).
fn ratio(hit: usize, of: usize) -> Option<f64> {
    (of > 0).then(|| hit as f64 / of as f64)
}

/// Warnings against one oracle.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Score {
    /// Cases where a warning is due (the oracle's positives).
    pub due: usize,
    /// Cases the guard flagged (a warning naming a claim, or a refusal).
    pub flagged: usize,
    /// Both.
    pub hits: usize,
    /// hits / due.
    pub recall: Option<f64>,
    /// hits / flagged.
    pub precision: Option<f64>,
}

impl Score {
    fn add(&mut self, flagged: bool, due: bool) {
        self.flagged += usize::from(flagged);
        self.due += usize::from(due);
        self.hits += usize::from(flagged && due);
    }

    fn finish(&mut self) {
        self.recall = ratio(self.hits, self.due);
        self.precision = ratio(self.hits, self.flagged);
    }
}

/// The stale writes against one oracle.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Lost {
    /// Stale writes made (ones that change the file).
    pub writes: usize,
    /// Those that would undo a change of A's to a definition (lost updates).
    pub would_undo: usize,
    /// Of those, refused (exit 2).
    pub refused: usize,
    /// Those that undo no change of A's to a definition.
    pub undo_nothing: usize,
    /// Of those, refused: wrongly, by this oracle.
    pub wrongly_refused: usize,
    /// refused / would_undo.
    pub refused_share: Option<f64>,
}

impl Lost {
    fn add(&mut self, undoes: bool, refused: bool) {
        self.writes += 1;
        if undoes {
            self.would_undo += 1;
            self.refused += usize::from(refused);
        } else {
            self.undo_nothing += 1;
            self.wrongly_refused += usize::from(refused);
        }
    }

    fn finish(&mut self) {
        self.refused_share = ratio(self.refused, self.would_undo);
    }
}

/// The edits no warning was due for (by the symbol oracle) and how many were flagged:
/// what precision rests on when warnings are few.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Quiet {
    /// Edits no warning was due for.
    pub not_due: usize,
    /// Of them, flagged.
    pub flagged: usize,
    /// Of them, edits of a file the other session had edited before.
    pub shared_file: usize,
    /// Of those, flagged.
    pub shared_file_flagged: usize,
}

/// One case for a reader: the pair, where, and what happened.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    /// `C1+C2`.
    pub pair: String,
    /// What happened.
    pub text: String,
}

/// What the guard answered to the replayed edits.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Answers {
    /// Edits (and file creations) sent to the pre-edit hook.
    pub steps: usize,
    /// Allowed without a word.
    pub allowed: usize,
    /// Allowed with a warning.
    pub warned: usize,
    /// Refused (exit 2).
    pub refused: usize,
    /// Allowed unchecked (the daemon did not answer in time, …): should be none.
    pub unchecked: usize,
    /// Another exit code: should be none.
    pub failed: usize,
    /// Edits whose lines the other session had replaced (see `edits.rs`).
    pub merged: usize,
    /// Hunks with nothing left to do, and files both commits create.
    pub skipped: usize,
    /// Signature-vs-callers collisions the warnings named.
    pub collisions: usize,
    /// Claims named that no session made (an unattributed change): the replay has none,
    /// so each is a change the daemon failed to credit to the session that made it.
    pub unattributed: usize,
    /// The pre-edit hook's wall time, p50 and p90 (ms; indicative: a loaded machine).
    pub pre_ms: (f64, f64),
    /// The post-edit hook's.
    pub post_ms: (f64, f64),
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The repository evaluated.
    pub repository: String,
    /// Its HEAD.
    pub head: String,
    /// `--pairs`.
    pub pairs_requested: usize,
    /// `--join`: hunks at most this many lines apart were one edit (`None`: each alone).
    pub join: Option<usize>,
    /// Pairs of commits within the window touching a common analysed file.
    pub candidates: usize,
    /// Candidates passed over, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Pairs that failed, with the error.
    pub failed: Vec<(String, String)>,
    /// Pairs replayed.
    pub replayed: usize,
    /// What the guard answered.
    pub answers: Answers,
    /// Edits: line oracle.
    pub edits_lines: Score,
    /// Edits: symbol oracle.
    pub edits_symbols: Score,
    /// Edits no warning was due for (symbol oracle).
    pub quiet: Quiet,
    /// Pairs: both commits change one definition (line oracle) vs any claim flagged.
    pub pairs_lines: Score,
    /// The same, symbol oracle.
    pub pairs_symbols: Score,
    /// Stale writes: line oracle.
    pub lost_lines: Lost,
    /// Stale writes: symbol oracle.
    pub lost_symbols: Lost,
    /// Warnings due (either oracle) that were not given.
    pub missed: Vec<Example>,
    /// Warnings given where neither oracle has one due.
    pub false_warnings: Vec<Example>,
    /// Lost updates (either oracle) not refused, and refusals of writes undoing nothing.
    pub lost_examples: Vec<Example>,
    /// Seconds for the whole run.
    pub seconds: f64,
    /// Every pair.
    pub pairs: Vec<PairResult>,
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn step_text(s: &StepResult) -> String {
    let said = match &s.verdict {
        Verdict::Warned { hits, .. } => format!(
            "warned of {}",
            hits.iter()
                .map(|h| h.symbol.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Verdict::Refused { named, .. } => format!(
            "refused, naming {}",
            named
                .iter()
                .map(|h| h.symbol.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => format!("{other:?}"),
    };
    format!(
        "step {} ({:?}{}) {}: {said}; due by lines [{}], by symbols [{}]",
        s.n,
        s.side,
        if s.merged { ", merged" } else { "" },
        s.file,
        s.due_lines.join(", "),
        s.due_symbols.join(", ")
    )
}

fn stale_text(w: &StaleWrite) -> String {
    format!(
        "stale write of {}: {:?}; undoes by lines [{}], by symbols [{}]",
        w.file,
        w.verdict,
        w.undoes_lines.join(", "),
        w.undoes_symbols.join(", ")
    )
}

impl Report {
    /// The figures of `pairs`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        repository: String,
        head: String,
        pairs_requested: usize,
        join: Option<usize>,
        candidates: usize,
        skipped: BTreeMap<String, usize>,
        failed: Vec<(String, String)>,
        pairs: Vec<PairResult>,
        seconds: f64,
    ) -> Report {
        let mut answers = Answers::default();
        let (mut edits_lines, mut edits_symbols) = (Score::default(), Score::default());
        let (mut pairs_lines, mut pairs_symbols) = (Score::default(), Score::default());
        let (mut lost_lines, mut lost_symbols) = (Lost::default(), Lost::default());
        let (mut missed, mut false_warnings, mut lost_examples) = (vec![], vec![], vec![]);
        let (mut pre, mut post) = (Vec::new(), Vec::new());
        let mut quiet = Quiet::default();
        for p in &pairs {
            let mut flagged_pair = false;
            answers.skipped += p.skipped_steps.len();
            for s in &p.replayed {
                answers.steps += 1;
                answers.merged += usize::from(s.merged);
                pre.push(s.pre_ms);
                post.extend(s.post_ms);
                match &s.verdict {
                    Verdict::Allowed => answers.allowed += 1,
                    Verdict::Warned {
                        hits, collisions, ..
                    } => {
                        answers.warned += 1;
                        answers.collisions += collisions;
                        answers.unattributed += hits.iter().filter(|h| h.session.is_none()).count();
                    }
                    Verdict::Refused { named, .. } => {
                        answers.refused += 1;
                        answers.unattributed +=
                            named.iter().filter(|h| h.session.is_none()).count();
                    }
                    Verdict::Unchecked { .. } => answers.unchecked += 1,
                    Verdict::Failed { .. } => answers.failed += 1,
                }
                let flagged = s.verdict.flags_claim();
                flagged_pair |= flagged;
                let (due_l, due_s) = (!s.due_lines.is_empty(), !s.due_symbols.is_empty());
                edits_lines.add(flagged, due_l);
                edits_symbols.add(flagged, due_s);
                if !due_s {
                    quiet.not_due += 1;
                    quiet.flagged += usize::from(flagged);
                    if s.shared_file {
                        quiet.shared_file += 1;
                        quiet.shared_file_flagged += usize::from(flagged);
                    }
                }
                let example = || Example {
                    pair: p.label.clone(),
                    text: step_text(s),
                };
                if (due_l || due_s) && !flagged {
                    missed.push(example());
                }
                if flagged && !due_l && !due_s {
                    false_warnings.push(example());
                }
            }
            pairs_lines.add(flagged_pair, p.both_lines);
            pairs_symbols.add(flagged_pair, p.both_symbols);
            for w in &p.stale {
                let refused = matches!(w.verdict, Verdict::Refused { .. });
                let (undo_l, undo_s) = (!w.undoes_lines.is_empty(), !w.undoes_symbols.is_empty());
                lost_lines.add(undo_l, refused);
                lost_symbols.add(undo_s, refused);
                if (undo_l || undo_s) != refused || undo_l != undo_s {
                    lost_examples.push(Example {
                        pair: p.label.clone(),
                        text: stale_text(w),
                    });
                }
            }
        }
        for s in [
            &mut edits_lines,
            &mut edits_symbols,
            &mut pairs_lines,
            &mut pairs_symbols,
        ] {
            s.finish();
        }
        lost_lines.finish();
        lost_symbols.finish();
        answers.pre_ms = (percentile(pre.clone(), 0.5), percentile(pre, 0.9));
        answers.post_ms = (percentile(post.clone(), 0.5), percentile(post, 0.9));
        for list in [&mut missed, &mut false_warnings, &mut lost_examples] {
            list.truncate(EXAMPLES);
        }
        Report {
            repository,
            head,
            pairs_requested,
            join,
            candidates,
            skipped,
            failed,
            replayed: pairs.len(),
            answers,
            edits_lines,
            edits_symbols,
            quiet,
            pairs_lines,
            pairs_symbols,
            lost_lines,
            lost_symbols,
            missed,
            false_warnings,
            lost_examples,
            seconds,
            pairs,
        }
    }

    /// The report as a table for people.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let pct = |x: Option<f64>| x.map_or("   n/a".into(), |x| format!("{:5.1}%", x * 100.0));
        let _ = writeln!(
            out,
            "claims-eval: {} at {}\n{} pairs requested, {} candidates; {} pairs replayed in {:.1} s; \
             hunks {} apart made as one edit",
            self.repository,
            &self.head[..self.head.len().min(12)],
            self.pairs_requested,
            self.candidates,
            self.replayed,
            self.seconds,
            self.join
                .map_or("never".to_owned(), |n| format!("at most {n} lines")),
        );
        for (reason, n) in &self.skipped {
            let _ = writeln!(out, "  skipped {n:>5}  {reason}");
        }
        for (pair, error) in &self.failed {
            let _ = writeln!(out, "  FAILED  {pair}: {error}");
        }
        let a = &self.answers;
        let _ = writeln!(
            out,
            "\nedits through the pre-edit hook: {} (allowed {}, warned {}, refused {}, unchecked {}, failed {}); \
             {} merged with the other session's lines, {} skipped\n\
             signature-vs-callers warnings: {}; claims named that no session made: {}\n\
             hook wall time (indicative): pre-edit p50 {:.1} ms, p90 {:.1} ms; post-edit p50 {:.1} ms, p90 {:.1} ms",
            a.steps,
            a.allowed,
            a.warned,
            a.refused,
            a.unchecked,
            a.failed,
            a.merged,
            a.skipped,
            a.collisions,
            a.unattributed,
            a.pre_ms.0,
            a.pre_ms.1,
            a.post_ms.0,
            a.post_ms.1,
        );
        let _ = writeln!(
            out,
            "\n{:<44} {:>7} {:>9} {:>8} {:>7} {:>9}",
            "lost updates (B's stale whole-file Write)",
            "writes",
            "undo",
            "refused",
            "share",
            "wrongly"
        );
        for (name, l) in [
            ("  line oracle", &self.lost_lines),
            ("  symbol oracle", &self.lost_symbols),
        ] {
            let _ = writeln!(
                out,
                "{:<44} {:>7} {:>9} {:>8} {:>7} {:>5}/{:<3}",
                name,
                l.writes,
                l.would_undo,
                l.refused,
                pct(l.refused_share),
                l.wrongly_refused,
                l.undo_nothing
            );
        }
        let _ = writeln!(
            out,
            "\n{:<44} {:>7} {:>9} {:>8} {:>9} {:>8}",
            "warnings", "due", "flagged", "hits", "precision", "recall"
        );
        for (name, s) in [
            ("  edits, line oracle", &self.edits_lines),
            ("  edits, symbol oracle", &self.edits_symbols),
            ("  pairs, line oracle", &self.pairs_lines),
            ("  pairs, symbol oracle", &self.pairs_symbols),
        ] {
            let _ = writeln!(
                out,
                "{:<44} {:>7} {:>9} {:>8} {:>9} {:>8}",
                name,
                s.due,
                s.flagged,
                s.hits,
                pct(s.precision),
                pct(s.recall)
            );
        }
        let q = &self.quiet;
        let _ = writeln!(
            out,
            "  edits no warning was due for (symbols): {}, flagged {}; of them in a file the other \
             session had edited: {}, flagged {}",
            q.not_due, q.flagged, q.shared_file, q.shared_file_flagged
        );
        let _ = writeln!(
            out,
            "\n(lost updates: undo = the write changes the text of a definition A changed (line oracle), or\n \
             diff_symbols reports a change between the file now and the written one in a definition A's\n \
             edits changed (symbol oracle); share = refused/undo; wrongly = refused/writes that undo nothing.\n \
             edits: due = the edit touches a definition the other session changed since this session\n \
             last changed it; flagged = the guard warned naming a claim, or refused; pairs: due = both\n \
             commits change one definition, flagged = any edit of the pair flagged.)"
        );
        for (title, list) in [
            ("warnings due and not given", &self.missed),
            ("warnings given, none due", &self.false_warnings),
            (
                "stale writes the oracles and the guard disagree on",
                &self.lost_examples,
            ),
        ] {
            if list.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{title} (first {}):", list.len());
            for e in list {
                let _ = writeln!(out, "  [{}] {}", e.pair, e.text);
            }
        }
        out
    }
}
