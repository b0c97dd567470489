//! One pair replayed: each side's changes as the daemon would list them (definitions by
//! `diff_symbols`, calls by the side's code graph, other files by blob), the forecast
//! between the two sides, git's merge of them, and a reason for each conflict the
//! forecast did not name.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use anyhow::Result;
use serde::Serialize;
use wit_core::config::DEFAULT_MAX_FILE_BYTES;
use wit_core::{Analysis, Registry};
use wit_forecast::{
    CallRef, Checkout, FileChange, Forecast, Kind, Merge, Outside, TextVerdict, Version,
    diff_symbols, forecast, outside_text,
};
use wit_graph::{Graph, Resolution, TsPaths};

use wit_bench::history::git::{Git, Hunk, RawChange};
use wit_bench::history::lines;
use wit_bench::history::pairs::{Pair, Source};

/// The two checkouts' names in the forecast's sentences.
pub const SIDE_A: &str = "A";
/// See [`SIDE_A`].
pub const SIDE_B: &str = "B";

/// Modes of entries that are no regular file: their "content" is a link target or a
/// commit id, so they are compared as text (as git does), never analysed.
use wit_bench::git_tree::{SUBMODULE, SYMLINK};

/// One forecast, as much of it as the report needs.
#[derive(Debug, Clone, Serialize)]
pub struct Brief {
    /// Its kind.
    pub kind: Kind,
    /// The files of its `symbol_paths`.
    pub files: Vec<String>,
    /// Its sentence.
    pub summary: String,
}

/// A file git reported conflicted that no forecast named.
#[derive(Debug, Clone, Serialize)]
pub struct Miss {
    /// The file.
    pub file: String,
    /// Why the forecast did not see it (a heuristic, see [`Evaluator::why_missed`]).
    pub reason: String,
    /// Git's conflict types for it (`contents`, `modify/delete`, `rename/delete`, …).
    pub git_types: Vec<String>,
}

/// Everything measured on one pair.
#[derive(Debug, Clone, Serialize)]
pub struct PairResult {
    /// Where the pair comes from.
    pub source: Source,
    /// The merge commit, or `C1+C2`.
    pub label: String,
    /// Files changed by A and by B.
    pub changed: (usize, usize),
    /// The files git's merge leaves conflicted.
    pub truth: Vec<String>,
    /// Those of them an analyzer covers (the others can only be forecast as text).
    pub truth_analysed: Vec<String>,
    /// Git's conflict types by file (`contents`, `modify/delete`, …).
    pub truth_types: BTreeMap<String, Vec<String>>,
    /// The forecasts.
    pub forecasts: Vec<Brief>,
    /// The conflicted files no forecast names.
    pub missed: Vec<Miss>,
}

/// A side's changes against the base.
struct SideChanges {
    /// As the forecast takes them.
    files: BTreeMap<String, FileChange>,
    /// As git lists them.
    raw: BTreeMap<String, RawChange>,
}

/// What the evaluation keeps across pairs.
pub struct Evaluator<'g> {
    git: &'g Git,
    registry: Registry,
    /// Analyses by (analyzer, blob), or why there is none: most files are the same blob
    /// in many trees of one history, so each is analysed once.
    analyses: HashMap<(String, String), Result<Arc<Analysis>, String>>,
    /// The empty blob, the base of a file both sides added (as `merge-tree` takes it).
    empty_blob: String,
}

impl<'g> Evaluator<'g> {
    /// An evaluator on `git` with the built-in analyzers.
    pub fn new(git: &'g Git) -> Result<Self> {
        Ok(Evaluator {
            git,
            registry: wit_analyzers::builtin_registry(),
            analyses: HashMap::new(),
            empty_blob: git.write_blob(b"")?,
        })
    }

    /// Replays `pair`.
    pub fn evaluate(&mut self, pair: &Pair) -> Result<PairResult> {
        let truth = self.git.merge_truth(&pair.base, &pair.a, &pair.b)?;
        let a = self.side(&pair.base, &pair.a)?;
        let b = self.side(&pair.base, &pair.b)?;

        // The base blob of each path either side changed: what the textual merge needs
        // besides the two sides' blobs.
        let base_blobs: HashMap<&str, Option<&str>> = a
            .raw
            .values()
            .chain(b.raw.values())
            .map(|r| (r.path.as_str(), r.old_oid.as_deref()))
            .collect();
        let mut verdicts: BTreeMap<String, TextVerdict> = BTreeMap::new();
        let mut merge = |m: Merge<'_>| {
            let (path, blob_a, blob_b) = (m.path, m.a, m.b);
            let base = match m.base {
                None => base_blobs
                    .get(path)
                    .copied()
                    .flatten()
                    .unwrap_or(&self.empty_blob),
                Some("") => &self.empty_blob,
                Some(id) => id,
            };
            // The daemon's mapping (daemon/src/forecast/git.rs): two different binary
            // versions conflict, as they do in git's merge; a git failure forecasts nothing.
            let verdict = match self.git.merge_file(blob_a, base, blob_b) {
                Ok((0, _)) => TextVerdict::Clean,
                Ok((n @ 1..=127, _)) => TextVerdict::Conflict {
                    conflicts: n as usize,
                },
                Ok((_, true)) => TextVerdict::Conflict { conflicts: 1 },
                _ => TextVerdict::Unknown,
            };
            verdicts.insert(path.to_owned(), verdict.clone());
            verdict
        };
        let forecasts = forecast(
            Checkout::new(SIDE_A, &a.files),
            Checkout::new(SIDE_B, &b.files),
            &mut merge,
        );

        let known: BTreeSet<&str> = a
            .raw
            .keys()
            .chain(b.raw.keys())
            .map(|p| p.as_str())
            .collect();
        let briefs: Vec<Brief> = forecasts.iter().map(|f| brief(f, &known)).collect();
        let named: BTreeSet<&str> = briefs
            .iter()
            .flat_map(|f| f.files.iter().map(String::as_str))
            .collect();
        let mut missed = Vec::new();
        for file in &truth.conflicted {
            if !named.contains(file.as_str()) {
                missed.push(Miss {
                    file: file.clone(),
                    reason: self.why_missed(file, &a, &b, &verdicts)?.to_owned(),
                    git_types: truth
                        .types
                        .get(file)
                        .map(|t| t.iter().cloned().collect())
                        .unwrap_or_default(),
                });
            }
        }
        Ok(PairResult {
            source: pair.source,
            label: pair.label.clone(),
            changed: (a.raw.len(), b.raw.len()),
            truth: truth.conflicted.iter().cloned().collect(),
            truth_analysed: truth
                .conflicted
                .iter()
                .filter(|f| self.registry.for_path(f).is_some())
                .cloned()
                .collect(),
            truth_types: truth
                .types
                .iter()
                .map(|(k, v)| (k.clone(), v.iter().cloned().collect()))
                .collect(),
            forecasts: briefs,
            missed,
        })
    }

    /// The analysis of blob `oid` at `path`, or why there is none.
    fn analysis(&mut self, path: &str, oid: &str) -> Result<Result<Arc<Analysis>, String>> {
        let Some(analyzer) = self.registry.for_path(path) else {
            return Ok(Err("no analyzer".into()));
        };
        let key = (analyzer.id().to_owned(), oid.to_owned());
        if let Some(known) = self.analyses.get(&key) {
            return Ok(known.clone());
        }
        let bytes = self.git.cat(oid)?;
        let result = if bytes.len() as u64 > DEFAULT_MAX_FILE_BYTES {
            // The daemon does not analyse files over its default size cap either.
            Err(format!("over {DEFAULT_MAX_FILE_BYTES} bytes"))
        } else {
            wit_core::analyzer::source_text(&bytes)
                .and_then(|text| analyzer.analyze_full(text))
                .map(Arc::new)
                .map_err(|e| e.to_string())
        };
        self.analyses.insert(key, result.clone());
        Ok(result)
    }

    /// The code graph of a whole tree: every file an analyzer covers, within the size
    /// cap, and the root `tsconfig.json`'s paths, as the daemon indexes a checkout.
    fn graph(&mut self, tree: &str) -> Result<Graph> {
        let mut graph = Graph::new();
        for entry in self.git.ls_tree(tree)? {
            if entry.path == "tsconfig.json" {
                if let Ok(text) = String::from_utf8(self.git.cat(&entry.oid)?) {
                    graph.set_ts_paths(TsPaths::parse(&text));
                }
                continue;
            }
            let regular = entry.is_regular();
            let small = entry.size.is_some_and(|s| s <= DEFAULT_MAX_FILE_BYTES);
            if !regular || !small || self.registry.for_path(&entry.path).is_none() {
                continue;
            }
            if let Ok(analysis) = self.analysis(&entry.path, &entry.oid)? {
                graph.insert(&entry.path, analysis);
            }
        }
        Ok(graph)
    }

    /// One side's changes against `base`, calls filled from the side's graph.
    fn side(&mut self, base: &str, tree: &str) -> Result<SideChanges> {
        let raw = self.git.diff_trees(base, tree)?;
        let graph = self.graph(tree)?;
        let mut files = BTreeMap::new();
        for r in &raw {
            let change = match self.symbols(r)? {
                Ok((mut symbols, outside)) => {
                    for c in symbols.iter_mut().filter(|c| c.change.has_new_code()) {
                        c.calls = resolved_calls(&graph, &r.path, &c.name);
                    }
                    FileChange::Symbols {
                        symbols,
                        deleted: r.new_oid.is_none(),
                        outside,
                    }
                }
                Err(note) => FileChange::Text {
                    blob: r.new_oid.clone(),
                    note,
                },
            };
            files.insert(r.path.clone(), change);
        }
        Ok(SideChanges {
            files,
            raw: raw.into_iter().map(|r| (r.path.clone(), r)).collect(),
        })
    }

    /// One version of `path` for `diff_symbols`: `None` when absent (`oid` is `None`),
    /// else its text and analysis; or why it has no analysis.
    fn version(&mut self, path: &str, oid: Option<&str>) -> Result<Result<Loaded, String>> {
        let Some(oid) = oid else {
            return Ok(Ok(None));
        };
        Ok(match self.analysis(path, oid)? {
            Ok(analysis) => {
                // Analysed, so UTF-8 text.
                let text = String::from_utf8(self.git.cat(oid)?)?;
                Ok(Some((text, analysis)))
            }
            Err(why) => Err(why),
        })
    }

    /// `diff_symbols` of one changed path, or (as the `Text` note) why it is compared as
    /// text: `None` for a file no analyzer covers, a reason for one that did not analyse.
    fn symbols(&mut self, r: &RawChange) -> Result<Result<Analysed, Option<String>>> {
        let regular = |mode: &str| mode != SYMLINK && mode != SUBMODULE;
        if self.registry.for_path(&r.path).is_none()
            || !regular(&r.old_mode)
            || !regular(&r.new_mode)
        {
            return Ok(Err(None));
        }
        let before = match self.version(&r.path, r.old_oid.as_deref())? {
            Ok(v) => v,
            Err(why) => return Ok(Err(Some(format!("base version: {why}")))),
        };
        let after = match self.version(&r.path, r.new_oid.as_deref())? {
            Ok(v) => v,
            Err(why) => return Ok(Err(Some(why))),
        };
        let symbols = diff_symbols(as_version(&before), as_version(&after));
        // The text outside the definitions, when it changed, as blobs (as the daemon
        // publishes it).
        let outside_of = |v: &Loaded| as_version(v).map(|v| outside_text(&v));
        let (was, now) = (outside_of(&before), outside_of(&after));
        let outside = match now {
            Some(now) if was.as_deref() != Some(now.as_str()) => Some(Outside {
                base: match was {
                    Some(text) => Some(self.git.write_blob(text.as_bytes())?),
                    None => None,
                },
                now: self.git.write_blob(now.as_bytes())?,
            }),
            _ => None,
        };
        Ok(Ok((symbols, outside)))
    }

    /// Why no forecast names `file`, which git's merge leaves conflicted. Cheap
    /// heuristics, from the most specific: the path changed on one side only (git followed
    /// a rename), how each side's change of the file was compared, and, for files analysed
    /// on both sides, where the two sides' colliding hunks fall in the base's definitions.
    fn why_missed(
        &mut self,
        file: &str,
        a: &SideChanges,
        b: &SideChanges,
        verdicts: &BTreeMap<String, TextVerdict>,
    ) -> Result<&'static str> {
        let (Some(fa), Some(fb)) = (a.files.get(file), b.files.get(file)) else {
            return Ok("path changed on one side only (git followed a rename)");
        };
        let (ra, rb) = (&a.raw[file], &b.raw[file]);
        if [&ra.old_mode, &ra.new_mode, &rb.new_mode]
            .iter()
            .any(|m| m.as_str() == SUBMODULE)
        {
            return Ok("a submodule (git merges its commit ids; no blob to merge)");
        }
        Ok(match (fa, fb) {
            (FileChange::Text { .. }, FileChange::Text { .. }) => match verdicts.get(file) {
                Some(TextVerdict::Unknown) => "not analysed; git merge-file failed on it",
                Some(TextVerdict::Clean) => "not analysed; git merge-file merges it cleanly",
                _ => "not analysed; the two sides' blobs are equal or both absent",
            },
            (FileChange::Symbols { .. }, FileChange::Symbols { .. }) => {
                let Some(base) = ra.old_oid.as_deref() else {
                    return Ok(
                        "both added the file; their definitions match, the text outside them differs",
                    );
                };
                let (Some(oa), Some(ob)) = (ra.new_oid.as_deref(), rb.new_oid.as_deref()) else {
                    // The deleting side has every definition removed, so a same-symbol
                    // forecast follows from any definition the other side changed.
                    return Ok("modify/delete where the modifying side changed no definition");
                };
                let Ok(analysis) = self.analysis(file, base)? else {
                    return Ok("base version not analysed");
                };
                let ha = self.git.hunks(base, oa)?;
                let hb = self.git.hunks(base, ob)?;
                classify_hunks(&analysis, &ha, &hb)
            }
            _ => "analysed on one side only (its analyzer refused the other version)",
        })
    }
}

/// An analysed file's changed definitions, and its text outside them when it changed.
type Analysed = (Vec<wit_forecast::SymbolChange>, Option<Outside>);

/// A version of a file as loaded for `diff_symbols`: absent, or its text and analysis.
type Loaded = Option<(String, Arc<Analysis>)>;

fn as_version(v: &Loaded) -> Option<Version<'_>> {
    v.as_ref()
        .map(|(source, analysis)| Version { source, analysis })
}

/// What a changed symbol's code calls, as the side's graph resolves it: one call per
/// callee, at its first line; name-only guesses left out (the forecast does not use them).
fn resolved_calls(graph: &Graph, file: &str, name: &str) -> Vec<CallRef> {
    let Some(symbol) = graph.symbol(file, name) else {
        return Vec::new();
    };
    let mut first: BTreeMap<String, usize> = BTreeMap::new();
    for edge in graph.callees(&symbol, 1) {
        if edge.resolution != Resolution::Resolved {
            continue;
        }
        let line = first.entry(edge.callee.path()).or_insert(edge.line + 1);
        *line = (*line).min(edge.line + 1);
    }
    first
        .into_iter()
        .map(|(callee, line)| CallRef { callee, line })
        .collect()
}

/// A forecast reduced to its kind, files and sentence. A `symbol_path` is `file:name`
/// (or the file, for a textual forecast); the file is the longest changed path it starts
/// with, so a `:` in a file name does not cut it short.
fn brief(f: &Forecast, known: &BTreeSet<&str>) -> Brief {
    let mut files: BTreeSet<String> = BTreeSet::new();
    for sp in &f.symbol_paths {
        let file = known
            .iter()
            .filter(|p| sp == *p || sp.strip_prefix(*p).is_some_and(|r| r.starts_with(':')))
            .max_by_key(|p| p.len())
            .map(|p| (*p).to_owned())
            .unwrap_or_else(|| {
                sp.split_once(':')
                    .map_or(sp.as_str(), |(f, _)| f)
                    .to_owned()
            });
        files.insert(file);
    }
    Brief {
        kind: f.kind,
        files: files.into_iter().collect(),
        summary: f.summary.clone(),
    }
}

/// Where two sides' colliding hunks (by xdiff's rule: overlapping or touching in the
/// base's lines) fall among the base's definitions (see [`lines::owners`]).
pub fn classify_hunks(base: &Analysis, a: &[Hunk], b: &[Hunk]) -> &'static str {
    // The definitions a hunk touches; `None` when some of it is outside every one.
    let owners = |h: &Hunk| -> Option<BTreeSet<usize>> {
        let found = lines::owners(base, h.start, h.len);
        (!found.outside).then_some(found.defs)
    };
    let collide = |x: &Hunk, y: &Hunk| x.start + x.len >= y.start && y.start + y.len >= x.start;
    let (mut outside, mut different, mut same) = (false, false, false);
    for x in a {
        for y in b.iter().filter(|y| collide(x, y)) {
            match (owners(x), owners(y)) {
                (Some(ox), Some(oy)) if ox.is_disjoint(&oy) => different = true,
                (Some(_), Some(_)) => same = true,
                _ => outside = true,
            }
        }
    }
    if outside {
        "colliding edits in text outside any definition (imports, module-level code, lines between definitions)"
    } else if different {
        "adjacent edits of two different definitions"
    } else if same {
        "both edit one definition, but the symbol diff reports no change of it on one side"
    } else {
        "no colliding hunks by git diff (the conflict comes from elsewhere in git's merge)"
    }
}
