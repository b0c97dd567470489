//! Recall and precision of wit's analysis against an oracle, and the report printed for
//! each language.
//!
//! Both sides are *multisets*: two overloads `Foo.bar` in one file are two definitions
//! with the same key, and wit must report both. A definition is matched when the other
//! side has an unmatched one with the same key, (file, name, container, kind class); what
//! is left over is a miss (oracle only) or an extra (wit only). The container is the
//! innermost enclosing type (a Go method's receiver type, a Rust method's `impl` or
//! `trait`), for every kind: a nested Java class `Outer.Inner` is keyed by `Outer`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// How many missed and extra items a report lists.
pub const LIST_LIMIT: usize = 40;

/// One definition, from either side.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Def {
    /// Path relative to the sample's root.
    pub file: String,
    /// Bare name.
    pub name: String,
    /// Innermost enclosing type, if any.
    pub container: Option<String>,
    /// Kind class: `function`, `method`, `class`, `interface`, `type` (or whatever wit
    /// reported, e.g. `arrow`).
    pub kind: String,
    /// One-based line, for the report and for pairing overloads (0: not known, as for the
    /// syn oracle, whose spans carry no lines).
    pub line: usize,
    /// One-based last line (as `line` where not known).
    pub end_line: usize,
}

type Key = (String, String, Option<String>, String);

impl Def {
    fn key(&self) -> Key {
        (
            self.file.clone(),
            self.name.clone(),
            self.container.clone(),
            self.kind.clone(),
        )
    }

    fn qualified(&self) -> String {
        match &self.container {
            Some(c) => format!("{c}.{}", self.name),
            None => self.name.clone(),
        }
    }

    fn display(&self) -> String {
        format!(
            "{}:{} {} {}",
            self.file,
            self.line,
            self.kind,
            self.qualified()
        )
    }
}

/// Items left out of the comparison by one stated rule (see each oracle's module docs),
/// counted per side so that the report shows what every rule removed.
#[derive(Debug, Default, Clone)]
pub struct Exclusions {
    rules: BTreeMap<&'static str, (usize, usize)>,
}

impl Exclusions {
    /// Counts one oracle item removed by `rule`.
    pub fn oracle(&mut self, rule: &'static str) {
        self.rules.entry(rule).or_default().0 += 1;
    }

    /// Counts one wit item removed by `rule`.
    pub fn wit(&mut self, rule: &'static str) {
        self.rules.entry(rule).or_default().1 += 1;
    }
}

/// The outcome of comparing one kind of item (definitions or edges) for one language.
#[derive(Debug)]
pub struct Comparison<T> {
    /// Items on the oracle's side.
    pub oracle: usize,
    /// Items on wit's side.
    pub wit: usize,
    /// Items on both sides.
    pub matched: usize,
    /// Oracle items wit lacks.
    pub missed: Vec<T>,
    /// wit items the oracle lacks.
    pub extra: Vec<T>,
}

impl<T> Comparison<T> {
    /// matched / oracle (1.0 for an empty oracle).
    pub fn recall(&self) -> f64 {
        ratio(self.matched, self.oracle)
    }

    /// matched / wit (1.0 when wit reported nothing and nothing was expected).
    pub fn precision(&self) -> f64 {
        ratio(self.matched, self.wit)
    }

    /// Whether both figures reach `target`.
    pub fn meets(&self, target: f64) -> bool {
        self.recall() >= target && self.precision() >= target
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        if a == 0 { 1.0 } else { 0.0 }
    } else {
        a as f64 / b as f64
    }
}

/// Compares definitions as multisets keyed by [`Def::key`].
pub fn compare_defs(oracle: &[Def], wit: &[Def]) -> Comparison<Def> {
    let mut by_key: BTreeMap<Key, (Vec<&Def>, Vec<&Def>)> = BTreeMap::new();
    for d in oracle {
        by_key.entry(d.key()).or_default().0.push(d);
    }
    for d in wit {
        by_key.entry(d.key()).or_default().1.push(d);
    }
    let mut result = Comparison {
        oracle: oracle.len(),
        wit: wit.len(),
        matched: 0,
        missed: Vec::new(),
        extra: Vec::new(),
    };
    for (_, (mut o, mut w)) in by_key {
        // Pair overloads in line order so that the left-overs are the likeliest culprits.
        o.sort_by_key(|d| d.line);
        w.sort_by_key(|d| d.line);
        let n = o.len().min(w.len());
        result.matched += n;
        result.missed.extend(o[n..].iter().map(|d| (*d).clone()));
        result.extra.extend(w[n..].iter().map(|d| (*d).clone()));
    }
    result.missed.sort();
    result.extra.sort();
    result
}

/// One within-file call edge: `caller` (qualified) calls `callee` (bare name).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Edge {
    /// Path relative to the sample's root.
    pub file: String,
    /// `Container.name` for methods, else `name`.
    pub caller: String,
    /// The called name as written (last path segment, method name).
    pub callee: String,
}

/// Compares call edges as sets (an edge is a fact, however many call sites back it).
pub fn compare_edges(oracle: &BTreeSet<Edge>, wit: &BTreeSet<Edge>) -> Comparison<Edge> {
    Comparison {
        oracle: oracle.len(),
        wit: wit.len(),
        matched: oracle.intersection(wit).count(),
        missed: oracle.difference(wit).cloned().collect(),
        extra: wit.difference(oracle).cloned().collect(),
    }
}

/// Builds the printed report for one language.
pub struct Report {
    text: String,
}

impl Report {
    /// Starts a report: `lang` vs `oracle` over `files` files.
    pub fn new(lang: &str, oracle: &str, files: usize) -> Self {
        let mut text = String::new();
        let _ = writeln!(
            text,
            "== {lang}: wit vs {oracle}, {files} files =========================="
        );
        Report { text }
    }

    /// Appends a free-form line.
    pub fn line(&mut self, line: impl AsRef<str>) {
        self.text.push_str(line.as_ref());
        self.text.push('\n');
    }

    /// Appends the definition figures, per kind class, and the first [`LIST_LIMIT`] missed
    /// and extra definitions (all with `WIT_ORACLE_VERBOSE=1`), each with what the other
    /// side has under the same file and name, which usually names the bug.
    pub fn defs(&mut self, cmp: &Comparison<Def>, oracle: &[Def], wit: &[Def], target: f64) {
        self.figures("definitions", cmp, target);
        let kinds: BTreeSet<&str> = oracle.iter().chain(wit).map(|d| d.kind.as_str()).collect();
        for kind in kinds {
            let o = oracle.iter().filter(|d| d.kind == kind).count();
            let w = wit.iter().filter(|d| d.kind == kind).count();
            let missed = cmp.missed.iter().filter(|d| d.kind == kind).count();
            let extra = cmp.extra.iter().filter(|d| d.kind == kind).count();
            let _ = writeln!(
                self.text,
                "    {kind:<10} oracle {o:>5}  wit {w:>5}  recall {:.4}  precision {:.4}",
                ratio(o - missed, o),
                ratio(w - extra, w),
            );
        }
        let limit = if verbose() { usize::MAX } else { LIST_LIMIT };
        let hint = |d: &Def, other: &[Def], side: &str| {
            let alts: Vec<String> = other
                .iter()
                .filter(|o| o.file == d.file && o.name == d.name && o.key() != d.key())
                .map(|o| format!("{} {}", o.kind, o.qualified()))
                .collect();
            if alts.is_empty() {
                String::new()
            } else {
                format!("   [{side} has: {}]", alts.join(", "))
            }
        };
        let _ = writeln!(
            self.text,
            "  missed definitions (oracle has, wit lacks): {} (first {})",
            cmp.missed.len(),
            limit.min(cmp.missed.len())
        );
        for d in cmp.missed.iter().take(limit) {
            let _ = writeln!(self.text, "    - {}{}", d.display(), hint(d, wit, "wit"));
        }
        let _ = writeln!(
            self.text,
            "  extra definitions (wit has, oracle lacks): {} (first {})",
            cmp.extra.len(),
            limit.min(cmp.extra.len())
        );
        for d in cmp.extra.iter().take(limit) {
            let _ = writeln!(
                self.text,
                "    + {}{}",
                d.display(),
                hint(d, oracle, "oracle")
            );
        }
    }

    /// Appends the call-edge figures and the first missed and extra edges.
    pub fn edges(&mut self, cmp: &Comparison<Edge>, target: f64) {
        self.figures("call edges", cmp, target);
        let limit = if verbose() { usize::MAX } else { LIST_LIMIT };
        let _ = writeln!(
            self.text,
            "  missed edges: {} (first {})",
            cmp.missed.len(),
            limit.min(cmp.missed.len())
        );
        for e in cmp.missed.iter().take(limit) {
            let _ = writeln!(self.text, "    - {}: {} -> {}", e.file, e.caller, e.callee);
        }
        let _ = writeln!(
            self.text,
            "  extra edges: {} (first {})",
            cmp.extra.len(),
            limit.min(cmp.extra.len())
        );
        for e in cmp.extra.iter().take(limit) {
            let _ = writeln!(self.text, "    + {}: {} -> {}", e.file, e.caller, e.callee);
        }
    }

    /// Appends what every exclusion rule removed.
    pub fn exclusions(&mut self, ex: &Exclusions) {
        if ex.rules.is_empty() {
            return;
        }
        self.line("  left out by stated rules (oracle / wit):");
        for (rule, (o, w)) in &ex.rules {
            let _ = writeln!(self.text, "    {o:>4} / {w:<4} {rule}");
        }
    }

    fn figures<T>(&mut self, what: &str, cmp: &Comparison<T>, target: f64) {
        let verdict = if cmp.meets(target) {
            "ok"
        } else {
            "BELOW TARGET"
        };
        let _ = writeln!(
            self.text,
            "  {what}: oracle {}, wit {}, matched {}: recall {:.4}, precision {:.4} \
             (target {target:.2}: {verdict})",
            cmp.oracle,
            cmp.wit,
            cmp.matched,
            cmp.recall(),
            cmp.precision(),
        );
    }

    /// Prints the report (to stdout: `cargo test` shows it for failing tests, and for all
    /// with `-- --nocapture`) and returns its text.
    pub fn print(self) -> String {
        println!("{}", self.text);
        self.text
    }
}

/// `WIT_ORACLE_VERBOSE=1` lists every missed and extra item, even on target.
fn verbose() -> bool {
    std::env::var_os("WIT_ORACLE_VERBOSE").is_some_and(|v| v != "0")
}
