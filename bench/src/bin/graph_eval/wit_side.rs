//! wit's side of the comparison: the code graph of a checkout, built as the daemon indexes
//! one, and every call site of every indexed file with where [`Graph::resolve_site`] sends
//! it.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use wit_core::config::DEFAULT_MAX_FILE_BYTES;
use wit_core::{Analysis, Registry, Symbol};
use wit_graph::{Graph, Language, Resolution, SiteRef, Target};

use crate::checkout::TreeEntry;

/// The most a configuration file may weigh to be read (the daemon's bound).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A definition wit resolved a call to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WitTarget {
    /// Its file.
    pub file: String,
    /// Its address in the file (`Repo.find`, `input#function`).
    pub name: String,
    /// Its first and last 0-based lines (from its byte range).
    pub lines: (usize, usize),
}

/// One call site of wit's analysis (de-duplicated per calling definition, callee and
/// receiver, at its first position: see `wit_core::CallSite`).
#[derive(Debug, Clone)]
pub struct WitSite {
    /// 0-based line of the call's start.
    pub line: usize,
    /// The called name.
    pub callee: String,
    /// The calling definition's qualified name.
    pub caller: String,
    /// The receiver as the analyzer spells it (`None` for a plain call).
    pub receiver: Option<String>,
    /// How wit found the callee.
    pub resolution: Resolution,
    /// The definition, for a resolved or name-only site.
    pub target: Option<WitTarget>,
}

/// A callable definition of a file and the bytes whose calls belong to it.
#[derive(Debug, Clone)]
pub struct Callable {
    /// Its qualified name (what its call sites give as `caller`).
    pub name: String,
    /// Byte range whose calls it owns: the definition without its decorators and, in
    /// Python, without its signature (defaults and decorators run where the function is
    /// defined, and wit's analyzer gives them to the enclosing definition).
    pub scope: (usize, usize),
}

/// What wit knows of one file.
#[derive(Debug, Clone, Default)]
pub struct WitFile {
    /// Its call sites, in source order.
    pub sites: Vec<WitSite>,
    /// Its callable definitions.
    pub callables: Vec<Callable>,
}

/// wit's side for one repository.
pub struct WitRepo {
    /// Indexed files by path.
    pub files: BTreeMap<String, WitFile>,
    /// The graph, for calls the analyzer keeps no site for ([`WitRepo::resolve_as_if`]).
    graph: Graph,
    /// Line starts of every indexed file.
    lines: HashMap<String, Vec<usize>>,
    /// Files an analyzer covers that were not indexed (over the size cap, not UTF-8, or
    /// refused by the analyzer).
    pub not_indexed: usize,
    /// Configuration files given to the graph.
    pub config_files: usize,
}

/// Whether the daemon would analyse `e` (before reading it): a regular file outside
/// `node_modules/`, that an analyzer covers, within the default size cap.
fn indexable(registry: &Registry, e: &TreeEntry) -> bool {
    e.is_regular()
        && !e.path.split('/').any(|c| c == "node_modules")
        && e.size.is_some_and(|s| s <= DEFAULT_MAX_FILE_BYTES)
        && registry.for_path(&e.path).is_some()
}

/// The files each oracle is given: the indexable files of its language.
#[derive(Debug, Default)]
pub struct OracleFiles {
    /// TypeScript and JavaScript.
    pub scripts: Vec<String>,
    /// `.py` (not the `.pyi` stubs).
    pub python: Vec<String>,
    /// `.java`.
    pub java: Vec<String>,
    /// `.go`.
    pub go: Vec<String>,
}

/// The indexable files of `entries`, by oracle.
pub fn oracle_files(entries: &[TreeEntry]) -> OracleFiles {
    let registry = wit_analyzers::builtin_registry();
    let mut out = OracleFiles::default();
    for e in entries.iter().filter(|e| indexable(&registry, e)) {
        let list = match Language::of(&e.path) {
            Language::Script => &mut out.scripts,
            Language::Python if e.path.ends_with(".py") => &mut out.python,
            Language::Other if e.path.ends_with(".java") => &mut out.java,
            Language::Other if e.path.ends_with(".go") => &mut out.go,
            _ => continue,
        };
        list.push(e.path.clone());
    }
    out
}

/// Builds the graph of the checkout at `root` (files `entries`) and resolves every call
/// site: every file an analyzer of the built-in registry covers, within the daemon's
/// default size cap, analysed with `analyze_full` and inserted; every configuration file
/// ([`wit_graph::is_config_file`]) given with `set_config_file`. Like the daemon, paths
/// under `node_modules/` are left out.
pub fn build(root: &Path, entries: &[TreeEntry]) -> Result<WitRepo> {
    let registry = wit_analyzers::builtin_registry();
    let mut graph = Graph::new();
    let mut analysed: Vec<(String, Arc<Analysis>)> = Vec::new();
    let mut lines: HashMap<String, Vec<usize>> = HashMap::new();
    let mut texts: HashMap<String, String> = HashMap::new();
    let (mut not_indexed, mut config_files) = (0, 0);
    for e in entries {
        if !e.is_regular() || e.path.split('/').any(|c| c == "node_modules") {
            continue;
        }
        if wit_graph::is_config_file(&e.path) {
            if e.size.is_some_and(|s| s <= MAX_CONFIG_BYTES)
                && let Ok(text) = std::fs::read_to_string(root.join(&e.path))
            {
                graph.set_config_file(&e.path, Some(&text));
                config_files += 1;
            }
            continue;
        }
        let Some(analyzer) = registry.for_path(&e.path) else {
            continue;
        };
        if !indexable(&registry, e) {
            not_indexed += 1;
            continue;
        }
        let bytes = std::fs::read(root.join(&e.path))?;
        let analysis = match wit_core::analyzer::source_text(&bytes)
            .and_then(|text| analyzer.analyze_full(text))
        {
            Ok(a) => Arc::new(a),
            Err(_) => {
                not_indexed += 1;
                continue;
            }
        };
        graph.insert(&e.path, analysis.clone());
        let text = String::from_utf8(bytes)?;
        lines.insert(e.path.clone(), line_starts(&text));
        texts.insert(e.path.clone(), text);
        analysed.push((e.path.clone(), analysis));
    }

    let mut files = BTreeMap::new();
    for (path, analysis) in &analysed {
        let language = Language::of(path);
        let sites = analysis
            .call_sites
            .iter()
            .map(|site| {
                let (target, resolution) = graph.resolve_site(path, site);
                let target = match target {
                    Target::Symbol(s) => target_of(&graph, &lines, &s.file, &s.name),
                    Target::Unknown(_) => None,
                };
                WitSite {
                    line: site.line,
                    callee: site.callee.clone(),
                    caller: site.caller.clone(),
                    receiver: site.receiver.clone(),
                    resolution,
                    target,
                }
            })
            .collect();
        let text = &texts[path];
        let callables = analysis
            .symbols
            .iter()
            .filter(|s| s.kind.is_callable())
            .map(|s| Callable {
                name: s.qualified_name(),
                scope: scope(text, s, language == Language::Python),
            })
            .collect();
        files.insert(path.clone(), WitFile { sites, callables });
    }
    Ok(WitRepo {
        files,
        graph,
        lines,
        not_indexed,
        config_files,
    })
}

impl WitRepo {
    /// Where the graph sends a call of `callee` on `receiver` in `file` that wit's
    /// analyzer keeps no site for (module-level code, anonymous callbacks outside any
    /// named function): resolved as if it were in a definition of the file. Only
    /// `this`/`self`/`super` calls depend on the caller, and outside a class they have no
    /// answer anyway.
    pub fn resolve_as_if(
        &self,
        file: &str,
        callee: &str,
        receiver: Option<&str>,
        line: usize,
    ) -> (Resolution, Option<WitTarget>) {
        let site = SiteRef {
            caller: "",
            callee,
            receiver,
            line,
            arguments: None,
        };
        let (target, resolution) = self.graph.resolve(file, site);
        let target = match target {
            Target::Symbol(s) => target_of(&self.graph, &self.lines, &s.file, &s.name),
            Target::Unknown(_) => None,
        };
        (resolution, target)
    }
}

/// The definition `name` of `file` with its lines.
fn target_of(
    graph: &Graph,
    lines: &HashMap<String, Vec<usize>>,
    file: &str,
    name: &str,
) -> Option<WitTarget> {
    let symbol = graph.get(file)?.find(name)?;
    let starts = lines.get(file)?;
    let first = line_of(starts, symbol.start_byte);
    let last = line_of(
        starts,
        symbol.end_byte.saturating_sub(1).max(symbol.start_byte),
    );
    Some(WitTarget {
        file: file.to_owned(),
        name: name.to_owned(),
        lines: (first, last),
    })
}

/// Byte offsets of the starts of `text`'s lines (`\n`-separated, as wit counts them).
pub fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// 0-based line of byte `at`.
pub fn line_of(starts: &[usize], at: usize) -> usize {
    starts.partition_point(|&s| s <= at).saturating_sub(1)
}

/// The bytes whose calls a callable owns (see [`Callable::scope`]).
pub fn scope(text: &str, s: &Symbol, python: bool) -> (usize, usize) {
    let (start, end) = (s.start_byte.min(text.len()), s.end_byte.min(text.len()));
    if !python || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return (start, end);
    }
    // The body starts after the `:` that ends `def name(…) -> …:` (brackets and strings
    // skipped); the decorators before `def` are outside too.
    let body = &text[start..end];
    let Some(def) = find_def(body, &s.name) else {
        return (start, end);
    };
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let bytes = body.as_bytes();
    let mut i = def;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                b':' if depth == 0 => return (start + i + 1, end),
                _ => {}
            },
        }
        i += 1;
    }
    (start, end)
}

/// Offset in `body` of the `def` keyword of `def <name>`.
fn find_def(body: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = body[from..].find("def") {
        let at = from + i;
        let before_ok = at == 0 || !is_ident(body.as_bytes()[at - 1]);
        let rest = &body[at + 3..];
        let trimmed = rest.trim_start();
        if before_ok
            && trimmed.len() < rest.len()
            && trimmed.starts_with(name)
            && !trimmed[name.len()..].bytes().next().is_some_and(is_ident)
        {
            return Some(at);
        }
        from = at + 3;
    }
    None
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}
